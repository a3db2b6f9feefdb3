//! fio's `steadystate` job control as a stop condition of the runner: every `ss_interval`
//! each steady-state job's live counters are summed over its clones and fed to its
//! [`SsTracker`] (`iolab_stats::sstrack`); when the criterion holds, that job's clones (and
//! only those) stop — fio steadystate.c `steadystate_check` and `fio_ss_stop`.
//!
//! The spec comes from the job's `ss`, `ss_dur`, `ss_ramp`, `ss_interval` options
//! (fio-behaviour.md §3.6).

use crate::live::Progress;
use crate::EngineError;
use iolab_core::Nanos;
use iolab_job::Job;
use iolab_stats::sstrack::{SsSpec, SsTracker};
use iolab_stats::{LiveSnapshot, RunResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

type Trackers = Vec<(String, SsTracker)>;

/// The monitor thread of one run; dropped early (an error), it ends at once.
pub struct Monitor {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<Trackers>>,
}

impl Monitor {
    /// A monitor when any job has a steady-state window (`None` otherwise).
    pub fn start(jobs: &[Job], progress: &Arc<Progress>) -> Result<Option<Monitor>, EngineError> {
        let mut trackers = Vec::new();
        for j in jobs {
            if let Some(spec) = spec_from_job(j) {
                trackers.push((j.name.clone(), SsTracker::new(spec)));
            }
        }
        if trackers.is_empty() {
            return Ok(None);
        }
        let done = Arc::new(AtomicBool::new(false));
        let (p, d) = (progress.clone(), done.clone());
        let thread = std::thread::Builder::new()
            .name("iolab-steadystate".into())
            .spawn(move || steady_loop(&p, &d, trackers))
            .map_err(|e| EngineError::io("thread", "spawn", e))?;
        Ok(Some(Monitor { done, thread: Some(thread) }))
    }

    /// Stop the monitor and record each job's window (and a note when it attained or never
    /// filled) in `result`.
    pub fn finish(mut self, result: &mut RunResult) {
        self.done.store(true, Ordering::SeqCst);
        let trackers = self.thread.take().and_then(|t| t.join().ok()).unwrap_or_default();
        for (name, t) in &trackers {
            let Some(rep) = t.report() else {
                result.notes.push(format!(
                    "job {name}: the steady-state window (ss_dur) never filled before the job ended"
                ));
                continue;
            };
            if rep.attained {
                result.notes.push(format!(
                    "job {name}: steady state attained ({}, criterion {:.3}); job ended",
                    rep.ss, rep.criterion
                ));
            }
            for j in result.jobs.iter_mut().filter(|j| &j.name == name) {
                j.steadystate = Some(rep.clone());
            }
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Every `ss_interval`, sum each steady-state job's live counters over its clones and feed its
/// tracker; when the criterion holds, stop that job's clones (and only those).
fn steady_loop(p: &Progress, done: &AtomicBool, mut trackers: Trackers) -> Trackers {
    let mut due: Vec<Option<Instant>> = vec![None; trackers.len()];
    let mut over = vec![false; trackers.len()];
    while !done.load(Ordering::SeqCst) && over.iter().any(|o| !o) {
        std::thread::sleep(Duration::from_millis(20));
        let Ok(clones) = p.clones.lock() else { break };
        for (k, (name, t)) in trackers.iter_mut().enumerate() {
            let mine: Vec<_> = clones.iter().filter(|c| &c.job == name).collect();
            let Some(started) = mine.iter().map(|c| c.started).min() else { continue };
            if over[k] {
                continue;
            }
            let interval = Duration::from(t.spec.interval);
            let now = Instant::now();
            let next = due[k].get_or_insert(started + interval);
            if now < *next {
                continue;
            }
            *next += interval;
            let mut sum = LiveSnapshot::default();
            for c in &mine {
                if let Some(l) = c.live.lock().ok().and_then(|g| g.clone()) {
                    let s = l.snapshot();
                    for d in 0..4 {
                        sum.ios[d] += s.ios[d];
                        sum.bytes[d] += s.bytes[d];
                        sum.clat_sum_ns[d] += s.clat_sum_ns[d];
                    }
                }
            }
            if t.observe(Nanos::from(now - started), &sum) {
                mine.iter().for_each(|c| c.stop.set());
                over[k] = true;
            } else if mine.iter().all(|c| c.done.load(Ordering::Relaxed)) {
                over[k] = true;
            }
        }
    }
    trackers
}

/// A job's `ss` (typed when the job was read), `ss_dur`, `ss_ramp`, `ss_interval`; `None` when
/// the job has no steady-state window (`ss_dur` unset or 0, as in fio).
pub fn spec_from_job(job: &Job) -> Option<SsSpec> {
    let dur = job.steadystate_duration();
    if dur.0 == 0 {
        return None;
    }
    let (ss, criterion) = (job.steadystate(), job.ss_criterion);
    let interval =
        Some(job.steadystate_check_interval()).filter(|t| t.0 > 0).unwrap_or(Nanos::from_secs(1));
    let ramp = job.steadystate_ramp_time();
    Some(SsSpec { ss, criterion, dur, ramp, interval })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn job(args: &[&str]) -> Job {
        let mut v = vec!["--name=ss".to_string()];
        v.extend(args.iter().map(|s| s.to_string()));
        let opts = iolab_job::LoadOptions { cmdline: v, ..Default::default() };
        iolab_job::load(&opts).unwrap().jobs.remove(0)
    }

    fn snap(ios: u64) -> LiveSnapshot {
        let mut s = LiveSnapshot::default();
        s.ios[0] = ios;
        s.bytes[0] = ios * 4096;
        s.clat_sum_ns[0] = ios * 50_000;
        s
    }

    #[test]
    fn spec_from_options() {
        assert_eq!(spec_from_job(&job(&[])), None);
        let s = spec_from_job(&job(&["--ss=iops:20%", "--ss_dur=3", "--ss_ramp=1"])).unwrap();
        assert_eq!(
            (s.ss.as_str(), s.dur, s.ramp, s.window()),
            ("iops:20%", Nanos::from_secs(3), Nanos::from_secs(1), 3)
        );
    }

    #[test]
    fn attains_after_ramp_once_the_window_is_steady() {
        let spec = spec_from_job(&job(&["--ss=iops:20%", "--ss_dur=3", "--ss_ramp=1"])).unwrap();
        let mut t = SsTracker::new(spec);
        // Per-second IOPS: 100 (ramp), then 1000, 2000, 1000, 1050, 1000, 980 …
        let per_s = [100u64, 1000, 2000, 1000, 1050, 1000, 980];
        let mut cum = 0;
        let mut stopped_at = None;
        for (i, n) in per_s.iter().enumerate() {
            cum += n;
            if t.observe(Nanos::from_secs(i as u64 + 1), &snap(cum)) {
                stopped_at = Some(i + 1);
                break;
            }
        }
        // Baseline at 1 s (end of ramp); windows [1000,2000,1000] at 4 s (dev 33%), [2000,
        // 1000,1050] at 5 s, [1000,1050,1000] at 6 s: max deviation 2.2% < 20%.
        assert_eq!(stopped_at, Some(6));
        let r = t.report().unwrap();
        assert!(r.attained);
        assert_eq!(r.iops, vec![1000.0, 1050.0, 1000.0]);
        assert!((r.criterion - 100.0 * (1050.0 - 3050.0 / 3.0) / (3050.0 / 3.0)).abs() < 1e-9);
        assert_eq!(r.bw[0], 1000.0 * 4096.0);
    }

    #[test]
    fn never_attained_reports_the_last_window() {
        let spec = spec_from_job(&job(&["--ss=iops_slope:1%", "--ss_dur=3"])).unwrap();
        let mut t = SsTracker::new(spec);
        let mut cum = 0;
        for i in 0..8u64 {
            cum += 1000 + 300 * i;
            assert!(!t.observe(Nanos::from_secs(i), &snap(cum)));
        }
        let r = t.report().unwrap();
        assert!(!r.attained);
        assert_eq!(r.iops.len(), 3);
    }
}
