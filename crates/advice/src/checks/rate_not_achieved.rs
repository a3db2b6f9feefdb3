//! The rate asked for (`rate`, `rate_iops`, per direction, per job: fio-behaviour.md §2.5)
//! was not achieved. fio only acts on this with `rate_min`/`rate_iops_min`; otherwise a
//! rate-limited comparison silently compares different loads.
//!
//! Threshold: achieved below [`FRACTION`] of the asked rate over the job's runtime.

use iolab_core::IoDir;
use iolab_stats::RunResult;

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "rate_not_achieved";
pub const FRACTION: f64 = 0.9;

pub const CHECK: Check = Check { id: ID, summary: "the requested rate was not achieved", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (j, e) in r.jobs.iter().zip(&ev.jobs) {
        for (k, dir) in [IoDir::Read, IoDir::Write].into_iter().enumerate() {
            let d = j.dir(dir);
            // fio's `rate_iops=N` sets both directions; a direction the job never issued is
            // not a missed rate.
            if d.issued_ios == 0 && d.total_ios == 0 {
                continue;
            }
            let name = if k == 0 { "read" } else { "write" };
            let mut miss = Vec::new();
            if e.rate_bytes[k] > 0 && d.bw_bytes_per_sec() < FRACTION * e.rate_bytes[k] as f64 {
                miss.push(format!(
                    "{name} bandwidth {:.0} KiB/s of the {:.0} KiB/s asked ({:.0}%)",
                    d.bw_bytes_per_sec() / 1024.0,
                    e.rate_bytes[k] as f64 / 1024.0,
                    100.0 * d.bw_bytes_per_sec() / e.rate_bytes[k] as f64
                ));
            }
            if e.rate_iops[k] > 0 && d.iops_mean() < FRACTION * e.rate_iops[k] as f64 {
                miss.push(format!(
                    "{name} IOPS {:.0} of the {} asked ({:.0}%)",
                    d.iops_mean(),
                    e.rate_iops[k],
                    100.0 * d.iops_mean() / e.rate_iops[k] as f64
                ));
            }
            if miss.is_empty() {
                continue;
            }
            out.push(Advice {
                id: ID,
                severity: Severity::Warning,
                subject: job_subject(j),
                title: format!("the {name} rate asked for was not achieved"),
                evidence: format!(
                    "{}; mean clat {:.1} us at iodepth {}",
                    miss.join("; "),
                    d.clat.mean / 1000.0,
                    e.iodepth
                ),
                why: "A rate-limited run is meant to measure latency at a given load; below \
                      the rate it measured a saturated device (or load generator) instead, and \
                      comparisons with runs that met their rate are not like for like."
                    .into(),
                what_to_do: "Raise iodepth or numjobs so the rate can be met, lower the rate, \
                             or set rate_min / rate_iops_min so the run fails instead of \
                             reporting."
                    .into(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use crate::JobEvidence;

    fn case(ios: u64, rate_iops: u64) -> Vec<Advice> {
        let mut j = job("rl", 0, 0);
        j.write.total_ios = ios;
        j.write.issued_ios = ios;
        j.write.io_bytes = ios * 4096;
        j.write.runtime_ns = 10_000_000_000;
        let r = RunResult { jobs: vec![j], ..Default::default() };
        let ev = Evidence {
            jobs: vec![JobEvidence {
                rate_iops: [0, rate_iops],
                rate_bytes: [0, rate_iops * 4096],
                ..Default::default()
            }],
            ..Default::default()
        };
        run(&r, &ev)
    }

    #[test]
    fn fires_below_ninety_percent() {
        // 8,000 IOPS achieved of 10,000 asked.
        let a = case(80_000, 10_000);
        assert_eq!(a.len(), 1);
        assert!(
            a[0].evidence.contains("write IOPS 8000 of the 10000 asked (80%)"),
            "{}",
            a[0].evidence
        );
        assert!(a[0].evidence.contains("write bandwidth 32000 KiB/s of the 40000 KiB/s asked"));
    }

    #[test]
    fn quiet_when_met_or_unlimited() {
        assert!(case(90_000, 10_000).is_empty());
        assert!(case(10, 0).is_empty());
        // The read direction (rate_iops applies to both) saw no I/O: nothing to report.
        assert!(case(100_000, 10_000).iter().all(|a| !a.title.contains("read")));
    }
}
