//! Integration tests of iolab-engine: real I/O on temporary files with every engine.
#![allow(clippy::unwrap_used)]

use iolab_core::{IoDir, IoRequest};
use iolab_data::{FailureKind, VerifyCtx, VerifyFailure, VerifyKind};
use iolab_engine::engines::{lookup, EngineConfig, EngineFile, ENGINES};
use iolab_engine::target::{direct_supported, open_target, TargetSpec};
use iolab_engine::worker::{run_worker, ReadCheck, WorkerConfig};
use std::sync::atomic::AtomicBool;

mod cpuio;
mod exec;
mod fileops;
mod safety;

/// The byte at `pos` of the test pattern: different per 512-byte sector and per file.
fn pat(file: u32, pos: u64) -> u8 {
    ((pos / 512).wrapping_mul(31) ^ pos ^ (file as u64 * 7)) as u8
}

fn fill_pat(buf: &mut [u8], file: u32, off: u64) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pat(file, off + i as u64);
    }
}

struct PatCheck;
impl ReadCheck for PatCheck {
    fn check(&mut self, buf: &[u8], file: u32, off: u64) -> Result<(), Box<VerifyFailure>> {
        for (i, &b) in buf.iter().enumerate() {
            if b != pat(file, off + i as u64) {
                return Err(Box::new(VerifyFailure {
                    file,
                    offset: off,
                    len: buf.len() as u64,
                    kind: FailureKind::Corruption { at: i as u64, in_header: false },
                    expected: VerifyCtx::new(VerifyKind::Pattern, file, off, 0, 0),
                    found: None,
                }));
            }
        }
        Ok(())
    }
}

/// Sequential requests over `[0, size)` in `bs` steps, then the end.
fn seq(dir: IoDir, size: u64, bs: u64) -> impl FnMut(&mut IoRequest) -> bool + Send {
    let mut off = 0;
    move |r: &mut IoRequest| {
        if off >= size {
            return false;
        }
        *r = IoRequest::new(dir, 0, off, bs);
        off += bs;
        true
    }
}

fn engine_round_trip(name: &str, direct: bool) {
    let dir = tempfile::tempdir_in(".").unwrap();
    let path = dir.path().join("data");
    let size = 4u64 << 20;
    let bs = 64 << 10;
    let t = open_target(
        &TargetSpec {
            path: path.clone(),
            needed: size,
            reads: true,
            writes: true,
            direct,
            sync_flags: 0,
            allow_destroy: false,
            allow_mounted_write: false,
            layout: false,
        },
        &mut |_, _| {},
    )
    .unwrap();
    let files = vec![EngineFile::dup(&t.file, false, &path).unwrap()];
    let mut cfg = WorkerConfig { depth: 8, batch_submit: 4, depth_low: 7, ..Default::default() };
    cfg.end_fsync = true;
    let stop = AtomicBool::new(false);

    let mut e =
        (lookup(name).unwrap().ctor)(&EngineConfig::new(8, bs as usize, files.clone())).unwrap();
    let mut fill = fill_pat;
    let out =
        run_worker(&mut *e, &mut seq(IoDir::Write, size, bs), &mut fill, None, &cfg, &stop, None)
            .unwrap();
    assert!(out.error.is_none(), "{name}: {:?}", out.error);
    let w = out.rec.dir(IoDir::Write);
    assert_eq!(w.ios, size / bs, "{name}: write count");
    assert_eq!(w.bytes, size, "{name}: write bytes");
    assert_eq!(w.failed + w.short, 0);
    assert_eq!(out.rec.dir(IoDir::Sync).ios, 1, "{name}: end_fsync");
    drop(e);

    let mut e = (lookup(name).unwrap().ctor)(&EngineConfig::new(8, bs as usize, files)).unwrap();
    let sync = e.caps().sync;
    let out = run_worker(
        &mut *e,
        &mut seq(IoDir::Read, size, bs),
        &mut fill,
        Some(&mut PatCheck),
        &cfg,
        &stop,
        None,
    )
    .unwrap();
    assert!(out.error.is_none(), "{name}: {:?}", out.error);
    assert_eq!(out.verify_failures, 0);
    assert_eq!(out.rec.dir(IoDir::Read).ios, size / bs);
    assert_eq!(out.rec.dir(IoDir::Read).bytes, size);
    // The IO depths histogram: sync engines never exceed 1, async ones reach 8.
    let deepest = out.rec.depth_exact.iter().rposition(|&c| c > 0).unwrap();
    if sync {
        assert_eq!(deepest, 1, "{name}");
    } else {
        assert_eq!(deepest, 8, "{name}");
    }

    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(on_disk.len() as u64, size);
    for (i, &b) in on_disk.iter().enumerate().step_by(509) {
        assert_eq!(b, pat(0, i as u64), "{name}: byte {i} on disk");
    }
}

#[test]
fn every_engine_writes_and_reads_back_buffered() {
    for e in ENGINES.iter().filter(|e| !iolab_engine::engines::DATALESS.contains(&e.name)) {
        if e.name == "io_uring" && iolab_engine::engines::uring::probe().is_err() {
            eprintln!("skipped io_uring: {:?}", iolab_engine::engines::uring::probe());
            continue;
        }
        engine_round_trip(e.name, false);
    }
}

#[test]
fn every_engine_writes_and_reads_back_direct() {
    if !direct_supported(std::path::Path::new(".")) {
        eprintln!("skipped: O_DIRECT not supported in the test directory");
        return;
    }
    for e in ENGINES.iter().filter(|e| !iolab_engine::engines::DATALESS.contains(&e.name)) {
        if e.name == "io_uring" && iolab_engine::engines::uring::probe().is_err() {
            eprintln!("skipped io_uring: {:?}", iolab_engine::engines::uring::probe());
            continue;
        }
        engine_round_trip(e.name, true);
    }
}

#[test]
fn null_engine_counts_and_batches() {
    let mut e = (lookup("null").unwrap().ctor)(&EngineConfig::new(32, 4096, vec![])).unwrap();
    let cfg = WorkerConfig {
        depth: 32,
        batch_submit: 32,
        complete_min: 32,
        depth_low: 0,
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let mut fill = |_: &mut [u8], _: u32, _: u64| {};
    let out = run_worker(
        &mut *e,
        &mut seq(IoDir::Read, 100_000 * 4096, 4096),
        &mut fill,
        None,
        &cfg,
        &stop,
        None,
    )
    .unwrap();
    let r = out.rec.dir(IoDir::Read);
    assert_eq!(r.ios, 100_000);
    assert_eq!(r.bytes, 100_000 * 4096);
    // Every submit call carried a full batch of 32 (bucket ">32..64"): 3125 calls.
    assert_eq!(out.rec.submit_map[4], 3125, "{:?}", out.rec.submit_map);
}

#[test]
fn fsync_every_n_writes_is_issued_as_its_own_unit() {
    let dir = tempfile::tempdir_in(".").unwrap();
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(dir.path().join("f"))
        .unwrap();
    let files = vec![EngineFile::dup(&f, false, dir.path().join("f")).unwrap()];
    for name in ["psync", "io_uring", "libaio"] {
        if name == "io_uring" && iolab_engine::engines::uring::probe().is_err() {
            continue;
        }
        let mut e =
            (lookup(name).unwrap().ctor)(&EngineConfig::new(4, 4096, files.clone())).unwrap();
        let cfg = WorkerConfig { depth: 4, depth_low: 3, fsync_every: 8, ..Default::default() };
        let stop = AtomicBool::new(false);
        let mut fill = fill_pat;
        let out = run_worker(
            &mut *e,
            &mut seq(IoDir::Write, 64 * 4096, 4096),
            &mut fill,
            None,
            &cfg,
            &stop,
            None,
        )
        .unwrap();
        assert_eq!(out.rec.dir(IoDir::Write).ios, 64, "{name}");
        assert_eq!(out.rec.dir(IoDir::Sync).ios, 8, "{name}: one fsync per 8 writes");
    }
}

#[test]
fn io_error_is_counted_and_stops_the_worker() {
    let dir = tempfile::tempdir_in(".").unwrap();
    // Opened read-only: every write fails with EBADF.
    std::fs::write(dir.path().join("ro"), vec![0u8; 65536]).unwrap();
    let f = std::fs::File::open(dir.path().join("ro")).unwrap();
    let files = vec![EngineFile::dup(&f, false, dir.path().join("ro")).unwrap()];
    let mut e = (lookup("psync").unwrap().ctor)(&EngineConfig::new(1, 4096, files)).unwrap();
    let stop = AtomicBool::new(false);
    let mut fill = fill_pat;
    let out = run_worker(
        &mut *e,
        &mut seq(IoDir::Write, 65536, 4096),
        &mut fill,
        None,
        &WorkerConfig::default(),
        &stop,
        None,
    )
    .unwrap();
    assert_eq!(out.rec.dir(IoDir::Write).failed, 1);
    assert_eq!(out.rec.dir(IoDir::Write).ios, 0);
    assert_eq!(out.rec.first_error.map(|e| e.1), Some(libc_ebadf()));
    assert!(out.error.unwrap().contains("Bad file descriptor"));
}

fn libc_ebadf() -> i32 {
    9
}

// ---- whole jobs through the runner -------------------------------------------------------

use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_job::{Job, LoadOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

fn load(files: &[PathBuf], cmdline: &[&str], testdir: &Path) -> Vec<Job> {
    let mut env = iolab_job::ini::Env::from_system();
    env.vars.insert("TESTDIR".into(), testdir.display().to_string());
    let opts = LoadOptions {
        files: files.to_vec(),
        cmdline: cmdline.iter().map(|s| s.to_string()).collect(),
        sections: vec![],
    };
    iolab_job::load_with(&opts, &env).unwrap().jobs
}

fn run(jobs: &[Job]) -> iolab_stats::RunResult {
    run_full(jobs).result
}

fn run_full(jobs: &[Job]) -> iolab_engine::runner::RunOutput {
    run_jobs(jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None).unwrap()
}

#[test]
fn multi_file_job_spreads_one_depth_pool_over_all_four_files() {
    let d = tempfile::tempdir_in(".").unwrap();
    let mut jobs = load(&[shared("jobs/runnable-multi-file-shared-depth.fio")], &[], d.path());
    assert_eq!(jobs.len(), 1);
    // Shorten the 5 s run and the 64 MiB files. (A `--runtime=` before the file would not do
    // it: as in fio, the file's [global] section overrides command-line globals.)
    jobs[0].runtime = Some(iolab_core::Nanos::from_millis(700));
    jobs[0].filesize = Some((8 << 20, 8 << 20));
    if !direct_supported(d.path()) {
        jobs[0].direct = false;
    }
    let out = run_full(&jobs);
    let r = &out.result;
    let j = &r.jobs[0];
    assert!(j.read.total_ios > 1000, "{} reads", j.read.total_ios);
    assert_eq!(j.read.io_bytes, j.read.total_ios * 8192);
    assert_eq!(j.error, 0);
    // One pool of 32 shared by the files: the depth reached 32 (bucket 32..63).
    assert!(j.depth.level[5] > 0, "{:?}", j.depth.level);
    for n in 1..=4 {
        let p = d.path().join(format!("d{n}"));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 8 << 20, "d{n} laid out");
    }
    // file_service_type=roundrobin (fio's default) switches file on every I/O: each of the
    // four files got a quarter of the completions, give or take the in-flight ones at the end.
    assert_eq!(out.files.len(), 4);
    let quarter = j.read.total_ios / 4;
    for f in &out.files {
        assert!(
            f.ios.abs_diff(quarter) <= 32,
            "{}: {} of {}",
            f.path.display(),
            f.ios,
            j.read.total_ios
        );
        assert_eq!(f.bytes, f.ios * 8192);
    }
    assert_eq!(out.files.iter().map(|f| f.ios).sum::<u64>(), j.read.total_ios);
}

#[test]
fn numjobs_clones_each_do_the_whole_job_and_group_reporting_sums_them() {
    let d = tempfile::tempdir_in(".").unwrap();
    let dir = format!("--directory={}", d.path().display());
    let jobs = load(
        &[],
        &[
            &dir,
            "--name=w",
            "--rw=write",
            "--bs=64k",
            "--size=2m",
            "--numjobs=3",
            "--group_reporting",
            "--ioengine=psync",
        ],
        d.path(),
    );
    let r = run(&jobs);
    assert_eq!(r.jobs.len(), 3);
    for j in &r.jobs {
        assert_eq!(j.write.io_bytes, 2 << 20);
        assert_eq!(j.write.total_ios, 32);
    }
    assert_eq!(r.groups.len(), 1);
    assert_eq!(r.groups[0].write.stats.io_bytes, 6 << 20);
    // fio names clone files <name>.<clone>.<file>.
    for c in 0..3 {
        assert_eq!(std::fs::metadata(d.path().join(format!("w.{c}.0"))).unwrap().len(), 2 << 20);
    }
}

#[test]
fn stonewall_starts_the_second_job_after_the_first_ends() {
    let d = tempfile::tempdir_in(".").unwrap();
    let text = format!(
        "[global]\ndirectory={}\nioengine=psync\nbs=4k\nsize=1m\n\
         [a]\nrw=write\n[b]\nstonewall\nrw=read\nfilename=a.0.0\n",
        d.path().display()
    );
    let f = d.path().join("job.fio");
    std::fs::write(&f, text).unwrap();
    let jobs = load(&[f], &[], d.path());
    let r = run(&jobs);
    assert_eq!(r.jobs.len(), 2);
    let (a, b) = (&r.jobs[0], &r.jobs[1]);
    assert!(
        b.start_ns >= a.start_ns + a.runtime_ns,
        "b started {} before a ended {}",
        b.start_ns,
        a.start_ns + a.runtime_ns
    );
    assert_ne!(a.groupid, b.groupid, "stonewall starts a new reporting group");
    assert_eq!(a.write.io_bytes, 1 << 20);
    assert_eq!(b.read.io_bytes, 1 << 20);
}

#[test]
fn read_job_never_extends_an_existing_short_file() {
    let d = tempfile::tempdir_in(".").unwrap();
    let p = d.path().join("small");
    std::fs::write(&p, vec![1u8; 8192]).unwrap();
    let name = format!("--filename={}", p.display());
    let jobs = load(&[], &["--name=r", &name, "--rw=read", "--size=1m"], d.path());
    let e = run_jobs(&jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None)
        .unwrap_err();
    assert!(e.to_string().contains("8192 bytes"), "{e}");
    assert_eq!(std::fs::read(&p).unwrap(), vec![1u8; 8192]);
}
#[test]
fn seed_compressible_job_writes_two_to_one_data_without_zero_runs() {
    let d = tempfile::tempdir_in(".").unwrap();
    let mut jobs = load(&[shared("jobs/seed-compressible.fio")], &[], d.path());
    jobs[0].size = Some(iolab_job::SizeSpec::Bytes(8 << 20));
    let r = run(&jobs);
    assert_eq!(r.jobs[0].write.io_bytes, 8 << 20);
    let m = iolab_data::measure::measure_path(
        &d.path().join("compressible.dat"),
        &iolab_data::measure::MeasureOptions { block: 65536, sample: None },
    )
    .unwrap();
    let ratio = m.codecs[0].block_ratio;
    eprintln!(
        "{}: block ratio {ratio:.3}, zero-run share {:.4}",
        m.codecs[0].codec, m.zero_run_bytes
    );
    assert!((1.7..2.4).contains(&ratio), "{} ratio {ratio}", m.codecs[0].codec);
    assert!(m.zero_run_bytes < 0.01, "compressible part must not be zeros: {}", m.zero_run_bytes);
    assert_eq!(m.zero_blocks, 0.0);
}

/// A loop device over a sparse file, detached on drop.
struct Loop {
    dev: String,
}
impl Drop for Loop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

fn loop_device(backing: &Path) -> Result<Loop, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc_geteuid() } != 0 {
        return Err("not root".into());
    }
    let out = std::process::Command::new("losetup")
        .args(["-f", "--show"])
        .arg(backing)
        .output()
        .map_err(|e| format!("losetup: {e}"))?;
    if !out.status.success() {
        return Err(format!("losetup failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(Loop { dev: String::from_utf8_lossy(&out.stdout).trim().to_string() })
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// Sectors read from a block device so far (/sys/block/NAME/stat, field 3).
fn sectors_read(dev: &str) -> u64 {
    let name = dev.rsplit('/').next().unwrap();
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    stat.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// fio drops the page cache again at every new pass of a buffered job (io_u.c
/// `loop_cache_invalidate` on a time_based wrap; files reopened per `loops`), so every pass
/// reaches the device; with `invalidate=0` only the first does.
#[test]
fn buffered_passes_reread_the_device_after_invalidation() {
    let d = tempfile::tempdir_in(".").unwrap();
    let backing = d.path().join("backing.img");
    std::fs::write(&backing, vec![0x5au8; 1 << 20]).unwrap();
    let lo = match loop_device(&backing) {
        Ok(l) => l,
        Err(why) => {
            eprintln!("skipped wrap-invalidation test: {why}");
            return;
        }
    };
    let dev = format!("--filename={}", lo.dev);
    let mut got = Vec::new();
    for inv in ["--invalidate=1", "--invalidate=0"] {
        let a = ["--name=r", &dev, "--rw=randread", "--bs=4k", "--size=1m", "--loops=4", inv];
        let jobs = load(&[], &a, d.path());
        let before = sectors_read(&lo.dev);
        let r = run(&jobs);
        assert_eq!(r.jobs[0].read.io_bytes, 4 << 20, "{inv}");
        got.push((sectors_read(&lo.dev) - before) * 512);
    }
    // invalidate=1: four passes of 1 MiB from the device (readahead may add a little).
    assert!(got[0] >= 4 << 20, "invalidate=1 read {} bytes from the device", got[0]);
    // invalidate=0: the first pass only (a block device's cache is dropped on its last
    // close, so it starts cold), the other three from memory.
    assert!(got[1] < 2 << 20, "invalidate=0 read {} bytes from the device", got[1]);
}

#[test]
fn loop_device_size_safety_and_identical_data() {
    let d = tempfile::tempdir_in(".").unwrap();
    let backing = d.path().join("backing.img");
    std::fs::File::create(&backing).unwrap().set_len(32 << 20).unwrap();
    let lo = match loop_device(&backing) {
        Ok(l) => l,
        Err(why) => {
            eprintln!("skipped loop-device test: {why}");
            return;
        }
    };
    let dev = format!("--filename={}", lo.dev);
    // No size: the device's BLKGETSIZE64 capacity is the region.
    let jobs = load(
        &[],
        &[
            "--name=r",
            &dev,
            "--rw=read",
            "--bs=1m",
            "--ioengine=libaio",
            "--iodepth=4",
            "--direct=1",
        ],
        d.path(),
    );
    let r = run(&jobs);
    assert_eq!(r.jobs[0].read.io_bytes, 32 << 20);

    // A blank device may be written; the bytes equal those the same job writes to a file.
    let jobs = load(
        &[],
        &["--name=w", &dev, "--rw=write", "--bs=64k", "--size=4m", "--direct=1"],
        d.path(),
    );
    run(&jobs);
    let f = format!("--filename={}", d.path().join("same.dat").display());
    let jobs = load(&[], &["--name=w", &f, "--rw=write", "--bs=64k", "--size=4m"], d.path());
    run(&jobs);
    let on_dev = std::fs::read(&backing).unwrap();
    let on_file = std::fs::read(d.path().join("same.dat")).unwrap();
    assert!(on_dev[..4 << 20] == on_file[..], "device and file got different bytes");
    assert!(on_dev[..4 << 20].iter().any(|&b| b != 0));

    // Now it carries an MBR (one Linux partition at sector 2048; libblkid, like the kernel,
    // wants valid entries, not just 0x55AA): writing needs --allow-destroy.
    use std::os::unix::fs::FileExt;
    let mut mbr = vec![0u8; 66];
    mbr[4] = 0x83;
    mbr[8..12].copy_from_slice(&2048u32.to_le_bytes());
    mbr[12..16].copy_from_slice(&4096u32.to_le_bytes());
    mbr[64..].copy_from_slice(&[0x55, 0xAA]);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&backing)
        .unwrap()
        .write_all_at(&mbr, 446)
        .unwrap();
    let jobs =
        load(&[], &["--name=w2", &dev, "--rw=randwrite", "--size=1m", "--direct=1"], d.path());
    let e = match run_jobs(&jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None) {
        Ok(_) => panic!("wrote over a device with an MBR signature"),
        Err(e) => e,
    };
    assert!(e.to_string().contains("dos") && e.to_string().contains("--allow-destroy"), "{e}");
    let opts = RunOptions { allow_destroy: true, ..RunOptions::default() };
    let r = run_jobs(&jobs, &opts, Arc::new(AtomicBool::new(false)), None).unwrap().result;
    assert_eq!(r.jobs[0].write.io_bytes, 1 << 20);
}

/// A verify job on one 1 MiB file (4 KiB blocks) in `d`; `extra` adds options.
fn verify_job(d: &Path, extra: &[&str]) -> Vec<Job> {
    let f = format!("--filename={}", d.join("v").display());
    let mut a = vec!["--name=v", &f, "--rw=write", "--bs=4k", "--size=1m", "--verify=crc32c"];
    a.extend_from_slice(extra);
    load(&[], &a, d)
}

fn flip_byte(p: &Path, at: u64) {
    let mut b = std::fs::read(p).unwrap();
    b[at as usize] ^= 0x40;
    std::fs::write(p, b).unwrap();
}

#[test]
fn write_then_verify_checks_every_block_and_counts_the_reads_as_fio_does() {
    let d = tempfile::tempdir_in(".").unwrap();
    let r = run(&verify_job(d.path(), &["--rw=randwrite", "--iodepth=4", "--ioengine=psync"]));
    let j = &r.jobs[0];
    assert_eq!(j.write.total_ios, 256);
    // fio counts the verify reads as the job's reads (issue 13; this said 0 before).
    assert_eq!((j.read.total_ios, j.read.io_bytes), (256, 1 << 20));
    assert_eq!(j.read.clat.n, 256, "verify reads carry latencies");
    let v = j.verify.as_ref().unwrap();
    assert_eq!((v.kind.as_str(), v.checked, v.ok, v.failed()), ("crc32c", 256, 256, 0));
    assert_eq!(v.read.total_ios, 256);
    assert_eq!(v.read.io_bytes, 1 << 20);
    assert!(j.notes.iter().all(|n| !n.contains("verify")), "{:?}", j.notes);
}

#[test]
fn verify_only_finds_a_flipped_byte_at_its_block() {
    let d = tempfile::tempdir_in(".").unwrap();
    let w = run(&verify_job(d.path(), &["--do_verify=0"]));
    assert!(w.jobs[0].verify.is_none());
    flip_byte(&d.path().join("v"), 300_000);
    let r = run(&verify_job(d.path(), &["--verify_only=1"]));
    let j = &r.jobs[0];
    assert_eq!(j.write.total_ios, 0, "verify_only writes nothing");
    let v = j.verify.as_ref().unwrap();
    assert_eq!((v.checked, v.ok, v.corruption), (256, 255, 1));
    let f = &v.failures[0];
    assert_eq!((f.kind.as_str(), f.offset, f.len), ("corruption", 299_008, 4096));
    // The byte flipped at 300000 is byte 992 of the block at 299008 (issue 12: "at block
    // byte 0" for every corruption).
    assert!(f.message.contains("at block byte 992"), "{}", f.message);
    assert_eq!(j.error, 84, "fio: a verify failure is the job's EILSEQ");
    assert!(f.file.ends_with("/v"), "{}", f.file);
    assert!(j.notes.iter().any(|n| n.contains("1 of 256 blocks failed")), "{:?}", j.notes);
}

#[test]
fn verify_md5_of_crc32c_data_names_the_checksum_found() {
    // Reliability review: verifying crc32c data with --verify=md5 said "verify (md5)" OK.
    let d = tempfile::tempdir_in(".").unwrap();
    run(&verify_job(d.path(), &["--do_verify=0"]));
    let r = run(&verify_job(d.path(), &["--verify_only=1", "--verify=md5"]));
    let j = &r.jobs[0];
    let v = j.verify.as_ref().unwrap();
    assert_eq!((v.checked, v.ok, v.bad_header), (256, 0, 256));
    let f = &v.failures[0];
    assert_eq!((f.kind.as_str(), f.offset), ("wrong_kind", 0));
    assert!(f.message.contains("carries crc32c data, md5 was asked"), "{}", f.message);
    assert_eq!(j.error, 84);
}

#[test]
fn verify_only_calls_a_block_holding_another_blocks_data_misplaced() {
    let d = tempfile::tempdir_in(".").unwrap();
    run(&verify_job(d.path(), &["--do_verify=0"]));
    let p = d.path().join("v");
    let mut b = std::fs::read(&p).unwrap();
    let src = b[0..4096].to_vec();
    b[8192..12288].copy_from_slice(&src);
    std::fs::write(&p, b).unwrap();
    let v = run(&verify_job(d.path(), &["--verify_only=1"])).jobs[0].verify.clone().unwrap();
    assert_eq!((v.checked, v.misplaced, v.failed()), (256, 1, 1));
    let f = &v.failures[0];
    assert_eq!((f.kind.as_str(), f.offset), ("misplaced", 8192));
    assert!(f.found.starts_with("file 0 offset 0 gen 0"), "{}", f.found);
}

#[test]
fn a_block_from_an_earlier_pass_is_stale() {
    // Two passes: every block's second write is generation 1. Put one block's first-pass
    // bytes back, as a lost write would leave it.
    let d = tempfile::tempdir_in(".").unwrap();
    let p = d.path().join("v");
    run(&verify_job(d.path(), &["--do_verify=0"]));
    let old = std::fs::read(&p).unwrap()[40960..45056].to_vec();
    let r = run(&verify_job(d.path(), &["--loops=2"]));
    assert_eq!(r.jobs[0].write.total_ios, 512);
    let v = r.jobs[0].verify.clone().unwrap();
    assert_eq!((v.checked, v.ok), (256, 256), "each block checked once, at its last write");
    let mut b = std::fs::read(&p).unwrap();
    b[40960..45056].copy_from_slice(&old);
    std::fs::write(&p, b).unwrap();
    let v = run(&verify_job(d.path(), &["--loops=2", "--verify_only=1"])).jobs[0]
        .verify
        .clone()
        .unwrap();
    assert_eq!((v.stale, v.failed()), (1, 1));
    assert_eq!(v.failures[0].offset, 40960);
    assert!(v.failures[0].message.contains("holds generation 0, expected 1"), "{:?}", v.failures);
}

#[test]
fn verify_fatal_stops_at_the_first_failure() {
    let d = tempfile::tempdir_in(".").unwrap();
    run(&verify_job(d.path(), &["--do_verify=0"]));
    flip_byte(&d.path().join("v"), 10_000);
    flip_byte(&d.path().join("v"), 900_000);
    let all = run(&verify_job(d.path(), &["--verify_only=1"])).jobs[0].verify.clone().unwrap();
    assert_eq!((all.checked, all.corruption), (256, 2));
    let r = run(&verify_job(d.path(), &["--verify_only=1", "--verify_fatal=1"]));
    let v = r.jobs[0].verify.clone().unwrap();
    assert_eq!(v.failed(), 1);
    assert!(v.checked < 256, "stopped early: {} checked", v.checked);
    assert!(
        r.jobs[0].notes.iter().any(|n| n.contains("verify_fatal stopped")),
        "{:?}",
        r.jobs[0].notes
    );
}

#[test]
fn iodepth_batch_complete_max_caps_every_reap() {
    let d = tempfile::tempdir_in(".").unwrap();
    let f = format!("--filename={}", d.path().join("q").display());
    let mut engines = vec!["null", "libaio"];
    if iolab_engine::engines::uring::probe().is_ok() {
        engines.push("io_uring");
    } else {
        println!("io_uring not available here: checking null and libaio only");
    }
    for e in engines {
        let eng = format!("--ioengine={e}");
        let base = ["--name=m", &f, &eng, "--rw=randread", "--size=2m", "--iodepth=16"];
        let mut a = base.to_vec();
        a.extend(["--iodepth_batch=16", "--iodepth_batch_complete_max=4", "--direct=1"]);
        let r = run(&load(&[], &a, d.path()));
        let j = &r.jobs[0];
        assert_eq!(j.read.total_ios, 512, "{e}");
        // complete map buckets: 0, 1-4, 5-8, 9-16, ...: nothing above 4 per reap.
        let c = j.depth.complete;
        assert_eq!(c[2..].iter().sum::<u64>(), 0, "{e}: {c:?}");
        assert!(c[1] >= 512 / 4, "{e}: {c:?}");
    }
}

/// fio reaps ONE completion per getevents unless `iodepth_batch_complete_max` says otherwise
/// (init.c raises the unset max to `iodepth_batch_complete_min`, 1) and resubmits it at once,
/// so the queue stays at `iodepth`: fio's JSON for this job shows `iodepth_level` 16 = 100 %
/// and every `iodepth_complete` in the 1-4 bucket.
#[test]
fn default_reap_takes_one_completion_and_keeps_the_queue_full() {
    let d = tempfile::tempdir_in(".").unwrap();
    let f = format!("--filename={}", d.path().join("q").display());
    // (Not the null engine: like fio's null.c it answers busy while completions are unreaped.)
    let mut engines = vec!["libaio"];
    if iolab_engine::engines::uring::probe().is_ok() {
        engines.push("io_uring");
    } else {
        println!("io_uring not available here: checking libaio only");
    }
    for e in engines {
        let eng = format!("--ioengine={e}");
        let a = ["--name=m", &f, &eng, "--rw=randread", "--size=2m", "--iodepth=16", "--direct=1"];
        let r = run(&load(&[], &a, d.path()));
        let j = &r.jobs[0];
        assert_eq!(j.read.total_ios, 512, "{e}");
        let c = j.depth.complete;
        assert_eq!(c[2..].iter().sum::<u64>(), 0, "{e}: more than 4 reaped at once: {c:?}");
        // 16 in flight at submission for all but the first 15 units (which fill the queue).
        let l = j.depth.level;
        assert!(l[4] >= 512 - 15, "{e}: depth at submission {l:?}");
    }
}

/// With `iodepth_batch` > 1, io_uring holds a commit (up to 4 units) while completions are
/// waiting in the ring. Nothing may be lost or reordered by it: a 4 MiB randwrite at QD16 with
/// iodepth_batch=8 and direct I/O writes every block once, and its verify phase (same engine
/// and batching, reads) finds every block intact. No submit call carries more than 8 units.
#[test]
fn held_commits_lose_nothing_with_io_uring() {
    if iolab_engine::engines::uring::probe().is_err() {
        println!("skipped: io_uring unavailable here");
        return;
    }
    let d = tempfile::tempdir_in(".").unwrap();
    let extra = [
        "--rw=randwrite",
        "--size=4m",
        "--ioengine=io_uring",
        "--iodepth=16",
        "--iodepth_batch=8",
        "--direct=1",
    ];
    let r = run(&verify_job(d.path(), &extra));
    let j = &r.jobs[0];
    assert_eq!((j.write.total_ios, j.write.io_bytes), (1024, 4 << 20));
    let v = j.verify.as_ref().unwrap();
    assert_eq!((v.checked, v.ok, v.failed()), (1024, 1024, 0));
    // submit buckets 0, 1-4, 5-8, 9-16, ...: nothing above 8 per call.
    assert_eq!(j.depth.submit[3..].iter().sum::<u64>(), 0, "{:?}", j.depth.submit);
}

#[test]
fn disable_clat_and_slat_leave_lat_measured() {
    let d = tempfile::tempdir_in(".").unwrap();
    let a = ["--name=n", "--ioengine=null", "--rw=read", "--size=1m", "--iodepth=8"];
    let mut a = a.to_vec();
    a.extend(["--disable_clat=1", "--disable_slat=1"]);
    let j = run(&load(&[], &a, d.path())).jobs[0].clone();
    assert_eq!(j.read.total_ios, 256);
    assert_eq!((j.read.clat.n, j.read.slat.n, j.read.lat.n), (0, 0, 256));
}

#[test]
fn verify_with_trims_is_refused_by_name() {
    let d = tempfile::tempdir_in(".").unwrap();
    let jobs = verify_job(d.path(), &["--rw=randtrim"]);
    let jobs2 = verify_job(d.path(), &["--rw=trimwrite"]);
    for j in [jobs, jobs2] {
        let e = run_jobs(&j, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None);
        let msg = e.map(|_| String::new()).unwrap_or_else(|e| e.to_string());
        // randtrim writes nothing: no stamps, no phase, so it runs; trimwrite is refused.
        if j[0].rw.has_write() {
            assert!(msg.contains("verify=crc32c with trims"), "{msg}");
        } else {
            assert!(msg.is_empty(), "{msg}");
        }
    }
}

/// Allocated bytes of a file (st_blocks × 512).
fn allocated(p: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).map(|m| m.blocks() * 512).unwrap_or(0)
}

#[test]
fn falloc_allocates_punches_and_ftruncate_sets_the_size() {
    let dir = tempfile::tempdir_in(".").unwrap();
    let path = dir.path().join("f");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let files = vec![EngineFile::dup(&f, false, path.clone()).unwrap()];
    let stop = AtomicBool::new(false);
    let cfg = WorkerConfig::default();
    let mut fill = |_: &mut [u8], _: u32, _: u64| {};
    let mut run = |engine: &str, dir: IoDir, size: u64| {
        let mut e =
            (lookup(engine).unwrap().ctor)(&EngineConfig::new(1, 65536, files.clone())).unwrap();
        run_worker(&mut *e, &mut seq(dir, size, 65536), &mut fill, None, &cfg, &stop, None).unwrap()
    };
    // falloc writes: 1 MiB allocated and the size extended, all zeros.
    let out = run("falloc", IoDir::Write, 1 << 20);
    assert_eq!(out.rec.dir(IoDir::Write).ios, 16);
    assert_eq!(out.rec.dir(IoDir::Write).bytes, 1 << 20);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
    if allocated(&path) < 1 << 20 {
        eprintln!("skip: this filesystem does not report fallocate'd blocks");
        return;
    }
    assert!(std::fs::read(&path).unwrap().iter().all(|&b| b == 0));
    // falloc trims punch the first 512 KiB: the blocks go, the size stays.
    let out = run("falloc", IoDir::Trim, 512 << 10);
    assert_eq!(out.rec.dir(IoDir::Trim).ios, 8);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
    // (a filesystem may keep an extent block or two beside the data: 4 KiB on ext4 here)
    let left = allocated(&path);
    assert!((512 << 10..(512 << 10) + 65536).contains(&left), "{left} bytes still allocated");
    // ftruncate writes: the size follows each unit's offset, ending at the last one.
    let out = run("ftruncate", IoDir::Write, 4 << 20);
    assert_eq!(out.rec.dir(IoDir::Write).ios, 64);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), (4 << 20) - 65536);
    // and refuses reads with EINVAL, as fio's engine does.
    let out = run("ftruncate", IoDir::Read, 65536);
    assert_eq!(out.rec.errno_counts[libc::EINVAL as usize], 1);
}

/// Issue 13 item 8: `--prefill` writes blocks that neither compress nor dedupe (zstd on the
/// written file), unless the job asks for compressible data, which it then gets.
#[test]
fn prefill_data_is_incompressible_unless_the_job_asks() {
    let d = tempfile::tempdir_in(".").unwrap();
    let opts = RunOptions { prefill: true, ..RunOptions::default() };
    let ratio = |name: &str, extra: &[&str]| {
        let f = format!("--filename={}", d.path().join(name).display());
        let mut a = vec!["--name=p", &f, "--rw=randread", "--bs=4k", "--size=8m"];
        a.extend_from_slice(&["--number_ios=8", "--ioengine=psync"]);
        a.extend_from_slice(extra);
        let jobs = load(&[], &a, d.path());
        run_jobs(&jobs, &opts, Arc::new(AtomicBool::new(false)), None).unwrap();
        let data = std::fs::read(d.path().join(name)).unwrap();
        assert_eq!(data.len(), 8 << 20);
        let m = iolab_data::measure::measure_bytes(&data, 4096).unwrap();
        let z = m.codecs.iter().find(|c| c.codec == "zstd-3").unwrap().stream_ratio;
        let dd = &m.dedupe[0];
        (z, dd.unique, dd.blocks)
    };
    let (z, unique, blocks) = ratio("plain", &[]);
    assert!(z < 1.01, "default prefill compresses {z}:1 as a stream");
    assert_eq!((unique, blocks), (2048, 2048), "every 4 KiB block unique");
    let (z, _, _) = ratio("c50", &["--buffer_compress_percentage=50"]);
    assert!((1.7..2.3).contains(&z), "buffer_compress_percentage=50 gives {z}:1");
}
