//! What a caller hands the runner (run-wide switches, a read observer) and what it hands back
//! (the result, the per-file spread, the clones' log samples for the caller to write).

use crate::worker::LatLogs;
use iolab_core::Nanos;
use iolab_stats::diskstats::DiskHandle;
use iolab_stats::RunResult;
use std::path::PathBuf;
use std::sync::Arc;

/// Run-wide switches from the command line.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Writes to block devices carrying a signature are allowed (`--allow-destroy`); a device
    /// in use still needs the job's `allow_mounted_write=1`.
    pub allow_destroy: bool,
    /// fio's `--readonly`: no file is created or extended (writing jobs are refused earlier).
    pub readonly: bool,
    /// Percentiles to report (percent).
    pub percentiles: Vec<f64>,
    /// Stats interval when the job has no `bwavgtime`.
    pub interval: Nanos,
    /// Write every job's region once before it runs (reads of never-written blocks measure
    /// nothing; `--prefill`).
    pub prefill: bool,
    /// Sampling of read completions for iolab's advice (all-zero blocks): called with the
    /// job's index and the bytes read, on one completed read in `every` per clone.
    pub read_probe: Option<ReadProbe>,
    /// The diskstats sampler already running around the run (the advice watch's,
    /// `DiskMonitor::handle`); `None`: the runner starts one for its `disk_util`.
    pub disks: Option<DiskHandle>,
    /// This process's place among several running the same jobs (an MPI rank, 0 alone):
    /// its clones are numbered after those of the places before it (see [`RankPlace`]).
    pub place: RankPlace,
    /// The run's stop when the caller owns it (MPI's cross-rank stonewall sets it);
    /// `None`: a stop of the run's own (`iolab_run::progress::run_shown`).
    pub stop: Option<iolab_core::stop::Stop>,
}

/// Where this process's clones sit among several processes running the same jobs (MPI
/// ranks): rank `r` numbers its clones as if every rank's clones were one run's, so
/// rank `r`'s clone `c` of a job with `numjobs=n` is clone `r·n + c` (fio's `$jobnum` in
/// generated file names and the `offset_increment` multiplier, so no two ranks share a
/// generated file or an `offset_increment` region), and its thread numbers (the seeds)
/// and `jobidx` (the log files' numbers) continue after the `r·(clones per rank)` of the
/// ranks before it. Rank 0 numbers exactly as a run alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankPlace {
    pub rank: u32,
}

impl RankPlace {
    /// The first clone number of a job with `numjobs` clones, or `None` on overflow.
    pub fn clone_base(self, numjobs: u32) -> Option<u32> {
        self.rank.checked_mul(numjobs.max(1))
    }

    /// The thread numbers and `jobidx` before this rank's, `per_rank` clones a rank.
    pub fn thread_base(self, per_rank: u32) -> Option<u32> {
        self.rank.checked_mul(per_rank)
    }
}

/// Called with (job index, bytes read) for a sampled read completion.
pub type ReadObserver = Arc<dyn Fn(usize, &[u8]) + Send + Sync>;

/// A read-completion observer (see [`RunOptions::read_probe`]). Each clone counts its own
/// reads, so the observer is reached only for the sampled ones.
#[derive(Clone)]
pub struct ReadProbe {
    pub every: u64,
    pub observe: ReadObserver,
}

impl std::fmt::Debug for ReadProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadProbe").field("every", &self.every).finish_non_exhaustive()
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            allow_destroy: false,
            readonly: false,
            percentiles: iolab_stats::DEFAULT_PERCENTILES.to_vec(),
            interval: iolab_stats::DEFAULT_INTERVAL,
            prefill: false,
            read_probe: None,
            disks: None,
            place: RankPlace::default(),
            stop: None,
        }
    }
}

/// What one clone did to one file (the spread of a shared depth pool over `filename=a:b:…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileIo {
    pub job: String,
    pub clone: u32,
    pub path: PathBuf,
    pub ios: u64,
    pub bytes: u64,
}

/// A run's result plus the per-file spread.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    pub result: RunResult,
    pub files: Vec<FileIo>,
    /// fio's per-job log files to write (`write_lat_log`, `write_bw_log`, `write_iops_log`,
    /// `write_hist_log`).
    pub logs: Vec<JobLogs>,
}

/// What one clone logs, for the caller to write as `<prefix>_<type>.<jobidx + 1>.log`
/// (fio init.c `gen_log_name`, prefix = the option's value or the job name).
#[derive(Clone, Debug)]
pub struct JobLogs {
    /// Index into `RunResult::jobs`' `jobidx`.
    pub jobidx: u32,
    pub lat_prefix: Option<String>,
    pub bw_prefix: Option<String>,
    pub iops_prefix: Option<String>,
    /// `log_offset`: the offset column is present.
    pub log_offset: bool,
    /// `log_window_value=both`: the max column is present.
    pub window_max: bool,
    pub lat: Option<LatLogs>,
    /// `write_hist_log` prefix and `log_hist_coarseness`.
    pub hist_prefix: Option<String>,
    pub hist_coarseness: u32,
    /// `log_prio`: the prio column is `0x%04x` of [`JobLogs::ioprio`] (else 1 for the
    /// realtime class, 0 otherwise).
    pub log_prio: bool,
    /// The ioprio value the job's I/O was issued with (`prio`/`prioclass`; 0 when neither).
    pub ioprio: u16,
    /// `log_store_compressed`: write fio's `.fz` files.
    pub store_compressed: bool,
    /// `per_job_logs` (default 1); with 0 the jobs' logs of one prefix share
    /// `<prefix>_<type>.log`, one job after another.
    pub per_job: bool,
}
