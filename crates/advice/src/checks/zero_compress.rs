//! Written data whose compressibility comes from zero runs. fio's
//! `buffer_compress_percentage` makes each `buffer_compress_chunk` part random and part zeros
//! (fio-behaviour.md §2.8, io_u.c `fill_random_buf_percentage`), and `zero_buffers` writes
//! only zeros; a target that compresses or suppresses zeros (SSD controllers, ZFS, VDO, arrays)
//! then stores far less than the job wrote. Pitfall #2 of `peers-and-pitfalls.md` §7
//! (elbencho #98; Seagate "Lies, Damn Lies And SSD Benchmark Test Result"; hpc/ior #111).
//!
//! Threshold: at least [`MIN_ZERO_SHARE`] of written bytes are zero runs, the job wrote, and
//! the target is not known to leave data alone (compression unknown or yes).

use iolab_stats::RunResult;

use super::{by_name, name_subject, Check};
use crate::{Advice, Capability, Evidence, Severity};

pub const ID: &str = "zero_compress";
pub const MIN_ZERO_SHARE: f64 = 0.10;

pub const CHECK: Check =
    Check { id: ID, summary: "written data compresses only because of zero runs", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (name, clones) in by_name(r, ev) {
        let written: u64 = clones.iter().map(|(j, _)| j.write.io_bytes).sum();
        let e = clones[0].1;
        let Some(share) = e.data.zero_run_share else { continue };
        if written == 0 || share < MIN_ZERO_SHARE {
            continue;
        }
        if e.data.target_compresses == Capability::No {
            continue;
        }
        let cap = match e.data.target_compresses {
            Capability::Yes => "the target compresses",
            _ => "whether the target compresses is unknown",
        };
        out.push(Advice {
            id: ID,
            severity: Severity::Warning,
            subject: name_subject(name, clones.len()),
            title: format!("{:.0}% of the written bytes are zero runs", share * 100.0),
            evidence: format!(
                "{} written; zero-run share {:.1}% (measured on the job's generated buffers); \
                 {cap}",
                super::mib(written as f64),
                share * 100.0
            ),
            why: "Real data compresses through repeated structure, not through long runs of \
                  zeros; a compressing or zero-detecting target stores and moves only the \
                  random part, so write bandwidth and endurance look better than with real \
                  data of the same ratio."
                .into(),
            what_to_do: "Write incompressible data (no buffer_compress_percentage, \
                         refill_buffers) for a media figure, or generate data with measured \
                         structure (`iolab data`) and compare the two runs; check the \
                         target's own compression statistics."
                .into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use crate::{DataFacts, JobEvidence};

    fn case(share: Option<f64>, wrote: u64, cap: Capability) -> usize {
        let mut r = RunResult::default();
        r.jobs.push(job("w", 0, 0));
        r.jobs[0].write.io_bytes = wrote;
        let data =
            DataFacts { zero_run_share: share, target_compresses: cap, ..Default::default() };
        let ev = Evidence {
            jobs: vec![JobEvidence { data, ..Default::default() }],
            ..Default::default()
        };
        run(&r, &ev).len()
    }

    #[test]
    fn fires_for_zero_runs_on_a_possibly_compressing_target() {
        assert_eq!(case(Some(0.5), 1 << 30, Capability::Unknown), 1);
        assert_eq!(case(Some(0.10), 1 << 30, Capability::Yes), 1);
    }

    #[test]
    fn quiet_otherwise() {
        assert_eq!(case(Some(0.09), 1 << 30, Capability::Yes), 0);
        assert_eq!(case(Some(0.5), 0, Capability::Yes), 0);
        assert_eq!(case(Some(0.5), 1 << 30, Capability::No), 0);
        assert_eq!(case(None, 1 << 30, Capability::Yes), 0);
    }
}
