//! Data that repeats run to run. With fio's default `randrepeat=1` (or a fixed `randseed`)
//! the buffer contents are seeded identically every run (fio init.c `td_fill_rand_seeds`), so
//! the second run of a benchmark writes byte-identical blocks; a deduplicating target (ZFS
//! dedup, VDO, arrays, some SSDs) then stores nothing new. Pitfall #2 of
//! `peers-and-pitfalls.md` §7 (fio HOWTO `dedupe_percentage`, `refill_buffers`; vdbench 5.03
//! notes).
//!
//! Fires for jobs that wrote with repeating data, unless the target is known not to dedupe:
//! a warning when it is known to dedupe, a note when unknown.

use iolab_stats::RunResult;

use super::{by_name, name_subject, Check};
use crate::{Advice, Capability, Evidence, Severity};

pub const ID: &str = "repeat_data";

pub const CHECK: Check =
    Check { id: ID, summary: "written data repeats from run to run (randrepeat)", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (name, clones) in by_name(r, ev) {
        let written: u64 = clones.iter().map(|(j, _)| j.write.io_bytes).sum();
        let e = clones[0].1;
        let severity = match e.data.target_dedupes {
            Capability::No => continue,
            Capability::Yes => Severity::Warning,
            Capability::Unknown => Severity::Info,
        };
        if let Some(share) = e.data.repeat_block_share.filter(|&s| s >= 0.10 && written > 0) {
            out.push(within_run(name, clones.len(), share, severity));
        }
        if written == 0 || !e.data.repeats_run_to_run {
            continue;
        }
        out.push(Advice {
            id: ID,
            severity,
            subject: name_subject(name, clones.len()),
            title: "the written data is identical on every run".into(),
            evidence: format!(
                "{} written with a repeating seed (randrepeat=1 or a fixed randseed); \
                 target dedupes: {}",
                super::mib(written as f64),
                match e.data.target_dedupes {
                    Capability::Yes => "yes",
                    _ => "unknown",
                }
            ),
            why: "A deduplicating target recognises blocks it already stores from an earlier \
                  run and writes only references, so repeated runs measure the dedupe index, \
                  not the media."
                .into(),
            what_to_do: "Set randrepeat=0 (or a new randseed per run) so every run writes new \
                         data, or recreate the target between runs."
                .into(),
        });
    }
    out
}

/// The job's own writes repeat block for block within the run.
fn within_run(name: &str, clones: usize, share: f64, severity: Severity) -> Advice {
    Advice {
        id: ID,
        severity,
        subject: name_subject(name, clones),
        title: format!("{:.0}% of the written blocks repeat an earlier block", share * 100.0),
        evidence: format!(
            "measured on the job's regenerated buffers: {:.1}% of the blocks equal an earlier \
             one byte for byte",
            share * 100.0
        ),
        why: "A deduplicating target stores each repeated block once, so the media sees less \
              than the job wrote."
            .into(),
        what_to_do: "Drop dedupe_percentage/scramble_buffers=0/patterns, or set \
                     refill_buffers=1, for a media figure; keep them only to model a known \
                     dedupe ratio."
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::job;
    use crate::{DataFacts, JobEvidence};

    fn case(repeats: bool, wrote: u64, cap: Capability) -> Option<Severity> {
        let mut r = RunResult::default();
        r.jobs.push(job("w", 0, 0));
        r.jobs[0].write.io_bytes = wrote;
        let data =
            DataFacts { repeats_run_to_run: repeats, target_dedupes: cap, ..Default::default() };
        let ev = Evidence {
            jobs: vec![JobEvidence { data, ..Default::default() }],
            ..Default::default()
        };
        run(&r, &ev).first().map(|a| a.severity)
    }

    #[test]
    fn severity_follows_dedupe_capability() {
        assert_eq!(case(true, 4096, Capability::Yes), Some(Severity::Warning));
        assert_eq!(case(true, 4096, Capability::Unknown), Some(Severity::Info));
        assert_eq!(case(true, 4096, Capability::No), None);
        assert_eq!(case(false, 4096, Capability::Yes), None);
        assert_eq!(case(true, 0, Capability::Yes), None);
    }

    #[test]
    fn clones_of_one_job_give_one_finding() {
        let mut r = RunResult::default();
        let mut ev = Evidence::default();
        for i in 0..8 {
            let mut j = job("w", i, 0);
            j.write.io_bytes = 1 << 20;
            r.jobs.push(j);
            ev.jobs.push(JobEvidence {
                data: DataFacts { repeats_run_to_run: true, ..Default::default() },
                ..Default::default()
            });
        }
        let a = run(&r, &ev);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].subject, "job 'w' (8 clones)");
        assert!(a[0].evidence.starts_with("8.0 MiB written"));
    }
}
