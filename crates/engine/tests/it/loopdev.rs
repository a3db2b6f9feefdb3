//! iolab-engine on a loop device (root): page-cache invalidation between passes, size safety and
//! identical data.

use crate::common::*;
use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_test_support::LoopDev;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A loop device over a sparse file (iolab-test-support's, detached on drop).
struct Loop {
    dev: String,
    _lo: LoopDev,
}

fn loop_device(backing: &Path) -> Result<Loop, String> {
    let lo = LoopDev::attach(backing, &[]).map_err(|e| e.to_string())?;
    Ok(Loop { dev: lo.device().display().to_string(), _lo: lo })
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
