//! Running whole jobs: `numjobs` clones as OS threads, `stonewall`/`wait_for` ordering,
//! file naming and setup, engine choice with the io_uring fallback, `invalidate`,
//! `ramp_time`/`runtime`, and the per-clone and per-group results (fio backend.c
//! `run_threads`/`thread_main`, filesetup.c `setup_files`, init.c `add_job` naming,
//! stat.c `show_run_stats`).
//!
//! Each clone builds its own engine inside its thread (io_uring's SINGLE_ISSUER wants the
//! submitting thread to own the ring) and records into its own recorder; results are merged
//! only at the end.

use crate::engines::{self, EngineConfig, EngineFile};
use crate::error::EngineError;
use crate::target::{self, Target, TargetSpec};
use crate::verify::{VerifyCheck, VerifyFill, VerifyLog, VerifySource};
use crate::worker::{
    run_worker, LatLogSpec, LatLogs, ReadCheck, RequestSource, WorkerConfig, WorkerOutcome,
};
use iolab_core::{IoRequest, Nanos};
use iolab_job::{Job, OptionValue};
use iolab_stats::{JobResult, LiveCounters, RunResult};
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// Run-wide switches from the command line.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Writes to block devices carrying a signature are allowed (`--allow-destroy`); a device
    /// in use still needs the job's `allow_mounted_write=1`.
    pub allow_destroy: bool,
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

/// The per-clone read check: the advice probe (1 in `every` reads) and `verify`.
struct ProbedCheck {
    probe: Option<(usize, ReadProbe, u64)>,
    verify: Option<VerifyCheck>,
}

impl ReadCheck for ProbedCheck {
    fn check(&mut self, buf: &[u8], file: u32, offset: u64) -> Result<(), String> {
        if let Some((job, p, n)) = &mut self.probe {
            if *n % p.every.max(1) == 0 {
                (p.observe)(*job, buf);
            }
            *n += 1;
        }
        match &mut self.verify {
            Some(c) => c.check(buf, file, offset),
            None => Ok(()),
        }
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            allow_destroy: false,
            percentiles: iolab_stats::DEFAULT_PERCENTILES.to_vec(),
            interval: iolab_stats::DEFAULT_INTERVAL,
            prefill: false,
            read_probe: None,
        }
    }
}

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
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
    /// fio's per-job log files to write (`write_lat_log`, `write_bw_log`, `write_iops_log`).
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
}

/// Live view for a progress display: one slot per clone, filled once the clone runs.
#[derive(Default)]
pub struct Progress {
    pub clones: Mutex<Vec<ProgressSlot>>,
}

/// One running clone as the progress display sees it.
pub struct ProgressSlot {
    pub job: String,
    pub started: Instant,
    /// Expected measured length (runtime + ramp) when time bound.
    pub expected: Option<Nanos>,
    pub live: Arc<Mutex<Option<Arc<LiveCounters>>>>,
    pub done: Arc<AtomicBool>,
    /// Ends this clone alone (fio's steadystate ends a job when attained); Ctrl-C's run-wide
    /// stop is forwarded to it.
    pub stop: Arc<AtomicBool>,
}

struct Clone {
    job_idx: usize,
    handle: JoinHandle<Result<WorkerOutcome, EngineError>>,
    clone: u32,
    paths: Vec<PathBuf>,
    start_ns: u64,
    spawned: Instant,
    notes: Vec<String>,
    /// The engine the clone ran (after a fallback, not the one the job asked for).
    engine: String,
}

fn opt_u64(job: &Job, name: &str) -> Option<u64> {
    job.opt_u64(name)
}

fn opt_bool(job: &Job, name: &str, default: bool) -> bool {
    job.opt_bool(name).unwrap_or(default)
}

fn opt_str<'a>(job: &'a Job, name: &str) -> Option<&'a str> {
    match job.opt(name)? {
        OptionValue::Str(s) => Some(s.as_str()),
        _ => None,
    }
}

/// The files of one clone, fio's way: `filename=` (shared by all clones, relative names
/// under `directory=`) or `<name>.<clone>.<n>` generated per clone (init.c `add_job`,
/// filesetup.c `get_file_name`), spread round-robin over the `directory=` entries.
pub fn clone_files(job: &Job, clone: u32) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = job.directory.iter().map(PathBuf::from).collect();
    let under = |i: usize, name: &str| -> PathBuf {
        let p = Path::new(name);
        if p.is_absolute() || dirs.is_empty() {
            p.to_path_buf()
        } else {
            dirs[i % dirs.len()].join(p)
        }
    };
    if !job.filenames.is_empty() {
        return job.filenames.iter().enumerate().map(|(i, f)| under(i, f)).collect();
    }
    (0..job.nrfiles.max(1))
        .map(|n| {
            let name = match &job.filename_format {
                Some(fmt) => fmt
                    .replace("$jobname", &job.name)
                    .replace("$jobnum", &clone.to_string())
                    .replace("$filenum", &n.to_string()),
                None => format!("{}.{}.{}", job.name, clone, n),
            };
            under(n as usize, &name)
        })
        .collect()
}

/// The engine a job will use and why it differs from what it asked for.
pub fn resolve_engine(job: &Job) -> Result<(String, Vec<String>), EngineError> {
    let mut notes = Vec::new();
    let mut name = job.ioengine.clone();
    engines::lookup(&name)?;
    if name == "io_uring" {
        if let Err(why) = engines::uring::probe() {
            notes.push(format!(
                "job {}: io_uring is not available ({why}); using psync (depth 1)",
                job.name
            ));
            name = "psync".to_string();
        }
    }
    if engines::is_sync_engine(&name) && job.iodepth > 1 {
        notes.push(format!(
            "job {}: ioengine={name} is synchronous: queue depth will be capped at 1 (asked {})",
            job.name, job.iodepth
        ));
    }
    if name == "libaio" && !job.direct && job.iodepth > 1 {
        notes.push(format!(
            "job {}: libaio with direct=0 completes in io_submit: expect an achieved depth of ~1 \
             (see the IO depths line); use direct=1",
            job.name
        ));
    }
    Ok((name, notes))
}

/// Options the registry accepts that this engine does not act on (yet): each gets a note, so
/// nothing is ignored silently.
pub fn unhandled_notes(job: &Job) -> Vec<String> {
    let mut v = Vec::new();
    let mut note = |opt: &str, why: &str| {
        if job.options.contains_key(opt) {
            v.push(format!("job {}: {opt}: {why}", job.name));
        }
    };
    note("exitall", "not acted on: other jobs run to their own end");
    note("exit_what", "not acted on: other jobs run to their own end");
    note("hipri", "not acted on: completions are interrupt driven (no IORING_SETUP_IOPOLL)");
    note("userspace_reap", "not needed: completions are reaped with io_getevents");
    note("create_on_open", "not acted on: files are created during setup, before the job");
    note(
        "fallocate",
        "not acted on: new files are extended with ftruncate (sparse) or laid out by writing",
    );
    note("thinktime_blocks_type", "thinktime is scheduled by the workload generator");
    v
}

/// The worker's loop settings from the job's options.
/// The worker's settings for `job`, and a note when its `clocksource` cannot be honoured.
pub fn worker_config(
    job: &Job,
    opts: &RunOptions,
) -> Result<(WorkerConfig, Option<String>), EngineError> {
    let depth = job.iodepth.max(1);
    let bad = |what: String| EngineError::Job { job: job.name.clone(), what };
    if let Some(mode) = opt_str(job, "io_submit_mode") {
        if mode != "inline" {
            return Err(bad(format!("io_submit_mode={mode} is not supported (only inline)")));
        }
    }
    let cont = opt_str(job, "continue_on_error").unwrap_or("none");
    // options.c str_gtod_reduce_cb: gtod_reduce turns every latency off.
    let gtod = opt_bool(job, "gtod_reduce", false);
    let log_avg = opt_u64(job, "log_avg_msec").unwrap_or(0);
    let window = match opt_str(job, "log_window_value").unwrap_or("avg") {
        "max" | "1" => iolab_stats::WindowValue::Max,
        "both" | "2" => iolab_stats::WindowValue::Both,
        _ => iolab_stats::WindowValue::Avg,
    };
    // init.c setup_log for write_bw_log/write_iops_log: the sampling period becomes
    // log_avg_msec (or the smaller of it and an explicit bwavgtime/iopsavgtime).
    let avg_time = opt_u64(job, "bwavgtime").or(opt_u64(job, "iopsavgtime"));
    let bw_logged =
        job.options.contains_key("write_bw_log") || job.options.contains_key("write_iops_log");
    let interval = match (bw_logged && log_avg > 0, avg_time) {
        (true, Some(t)) => Nanos::from_millis(log_avg.min(t)),
        (true, None) => Nanos::from_millis(log_avg),
        (false, Some(t)) => Nanos::from_millis(t),
        (false, None) => opts.interval,
    };
    let (clock, clock_note) = crate::clock::ClockSource::resolve(opt_str(job, "clocksource"));
    let cfg = WorkerConfig {
        clock,
        depth,
        batch_submit: opt_u64(job, "iodepth_batch").map(|v| v as u32).unwrap_or(1),
        complete_min: opt_u64(job, "iodepth_batch_complete_min").map(|v| v as u32).unwrap_or(1),
        depth_low: opt_u64(job, "iodepth_low").map(|v| v as u32).unwrap_or(depth),
        fsync_every: opt_u64(job, "fsync").unwrap_or(0),
        fdatasync_every: opt_u64(job, "fdatasync").unwrap_or(0),
        end_fsync: opt_bool(job, "end_fsync", false),
        runtime: job.runtime.filter(|r| r.0 > 0),
        ramp: job.ramp_time.filter(|r| r.0 > 0),
        interval,
        stop_on_error: cont == "none",
        no_slat: gtod || opt_bool(job, "disable_slat", false),
        no_clat: gtod || opt_bool(job, "disable_clat", false),
        no_lat: gtod || opt_bool(job, "disable_lat", false),
        lat_log: {
            let spec = LatLogSpec {
                avg: Nanos::from_millis(log_avg),
                window,
                offset: opt_bool(job, "log_offset", false),
                lat: job.options.contains_key("write_lat_log"),
                unit_bw: log_avg == 0
                    && job.options.contains_key("write_bw_log")
                    && !gtod
                    && !opt_bool(job, "disable_bw_measurement", false),
                unit_iops: log_avg == 0 && job.options.contains_key("write_iops_log") && !gtod,
            };
            (spec.lat || spec.unit_bw || spec.unit_iops).then_some(spec)
        },
    };
    Ok((cfg, clock_note))
}

/// A clone's workload as the worker's request source. With `invalidate` on a buffered job,
/// every new pass over the files (a `loops` iteration, or a `time_based` wrap) first drops
/// the files' page cache, as fio does (io_u.c `loop_cache_invalidate` on a wrap, and
/// `td_io_open_file` when a loop reopens the files), so later passes read the device too.
struct WorkloadSource<'a> {
    wl: Workload,
    /// Targets to invalidate when a pass starts (`None`: direct I/O or `invalidate=0`).
    invalidate: Option<&'a [Target]>,
    passes: u64,
}

impl RequestSource for WorkloadSource<'_> {
    #[inline]
    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        let more = self.wl.next_into(r);
        if let Some(ts) = self.invalidate {
            let p = self.wl.passes();
            if p != self.passes {
                self.passes = p;
                // A failure was already noted when the job started (the same call).
                for t in ts {
                    let _ = target::invalidate(t);
                }
            }
        }
        more
    }
}

/// The seed of a clone's data (shared with the advice: `iolab_workload::seeds::data_seed`).
fn data_seed(job: &Job, thread_number: u32) -> u64 {
    iolab_workload::seeds::data_seed(job.randseed, thread_number)
}

/// How a job verifies: `stamp` = headers in every write, `phase` = read back what it wrote after writing (`verify=` with
/// `do_verify`, fio's default), `only` = skip the writes (`verify_only`), `inline` = check
/// each read of a read-only job against its header.
struct VerifyPlan {
    /// Writes carry verify headers (`verify=` on a writing job, even with `do_verify=0`).
    stamp: bool,
    phase: bool,
    only: bool,
    inline: bool,
}

fn verify_plan(
    job: &Job,
    dcfg: &iolab_data::DataConfig,
    wcfg: &WorkerConfig,
) -> Result<VerifyPlan, EngineError> {
    use iolab_data::VerifyKind;
    let on = !matches!(dcfg.verify, VerifyKind::None | VerifyKind::Null);
    let writes = job.rw.has_write();
    let only = on && opt_bool(job, "verify_only", false);
    let phase = on && writes && (only || opt_bool(job, "do_verify", true));
    if on && writes && job.rw.has_trim() {
        // fio verifies trimmed blocks only through trim_verify_*; iolab's log would expect
        // the old data there and report every trimmed block as a failure.
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: format!(
                "verify={} with trims (rw={:?}) is not supported: use a write-only job to verify",
                dcfg.verify.name(),
                job.rw
            ),
        });
    }
    if only && (job.time_based || wcfg.runtime.is_some()) {
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: "verify_only replays the writes of a run bounded by size: drop time_based and \
                   runtime (a time-bound run's writes cannot be reproduced)"
                .to_string(),
        });
    }
    Ok(VerifyPlan { stamp: on && writes, phase, only, inline: on && !writes && job.rw.has_read() })
}

fn empty_outcome(interval: Nanos) -> WorkerOutcome {
    WorkerOutcome {
        rec: iolab_stats::Recorder::new(interval),
        runtime: Nanos::ZERO,
        measure_start: Nanos::ZERO,
        cpu: iolab_stats::CpuUsage::default(),
        error: None,
        verify_failures: 0,
        per_file: Vec::new(),
        verify: None,
        lat_logs: None,
        notes: Vec::new(),
    }
}

/// fio's verify phase (backend.c `do_verify`): read every logged block back through the same
/// engine and depth, check it, and keep these reads out of the job's own figures.
#[allow(clippy::too_many_arguments)]
fn verify_phase(
    engine: &mut dyn engines::IoEngine,
    log: VerifyLog,
    dcfg: &iolab_data::DataConfig,
    seed: u64,
    paths: Vec<PathBuf>,
    wcfg: &WorkerConfig,
    stop: &AtomicBool,
    pcts: &[f64],
) -> Result<(iolab_stats::VerifyResult, u64), EngineError> {
    let mut src = VerifySource::new(&log);
    let mut check = VerifyCheck::new(dcfg, seed, Some(log), paths);
    let cfg = WorkerConfig {
        fsync_every: 0,
        fdatasync_every: 0,
        end_fsync: false,
        runtime: None,
        ramp: None,
        lat_log: None,
        ..wcfg.clone()
    };
    let mut nofill = |_: &mut [u8], _: u32, _: u64| {};
    let out = run_worker(engine, &mut src, &mut nofill, Some(&mut check), &cfg, stop, None)?;
    let mut v = check.result();
    v.read = iolab_stats::summarize(&out.rec, out.runtime, pcts).read;
    v.runtime_ns = out.runtime.0;
    Ok((v, out.verify_failures))
}

/// The data of a layout or `--prefill`: the job's own buffer options when it asks for
/// compressible, deduplicable, patterned or zero data; otherwise unique random blocks
/// (`refill_buffers`), which neither compress nor dedupe. fio's default buffer is one random
/// block rewritten 24 bytes per sector, which a stream compressor shrinks 18:1, so a
/// compressing or thin-provisioned array would be flattered by a prefill of it.
fn layout_config(dcfg: &iolab_data::DataConfig) -> iolab_data::DataConfig {
    let asks = dcfg.compress_percentage != 0
        || dcfg.dedupe_percentage != 0
        || !dcfg.pattern.is_empty()
        || dcfg.zero_buffers;
    let mut c = dcfg.clone();
    if !asks {
        c.refill_buffers = true;
    }
    c
}

/// fio counts the verify phase's reads as the job's reads (backend.c `do_verify` issues them
/// as ordinary read io_us, and `update_runtime(td, elapsed_us, DDIR_READ)` adds its time):
/// read I/Os, bytes, latencies and issued counts include them, the read runtime and the job
/// runtime grow by the phase's time. fio 3.33 on a 16 MiB write+verify job: read 4096 I/Os /
/// 16 MiB (runtime 47 ms), write 4096 (75 ms), job_runtime 120 ms. `jobs[].iolab.verify`
/// keeps the phase's own figures beside them.
fn count_verify_reads(
    jr: &mut iolab_stats::JobResult,
    v: &iolab_stats::VerifyResult,
    pcts: &[f64],
) {
    if v.read.total_ios == 0 && v.read.issued_ios == 0 {
        return;
    }
    let own = std::mem::take(&mut jr.read);
    let mut read = iolab_stats::mixed_dir(&[&own, &v.read], jr.interval_ns, pcts);
    read.runtime_ns = own.runtime_ns + v.runtime_ns;
    jr.read = read;
    jr.runtime_ns += v.runtime_ns;
}

/// Run all jobs in order and return the result. `stop` ends every worker (Ctrl-C); the
/// result is then marked interrupted by the caller.
pub fn run_jobs(
    jobs: &[Job],
    opts: &RunOptions,
    stop: Arc<AtomicBool>,
    progress: Option<Arc<Progress>>,
) -> Result<RunOutput, EngineError> {
    let run_start = Instant::now();
    // Each clone has its own stop flag (so one job can be ended alone); a forwarder copies
    // the run-wide stop (Ctrl-C) onto all of them.
    let clone_stops: Arc<Mutex<Vec<Arc<AtomicBool>>>> = Arc::default();
    let run_over = Arc::new(AtomicBool::new(false));
    // Ends the forwarder on every way out of this function, early errors included.
    let _over = SetOnDrop(run_over.clone());
    // fio's disk_util: all devices now, filtered to those under the jobs' files at the end;
    // polled every 250 ms as fio's diskutil.c does, so 32-bit counters that wrap during a
    // long run are summed interval by interval.
    let disks = Arc::new(Mutex::new(iolab_stats::diskstats::DiskStatsSampler::new(Vec::new())));
    let disks_ok = disks.lock().map(|mut d| d.start().is_ok()).unwrap_or(false);
    {
        let (stops, stop, over) = (clone_stops.clone(), stop.clone(), run_over.clone());
        let disks = disks.clone();
        let mut polled = Instant::now();
        std::thread::Builder::new()
            .name("iolab-stop".into())
            .spawn(move || {
                while !over.load(std::sync::atomic::Ordering::Relaxed) {
                    if disks_ok && polled.elapsed() >= std::time::Duration::from_millis(250) {
                        polled = Instant::now();
                        if let Ok(mut d) = disks.lock() {
                            // A failed read leaves the totals as they were; finish reads again.
                            let _ = d.poll();
                        }
                    }
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        if let Ok(v) = stops.lock() {
                            v.iter()
                                .for_each(|s| s.store(true, std::sync::atomic::Ordering::Relaxed));
                        }
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            })
            .map_err(|e| EngineError::io("thread", "spawn", e))?;
    }
    let mut result = RunResult::default();
    let mut running: Vec<Clone> = Vec::new();
    let mut finished: Vec<(usize, u32, JobResult)> = Vec::new();
    let mut files: Vec<FileIo> = Vec::new();
    let mut logs: Vec<JobLogs> = Vec::new();
    let mut thread_number = 0u32;
    let mut first_err: Option<EngineError> = None;
    let mut disk_names: Vec<String> = Vec::new();

    for (ji, job) in jobs.iter().enumerate() {
        if job.stonewall {
            join_all(
                &mut running,
                jobs,
                &mut finished,
                &mut files,
                &mut logs,
                &mut first_err,
                opts,
            );
        }
        if let Some(w) = &job.wait_for {
            let target: Vec<usize> =
                jobs.iter().enumerate().filter(|(_, j)| &j.name == w).map(|(i, _)| i).collect();
            if target.is_empty() || target.iter().any(|&t| t >= ji) {
                return Err(EngineError::Job {
                    job: job.name.clone(),
                    what: format!("wait_for={w}: no earlier job has that name"),
                });
            }
            let (mine, rest): (Vec<Clone>, Vec<Clone>) =
                running.drain(..).partition(|c| target.contains(&c.job_idx));
            running = rest;
            let mut mine = mine;
            join_all(&mut mine, jobs, &mut finished, &mut files, &mut logs, &mut first_err, opts);
        }
        if first_err.is_some() || stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let (engine_name, mut notes) = resolve_engine(job)?;
        notes.extend(unhandled_notes(job));
        let allow_create = opt_bool(job, "allow_file_create", true);
        // fio's allow_mounted_write=1 is the only way to write to a device in use;
        // --allow-destroy lifts the signature check only (safety.rs).
        let allow_destroy = opts.allow_destroy;
        let allow_mounted_write = opt_bool(job, "allow_mounted_write", false);
        let (wcfg, clock_note) = worker_config(job, opts)?;
        notes.extend(clock_note.map(|n| format!("job {}: {n}", job.name)));
        let invalidate = opt_bool(job, "invalidate", true);
        let invalidate_passes = invalidate && !job.direct && engine_name != "null";
        let mut shared_done: Vec<PathBuf> = Vec::new();
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            // fio's pairing of clones and thread numbers (they scale the seeds).
            let thread_number =
                iolab_workload::fio_thread_number(thread_number - clone, clone, job.numjobs.max(1));
            let paths = clone_files(job, clone);
            let layouts: Vec<FileLayout> =
                paths.iter().map(|p| FileLayout { size: existing_size(p) }).collect();
            let input = WorkerInput { job, clone_index: clone, thread_number, files: &layouts };
            let wl = Workload::new(&input)
                .map_err(|e| EngineError::Job { job: job.name.clone(), what: e.to_string() })?;
            if clone == 0 {
                notes.extend(wl.warnings().iter().map(|w| format!("job {}: {w}", job.name)));
            }
            let dcfg = iolab_data::DataConfig::from_job(job)
                .map_err(|e| EngineError::Job { job: job.name.clone(), what: e.to_string() })?;
            let seed = data_seed(job, thread_number);
            let mut layout_gen = iolab_data::DataGen::new(&layout_config(&dcfg), seed);
            let plan = verify_plan(job, &dcfg, &wcfg)?;
            let reads = job.rw.has_read() || opts.prefill || plan.phase;
            // --prefill writes the region, so it needs write access and the same safety
            // checks as a write job.
            let writes = ((job.rw.has_write() || job.rw.has_trim()) && !plan.only) || opts.prefill;
            let mut targets: Vec<Target> = Vec::new();
            for (fi, (p, region)) in paths.iter().zip(wl.regions()).enumerate() {
                let spec = TargetSpec {
                    path: p.clone(),
                    needed: region.file_size.max(region.end),
                    reads,
                    writes,
                    direct: job.direct,
                    sync_flags: match opt_str(job, "sync") {
                        Some("sync") | Some("1") => libc::O_SYNC,
                        Some("dsync") => libc::O_DSYNC,
                        _ => 0,
                    },
                    allow_destroy,
                    allow_mounted_write,
                    layout: job.rw.has_read() || opts.prefill || opt_bool(job, "overwrite", false),
                };
                if engine_name == "null" {
                    // fio's null engine needs no file: `size` is enough.
                    continue;
                }
                if !allow_create && !p.exists() {
                    return Err(EngineError::Job {
                        job: job.name.clone(),
                        what: format!("{}: does not exist and allow_file_create=0", p.display()),
                    });
                }
                let t = target::open_target(&spec, &mut |b, off| {
                    layout_gen.fill(b, fi as u32, off, 0)
                })?;
                if !shared_done.contains(p) {
                    notes.extend(t.notes.iter().cloned());
                    if opts.prefill {
                        target::prefill(&t, region.start, region.end, &mut |b, off| {
                            layout_gen.fill(b, fi as u32, off, 0)
                        })?;
                        notes.push(format!(
                            "{}: prefilled [{}, {}) before measuring (--prefill)",
                            p.display(),
                            region.start,
                            region.end
                        ));
                    }
                    if invalidate && !job.direct {
                        if let Some(w) = target::invalidate(&t) {
                            notes.push(w);
                        }
                    }
                    shared_done.push(p.clone());
                }
                for n in disk_names_of(&t) {
                    if !disk_names.contains(&n) {
                        disk_names.push(n);
                    }
                }
                targets.push(t);
            }
            let efiles: Vec<EngineFile> = targets
                .iter()
                .map(|t| EngineFile {
                    fd: t.file.as_raw_fd(),
                    is_block: t.is_block,
                    path: t.path.clone(),
                })
                .collect();
            let max_bs = [job.bs.read.max, job.bs.write.max, job.bs.trim.max]
                .into_iter()
                .chain(job.bs.iter().flat_map(|(_, b)| b.split.iter().map(|s| s.bs)))
                .max()
                .unwrap_or(4096);
            let max_bs = buffer_size(job, max_bs, wcfg.depth)?;
            let mut ecfg = EngineConfig::new(wcfg.depth, max_bs, efiles);
            ecfg.fixedbufs = job.opt_bool("fixedbufs");
            ecfg.registerfiles = job.opt_bool("registerfiles");
            ecfg.sqthread_poll = opt_bool(job, "sqthread_poll", false);
            // init.c fixup_options: an unset (0) or too small max is raised to the min, and
            // td_io_getevents raises it to the events asked for (at least one). So by default
            // fio reaps ONE completion per getevents and resubmits it at once, which keeps the
            // device queue at iodepth; draining the whole CQ instead lets it run down.
            ecfg.reap_max = opt_u64(job, "iodepth_batch_complete_max")
                .map_or(0, |m| m as u32)
                .max(wcfg.complete_min)
                .max(1);
            let entry = engines::lookup(&engine_name)?;
            let fill = VerifyFill::new(&dcfg, seed, plan.stamp);
            // A read job with verify= checks what an earlier job wrote, block by block.
            let verify = plan.inline.then(|| VerifyCheck::new(&dcfg, seed, None, paths.clone()));
            // The null engine moves no data: its buffers say nothing about the target.
            let probe =
                opts.read_probe.clone().filter(|_| engine_name != "null").map(|p| (ji, p, 0u64));
            let check =
                (probe.is_some() || verify.is_some()).then_some(ProbedCheck { probe, verify });
            let clone_stop =
                Arc::new(AtomicBool::new(stop.load(std::sync::atomic::Ordering::Relaxed)));
            if let Ok(mut v) = clone_stops.lock() {
                v.push(clone_stop.clone());
            }
            let vphase = plan.phase.then(|| (dcfg.clone(), seed, paths.clone(), plan.only));
            let pcts = opts.percentiles.clone();
            let vdirect = job.direct;
            let live = Arc::new(Mutex::new(None));
            let done = Arc::new(AtomicBool::new(false));
            if let Some(p) = &progress {
                if let Ok(mut v) = p.clones.lock() {
                    v.push(ProgressSlot {
                        job: job.name.clone(),
                        started: Instant::now(),
                        expected: wcfg.runtime.map(|r| r + wcfg.ramp.unwrap_or_default()),
                        live: live.clone(),
                        done: done.clone(),
                        stop: clone_stop.clone(),
                    });
                }
            }
            let stop2 = clone_stop.clone();
            let wcfg2 = wcfg.clone();
            let name = format!("iolab-{}.{clone}", job.name);
            let spawned = Instant::now();
            let start_ns = run_start.elapsed().as_nanos() as u64;
            let handle = std::thread::Builder::new()
                .name(name)
                .spawn(move || {
                    let held = targets; // keep the fds open while the engine runs
                    let mut engine = (entry.ctor)(&ecfg)?;
                    let mut src = WorkloadSource {
                        wl,
                        invalidate: invalidate_passes.then_some(&held[..]),
                        passes: 0,
                    };
                    let mut fill = fill;
                    let mut check = check;
                    let out = match &vphase {
                        Some((_, _, _, true)) => {
                            // verify_only: the writes are replayed into the log, not done.
                            let log = fill.log.get_or_insert_with(VerifyLog::default);
                            log.replay(&mut src);
                            Ok(empty_outcome(wcfg2.interval))
                        }
                        _ => run_worker(
                            &mut *engine,
                            &mut src,
                            &mut fill,
                            check.as_mut().map(|c| c as &mut dyn ReadCheck),
                            &wcfg2,
                            &stop2,
                            Some(&live),
                        ),
                    };
                    let out = out.and_then(|mut out| {
                        let mut notes = engine.notes();
                        notes.append(&mut out.notes);
                        out.notes = notes;
                        if let Some(c) = check.as_ref().and_then(|c| c.verify.as_ref()) {
                            out.verify = Some(c.result());
                        }
                        let log = if vphase.is_some() { fill.log } else { None };
                        if let (Some((dcfg, seed, paths, _)), Some(log)) = (&vphase, log) {
                            let stopped = out.error.is_some();
                            // backend.c do_verify: sync and drop the cache first, so the
                            // check reads what reached the media, not the page cache.
                            let mut cache_notes = Vec::new();
                            if !stopped {
                                for t in &held {
                                    t.file
                                        .sync_all()
                                        .map_err(|e| EngineError::io(&t.path, "fsync", e))?;
                                    if !vdirect {
                                        cache_notes.extend(target::invalidate(t).map(|w| {
                                            format!("verify reads may come from memory: {w}")
                                        }));
                                    }
                                }
                            }
                            if !stopped {
                                let (mut v, fatal) = verify_phase(
                                    &mut *engine,
                                    log,
                                    dcfg,
                                    *seed,
                                    paths.clone(),
                                    &wcfg2,
                                    &stop2,
                                    &pcts,
                                )?;
                                v.notes = cache_notes;
                                out.verify = Some(v);
                                out.verify_failures += fatal;
                            }
                        }
                        Ok(out)
                    });
                    done.store(true, std::sync::atomic::Ordering::Relaxed);
                    out
                })
                .map_err(|e| EngineError::io("thread", "spawn", e))?;
            running.push(Clone {
                job_idx: ji,
                handle,
                clone,
                paths,
                start_ns,
                spawned,
                // The fallback's reason goes with the job's result too (the JSON's ioengine).
                notes: notes
                    .iter()
                    .filter(|n| engine_name != job.ioengine && n.contains("is not available"))
                    .cloned()
                    .collect(),
                engine: engine_name.clone(),
            });
        }
        result.notes.extend(notes);
    }
    join_all(&mut running, jobs, &mut finished, &mut files, &mut logs, &mut first_err, opts);
    if let Some(e) = first_err {
        return Err(e);
    }

    // Jobs in run order; one JobResult per clone (group_reporting merges per group below).
    finished.sort_by_key(|(ji, tn, _)| (*ji, *tn));
    result.jobs = finished.into_iter().map(|(_, _, j)| j).collect();
    result.groups = iolab_stats::groups(&result.jobs, &opts.percentiles);
    if disks_ok {
        if let Ok(all) = disks.lock().map_err(|_| ()).and_then(|mut d| d.finish().map_err(|_| ())) {
            result.disk_util = all.into_iter().filter(|u| disk_names.contains(&u.name)).collect();
        }
    }
    result.meta.percentile_list = opts.percentiles.clone();
    result.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
    Ok(RunOutput { result, files, logs })
}

/// The largest block size as a buffer length, refused (naming `bs`/`bsrange`) when one
/// buffer per queue slot cannot even be addressed: fio fails such a job with err=12.
fn buffer_size(job: &Job, max_bs: u64, depth: u32) -> Result<usize, EngineError> {
    usize::try_from(max_bs)
        .ok()
        .filter(|&b| b.checked_mul(depth.max(1) as usize).is_some_and(|t| t <= isize::MAX as usize))
        .ok_or_else(|| EngineError::Job {
            job: job.name.clone(),
            what: format!(
                "bs/bsrange: a largest block size of {max_bs} bytes times iodepth {depth} \
                 cannot be allocated (fio: err=12); use a smaller bs or bsrange"
            ),
        })
}

/// Kernel names of the block device a target lives on (its partition and the whole disk),
/// from `/sys/dev/block/MAJ:MIN`, as fio's `disk_util` names them.
fn disk_names_of(t: &Target) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = t.file.metadata() else { return Vec::new() };
    let dev = if t.is_block { m.rdev() } else { m.dev() };
    let sys = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    let Ok(real) = std::fs::canonicalize(&sys) else { return Vec::new() };
    let mut names = Vec::new();
    if let Some(n) = real.file_name() {
        names.push(n.to_string_lossy().into_owned());
    }
    if real.join("partition").exists() {
        if let Some(parent) = real.parent().and_then(|p| p.file_name()) {
            names.push(parent.to_string_lossy().into_owned());
        }
    }
    names
}

fn existing_size(p: &Path) -> u64 {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(p) {
        Ok(m) if m.file_type().is_block_device() => std::fs::File::open(p)
            .ok()
            .and_then(|f| {
                let mut size: u64 = 0;
                // SAFETY: BLKGETSIZE64 writes one u64 through a valid pointer.
                let r = unsafe { libc::ioctl(f.as_raw_fd(), target::BLKGETSIZE64 as _, &mut size) };
                (r == 0).then_some(size)
            })
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

fn join_all(
    running: &mut Vec<Clone>,
    jobs: &[Job],
    finished: &mut Vec<(usize, u32, JobResult)>,
    files: &mut Vec<FileIo>,
    logs: &mut Vec<JobLogs>,
    first_err: &mut Option<EngineError>,
    opts: &RunOptions,
) {
    for (n, c) in running.drain(..).enumerate() {
        let job = &jobs[c.job_idx];
        match c.handle.join() {
            Ok(Ok(out)) => {
                for (i, p) in c.paths.iter().enumerate() {
                    let (ios, bytes) = out.per_file.get(i).copied().unwrap_or((0, 0));
                    files.push(FileIo {
                        job: job.name.clone(),
                        clone: c.clone,
                        path: p.clone(),
                        ios,
                        bytes,
                    });
                }
                let mut jr = iolab_stats::summarize(&out.rec, out.runtime, &opts.percentiles);
                jr.name = job.name.clone();
                jr.groupid = job.group_id;
                jr.jobidx = finished.len() as u32;
                jr.start_ns = c.start_ns + out.measure_start.0;
                jr.elapsed_ns = c.spawned.elapsed().as_nanos() as u64;
                jr.cpu = out.cpu;
                jr.error = out.rec.first_error.map(|e| e.1).unwrap_or(0);
                jr.options = job.options.iter().map(|(k, v)| (k.clone(), v.raw.clone())).collect();
                if c.engine != job.ioengine {
                    // A fallback (io_uring disabled or refused): the JSON names the engine that
                    // ran; the job's notes say why.
                    jr.options.insert("ioengine".into(), c.engine.clone());
                }
                jr.notes = c.notes;
                jr.notes.extend(out.notes);
                if let Some(e) = out.error {
                    jr.notes.push(format!("stopped: {e}"));
                }
                if let Some(v) = &out.verify {
                    jr.notes.extend(v.notes.iter().cloned());
                    if v.failed() > 0 {
                        jr.notes.push(format!(
                            "verify: {} of {} blocks failed (corruption {}, misplaced {}, stale {}, \
                             torn {}, bad header {}){}",
                            v.failed(),
                            v.checked,
                            v.corruption,
                            v.misplaced,
                            v.stale,
                            v.torn,
                            v.bad_header,
                            if out.verify_failures > 0 { "; verify_fatal stopped the job" } else { "" }
                        ));
                    }
                }
                if let Some(v) = &out.verify {
                    count_verify_reads(&mut jr, v, &opts.percentiles);
                }
                jr.verify = out.verify;
                if opt_bool(job, "disable_bw_measurement", false)
                    || opt_bool(job, "gtod_reduce", false)
                {
                    // fio disable_bw: no bw/iops samples; the JSON shows zeros with N=0.
                    for d in iolab_stats::DIRS {
                        let ds = jr.dir_mut(d);
                        ds.bw = Default::default();
                        ds.iops = Default::default();
                    }
                }
                let prefix = |opt: &str| {
                    opt_str(job, opt)
                        .map(|v| if v.is_empty() { job.name.clone() } else { v.into() })
                };
                let (lat_prefix, bw_prefix, iops_prefix) =
                    (prefix("write_lat_log"), prefix("write_bw_log"), prefix("write_iops_log"));
                if lat_prefix.is_some() || bw_prefix.is_some() || iops_prefix.is_some() {
                    logs.push(JobLogs {
                        jobidx: jr.jobidx,
                        lat_prefix,
                        bw_prefix,
                        iops_prefix,
                        log_offset: opt_bool(job, "log_offset", false),
                        window_max: matches!(opt_str(job, "log_window_value"), Some("both" | "2")),
                        lat: out.lat_logs,
                    });
                }
                finished.push((c.job_idx, n as u32, jr));
            }
            Ok(Err(e)) => {
                if first_err.is_none() {
                    *first_err = Some(e);
                }
            }
            Err(_) => {
                if first_err.is_none() {
                    *first_err = Some(EngineError::Job {
                        job: job.name.clone(),
                        what: "worker thread panicked".to_string(),
                    });
                }
            }
        }
    }
}
