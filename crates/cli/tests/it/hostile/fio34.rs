//! Probes for issue 34 (fio conformance): the think-time options the worker now acts on
//! (`thinktime_iotime`, `thinktime_blocks_type=issue`, `thinktime_spin` above `thinktime`),
//! per-direction `rate_iops`, `bs` after `bsrange`, and `numjobs` with `offset_increment`
//! extending a new file: huge, negative, zero, NaN, infinite and overflowing values are
//! refused naming the option; valid ones run and stop within their runtime.

use super::runner::{After, Oracle, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

const BASE: &[&str] = &["run", "--name=h", "--ioengine=null", "--directory={W}"];

fn run(name: &str, extra: &[&str], o: Oracle) -> Probe {
    let mut a: Vec<&str> = BASE.to_vec();
    a.extend(extra);
    Probe::new("fio34", name.to_string(), &a, o).limit(8.0)
}

/// `(label, value, refused)` for a numeric option.
const VALUES: &[(&str, &str, bool)] = &[
    ("huge", "99999999999999999999999", true),
    ("negative", "-1", true),
    ("nan", "nan", true),
    ("inf", "inf", true),
    ("u64+1", "18446744073709551616", true),
    ("1e-300", "1e-300", true),
    ("zero", "0", false),
];

pub fn probes() -> Vec<Probe> {
    let mut v = Vec::new();
    let think = ["--size=64k", "--thinktime=1ms", "--runtime=1"];
    for opt in ["thinktime_iotime", "thinktime_spin", "thinktime_blocks"] {
        for &(label, val, refused) in VALUES {
            let flag = format!("--{opt}={val}");
            let mut extra = think.to_vec();
            extra.push(&flag);
            let o = if refused { err(&[opt]) } else { Oracle::Ok };
            v.push(run(&format!("run --{opt}={label}"), &extra, o));
        }
    }
    for bad in ["issued", "", "complete,issue"] {
        let flag = format!("--thinktime_blocks_type={bad}");
        v.push(run(
            &format!("run --thinktime_blocks_type='{bad}'"),
            &["--size=64k", "--thinktime=1ms", &flag],
            err(&["thinktime_blocks_type"]),
        ));
    }
    v.extend(runs());
    v.extend(ranges_and_zones());
    v
}

/// fio's range grammar (`bsrange` as parse.c reads it, the tail fio drops after a number)
/// and `zonemode=strided`'s options: huge, negative, zero, NaN and overflowing values are
/// refused naming the option; fio's own forms run.
fn ranges_and_zones() -> Vec<Probe> {
    let ok = |name: &str, extra: &[&str]| run(name, extra, Oracle::Ok);
    let no = |name: &str, extra: &[&str], opt: &str| run(name, extra, err(&[opt]));
    let mut v = vec![
        ok(
            "bsrange t0023 form",
            &["--size=1m", "--rw=randrw", "--bsrange=512/25:1k:25:2k:25:4k/25"],
        ),
        ok("bsrange=1k-4k/8k-32k", &["--size=1m", "--bsrange=1k-4k/8k-32k"]),
        ok("bsrange=1k-4k, (trailing comma)", &["--size=1m", "--rw=randrw", "--bsrange=1k-4k,"]),
        ok("filesize=1m) (t/strided.py)", &["--size=1m", "--filesize=1m)"]),
    ];
    for (label, val) in [
        ("1k-4x", "1k-4x"),
        ("nan-4k", "nan-4k"),
        ("-1k-4k", "-1k-4k"),
        ("0-0", "0-0"),
        ("1k-16777216t", "1k-16777216t"),
        ("1k-4k,,,", "1k-4k,,,"),
    ] {
        let flag = format!("--bsrange={val}");
        v.push(no(&format!("bsrange={label}"), &["--size=1m", &flag], "bsrange"));
    }
    v.push(no("filesize=1.5m)", &["--size=1m", "--filesize=1.5m)"], "filesize"));
    v.push(no("size=2^64)", &["--size=18446744073709551616)"], "size"));
    v.extend(zones());
    v.extend(verify_intervals());
    v.extend(verify_backlogs());
    v
}

/// `verify_backlog` and `verify_backlog_batch`: malformed values refused naming the option;
/// 0, the largest values and the in-flight cases (a queue deeper than the backlog, random
/// writes with their random map) run and verify clean.
fn verify_backlogs() -> Vec<Probe> {
    let mut v = Vec::new();
    let verify = ["--size=256k", "--rw=write", "--verify=md5", "--bs=4k", "--ioengine=psync"];
    let with = |extra: &[&str]| -> Vec<String> {
        verify.iter().copied().chain(extra.iter().copied()).map(String::from).collect()
    };
    for opt in ["verify_backlog", "verify_backlog_batch"] {
        for &(label, val, refused) in VALUES {
            let flag = format!("--{opt}={val}");
            let base = if opt == "verify_backlog" {
                "--verify_backlog_batch=0"
            } else {
                "--verify_backlog=4"
            };
            let a = with(&[base, &flag]);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let o = if refused { err(&[opt]) } else { Oracle::Ok };
            v.push(run(&format!("{opt}={label}"), &a, o));
        }
    }
    for (name, extra) in [
        ("verify_backlog=u64max", &["--verify_backlog=18446744073709551615"][..]),
        ("verify_backlog_batch=2^32", &["--verify_backlog=1", "--verify_backlog_batch=4294967296"]),
        (
            "verify_backlog=1 libaio iodepth=16",
            &["--verify_backlog=1", "--ioengine=libaio", "--iodepth=16"],
        ),
        (
            "verify_backlog=3 io_uring iodepth=8 randwrite",
            &["--verify_backlog=3", "--ioengine=io_uring", "--iodepth=8", "--rw=randwrite"],
        ),
        (
            "verify_backlog=2 rw=randrw norandommap",
            &["--verify_backlog=2", "--rw=randrw", "--norandommap"],
        ),
        (
            "verify_backlog=8 loops=2 number_ios=5",
            &["--verify_backlog=8", "--loops=2", "--number_ios=5"],
        ),
        ("verify_backlog=1 without verify", &["--verify=0", "--verify_backlog=1"]),
        ("verify_backlog=1 do_verify=0", &["--do_verify=0", "--verify_backlog=1"]),
    ] {
        let a = with(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        v.push(run(name, &a, Oracle::Ok));
    }
    v
}

/// `zonemode=strided` and its sizes.
fn zones() -> Vec<Probe> {
    let ok = |name: &str, extra: &[&str]| run(name, extra, Oracle::Ok);
    let no = |name: &str, extra: &[&str], opt: &str| run(name, extra, err(&[opt]));
    let strided = ["--size=1m", "--rw=randread", "--zonemode=strided"];
    let with = |extra: &[&'static str]| {
        let mut a = strided.to_vec();
        a.extend_from_slice(extra);
        a
    };
    let mut v = vec![
        no("zonemode=zbd", &["--size=1m", "--zonemode=zbd", "--zonesize=64k"], "zbd"),
        no("zonemode=nan", &["--size=1m", "--zonemode=nan"], "zonemode"),
        no("zonemode=strided without zonesize", &with(&[]), "zonemode"),
        no("zonesize without zonemode", &["--size=1m", "--zonesize=64k"], "zonesize"),
        ok("zonesize=0 without zonemode", &["--size=1m", "--zonesize=0"]),
        ok("zonesize=u64max", &with(&["--zonesize=18446744073709551615"])),
        ok("zonesize=1 (below bs)", &with(&["--zonesize=1", "--runtime=2"])),
        ok("zoneskip=u64max", &with(&["--zonesize=64k", "--zoneskip=18446744073709551615"])),
        ok("zonerange=u64max", &with(&["--zonesize=64k", "--zonerange=18446744073709551615"])),
        ok("zoneskip=2z", &with(&["--zonesize=64k", "--zoneskip=2z"])),
        no(
            "zoneskip=18446744073709551615z",
            &with(&["--zonesize=64k", "--zoneskip=18446744073709551615z"]),
            "zoneskip",
        ),
        no(
            "zoneskip=99999999999999999999999z",
            &with(&["--zonesize=64k", "--zoneskip=99999999999999999999999z"]),
            "zoneskip",
        ),
        ok(
            "strided rw=randtrimwrite",
            &[
                "--size=1m",
                "--rw=randtrimwrite",
                "--zonemode=strided",
                "--zonesize=64k",
                "--zoneskip=64k",
            ],
        ),
        ok(
            "strided rw=rw mixed",
            &["--size=1m", "--rw=rw", "--zonemode=strided", "--zonesize=8k", "--zoneskip=8k"],
        ),
        ok(
            "strided nrfiles=2 (off, warned)",
            &["--size=1m", "--nrfiles=2", "--zonemode=strided", "--zonesize=64k"],
        ),
    ];
    v.extend(zone_sizes());
    v
}

/// `verify_interval`: malformed values refused, fio's fixups applied.
fn verify_intervals() -> Vec<Probe> {
    let mut v = Vec::new();
    // A file the job writes and reads back (the null engine moves no data to verify).
    let verify = ["--size=256k", "--rw=write", "--verify=md5", "--bs=4k", "--ioengine=psync"];
    for &(label, val, _) in VALUES {
        // fio's minimum is 96: 0 and every malformed value are refused.
        let flag = format!("--verify_interval={val}");
        let extra: Vec<&str> = verify.iter().copied().chain([flag.as_str()]).collect();
        v.push(run(&format!("verify_interval={label}"), &extra, err(&["verify_interval"])));
    }
    // 128 divides 4k but cannot hold iolab's 80-byte header with data; 100 does not divide
    // 4k, so fio's fixup makes it the gcd of the write sizes (4k).
    for (val, ok_) in [("128", false), ("100", true), ("512", true), ("1m", true)] {
        let flag = format!("--verify_interval={val}");
        let extra: Vec<&str> = verify.iter().copied().chain([flag.as_str()]).collect();
        let o = if ok_ { Oracle::Ok } else { err(&["verify_interval"]) };
        v.push(run(&format!("verify_interval={val}"), &extra, o));
    }
    v
}

/// Each zone size: huge, negative, NaN, overflowing and percentages refused.
fn zone_sizes() -> Vec<Probe> {
    let mut v = Vec::new();
    let strided = ["--size=1m", "--rw=randread", "--zonemode=strided"];
    for opt in ["zonesize", "zonerange", "zoneskip"] {
        for &(label, val, refused) in VALUES {
            let flag = format!("--{opt}={val}");
            let mut extra = strided.to_vec();
            if opt != "zonesize" {
                extra.push("--zonesize=64k");
            }
            extra.push(&flag);
            // zonesize=0 with zonemode=strided is fio's refusal.
            let o = if refused || (opt == "zonesize" && val == "0") {
                err(&["zone"])
            } else {
                Oracle::Ok
            };
            v.push(run(&format!("run --{opt}={label}"), &extra, o));
        }
        let flag = format!("--{opt}=10%");
        let extra: Vec<&str> =
            strided.iter().copied().chain(["--zonesize=64k", flag.as_str()]).collect();
        v.push(run(&format!("{opt}=10%"), &extra, err(&[opt])));
    }
    v
}

/// Valid pacing and set-up jobs that must run (and stop within their runtime), and the
/// refusals that need a whole job line.
fn runs() -> Vec<Probe> {
    let mut v = vec![
        // A pause as long as the runtime, spun and slept: ends with the runtime.
        run(
            "thinktime=u64max ns spin=u64max ns iotime=1 runtime=1 stops",
            &[
                "--size=64k",
                "--time_based",
                "--runtime=1",
                "--thinktime=18446744073709551615ns",
                "--thinktime_spin=18446744073709551615ns",
                "--thinktime_iotime=1",
                "--thinktime_blocks_type=issue",
            ],
            Oracle::Ok,
        ),
        run(
            "rate_iops=300,100 randrw runtime=1",
            &["--size=1m", "--rw=randrw", "--rate_iops=300,100", "--time_based", "--runtime=1"],
            Oracle::Ok,
        ),
        run(
            "rate_iops=,1 randrw rwmixread=100 runtime=1",
            &["--size=1m", "--rw=randrw", "--rwmixread=100", "--rate_iops=,1", "--runtime=1"],
            Oracle::Ok,
        ),
        run("rate_iops=1,nan", &["--size=1m", "--rw=randrw", "--rate_iops=1,nan"], {
            err(&["rate_iops"])
        }),
        run(
            "rate_ignore_thinktime=1 rate_iops=100 thinktime=u64max ns runtime=1 stops",
            &[
                "--size=64k",
                "--rate_iops=100",
                "--rate_ignore_thinktime=1",
                "--thinktime=18446744073709551615ns",
                "--time_based",
                "--runtime=1",
            ],
            Oracle::Ok,
        ),
        run("rate_ignore_thinktime=nan", &["--size=64k", "--rate_ignore_thinktime=nan"], {
            err(&["rate_ignore_thinktime"])
        }),
        run("bsrange=4k-64k then bs=0", &["--size=1m", "--bsrange=4k-64k", "--bs=0"], {
            err(&["bs"])
        }),
        run("bsrange=4k-64k then bs=4k", &["--size=1m", "--bsrange=4k-64k", "--bs=4k"], Oracle::Ok),
    ];
    // numjobs with offset_increment past a new file's end: the file grows to 2 MiB (fio).
    v.push(
        Probe::new(
            "fio34",
            "run read numjobs=2 offset_increment=1m on a new file",
            &[
                "run",
                "--name=s",
                "--ioengine=psync",
                "--directory={W}",
                "--filename=sf",
                "--size=1m",
                "--numjobs=2",
                "--offset_increment=1m",
                "--rw=read",
            ],
            Oracle::Ok,
        )
        .after(After::FileLen("sf", 2 << 20))
        .limit(15.0),
    );
    v
}
