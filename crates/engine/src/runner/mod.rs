//! Running whole jobs: `numjobs` clones as OS threads, `stonewall`/`wait_for` ordering, and
//! the per-clone and per-group results (fio backend.c `run_threads`, stat.c
//! `show_run_stats`). The parts live beside this file: `config` resolves each typed job
//! (engine with the io_uring fallback, worker, log and verify settings), `clone` sets up one
//! clone's files and runs its thread, `collect` joins them into results.
//!
//! Each clone builds its own engine inside its thread (io_uring's SINGLE_ISSUER wants the
//! submitting thread to own the ring) and records into its own recorder; results are merged
//! only at the end.

mod clone;
mod collect;
pub mod config;
mod notes;
mod options;
mod preflight;

pub use crate::live::{Progress, ProgressSlot};
pub use config::{resolve_engine, unhandled_notes, worker_config};
pub use iolab_workload::clone_files;
pub use notes::FILE_NOTES_MAX;
pub use options::{FileIo, JobLogs, RankPlace, ReadObserver, ReadProbe, RunOptions, RunOutput};

use crate::error::EngineError;
use clone::{JobSetup, RunCtx, RunningClone};
use collect::Collected;
use iolab_core::stop::Stop;
use iolab_job::Job;
use iolab_stats::diskstats::{DiskHandle, DiskMonitor, MonitorConfig};
use iolab_stats::RunResult;
use std::sync::Arc;
use std::time::Instant;

/// Run all jobs in order and return the result. `stop` (the run's [`Stop`], or a caller's
/// own flag) ends every worker (Ctrl-C); the result is then marked interrupted by the caller.
pub fn run_jobs(
    jobs: &[Job],
    opts: &RunOptions,
    stop: impl Into<Stop>,
    progress: Option<Arc<Progress>>,
) -> Result<RunOutput, EngineError> {
    let stop = stop.into();
    // Every job resolved and every clone's targets checked before the first clone starts.
    let plans = jobs.iter().map(|j| config::plan_job(j, opts)).collect::<Result<Vec<_>, _>>()?;
    let (first_thread, numbers) = numbering(opts, jobs)?;
    let unopenable = preflight::check_all(jobs, &plans, &numbers, opts)?;
    let run_start = Instant::now();
    // fio's steadystate: a stop condition watching the clones' live counters (steady.rs).
    let progress = progress.unwrap_or_default();
    let steady = crate::steady::Monitor::start(jobs, &progress)?;
    let progress = Some(progress);
    // fio's disk_util: all devices sampled from here, filtered to those under the jobs' files
    // at the end. The run's own sampler (when the caller runs none) ends when dropped.
    let own_disks = match opts.disks {
        Some(_) => None,
        None => Some(
            DiskMonitor::start(MonitorConfig::totals_only())
                .map_err(|e| EngineError::io("thread", "spawn", e))?,
        ),
    };
    let disks = opts.disks.clone().or_else(|| own_disks.as_ref().map(DiskMonitor::handle));
    let disk_mark = disks.as_ref().and_then(DiskHandle::mark);
    let cx = RunCtx { opts, stop: &stop, progress: progress.as_deref(), run_start, exit: None };
    let mut result = RunResult::default();
    let mut disk_names: Vec<String> = Vec::new();
    let order = Order { plans: &plans, numbers: &numbers, first_thread, unopenable };
    let mut got = run_groups(&cx, jobs, &order, &mut result.notes, &mut disk_names)?;
    if let Some(e) = got.first_err.take() {
        return Err(e);
    }
    // Jobs in run order; one JobResult per clone (group_reporting merges per group below).
    got.finished.sort_by_key(|(ji, tn, _)| (*ji, *tn));
    result.jobs = got.finished.into_iter().map(|(_, _, j)| j).collect();
    // Groups (group_reporting) and the run's list: the first job's own `percentile_list`.
    let pcts =
        jobs.iter().find_map(Job::percentile_list).unwrap_or_else(|| opts.percentiles.clone());
    result.groups = iolab_stats::groups(&result.jobs, &pcts);
    // fio's disk_util=0 (any job): no disk utilisation in the report.
    let disk_util = jobs.iter().all(Job::disk_util);
    if let (true, Some(d), Some(m)) = (disk_util, &disks, &disk_mark) {
        result.disk_util =
            d.since(m).into_iter().filter(|u| disk_names.contains(&u.name)).collect();
    }
    result.meta.percentile_list = pcts;
    result.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
    if let Some(m) = steady {
        m.finish(&mut result);
    }
    Ok(RunOutput { result, files: got.files, logs: got.logs })
}

/// Each job's plan and its clones' numbers, made before the first clone starts.
struct Order<'a> {
    plans: &'a [config::JobPlan],
    numbers: &'a [preflight::CloneNumbers],
    /// The thread number before the first clone's (MPI: after the ranks before this one).
    first_thread: u32,
    /// Jobs whose files cannot be opened: reported with their error, not run.
    unopenable: preflight::Unopenable,
}

/// Each job's clones numbered: the clone, its number among every rank's clones (`RankPlace`)
/// and fio's thread number (which scales the seeds); and the thread number they follow.
fn numbering(
    opts: &RunOptions,
    jobs: &[Job],
) -> Result<(u32, Vec<preflight::CloneNumbers>), EngineError> {
    // Under MPI rank r's thread numbers continue after the ranks before it (RankPlace).
    let per_rank = jobs.iter().try_fold(0u32, |n, j| n.checked_add(j.numjobs.max(1)));
    let thread_number = per_rank
        .and_then(|n| opts.place.thread_base(n))
        .ok_or_else(|| jobs.first().map(|j| place_overflow(opts.place, j)));
    let mut thread_number = match thread_number {
        Ok(n) => n,
        Err(Some(e)) => return Err(e),
        Err(None) => 0,
    };
    let first = thread_number;
    let mut all = Vec::with_capacity(jobs.len());
    for job in jobs {
        let base =
            opts.place.clone_base(job.numjobs).ok_or_else(|| place_overflow(opts.place, job))?;
        let n = job.numjobs.max(1);
        let mut clones = Vec::with_capacity(n as usize);
        for clone in 0..n {
            thread_number =
                thread_number.checked_add(1).ok_or_else(|| place_overflow(opts.place, job))?;
            // fio's pairing of clones and thread numbers (they scale the seeds).
            let tn = iolab_workload::fio_thread_number(thread_number - clone, clone, n);
            clones.push((clone, base + clone, tn));
        }
        all.push(clones);
    }
    Ok((first, all))
}

/// Start every job's clones in order, waiting where `stonewall` or `wait_for` says (a
/// `wait_for` name was checked when the job file was read, `job/resolve.rs`), and join them
/// all.
fn run_groups(
    cx: &RunCtx<'_>,
    jobs: &[Job],
    order: &Order<'_>,
    notes: &mut Vec<String>,
    disk_names: &mut Vec<String>,
) -> Result<Collected, EngineError> {
    let mut got = Collected::default();
    let mut running: Vec<RunningClone> = Vec::new();
    got.jobidx_base = order.first_thread;
    // exitall's scopes (fio exit_what): the jobs since the last stonewall, and each group's.
    let mut scopes = ExitScopes::new(cx.stop);
    for (ji, job) in jobs.iter().enumerate() {
        if job.stonewall {
            got.join_all(std::mem::take(&mut running), jobs, cx.opts);
            scopes = ExitScopes::new(cx.stop);
        }
        if let Some(w) = &job.wait_for {
            let (mine, rest): (Vec<_>, Vec<_>) =
                running.drain(..).partition(|c| jobs[c.job_idx].name == *w);
            running = rest;
            got.join_all(mine, jobs, cx.opts);
        }
        if got.first_err.is_some() || cx.stop.is_set() || scopes.all_exited() {
            break;
        }
        if let Some((errno, what)) = order.unopenable.get(&ji) {
            got.push_unopened(job, ji, order.numbers[ji].len(), (*errno, what), cx.opts);
            continue;
        }
        let plan = &order.plans[ji];
        let (stop, exit) = scopes.for_job(job);
        let jcx = RunCtx { stop: &stop, exit, ..*cx };
        let mut js = JobSetup {
            ji,
            job,
            plan,
            shared_done: Default::default(),
            created: Default::default(),
            notes: plan.notes.clone(),
            disk_names,
        };
        for &(clone, number, thread_number) in &order.numbers[ji] {
            running.push(clone::start_clone(&jcx, &mut js, (clone, number), thread_number)?);
        }
        notes.append(&mut js.notes);
    }
    got.join_all(running, jobs, cx.opts);
    Ok(got)
}

/// A rank's clone numbers past `u32` (`RankPlace`).
fn place_overflow(place: options::RankPlace, job: &Job) -> EngineError {
    let what =
        format!("rank {}: its clone numbers (after the ranks before it) pass 2^32", place.rank);
    EngineError::Job { job: job.name.clone(), what }
}

/// The stops `exitall` sets (fio backend.c, `exit_what`): `group` the jobs of the exiting
/// job's group, `stonewall` every job since the last stonewall, `all` those and every job not
/// yet started. A clone's stop is a child of its group's, which is a child of the segment's.
/// What a clone sets when it ends under `exitall`: the scope's stop, and with
/// `exit_what=all` the flag that keeps later jobs from starting.
pub(crate) type ExitSignal = (Stop, Option<Arc<std::sync::atomic::AtomicBool>>);

struct ExitScopes {
    segment: Stop,
    groups: std::collections::HashMap<u32, Stop>,
    all: Arc<std::sync::atomic::AtomicBool>,
}

impl ExitScopes {
    fn new(run: &Stop) -> Self {
        ExitScopes { segment: run.child(), groups: Default::default(), all: Default::default() }
    }

    fn all_exited(&self) -> bool {
        self.all.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The stop the job's clones hang from, and what they set at their end with exitall.
    fn for_job(&mut self, job: &Job) -> (Stop, Option<ExitSignal>) {
        let group = self.groups.entry(job.group_id).or_insert_with(|| self.segment.child()).clone();
        let exit = job.exitall().then(|| match job.exit_what() {
            Some("stonewall") => (self.segment.clone(), None),
            Some("all") => (self.segment.clone(), Some(self.all.clone())),
            _ => (group.clone(), None),
        });
        (group, exit)
    }
}
