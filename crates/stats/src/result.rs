//! `RunResult`: everything one run measured or predicted, in iolab's own serializable form.
//!
//! Exporters (crate `iolab-report`) turn it into fio's text and JSON (stat.c
//! `show_run_stats`, `add_ddir_status_json`), logs and CSV; advice checks read it. Both the
//! engine (real I/O) and the simulator fill it, so the two can be compared field by field.
//! Units are explicit in the field names or docs: ns for latencies and times, bytes for sizes;
//! fio's ms/KiB conversions happen only in the exporters.

use std::collections::BTreeMap;

use iolab_core::IoDir;
use serde::{Deserialize, Serialize};

use crate::cpu::CpuUsage;
use crate::hist::LatStats;

/// How the numbers were obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// Real I/O (`iolab run`, `iolab replay`).
    #[default]
    Measured,
    /// Cache and device models (`iolab sim`).
    Simulated,
}

/// Provenance of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// `env!("CARGO_PKG_VERSION")` of the producing binary.
    pub iolab_version: String,
    /// Wall-clock start, ms since the Unix epoch (fio `timestamp_ms`).
    pub start_unix_ms: u64,
    /// The command line, argument by argument.
    pub command_line: Vec<String>,
    /// True when the run was cut short (Ctrl-C, a fatal error in one job).
    pub interrupted: bool,
    pub mode: RunMode,
    /// The percentile list the summaries were computed with (percent).
    pub percentile_list: Vec<f64>,
    pub hostname: String,
}

impl RunMeta {
    /// The meta of a result whose work starts now: this build's version, the wall-clock start
    /// (fio `timestamp_ms`), the command line, the mode and the percentiles. Built once, before
    /// the work, by every command that produces a result.
    pub fn started(mode: RunMode, command_line: Vec<String>, percentile_list: Vec<f64>) -> Self {
        let start_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        RunMeta {
            iolab_version: env!("CARGO_PKG_VERSION").to_string(),
            start_unix_ms,
            command_line,
            interrupted: false,
            mode,
            percentile_list,
            hostname: String::new(),
        }
    }
}

/// Summary of interval samples (fio `bw_min`…`bw_samples`, `iops_min`…`iops_samples`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Sample standard deviation (n−1).
    pub stddev: f64,
    pub samples: u64,
}

impl SampleStats {
    /// Summary of a list of samples.
    pub fn from_samples(xs: &[f64]) -> SampleStats {
        if xs.is_empty() {
            return SampleStats::default();
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = if xs.len() > 1 {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        SampleStats {
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean,
            stddev: var.sqrt(),
            samples: xs.len() as u64,
        }
    }
}

/// One interval of one direction (per interval, not cumulative).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalPoint {
    /// End of the interval, ns since the job's start.
    pub end_ns: u64,
    /// Length, ns.
    pub dur_ns: u64,
    pub bytes: u64,
    pub ios: u64,
    /// Mean completion latency of the I/Os completed in the interval, ns (0 if none).
    pub clat_mean_ns: f64,
}

impl IntervalPoint {
    /// Bandwidth over the interval, bytes/s.
    pub fn bw_bytes_per_sec(&self) -> f64 {
        if self.dur_ns == 0 {
            0.0
        } else {
            self.bytes as f64 * 1e9 / self.dur_ns as f64
        }
    }
    /// IOPS over the interval.
    pub fn iops(&self) -> f64 {
        if self.dur_ns == 0 {
            0.0
        } else {
            self.ios as f64 * 1e9 / self.dur_ns as f64
        }
    }
}

/// Statistics of one direction of one job or group (fio's per-ddir JSON object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    pub io_bytes: u64,
    /// Completed I/Os (fio `total_ios`).
    pub total_ios: u64,
    /// Submitted I/Os (fio "issued rwts").
    pub issued_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// I/Os that completed with an error.
    pub failed_ios: u64,
    /// Time the direction was active, ns (fio `runtime`, reported there in ms); 0 when the
    /// direction saw no I/O.
    pub runtime_ns: u64,
    pub slat: LatStats,
    pub clat: LatStats,
    pub lat: LatStats,
    /// A paced job's latency from each I/O's intended issue time (its place in the
    /// `rate`/`rate_iops` schedule) to its completion: `lat` plus the lag behind the
    /// schedule, which shows coordinated omission. iolab's own (JSON `iolab.<dir>.
    /// sched_lat_ns`); N=0 when the job was not paced.
    #[serde(default)]
    pub sched_lat: LatStats,
    /// The sync direction's `fdatasync` units among `total_ios` (fio's JSON counts only its
    /// fsyncs in the sync section's `total_ios`; the latencies are of both).
    #[serde(default)]
    pub datasync_ios: u64,
    /// Interval bandwidth samples in KiB/s (fio `bw_*`).
    pub bw: SampleStats,
    /// Interval IOPS samples (fio `iops_*`).
    pub iops: SampleStats,
    /// The interval series.
    pub series: Vec<IntervalPoint>,
}

impl DirStats {
    /// Average bandwidth over the runtime, bytes/s (fio `bw_bytes` uses whole ms; this does not).
    pub fn bw_bytes_per_sec(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.io_bytes as f64 * 1e9 / self.runtime_ns as f64
        }
    }
    /// Average IOPS over the runtime.
    pub fn iops_mean(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.total_ios as f64 * 1e9 / self.runtime_ns as f64
        }
    }
}

/// fio's I/O depth distributions (counts; exporters turn them into percentages).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DepthStats {
    /// In flight at submission, buckets 1,2,4,8,16,32,>=64 (fio `iodepth_level`).
    pub level: [u64; 7],
    /// I/Os per submit call, buckets 0,4,8,16,32,64,>=64 (fio `iodepth_submit`).
    pub submit: [u64; 7],
    /// I/Os per reap call (fio `iodepth_complete`).
    pub complete: [u64; 7],
    /// Exact depth at submission: (depth, submissions), non-zero entries only.
    pub exact: Vec<(u32, u64)>,
}

impl DepthStats {
    pub fn merge(&mut self, o: &DepthStats) {
        for i in 0..7 {
            self.level[i] += o.level[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
        let mut m: BTreeMap<u32, u64> = self.exact.iter().copied().collect();
        for &(d, c) in &o.exact {
            *m.entry(d).or_default() += c;
        }
        self.exact = m.into_iter().collect();
    }
}

/// Failed I/Os with one errno.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrnoCount {
    pub errno: i32,
    pub count: u64,
}

/// fio's `latency_target` settings as reported in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyTarget {
    pub depth: u32,
    /// ns (fio `latency_target`, reported in us by fio).
    pub target_ns: u64,
    pub percentile: f64,
    /// ns.
    pub window_ns: u64,
}

impl Default for LatencyTarget {
    fn default() -> Self {
        LatencyTarget { depth: 1, target_ns: 0, percentile: 100.0, window_ns: 0 }
    }
}

/// The steady-state window as reported (fio JSON `steadystate`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateReport {
    /// The criterion as written, e.g. `iops:20%`.
    pub ss: String,
    /// The criterion as the job typed it once, with its `kb_base` (`job::apply`'s
    /// `steadystate` setter); the exporters read this, never the text.
    #[serde(skip)]
    pub rule: Option<crate::SsCriterion>,
    /// Window, ns.
    pub duration_ns: u64,
    pub attained: bool,
    /// The value the criterion compared with its limit.
    pub criterion: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// Window samples, oldest first: IOPS, bandwidth (bytes/s) and, for `lat` criteria, mean
    /// completion latency (ns).
    pub iops: Vec<f64>,
    pub bw: Vec<f64>,
    #[serde(default)]
    pub lat: Vec<f64>,
}

/// Options echoed as written (name → raw value), in the order fio lists them.
pub type OptionList = indexmap::IndexMap<String, String>;

/// A job's settings the exporters act on, typed from the job when its result is built (so
/// no exporter re-reads option strings). Defaults are fio's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportOptions {
    /// `iodepth` (fio `latency_depth` starts there).
    pub iodepth: u32,
    /// `unified_rw_reporting`: 0 none, 1 mixed, 2 both.
    pub unified_rw: u8,
    pub group_reporting: bool,
    pub slat_percentiles: bool,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    /// `continue_on_error` other than `none`.
    pub continue_on_error: bool,
    /// `description`, when written.
    pub description: Option<String>,
    /// The engine that ran when it differs from the one asked for (a fallback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine_ran: Option<String>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            iodepth: 1,
            unified_rw: 0,
            group_reporting: false,
            slat_percentiles: false,
            clat_percentiles: true,
            lat_percentiles: false,
            continue_on_error: false,
            description: None,
            engine_ran: None,
        }
    }
}

/// One job (one fio job clone).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// fio `jobname`.
    pub name: String,
    /// Index of the job in the run (fio log names `<name>_<type>.<jobidx>.log`).
    pub jobidx: u32,
    pub groupid: u32,
    /// First errno seen (0 if none), fio `error`.
    pub error: i32,
    /// When the job started, ns after the run started.
    pub start_ns: u64,
    /// Measured time (after ramp), ns (fio `job_runtime`, ms there).
    pub runtime_ns: u64,
    /// Wall time from the job's creation to its end, ns (fio `elapsed`, s there).
    pub elapsed_ns: u64,
    /// The job's own options as written, in file order (fio `job options`).
    pub options: OptionList,
    /// The job's settings the exporters need, typed when the result is built.
    #[serde(default)]
    pub report: ReportOptions,
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    /// fsync/fdatasync issued as I/Os: only `total_ios` and `lat` are meaningful.
    pub sync: DirStats,
    pub cpu: CpuUsage,
    pub depth: DepthStats,
    pub errors: Vec<ErrnoCount>,
    /// Interval length of `series`, ns (fio `bwavgtime`).
    pub interval_ns: u64,
    pub latency_target: LatencyTarget,
    pub steadystate: Option<SteadyStateReport>,
    pub notes: Vec<String>,
    /// The verify phase, when the job ran one (`verify=` with `do_verify`, or `verify_only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
}

/// A job's verify phase (fio verify.c `verify_io_u`): every logged block read back and
/// checked. The read-back is kept out of the job's `read` figures so a write job's report
/// shows the writes alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// `verify=` type (crc32c, md5, ...).
    pub kind: String,
    /// Blocks checked and how each ended.
    pub checked: u64,
    pub ok: u64,
    pub corruption: u64,
    pub misplaced: u64,
    pub stale: u64,
    pub torn: u64,
    pub bad_header: u64,
    /// The verify reads themselves.
    pub read: DirStats,
    pub runtime_ns: u64,
    /// The first failures (at most [`VerifyResult::MAX_LISTED`]); the counts cover all.
    pub failures: Vec<VerifyFailureReport>,
    /// Why the check may not have read the media (cache not dropped).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl VerifyResult {
    /// Failures listed individually; more are only counted.
    pub const MAX_LISTED: usize = 64;

    pub fn failed(&self) -> u64 {
        self.checked - self.ok
    }

    /// This result with `other`'s checks added (`verify_backlog`'s checks made while the job
    /// wrote, beside the phase's after it). The reads, runtime and notes stay this one's.
    pub fn absorb(mut self, other: VerifyResult) -> VerifyResult {
        self.checked += other.checked;
        self.ok += other.ok;
        self.corruption += other.corruption;
        self.misplaced += other.misplaced;
        self.stale += other.stale;
        self.torn += other.torn;
        self.bad_header += other.bad_header;
        let mut f = other.failures;
        f.append(&mut self.failures);
        f.truncate(Self::MAX_LISTED);
        self.failures = f;
        self
    }
}

/// One failed block: where, what kind, what was expected and what was found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyFailureReport {
    pub file: String,
    pub offset: u64,
    pub len: u64,
    /// corruption, misplaced, stale, torn or bad_header.
    pub kind: String,
    /// e.g. "file 0 offset 8192 gen 0".
    pub expected: String,
    /// The header found, or why none could be read.
    pub found: String,
    /// The one-line description.
    pub message: String,
}

impl JobResult {
    pub fn dir(&self, d: IoDir) -> &DirStats {
        match d {
            IoDir::Read => &self.read,
            IoDir::Write => &self.write,
            IoDir::Trim => &self.trim,
            IoDir::Sync => &self.sync,
        }
    }
    pub fn dir_mut(&mut self, d: IoDir) -> &mut DirStats {
        match d {
            IoDir::Read => &mut self.read,
            IoDir::Write => &mut self.write,
            IoDir::Trim => &mut self.trim,
            IoDir::Sync => &mut self.sync,
        }
    }
}

/// Per-direction group figures for fio's "Run status group" line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupDir {
    /// Merged statistics of all jobs (exact histogram merge). Its `runtime_ns` is the
    /// longest job's (fio `sum_thread_stats`).
    pub stats: DirStats,
    pub min_run_ns: u64,
    pub max_run_ns: u64,
    /// Slowest and fastest job, bytes/s.
    pub min_bw_bytes: f64,
    pub max_bw_bytes: f64,
    /// io_bytes / longest runtime, bytes/s (fio `agg`).
    pub agg_bw_bytes: f64,
    /// io_bytes / group window (first start to last end), bytes/s: iolab's figure, which a
    /// late-starting job cannot inflate or deflate the way fio's max-runtime figure can.
    pub window_bw_bytes: f64,
}

/// A reporting group (fio `groupid`; jobs up to a `stonewall`/`new_group`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    pub groupid: u32,
    /// Indices into [`RunResult::jobs`].
    pub jobs: Vec<usize>,
    /// fio's group runtime: the longest job runtime, ns.
    pub runtime_ns: u64,
    /// iolab's window: from the earliest job start to the latest job end, ns.
    pub window_ns: u64,
    pub read: GroupDir,
    pub write: GroupDir,
    pub trim: GroupDir,
    pub sync: GroupDir,
    pub depth: DepthStats,
    pub cpu: CpuUsage,
}

impl GroupResult {
    pub fn dir(&self, d: IoDir) -> &GroupDir {
        match d {
            IoDir::Read => &self.read,
            IoDir::Write => &self.write,
            IoDir::Trim => &self.trim,
            IoDir::Sync => &self.sync,
        }
    }
}

/// Derived `iostat -x` figures over a sampling window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IostatX {
    pub r_s: f64,
    pub w_s: f64,
    pub rrqm_s: f64,
    pub wrqm_s: f64,
    pub rmb_s: f64,
    pub wmb_s: f64,
    /// ms
    pub r_await: f64,
    /// ms
    pub w_await: f64,
    pub aqu_sz: f64,
    /// percent
    pub util: f64,
}

/// One device's activity during the run (fio `disk_util[]` plus iostat-style figures).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_sectors: u64,
    pub write_sectors: u64,
    /// ms
    pub read_ticks: u64,
    /// ms
    pub write_ticks: u64,
    /// ms (weighted time in queue)
    pub in_queue: u64,
    /// ms with at least one I/O in flight
    pub io_ticks: u64,
    /// Window the deltas cover, ns.
    pub window_ns: u64,
    /// percent: io_ticks / window (fio `util`).
    pub util: f64,
    pub iostat: IostatX,
}

/// Everything one run produced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub meta: RunMeta,
    /// The `[global]` section's options in file order (fio `global options`).
    pub global_options: OptionList,
    pub jobs: Vec<JobResult>,
    pub groups: Vec<GroupResult>,
    pub disk_util: Vec<DiskUtil>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    /// Structured findings of the advice checks (crate `iolab-advice` defines their shape).
    pub advice: Vec<serde_json::Value>,
    /// Per-interval `iostat -x` figures of the devices under the targets (iolab's device
    /// view; `disk_util` holds the whole-run deltas as fio names them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disk_series: Vec<crate::diskseries::DeviceSeries>,
}
