//! Reads that returned all-zero blocks: never-written, thin-provisioned, fallocated or
//! trimmed regions that the device (or the filesystem, for holes) answers without touching
//! media. Pitfall #1 of `peers-and-pitfalls.md` §7 (fio issue #719 "Completely fake (very
//! high) IOPS"; n0derunner "here be zeroes"; benchmark-operator's prefill note).
//!
//! Threshold: at least [`MIN_SAMPLES`] sampled completions and at least [`MIN_SHARE`] of
//! them all zero. Any real zero share matters: a device that answers 5 % of reads from
//! metadata lowers mean latency by about 5 % and the tail far more.

use iolab_stats::RunResult;

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "zero_reads";
pub const MIN_SAMPLES: u64 = 16;
pub const MIN_SHARE: f64 = 0.01;

pub const CHECK: Check = Check { id: ID, summary: "reads returned all-zero blocks", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (j, e) in r.jobs.iter().zip(&ev.jobs) {
        let Some(z) = e.zero_reads else { continue };
        if z.sampled < MIN_SAMPLES {
            continue;
        }
        let share = z.all_zero as f64 / z.sampled as f64;
        if share < MIN_SHARE {
            continue;
        }
        let own_zeros = e.data.zero_run_share.is_some_and(|s| s >= 0.999);
        out.push(Advice {
            id: ID,
            severity: Severity::Warning,
            subject: job_subject(j),
            title: format!("{:.1}% of sampled reads returned all-zero blocks", share * 100.0),
            evidence: format!(
                "{} of {} sampled read completions were entirely zero bytes; the job read {} \
                 in {} I/Os, mean clat {:.1} us",
                z.all_zero,
                z.sampled,
                super::mib(j.read.io_bytes as f64),
                j.read.total_ios,
                j.read.clat.mean / 1000.0
            ),
            why: "Blocks that were never written (sparse files, fresh thin-provisioned or \
                  trimmed volumes, fallocated unwritten extents) are answered from metadata \
                  or mapping tables without a media access, so latency and IOPS describe the \
                  mapping layer, not the storage."
                .into(),
            what_to_do: if own_zeros {
                "The job writes zero-filled buffers itself (zero_buffers or a zero pattern), \
                 which thin and deduplicating targets store as nothing: write random data \
                 (refill_buffers, no zero_buffers), then read."
                    .into()
            } else {
                "Prefill the target: `iolab run --prefill` writes the region once, \
                 sequentially, with the job's data pattern before measuring (or run a \
                 rw=write job with bs=1m over the same region first)."
                    .into()
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use crate::{JobEvidence, ZeroReadSample};

    fn case(sampled: u64, all_zero: u64) -> Vec<Advice> {
        let mut r = RunResult::default();
        r.jobs.push(job("rr", 0, 0));
        let ev = Evidence {
            jobs: vec![JobEvidence {
                zero_reads: Some(ZeroReadSample { sampled, all_zero }),
                ..Default::default()
            }],
            ..Default::default()
        };
        run(&r, &ev)
    }

    #[test]
    fn fires_at_one_percent_and_above() {
        let a = case(1000, 10);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "1.0% of sampled reads returned all-zero blocks");
        assert!(a[0].evidence.starts_with("10 of 1000 sampled"));
        assert!(a[0].what_to_do.contains("--prefill"));
        assert_eq!(case(1000, 1000)[0].title, "100.0% of sampled reads returned all-zero blocks");
    }

    #[test]
    fn quiet_below_threshold_or_too_few_samples() {
        assert!(case(1000, 9).is_empty());
        assert!(case(15, 15).is_empty());
        assert!(case(0, 0).is_empty());
    }
}
