//! Prediction of jobs on a device: each job clone becomes a simulated worker fed by the same
//! `iolab_workload::Workload` stream `iolab run` would issue (fio's decision order and seeds),
//! its files laid out one after another on the device (1 MiB aligned, shared `filename=`
//! once), run through `iolab_model::sim` over the device with no cache tier. The result is a
//! `RunResult` in `mode: simulated`, grouped as `iolab run` groups. The worker set-up is `iolab sim`'s
//! (`model::sim::jobs::job_workers`), with files sized as `iolab run` sizes them. A profile
//! whose submitting thread was the bottleneck adds the simulator's host stage
//! (`model::sim::HostCpu`: per-thread CPU per I/O, threads overlapping up to the cores).
//! A job outside the sizes and depths the profile's sweep measured gets a note
//! ([`crate::range`]).

use crate::error::CalibrateError;
use iolab_core::input::existing_size;
use iolab_job::Job;
use iolab_model::device::profile::Profiled;
use iolab_model::device::DeviceSpec;
use iolab_model::sim::jobs::{job_workers, run_result};
use iolab_model::sim::{self, SimOptions};
use iolab_model::tier::{BackingSpec, Hierarchy};
use iolab_stats::{RunMeta, RunResult};

/// The jobs as `device` would serve them.
pub fn predict(jobs: &[Job], device: &DeviceSpec) -> Result<RunResult, CalibrateError> {
    let backing = BackingSpec { name: "device".into(), device: device.clone(), sparse: false };
    let mut h = Hierarchy::new(Vec::new(), backing)?;
    let w = job_workers(jobs, &iolab_engine::runner::clone_files, &existing_size)?;
    let (host, outside) = match device {
        DeviceSpec::Profile(p) => (Profiled::host(p), crate::range::outside(p, jobs)),
        _ => (None, Vec::new()),
    };
    let mut report = sim::run(&mut h, w.workers, SimOptions { host, ..SimOptions::default() });
    let meta = RunMeta {
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        percentile_list: SimOptions::default().percentiles,
        ..RunMeta::default()
    };
    let mut result = run_result(&mut report, &w.meta, meta);
    result.notes.push("predicted from a device profile, not measured".into());
    result.notes.extend(outside);
    Ok(result)
}
