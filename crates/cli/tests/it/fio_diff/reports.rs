//! Reports and job set-up against fio 3.33 (issue 34; review §1 and the worklist of
//! docs/fio-differences.md): `group_reporting` sums `job_runtime` over the group's jobs,
//! `fsync=N` issues no sync after the last write, `numjobs` with `offset_increment` extends a
//! new file, and a `bs` written after `bsrange` keeps the range.

use std::process::Output;

use super::{both, json, json_run as run};

/// Review: `numjobs=3 rate_iops=1000 group_reporting`: fio job_runtime 6144 (summed over the
/// jobs, stat.c `sum_thread_stats`), iolab 2047. Here three jobs of 256 writes at 1000 a
/// second: about 3 × 255 ms.
#[test]
fn group_reporting_sums_job_runtime() {
    let Some((f, i)) =
        run(&["--size=1m", "--rw=write", "--numjobs=3", "--rate_iops=1000", "--group_reporting"])
    else {
        return;
    };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        let d = json(o);
        let rt = d["jobs"][0]["job_runtime"].as_u64().unwrap_or(0);
        assert!((650..=1000).contains(&rt), "{who}: job_runtime {rt} ms for 3 jobs of ~255 ms");
    }
}

/// Review: `fsync=4` over 256 writes: fio 63 syncs (none after the last write: do_io's loop
/// ends with the bytes), iolab 64.
#[test]
fn fsync_every_4_issues_63_syncs_over_256_writes() {
    let Some((f, i)) = run(&["--size=1m", "--rw=write", "--fsync=4"]) else { return };
    let syncs = |o: &Output| json(o)["jobs"][0]["sync"]["total_ios"].as_u64();
    assert_eq!(syncs(&f), Some(63), "fio");
    assert_eq!(syncs(&i), syncs(&f), "iolab against fio");
}

/// Review: `fdatasync=8` over 256 writes: fio's sync section has `total_ios` 0 (it counts
/// fsyncs only) and latencies of 31 syncs; iolab counted 32 and 32.
#[test]
fn fdatasync_counts_in_the_sync_latencies_only() {
    let Some((f, i)) = run(&["--size=1m", "--rw=write", "--fdatasync=8"]) else { return };
    let sync = |o: &Output| {
        let d = json(o);
        let s = &d["jobs"][0]["sync"];
        (s["total_ios"].as_u64(), s["lat_ns"]["N"].as_u64())
    };
    assert_eq!(sync(&f), (Some(0), Some(31)), "fio");
    assert_eq!(sync(&i), sync(&f), "iolab against fio");
}

/// Review: `--filename=sf --size=1m --numjobs=2 --offset_increment=1m --rw=read` on a new
/// file: fio extends sf to 2 MiB and both jobs read 256 blocks; iolab refused the second
/// job ("file is 1048576 bytes but the job's region needs 2097152").
#[test]
fn numjobs_with_offset_increment_extends_a_new_file() {
    let Some((f, i)) = both(&[
        "--name=s",
        "--filename=sf",
        "--size=1m",
        "--numjobs=2",
        "--offset_increment=1m",
        "--rw=read",
        "--output-format=json",
    ]) else {
        return;
    };
    let reads = |o: &Output| {
        let d = json(o);
        let js = d["jobs"].as_array().cloned().unwrap_or_default();
        js.iter().map(|j| j["read"]["total_ios"].as_u64().unwrap_or(0)).collect::<Vec<_>>()
    };
    assert_eq!(f.status.code(), i.status.code(), "{}", String::from_utf8_lossy(&i.stderr));
    assert_eq!(reads(&f), [256, 256], "fio");
    assert_eq!(reads(&i), reads(&f), "iolab against fio");
}

/// Review (worklist): `--bsrange=4k-64k --bs=4k`: fio keeps the range (init.c
/// `fixup_options` falls back to `bs` only where no range was given) and issues 35 writes
/// over 1 MiB; iolab took `bs` and issued 256. The sizes drawn depend on the seeding, so
/// both are held to what a 4k–64k range gives: between 16 and 64 writes.
#[test]
fn bs_after_bsrange_keeps_the_range() {
    let Some((f, i)) = run(&["--size=1m", "--rw=write", "--bsrange=4k-64k", "--bs=4k"]) else {
        return;
    };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        let n = json(o)["jobs"][0]["write"]["total_ios"].as_u64().unwrap_or(0);
        assert!((16..=64).contains(&n), "{who}: {n} writes of 4k-64k over 1 MiB");
    }
}
