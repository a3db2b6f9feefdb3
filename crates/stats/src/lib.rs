//! iolab's measurements: per-worker recorders, exact merging, percentiles, interval series,
//! steady-state criteria, CPU usage, the `/proc/diskstats` sampler, and [`RunResult`], the
//! one result type that real runs and simulations both produce.
//!
//! ```
//! use iolab_core::{IoDir, Nanos};
//! use iolab_stats::{summarize, Recorder, DEFAULT_PERCENTILES};
//! let mut r = Recorder::new(Nanos::from_millis(500));
//! for i in 0..1000u64 {
//!     r.record_submit(IoDir::Read, 1);
//!     r.record_complete(IoDir::Read, 4096, None, Nanos(50_000 + i), Nanos(50_100 + i));
//! }
//! let job = summarize(&r, Nanos::from_secs(1), &DEFAULT_PERCENTILES);
//! assert_eq!(job.read.io_bytes, 4096 * 1000);
//! assert!(job.read.clat.percentiles.iter().all(|p| p.value <= job.read.clat.max));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cpu;
pub mod diskseries;
pub mod diskstats;
pub mod hist;
pub mod histlog;
pub mod hosts;
pub mod livehist;
pub mod logfz;
pub mod recorder;
pub mod result;
pub mod samplelog;
pub mod sstrack;
pub mod steady;
pub mod summarize;
pub mod topology;

pub use cpu::{CpuUsage, Who};
pub use hist::{
    LatHist, LatStats, Percentile, DEFAULT_PERCENTILES, FIO_DEFAULT_PERCENTILES, MIN_TAIL_SAMPLES,
};
pub use histlog::{HistLog, HistSample};
pub use hosts::{HostRun, IntervalDelta, ALL_CLIENTS};
pub use recorder::{LiveCounters, LiveSnapshot, RawInterval, Recorder, DEFAULT_INTERVAL, DIRS};
pub use result::{
    DepthStats, DirStats, DiskUtil, ErrnoCount, GroupDir, GroupResult, IntervalPoint, IostatX,
    JobResult, LatencyTarget, OptionList, ReportOptions, RunMeta, RunMode, RunResult, SampleStats,
    SteadyStateReport, VerifyFailureReport, VerifyResult,
};
pub use samplelog::{LogSample, SampleLog, WindowValue};
pub use steady::{snia_pts, steady_report, SsCheck, SsCriterion, SsMetric};
pub use summarize::{group, groups, mixed_dir, summarize};
