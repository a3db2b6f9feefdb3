//! whole fio jobs through iolab-engine's runner: multi-file depth, numjobs, stonewall, file sizes,
//! fallocate and prefill data.

use crate::common::*;
use iolab_core::IoDir;
use iolab_engine::engines::{lookup, EngineConfig, EngineFile};
use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_engine::target::direct_supported;
use iolab_engine::worker::{run_worker, WorkerConfig};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
