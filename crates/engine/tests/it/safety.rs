//! Device safety and region arithmetic on real loop devices (root only; each test prints
//! `skip: <why>` and returns without root, losetup or the mkfs tool it needs): a mounted
//! device is refused whatever `--allow-destroy` says, a device carrying any signature
//! `blkid -p` knows is refused without `--allow-destroy`, an overflowing offset is refused,
//! and fio's rule for a sequential region that is not a multiple of `bs` (checked against the
//! installed fio).

use crate::common::load;
use iolab_engine::blkid::Blkid;
use iolab_engine::runner::{run_jobs, RunOptions, RunOutput};
use iolab_engine::safety::{check_block_write_with, WriteGrant};
use iolab_engine::target::open_replay_target;
use iolab_job::Job;
use iolab_test_support::{empty_stdin, have, sink, LoopDev, Mount};
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A loop device (with partition scanning) over a backing file (iolab-test-support's,
/// detached on drop).
struct Loop {
    dev: String,
    _lo: LoopDev,
}

fn attach(backing: &Path) -> Result<Loop, String> {
    let lo = LoopDev::attach(backing, &["-P"]).map_err(|e| e.to_string())?;
    Ok(Loop { dev: lo.device().display().to_string(), _lo: lo })
}

/// A sparse backing file of `mib` MiB and a loop device over it.
fn blank(d: &Path, name: &str, mib: u64) -> Result<(PathBuf, Loop), String> {
    let backing = d.join(name);
    std::fs::File::create(&backing).unwrap().set_len(mib << 20).unwrap();
    let lo = attach(&backing)?;
    Ok((backing, lo))
}

fn sh(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.stdin(empty_stdin().unwrap()).output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// `sfdisk DEV` with a script on stdin.
fn sfdisk(dev: &str, script: &str) -> Result<(), String> {
    use std::io::Write;
    let mut c = Command::new("sfdisk")
        .args(["-q", "--no-reread", dev])
        .stdin(Stdio::piped())
        .stdout(sink().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("sfdisk: {e}"))?;
    c.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = c.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(format!("sfdisk: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    // Let the kernel see the new table (the loop device has partition scanning).
    let _ = Command::new("blockdev").args(["--rereadpt", dev]).status();
    Ok(())
}

/// A digest of the whole backing file, after flushing what the kernel holds.
fn digest(p: &Path) -> u64 {
    use std::io::Read;
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    let mut f = std::fs::File::open(p).unwrap();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            return h.finish();
        }
        h.write(&buf[..n]);
    }
}

fn run(jobs: &[Job], allow_destroy: bool) -> Result<RunOutput, String> {
    let opts = RunOptions { allow_destroy, ..RunOptions::default() };
    run_jobs(jobs, &opts, Arc::new(AtomicBool::new(false)), None).map_err(|e| e.to_string())
}

fn write_job(d: &Path, target: &str, extra: &[&str]) -> Vec<Job> {
    let f = format!("--filename={target}");
    let mut a = vec!["--name=w", f.as_str(), "--rw=write", "--bs=64k", "--size=1m"];
    a.extend_from_slice(extra);
    load(&[], &a, d)
}

#[test]
fn mounted_ext4_is_refused_even_with_allow_destroy() {
    let d = tempfile::tempdir().unwrap();
    let (backing, lo) = match blank(d.path(), "ext4.img", 64) {
        Ok(x) => x,
        Err(why) => return eprintln!("skip: {why}"),
    };
    if !have("mkfs.ext4") {
        return eprintln!("skip: no mkfs.ext4");
    }
    // No lazy init: a freshly mounted ext4 would otherwise keep writing in the background.
    let opts = "lazy_itable_init=0,lazy_journal_init=0";
    sh(Command::new("mkfs.ext4").args(["-q", "-F", "-E", opts, &lo.dev])).unwrap();
    let mnt = d.path().join("mnt point");
    std::fs::create_dir(&mnt).unwrap();
    if let Err(e) = sh(Command::new("mount").args(["-o", "noatime", &lo.dev]).arg(&mnt)) {
        return eprintln!("skip: cannot mount ({e})");
    }
    let _m = Mount::adopt(&mnt);
    let link = d.path().join("disk-link");
    std::os::unix::fs::symlink(&lo.dev, &link).unwrap();
    let before = digest(&backing);
    let link = link.display().to_string();
    let attempts: [(&str, &[&str], bool); 5] = [
        (&lo.dev, &[], false),
        (&lo.dev, &[], true),
        (&lo.dev, &["--rw=randtrim"], true),
        (&link, &[], true),
        (&link, &["--verify=crc32c"], true),
    ];
    for (target, extra, destroy) in attempts {
        let e = run(&write_job(d.path(), target, extra), destroy).err().unwrap_or_default();
        assert!(e.contains("mounted"), "{target} {extra:?}: {e}");
        assert!(e.contains(&format!("on {}", mnt.display())), "{e}");
        assert!(e.contains("allow_mounted_write=1"), "{e}");
    }
    // --prefill writes the region before a read job: refused the same way.
    let jobs = load(&[], &["--name=r", &format!("--filename={link}"), "--rw=read"], d.path());
    let opts = RunOptions { allow_destroy: true, prefill: true, ..RunOptions::default() };
    let e = run_jobs(&jobs, &opts, Arc::new(AtomicBool::new(false)), None).unwrap_err();
    assert!(e.to_string().contains("mounted"), "{e}");
    assert_eq!(digest(&backing), before, "a refused write changed the device");

    // Reads of a mounted device are fine.
    let r = run(&write_job(d.path(), &lo.dev, &["--rw=read"]), false).unwrap();
    assert_eq!(r.result.jobs[0].read.io_bytes, 1 << 20);

    // allow_mounted_write=1 is the way through, with a warning in the notes.
    let extra = ["--allow_mounted_write=1", "--offset=48m", "--direct=1"];
    let out = run(&write_job(d.path(), &lo.dev, &extra), false).unwrap();
    assert_eq!(out.result.jobs[0].write.io_bytes, 1 << 20);
    let shown = format!("{:?}", out.result);
    assert!(shown.contains("allow_mounted_write=1: writing although it is mounted"), "{shown}");
    assert_ne!(digest(&backing), before);
}

/// Puts one signature on a fresh loop device: (tempdir, device, backing file).
type Maker = fn(&Path, &str, &Path) -> Result<(), String>;

fn makers() -> Vec<(&'static str, &'static str, u64, Maker)> {
    vec![
        (
            "mkfs.ext4",
            "ext4",
            32,
            |_, dev, _| sh(Command::new("mkfs.ext4").args(["-q", "-F", dev])),
        ),
        ("mkfs.minix", "minix", 32, |_, dev, _| sh(Command::new("mkfs.minix").arg(dev))),
        ("mkfs.bfs", "bfs", 32, |_, dev, _| sh(Command::new("mkfs.bfs").arg(dev))),
        ("mkswap", "swap", 32, |_, dev, _| sh(Command::new("mkswap").arg(dev))),
        ("mkfs.xfs", "xfs", 320, |_, dev, _| sh(Command::new("mkfs.xfs").args(["-q", "-f", dev]))),
        ("sfdisk", "dos", 32, |_, dev, _| sfdisk(dev, "label: dos\n,8MiB\n")),
        ("sfdisk", "gpt", 32, |_, dev, _| sfdisk(dev, "label: gpt\n,8MiB\n")),
        ("mkfs.cramfs", "cramfs", 32, |d, dev, _| {
            // cramfs is built from a directory into an image: write it onto the device.
            let src = d.join("cramfs-src");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(src.join("hello"), b"hello").unwrap();
            let img = d.join("cramfs-image.bin");
            sh(Command::new("mkfs.cramfs").arg(&src).arg(&img))?;
            let bytes = std::fs::read(&img).unwrap();
            use std::os::unix::fs::FileExt;
            let f = std::fs::OpenOptions::new().write(true).open(dev).unwrap();
            f.write_all_at(&bytes, 0).unwrap();
            f.sync_all().map_err(|e| e.to_string())
        }),
    ]
}

#[test]
fn every_blkid_signature_is_refused_without_allow_destroy() {
    let d = tempfile::tempdir().unwrap();
    if let Err(why) = blank(d.path(), "probe.img", 1) {
        return eprintln!("skip: {why}");
    }
    let mut tried = 0;
    for (tool, name, mib, make) in makers() {
        if !have(tool) {
            eprintln!("skip {name}: no {tool}");
            continue;
        }
        let (backing, lo) = blank(d.path(), &format!("{name}.img"), mib).unwrap();
        make(d.path(), &lo.dev, &backing).unwrap();
        if have("blkid") {
            // What the system sees: blkid -p must report the same name.
            let out = Command::new("blkid").args(["-p", &lo.dev]).output().unwrap();
            let s = String::from_utf8_lossy(&out.stdout);
            assert!(s.contains(&format!("TYPE=\"{name}\"")), "blkid -p {name}: {s}");
        }
        let before = digest(&backing);
        let e = run(&write_job(d.path(), &lo.dev, &["--direct=1"]), false).unwrap_err();
        assert!(e.starts_with(&lo.dev), "{name}: {e}");
        assert!(e.contains(&format!("it carries {name} (")), "{name}: {e}");
        assert!(e.contains("--allow-destroy"), "{name}: {e}");
        assert_eq!(digest(&backing), before, "{name}: a refused write changed the device");
        tried += 1;
    }
    assert!(tried > 0 || !have("mkfs.ext4"), "no signature was tried");
}

#[test]
fn filesystem_inside_a_partition_is_found_and_allow_destroy_writes() {
    let d = tempfile::tempdir().unwrap();
    if !have("sfdisk") || !have("mkfs.minix") {
        return eprintln!("skip: needs sfdisk and mkfs.minix");
    }
    let (backing, lo) = match blank(d.path(), "parts.img", 32) {
        Ok(x) => x,
        Err(why) => return eprintln!("skip: {why}"),
    };
    sfdisk(&lo.dev, "label: gpt\nstart=2048,size=16384\n").unwrap();
    let part = format!("{}p1", lo.dev);
    for _ in 0..50 {
        if Path::new(&part).exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if !Path::new(&part).exists() {
        return eprintln!("skip: {part} did not appear");
    }
    sh(Command::new("mkfs.minix").arg(&part)).unwrap();
    let before = digest(&backing);
    let e = run(&write_job(d.path(), &lo.dev, &[]), false).unwrap_err();
    let pname = part.rsplit('/').next().unwrap();
    assert!(e.contains("gpt (partition table)"), "{e}");
    assert!(e.contains(&format!("minix (filesystem) on partition {pname}")), "{e}");
    assert_eq!(digest(&backing), before);
    // The partition itself is a device carrying minix.
    let e = run(&write_job(d.path(), &part, &[]), false).unwrap_err();
    assert!(e.contains("it carries minix (filesystem)"), "{e}");
    // --allow-destroy is the way through for signatures: the job writes its megabyte.
    let out = run(&write_job(d.path(), &lo.dev, &["--offset=20m"]), true).unwrap();
    assert_eq!(out.result.jobs[0].write.io_bytes, 1 << 20);
    assert_ne!(digest(&backing), before);
}

#[test]
fn overflowing_offset_is_refused_and_nothing_is_written() {
    let d = tempfile::tempdir().unwrap();
    // A regular file with data first (no root needed).
    let file = d.path().join("data");
    let content: Vec<u8> = (0..(2u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    let wrap = ["--rw=randwrite", "--offset=18446744073709543424"];
    let e = run(&write_job(d.path(), &file.display().to_string(), &wrap), true).unwrap_err();
    assert!(e.contains("offset="), "{e}");
    assert!(e.contains("2^64"), "{e}");
    assert_eq!(std::fs::read(&file).unwrap(), content);
    // One byte below 2^64: no 1048575-byte file is laid out.
    let new = d.path().join("new");
    let e = run(
        &write_job(d.path(), &new.display().to_string(), &["--offset=18446744073709551615"]),
        true,
    )
    .unwrap_err();
    assert!(e.contains("offset="), "{e}");
    assert!(!new.exists(), "a file was created");
    // offset_increment x clone overflowing names offset_increment.
    // A region past the largest file Linux allows (2^63 - 1) is an error, not a bad ftruncate.
    let inc = ["--offset_increment=9223372036854775808", "--numjobs=2"];
    let e = run(&write_job(d.path(), &new.display().to_string(), &inc), true).unwrap_err();
    assert!(e.contains("2^63"), "{e}");

    let (backing, lo) = match blank(d.path(), "blank.img", 16) {
        Ok(x) => x,
        Err(why) => return eprintln!("skip (device part): {why}"),
    };
    let before = digest(&backing);
    let e = run(&write_job(d.path(), &lo.dev, &["--direct=1", wrap[0], wrap[1]]), false);
    let e = e.unwrap_err();
    assert!(e.contains("offset="), "{e}");
    assert_eq!(digest(&backing), before, "the device was written");
    // A region past the end of the device is refused too.
    let e = run(&write_job(d.path(), &lo.dev, &["--offset=15m", "--size=2m"]), false);
    let e = e.unwrap_err();
    assert!(e.contains("16777216 bytes") && e.contains("17825792"), "{e}");
    assert_eq!(digest(&backing), before);
}

#[test]
fn without_libblkid_every_device_needs_allow_destroy() {
    let d = tempfile::tempdir().unwrap();
    let (_backing, lo) = match blank(d.path(), "noblkid.img", 8) {
        Ok(x) => x,
        Err(why) => return eprintln!("skip: {why}"),
    };
    let dev = Path::new(&lo.dev);
    let missing = || Blkid::load_from("libiolab-absent-blkid.so.1");
    let e = check_block_write_with(dev, WriteGrant::default(), &missing).unwrap_err();
    let e = e.to_string();
    assert!(e.starts_with(&lo.dev), "{e}");
    assert!(e.contains("libiolab-absent-blkid.so.1") && e.contains("cannot be checked"), "{e}");
    assert!(e.contains("--allow-destroy"), "{e}");
    let grant = WriteGrant { allow_destroy: true, ..WriteGrant::default() };
    assert_eq!(check_block_write_with(dev, grant, &missing).unwrap(), Vec::<String>::new());
    // With the real library the blank device is fine.
    if Blkid::load().is_ok() {
        assert!(check_block_write_with(dev, WriteGrant::default(), &Blkid::load).is_ok());
    }
}

#[test]
fn replay_onto_a_device_is_not_called_sparse() {
    let d = tempfile::tempdir().unwrap();
    let (_backing, lo) = match blank(d.path(), "replay.img", 8) {
        Ok(x) => x,
        Err(why) => return eprintln!("skip: {why}"),
    };
    let (t, notes) =
        open_replay_target(Path::new(&lo.dev), 1 << 40, true, false, false, false).unwrap();
    assert!(t.is_block);
    assert_eq!(t.size, 8 << 20);
    assert!(notes.is_empty(), "{notes:?}");
    // A new regular file is.
    let f = d.path().join("new-target");
    let (t, notes) = open_replay_target(&f, 1 << 20, true, true, false, false).unwrap();
    assert_eq!(t.size, 1 << 20);
    assert!(notes.iter().any(|n| n.contains("was created sparse")), "{notes:?}");
}

/// `(read, write)` total_ios of the first job in fio's JSON output.
fn fio_total_ios(json: &str) -> (u64, u64) {
    let mut it = json.split("\"total_ios\" : ").skip(1).map(|s| {
        s.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("0").parse::<u64>().unwrap()
    });
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn sequential_tail_shorter_than_bs_is_skipped_like_fio() {
    let have_fio = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    let d = tempfile::tempdir().unwrap();
    // (rw, size, bs, I/Os fio 3.33 does, file size after)
    let cases = [
        ("read", 4_000_000u64, 64_000u64, 62u64, 4_000_000u64),
        ("read", 4097, 4096, 1, 4097),
        ("write", 4097, 4096, 1, 4097),
        ("randwrite", 12_288 + 100, 4096, 3, 12_388),
    ];
    for (i, (rw, size, bs, ios, fsize)) in cases.into_iter().enumerate() {
        let args = [format!("--rw={rw}"), format!("--size={size}"), format!("--bs={bs}")];
        let mine = d.path().join(format!("iolab{i}"));
        let f = format!("--filename={}", mine.display());
        let mut a = vec!["--name=x", f.as_str(), "--ioengine=psync"];
        a.extend(args.iter().map(String::as_str));
        let out = run(&load(&[], &a, d.path()), false).unwrap();
        let j = &out.result.jobs[0];
        assert_eq!(j.read.total_ios + j.write.total_ios, ios, "{rw} size={size} bs={bs}");
        assert_eq!(std::fs::metadata(&mine).unwrap().len(), fsize, "{rw} size={size}");
        if !have_fio {
            eprintln!("skip fio comparison: no fio");
            continue;
        }
        let theirs = d.path().join(format!("fio{i}"));
        let o = Command::new("fio")
            .args(["--name=x", "--ioengine=psync", "--output-format=json"])
            .arg(format!("--filename={}", theirs.display()))
            .args(&args)
            .output()
            .unwrap();
        let (r, w) = fio_total_ios(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(r + w, ios, "fio {rw} size={size} bs={bs}");
        assert_eq!(std::fs::metadata(&theirs).unwrap().len(), fsize, "fio {rw} size={size}");
    }
}
