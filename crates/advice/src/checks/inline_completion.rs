//! The device completed inside the submit call: the submission latency (slat) holds the
//! device's time and the completion latency (clat) is only the tail of the call. A loop device
//! over cached data does this (it serves the request in the submitting thread), and zram;
//! behind blk-throttle only the commands a window held back complete later. fio's clat is
//! then not the device's latency, and a tool or a reader that judges clat (as iolab's
//! calibration once did: issue 32, newcomer review 2026-11-28 scenario 4, a 0.3 µs clat p50
//! at QD1 under an 8 µs lat) learns the wrong device.
//!
//! Threshold: per job and direction with submission latency measured, its median (the mean
//! where the result has no slat percentiles, as fio's JSON by default) exceeds the completion
//! latency's and is at least [`SHARE`] of the total's.

use iolab_core::IoDir;
use iolab_stats::{LatStats, RunResult};

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "inline_completion";
/// The least share of the total latency the submission must hold.
pub const SHARE: f64 = 0.5;

pub const CHECK: Check =
    Check { id: ID, summary: "the device completed inside the submit call", run };

/// The median of `l` (µs) where it has percentiles, else its mean.
fn middle_us(l: &LatStats) -> f64 {
    match l.percentiles.iter().find(|p| (p.pct - 50.0).abs() < 1e-9) {
        Some(p) => p.value as f64 / 1e3,
        None => l.mean / 1e3,
    }
}

fn run(r: &RunResult, _ev: &Evidence) -> Vec<Advice> {
    inline(r)
}

/// The findings for `r` alone (no evidence needed: `compare` and `report` run it on fio's
/// own JSON).
pub fn inline(r: &RunResult) -> Vec<Advice> {
    let mut out = Vec::new();
    for j in &r.jobs {
        let mut seen = Vec::new();
        for (dir, name) in [(IoDir::Read, "reads"), (IoDir::Write, "writes")] {
            let d = j.dir(dir);
            if d.slat.n == 0 || d.clat.n == 0 {
                continue;
            }
            let (s, c) = (middle_us(&d.slat), middle_us(&d.clat));
            let total = if d.lat.n > 0 { middle_us(&d.lat) } else { s + c };
            if s > c && s >= SHARE * total && total > 0.0 {
                seen.push(format!(
                    "{name}: slat {s:.1} µs, clat {c:.1} µs, lat {total:.1} µs \
                     (medians, or means where the result has no percentiles)"
                ));
            }
        }
        if seen.is_empty() {
            continue;
        }
        out.push(Advice {
            id: ID,
            severity: Severity::Warning,
            subject: job_subject(j),
            title: "the device completes inside the submit call: completion latency is not \
                    the device's latency"
                .into(),
            evidence: seen.join("; "),
            why: "Submission latency (slat) runs from the I/O's preparation to the return of \
                  the submit call; completion latency (clat) from there to its completion. A \
                  device that serves the request inside the call (a loop device over cached \
                  data, zram) has done its work before clat starts, so clat is a fraction of a \
                  microsecond and the device's time is in slat."
                .into(),
            what_to_do: "Judge the device by the total latency (lat, fio's lat_percentiles=1), \
                         not clat; compare predictions and other runs on lat."
                .into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;

    fn lat(p50_ns: u64) -> LatStats {
        let mut l = LatStats { n: 1000, mean: p50_ns as f64, ..LatStats::default() };
        l.percentiles = vec![iolab_stats::Percentile {
            pct: 50.0,
            value: p50_ns,
            tail_samples: 500,
            reliable: true,
        }];
        l
    }

    /// The newcomer's throttled loop device at QD1: slat 8 µs, clat 0.38 µs, lat 8.4 µs.
    #[test]
    fn a_sub_microsecond_clat_under_a_long_slat_is_named() {
        let mut r = RunResult::default();
        let mut j = job("qd1", 0, 0);
        j.write.total_ios = 1000;
        (j.write.slat, j.write.clat, j.write.lat) = (lat(8_000), lat(380), lat(8_400));
        r.jobs.push(j);
        let a = inline(&r);
        assert_eq!(a.len(), 1, "{a:?}");
        assert!(a[0].title.starts_with("the device completes inside the submit call"), "{a:?}");
        assert_eq!(a[0].evidence, "writes: slat 8.0 µs, clat 0.4 µs, lat 8.4 µs (medians, or means where the result has no percentiles)");
        // An ordinary device: the call only queues the command.
        (r.jobs[0].write.slat, r.jobs[0].write.clat, r.jobs[0].write.lat) =
            (lat(2_000), lat(95_000), lat(97_000));
        assert!(inline(&r).is_empty());
        // A sync engine measures no slat: nothing to say.
        r.jobs[0].write.slat = LatStats::default();
        assert!(inline(&r).is_empty());
    }
}
