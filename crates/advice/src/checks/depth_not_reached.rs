//! The queue depth the device saw was far below the depth asked for or issued. Pitfalls #4
//! and #8 of `peers-and-pitfalls.md` §7: synchronous engines ignore `iodepth`
//! (fio-behaviour.md §2.4), libaio without O_DIRECT blocks in `io_submit` (fio HOWTO
//! `iodepth`, fio #512), and ext4 serialises O_DIRECT writes that extend a file or fill holes
//! or unwritten extents on the inode's i_rwsem (fs/ext4/file.c `ext4_dio_write_checks`:
//! exclusive "for extending I/O, any form of non-overwrite I/O, and unaligned I/O to
//! unwritten extents"), so eight threads become a queue of one (n0derunner's vdbench post;
//! Callaghan "XFS, ext and per-inode mutexes").
//!
//! Per reporting group (jobs that run together): asked = Σ iodepth over the jobs (clones),
//! issued = Σ mean in-flight at submission (fio's "IO depths"), device = Σ aqu-sz over the
//! devices serving the jobs in that phase. Fires when asked ≥ 2 and issued ≤ [`FRACTION`] ×
//! asked (the engine never issued it), or issued ≥ 2 and device ≤ [`FRACTION`] × issued (a
//! layer in between serialised it). With an asynchronous engine (libaio, io_uring) every
//! issued I/O is already inside the kernel, so the device should see nearly all of it: there
//! the bar is [`ASYNC_FRACTION`] (libaio asking 8 on ext4 while the device saw ~3 fires).
//! The likely cause is named from the evidence: the filesystem's inode lock, block-layer
//! merging (`rrqm/s`, `wrqm/s`), the device's own queue limit (`nr_requests`, SCSI
//! `queue_depth`) below the depth issued, buffered I/O.
//!
//! A filesystem can turn one application write into several device requests (ext4 zeroing
//! the rest of a newly allocated extent, journal commits, metadata). Those extra requests
//! raise aqu-sz while the application's own I/Os still run one at a time, so when the devices
//! did more than [`AMPLIFICATION_MIN`] requests per application I/O in the phase, the device
//! depth is also compared per application I/O (aqu-sz divided by that ratio). The bar is low
//! (1.1): under load ext4's extra requests per write fell from 2.0 to 1.46, and a bar of 1.5
//! then compared the raw aqu-sz (3.29 against 8 issued) and missed the serialised threads.

use iolab_job::engines::{self as facts, KERNEL_QUEUE, SYNC};
use iolab_stats::{DiskUtil, JobResult, RunResult};

use super::Check;
use crate::evidence::mean_issued_depth;
use crate::{Advice, Evidence, JobEvidence, Severity, WriteAlloc};

pub const ID: &str = "depth_not_reached";
pub const FRACTION: f64 = 1.0 / 3.0;
pub const AMPLIFICATION_MIN: f64 = 1.1;
/// The bar for asynchronous engines: the device saw at most half the depth issued.
pub const ASYNC_FRACTION: f64 = 0.5;
/// Share of requests merged by the block layer that is named as a cause.
pub const MERGE_SHARE: f64 = 0.2;

pub const CHECK: Check =
    Check { id: ID, summary: "device queue depth far below the depth issued", run };

fn run(r: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for (gid, mut jobs) in ev.groups(r) {
        jobs.retain(|(_, e)| e.ioengine != "null");
        out.extend(group_advice(r, ev, gid, &jobs));
    }
    out
}

type Jobs<'a> = [(&'a JobResult, &'a JobEvidence)];

/// The advice for one reporting group, when its depth fell short at the engine or below it.
fn group_advice(r: &RunResult, ev: &Evidence, gid: u32, jobs: &Jobs<'_>) -> Option<Advice> {
    let asked: f64 = jobs.iter().map(|(_, e)| e.iodepth.max(1) as f64).sum();
    let depths: Vec<f64> = jobs.iter().filter_map(|(j, _)| mean_issued_depth(j)).collect();
    if depths.is_empty() {
        return None;
    }
    let issued: f64 = depths.iter().sum();
    let devs = group_devices(r, ev, gid, jobs);
    let (seen, amp_text) = depth_per_app_io(jobs, &devs);
    let foreign = crate::evidence::foreign_io(jobs, &devs)
        .map(|f| format!("; {}", f.describe(jobs.iter().any(|(_, e)| !e.direct))))
        .unwrap_or_default();
    let evidence = format!(
        "{} job(s) asked for a total depth of {asked:.0} and issued a mean of {issued:.2} \
         in flight; {}{amp_text}{foreign}",
        jobs.len(),
        devices_text(&devs)
    );
    let all_async =
        !jobs.is_empty() && jobs.iter().all(|(_, e)| facts::has(&e.ioengine, KERNEL_QUEUE));
    let bar = if all_async { ASYNC_FRACTION } else { FRACTION };
    let throttled = throttle_cause(jobs, &devs, issued);
    let (title, cause) = if !throttled.is_empty() && issued >= 2.0 && seen <= bar * issued {
        // A throttle holds the bios above the device whatever else is going on (holes
        // included): it is the cause, and what to do is about it.
        let title = format!("issued depth {issued:.2}, the device saw {seen:.2}");
        let what = "Run outside the throttled cgroup to measure the device; keep the throttle \
                    to measure the service it shapes, and read latency as the throttle's \
                    queueing, not the device's.";
        return Some(advice(gid, title, evidence, throttled.join("; "), what.into()));
    } else if let Some(c) = never_written(jobs).filter(|_| issued >= 2.0) {
        // Reads of holes: the filesystem answers them from its block map and the device never
        // sees them, so any shortfall there is theirs, not a lock's or the CPU's.
        if devs.is_empty() || seen > bar * issued {
            return None;
        }
        (format!("issued depth {issued:.2}, the device saw {seen:.2}"), c)
    } else if asked >= 2.0 && issued <= FRACTION * asked {
        (format!("asked for depth {asked:.0}, the engine issued {issued:.2}"), engine_cause(jobs))
    } else if issued >= 2.0 && !devs.is_empty() && seen <= bar * issued {
        let c = device_cause(jobs, &devs, issued, all_async);
        (format!("issued depth {issued:.2}, the device saw {seen:.2}"), c)
    } else {
        return None;
    };
    Some(advice(gid, title, evidence, cause, what_to_do(jobs)))
}

fn advice(gid: u32, title: String, evidence: String, cause: String, what: String) -> Advice {
    Advice {
        id: ID,
        severity: Severity::Warning,
        subject: format!("group {gid}"),
        title,
        evidence,
        why: format!(
            "A run at a lower queue depth than configured measures a different, usually \
             latency-bound operating point; IOPS will not scale with iodepth or numjobs. \
             Likely cause: {cause}."
        ),
        what_to_do: what,
    }
}

/// Share of sampled reads (over the group) that returned all-zero blocks above which the
/// reads are taken to be of never-written blocks, named as the cause of a device depth
/// shortfall (the newcomer review's sparse file: 100 % zero reads, aqu-sz near 0, and the
/// advice blamed ext4's block mapping or the CPU).
pub const HOLE_SHARE: f64 = 0.5;

/// The cause when most of the group's sampled reads returned never-written (all-zero) blocks
/// and the jobs do not write zeros themselves.
fn never_written(jobs: &Jobs<'_>) -> Option<String> {
    let (sampled, zero) = jobs
        .iter()
        .filter(|(_, e)| !e.data.zero_run_share.is_some_and(|s| s >= 0.999))
        .filter_map(|(_, e)| e.zero_reads)
        .fold((0u64, 0u64), |(n, z), s| (n + s.sampled, z + s.all_zero));
    let share = zero as f64 / sampled.max(1) as f64;
    (sampled >= super::zero_reads::MIN_SAMPLES && share >= HOLE_SHARE).then(|| {
        format!(
            "{:.0} % of the sampled reads returned all-zero blocks: reads of never-written \
             blocks (a sparse file's holes, unwritten extents) are answered by the filesystem \
             from its block map without device I/O, so the device's queue stays short whatever \
             the depth issued (see zero_reads; `--prefill` writes the region first)",
            share * 100.0
        )
    })
}

/// The devices serving the group's jobs, with their rates over the samples inside the
/// phase, so a neighbouring phase's traffic is not taken for this one's.
fn group_devices<'a>(
    r: &'a RunResult,
    ev: &'a Evidence,
    gid: u32,
    jobs: &Jobs<'_>,
) -> Vec<&'a DiskUtil> {
    let mut names: Vec<&String> = jobs.iter().flat_map(|(_, e)| &e.devices).collect();
    names.sort();
    names.dedup();
    ev.phase_rates(r, gid)
        .map(|d| d.iter().filter(|d| names.contains(&&d.name)).collect())
        .unwrap_or_default()
}

/// The depth the devices saw (Σ aqu-sz), divided by the requests they did per application
/// I/O when that exceeds [`AMPLIFICATION_MIN`] (with the sentence saying so).
fn depth_per_app_io(jobs: &Jobs<'_>, devs: &[&DiskUtil]) -> (f64, String) {
    let device: f64 = devs.iter().map(|d| d.iostat.aqu_sz).sum();
    let app_ios: u64 =
        jobs.iter().map(|(j, _)| j.read.total_ios + j.write.total_ios + j.trim.total_ios).sum();
    let secs = jobs.iter().map(|(j, _)| j.runtime_ns).max().unwrap_or(0) as f64 / 1e9;
    let app_rate = if secs > 0.0 { app_ios as f64 / secs } else { 0.0 };
    let dev_rate: f64 = devs.iter().map(|d| d.iostat.r_s + d.iostat.w_s).sum();
    let amp = if app_rate > 0.0 { dev_rate / app_rate } else { 1.0 };
    if amp <= AMPLIFICATION_MIN {
        return (device, String::new());
    }
    let text = format!(
        "; the devices did {amp:.1} requests per application I/O ({dev_rate:.0}/s for \
         {app_rate:.0}/s), so per application I/O they saw a depth of {:.2}",
        device / amp
    );
    (device / amp, text)
}

/// Each device's `iostat -x` figures for the evidence line.
fn devices_text(devs: &[&DiskUtil]) -> String {
    if devs.is_empty() {
        return "no device figures for this phase".to_string();
    }
    devs.iter()
        .map(|d| {
            format!(
                "{} aqu-sz {:.2} (r/s {:.0}, w/s {:.0}, r_await {:.2} ms, w_await {:.2} ms, \
                 util {:.0}%)",
                d.name,
                d.iostat.aqu_sz,
                d.iostat.r_s,
                d.iostat.w_s,
                d.iostat.r_await,
                d.iostat.w_await,
                d.iostat.util
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn engine_cause(jobs: &[(&JobResult, &JobEvidence)]) -> String {
    let mut c = Vec::new();
    if let Some((_, e)) = jobs.iter().find(|(_, e)| facts::has(&e.ioengine, SYNC)) {
        c.push(format!(
            "ioengine={} is synchronous: each job has one I/O in flight whatever iodepth says \
             (fio caps it at 1)",
            e.ioengine
        ));
    }
    if jobs.iter().any(|(_, e)| e.ioengine == "libaio" && !e.direct) {
        c.push("libaio without direct=1: io_submit performs buffered I/O inside the call".into());
    }
    if c.is_empty() {
        c.push(
            "the job could not keep its queue full (rate limit, thinktime, or iolab itself \
                CPU-bound)"
                .into(),
        );
    }
    c.join("; ")
}

/// The fix, naming only asynchronous engines the run could use (not one it fell back from).
fn what_to_do(jobs: &[(&JobResult, &JobEvidence)]) -> String {
    let usable: Vec<&str> = facts::ENGINES
        .iter()
        .filter(|f| f.is(KERNEL_QUEUE))
        .map(|f| f.name)
        .filter(|a| !jobs.iter().any(|(_, e)| e.engine_fallback_from.as_deref() == Some(*a)))
        .collect();
    let engine = match usable.as_slice() {
        [] => "Raise numjobs (no asynchronous engine was usable here)".to_string(),
        [one] => format!(
            "Use ioengine={one} with direct=1 (this run could not use {})",
            jobs.iter().find_map(|(_, e)| e.engine_fallback_from.as_deref()).unwrap_or("the other")
        ),
        _ => "Use an asynchronous engine (io_uring or libaio) with direct=1".to_string(),
    };
    format!(
        "{engine}; prefill files so O_DIRECT writes are overwrites; compare with XFS or the raw \
         device; check the device's queue settings (nr_requests, queue_depth)."
    )
}

fn device_cause(
    jobs: &[(&JobResult, &JobEvidence)],
    devs: &[&iolab_stats::DiskUtil],
    issued: f64,
    all_async: bool,
) -> String {
    let mut c = Vec::new();
    let ext = |e: &JobEvidence| e.fs_type.as_deref().is_some_and(|f| f.starts_with("ext"));
    let direct_writers: Vec<_> =
        jobs.iter().filter(|(j, e)| e.direct && j.write.total_ios > 0 && ext(e)).collect();
    if let Some((_, e)) = direct_writers.first() {
        let fs = e.fs_type.as_deref().unwrap_or("ext4");
        match direct_writers.iter().map(|(_, e)| e.write_alloc).max_by_key(|a| *a as u8) {
            Some(WriteAlloc::Extending) | Some(WriteAlloc::HoleFilling) => c.push(format!(
                "{fs} takes the inode's i_rwsem exclusively for O_DIRECT writes that extend \
                 the file or fill holes or unwritten extents (ext4_dio_write_checks), so the \
                 writers queued on the inode lock instead of the device"
            )),
            Some(WriteAlloc::Unknown) => c.push(format!(
                "probably {fs}'s exclusive i_rwsem: O_DIRECT writes that extend the file or \
                 fill holes or unwritten extents are serialised (ext4_dio_write_checks); \
                 overwrites of written blocks are not"
            )),
            _ => {}
        }
    }
    let (merged, reqs) = devs.iter().fold((0.0, 0.0), |(m, n), d| {
        let x = &d.iostat;
        (m + x.rrqm_s + x.wrqm_s, n + x.r_s + x.w_s + x.rrqm_s + x.wrqm_s)
    });
    if reqs > 0.0 && merged >= MERGE_SHARE * reqs {
        c.push(format!(
            "the block layer merged {:.0} % of the requests ({merged:.0}/s of {reqs:.0}/s): \
             the device saw fewer, larger requests than were issued",
            merged * 100.0 / reqs
        ));
    }
    let mut limits: Vec<&crate::QueueLimit> =
        jobs.iter().flat_map(|(_, e)| &e.queue_limits).collect();
    limits.dedup_by(|a, b| a.device == b.device);
    for q in limits.iter().filter(|q| q.limit().is_some_and(|l| (l as f64) < issued)) {
        c.push(format!(
            "{}'s own queue limit is below the depth issued (nr_requests {}, queue_depth {})",
            q.device,
            q.nr_requests.map_or("n/a".into(), |v| v.to_string()),
            q.queue_depth.map_or("n/a".into(), |v| v.to_string())
        ));
    }
    if jobs.iter().any(|(_, e)| !e.direct) {
        c.push(
            "buffered I/O: the device sees page-cache writeback and readahead, not the \
                job's own I/Os"
                .into(),
        );
    }
    if c.is_empty() && all_async {
        c.push(above_device(jobs, devs));
    }
    if c.is_empty() {
        c.push(
            "a layer between the job and the device serialised or merged the I/O (a \
                filesystem lock, a loop device, device-mapper), or the submitting threads were \
                short of CPU"
                .into(),
        );
    }
    c.join("; ")
}

/// The cgroup block I/O throttle on a device serving the jobs: blk-throttle holds the bios
/// above the device's queue until the group's budget allows them, so the queue stays short
/// whatever depth is issued, and the run measures the throttle.
fn throttle_cause(jobs: &Jobs<'_>, devs: &[&iolab_stats::DiskUtil], issued: f64) -> Vec<String> {
    let mut seen: Vec<&crate::throttle::Throttle> = Vec::new();
    for t in jobs.iter().flat_map(|(_, e)| &e.throttles) {
        if !seen.iter().any(|s| s.device == t.device && s.cgroup == t.cgroup) {
            seen.push(t);
        }
    }
    seen.iter()
        .map(|t| {
            let rate = devs.iter().find(|d| d.name == t.device).map_or(String::new(), |d| {
                format!(" (it did {:.0} r/s and {:.0} w/s)", d.iostat.r_s, d.iostat.w_s)
            });
            format!(
                "the block I/O throttle of cgroup {} caps {} at {}{rate}: blk-throttle holds \
                 the bios above the device's queue until the group's budget allows them, so \
                 {issued:.2} in flight reach the device a few at a time and the run measures \
                 the throttle, not the device",
                t.cgroup.display(),
                t.device,
                t.describe()
            )
        })
        .collect()
}

/// For an async engine with no specific cause: how long an I/O was in flight for the engine
/// against how long the device held it, and where the rest goes.
fn above_device(jobs: &[(&JobResult, &JobEvidence)], devs: &[&iolab_stats::DiskUtil]) -> String {
    let (n, sum) = jobs.iter().fold((0u64, 0.0), |(n, s), (j, _)| {
        let (r, w) = (&j.read.clat, &j.write.clat);
        (n + r.n + w.n, s + r.mean * r.n as f64 + w.mean * w.n as f64)
    });
    let (dn, dsum) = devs.iter().fold((0.0, 0.0), |(n, s), d| {
        let x = &d.iostat;
        (n + x.r_s + x.w_s, s + x.r_await * x.r_s + x.w_await * x.w_s)
    });
    let fs = jobs.iter().find_map(|(_, e)| e.fs_type.as_deref());
    let writes = jobs.iter().any(|(j, _)| j.write.total_ios > 0);
    let place = match (fs, writes) {
        (Some(fs), true) => format!("{fs} at submission (block mapping, the inode lock)"),
        (Some(fs), false) => format!("{fs}'s block mapping at submission"),
        (None, _) => "the block layer".to_string(),
    };
    let times = if n > 0 && dn > 0.0 {
        format!(
            "each I/O was in flight {:.0} µs for the engine but {:.0} µs at the device: ",
            sum / n as f64 / 1e3,
            dsum / dn * 1e3
        )
    } else {
        String::new()
    };
    format!(
        "{times}the I/Os wait above the device ({place}, completion handling, or a \
         submitting thread short of CPU), so fewer are queued there than the engine has in \
         flight"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testutil::{dev, job};

    /// `n` jobs of depth `qd` with engine `engine`, each issuing at mean depth `issued`, on ext4
    /// over loop3, which shows aqu-sz `aqu`.
    fn case(
        n: u32,
        engine: &str,
        qd: u32,
        issued: u32,
        aqu: f64,
        alloc: WriteAlloc,
    ) -> Vec<Advice> {
        let mut r = RunResult::default();
        let mut ev = Evidence::default();
        for i in 0..n {
            let mut j = job("rw", i, 0);
            j.write.total_ios = 1000;
            j.depth.exact = vec![(issued, 1000)];
            r.jobs.push(j);
            ev.jobs.push(JobEvidence {
                ioengine: engine.into(),
                direct: true,
                iodepth: qd,
                fs_type: Some("ext4".into()),
                devices: vec!["loop3".into()],
                write_alloc: alloc,
                ..Default::default()
            });
        }
        r.disk_util.push(dev("loop3", 1000 * n as u64, 0.2, aqu));
        run(&r, &ev)
    }

    #[test]
    fn eight_threads_serialised_on_ext4_hole_filling() {
        let a = case(8, "sync", 1, 1, 1.02, WriteAlloc::HoleFilling);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "issued depth 8.00, the device saw 1.02");
        assert!(a[0].why.contains("i_rwsem exclusively"), "{}", a[0].why);
        assert!(a[0].evidence.contains("loop3 aqu-sz 1.02"));
        // Unknown allocation: named as probable.
        assert!(case(8, "sync", 1, 1, 1.0, WriteAlloc::Unknown)[0].why.contains("probably ext4"));
    }

    #[test]
    fn filesystem_amplification_is_divided_out() {
        // 8 threads, 1000 writes each; the device did 3.5 requests per write at aqu-sz 3.0:
        // per application write the depth was 0.86.
        let mut r = RunResult::default();
        let mut ev = Evidence::default();
        for i in 0..8 {
            let mut j = job("t", i, 0);
            j.write.total_ios = 1000;
            j.runtime_ns = 10_000_000_000; // the 10 s of `dev`'s window
            j.depth.exact = vec![(1, 1000)];
            r.jobs.push(j);
            ev.jobs.push(JobEvidence {
                ioengine: "sync".into(),
                direct: true,
                iodepth: 1,
                fs_type: Some("ext4".into()),
                devices: vec!["loop3".into()],
                ..Default::default()
            });
        }
        r.disk_util.push(dev("loop3", 28_000, 0.5, 3.0));
        let a = run(&r, &ev);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "issued depth 8.00, the device saw 0.86");
        assert!(
            a[0].evidence.contains("3.5 requests per application I/O (2800/s for 800/s)"),
            "{}",
            a[0].evidence
        );
        // Without amplification (8000 device requests) aqu-sz 3.0 is above a third of 8.
        r.disk_util[0] = dev("loop3", 8000, 0.5, 3.0);
        assert!(run(&r, &ev).is_empty());
    }

    /// The newcomer review's case: libaio asked 8 on ext4, the device saw ~3. Flagged now,
    /// with the filesystem named as the likely cause.
    #[test]
    fn libaio_depth_8_seen_as_3_on_ext4_is_flagged() {
        let a = case(1, "libaio", 8, 8, 3.0, WriteAlloc::Overwrite);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "issued depth 8.00, the device saw 3.00");
        assert!(a[0].why.contains("wait above the device (ext4 at submission"), "{}", a[0].why);
        assert!(a[0].what_to_do.contains("io_uring or libaio"), "{}", a[0].what_to_do);
        // Hole-filling writes: the inode lock is named instead.
        let a = case(1, "io_uring", 8, 8, 3.0, WriteAlloc::HoleFilling);
        assert!(a[0].why.contains("i_rwsem exclusively"), "{}", a[0].why);
    }

    /// One async job of depth 16 on sdc, which shows aqu-sz 3 with the given merges/s and
    /// queue limit.
    fn async_case(merges: f64, limit: Option<u64>, fallback: Option<&str>) -> Vec<Advice> {
        let mut r = RunResult::default();
        let mut j = job("a", 0, 0);
        j.read.total_ios = 1000;
        j.read.io_bytes = 1000 * 4096;
        j.read.clat.n = 1000;
        j.read.clat.mean = 500_000.0;
        j.depth.exact = vec![(16, 1000)];
        r.jobs.push(j);
        let ev = Evidence {
            jobs: vec![JobEvidence {
                ioengine: "libaio".into(),
                direct: true,
                iodepth: 16,
                devices: vec!["sdc".into()],
                engine_fallback_from: fallback.map(String::from),
                queue_limits: vec![crate::QueueLimit {
                    device: "sdc".into(),
                    nr_requests: limit,
                    queue_depth: None,
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut d = dev("sdc", 1000, 0.1, 3.0);
        d.iostat.rrqm_s = merges;
        r.disk_util.push(d);
        run(&r, &ev)
    }

    #[test]
    fn async_shortfall_names_merging_and_the_queue_limit() {
        let a = async_case(300.0, Some(4), None);
        assert_eq!(a.len(), 1);
        assert!(a[0].why.contains("merged 75 % of the requests"), "{}", a[0].why);
        assert!(a[0].why.contains("sdc's own queue limit"), "{}", a[0].why);
        assert!(a[0].why.contains("nr_requests 4"), "{}", a[0].why);
        // No merging, a queue limit above the depth: neither is blamed.
        let a = async_case(0.0, Some(256), None);
        let why = &a[0].why;
        assert!(!why.contains("block layer merged") && !why.contains("queue limit"), "{why}");
        // Instead: the time an I/O spent above the device.
        let want = "in flight 500 µs for the engine but 100 µs at the device: the I/Os wait \
                    above the device (the block layer,";
        assert!(why.contains(want), "{why}");
    }

    /// After io_uring fell back (kernel.io_uring_disabled), the advice names only libaio.
    #[test]
    fn no_suggestion_of_an_engine_the_run_could_not_use() {
        let a = async_case(0.0, None, Some("io_uring"));
        assert!(a[0].what_to_do.starts_with("Use ioengine=libaio"), "{}", a[0].what_to_do);
        assert!(!a[0].what_to_do.contains("io_uring or"), "{}", a[0].what_to_do);
        assert!(a[0].what_to_do.contains("could not use io_uring"), "{}", a[0].what_to_do);
    }

    /// The devices moved more than the job: the evidence says how much is not the run's.
    #[test]
    fn foreign_device_io_is_reported_not_blamed_on_the_job() {
        let mut r = RunResult::default();
        let mut j = job("a", 0, 0);
        j.read.total_ios = 1000;
        j.read.io_bytes = 1000 * 4096;
        j.runtime_ns = 10_000_000_000;
        j.depth.exact = vec![(16, 1000)];
        r.jobs.push(j);
        let mut d = dev("sdc", 1000, 1.0, 3.0);
        // The job's 0.39 MiB/s of reads, and 1.6 MiB/s written by someone else.
        d.iostat.rmb_s = 4_096_000.0 / 10.0 / 1048576.0;
        d.iostat.wmb_s = 1.6;
        r.disk_util.push(d);
        let ev = Evidence {
            jobs: vec![JobEvidence {
                ioengine: "io_uring".into(),
                direct: true,
                iodepth: 16,
                devices: vec!["sdc".into()],
                ..Default::default()
            }],
            ..Default::default()
        };
        let a = run(&r, &ev);
        let want = "read 0.0 MiB/s and wrote 1.6 MiB/s beyond this run's 0.4 MiB/s read and 0.0";
        assert!(a[0].evidence.contains(want), "{}", a[0].evidence);
        assert!(a[0].evidence.contains("80 % of their bytes were not this run's"));
        // The device view says the same.
        let view = crate::render_device_view(&r, &ev);
        assert!(view.contains(want), "{view}");
        // Without the foreign writes nothing is said.
        r.disk_util[0].iostat.wmb_s = 0.0;
        assert!(!run(&r, &ev)[0].evidence.contains("beyond this run"));
    }

    /// The newcomer review's sparse file: libaio QD8 reads of holes on ext4, 100 % zero
    /// reads, the device at aqu-sz 0.05. The cause is the holes, not ext4's block mapping or
    /// the CPU; with half the sampled reads real it is the old cause again.
    #[test]
    fn reads_of_never_written_blocks_are_named_as_the_cause() {
        let sparse = |all_zero: u64| {
            let mut r = RunResult::default();
            let mut j = job("sparse", 0, 0);
            j.read.total_ios = 1000;
            j.depth.exact = vec![(8, 1000)];
            r.jobs.push(j);
            let ev = Evidence {
                jobs: vec![JobEvidence {
                    ioengine: "libaio".into(),
                    direct: true,
                    iodepth: 8,
                    fs_type: Some("ext4".into()),
                    devices: vec!["vda".into()],
                    zero_reads: Some(crate::ZeroReadSample { sampled: 1000, all_zero }),
                    ..Default::default()
                }],
                ..Default::default()
            };
            r.disk_util.push(dev("vda", 10, 0.01, 0.05));
            run(&r, &ev)
        };
        let a = sparse(1000);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].title, "issued depth 8.00, the device saw 0.05");
        let why = &a[0].why;
        assert!(why.contains("100 % of the sampled reads returned all-zero blocks"), "{why}");
        assert!(why.contains("never-written blocks"), "{why}");
        assert!(!why.contains("block mapping at submission") && !why.contains("short of CPU"));
        let why = &sparse(400)[0].why;
        assert!(!why.contains("never-written") && why.contains("block mapping"), "{why}");
    }

    #[test]
    fn sync_engine_with_iodepth_names_the_engine() {
        let a = case(1, "psync", 32, 1, 1.0, WriteAlloc::Overwrite);
        assert_eq!(a[0].title, "asked for depth 32, the engine issued 1.00");
        assert!(a[0].why.contains("ioengine=psync is synchronous"));
    }

    #[test]
    fn quiet_when_the_device_saw_the_depth() {
        // 8 threads of overwrites on ext4 reaching aqu-sz 7.5; libaio QD 8 reaching 7.9.
        assert!(case(8, "sync", 1, 1, 7.5, WriteAlloc::Overwrite).is_empty());
        assert!(case(1, "libaio", 8, 8, 7.9, WriteAlloc::Overwrite).is_empty());
        // Threads: a third of 8 is 2.67: 2.6 fires, 2.7 does not. ext4 overwrites by 8
        // threads on a loop device over virtio reached 3.4 here; hole-filling writes 0.93.
        assert_eq!(case(8, "sync", 1, 1, 2.6, WriteAlloc::Overwrite).len(), 1);
        assert!(case(8, "sync", 1, 1, 2.7, WriteAlloc::Overwrite).is_empty());
        // An async engine's I/Os are all in the kernel: the bar is half, 4.0 of 8.
        assert!(case(1, "libaio", 8, 8, 4.1, WriteAlloc::Overwrite).is_empty());
        // Depth 1 asked and issued: nothing to compare.
        assert!(case(1, "psync", 1, 1, 0.1, WriteAlloc::Unknown).is_empty());
    }
}
