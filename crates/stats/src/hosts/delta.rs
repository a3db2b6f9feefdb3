//! A host's run as a stream of per-interval deltas (issue 29: "per-interval results travel
//! as histogram deltas, so the merge is exact"): what fio's client mode gets from each
//! server at every `--status-interval` (client.c `handle_ts` of a running job's
//! `thread_stat`), but as the change since the previous interval rather than the running
//! totals, so a coordinator sums the hosts' intervals bucket by bucket.
//!
//! - [`DeltaTracker`] (the host's side) turns each periodic snapshot (cumulative, as
//!   `iolab_run::status` builds it) and then the final result into [`HostInterval`]s: counts,
//!   latency sums and histogram buckets since the previous one. The deltas of a run add up
//!   exactly to its final result. A snapshot whose counts went down (statistics reset when
//!   `ramp_time` ends) starts over: the interval is marked `reset` and carries totals.
//! - [`HostTotals`] (the coordinator's side) adds a host's intervals back into running
//!   totals, refusing any that do not add up (a sequence number out of order, a count that
//!   goes backwards or disagrees with the host's running total, buckets out of order or not
//!   summing to their count), so a wrong host is named instead of corrupting the merge.

use serde::{Deserialize, Serialize};

use crate::hist::LatStats;
use crate::result::{DirStats, JobResult, ReportOptions, RunResult};

/// The most jobs one interval may carry (a host's clones).
pub const MAX_JOBS: usize = 4096;
/// The most histogram buckets one latency delta may carry (HdrHistogram's 3 significant
/// digits up to hours hold fewer than 3,000).
pub const MAX_BUCKETS: usize = 1 << 14;

/// One latency's change over an interval: its samples' count, sums and buckets, with the
/// minimum and maximum so far (not deltas: they only ever widen).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatDelta {
    pub n: u64,
    pub sum: u128,
    pub sum_sq: u128,
    pub min: u64,
    pub max: u64,
    /// `(bucket value ns, count)`, ascending, counts summing to `n`.
    pub buckets: Vec<(u64, u64)>,
}

/// One direction's change over an interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirDelta {
    pub ios: u64,
    pub bytes: u64,
    /// The direction's completed I/Os after this interval (the running total), checked by
    /// the receiver against its own sum.
    pub total_ios: u64,
    /// The direction's runtime so far, ns.
    pub runtime_ns: u64,
    pub slat: LatDelta,
    pub clat: LatDelta,
    pub lat: LatDelta,
}

/// One job (clone) of a host over an interval; its place in [`HostInterval::jobs`] is its
/// place for the whole run (new clones are appended).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobDelta {
    pub name: String,
    pub groupid: u32,
    pub report: ReportOptions,
    /// read, write, trim, sync.
    pub dirs: [DirDelta; 4],
}

/// One interval of one host, as it travels.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInterval {
    /// 1, 2, … in order; the final remainder has the next number.
    pub seq: u32,
    /// ns since the host's start.
    pub end_ns: u64,
    /// The remainder between the last periodic snapshot and the final result.
    pub last: bool,
    /// The counts start over here (statistics reset at the end of `ramp_time`): the
    /// interval carries totals, not changes.
    pub reset: bool,
    pub jobs: Vec<JobDelta>,
}

impl HostInterval {
    /// Completed I/Os of the interval per direction (read, write, trim, sync).
    pub fn ios(&self) -> [u64; 4] {
        let mut out = [0u64; 4];
        for j in &self.jobs {
            for (o, d) in out.iter_mut().zip(&j.dirs) {
                *o = o.saturating_add(d.ios);
            }
        }
        out
    }

    /// The interval's completion-latency buckets of every job and direction, summed.
    pub fn clat_buckets(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for d in self.jobs.iter().flat_map(|j| &j.dirs) {
            out = super::merge_buckets(&out, &d.clat.buckets);
        }
        out
    }
}

/// Why an interval cannot be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    #[error("interval {got} arrived after interval {after} (expected {})", after + 1)]
    OutOfOrder { got: u32, after: u32 },
    #[error("interval {seq}: job {job} {dir}: {why}")]
    Bad { seq: u32, job: usize, dir: &'static str, why: String },
    #[error("interval {seq}: {why}")]
    Shape { seq: u32, why: String },
    #[error("the final result's {what} ({result}) is not the sum of the intervals ({sum})")]
    Unequal { what: String, result: u64, sum: u64 },
}

const DIRS: [&str; 4] = ["read", "write", "trim", "sync"];

fn dirs(j: &JobResult) -> [&DirStats; 4] {
    [&j.read, &j.write, &j.trim, &j.sync]
}

fn dirs_mut(j: &mut JobResult) -> [&mut DirStats; 4] {
    [&mut j.read, &mut j.write, &mut j.trim, &mut j.sync]
}

/// The host's side: each snapshot in, each interval's delta out.
#[derive(Debug, Default)]
pub struct DeltaTracker {
    /// (job name, its ordinal among clones of that name) by place.
    keys: Vec<(String, u32)>,
    prev: Vec<JobResult>,
    seq: u32,
}

impl DeltaTracker {
    /// The change from the previous snapshot to `now` (cumulative), `end_ns` after the start.
    pub fn next(&mut self, now: &RunResult, end_ns: u64, last: bool) -> HostInterval {
        let mut seen: Vec<(String, u32)> = Vec::new();
        let mut cur: Vec<Option<&JobResult>> = vec![None; self.keys.len()];
        for j in &now.jobs {
            let ord = seen.iter().filter(|(n, _)| *n == j.name).count() as u32;
            let key = (j.name.clone(), ord);
            seen.push(key.clone());
            match self.keys.iter().position(|k| *k == key) {
                Some(i) => cur[i] = Some(j),
                None => {
                    self.keys.push(key);
                    self.prev.push(JobResult { name: j.name.clone(), ..Default::default() });
                    cur.push(Some(j));
                }
            }
        }
        let reset = cur.iter().zip(&self.prev).any(|(c, p)| c.is_some_and(|c| went_down(p, c)));
        if reset {
            self.prev
                .iter_mut()
                .for_each(|p| *p = JobResult { name: p.name.clone(), ..Default::default() });
        }
        self.seq += 1;
        let mut jobs = Vec::with_capacity(cur.len());
        for (c, p) in cur.iter().zip(self.prev.iter_mut()) {
            let now_job = c.unwrap_or(p);
            jobs.push(job_delta(p, now_job));
            if let Some(c) = c {
                *p = (*c).clone();
            }
        }
        HostInterval { seq: self.seq, end_ns, last, reset, jobs }
    }
}

fn went_down(p: &JobResult, c: &JobResult) -> bool {
    dirs(p).iter().zip(dirs(c)).any(|(p, c)| {
        c.total_ios < p.total_ios
            || c.io_bytes < p.io_bytes
            || [(&p.slat, &c.slat), (&p.clat, &c.clat), (&p.lat, &c.lat)]
                .iter()
                .any(|(p, c)| c.n < p.n || c.sum < p.sum || c.sum_sq < p.sum_sq)
    })
}

fn job_delta(p: &JobResult, c: &JobResult) -> JobDelta {
    let mut d = JobDelta {
        name: c.name.clone(),
        groupid: c.groupid,
        report: c.report.clone(),
        dirs: Default::default(),
    };
    for ((o, p), c) in d.dirs.iter_mut().zip(dirs(p)).zip(dirs(c)) {
        *o = DirDelta {
            ios: c.total_ios.saturating_sub(p.total_ios),
            bytes: c.io_bytes.saturating_sub(p.io_bytes),
            total_ios: c.total_ios,
            runtime_ns: c.runtime_ns,
            slat: lat_delta(&p.slat, &c.slat),
            clat: lat_delta(&p.clat, &c.clat),
            lat: lat_delta(&p.lat, &c.lat),
        };
    }
    d
}

/// `c − p` bucket by bucket (a bucket never shrinks between snapshots of one recorder).
fn lat_delta(p: &LatStats, c: &LatStats) -> LatDelta {
    let mut buckets = Vec::new();
    let mut i = 0;
    for &(v, n) in &c.buckets {
        while i < p.buckets.len() && p.buckets[i].0 < v {
            i += 1;
        }
        let before = p.buckets.get(i).filter(|b| b.0 == v).map_or(0, |b| b.1);
        if n > before {
            buckets.push((v, n - before));
        }
    }
    LatDelta {
        n: c.n.saturating_sub(p.n),
        sum: c.sum.saturating_sub(p.sum),
        sum_sq: c.sum_sq.saturating_sub(p.sum_sq),
        min: c.min,
        max: c.max,
        buckets,
    }
}

/// The coordinator's side: one host's running totals, its intervals added in order.
#[derive(Clone, Debug, Default)]
pub struct HostTotals {
    pub jobs: Vec<JobResult>,
    pub seq: u32,
    /// The last interval's end, ns after the host's start.
    pub end_ns: u64,
    /// The remainder (`last`) has come.
    pub ended: bool,
}

impl HostTotals {
    /// Add `d`, or say why it does not add up (nothing is changed then).
    pub fn apply(&mut self, d: &HostInterval, pcts: &[f64]) -> Result<(), DeltaError> {
        if d.seq != self.seq.wrapping_add(1) || self.ended {
            return Err(DeltaError::OutOfOrder { got: d.seq, after: self.seq });
        }
        let shape = |why: String| DeltaError::Shape { seq: d.seq, why };
        if d.jobs.len() > MAX_JOBS || d.jobs.len() < self.jobs.len() {
            let why = format!(
                "{} jobs after {} (at most {MAX_JOBS}, never fewer)",
                d.jobs.len(),
                self.jobs.len()
            );
            return Err(shape(why));
        }
        let mut next = if d.reset { Vec::new() } else { self.jobs.clone() };
        for (i, jd) in d.jobs.iter().enumerate() {
            if i == next.len() {
                next.push(JobResult {
                    name: jd.name.clone(),
                    groupid: jd.groupid,
                    ..Default::default()
                });
            } else if next[i].name != jd.name {
                return Err(shape(format!(
                    "job {i} is '{}', was '{}'",
                    jd.name.escape_default(),
                    next[i].name.escape_default()
                )));
            }
            let job = &mut next[i];
            job.report = jd.report.clone();
            for (k, (s, dd)) in dirs_mut(job).into_iter().zip(&jd.dirs).enumerate() {
                let bad = |why: String| DeltaError::Bad { seq: d.seq, job: i, dir: DIRS[k], why };
                add_dir(s, dd, pcts).map_err(bad)?;
            }
            job.runtime_ns = dirs(job).iter().map(|s| s.runtime_ns).max().unwrap_or(0);
            job.elapsed_ns = d.end_ns;
        }
        self.jobs = next;
        self.seq = d.seq;
        self.end_ns = d.end_ns;
        self.ended = d.last;
        Ok(())
    }

    /// The totals as a result of their own (meta from `like`), for the exporters.
    pub fn as_result(&self, like: &RunResult, pcts: &[f64]) -> RunResult {
        let mut jobs = self.jobs.clone();
        for (i, j) in jobs.iter_mut().enumerate() {
            j.jobidx = i as u32;
        }
        let mut r = RunResult { meta: like.meta.clone(), ..Default::default() };
        r.meta.percentile_list = pcts.to_vec();
        r.groups = crate::summarize::groups(&jobs, pcts);
        r.jobs = jobs;
        r
    }

    /// Whether `result` (the host's final result) is exactly these totals: every job's
    /// completed I/Os and completion-latency samples per direction.
    pub fn check_final(&self, result: &RunResult) -> Result<(), DeltaError> {
        let count = |jobs: &[&JobResult], f: Count| -> u64 {
            jobs.iter().flat_map(|j| dirs(j)).map(f).fold(0u64, u64::saturating_add)
        };
        let mine: Vec<&JobResult> = self.jobs.iter().collect();
        let theirs: Vec<&JobResult> = result.jobs.iter().collect();
        let checks: [(&str, Count); 3] = [
            ("completed I/Os", |s| s.total_ios),
            ("bytes", |s| s.io_bytes),
            ("completion latency samples", |s| s.clat.n),
        ];
        for (what, f) in checks {
            let (sum, result) = (count(&mine, f), count(&theirs, f));
            if sum != result {
                return Err(DeltaError::Unequal { what: what.into(), result, sum });
            }
        }
        Ok(())
    }
}

/// One figure of a direction, for [`HostTotals::check_final`].
type Count = fn(&DirStats) -> u64;

fn add_dir(s: &mut DirStats, d: &DirDelta, pcts: &[f64]) -> Result<(), String> {
    let ios = s.total_ios.checked_add(d.ios).ok_or("the completed I/Os overflow")?;
    if ios != d.total_ios {
        return Err(format!(
            "completed I/Os do not add up: {} before, {} in the interval, but the host says {} \
             (counts going backwards?)",
            s.total_ios, d.ios, d.total_ios
        ));
    }
    s.total_ios = ios;
    s.io_bytes = s.io_bytes.checked_add(d.bytes).ok_or("the bytes overflow")?;
    s.runtime_ns = s.runtime_ns.max(d.runtime_ns);
    for (name, l, ld) in [
        ("slat", &mut s.slat, &d.slat),
        ("clat", &mut s.clat, &d.clat),
        ("lat", &mut s.lat, &d.lat),
    ] {
        *l = add_lat(l, ld, pcts).map_err(|why| format!("{name}: {why}"))?;
    }
    Ok(())
}

fn add_lat(l: &LatStats, d: &LatDelta, pcts: &[f64]) -> Result<LatStats, String> {
    if d.buckets.len() > MAX_BUCKETS {
        return Err(format!("{} buckets (at most {MAX_BUCKETS})", d.buckets.len()));
    }
    let mut total = 0u64;
    for (i, &(v, c)) in d.buckets.iter().enumerate() {
        if i > 0 && d.buckets[i - 1].0 >= v {
            return Err("buckets out of order".into());
        }
        total = total.checked_add(c).ok_or("bucket counts overflow")?;
    }
    if total != d.n {
        return Err(format!("buckets hold {total} samples, the interval says {}", d.n));
    }
    if d.n == 0 {
        return Ok(l.clone());
    }
    if d.min > d.max {
        return Err(format!("min {} above max {}", d.min, d.max));
    }
    l.n.checked_add(d.n).ok_or("the sample count overflows")?;
    l.sum.checked_add(d.sum).ok_or("the sum overflows")?;
    l.sum_sq.checked_add(d.sum_sq).ok_or("the sum of squares overflows")?;
    let part = LatStats::from_parts(d.n, d.min, d.max, d.sum, d.sum_sq, d.buckets.clone(), pcts);
    Ok(l.merged(&part, pcts))
}

#[cfg(test)]
mod tests;
