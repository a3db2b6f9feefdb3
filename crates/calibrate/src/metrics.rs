//! The figures a prediction is judged on, taken the same way from a measured and a simulated
//! `RunResult`: per group and direction, IOPS and bandwidth over the longest job's runtime
//! (fio's `agg`), and the merged total latency p50/p99 (fio's `lat`: submission to
//! completion, where the caller waits), with its submission (`slat`) and completion (`clat`)
//! parts beside them: a device that completes inside the submit call (a loop device over
//! cached data) has its time in slat and a sub-µs clat, so clat alone is not its latency.

use iolab_core::IoDir;
use iolab_stats::{GroupResult, RunResult};

/// One direction of one group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    pub ios: u64,
    pub iops: f64,
    pub bw_bytes: f64,
    /// Total latency (fio's `lat`; its `clat` where a result has no `lat`) p50/p99/mean, µs.
    pub p50_us: f64,
    pub p99_us: f64,
    pub mean_us: f64,
    /// The submitting threads' CPU time (user and system) as a share of the group's runtime,
    /// per thread (1: a thread busy all along; 0 from the simulator, which runs no CPU).
    pub cpu: f64,
    /// Submission latency p50/p99 and mean (µs): the time the submit call took (0 where the
    /// engine measures none, as fio's sync engines).
    pub slat_p50_us: f64,
    pub slat_p99_us: f64,
    pub slat_mean_us: f64,
    /// Completion latency (fio's `clat`) p50/p99 and mean (µs).
    pub clat_p50_us: f64,
    pub clat_p99_us: f64,
    pub clat_mean_us: f64,
}

/// The metrics of `dir` in `g`.
pub fn of_group(g: &GroupResult, dir: IoDir) -> Metrics {
    let gd = g.dir(dir);
    let s = &gd.stats;
    let run = gd.max_run_ns.max(s.runtime_ns).max(1) as f64;
    let pct_of = |l: &iolab_stats::LatStats, p: f64| {
        l.percentiles.iter().find(|x| (x.pct - p).abs() < 1e-9).map_or(0.0, |x| x.value as f64)
    };
    let total = if s.lat.n > 0 { &s.lat } else { &s.clat };
    let pct = |p: f64| pct_of(total, p);
    Metrics {
        ios: s.total_ios,
        iops: s.total_ios as f64 * 1e9 / run,
        bw_bytes: s.io_bytes as f64 * 1e9 / run,
        p50_us: pct(50.0) / 1e3,
        p99_us: pct(99.0) / 1e3,
        mean_us: total.mean / 1e3,
        cpu: (g.cpu.usr_ns + g.cpu.sys_ns) as f64
            / (g.jobs.len().max(1) as f64 * g.runtime_ns.max(1) as f64),
        slat_p50_us: pct_of(&s.slat, 50.0) / 1e3,
        slat_p99_us: pct_of(&s.slat, 99.0) / 1e3,
        slat_mean_us: s.slat.mean / 1e3,
        clat_p50_us: pct_of(&s.clat, 50.0) / 1e3,
        clat_p99_us: pct_of(&s.clat, 99.0) / 1e3,
        clat_mean_us: s.clat.mean / 1e3,
    }
}

/// Every (group id, direction, metrics) with I/O in it, reads before writes.
pub fn all(r: &RunResult) -> Vec<(u32, IoDir, Metrics)> {
    let mut v = Vec::new();
    for g in &r.groups {
        for d in [IoDir::Read, IoDir::Write] {
            let m = of_group(g, d);
            if m.ios > 0 {
                v.push((g.groupid, d, m));
            }
        }
    }
    v
}

/// (predicted − measured) / measured; 0 when both are 0, 1 when only the measurement is 0.
pub fn rel_error(predicted: f64, measured: f64) -> f64 {
    if measured == 0.0 {
        return if predicted == 0.0 { 0.0 } else { 1.0 };
    }
    (predicted - measured) / measured
}
