//! Pacing against fio 3.33 (issue 34; review §1): `thinktime` is a pause after completions
//! (backend.c `handle_thinktime`), `rate`/`rate_iops` latency counts from the submission
//! (iolab's lag behind the schedule goes to `iolab.<dir>.sched_lat_ns`), and `rate_iops=R,W`
//! paces each direction (io_u.c `rate_ddir`).

use std::process::Output;

use super::{json, json_run as run};

/// `(total_ios, lat mean, clat mean)` of `dir` in the first job.
fn figs(o: &Output, dir: &str) -> (u64, f64, f64) {
    let d = json(o);
    let x = &d["jobs"][0][dir];
    (
        x["total_ios"].as_u64().unwrap_or(0),
        x["lat_ns"]["mean"].as_f64().unwrap_or(f64::NAN),
        x["clat_ns"]["mean"].as_f64().unwrap_or(f64::NAN),
    )
}

/// Review: write lat mean fio 7–18 µs, iolab 38–680 ms (the think schedule's lag). The pause
/// is outside the latency: `lat` stays within a few µs of `clat` (psync: no slat).
#[test]
fn thinktime_is_a_pause_outside_the_latency() {
    let opts = ["--size=8m", "--rw=write", "--fsync=1", "--thinktime=500", "--time_based"];
    let Some((f, i)) = run(&[&opts[..], &["--runtime=1"]].concat()) else { return };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        let (n, lat, clat) = figs(o, "write");
        assert!(n > 0 && n <= 2000, "{who}: {n} writes in 1 s with a 500 us pause after each");
        assert!(lat <= clat + 20_000.0, "{who}: lat mean {lat} ns against clat mean {clat} ns");
    }
}

/// `thinktime_blocks_type=issue` (refused before): a 100 ms pause after every 10 submitted
/// I/Os gives 100 I/Os in 1 s under both.
#[test]
fn thinktime_blocks_type_issue_pauses_after_n_submissions() {
    let Some((f, i)) = run(&[
        "--ioengine=null",
        "--size=1g",
        "--rw=randread",
        "--thinktime=100ms",
        "--thinktime_blocks=10",
        "--thinktime_blocks_type=issue",
        "--time_based",
        "--runtime=1",
    ]) else {
        return;
    };
    let (fn_, _, _) = figs(&f, "read");
    let (in_, _, _) = figs(&i, "read");
    assert_eq!(fn_, 100, "fio");
    assert_eq!(in_, fn_, "iolab against fio");
}

/// `thinktime_iotime` (refused before): a 200 ms pause once 100 ms of I/O plus the pause
/// have passed since the last one began (at 300, 600 and 900 ms), and no pause per block
/// (`thinktime_blocks` not written). The rate catches up after each pause (fio's default):
/// about 900 reads under both.
#[test]
fn thinktime_iotime_runs_as_fio() {
    let Some((f, i)) = run(&[
        "--ioengine=null",
        "--size=1g",
        "--rw=read",
        "--rate_iops=1000",
        "--thinktime=200ms",
        "--thinktime_iotime=100ms",
        "--time_based",
        "--runtime=1",
    ]) else {
        return;
    };
    let (fn_, _, _) = figs(&f, "read");
    let (in_, _, _) = figs(&i, "read");
    let near = |a: u64, b: u64| a.abs_diff(b) * 10 <= b;
    assert!(near(in_, fn_), "iolab {in_} reads against fio {fn_}");
}

/// Review: `--rate=1m` write lat mean fio 12–24 µs, iolab 57–408 µs with clat 8–17 µs. Now
/// lat counts from the submission under both, and iolab's schedule figure is beside it.
#[test]
fn rate_latency_counts_from_the_submission() {
    let Some((f, i)) =
        run(&["--size=8m", "--rw=write", "--rate=1m", "--time_based", "--runtime=1"])
    else {
        return;
    };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        let (n, lat, clat) = figs(o, "write");
        assert!((200..=300).contains(&n), "{who}: {n} writes at 256 a second");
        assert!(lat <= clat + 20_000.0, "{who}: lat mean {lat} ns against clat mean {clat} ns");
    }
    let d = json(&i);
    let s = &d["jobs"][0]["iolab"]["write"]["sched_lat_ns"];
    let (n, _, lat) = figs(&i, "write");
    assert_eq!(s["N"].as_u64(), Some(n), "one schedule latency per write: {s}");
    assert!(s["mean"].as_f64().unwrap_or(0.0) >= lat, "from the intended time: {s}");
    assert!(d["jobs"][0]["write"].get("sched_lat_ns").is_none(), "not among fio's keys");
}

/// Review: `rate_iops=300,100` on randrw: fio 300 reads and 100 writes a second, iolab 98
/// reads (held to the write rate by the 50 % mix).
#[test]
fn rate_iops_paces_each_direction() {
    let Some((f, i)) =
        run(&["--size=8m", "--rw=randrw", "--rate_iops=300,100", "--time_based", "--runtime=1"])
    else {
        return;
    };
    for (who, o) in [("fio", &f), ("iolab", &i)] {
        let (r, w) = (figs(o, "read").0, figs(o, "write").0);
        assert!(
            (270..=330).contains(&r) && (90..=110).contains(&w),
            "{who}: {r} reads, {w} writes"
        );
    }
}

/// `thinktime_blocks` below `iodepth`: fio keeps the completion count it read before the
/// quiesce, so the units the quiesce completed make the next pause come after one more
/// submission (fio 3.33: 484 reads in 1 s here; iolab counting after the quiesce: 770).
#[test]
fn thinktime_blocks_below_iodepth_counts_as_fio() {
    let Some((f, i)) = run(&[
        "--ioengine=libaio",
        "--iodepth=8",
        "--size=8m",
        "--rw=randread",
        "--thinktime=10ms",
        "--thinktime_blocks=4",
        "--time_based",
        "--runtime=1",
    ]) else {
        return;
    };
    let (fn_, _, _) = figs(&f, "read");
    let (in_, _, _) = figs(&i, "read");
    assert!(in_.abs_diff(fn_) * 4 <= fn_, "iolab {in_} reads against fio {fn_}");
}

/// `rate_ignore_thinktime` (refused before): 100 reads a second with a 500 ms pause after
/// every 50. fio catches up after each pause by default (200 reads in 2 s) and with the
/// option moves its schedule on instead (101).
#[test]
fn rate_ignore_thinktime_moves_the_schedule_on() {
    for (ignore, want) in [("--rate_ignore_thinktime=0", 200), ("--rate_ignore_thinktime=1", 101)] {
        let Some((f, i)) = run(&[
            "--ioengine=null",
            "--size=1g",
            "--rw=read",
            "--rate_iops=100",
            "--thinktime=500ms",
            "--thinktime_blocks=50",
            ignore,
            "--time_based",
            "--runtime=2",
        ]) else {
            return;
        };
        let (fn_, _, _) = figs(&f, "read");
        let (in_, _, _) = figs(&i, "read");
        assert!(fn_.abs_diff(want) <= 5, "fio {ignore}: {fn_} reads");
        assert!(in_.abs_diff(fn_) <= 10, "{ignore}: iolab {in_} reads against fio {fn_}");
    }
}
