//! Real-device tests of the device view and the advice checks: loop devices (root), ext4 on a
//! loop device, the kernel's own `/proc/diskstats` counters. I/O is issued by threads in this
//! test with O_DIRECT, so what is measured is the kernel's behaviour, not a model of it.
//! Each test probes for root, `losetup`, `mkfs.ext4` and the blkio cgroup, and prints why it
//! skipped when one is missing.
#![allow(clippy::unwrap_used)]

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use iolab_advice::{check, render_text, Evidence, JobEvidence, PhaseEvidence, WriteAlloc};
use iolab_core::Nanos;
use iolab_stats::diskseries::DiskSeriesSampler;
use iolab_stats::topology::{resolve, DevKind};
use iolab_stats::{JobResult, RunResult};

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn scratch(tag: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("advice-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A loop device, detached on drop.
struct Loop {
    dev: String,
}

impl Loop {
    fn attach(backing: &Path, direct_io: bool) -> Option<Loop> {
        let b = backing.to_str()?;
        let args: Vec<&str> = if direct_io {
            vec!["-f", "--show", "--direct-io=on", b]
        } else {
            vec!["-f", "--show", b]
        };
        sh("losetup", &args).map(|dev| Loop { dev })
    }
    fn name(&self) -> String {
        self.dev.trim_start_matches("/dev/").to_string()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        sh("losetup", &["-d", &self.dev]);
    }
}

/// A mounted filesystem, unmounted on drop (before its loop device is detached).
struct Mount {
    dir: PathBuf,
}

impl Drop for Mount {
    fn drop(&mut self) {
        sh("umount", &[self.dir.to_str().unwrap()]);
    }
}

/// A 4096-aligned window into a Vec (O_DIRECT needs aligned buffers; this keeps the test free
/// of unsafe allocation code).
fn aligned(len: usize, fill: u8) -> (Vec<u8>, usize) {
    let v = vec![fill; len + 4096];
    let off = v.as_ptr().align_offset(4096);
    (v, off)
}

fn open_direct(p: &Path, write: bool) -> File {
    OpenOptions::new().read(true).write(write).custom_flags(libc::O_DIRECT).open(p).unwrap()
}

/// `threads` threads each write `per_thread` blocks of `bs` with O_DIRECT, sequentially in
/// their own region of `file`. Returns the wall time in ns.
fn concurrent_direct_writes(file: &Path, threads: u64, per_thread: u64, bs: usize) -> u64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for i in 0..threads {
            s.spawn(move || {
                let f = open_direct(file, true);
                let (v, off) = aligned(bs, 0xa5);
                for k in 0..per_thread {
                    let pos = (i * per_thread + k) * bs as u64;
                    f.write_all_at(&v[off..off + bs], pos).unwrap();
                }
            });
        }
    });
    t.elapsed().as_nanos() as u64
}

/// One synthetic job per writer thread, as the engine would report a sync-engine thread.
fn writer_jobs(n: u32, per_thread: u64, groupid: u32) -> Vec<JobResult> {
    (0..n)
        .map(|i| {
            let mut j = JobResult {
                name: "randwrite-threads".into(),
                jobidx: i,
                groupid,
                ..Default::default()
            };
            j.write.total_ios = per_thread;
            j.depth.exact = vec![(1, per_thread)];
            j
        })
        .collect()
}

/// Device figures of the two phases, with the advice for them.
struct Phases {
    dev: String,
    hole: iolab_stats::DiskUtil,
    over: iolab_stats::DiskUtil,
    advice: Vec<iolab_advice::Advice>,
}

/// `fs` on a loop device (direct-io to a backing file on the host disk); eight threads write
/// a file with O_DIRECT twice: first into holes of a sparse file, then over the blocks the
/// first pass wrote. `None` (with the reason printed) when the setup is not possible here.
#[allow(clippy::too_many_lines)] // test set-up: loop device, mkfs, mount, two write passes, read as one story
fn threads_on_fs(fs: &str) -> Option<Phases> {
    if !is_root() {
        eprintln!("skipped: loop devices and mount need root");
        return None;
    }
    let mkfs = format!("mkfs.{fs}");
    let d = scratch(fs);
    let img = d.join("backing.img");
    // mkfs.xfs refuses filesystems under 300 MiB.
    File::create(&img).unwrap().set_len(512 << 20).unwrap();
    let Some(lo) = Loop::attach(&img, true) else {
        eprintln!("skipped: losetup -f --direct-io=on failed (no loop support here)");
        return None;
    };
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let force = if fs == "xfs" { "-f" } else { "-F" };
    if sh(&mkfs, &["-q", force, &lo.dev]).is_none() {
        eprintln!("skipped: {mkfs} unavailable or failed");
        return None;
    }
    if sh("mount", &[&lo.dev, mnt.to_str().unwrap()]).is_none() {
        eprintln!("skipped: mounting {fs} failed (no {fs} in this kernel?)");
        return None;
    }
    let m = Mount { dir: mnt.clone() };
    let file = mnt.join("file1");
    let (threads, per, bs) = (8u64, 160u64, 8192usize);
    let size = threads * per * bs as u64;

    let topo = resolve(&mnt).unwrap();
    assert_eq!(topo.fs.as_ref().unwrap().fs_type, fs);
    assert_eq!(topo.devices()[0], lo.name());

    let mut sampler = DiskSeriesSampler::new(topo.devices());
    let t0 = Instant::now();
    let now = || Nanos(t0.elapsed().as_nanos() as u64);
    sampler.tick(now()).unwrap();

    // Phase 0: holes (a sparse file of the full size).
    File::create(&file).unwrap().set_len(size).unwrap();
    let p0 = now();
    concurrent_direct_writes(&file, threads, per, bs);
    let p0_end = now();
    sampler.tick(p0_end).unwrap();

    // Phase 1: the same writes over the blocks phase 0 allocated and wrote.
    File::open(&file).unwrap().sync_all().unwrap();
    let p1 = now();
    sampler.tick(p1).unwrap();
    concurrent_direct_writes(&file, threads, per, bs);
    let p1_end = now();
    sampler.tick(p1_end).unwrap();

    let w0 = sampler.window(p0, p0_end);
    let w1 = sampler.window(p1, p1_end);
    let hole = w0.iter().find(|u| u.name == lo.name()).unwrap().clone();
    let over = w1.iter().find(|u| u.name == lo.name()).unwrap().clone();
    eprintln!("{fs} hole-filling: {}", iolab_stats::diskseries::iostat_line(&hole));
    eprintln!("{fs} overwrite:    {}", iolab_stats::diskseries::iostat_line(&over));
    assert!(hole.write_ios >= threads * per, "{hole:?}");
    assert!(over.write_ios >= threads * per, "{over:?}");

    let mut r = RunResult::default();
    r.jobs.extend(writer_jobs(threads as u32, per, 0));
    r.jobs.extend(writer_jobs(threads as u32, per, 1));
    let je = |alloc| JobEvidence {
        ioengine: "sync".into(),
        direct: true,
        iodepth: 1,
        fs_type: Some(fs.into()),
        devices: vec![lo.name()],
        write_alloc: alloc,
        working_set_bytes: size,
        ..Default::default()
    };
    let mut ev = Evidence::default();
    ev.jobs.extend((0..threads).map(|_| je(WriteAlloc::HoleFilling)));
    ev.jobs.extend((0..threads).map(|_| je(WriteAlloc::Overwrite)));
    ev.phases = vec![
        PhaseEvidence {
            groupid: 0,
            start_ns: p0.0,
            end_ns: p0_end.0,
            devices: w0,
            devices_inner: vec![],
        },
        PhaseEvidence {
            groupid: 1,
            start_ns: p1.0,
            end_ns: p1_end.0,
            devices: w1,
            devices_inner: vec![],
        },
    ];
    let advice = check(&r, &ev);
    eprintln!("{}", render_text(&advice));
    let dev = lo.name();
    drop(m);
    drop(lo);
    std::fs::remove_dir_all(&d).unwrap();
    Some(Phases { dev, hole, over, advice })
}

/// ext4, then XFS (when xfsprogs is installed), one after the other so they do not compete
/// for the CPUs. On ext4 the eight hole-filling writers are serialised on the inode's
/// i_rwsem: the device sees about one write in flight, well under what the same
/// threads reach when overwriting, and the depth check flags that phase naming ext4's lock.
/// XFS takes its iolock shared for aligned O_DIRECT writes even when they allocate, so its
/// hole-filling phase keeps several writes in flight. Absolute depths depend on how much CPU
/// the eight threads get on a shared host, so only the serialised case is compared with an
/// absolute bound; the others are compared with each other.
#[test]
fn ext4_serialises_hole_filling_direct_writers_and_xfs_does_not() {
    let Some(e) = threads_on_fs("ext4") else { return };
    assert!(e.hole.iostat.aqu_sz < 1.3, "hole-filling writes should be serialised: {:?}", e.hole);
    assert!(
        e.over.iostat.aqu_sz > 1.5 * e.hole.iostat.aqu_sz,
        "overwrites should run concurrently: {:.2} vs {:.2}",
        e.over.iostat.aqu_sz,
        e.hole.iostat.aqu_sz
    );
    let depth: Vec<_> = e.advice.iter().filter(|a| a.id == "depth_not_reached").collect();
    assert!(!depth.is_empty(), "{:?}", e.advice);
    assert_eq!(depth[0].subject, "group 0");
    assert!(depth[0].why.contains("i_rwsem exclusively"));
    assert!(depth[0].evidence.contains(&format!("{} aqu-sz", e.dev)));
    // If the overwrite phase is flagged at all (CPU starvation on a busy host), ext4's lock is
    // not blamed for it: its writes were overwrites.
    assert!(depth.iter().skip(1).all(|a| !a.why.contains("i_rwsem")), "{depth:?}");

    let Some(x) = threads_on_fs("xfs") else { return };
    assert!(
        x.hole.iostat.aqu_sz > 1.5 * e.hole.iostat.aqu_sz,
        "xfs hole-filling writes should run concurrently: xfs {:.2} vs ext4 {:.2}",
        x.hole.iostat.aqu_sz,
        e.hole.iostat.aqu_sz
    );
    assert!(x.advice.iter().all(|a| !a.why.contains("i_rwsem")), "{:?}", x.advice);
}

/// The TID of the calling thread, from `/proc/thread-self` (a link to `PID/task/TID`).
fn tid() -> String {
    let l = std::fs::read_link("/proc/thread-self").unwrap();
    l.file_name().unwrap().to_string_lossy().into_owned()
}

/// Three loop devices under one "job" (two reader threads each); one of them (`slow`) is a
/// loop device over another loop device whose reads are limited to 100 IOPS by a blkio
/// cgroup. The throttle waits before the lower device accounts a request, so it shows up as
/// await on `slow`: the outlier check must name `slow` and only it.
#[allow(clippy::too_many_lines)] // test: three loop devices and a blkio throttle set up and checked in one place
#[test]
fn throttled_device_among_three_is_the_outlier() {
    if !is_root() {
        eprintln!("skipped: loop devices and cgroups need root");
        return;
    }
    let cg_root = Path::new("/sys/fs/cgroup/blkio");
    if !cg_root.join("blkio.throttle.read_iops_device").exists() {
        eprintln!("skipped: no cgroup v1 blkio throttling at {}", cg_root.display());
        return;
    }
    let d = scratch("outlier");
    let mk = |name: &str| {
        let p = d.join(name);
        let (v, off) = aligned(1 << 20, 0x5a);
        let f = File::create(&p).unwrap();
        for k in 0..16u64 {
            f.write_all_at(&v[off..off + (1 << 20)], k << 20).unwrap();
        }
        f.sync_all().unwrap();
        p
    };
    let (fa, fb, fs) = (mk("a.img"), mk("b.img"), mk("s.img"));
    let (Some(a), Some(b), Some(lower)) =
        (Loop::attach(&fa, true), Loop::attach(&fb, true), Loop::attach(&fs, true))
    else {
        eprintln!("skipped: losetup failed");
        return;
    };
    let Some(slow) = Loop::attach(Path::new(&lower.dev), false) else {
        eprintln!("skipped: losetup over a loop device failed");
        return;
    };
    let t = resolve(Path::new(&slow.dev)).unwrap();
    let n = t.device.as_ref().unwrap();
    assert_eq!(n.kind, DevKind::Loop { backing_file: Some(PathBuf::from(&lower.dev)) });
    assert_eq!(n.children[0].name, lower.name());
    assert!(matches!(n.children[0].kind, DevKind::Loop { .. }));

    let cg = cg_root.join(format!("iolab-advice-{}", std::process::id()));
    std::fs::create_dir_all(&cg).unwrap();
    let majmin = std::fs::read_to_string(format!("/sys/block/{}/dev", lower.name())).unwrap();
    std::fs::write(cg.join("blkio.throttle.read_iops_device"), format!("{} 100", majmin.trim()))
        .unwrap();

    let names = vec![a.name(), b.name(), slow.name()];
    let mut sampler = DiskSeriesSampler::new(names.clone());
    let t0 = Instant::now();
    sampler.tick(Nanos(0)).unwrap();
    let tasks = cg.join("tasks");
    std::thread::scope(|s| {
        for dev in [&a.dev, &b.dev, &slow.dev] {
            for k in 0..2u64 {
                let tasks = &tasks;
                s.spawn(move || {
                    std::fs::write(tasks, tid()).unwrap();
                    let f = open_direct(Path::new(dev), false);
                    let (mut v, off) = aligned(4096, 0);
                    for i in 0..60u64 {
                        // A fixed stride over 16 MiB so every device sees the same offsets.
                        let blk = (i * 97 + k * 13) % 4096;
                        f.read_exact_at(&mut v[off..off + 4096], blk * 4096).unwrap();
                    }
                });
            }
        }
    });
    let end = Nanos(t0.elapsed().as_nanos() as u64);
    let series = sampler.finish(end).unwrap();
    // The reader threads have exited, but the kernel may not have reaped them from the
    // group yet: retry the removal briefly.
    for _ in 0..50 {
        if std::fs::remove_dir(&cg).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    for dname in &names {
        let s = series.device(dname).unwrap();
        eprintln!("{}", iolab_stats::diskseries::iostat_line(&s.summary));
        assert_eq!(s.summary.read_ios, 120, "{dname}: {:?}", s.summary);
    }
    let mut r = RunResult::default();
    r.jobs.push(JobResult { name: "stripe".into(), ..Default::default() });
    r.disk_util = series.devices.iter().map(|d| d.summary.clone()).collect();
    let ev = Evidence {
        jobs: vec![JobEvidence { direct: true, devices: names.clone(), ..Default::default() }],
        ..Default::default()
    };
    let adv = check(&r, &ev);
    eprintln!("{}", render_text(&adv));
    let out: Vec<_> = adv.iter().filter(|a| a.id == "device_outlier").collect();
    assert_eq!(out.len(), 1, "{adv:?}");
    assert_eq!(out[0].subject, format!("device {}", slow.name()));
    drop(slow);
    drop(lower);
    drop((a, b));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `RunWatch` around O_DIRECT reads of a file: it resolves the file's device, samples it each
/// interval, and attributes the device's reads to the job's phase. No root needed.
#[test]
fn run_watch_samples_the_device_under_a_file() {
    use iolab_advice::{RunWatch, WatchConfig};
    let d = scratch("watch");
    let f = d.join("data");
    {
        let (v, off) = aligned(1 << 20, 0x33);
        let file = File::create(&f).unwrap();
        for k in 0..8u64 {
            file.write_all_at(&v[off..off + (1 << 20)], k << 20).unwrap();
        }
        file.sync_all().unwrap();
    }
    let topo = resolve(&f).unwrap();
    let Some(dev) = topo.device.as_ref().map(|d| d.name.clone()) else {
        eprintln!("skipped: {} is not on a block device", f.display());
        return;
    };
    let opts = iolab_job::LoadOptions {
        cmdline: vec!["--name=rd".into(), "--rw=randread".into(), "--direct=1".into()],
        ..Default::default()
    };
    let jobs = iolab_job::load(&opts).unwrap().jobs;
    let cfg = WatchConfig { interval: std::time::Duration::from_millis(50), ..Default::default() };
    let w = RunWatch::start(&jobs, vec![vec![f.clone()]], cfg);
    let probe = w.zero_probe(0).unwrap();
    let t0 = Instant::now();
    let file = open_direct(&f, false);
    let (mut v, off) = aligned(4096, 0);
    let mut n = 0u64;
    while t0.elapsed().as_millis() < 300 {
        file.read_exact_at(&mut v[off..off + 4096], (n * 37 % 2048) * 4096).unwrap();
        if n % w.zero_sample_every() == 0 {
            probe.observe(&v[off..off + 4096]);
        }
        n += 1;
    }
    let elapsed = t0.elapsed().as_nanos() as u64;
    let mut r = RunResult::default();
    let mut j = JobResult {
        name: "rd".into(),
        elapsed_ns: elapsed,
        runtime_ns: elapsed,
        ..Default::default()
    };
    j.read.total_ios = n;
    j.read.io_bytes = n * 4096;
    r.jobs.push(j);
    let rep = w.finish(&mut r);
    let s = rep.series.device(&dev).unwrap();
    assert!(s.points.len() >= 4, "{} intervals", s.points.len());
    assert!(s.summary.read_ios >= n, "{} device reads < {n} app reads", s.summary.read_ios);
    let e = &rep.evidence.jobs[0];
    assert_eq!(e.devices, vec![dev.clone()]);
    assert_eq!(e.fs_type.as_deref(), topo.fs.as_ref().map(|f| f.fs_type.as_str()));
    assert_eq!(e.zero_reads.unwrap().sampled, n.div_ceil(16));
    assert_eq!(e.zero_reads.unwrap().all_zero, 0);
    let phase_dev = rep.evidence.phases[0].devices.iter().find(|u| u.name == dev).unwrap();
    assert!(phase_dev.read_ios >= n, "{phase_dev:?}");
    assert!(!r.disk_util.is_empty());
    eprintln!("{}", iolab_advice::render_device_view(&r, &rep.evidence));
    std::fs::remove_dir_all(&d).unwrap();
}
