//! One device much slower than its peers under the same job: one disk of a stripe behind an
//! emulated controller among paravirtual ones, a failing drive, a throttled volume. Pitfall
//! "per-device outliers" of the issue (peers-and-pitfalls.md §5 device view; iostat's
//! r_await/w_await/aqu-sz from `Documentation/admin-guide/iostats.rst`).
//!
//! Per reporting group, over the devices serving its jobs that completed at least
//! [`MIN_IOS`] I/Os in the phase: a device is an outlier when its await (all completed I/Os,
//! ms) is at least [`FACTOR`]× the median of the *other* devices and [`MIN_AWAIT_GAP_MS`]
//! above it, or its aqu-sz is [`FACTOR`]× theirs and [`MIN_AQU_GAP`] above. Leaving the
//! device out of its own median makes the test work for two devices.

use iolab_stats::{DiskUtil, RunResult};

use super::Check;
use crate::{Advice, Evidence, Severity};

pub const ID: &str = "device_outlier";
pub const MIN_IOS: u64 = 20;
pub const FACTOR: f64 = 2.0;
pub const MIN_AWAIT_GAP_MS: f64 = 0.5;
pub const MIN_AQU_GAP: f64 = 1.0;

pub const CHECK: Check =
    Check { id: ID, summary: "one device much slower than the others under one job", run };

fn await_ms(d: &DiskUtil) -> f64 {
    let ios = d.read_ios + d.write_ios;
    if ios == 0 {
        0.0
    } else {
        (d.read_ticks + d.write_ticks) as f64 / ios as f64
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (gid, jobs) in ev.groups(r) {
        let names: Vec<&String> = jobs.iter().flat_map(|(_, e)| &e.devices).collect();
        let Some(all) = ev.phase_rates(r, gid) else { continue };
        let mut devs: Vec<&DiskUtil> = all
            .iter()
            .filter(|d| names.contains(&&d.name) && d.read_ios + d.write_ios >= MIN_IOS)
            .collect();
        devs.dedup_by(|a, b| a.name == b.name);
        if devs.len() < 2 {
            continue;
        }
        for (i, d) in devs.iter().enumerate() {
            let others = || devs.iter().enumerate().filter(move |(k, _)| *k != i).map(|(_, o)| *o);
            let (aw, aq) = (await_ms(d), d.iostat.aqu_sz);
            let maw = median(others().map(await_ms).collect());
            let maq = median(others().map(|o| o.iostat.aqu_sz).collect());
            let slow_await = aw >= FACTOR * maw && aw - maw >= MIN_AWAIT_GAP_MS;
            let deep_queue = aq >= FACTOR * maq && aq - maq >= MIN_AQU_GAP;
            if !slow_await && !deep_queue {
                continue;
            }
            let peers: Vec<String> = others()
                .map(|o| format!("{} {:.2} ms / {:.2}", o.name, await_ms(o), o.iostat.aqu_sz))
                .collect();
            out.push(Advice {
                id: ID,
                severity: Severity::Warning,
                subject: format!("device {}", d.name),
                title: format!(
                    "await {aw:.2} ms, aqu-sz {aq:.2}; the other devices' median {maw:.2} ms, \
                     {maq:.2}"
                ),
                evidence: format!(
                    "group {gid}: {} completed {} I/Os at await {aw:.2} ms, aqu-sz {aq:.2}, \
                     util {:.0}%; others (await / aqu-sz): {}",
                    d.name,
                    d.read_ios + d.write_ios,
                    d.iostat.util,
                    peers.join(", ")
                ),
                why: "Under one job the devices see the same load, so a device with much \
                      higher latency or queue is slower, not busier; in a stripe or a shared \
                      queue it sets the pace for all, and the job's figures describe it."
                    .into(),
                what_to_do: format!(
                    "Check {}'s path (controller type, multipath, cgroup io.max / throttling, \
                     SMART, firmware) and run one job per device to measure it alone.",
                    d.name
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::{dev, job};
    use crate::JobEvidence;

    fn case(devs: &[(&str, u64, f64, f64)]) -> Vec<Advice> {
        let mut r = RunResult::default();
        r.jobs.push(job("stripe", 0, 0));
        let names = devs.iter().map(|d| d.0.to_string()).collect();
        r.disk_util = devs.iter().map(|&(n, ios, aw, aq)| dev(n, ios, aw, aq)).collect();
        let ev = Evidence {
            jobs: vec![JobEvidence { devices: names, ..Default::default() }],
            ..Default::default()
        };
        run(&r, &ev)
    }

    #[test]
    fn slow_member_of_four_is_flagged() {
        let a = case(&[
            ("vdb", 10_000, 0.20, 1.9),
            ("vdc", 10_000, 0.22, 2.0),
            ("sdd", 10_000, 2.50, 2.1),
            ("vde", 10_000, 0.21, 2.0),
        ]);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].subject, "device sdd");
        assert_eq!(
            a[0].title,
            "await 2.50 ms, aqu-sz 2.10; the other devices' median 0.21 ms, 2.00"
        );
    }

    #[test]
    fn two_devices_and_deep_queue() {
        let a = case(&[("loop1", 500, 1.0, 1.0), ("loop2", 500, 1.0, 7.0)]);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].subject, "device loop2");
    }

    #[test]
    fn similar_devices_or_small_gaps_or_idle_are_quiet() {
        assert!(case(&[("a", 1000, 0.2, 1.0), ("b", 1000, 0.3, 1.4), ("c", 1000, 0.25, 1.2)])
            .is_empty());
        // 3x slower but only 0.2 ms apart.
        assert!(case(&[("a", 1000, 0.1, 1.0), ("b", 1000, 0.3, 1.0)]).is_empty());
        // The slow one did too few I/Os to judge.
        assert!(case(&[("a", 1000, 0.2, 1.0), ("b", 10, 9.0, 1.0)]).is_empty());
    }
}
