//! `iolab run` end to end with the device view and the advice checks (crate iolab-advice):
//! the built binary runs real jobs on temporary files and loop devices, and the tests read
//! what a user reads (the advice blocks after the summary, the JSON `advice` array).
//! Loop-device tests need root and `losetup`; each prints why it skipped when not possible.
#![allow(clippy::unwrap_used)]

use iolab_test_support::{is_root, mkfs, LoopDev, Mount};
use std::path::{Path, PathBuf};
use std::process::Command;

fn iolab(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.arg("run").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "iolab run {args:?} failed:\n{out}\n{err}");
    (out, err)
}

fn scratch(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-advice-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A loop device (iolab-test-support's, detached on drop) and its path.
struct Loop(String, #[allow(dead_code, reason = "held to detach the device on drop")] LoopDev);

impl Loop {
    fn attach(backing: &Path, direct_io: bool) -> Option<Loop> {
        let lo = LoopDev::over(backing, direct_io).ok()?;
        Some(Loop(lo.device().display().to_string(), lo))
    }
}

/// Buffered random reads of a 16 MiB file that fits in RAM: the page-cache warning, with the
/// application's and the device's bytes; the same job with direct=1: no warning.
#[test]
fn buffered_read_of_a_small_file_warns_about_the_page_cache_and_direct_does_not() {
    let d = scratch("pc");
    let f = d.join("small.dat");
    let fname = format!("--filename={}", f.display());
    let base = [
        "--name=br",
        &fname,
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--runtime=1",
        "--time_based",
    ];
    let (out, _) = iolab(&base, &[]);
    assert!(
        out.contains("[page_cache] group 0: buffered I/O was served by the page cache"),
        "{out}"
    );
    assert!(out.contains("is smaller than RAM"), "{out}");
    let mut direct = base.to_vec();
    direct.push("--direct=1");
    let (out, _) = iolab(&direct, &[]);
    assert!(!out.contains("[page_cache]"), "{out}");
    assert!(out.contains("Device view, group 0"), "{out}");
    // A declared 1 GiB controller cache holds the 16 MiB working set even with direct=1.
    direct.push("--cache-size=1g");
    let (out, _) = iolab(&direct, &[]);
    assert!(
        out.contains("[page_cache] group 0: the working set fits in the declared cache"),
        "{out}"
    );
    assert!(out.contains("working set 16.0 MiB < declared cache 1024.0 MiB"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Random reads of a sparse, never-written loop device return zeros: the zero-read warning
/// tells the user to prefill. With `--prefill` the region is written first and the warning
/// is gone. The JSON output carries the finding in `advice`.
#[test]
fn sparse_loop_device_reads_zeros_until_prefilled() {
    if !is_root() {
        eprintln!("skipped: loop devices need root");
        return;
    }
    let d = scratch("zero");
    let img = d.join("thin.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    let Some(lo) = Loop::attach(&img, false) else {
        eprintln!("skipped: losetup -f failed (no loop support here)");
        return;
    };
    let fname = format!("--filename={}", lo.0);
    let base = [
        "--name=thin",
        &fname,
        "--rw=randread",
        "--bs=4k",
        "--direct=1",
        "--runtime=1",
        "--time_based",
    ];
    let (out, _) = iolab(&base, &[]);
    assert!(out.contains("[zero_reads]"), "{out}");
    assert!(out.contains("100.0% of sampled reads returned all-zero blocks"), "{out}");
    assert!(out.contains("--prefill"), "{out}");
    let mut json = base.to_vec();
    json.push("--output-format=json");
    let (out, err) = iolab(&json, &[]);
    assert!(err.contains("[zero_reads]"), "advice goes to stderr with machine formats: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let adv = v["iolab_advice"].as_array().unwrap();
    assert_eq!(adv[0]["id"], "zero_reads");
    assert_eq!(adv[0]["severity"], "warning");
    let dev = lo.0.trim_start_matches("/dev/");
    let series = v["iolab_disk_series"].as_array().unwrap();
    let s = series.iter().find(|d| d["name"] == dev).unwrap();
    assert!(!s["intervals"].as_array().unwrap().is_empty());
    assert!(v["disk_util"].as_array().unwrap().iter().any(|d| d["name"] == dev));
    let mut pre = base.to_vec();
    pre.push("--prefill");
    let (out, err) = iolab(&pre, &[]);
    let both = format!("{out}{err}");
    assert_eq!(both.matches("prefilled [0, 67108864)").count(), 1, "said once: {both}");
    assert!(out.contains("note: ") && out.contains("prefilled [0, 67108864)"), "{out}");
    assert!(!out.contains("[zero_reads]"), "{out}");
    // The device view names what backs the loop device and shows the disk under it.
    let img = std::fs::canonicalize(&img).unwrap();
    let backed = format!("{dev} is backed by {}, on ", img.display());
    assert!(out.contains(&backed), "{out}");
    drop(lo);
    std::fs::remove_dir_all(&d).unwrap();
}

/// The newcomer review's scenario 3 on a filesystem of the test's own: libaio QD8 random
/// reads of a sparse file on ext4 over a loop device. The filesystem answers the holes
/// without device I/O, so the device's queue stays empty: `depth_not_reached` names the
/// never-written blocks as the cause, not ext4's block mapping or a thread short of CPU.
#[test]
fn depth_shortfall_on_a_sparse_file_names_the_never_written_blocks() {
    if !is_root() {
        eprintln!("skipped: loop devices and mount need root");
        return;
    }
    let d = scratch("holes");
    let img = d.join("backing.img");
    std::fs::File::create(&img).unwrap().set_len(256 << 20).unwrap();
    let Some(lo) = Loop::attach(&img, true) else {
        eprintln!("skipped: losetup --direct-io=on failed");
        return;
    };
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let dev = Path::new(&lo.0);
    let Some(m) = mkfs("ext4", dev, &[]).and_then(|()| Mount::new(dev, &mnt, &[])).ok() else {
        eprintln!("skipped: mkfs.ext4 or mount failed");
        return;
    };
    let f = mnt.join("sparse.dat");
    std::fs::File::create(&f).unwrap().set_len(128 << 20).unwrap();
    let fname = format!("--filename={}", f.display());
    let args = [
        "--name=holes",
        &fname,
        "--rw=randread",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=8",
        "--direct=1",
        "--runtime=1",
        "--time_based",
    ];
    let (out, _) = iolab(&args, &[]);
    drop(m);
    drop(lo);
    std::fs::remove_dir_all(&d).unwrap();
    assert!(out.contains("[zero_reads]"), "{out}");
    let depth = out.split("[depth_not_reached]").nth(1).unwrap_or_else(|| panic!("{out}"));
    let depth = depth.split("  warning [").next().unwrap_or(depth);
    let depth = depth.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(depth.contains("reads of never-written"), "{depth}");
    assert!(!depth.contains("block mapping at") && !depth.contains("short of CPU"), "{depth}");
}

/// `runnable-threads-vs-aio.fio` (runtime shortened to 1 s per phase) on ext4 on a loop device:
/// the device view reports the depth each phase reached, and the eight sync threads writing a
/// new (sparse) file are flagged as serialised, naming ext4's i_rwsem.
#[test]
fn threads_vs_aio_on_ext4_reports_depth_per_phase_and_flags_the_threads() {
    if !is_root() {
        eprintln!("skipped: loop devices and mount need root");
        return;
    }
    let d = scratch("ext4");
    let img = d.join("backing.img");
    std::fs::File::create(&img).unwrap().set_len(512 << 20).unwrap();
    let Some(lo) = Loop::attach(&img, true) else {
        eprintln!("skipped: losetup --direct-io=on failed");
        return;
    };
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let dev = Path::new(&lo.0);
    let Some(m) = mkfs("ext4", dev, &[]).and_then(|()| Mount::new(dev, &mnt, &[])).ok() else {
        eprintln!("skipped: mkfs.ext4 or mount failed");
        return;
    };
    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/jobs/runnable-threads-vs-aio.fio");
    let text = std::fs::read_to_string(&shared).unwrap().replace("runtime=5", "runtime=1");
    let job = d.join("threads-vs-aio.fio");
    std::fs::write(&job, text).unwrap();
    let (out, _) = iolab(&[job.to_str().unwrap()], &[("TESTDIR", mnt.to_str().unwrap())]);
    eprintln!("{out}");
    let dev = lo.0.trim_start_matches("/dev/");
    assert!(out.contains("Device view, group 0 (8 job(s) from 'randwrite-threads'"), "{out}");
    assert!(out.contains("Device view, group 1 (1 job(s) from 'randwrite-aio'"), "{out}");
    assert!(out.contains(&format!("  {dev} ")), "{out}");
    assert!(
        out.contains("[depth_not_reached] group 0: issued depth 8.00, the device saw"),
        "{out}"
    );
    assert!(out.contains("i_rwsem exclusively"), "{out}");
    drop(m);
    drop(lo);
    // The backing file holds thousands of extents from the random writes, and the host's
    // root filesystem is mounted with `discard`: deleting it takes tens of seconds, so it is
    // left to a background rm.
    let _ = Command::new("rm").arg("-rf").arg(&d).spawn();
}

/// One job over three loop devices (`filename=a:b:s`, one shared queue, round robin), where
/// `s` is a loop device over a loop device whose reads a blkio cgroup limits to 200 IOPS:
/// `iolab run`, started inside that cgroup, flags `s` as the outlier and only `s`.
#[test]
fn multi_device_job_flags_the_throttled_device() {
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
    let data: Vec<u8> =
        (0..(16u32 << 20)).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let mk = |n: &str| {
        let p = d.join(n);
        std::fs::write(&p, &data).unwrap();
        p
    };
    let (fa, fb, fs) = (mk("a.img"), mk("b.img"), mk("s.img"));
    let (Some(a), Some(b), Some(lower)) =
        (Loop::attach(&fa, true), Loop::attach(&fb, true), Loop::attach(&fs, true))
    else {
        eprintln!("skipped: losetup failed");
        return;
    };
    let Some(slow) = Loop::attach(Path::new(&lower.0), false) else {
        eprintln!("skipped: losetup over a loop device failed");
        return;
    };
    let cg = cg_root.join(format!("iolab-cli-advice-{}", std::process::id()));
    std::fs::create_dir_all(&cg).unwrap();
    let lname = lower.0.trim_start_matches("/dev/");
    let majmin = std::fs::read_to_string(format!("/sys/block/{lname}/dev")).unwrap();
    std::fs::write(cg.join("blkio.throttle.read_iops_device"), format!("{} 200", majmin.trim()))
        .unwrap();
    let cmd = format!(
        "echo $$ > {}; exec {} run --name=stripe --filename={}:{}:{} --rw=randread --bs=4k \
         --direct=1 --ioengine=io_uring --iodepth=6 --runtime=1 --time_based",
        cg.join("cgroup.procs").display(),
        env!("CARGO_BIN_EXE_iolab"),
        a.0,
        b.0,
        slow.0
    );
    let o = Command::new("sh").arg("-c").arg(&cmd).output().unwrap();
    let _ = std::fs::remove_dir(&cg);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    eprintln!("{out}");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sname = slow.0.trim_start_matches("/dev/");
    assert!(out.contains(&format!("[device_outlier] device {sname}: await")), "{out}");
    assert_eq!(out.matches("[device_outlier]").count(), 1, "{out}");
    drop(slow);
    drop(lower);
    drop((a, b));
    std::fs::remove_dir_all(&d).unwrap();
}

/// fio's steadystate: a 30 s time-based null-engine job with `ss=iops:50%` over `ss_dur=2`
/// ends as soon as two one-second IOPS samples agree within 50 %, and the JSON reports the
/// attained window (fio's `steadystate` object) and the note says the job was ended.
#[test]
fn steady_state_job_stops_when_the_criterion_holds_and_reports_the_window() {
    let args = [
        "--name=ss",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--time_based",
        "--runtime=30",
        "--ss=iops:50%",
        "--ss_dur=2",
        "--output-format=json",
    ];
    let t = std::time::Instant::now();
    let (out, err) = iolab(&args, &[]);
    assert!(t.elapsed().as_secs() < 15, "the job ran {:?} of its 30 s", t.elapsed());
    assert!(err.contains("job ss: steady state attained (iops:50%"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ss = &v["jobs"][0]["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss}");
    assert_eq!(ss["duration"], 2, "{ss}");
    assert_eq!(ss["data"]["iops"].as_array().unwrap().len(), 2, "{ss}");
    assert!(v["jobs"][0]["job_runtime"].as_u64().unwrap() < 15_000);
    let adv = v["iolab_advice"].as_array().unwrap();
    let s = adv.iter().find(|a| a["id"] == "steady_state").unwrap();
    assert!(s["evidence"].as_str().unwrap().contains("fio criterion ss=iops:50% attained"), "{s}");
}

/// Issue 13 item 4: the advice regenerates the bytes the engine wrote (one data seed), for
/// fio's default data, a compressible job and a refill job.
#[test]
fn advice_regenerates_the_blocks_the_engine_wrote() {
    let d = tempfile::tempdir_in(".").unwrap();
    for (i, extra) in
        ["--bs=4k", "--buffer_compress_percentage=50", "--refill_buffers=1"].iter().enumerate()
    {
        let f = d.path().join(format!("w{i}"));
        let fname = format!("--filename={}", f.display());
        let args = ["--name=w", "--rw=write", "--bs=4k", "--size=256k", "--ioengine=psync", *extra];
        let mut a = args.to_vec();
        a.push(&fname);
        iolab(&a, &[]);
        let written = std::fs::read(&f).unwrap();
        let opts = iolab_job::LoadOptions {
            cmdline: a.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let job = iolab_job::load(&opts).unwrap().jobs.remove(0);
        let blocks =
            iolab_advice::from_job::written_blocks(&job, 256 << 10, |b| b.to_vec()).unwrap();
        let regenerated: Vec<u8> = blocks.into_iter().flat_map(|(b, _)| b).collect();
        assert_eq!(regenerated.len(), written.len(), "{extra}");
        let first_diff = regenerated.iter().zip(&written).position(|(a, b)| a != b);
        assert_eq!(first_diff, None, "{extra}: regenerated data differs from the file");
    }
}

/// The newcomer review's scenario 4: a loop device behind a cgroup block I/O throttle. QD16
/// libaio reads at 400 IOPS reach the device a few at a time; `depth_not_reached` names the
/// throttle (its cgroup, device and limit) as the cause, not the filesystem or the CPU.
#[test]
fn a_depth_shortfall_behind_a_throttle_names_the_throttle() {
    use iolab_test_support::{or_skip, Throttle};
    let Some(lo) = or_skip(LoopDev::new_in(Path::new("."), 64 << 20, true)) else { return };
    let Some(mm) = or_skip(lo.majmin()) else { return };
    let Some(th) = or_skip(Throttle::new("depth", &mm, [400, 0, 0, 0])) else { return };
    let dev = lo.device().display().to_string();
    let cmd = format!(
        "echo $$ > {} && exec {} run --name=capped --filename={dev} --rw=randread --bs=4k \
         --direct=1 --ioengine=libaio --iodepth=16 --runtime=2 --time_based",
        th.procs().display(),
        env!("CARGO_BIN_EXE_iolab")
    );
    let o = Command::new("sh").args(["-c", &cmd]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let iops: f64 = out
        .split("IOPS=")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!((300.0..=440.0).contains(&iops), "the throttle held the run: {iops} IOPS\n{out}");
    assert!(out.contains("[depth_not_reached]"), "{out}");
    let name = dev.trim_start_matches("/dev/");
    let cause =
        format!("the block I/O throttle of cgroup {} caps {name} at riops=400", th.dir().display());
    assert!(
        out.replace('\n', " ").split_whitespace().collect::<Vec<_>>().join(" ").contains(&cause),
        "{out}"
    );
}
