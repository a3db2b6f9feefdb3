//! iolab-job on the shared job files (../shared/jobs): every file parses, with the groups, seeds
//! and sizes each one sets.

use crate::common::*;
use iolab_core::Nanos;
use iolab_job::*;

// ---------------------------------------------------------------- shared job files

#[test]
fn every_shared_job_file_parses() {
    let mut n = 0;
    for e in std::fs::read_dir(shared().join("jobs")).unwrap() {
        let p = e.unwrap().path();
        let opts = LoadOptions { files: vec![p.clone()], ..Default::default() };
        let parsed = load_with(&opts, &env());
        if p.ends_with("seed-windows-physicaldrive.fio") {
            // windowsaio: refused when read, as `iolab run` refuses it (and fio on Linux).
            assert!(parsed.is_err(), "{}", p.display());
            continue;
        }
        let parsed = parsed.unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(!parsed.jobs.is_empty(), "{}", p.display());
        n += 1;
    }
    assert_eq!(n, 10);
}

#[test]
fn multi_file_shared_depth() {
    let p = load_job("runnable-multi-file-shared-depth.fio");
    let j = &p.jobs[0];
    assert_eq!(j.name, "random-read");
    assert_eq!(j.section, "job1");
    assert_eq!(j.filenames, ["/mnt/t/d1", "/mnt/t/d2", "/mnt/t/d3", "/mnt/t/d4"]);
    assert_eq!(j.bs.read.min, 8192);
    assert_eq!(j.iodepth, 32);
    assert_eq!(j.ioengine, "libaio");
    assert!(j.direct && !j.randrepeat && j.group_reporting && j.time_based);
    assert_eq!(j.runtime, Some(Nanos::from_secs(5)));
    assert_eq!(j.filesize, Some((64 * MB, 64 * MB)));
    assert_eq!(j.rw, RwKind::RandRead);
    let o = &j.options["filename"];
    assert_eq!(o.raw, "${TESTDIR}/d1:${TESTDIR}/d2:${TESTDIR}/d3:${TESTDIR}/d4");
    assert!(
        matches!(&o.origin, Origin::File { line: 16, section, .. } if section == "job1"),
        "{:?}",
        o.origin
    );
    let bs = &j.options["bs"];
    assert!(matches!(&bs.origin, Origin::File { line: 4, section, .. } if section == "global"));
}

#[test]
fn threads_vs_aio_stonewall_and_groups() {
    let p = load_job("runnable-threads-vs-aio.fio");
    assert_eq!(p.jobs.len(), 2);
    let (a, b) = (&p.jobs[0], &p.jobs[1]);
    assert_eq!((a.name.as_str(), a.numjobs, a.ioengine.as_str()), ("randwrite-threads", 8, "sync"));
    assert_eq!((b.name.as_str(), b.numjobs, b.iodepth), ("randwrite-aio", 1, 8));
    assert!(!a.stonewall && b.stonewall);
    assert_eq!((a.group_id, b.group_id), (0, 1));
    assert_eq!(a.size, Some(SizeSpec::Bytes(256 * MB)));
    assert_eq!(a.filenames, ["/mnt/t/file1"]);
}

#[test]
fn compressible_seed() {
    let j = &load_job("seed-compressible.fio").jobs[0];
    assert_eq!(j.bs.write.min, 64 * 1024);
    assert_eq!(j.size, Some(SizeSpec::Bytes(64 * MB)));
    assert_eq!(j.rw, RwKind::Write);
    assert_eq!(j.opt_u64("buffer_compress_percentage"), Some(50));
    assert_eq!(j.opt_bool("refill_buffers"), Some(true));
    assert_eq!(j.options["buffer_pattern"].raw, "0xdeadbeef");
}

#[test]
fn multi_device_seeds() {
    let one_job = load_job("seed-multi-device-one-job.fio");
    assert_eq!(one_job.jobs.len(), 1);
    assert_eq!(one_job.jobs[0].filenames.len(), 8);
    assert_eq!(one_job.jobs[0].filenames[1], "/dev/sda");
    assert_eq!(one_job.jobs[0].filesize, Some((6 * GB, 6 * GB)));
    assert_eq!(one_job.jobs[0].iodepth, 128);
    let per_job = load_job("seed-multi-device-per-job.fio");
    assert_eq!(per_job.jobs.len(), 8);
    // `name=raw=random-read`: the value is everything after the first '='.
    assert!(per_job.jobs.iter().all(|j| j.name == "raw=random-read" && j.group_id == 0));
    assert_eq!(per_job.jobs[7].section, "job8");
    assert_eq!(per_job.jobs[7].filenames, ["/dev/sdi"]);
    assert_eq!(per_job.jobs[0].filesize, Some((2 * GB, 2 * GB)));
}

#[test]
fn sata_vs_sas_trailing_blanks() {
    let j = &load_job("seed-sata-vs-sas.fio").jobs[0];
    assert_eq!(j.rw, RwKind::RandRead);
    assert_eq!(j.filenames, ["/dev/sdf1"]);
    assert_eq!(j.runtime, Some(Nanos::from_secs(10)));
    assert_eq!(j.filesize, Some((GB, GB)));
}

#[test]
fn vdbench_seeds() {
    let t = &load_job("seed-vdbench-threads.fio").jobs[0];
    assert_eq!((t.numjobs, t.iodepth, t.ioengine.as_str()), (8, 8, "sync"));
    assert_eq!(t.size, Some(SizeSpec::Bytes(1800 * MB)));
    let a = &load_job("seed-vdbench-aio.fio").jobs[0];
    assert_eq!((a.numjobs, a.iodepth, a.ioengine.as_str()), (1, 8, "libaio"));
    assert_eq!(a.filenames, ["/a/file1"]);
}

#[test]
fn windows_seeds() {
    let j = &load_job("seed-windows-drive-letter.fio").jobs[0];
    assert_eq!(j.filenames, ["F:fiofile"]);
    assert_eq!(j.bs.read.min, MB);
    assert_eq!(j.size, Some(SizeSpec::Bytes(GB)));
    let two = load_job("seed-windows-two-drives.fio");
    assert_eq!(two.jobs[0].filenames, ["F:fiofile"]);
    assert_eq!(two.jobs[1].filenames, ["G:fiofile"]);
    assert!(two.jobs.iter().all(|j| j.group_reporting && j.group_id == 0));
    // A Windows-only engine is refused when the job is read, naming the engine, the line
    // and what to use on Linux (`iolab run` refuses it; fio on Linux cannot load it either).
    let opts = LoadOptions {
        files: vec![shared().join("jobs").join("seed-windows-physicaldrive.fio")],
        ..Default::default()
    };
    let e = load_with(&opts, &env()).unwrap_err().to_string();
    assert!(e.contains("physicaldrive.fio:8: option 'ioengine': bad value 'windowsaio'"), "{e}");
    assert!(e.contains("Windows only") && e.contains("libaio or io_uring on Linux"), "{e}");
}
