//! iolab-engine's worker with every engine: round trips buffered and direct, batching, fsync units,
//! I/O errors, reaping and held commits.

use crate::common::*;
use iolab_core::{IoDir, IoRequest};
use iolab_data::VerifyFailure;
use iolab_engine::engines::{lookup, EngineConfig, EngineFile, ENGINES};
use iolab_engine::target::{direct_supported, open_target, TargetSpec};
use iolab_engine::worker::{run_worker, LatLogSpec, ReadCheck, WorkerConfig};
use std::sync::atomic::AtomicBool;

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
            grow_own: false,
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
    for e in
        ENGINES.iter().filter(|e| !iolab_job::engines::has(e.name, iolab_job::engines::NO_DATA))
    {
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
    for e in
        ENGINES.iter().filter(|e| !iolab_job::engines::has(e.name, iolab_job::engines::NO_DATA))
    {
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
        // fio backend.c do_io: the loop ends with the last write's bytes, before the fsync
        // that write made due (fio 3.33 `fsync=4` over 256 writes: 63).
        assert_eq!(out.rec.dir(IoDir::Sync).ios, 7, "{name}: one fsync per 8 writes but the last");
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

/// With `iodepth_batch` > 1, io_uring holds a commit (up to the batch, at most 4 units) while
/// completions are waiting. Nothing may be lost or reordered by it: a 4 MiB randwrite at QD16 with
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

/// `n` units, the `k`th a write when `write(k)`, 8 KiB when `k` is a multiple of 7 (else
/// 4 KiB), on file `file(k)` at block `k * 7919 % blocks`: every lane test's stream.
fn mixed_stream(
    n: u64,
    write: impl Fn(u64) -> bool,
    file: impl Fn(u64) -> u32,
    blocks: u64,
) -> impl FnMut(&mut IoRequest) -> bool {
    let mut k = 0u64;
    move |r: &mut IoRequest| {
        if k == n {
            return false;
        }
        let dir = if write(k) { IoDir::Write } else { IoDir::Read };
        let len = if k % 7 == 0 { 8192 } else { 4096 };
        *r = IoRequest::new(dir, file(k), (k * 7919 % blocks) * 4096, len);
        k += 1;
        true
    }
}

/// Per direction: I/Os, bytes, issued, short, clat and lat sample counts.
type DirCounts = (u64, u64, u64, u64, Option<u64>, Option<u64>);

fn dir_counts(rec: &iolab_stats::Recorder) -> Vec<DirCounts> {
    [IoDir::Read, IoDir::Write]
        .iter()
        .map(|&d| {
            let r = rec.dir(d);
            let n = r.clat.as_ref().map(|h| h.count());
            (r.ios, r.bytes, r.issued, r.short, n, r.lat_hist().map(|h| h.count()))
        })
        .collect()
}

/// The null engine's two lanes (the sync loop at depth 1, the batch loop at
/// `iodepth_batch` = `iodepth`) against the general loop on the same stream: a write log
/// that records nothing (`lat_log` set) sends the same job round the general loop. Mixed
/// directions, sizes and files; the units handed to the buffer filler, the counts per
/// direction and file, the depth and batch maps and the sample counts must be the same.
#[test]
fn null_lanes_record_what_the_general_loop_records() {
    let stream = || mixed_stream(5_000, |k| k % 3 == 1, |k| (k % 4 / 3) as u32, 1000);
    for (depth, batch, min) in [(1, 1, 1), (32, 32, 32), (8, 8, 1), (4, 2, 1)] {
        let mut seen = Vec::new();
        for general in [false, true] {
            let mut e =
                (lookup("null").unwrap().ctor)(&EngineConfig::new(depth, 8192, vec![])).unwrap();
            let cfg = WorkerConfig {
                depth,
                batch_submit: batch,
                complete_min: min,
                depth_low: 0,
                lat_log: general.then(LatLogSpec::default),
                ..Default::default()
            };
            let mut writes = Vec::new();
            let mut fill = |_: &mut [u8], f: u32, off: u64| writes.push((f, off));
            let stop = AtomicBool::new(false);
            let out =
                run_worker(&mut *e, &mut stream(), &mut fill, None, &cfg, &stop, None).unwrap();
            assert!(out.error.is_none());
            let rec = &out.rec;
            let dirs = dir_counts(rec);
            let maps = (rec.depth_map, rec.depth_exact[..40].to_vec(), rec.submit_map);
            seen.push((writes, dirs, maps, rec.complete_map, out.per_file));
        }
        let (lane, gen) = (&seen[0], &seen[1]);
        if batch == depth {
            // (Below the depth null answers busy mid-fill, and the put-back write is filled
            // again when it is queued, in both loops.)
            assert_eq!(lane.0.len(), 1_667, "depth {depth}: writes filled");
        }
        assert_eq!(lane.1[0].0 + lane.1[1].0, 5_000, "depth {depth}");
        assert_eq!(lane.4.iter().map(|f| f.0).sum::<u64>(), 5_000, "depth {depth}");
        assert_eq!(lane, gen, "depth {depth} batch {batch} complete_min {min}");
    }
}

/// A check that samples ([`ReadCheck::every`] = 4) is called for the 1st, 5th, 9th, … read
/// completion and for nothing else (writes are not counted), in the general loop and through
/// the null engine's depth-1 path alike; a check of every read sees all 30.
#[test]
fn a_sampling_read_check_sees_one_read_in_every() {
    struct Every(u64, Vec<u64>);
    impl ReadCheck for Every {
        fn check(&mut self, _: &[u8], _: u32, off: u64) -> Result<(), Box<VerifyFailure>> {
            self.1.push(off);
            Ok(())
        }
        fn every(&self) -> u64 {
            self.0
        }
    }
    // 40 units: every 4th a write; reads at offsets k * 4096 for the other k.
    let stream = || {
        let mut k = 0u64;
        move |r: &mut IoRequest| {
            if k == 40 {
                return false;
            }
            let dir = if k % 4 == 3 { IoDir::Write } else { IoDir::Read };
            *r = IoRequest::new(dir, 0, k * 4096, 4096);
            k += 1;
            true
        }
    };
    let reads: Vec<u64> = (0..40u64).filter(|k| k % 4 != 3).map(|k| k * 4096).collect();
    assert_eq!(reads.len(), 30);
    for (depth, every) in [(1, 4), (8, 4), (8, 1), (8, 0)] {
        let mut e =
            (lookup("null").unwrap().ctor)(&EngineConfig::new(depth, 4096, vec![])).unwrap();
        let cfg = WorkerConfig { depth, batch_submit: 1, ..Default::default() };
        let mut check = Every(every, Vec::new());
        let stop = AtomicBool::new(false);
        let out = run_worker(
            &mut *e,
            &mut stream(),
            &mut |_: &mut [u8], _: u32, _: u64| {},
            Some(&mut check),
            &cfg,
            &stop,
            None,
        )
        .unwrap();
        assert_eq!(out.rec.dir(IoDir::Read).ios, 30);
        let want: Vec<u64> = reads.iter().copied().step_by(every.max(1) as usize).collect();
        assert_eq!(check.1, want, "depth {depth} every {every}");
    }
}

/// The advice's zero-read probe through the runner: one read in 16 is observed whether the
/// worker samples for it (no verify) or the probe counts for itself beside a verify check of
/// every read (which then checks all 256 blocks).
#[test]
fn the_read_probe_observes_one_read_in_sixteen_with_and_without_verify() {
    use iolab_engine::runner::{run_jobs, ReadProbe, RunOptions};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let d = tempfile::tempdir_in(".").unwrap();
    // Written with verify headers first, so the verifying read job has something to check.
    run(&verify_job(d.path(), &[]));
    let f = format!("--filename={}", d.path().join("v").display());
    for verify in [false, true] {
        let mut a = vec!["--name=r", &f, "--rw=read", "--bs=4k", "--size=1m"];
        if verify {
            a.push("--verify=crc32c");
        }
        let seen = Arc::new(AtomicU64::new(0));
        let s = seen.clone();
        let observe = Arc::new(move |_: usize, b: &[u8]| {
            assert_eq!(b.len(), 4096);
            s.fetch_add(1, Ordering::Relaxed);
        });
        let opts =
            RunOptions { read_probe: Some(ReadProbe { every: 16, observe }), ..Default::default() };
        let out = run_jobs(&load(&[], &a, d.path()), &opts, Arc::new(AtomicBool::new(false)), None)
            .unwrap();
        let j = &out.result.jobs[0];
        assert_eq!(j.read.total_ios, 256, "verify {verify}");
        assert_eq!(seen.load(Ordering::Relaxed), 16, "verify {verify}: 256 reads / 16");
        if verify {
            let v = j.verify.as_ref().unwrap();
            assert_eq!((v.checked, v.failed()), (256, 0));
        }
    }
}

/// The sync lane runs the read check too (the advice's zero-read probe made every default
/// psync read job take the general loop): psync on a file, mixed reads and writes, a check of
/// every read and one sampling one in 4, against the general loop on the same stream (a
/// write log that records nothing sends it there). The reads checked (offset and first
/// byte), the writes filled, the counts per direction, the depth maps and the sample counts
/// must be the same.
#[test]
fn the_sync_lane_checks_the_reads_the_general_loop_checks() {
    struct Seen(u64, Vec<(u64, u8)>);
    impl ReadCheck for Seen {
        fn check(&mut self, b: &[u8], _: u32, off: u64) -> Result<(), Box<VerifyFailure>> {
            self.1.push((off, b[0]));
            Ok(())
        }
        fn every(&self) -> u64 {
            self.0
        }
    }
    let d = tempfile::tempdir_in(".").unwrap();
    let path = d.path().join("s");
    let mut bytes = vec![0u8; 1 << 20];
    fill_pat(&mut bytes, 0, 0);
    std::fs::write(&path, &bytes).unwrap();
    let f = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
    let files = vec![EngineFile::dup(&f, false, &path).unwrap()];
    let stream = || mixed_stream(600, |k| k % 5 == 2, |_| 0, 240);
    for every in [1, 4] {
        let mut seen = Vec::new();
        for general in [false, true] {
            let mut e = (lookup("psync").unwrap().ctor)(&EngineConfig::new(1, 8192, files.clone()))
                .unwrap();
            let cfg =
                WorkerConfig { lat_log: general.then(LatLogSpec::default), ..Default::default() };
            let mut writes = Vec::new();
            let mut fill = |b: &mut [u8], f: u32, off: u64| {
                fill_pat(b, f, off);
                writes.push(off);
            };
            let mut check = Seen(every, Vec::new());
            let stop = AtomicBool::new(false);
            let out =
                run_worker(&mut *e, &mut stream(), &mut fill, Some(&mut check), &cfg, &stop, None)
                    .unwrap();
            assert!(out.error.is_none(), "{:?}", out.error);
            let rec = &out.rec;
            let dirs = dir_counts(rec);
            let maps = (rec.depth_map, rec.depth_exact[..4].to_vec(), rec.submit_map);
            seen.push((check.1, writes, dirs, maps, rec.complete_map, out.per_file));
        }
        let (lane, gen) = (&seen[0], &seen[1]);
        assert_eq!(lane.2[0].0, 480, "reads");
        assert_eq!(lane.0.len(), 480_usize.div_ceil(every as usize), "every {every}");
        // What the check saw is the file's bytes at that offset (the pattern, or a write's).
        assert!(lane.0.iter().all(|&(off, b)| b == pat(0, off)), "every {every}");
        assert_eq!(lane, gen, "every {every}");
    }
}
