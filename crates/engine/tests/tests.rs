//! Integration tests of iolab-engine: real I/O on temporary files with every engine.
#![allow(clippy::unwrap_used)]

use iolab_core::{IoDir, IoRequest};
use iolab_engine::engines::{lookup, EngineConfig, EngineFile, ENGINES};
use iolab_engine::target::{direct_supported, open_target, TargetSpec};
use iolab_engine::worker::{run_worker, ReadCheck, WorkerConfig};
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;

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
    fn check(&mut self, buf: &[u8], file: u32, off: u64) -> Result<(), String> {
        for (i, &b) in buf.iter().enumerate() {
            if b != pat(file, off + i as u64) {
                return Err(format!("byte {} at offset {off}", i));
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
            layout: false,
        },
        &mut |_, _| {},
    )
    .unwrap();
    let files = vec![EngineFile { fd: t.file.as_raw_fd(), is_block: false, path: path.clone() }];
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
    for e in ENGINES.iter().filter(|e| e.name != "null") {
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
    for e in ENGINES.iter().filter(|e| e.name != "null") {
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
    let files = vec![EngineFile { fd: f.as_raw_fd(), is_block: false, path: dir.path().join("f") }];
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
    let files =
        vec![EngineFile { fd: f.as_raw_fd(), is_block: false, path: dir.path().join("ro") }];
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
