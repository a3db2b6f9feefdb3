//! fio's `steadystate` during a run: sample a job's cumulative counters every `ss_interval`,
//! keep the last `ss_dur / ss_interval` interval values, and report the job attained (so the
//! caller stops it) when the criterion holds — steadystate.c `steadystate_check`, with the
//! criteria of `iolab_stats::steady` (fio-behaviour.md §3.6).
//!
//! As fio: nothing is collected during `ss_ramp`; the first sample after it is the baseline,
//! values start one interval later; IOPS and bandwidth are the interval's read + write + trim
//! completions (and bytes) per second, `lat` the interval's mean completion latency. The
//! counters given are the sum over a job's clones, which is fio's behaviour with
//! `group_reporting` (without it fio judges each clone alone). The window reported is the one
//! that attained, or the last full one.

use std::collections::VecDeque;

use iolab_core::Nanos;
use iolab_job::Job;
use iolab_stats::steady::SsParseError;
use iolab_stats::{LiveSnapshot, SsCriterion, SsMetric, SteadyStateReport};

/// A job's `ss`, `ss_dur`, `ss_ramp`, `ss_interval`.
#[derive(Clone, Debug, PartialEq)]
pub struct SsSpec {
    /// As written (`iops:20%`).
    pub ss: String,
    pub criterion: SsCriterion,
    pub dur: Nanos,
    pub ramp: Nanos,
    pub interval: Nanos,
}

impl SsSpec {
    /// `None` when the job has no steady-state window (`ss_dur` unset or 0, as in fio).
    pub fn from_job(job: &Job) -> Result<Option<SsSpec>, SsParseError> {
        let dur = job.steadystate_duration();
        if dur.0 == 0 {
            return Ok(None);
        }
        let ss = job.steadystate();
        let criterion = SsCriterion::parse(&ss, job.kb_base())?;
        let interval = Some(job.steadystate_check_interval())
            .filter(|t| t.0 > 0)
            .unwrap_or(Nanos::from_secs(1));
        let ramp = job.steadystate_ramp_time();
        Ok(Some(SsSpec { ss, criterion, dur, ramp, interval }))
    }

    /// Samples in the window.
    pub fn window(&self) -> usize {
        ((self.dur.0 / self.interval.0.max(1)) as usize).max(2)
    }
}

/// The running check for one job.
#[derive(Clone, Debug)]
pub struct SsTracker {
    pub spec: SsSpec,
    last: Option<(Nanos, LiveSnapshot)>,
    iops: VecDeque<f64>,
    bw: VecDeque<f64>,
    lat: VecDeque<f64>,
    report: Option<SteadyStateReport>,
}

fn sum3(a: &[u64; 4]) -> u64 {
    a[0] + a[1] + a[2]
}

impl SsTracker {
    pub fn new(spec: SsSpec) -> Self {
        SsTracker {
            spec,
            last: None,
            iops: VecDeque::new(),
            bw: VecDeque::new(),
            lat: VecDeque::new(),
            report: None,
        }
    }

    /// Feed the job's cumulative counters at `t` (time since the job started). Call about
    /// every `interval`; returns true once the criterion is attained (the job should stop).
    pub fn observe(&mut self, t: Nanos, s: &LiveSnapshot) -> bool {
        if self.report.as_ref().is_some_and(|r| r.attained) {
            return true;
        }
        if t < self.spec.ramp {
            return false;
        }
        let Some((t0, prev)) = self.last.replace((t, *s)) else { return false };
        let dt = t.0.saturating_sub(t0.0) as f64 / 1e9;
        if dt <= 0.0 {
            return false;
        }
        let ios = sum3(&s.ios).saturating_sub(sum3(&prev.ios));
        let bytes = sum3(&s.bytes).saturating_sub(sum3(&prev.bytes));
        let clat = sum3(&s.clat_sum_ns).saturating_sub(sum3(&prev.clat_sum_ns));
        let n = self.spec.window();
        for (q, v) in [
            (&mut self.iops, ios as f64 / dt),
            (&mut self.bw, bytes as f64 / dt),
            (&mut self.lat, if ios > 0 { clat as f64 / ios as f64 } else { 0.0 }),
        ] {
            q.push_back(v);
            while q.len() > n {
                q.pop_front();
            }
        }
        if self.iops.len() < n {
            return false;
        }
        let w: Vec<f64> = match self.spec.criterion.metric {
            SsMetric::Iops => self.iops.iter().copied().collect(),
            SsMetric::Bw => self.bw.iter().copied().collect(),
            SsMetric::Lat => self.lat.iter().copied().collect(),
        };
        let c = self.spec.criterion.check(&w);
        self.report = Some(SteadyStateReport {
            ss: self.spec.ss.clone(),
            duration_ns: self.spec.dur.0,
            attained: c.attained,
            criterion: c.criterion,
            max_deviation: c.max_deviation,
            slope: c.slope,
            iops: self.iops.iter().copied().collect(),
            bw: self.bw.iter().copied().collect(),
            lat: if self.spec.criterion.metric == SsMetric::Lat {
                self.lat.iter().copied().collect()
            } else {
                Vec::new()
            },
        });
        c.attained
    }

    /// The attained window, or the last full one; `None` if the window never filled.
    pub fn report(&self) -> Option<SteadyStateReport> {
        self.report.clone()
    }
}

#[cfg(test)]
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
        assert_eq!(SsSpec::from_job(&job(&[])).unwrap(), None);
        let s = SsSpec::from_job(&job(&["--ss=iops:20%", "--ss_dur=3", "--ss_ramp=1"])).unwrap();
        let s = s.unwrap();
        assert_eq!(
            (s.ss.as_str(), s.dur, s.ramp, s.window()),
            ("iops:20%", Nanos::from_secs(3), Nanos::from_secs(1), 3)
        );
    }

    #[test]
    fn attains_after_ramp_once_the_window_is_steady() {
        let spec = SsSpec::from_job(&job(&["--ss=iops:20%", "--ss_dur=3", "--ss_ramp=1"]))
            .unwrap()
            .unwrap();
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
        let spec = SsSpec::from_job(&job(&["--ss=iops_slope:1%", "--ss_dur=3"])).unwrap().unwrap();
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
