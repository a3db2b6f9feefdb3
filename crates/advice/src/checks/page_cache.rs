//! The page cache (or another cache) answered instead of the device. Pitfalls #3 and #7 of
//! `peers-and-pitfalls.md` §7: buffered I/O (`direct=0`) where the application moved far more
//! bytes than the device did (fio #329 "min=0 … served out of cache", #470 "do at least 3×
//! RAM of I/O"), a working set that fits in RAM, or one that fits in a declared device/array
//! cache even with O_DIRECT.
//!
//! Thresholds, per reporting group (phase): application bytes of the buffered jobs at least
//! [`RATIO`]× the bytes the devices serving them moved in that phase, and at least
//! [`MIN_APP_BYTES`]; or the largest buffered job's working set below MemTotal; or any job's
//! working set below the declared cache size. The working set of a group is the largest job's
//! (numjobs clones usually share one file, so a sum would overstate it).

use iolab_stats::{JobResult, RunResult};

use super::{mib, Check};
use crate::{Advice, Evidence, JobEvidence, Severity};

pub const ID: &str = "page_cache";
pub const RATIO: f64 = 2.0;
pub const MIN_APP_BYTES: u64 = 1 << 20;

pub const CHECK: Check = Check { id: ID, summary: "a cache answered instead of the device", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (gid, jobs) in ev.groups(r) {
        // The null engine moves no data and has no device: nothing to compare.
        let buffered: Vec<_> =
            jobs.iter().copied().filter(|(_, e)| !e.direct && e.ioengine != "null").collect();
        let facts = buffered_facts(r, ev, gid, &buffered);
        if !facts.is_empty() {
            out.push(Advice {
                id: ID,
                severity: Severity::Warning,
                subject: format!("group {gid}"),
                title: "buffered I/O was served by the page cache".into(),
                evidence: facts.join("; "),
                why: "With direct=0 the kernel's page cache answers reads of cached pages and \
                      absorbs writes as dirty pages; latency and bandwidth then describe \
                      memory, not the device."
                    .into(),
                what_to_do: "Use direct=1, or make the working set several times RAM (fio \
                             #470 suggests 3x), drop caches before the run (echo 3 > \
                             /proc/sys/vm/drop_caches as root) and end writes with \
                             end_fsync=1."
                    .into(),
            });
        }
        let ws = jobs.iter().map(|(_, e)| e.working_set_bytes).max().unwrap_or(0);
        out.extend(ev.declared_cache_bytes.and_then(|cache| fits_in_cache(gid, ws, cache)));
    }
    out
}

/// What shows the buffered jobs of group `gid` were served from memory: they moved
/// [`RATIO`]× what their devices did in the phase, or their working set is below MemTotal.
fn buffered_facts(
    r: &RunResult,
    ev: &Evidence,
    gid: u32,
    buffered: &[(&JobResult, &JobEvidence)],
) -> Vec<String> {
    let mut facts = Vec::new();
    if buffered.is_empty() {
        return facts;
    }
    let app_r: u64 = buffered.iter().map(|(j, _)| j.read.io_bytes).sum();
    let app_w: u64 = buffered.iter().map(|(j, _)| j.write.io_bytes).sum();
    if let Some(devs) = ev.phase_devices(r, gid) {
        let names: Vec<&String> = buffered.iter().flat_map(|(_, e)| &e.devices).collect();
        let served = devs.iter().filter(|d| names.contains(&&d.name));
        let (dr, dw) = served
            .fold((0u64, 0u64), |(a, b), d| (a + d.read_sectors * 512, b + d.write_sectors * 512));
        for (what, app, dev) in [("read", app_r, dr), ("wrote", app_w, dw)] {
            if app >= MIN_APP_BYTES && app as f64 >= RATIO * dev as f64 {
                let ratio = if dev == 0 {
                    "nothing".to_string()
                } else {
                    format!("{} ({:.1}x less)", mib(dev as f64), app as f64 / dev as f64)
                };
                facts.push(format!(
                    "the buffered jobs {what} {} while their devices ({}) moved {ratio}",
                    mib(app as f64),
                    join(&names),
                ));
            }
        }
    }
    let ws = buffered.iter().map(|(_, e)| e.working_set_bytes).max().unwrap_or(0);
    if let Some(ram) = ev.mem_total_bytes {
        if ws > 0 && ws < ram {
            facts.push(format!(
                "working set {} is smaller than RAM (MemTotal {})",
                mib(ws as f64),
                mib(ram as f64)
            ));
        }
    }
    facts
}

/// The group's working set `ws` fits in the cache the user declared (`--cache-size`).
fn fits_in_cache(gid: u32, ws: u64, cache: u64) -> Option<Advice> {
    (ws > 0 && ws < cache).then(|| Advice {
        id: ID,
        severity: Severity::Warning,
        subject: format!("group {gid}"),
        title: "the working set fits in the declared cache".into(),
        evidence: format!("working set {} < declared cache {}", mib(ws as f64), mib(cache as f64)),
        why: "Once the cache holds the working set every access is a cache hit; the figures \
              describe the cache, not the media behind it."
            .into(),
        what_to_do: "Grow size (or the number of files) well past the cache size, or model \
                     the hit ratio explicitly with `iolab sim`."
            .into(),
    })
}

fn join(v: &[&String]) -> String {
    let mut u: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
    u.dedup();
    u.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::{dev, job};
    use crate::JobEvidence;

    /// One read job that read 1 GiB over a 4 GiB region while the device read `dev_ios` × 4 KiB.
    fn case(direct: bool, dev_ios: u64, ram: u64, cache: Option<u64>) -> Vec<Advice> {
        let mut r = RunResult::default();
        r.jobs.push(job("br", 0, 0));
        r.jobs[0].read.io_bytes = 1 << 30;
        r.disk_util.push(dev("loop3", dev_ios, 0.1, 1.0));
        let ev = Evidence {
            jobs: vec![JobEvidence {
                direct,
                devices: vec!["loop3".into()],
                working_set_bytes: 4 << 30,
                ..Default::default()
            }],
            mem_total_bytes: Some(ram),
            declared_cache_bytes: cache,
            ..Default::default()
        };
        run(&r, &ev)
    }

    #[test]
    fn buffered_reads_that_missed_the_device_fire() {
        // 1 GiB read by the app, 40 MiB by the device: 25.6x.
        let a = case(false, 10_240, 64 << 30, None);
        assert_eq!(a.len(), 1);
        assert!(
            a[0].evidence.contains(
                "read 1024.0 MiB while their devices (loop3) moved 40.0 MiB (25.6x less)"
            ),
            "{}",
            a[0].evidence
        );
        // Working set 4 GiB < 64 GiB RAM is named too.
        assert!(a[0].evidence.contains("smaller than RAM"));
    }

    #[test]
    fn direct_or_device_bound_runs_are_quiet() {
        assert!(case(true, 10_240, 64 << 30, None).is_empty());
        // Device moved 1 GiB (262144 × 4 KiB) and RAM is smaller than the working set.
        assert!(case(false, 262_144, 2 << 30, None).is_empty());
        // Ratio just under 2x: 1 GiB vs 513 MiB.
        assert!(case(false, 131_328, 2 << 30, None).is_empty());
    }

    #[test]
    fn null_engine_is_not_page_cache() {
        let mut r = RunResult::default();
        r.jobs.push(job("nul", 0, 0));
        r.jobs[0].read.io_bytes = 1 << 30;
        r.disk_util.push(dev("vda", 0, 0.0, 0.0));
        let ev = Evidence {
            jobs: vec![JobEvidence {
                ioengine: "null".into(),
                devices: vec!["vda".into()],
                working_set_bytes: 1 << 30,
                ..Default::default()
            }],
            mem_total_bytes: Some(64 << 30),
            ..Default::default()
        };
        assert!(run(&r, &ev).is_empty());
        let mut ev = ev;
        ev.jobs[0].ioengine = "psync".into();
        let a = run(&r, &ev);
        assert!(a[0].evidence.contains("their devices (vda) moved nothing"), "{}", a[0].evidence);
    }

    #[test]
    fn declared_cache_larger_than_the_working_set_fires_even_with_direct() {
        let a = case(true, 262_144, 2 << 30, Some(8 << 30));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "the working set fits in the declared cache");
    }
}
