//! iolab itself was CPU-bound: a worker thread at (nearly) 100 % CPU measures the load
//! generator, not the storage (fio-behaviour.md §6 "what limits fio's per-core ceiling";
//! elbencho #75 on frequency scaling).
//!
//! Threshold: a worker's usr+sys CPU at least [`MIN_PCT`] % of its runtime. Per-worker
//! figures come from the engine (`RUSAGE_THREAD`); without them the job's own `cpu` counters
//! are used. A job shorter than [`MIN_RUNTIME_NS`] is not judged: its thread's CPU time
//! includes the thread's start and set-up, so a null job of a few I/Os shows "122 %" and
//! says nothing about the storage.

use iolab_stats::RunResult;

use super::{job_subject, Check};
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "cpu_bound";
pub const MIN_PCT: f64 = 95.0;
/// Shortest job judged (100 ms).
pub const MIN_RUNTIME_NS: u64 = 100_000_000;

pub const CHECK: Check = Check { id: ID, summary: "a worker thread was CPU-bound", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (i, j) in r.jobs.iter().enumerate().filter(|(_, j)| j.runtime_ns >= MIN_RUNTIME_NS) {
        let pcts: Vec<f64> = match ev.jobs.get(i) {
            Some(e) if !e.worker_cpu_pct.is_empty() => e.worker_cpu_pct.clone(),
            _ if j.runtime_ns > 0 => {
                vec![j.cpu.usr_pct(j.runtime_ns) + j.cpu.sys_pct(j.runtime_ns)]
            }
            _ => continue,
        };
        let hot: Vec<String> = pcts
            .iter()
            .enumerate()
            .filter(|(_, p)| **p >= MIN_PCT)
            .map(|(w, p)| format!("worker {w} at {p:.1}%"))
            .collect();
        if hot.is_empty() {
            continue;
        }
        out.push(Advice {
            id: ID,
            severity: Severity::Warning,
            subject: job_subject(j),
            title: "a worker thread was CPU-bound".into(),
            evidence: format!(
                "{} (usr {:.1}%, sys {:.1}% for the job); {:.0} IOPS",
                hot.join(", "),
                j.cpu.usr_pct(j.runtime_ns),
                j.cpu.sys_pct(j.runtime_ns),
                j.read.iops_mean() + j.write.iops_mean()
            ),
            why: "When the submitting thread has no idle time, IOPS and latency are limited by \
                  the CPU (system call cost, data generation, verification), so the device may \
                  be capable of more."
                .into(),
            what_to_do: "Add jobs (numjobs) or use io_uring with batching \
                         (iodepth_batch_submit), avoid per-I/O data generation \
                         (refill_buffers off), pin workers (cpus_allowed) and check the CPU \
                         frequency governor."
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

    fn ran(name: &str, runtime_ns: u64) -> iolab_stats::JobResult {
        iolab_stats::JobResult { runtime_ns, ..job(name, 0, 0) }
    }

    #[test]
    fn a_job_of_a_few_milliseconds_is_not_judged() {
        // 4,096 null jobs of 16 I/Os each: the thread's set-up made one read 122 % CPU.
        let ev = Evidence {
            jobs: vec![JobEvidence { worker_cpu_pct: vec![122.4], ..Default::default() }],
            ..Default::default()
        };
        let short = RunResult { jobs: vec![ran("j", 2_000_000)], ..Default::default() };
        assert!(run(&short, &ev).is_empty());
        let long = RunResult { jobs: vec![ran("j", MIN_RUNTIME_NS)], ..Default::default() };
        assert_eq!(run(&long, &ev).len(), 1);
    }

    #[test]
    fn worker_at_99_percent_fires_and_80_does_not() {
        let r = RunResult { jobs: vec![ran("j", 1_000_000_000)], ..Default::default() };
        let ev = |p: Vec<f64>| Evidence {
            jobs: vec![JobEvidence { worker_cpu_pct: p, ..Default::default() }],
            ..Default::default()
        };
        let a = run(&r, &ev(vec![40.0, 99.2]));
        assert_eq!(a.len(), 1);
        assert!(a[0].evidence.starts_with("worker 1 at 99.2%"));
        assert!(run(&r, &ev(vec![80.0, 94.9])).is_empty());
    }

    #[test]
    fn falls_back_to_job_cpu() {
        let mut j = job("j", 0, 0);
        j.runtime_ns = 1_000_000_000;
        j.cpu.usr_ns = 300_000_000;
        j.cpu.sys_ns = 680_000_000;
        let r = RunResult { jobs: vec![j.clone()], ..Default::default() };
        assert_eq!(run(&r, &Evidence::default()).len(), 1);
        j.cpu.sys_ns = 600_000_000;
        let r = RunResult { jobs: vec![j], ..Default::default() };
        assert!(run(&r, &Evidence::default()).is_empty());
    }
}
