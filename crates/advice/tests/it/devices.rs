//! iolab-advice on devices (root): a blkio-throttled device among three is the outlier; the watch
//! samples the device under a file.

use crate::common::*;
use iolab_advice::{check, render_text, Evidence, JobEvidence};
use iolab_core::Nanos;
use iolab_stats::diskseries::DiskSeriesSampler;
use iolab_stats::topology::{resolve, DevKind};
use iolab_stats::{JobResult, RunResult};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
