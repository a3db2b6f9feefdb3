//! Latency measured closed-loop under a rate limit (coordinated omission). When an I/O is
//! slow, a closed-loop generator issues the next one late and measures it from its late start,
//! so the stall never shows in the percentiles; fio's linear rate mode even waits for all
//! in-flight I/O before sleeping (`io_u_quiesce`, fio #635/#1394; fio-behaviour.md §2.5).
//! Sources: wrk2's README; peers-and-pitfalls.md §5 "Coordinated omission".
//!
//! Fires for every job with a rate limit whose latency was measured from the actual
//! submission rather than from the schedule's intended start.

use iolab_stats::RunResult;

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "coordinated_omission";

pub const CHECK: Check =
    Check { id: ID, summary: "rate-limited latency measured closed-loop", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (j, e) in r.jobs.iter().zip(&ev.jobs) {
        let limited = e.rate_bytes.iter().chain(&e.rate_iops).any(|&x| x > 0);
        if !limited || !e.latency_closed_loop {
            continue;
        }
        let d = if j.write.total_ios > j.read.total_ios { &j.write } else { &j.read };
        let p99 = d.clat.percentiles.iter().find(|p| (p.pct - 99.0).abs() < 1e-9);
        out.push(Advice {
            id: ID,
            severity: Severity::Warning,
            subject: job_subject(j),
            title: "latency under a rate limit was measured closed-loop".into(),
            evidence: format!(
                "rate {:?} B/s, rate_iops {:?} (read, write) at iodepth {}; clat mean {:.1} us, \
                 p99 {}, max {:.1} us, all measured from the actual submission",
                e.rate_bytes,
                e.rate_iops,
                e.iodepth,
                d.clat.mean / 1000.0,
                p99.map(|p| format!("{:.1} us", p.value as f64 / 1000.0))
                    .unwrap_or_else(|| "n/a".into()),
                d.clat.max as f64 / 1000.0
            ),
            why: "A stalled I/O delays the ones scheduled after it, and each is timed from its \
                  late start, so the stall is omitted from the percentiles: the tail looks far \
                  better than what an application issuing at this rate would see."
                .into(),
            what_to_do: "Measure latency from the intended issue time of the rate schedule \
                         (open loop; rate_process=poisson with enough iodepth to absorb \
                         stalls) or compare with a run without a rate limit."
                .into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use crate::JobEvidence;

    fn case(rate: u64, closed: bool) -> usize {
        let r = RunResult { jobs: vec![job("r", 0, 0)], ..Default::default() };
        let ev = Evidence {
            jobs: vec![JobEvidence {
                rate_iops: [rate, 0],
                latency_closed_loop: closed,
                ..Default::default()
            }],
            ..Default::default()
        };
        run(&r, &ev).len()
    }

    #[test]
    fn fires_only_for_rate_limited_closed_loop() {
        assert_eq!(case(1000, true), 1);
        assert_eq!(case(1000, false), 0);
        assert_eq!(case(0, true), 0);
    }
}
