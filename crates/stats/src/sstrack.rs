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
//!
//! The spec comes from a job's options in `iolab_engine::steady`, which also runs the
//! tracker during a run as a stop condition.

use std::collections::VecDeque;

use crate::{LiveSnapshot, SsCriterion, SsMetric, SteadyStateReport};
use iolab_core::Nanos;

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
            rule: Some(self.spec.criterion),
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
