//! fio's `--status-interval=t` periodic reports (stat.c `__show_running_run_stats`, called
//! from the helper thread every `t`): a full result of every running job, with cumulative
//! counts and the runtime so far, for the caller to render in each output format asked for.
//!
//! Each worker copies its recorder when asked (`LiveCounters::snap_req`, answered at its next
//! time check), so the periodic reports come from the same histograms as the final one; a
//! clone that has finished reports the last copy it gave.

pub mod reports;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iolab_core::Nanos;
use iolab_job::Job;
use iolab_stats::{JobResult, OptionList, Recorder, ReportOptions, RunResult};

use iolab_engine::live::Progress;

/// What the periodic results need: the period and, per job name, what its result carries.
#[derive(Clone)]
pub struct Periodic {
    pub period: Duration,
    /// Job name → (group id, options as written, the exporters' settings).
    jobs: HashMap<String, (u32, OptionList, ReportOptions)>,
}

impl Periodic {
    pub fn new(jobs: &[Job], period: Duration) -> Self {
        let jobs = jobs
            .iter()
            .map(|j| (j.name.clone(), (j.group_id, j.own_options(), j.report_options())))
            .collect();
        Periodic { period, jobs }
    }
}

/// Until `done`: every period, ask each running clone for a copy of its recorder, wait for
/// the answers (at most 250 ms), and hand one result built from them to `emit`.
pub fn status_loop(
    p: &Progress,
    done: &AtomicBool,
    cfg: &Periodic,
    mut emit: impl FnMut(&RunResult),
) {
    let start = Instant::now();
    let mut n = 1u32;
    let mut last: HashMap<usize, (Recorder, Nanos)> = HashMap::new();
    while !done.load(Ordering::SeqCst) {
        let due = cfg.period * n;
        while start.elapsed() < due {
            if done.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5).min(due - start.elapsed().min(due)));
        }
        n += 1;
        let names = collect(p, &mut last);
        if done.load(Ordering::SeqCst) {
            return;
        }
        if let Some(r) = build(cfg, &names, &last) {
            emit(&r);
        }
    }
}

/// Ask and gather: returns each clone's job name by its index in the progress table.
fn collect(p: &Progress, last: &mut HashMap<usize, (Recorder, Nanos)>) -> Vec<String> {
    let Ok(clones) = p.clones.lock() else { return Vec::new() };
    let lives: Vec<_> =
        clones.iter().map(|c| c.live.lock().ok().and_then(|g| g.as_ref().cloned())).collect();
    let running: Vec<bool> = clones.iter().map(|c| !c.done.load(Ordering::Relaxed)).collect();
    let names = clones.iter().map(|c| c.job.clone()).collect();
    drop(clones);
    for (l, _) in lives.iter().zip(&running).filter(|(l, r)| l.is_some() && **r) {
        if let Some(l) = l {
            l.snap_req.store(true, Ordering::Relaxed);
        }
    }
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(250) {
        let pending = lives
            .iter()
            .zip(&running)
            .any(|(l, r)| *r && l.as_ref().is_some_and(|l| l.snap_req.load(Ordering::Relaxed)));
        if !pending {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    for (i, l) in lives.iter().enumerate() {
        let Some(l) = l else { continue };
        l.snap_req.store(false, Ordering::Relaxed);
        if let Some(s) = l.snap.lock().ok().and_then(|mut g| g.take()) {
            last.insert(i, s);
        }
    }
    names
}

/// A result of the copies so far, shaped as the final one (per clone, grouped as fio does).
fn build(
    cfg: &Periodic,
    names: &[String],
    last: &HashMap<usize, (Recorder, Nanos)>,
) -> Option<RunResult> {
    let pcts: &[f64] = &iolab_stats::DEFAULT_PERCENTILES;
    let mut idx: Vec<&usize> = last.keys().collect();
    idx.sort();
    let mut jobs: Vec<JobResult> = Vec::new();
    for &i in idx {
        let (rec, runtime) = &last[&i];
        let mut jr = iolab_stats::summarize(rec, *runtime, pcts);
        jr.name = names.get(i).cloned().unwrap_or_default();
        jr.jobidx = jobs.len() as u32;
        jr.elapsed_ns = runtime.0;
        if let Some((g, opts, report)) = cfg.jobs.get(&jr.name) {
            jr.groupid = *g;
            jr.options = opts.clone();
            jr.report = report.clone();
        }
        jr.error = rec.first_error.map(|e| e.1).unwrap_or(0);
        jobs.push(jr);
    }
    if jobs.is_empty() {
        return None;
    }
    let mut r = RunResult::default();
    r.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
    r.meta.percentile_list = pcts.to_vec();
    // fio stamps each report with the time it is made (stat.c show_thread_status).
    r.meta.start_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    r.groups = iolab_stats::groups(&jobs, pcts);
    r.jobs = jobs;
    Some(r)
}
