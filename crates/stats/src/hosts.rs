//! Many hosts, one result: the exact merge of several hosts' runs into fio's client-mode
//! "All clients" entry (fio client.c `handle_ts`: every host's `thread_stat` summed by stat.c
//! `sum_thread_stats`), and of their per-interval histogram deltas.
//!
//! fio's client sums counts and its 1856-bucket histograms, so its "All clients" percentiles
//! come from the summed histogram; many wrappers average per-host percentiles instead, which
//! is wrong for any skewed host. Here every count adds, every latency histogram is merged
//! bucket by bucket (`LatStats::merged`), percentiles are recomputed from the sum, runtime is
//! the longest host's (fio), and the interval series add point by point (the hosts started
//! at a common instant, so interval `k` is the same wall-clock window on every host).

use serde::{Deserialize, Serialize};

use crate::result::{JobResult, RunResult};
use crate::summarize::group;

pub mod delta;

/// fio's name of the aggregate entry (client.c `handle_ts`).
pub const ALL_CLIENTS: &str = "All clients";

/// One host's run and what the transport measured about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostRun {
    /// fio's `hostname` of the client entry (an MPI rank's processor name, or the server
    /// address).
    pub hostname: String,
    /// fio's `port` (0 under MPI, which has none).
    pub port: u16,
    /// The host's position in the run (MPI rank, or order in `--client`).
    pub rank: u32,
    /// When the host started its jobs, relative to the common start instant, ns (signed:
    /// a host can start early by its clock's offset).
    pub start_skew_ns: i64,
    /// The host's clock minus the coordinator's, ns (0 when not measured).
    pub clock_offset_ns: i64,
    pub result: RunResult,
    /// Where the host kept its own copy of its intervals during the run (removed when the
    /// coordinator had the result).
    #[serde(default)]
    pub interval_file: Option<String>,
}

/// The "All clients" job: every job of every host merged exactly, or `None` when the hosts
/// hold one job between them (fio writes no aggregate then: `sum_stat_clients <= 1`).
pub fn all_clients(hosts: &[HostRun], pcts: &[f64]) -> Option<JobResult> {
    let jobs: Vec<&JobResult> = hosts.iter().flat_map(|h| h.result.jobs.iter()).collect();
    if jobs.len() <= 1 {
        return None;
    }
    let members: Vec<(usize, &JobResult)> = jobs.iter().copied().enumerate().collect();
    let g = group(0, &members, pcts);
    let first = jobs[0];
    Some(JobResult {
        name: ALL_CLIENTS.to_string(),
        jobidx: 0,
        groupid: first.groupid,
        error: jobs.iter().map(|j| j.error).find(|&e| e != 0).unwrap_or(0),
        start_ns: 0,
        runtime_ns: g.runtime_ns,
        elapsed_ns: jobs.iter().map(|j| j.elapsed_ns).max().unwrap_or(0),
        options: Default::default(),
        report: first.report.clone(),
        read: g.read.stats,
        write: g.write.stats,
        trim: g.trim.stats,
        sync: g.sync.stats,
        cpu: g.cpu,
        depth: g.depth,
        errors: Vec::new(),
        interval_ns: first.interval_ns,
        latency_target: first.latency_target.clone(),
        steadystate: None,
        notes: Vec::new(),
        verify: None,
    })
}

/// The aggregate as a run of its own (one job, its group), so every exporter renders it.
pub fn all_clients_run(hosts: &[HostRun], pcts: &[f64]) -> Option<RunResult> {
    let job = all_clients(hosts, pcts)?;
    let meta = hosts.first().map(|h| h.result.meta.clone()).unwrap_or_default();
    let groups = crate::summarize::groups(std::slice::from_ref(&job), pcts);
    Some(RunResult { meta, jobs: vec![job], groups, ..Default::default() })
}

/// One interval of one host as it travels: counts and the completion-latency histogram's
/// delta since the previous interval, `(bucket value ns, count)` ascending.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalDelta {
    /// End of the interval, ns after the common start.
    pub end_ns: u64,
    pub dur_ns: u64,
    /// Per fio ddir (read, write, trim, sync).
    pub ios: [u64; 4],
    pub bytes: [u64; 4],
    /// Completion latencies of the interval's I/Os, all directions.
    pub clat: Vec<(u64, u64)>,
}

impl IntervalDelta {
    /// The latency at `pct` (0..=100) of this interval's I/Os, from its histogram (the
    /// bucket's value, as `LatStats::percentile`); 0 for an empty interval.
    pub fn clat_percentile(&self, pct: f64) -> u64 {
        let n: u64 = self.clat.iter().map(|(_, c)| c).sum();
        if n == 0 {
            return 0;
        }
        let rank = ((pct / 100.0).clamp(0.0, 1.0) * n as f64).ceil().max(1.0) as u64;
        let mut cum = 0u64;
        for &(v, c) in &self.clat {
            cum += c;
            if cum >= rank {
                return v;
            }
        }
        self.clat.last().map(|b| b.0).unwrap_or(0)
    }

    /// Add `o` into `self`: counts add, histogram buckets add by value, the window is the
    /// longer one.
    pub fn add(&mut self, o: &IntervalDelta) {
        self.end_ns = self.end_ns.max(o.end_ns);
        self.dur_ns = self.dur_ns.max(o.dur_ns);
        for d in 0..4 {
            self.ios[d] += o.ios[d];
            self.bytes[d] += o.bytes[d];
        }
        self.clat = merge_buckets(&self.clat, &o.clat);
    }
}

/// Two ascending bucket lists merged, counts of equal values added.
pub fn merge_buckets(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 4);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 < y.0 {
            out.push(x);
            i += 1;
        } else if y.0 < x.0 {
            out.push(y);
            j += 1;
        } else {
            out.push((x.0, x.1 + y.1));
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Every host's interval deltas summed interval by interval (interval `k` of each host is
/// the same window after the common start; a host with fewer intervals adds nothing to the
/// later ones). Each interval's histograms are merged pairwise as a tree, so a bucket is
/// copied log2(hosts) times rather than once per host.
pub fn merge_intervals(hosts: &[&[IntervalDelta]]) -> Vec<IntervalDelta> {
    let len = hosts.iter().map(|h| h.len()).max().unwrap_or(0);
    let mut out: Vec<IntervalDelta> = Vec::with_capacity(len);
    let mut lists: Vec<Vec<(u64, u64)>> = Vec::with_capacity(hosts.len());
    for k in 0..len {
        let mut acc = IntervalDelta::default();
        lists.clear();
        for d in hosts.iter().filter_map(|h| h.get(k)) {
            acc.end_ns = acc.end_ns.max(d.end_ns);
            acc.dur_ns = acc.dur_ns.max(d.dur_ns);
            for i in 0..4 {
                acc.ios[i] += d.ios[i];
                acc.bytes[i] += d.bytes[i];
            }
            lists.push(d.clat.clone());
        }
        while lists.len() > 1 {
            let mut next = Vec::with_capacity(lists.len().div_ceil(2));
            let mut it = lists.drain(..);
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => merge_buckets(&a, &b),
                    None => a,
                });
            }
            drop(it);
            lists = next;
        }
        acc.clat = lists.pop().unwrap_or_default();
        out.push(acc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_add_by_value() {
        let m = merge_buckets(&[(10, 1), (20, 2), (40, 1)], &[(5, 3), (20, 5), (50, 1)]);
        assert_eq!(m, vec![(5, 3), (10, 1), (20, 7), (40, 1), (50, 1)]);
    }

    #[test]
    fn interval_percentile_from_the_sum() {
        // Host a: 99 fast I/Os; host b: 1 slow I/O of 100 in all. p99 of the sum is fast,
        // p100 slow; averaging the hosts' p99 (10 and 1000) would give 505.
        let a = IntervalDelta { ios: [99, 0, 0, 0], clat: vec![(10, 99)], ..Default::default() };
        let b = IntervalDelta { ios: [1, 0, 0, 0], clat: vec![(1000, 1)], ..Default::default() };
        let m = merge_intervals(&[std::slice::from_ref(&a), std::slice::from_ref(&b)]);
        assert_eq!(m[0].ios[0], 100);
        assert_eq!(m[0].clat_percentile(99.0), 10);
        assert_eq!(m[0].clat_percentile(100.0), 1000);
    }
}
