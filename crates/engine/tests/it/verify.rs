//! fio's verify through iolab-engine's runner: write-then-verify, verify_only, checksum names,
//! misplaced and stale blocks, verify_fatal, trims refused.

use crate::common::*;
use iolab_engine::runner::{run_jobs, RunOptions};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
fn verify_with_trims_is_refused_by_name() {
    let d = tempfile::tempdir_in(".").unwrap();
    // randtrim writes nothing: no stamps, no phase, so it runs.
    let jobs = verify_job(d.path(), &["--rw=randtrim"]);
    let e = run_jobs(&jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None);
    assert!(e.is_ok(), "{:?}", e.err().map(|e| e.to_string()));
    // trimwrite is refused when the job is read (`iolab parse` as well as `run`).
    let text = "[v]\nfilename=v\nrw=trimwrite\nbs=4k\nsize=1m\nverify=crc32c\n";
    let msg = iolab_job::parse_str("v.fio", text).map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("'verify': bad value 'crc32c'") && msg.contains("trim"), "{msg}");
}
