//! The probe tables of the hostile-input harness: generated combinations of numeric flags ×
//! hostile values, input paths × hostile file kinds, output paths × special files, job-file
//! texts, traces, devices and signals, grouped by the family that owns the fix (issue 12 §4,
//! §6; the reliability review of November 2026).

use super::runner::{After, Oracle, Prep, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

fn ok_or_err(needles: &[&str]) -> Oracle {
    Oracle::OkOrErr(needles.iter().map(|s| s.to_string()).collect())
}

/// A 100 KiB value: the longest single argument is 128 KiB (MAX_ARG_STRLEN); the 10 MB case
/// goes through a job file.
fn long_value() -> String {
    "7".repeat(100 * 1024)
}

/// Hostile values for a numeric option: (label, value, must it be refused).
fn numeric_values() -> Vec<(&'static str, String, bool)> {
    vec![
        ("huge", "99999999999999999999999".into(), true),
        ("negative", "-1".into(), true),
        ("nan", "nan".into(), true),
        ("inf", "inf".into(), true),
        ("zero", "0".into(), false),
        ("u64+1", "18446744073709551616".into(), true),
        ("1e-300", "1e-300".into(), true),
        ("long", long_value(), true),
        // fio's per-direction lists keep the default for an empty element.
        ("empty", String::new(), false),
    ]
}

const RUN_BASE: &[&str] = &["run", "--name=h", "--ioengine=null", "--directory={W}"];

/// Each fio numeric option × each hostile value, on a null-engine run; the family owning it.
fn fio_numeric() -> Vec<Probe> {
    let opts: &[(&str, &str, &[&str])] = &[
        ("hostile", "bs", &["--size=1m"]),
        ("hostile", "size", &[]),
        ("hostile", "numjobs", &["--size=64k"]),
        ("hostile", "iodepth", &["--size=64k"]),
        ("hostile", "filesize", &["--size=64k"]),
        ("hostile", "io_size", &["--size=64k"]),
        ("hostile", "rwmixread", &["--size=64k", "--rw=randrw"]),
        ("hostile", "bssplit", &["--size=64k"]),
        ("hostile", "blockalign", &["--size=64k", "--rw=randread"]),
        ("safety", "offset", &["--size=64k"]),
        ("safety", "offset_increment", &["--size=64k", "--numjobs=2"]),
        ("clock", "runtime", &["--size=64k"]),
        ("clock", "ramp_time", &["--size=64k"]),
        ("clock", "thinktime", &["--size=64k"]),
        ("clock", "rate_iops", &["--size=64k"]),
        ("clock", "rate", &["--size=64k"]),
        ("clock", "startdelay", &["--size=64k"]),
        ("perf", "nrfiles", &["--size=64k"]),
        ("dropin", "randseed", &["--size=64k", "--rw=randread"]),
        ("dropin", "zonesize", &["--size=64k"]),
    ];
    let mut v = Vec::new();
    for &(fam, opt, extra) in opts {
        for (label, val, refuse) in numeric_values() {
            // Zero is a valid value for several options (offset, runtime, thinktime, seeds).
            // The registry's name of blockalign is its alias `ba`.
            let need = if opt == "blockalign" { "ba" } else { opt };
            let o = if refuse { err(&[need]) } else { ok_or_err(&[need]) };
            let fam = if label == "1e-300" && fam == "hostile" { "hostile" } else { fam };
            let mut args: Vec<String> = RUN_BASE.iter().map(|s| s.to_string()).collect();
            args.extend(extra.iter().map(|s| s.to_string()));
            args.push(format!("--{opt}={val}"));
            let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            v.push(Probe::new(fam, format!("run --{opt}={label}"), &refs, o).limit(10.0));
        }
        let mut args: Vec<&str> = RUN_BASE.to_vec();
        args.extend(extra);
        args.push("x");
        // Not UTF-8: refused by the argument parser before any option is read.
        let p = Probe::new(fam, format!("run --{opt}=<binary>"), &args, err(&["invalid UTF-8"]));
        let mut raw = format!("--{opt}=").into_bytes();
        raw.extend_from_slice(&[0xff, 0xfe, 0x01, 0x1b, b'[', b'2', b'J', 0x80]);
        v.push(p.raw_last(raw));
    }
    v
}

/// The limits of issue 12 §6 that this branch fixes, each with the figure a user checks.
fn own_limits() -> Vec<Probe> {
    let r = |name: &str, extra: &[&str], o: Oracle| {
        let mut a: Vec<&str> = RUN_BASE.to_vec();
        a.extend(extra);
        Probe::new("hostile", name.to_string(), &a, o).limit(15.0)
    };
    let mut v = vec![
        r(
            "run randread size=1p (random map)",
            &["--rw=randread", "--size=1p"],
            err(&["random map", "norandommap"]),
        ),
        r(
            "run randread size=1p norandommap",
            &["--rw=randread", "--size=1p", "--norandommap", "--number_ios=1000"],
            Oracle::Ok,
        ),
        r("run bs=32g", &["--bs=32g", "--size=64g"], err(&["err=12"])),
        r("run bsrange=4k-1t", &["--bsrange=4k-1t", "--size=2t"], err(&["err=12"])),
        r(
            "run numjobs=100000",
            &["--size=64k", "--numjobs=100000"],
            err(&["maximum number of jobs", "4096"]),
        )
        .limit(5.0),
        r(
            "run two sections over 4096 jobs",
            &["--size=64k", "--numjobs=3000", "--name=b", "--size=64k", "--numjobs=1100"],
            err(&["maximum number of jobs"]),
        )
        .limit(5.0),
        r("run size=((-1)^0.5)", &["--size=((-1)^0.5)"], err(&["size", "NaN"])),
        r("run size=(0/0.0)", &["--size=(0/0.0)"], err(&["size"])),
        r(
            "run size=16777216.0 (fio reads 16 MiB)",
            &["--size=16777216.0", "--rw=read"],
            Oracle::Ok,
        ),
        r("run size=65536. (fio reads 64 KiB)", &["--size=65536.", "--rw=read"], Oracle::Ok),
        r("run size=+65536", &["--size=+65536"], Oracle::Ok),
        r("run size=0x10000", &["--size=0x10000"], Oracle::Ok),
        r("run size=1.0k (fio reads 1)", &["--size=1.0k"], err(&["size"])),
    ];
    for val in ["nan", "inf", "1e30", "99999999999999999999", "1e-300", "0", "-1", "0.01"] {
        v.push(r(
            &format!("run --status-interval={val}"),
            &["--size=64k", &format!("--status-interval={val}")],
            err(&["status-interval"]),
        ));
    }
    v.push(r("run --status-interval=1", &["--size=64k", "--status-interval=1"], Oracle::Ok));
    // Issue 13: fio 3.33's seeds, by flag and by job option.
    for (val, o) in [
        ("3.33", Oracle::Ok),
        ("current", Oracle::Ok),
        ("3.2", err(&["--fio-seeds=3.2", "3.33"])),
        ("", err(&["--fio-seeds", "3.33"])),
        ("nan", err(&["--fio-seeds=nan", "3.33"])),
    ] {
        let flag = format!("--fio-seeds={val}");
        v.push(r(&format!("run {flag}"), &["--size=64k", "--rw=randread", &flag], o));
    }
    for (val, o) in [
        ("3.33", Oracle::Ok),
        ("3.2", err(&["iolab_fio_seeds", "3.33"])),
        ("", err(&["iolab_fio_seeds"])),
    ] {
        let opt = format!("--iolab_fio_seeds={val}");
        v.push(r(&format!("run {opt}"), &["--size=64k", "--rw=randread", &opt], o));
    }
    // write_iolog as a job option: a missing directory is one line naming the path.
    v.push(r(
        "run write_iolog=missing dir",
        &["--size=64k", "--write_iolog=/nonexistent-iolab-dir/x.log"],
        err(&["/nonexistent-iolab-dir"]),
    ));
    v.push(r("run write_iolog={W}/j.log", &["--size=64k", "--write_iolog={W}/j.log"], Oracle::Ok));
    v
}

fn fill_probes() -> Vec<Probe> {
    let f = |name: &str, a: &[&str], o: Oracle| {
        let mut args = vec!["fill"];
        args.extend(a);
        Probe::new("hostile", format!("fill {name}"), &args, o).limit(20.0)
    };
    let mut v = vec![
        f("1T monte-carlo 1", &["--entries", "1T", "--monte-carlo", "1"], err(&["monte-carlo"])),
        f("1G monte-carlo 5", &["--entries", "1G", "--monte-carlo", "5"], err(&["monte-carlo"])),
        f(
            "zipf:3 monte-carlo 1",
            &["--entries", "1M", "--pattern", "zipf:3", "--monte-carlo", "1"],
            err(&["monte-carlo"]),
        ),
        f("1T zipf:1.1", &["--entries", "1T", "--pattern", "zipf:1.1"], Oracle::Ok).limit(40.0),
        f("1T uniform", &["--entries", "1T"], Oracle::Ok),
        // --output-format: empty, binary, huge, and a format fill has not; one line each.
        f("output-format=''", &["--entries", "1k", "--output-format="], err(&["format"])),
        f(
            "output-format=binary",
            &["--entries", "1k", "--output-format=\u{1}\u{7f}"],
            err(&["format"]),
        ),
        f("output-format=csv", &["--entries", "1k", "--output-format=csv"], err(&["csv", "html"])),
        f("1M monte-carlo 3", &["--entries", "100k", "--monte-carlo", "3"], Oracle::Ok)
            .after(After::Stdout("3 of 3 runs filled")),
        f("zipf:1e300", &["--entries", "1M", "--pattern", "zipf:1e300"], err(&["zipf"])),
        f(
            "zipf:15 over 1G (underflow)",
            &["--entries", "1G", "--pattern", "zipf:15"],
            err(&["zipf"]),
        ),
        f("zipf:nan", &["--entries", "1M", "--pattern", "zipf:nan"], err(&["zipf"])),
        f("zipf:0", &["--entries", "1M", "--pattern", "zipf:0"], err(&["zipf"])),
        f("pattern junk", &["--entries", "1M", "--pattern", "\u{1b}[2J"], err(&["pattern"])),
    ];
    for val in ["nan", "inf", "-1", "0", "1e300"] {
        v.push(f(
            &format!("--observed-passes {val}"),
            &["--entries=1M", &format!("--observed-passes={val}")],
            err(&["observed-passes"]),
        ));
    }
    for (label, val, _) in numeric_values() {
        v.push(f(&format!("--entries {label}"), &[&format!("--entries={val}")], err(&["entries"])));
        if label != "zero" {
            v.push(f(
                &format!("--iops {label}"),
                &["--entries=1M", &format!("--iops={val}")],
                err(&["iops"]),
            ));
        }
    }
    v
}

fn trace_fixture() -> String {
    "{F}/t.csv".into()
}

fn replay_probes() -> Vec<Probe> {
    let rp = |name: &str, a: &[&str], o: Oracle| {
        let t = trace_fixture();
        let mut args = vec!["replay", t.as_str(), "--filename", "{W}/target", "--limit", "50"];
        args.extend(a);
        Probe::new("hostile", format!("replay {name}"), &args, o).after(After::NoLeftovers(vec![]))
    };
    let mut v = Vec::new();
    for (flag, vals) in [
        ("--iodepth", &["0", "65537", "-1", "nan", "99999999999"][..]),
        ("--direct", &["2", "255", "-1", "x"][..]),
        ("--speed", &["nan", "inf", "1e-300", "0", "-1", "1e300"][..]),
        ("--ioengine", &["bogus", "\u{1}", ""][..]),
        ("--limit", &["-1", "nan", "18446744073709551616"][..]),
        ("--output-format", &["bogus"][..]),
    ] {
        for val in vals {
            let fv = format!("{flag}={val}");
            let a = [fv.as_str(), "--timed"];
            let need = flag.trim_start_matches('-').trim_end_matches('-');
            let need = if flag == "--output-format" { "output" } else { need };
            let need = if flag == "--ioengine" { "ioengine" } else { need };
            v.push(rp(&format!("{flag} {}", val.escape_debug()), &a, err(&[need])));
        }
    }
    v
}

/// Hostile input kinds for a path argument.
fn input_kinds() -> Vec<(&'static str, Prep)> {
    vec![
        ("/dev/zero (mknod)", Prep::CharDev("in", 1, 5)),
        ("FIFO", Prep::Fifo("in")),
        ("directory", Prep::Dir("in")),
        ("symlink loop", Prep::SymlinkLoop("in")),
        ("empty file", Prep::File("in", Vec::new())),
        ("binary garbage", Prep::File("in", garbage(64 * 1024))),
        ("NUL bytes", Prep::File("in", vec![0u8; 4096])),
    ]
}

/// Deterministic pseudo-random bytes (xorshift, fixed seed).
pub fn garbage(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Every subcommand that reads a path × every hostile input kind ("io": inputs and FIFOs).
fn input_probes() -> Vec<Probe> {
    let cmds: &[(&str, &[&str])] = &[
        ("parse", &["parse", "{W}/in"]),
        ("run", &["run", "{W}/in"]),
        ("sim", &["sim", "{W}/in"]),
        ("sim --hierarchy", &["sim", "--hierarchy={W}/in", "--name=x", "--size=1m"]),
        ("trace stat", &["trace", "stat", "{W}/in"]),
        ("trace stat --format csv", &["trace", "stat", "--format", "cloudphysics", "{W}/in"]),
        ("trace convert", &["trace", "convert", "--to", "oracle", "{W}/in", "{W}/out.bin"]),
        ("mrc", &["mrc", "{W}/in"]),
        ("replay", &["replay", "{W}/in", "--filename", "{W}/target"]),
        ("data measure", &["data", "measure", "{W}/in"]),
        ("report", &["report", "{W}/in", "-o", "{W}/page.html"]),
        ("trace stat --html", &["trace", "stat", "--html", "{W}/in"]),
        ("compare --output-format=html", &["compare", "{W}/in", "{W}/in", "--output-format=html"]),
        ("sim --backing profile", &["sim", "--backing={W}/in", "--name=x", "--size=1m"]),
        (
            "run --predict",
            &[
                "run",
                "--predict={W}/in",
                "--name=x",
                "--ioengine=null",
                "--size=64k",
                "--filename={W}/d",
            ],
        ),
    ];
    let mut v = Vec::new();
    for &(cname, args) in cmds {
        for (kname, prep) in input_kinds() {
            // An empty or NUL-filled job file is a clean error; the device, FIFO, directory and
            // loop must be refused by name, without reading forever or blocking in open.
            let o = match (cname, kname) {
                // Measuring incompressible or all-zero bytes is what `data measure` is for.
                ("data measure", "binary garbage" | "NUL bytes") => Oracle::Ok,
                _ => err(&["/in", "!out of memory"]),
            };
            let p = Probe::new("io", format!("{cname} <- {kname}"), args, o)
                .prep(prep)
                .after(After::NoLeftovers(vec![]))
                .limit(5.0);
            v.push(p);
        }
    }
    v
}

/// The HTML pages written to a path (`--output-format=html`).
fn html_outputs(t: &str) -> Vec<(&'static str, Vec<&str>)> {
    vec![
        (
            "replay --output-format=html --output",
            vec![
                "replay",
                t,
                "--filename",
                "{W}/target",
                "--limit",
                "20",
                "--ioengine",
                "psync",
                "--direct",
                "0",
                "--output-format",
                "html",
                "--output",
                "{W}/out",
            ],
        ),
        (
            "calibrate --output-format=html -o",
            vec!["calibrate", "--from-preset=nvme", "--output-format=html", "-o", "{W}/out"],
        ),
    ]
}

/// Output paths × special files ("io": output replacement).
fn output_probes() -> Vec<Probe> {
    let t = trace_fixture();
    let cmds: Vec<(&str, Vec<&str>)> = vec![
        (
            "run --output",
            vec![
                "run",
                "--name=x",
                "--ioengine=null",
                "--size=64k",
                "--filename={W}/data",
                "--output={W}/out",
            ],
        ),
        ("data gen -o", vec!["data", "gen", "--size", "64k", "--output", "{W}/out"]),
        (
            "trace convert",
            vec!["trace", "convert", "--to", "oracle", "--lossy", t.as_str(), "{W}/out"],
        ),
        (
            "replay --output",
            vec![
                "replay",
                t.as_str(),
                "--filename",
                "{W}/target",
                "--limit",
                "20",
                "--ioengine",
                "psync",
                "--direct",
                "0",
                "--output",
                "{W}/out",
            ],
        ),
    ];
    let mut v = Vec::new();
    for (cname, args) in cmds.iter().chain(&html_outputs(&t)) {
        v.push(
            // Issue 12: an existing non-regular path is written through, never replaced.
            Probe::new("io", format!("{cname} -> char device"), args, Oracle::Ok)
                .prep(Prep::CharDev("out", 1, 3))
                .after(After::StillCharDev("out"))
                .limit(8.0),
        );
        v.push(
            // No reader: a clean error after a bounded wait for one, not a hang.
            Probe::new("io", format!("{cname} -> FIFO"), args, err(&["/out", "no reader"]))
                .prep(Prep::Fifo("out"))
                .after(After::StillFifo("out"))
                .limit(5.0),
        );
        v.push(
            Probe::new("io", format!("{cname} -> directory"), args, err(&["/out"]))
                .prep(Prep::Dir("out"))
                .limit(8.0),
        );
        v.push(
            Probe::new("io", format!("{cname} -> symlink loop"), args, err(&["/out"]))
                .prep(Prep::SymlinkLoop("out"))
                .limit(8.0),
        );
        let missing: Vec<String> =
            args.iter().map(|a| a.replace("{W}/out", "{W}/no/such/dir/out")).collect();
        let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
        v.push(
            Probe::new("io", format!("{cname} -> missing directory"), &missing, err(&["/out"]))
                .limit(8.0),
        );
    }
    v.push(
        Probe::new(
            "io",
            "trace convert in.csv in.csv (input replaced)",
            &["trace", "convert", "--to", "oracle", "{W}/in.csv", "{W}/in.csv"],
            err(&["in.csv"]),
        )
        .prep(Prep::Copy(std::path::PathBuf::from("{F}/t.csv"), "in.csv"))
        .after(After::Unchanged("in.csv")),
    );
    v
}

/// Job files with hostile contents ("hostile": the parser and value limits).
fn jobfile_probes() -> Vec<Probe> {
    let mut big = b"[x]\nioengine=null\nsize=64k\nfilename=".to_vec();
    big.extend(std::iter::repeat_n(b'a', 10 << 20));
    big.push(b'\n');
    let mut bin = b"[x]\nioengine=null\nsize=".to_vec();
    bin.extend_from_slice(&[0, 1, 2, 0xff, 0x1b, b'[', b'2', b'J']);
    bin.push(b'\n');
    let cases: Vec<(&str, Vec<u8>, Oracle)> = vec![
        ("empty", Vec::new(), err(&["no jobs"])),
        ("only [global]", b"[global]\nsize=1m\n".to_vec(), err(&["no jobs"])),
        ("option before section", b"size=1m\n[x]\n".to_vec(), err(&["size"])),
        ("unterminated section", b"[x\nsize=1m\n".to_vec(), err(&["section"])),
        ("empty section name", b"[]\nsize=1m\n".to_vec(), err(&["section"])),
        ("unknown option", b"[x]\nsizee=1m\n".to_vec(), err(&["sizee"])),
        ("value without =", b"[x]\nsize\n".to_vec(), err(&["size"])),
        ("size NaN expression", b"[x]\nsize=((-1)^0.5)\n".to_vec(), err(&["size"])),
        ("size 1/0", b"[x]\nsize=(1/0)\n".to_vec(), err(&["size"])),
        ("size 2^64", b"[x]\nsize=(2^64)\n".to_vec(), err(&["size"])),
        ("size 16777216.0", b"[x]\nioengine=null\nsize=16777216.0\n".to_vec(), Oracle::Ok),
        ("bs 4096.0", b"[x]\nioengine=null\nsize=64k\nbs=4096.0\n".to_vec(), Oracle::Ok),
        ("10 MB filename", big, err(&["filename"])),
        ("binary value", bin, err(&["UTF-8"])),
        ("NUL bytes", vec![0u8; 4096], err(&["job"])),
        ("garbage", garbage(8192), err(&["job"])),
        ("deep ( ) nesting", format!("[x]\nsize={}1{}\n", "(".repeat(500), ")".repeat(500))
            .into_bytes(), err(&["size"])),
        ("numjobs over 4096", b"[x]\nioengine=null\nsize=64k\nnumjobs=5000\n".to_vec(), err(
            &["maximum number of jobs"],
        )),
        ("two jobs over 4096", b"[a]\nioengine=null\nsize=64k\nnumjobs=4000\n[b]\nioengine=null\nsize=64k\nnumjobs=97\n".to_vec(), err(&["maximum number of jobs"])),
        ("include itself", b"[x]\ninclude job.fio\n".to_vec(), err(&["include"])),
        ("include missing", b"[x]\ninclude nope.fio\n".to_vec(), err(&["nope.fio"])),
        ("$var unknown", b"[x]\nsize=${NOPE_NOT_SET_HOSTILE}\n".to_vec(), err(&["size"])),
    ];
    let mut v = Vec::new();
    for (name, body, o) in cases {
        for cmd in ["parse", "run"] {
            let o = if cmd == "parse" {
                match &o {
                    Oracle::Ok => Oracle::Ok,
                    other => other.clone(),
                }
            } else {
                o.clone()
            };
            v.push(
                Probe::new("hostile", format!("{cmd} job file: {name}"), &[cmd, "{W}/job.fio"], o)
                    .prep(Prep::File("job.fio", body.clone()))
                    .after(After::Unchanged("job.fio"))
                    .limit(10.0),
            );
        }
    }
    v.push(
        Probe::new(
            "dropin",
            "parse job file with UTF-8 BOM",
            &["parse", "{W}/job.fio"],
            Oracle::Ok,
        )
        .prep(Prep::File("job.fio", b"\xef\xbb\xbf[x]\nsize=1m\n".to_vec())),
    );
    v.push(
        Probe::new(
            "perf",
            "parse 100k one-line sections",
            &["parse", "{W}/job.fio"],
            err(&["maximum number of jobs"]),
        )
        .prep(Prep::File(
            "job.fio",
            (0..100_000).map(|i| format!("[j{i}]\n")).collect::<String>().into_bytes(),
        ))
        .limit(10.0),
    );
    v
}

/// Simulator, mrc and trace limits (families "sim" and "perf").
#[allow(clippy::too_many_lines)] // a table of probes, one row each
fn sim_mrc_probes() -> Vec<Probe> {
    let t = trace_fixture();
    let mut v = vec![
        Probe::new(
            "sim",
            "sim --trace-iodepth=0",
            &["sim", "--trace", t.as_str(), "--trace-iodepth=0"],
            err(&["trace-iodepth"]),
        ),
        Probe::new(
            "sim",
            "sim randread size=1p",
            &["sim", "--name=x", "--rw=randread", "--size=1p"],
            err(&["random map"]),
        )
        .limit(15.0),
        Probe::new(
            "sim",
            "sim numjobs=100000",
            &["sim", "--name=x", "--size=1m", "--numjobs=100000"],
            err(&["jobs"]),
        ),
        Probe::new(
            "sim",
            "sim --object-level --cache-size=u64max",
            &["sim", "--trace", t.as_str(), "--object-level", "--cache-size=18446744073709551615"],
            ok_or_err(&["cache-size"]),
        )
        .limit(15.0),
        Probe::new(
            "sim",
            "sim --tier=ram:100TiB:lru",
            &["sim", "--name=x", "--size=1m", "--tier=ram:100TiB:lru"],
            ok_or_err(&["tier"]),
        )
        .limit(15.0),
        // Found by the tier_spec fuzz target: a 3-byte block took 25 s for one input.
        Probe::new(
            "sim",
            "sim --tier=ssd:4GiB:smq:writeback:block=3",
            &["sim", "--name=x", "--size=1m", "--tier=ssd:4GiB:smq:writeback:block=3"],
            err(&["block size 3", "512"]),
        )
        .limit(15.0),
    ];
    for val in ["1e-300", "0", "-1", "nan", "2"] {
        v.push(
            Probe::new(
                "perf",
                format!("mrc --shards {val}"),
                &["mrc", t.as_str(), &format!("--shards={val}")],
                err(&["shards"]),
            )
            .limit(10.0),
        );
    }
    for val in ["0", "1", "nan", "-1", "99999999999999999999999"] {
        for cmd in [&["mrc"][..], &["trace", "stat"][..]] {
            let mut a: Vec<&str> = cmd.to_vec();
            let bsz = format!("--block-size={val}");
            a.extend([t.as_str(), bsz.as_str()]);
            let o = if val == "1" { ok_or_err(&["block-size"]) } else { err(&["block-size"]) };
            v.push(
                Probe::new("perf", format!("{} --block-size {val}", cmd.join(" ")), &a, o)
                    .limit(10.0),
            );
        }
    }
    for val in ["0", "-1", "nan", "1e-300"] {
        let o = if val == "0" { ok_or_err(&["size"]) } else { err(&["size"]) };
        let sz = format!("--size={val}");
        v.push(
            Probe::new(
                "hostile",
                format!("data gen --size {val}"),
                &["data", "gen", &sz, "--output", "{W}/g"],
                o,
            )
            .after(After::NoLeftovers(vec!["g"])),
        );
        let bs = format!("--bs={val}");
        v.push(
            Probe::new(
                "hostile",
                format!("data measure --bs {val}"),
                &["data", "measure", &bs, "{W}/f"],
                err(&["bs"]),
            )
            .prep(Prep::File("f", garbage(8192))),
        );
    }
    v.push(
        Probe::new(
            "hostile",
            "data gen 64k",
            &["data", "gen", "--size", "64k", "--output", "{W}/g"],
            Oracle::Ok,
        )
        .after(After::FileLen("g", 65536))
        .after(After::NoLeftovers(vec!["g"])),
    );
    v.push(Probe::new(
        "hostile",
        "options bogus name",
        &["options", "no_such_option_x"],
        err(&["no_such_option_x"]),
    ));
    v.push(Probe::new("hostile", "options bs", &["options", "bs"], Oracle::Ok));
    v.push(Probe::new("hostile", "trace stat valid", &["trace", "stat", t.as_str()], Oracle::Ok));
    v.push(
        Probe::new(
            "hostile",
            "trace convert --to bogus",
            &["trace", "convert", "--to", "bogus", t.as_str(), "{W}/o"],
            err(&["bogus"]),
        )
        .after(After::NoLeftovers(vec![])),
    );
    v
}

/// fio global flags a pasted fio command line carries ("dropin").
#[allow(clippy::too_many_lines)] // a table of probes, one row each
fn dropin_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for flag in [
        "--output-format=bogus",
        "--minimal",
        "--eta=never",
        "--max-jobs=8",
        "--parse-only",
        "--bandwidth-log",
        "--warnings-fatal",
    ] {
        let mut a: Vec<&str> = RUN_BASE.to_vec();
        a.extend(["--size=64k", flag]);
        let o = if flag.contains("bogus") {
            err(&["output format"])
        } else {
            ok_or_err(&[flag.trim_start_matches('-').split('=').next().unwrap_or("")])
        };
        v.push(Probe::new("dropin", format!("run {flag}"), &a, o));
    }
    v.push(
        Probe::new(
            "dropin",
            "filename=a::b uses both",
            &["parse", "--name=x", "--filename=a::b"],
            Oracle::Ok,
        )
        .after(After::Stdout("\"b\"")),
    );
    // New engines run; fio's engines iolab does not have are refused by name with a reason.
    for (engine, o) in [
        ("posixaio", Oracle::Ok),
        ("mmap", Oracle::Ok),
        ("pvsync2", Oracle::Ok),
        ("falloc", Oracle::Ok),
        ("filecreate", Oracle::Ok),
        ("filestat", Oracle::Ok),
        ("filedelete", Oracle::Ok),
        ("dircreate", Oracle::Ok),
        ("dirstat", Oracle::Ok),
        ("dirdelete", Oracle::Ok),
        ("splice", Oracle::Ok),
        ("cpuio", err(&["cpuload"])),
        ("exec", err(&["program"])),
        ("windowsaio", err(&["windowsaio"])),
    ] {
        let e = format!("--ioengine={engine}");
        let a = ["run", "--name=h", "--directory={W}", "--size=64k", "--rw=randrw", e.as_str()];
        v.push(Probe::new("dropin", format!("run {e}"), &a, o).limit(15.0));
    }
    // The file-operation engines' options: stat_type's choices; openfiles only where the
    // open is the operation (every other engine keeps its files open and refuses it by name).
    for (extra, o) in [
        (["--ioengine=filestat", "--stat_type=bogus"], err(&["stat_type", "statx"])),
        (["--ioengine=filestat", "--stat_type=statx"], Oracle::Ok),
        (["--ioengine=filecreate", "--openfiles=1"], Oracle::Ok),
        (["--ioengine=psync", "--openfiles=1"], err(&["openfiles", "psync"])),
        (["--ioengine=filecreate", "--openfiles=many"], err(&["openfiles"])),
    ] {
        let mut a = vec!["run", "--name=h", "--directory={W}", "--size=64k", "--nrfiles=4"];
        a.extend(extra);
        v.push(Probe::new("dropin", format!("run {}", extra.join(" ")), &a, o).limit(15.0));
    }
    // exec: a program that cannot be started is named; cpuio's cpumode has fio's choices.
    for (extra, o) in [
        // std_redirect=0: the default would create h.stdout and h.stderr in the working
        // directory, as fio does, before the spawn fails.
        (["--ioengine=exec", "--program={W}/none", "--std_redirect=0"], err(&["none"])),
        (["--ioengine=cpuio", "--cpumode=fast", "--cpuload=50"], err(&["cpumode", "qsort"])),
    ] {
        let mut a = vec!["run", "--name=h", "--directory={W}", "--time_based", "--runtime=200ms"];
        a.extend(extra);
        v.push(Probe::new("dropin", format!("run {}", extra.join(" ")), &a, o).limit(15.0));
    }
    // Histogram logs: coarseness outside fio's 0..6 is refused by name; a good one runs.
    for (extra, o) in [
        ("--log_hist_coarseness=7", err(&["log_hist_coarseness"])),
        ("--log_hist_coarseness=-1", err(&["log_hist_coarseness"])),
        // An Int option with no setter of its own: a value its type refuses is an error, not
        // text its accessor reads as the default.
        ("--log_hist_msec=nan", err(&["log_hist_msec"])),
        ("--log_hist_msec=10", Oracle::Ok),
    ] {
        let a = [
            "run",
            "--name=h",
            "--ioengine=null",
            "--directory={W}",
            "--size=256k",
            "--write_hist_log={W}/h",
            extra,
        ];
        v.push(Probe::new("dropin", format!("run write_hist_log {extra}"), &a, o));
    }
    // Compressed logs: the histogram log's .fz form is refused by name; --inflate-log on
    // something that is not one names the file.
    let a = [
        "run",
        "--name=h",
        "--ioengine=null",
        "--directory={W}",
        "--size=64k",
        "--write_hist_log={W}/h",
        "--log_hist_msec=10",
        "--log_store_compressed=1",
    ];
    let o = err(&["log_store_compressed", "write_hist_log"]);
    v.push(Probe::new("dropin", "run log_store_compressed with write_hist_log", &a, o));
    for (what, arg, o) in [
        ("a text file", "--inflate-log={F}/t.csv", err(&["t.csv", "not a zlib stream"])),
        ("a missing file", "--inflate-log={W}/none.fz", err(&["none.fz"])),
        ("no value", "--inflate-log", err(&["inflate-log"])),
    ] {
        let p = Probe::new("dropin", format!("fio --inflate-log on {what}"), &["fio", arg], o);
        v.push(p);
    }
    let a = [
        "run",
        "--name=h",
        "--ioengine=null",
        "--directory={W}",
        "--size=64k",
        "--write_lat_log={W}/l",
        "--log_prio=1",
        "--log_store_compressed=1",
        "--prioclass=2",
        "--prio=7",
    ];
    v.push(Probe::new("dropin", "run log_prio compressed", &a, Oracle::Ok));
    // fio 3.33 stores log_hist_msec in an unsigned int and accepts any integer: -5 is
    // 4294967291 ms and 2^32 is 0, so both leave the histogram log empty (measured with fio).
    for extra in ["--log_hist_msec=-5", "--log_hist_msec=4294967296", "--log_hist_msec=0"] {
        let a = [
            "run",
            "--name=h",
            "--ioengine=null",
            "--directory={W}",
            "--size=1m",
            "--time_based",
            "--runtime=300ms",
            "--write_hist_log={W}/h",
            extra,
        ];
        let p = Probe::new("dropin", format!("run write_hist_log {extra}"), &a, Oracle::Ok)
            .after(After::FileLen("h_clat_hist.1.log", 0));
        v.push(p);
    }
    // fio's --status-interval reports in each format, with hostile intervals refused.
    for fmt in ["normal", "json", "terse", "json,terse"] {
        let f = format!("--output-format={fmt}");
        let a = [
            "fio",
            "--name=h",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=1200ms",
            "--status-interval=500ms",
            f.as_str(),
        ];
        v.push(Probe::new("dropin", format!("fio --status-interval {fmt}"), &a, Oracle::Ok));
    }
    v
}

/// Signals during work ("io": signals).
fn signal_probes() -> Vec<Probe> {
    let run = [
        "run",
        "--name=s",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=30",
        "--output-format=json",
        "--directory={W}",
    ];
    vec![
        Probe::new("io", "SIGINT during run", &run, Oracle::Interrupted)
            .signal(libc::SIGINT, 1.0)
            .limit(8.0),
        Probe::new("io", "SIGTERM during run", &run, Oracle::Interrupted)
            .signal(libc::SIGTERM, 1.0)
            .limit(8.0),
        Probe::new(
            "io",
            "SIGINT during data gen",
            &["data", "gen", "--size", "2g", "--output", "{W}/g"],
            Oracle::Signalled,
        )
        .signal(libc::SIGINT, 0.5)
        .after(After::NoLeftovers(vec![]))
        .limit(8.0),
        Probe::new(
            "io",
            "SIGTERM during data gen",
            &["data", "gen", "--size", "2g", "--output", "{W}/g"],
            Oracle::Signalled,
        )
        .signal(libc::SIGTERM, 0.5)
        .after(After::NoLeftovers(vec![]))
        .limit(8.0),
    ]
}

/// Clock limits ("clock").
fn clock_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for (name, extra) in [
        ("rate_iops=1 runtime=2", &["--rate_iops=1", "--runtime=2", "--size=1m"][..]),
        (
            "thinktime=3s runtime=2 time_based",
            &["--thinktime=3s", "--runtime=2", "--time_based", "--size=1m"][..],
        ),
        (
            "thinktime=u64max ns runtime=1",
            &["--thinktime=18446744073709551615ns", "--runtime=1", "--size=1m"][..],
        ),
        (
            "bsrange=4k-u64max runtime=1",
            &["--bsrange=4k-18446744073709551615", "--runtime=1", "--size=1m"][..],
        ),
    ] {
        let mut a: Vec<&str> = RUN_BASE.to_vec();
        a.extend(extra);
        v.push(
            Probe::new("clock", format!("run {name} stops within runtime"), &a, ok_or_err(&["bs"]))
                .limit(6.0),
        );
    }
    v.push(
        Probe::new(
            "clock",
            "replay --timed --speed 0.001 with --limit",
            &[
                "replay",
                "{F}/t.csv",
                "--filename",
                "{W}/target",
                "--limit",
                "3",
                "--timed",
                "--speed",
                "0.001",
                "--ioengine",
                "psync",
                "--direct",
                "0",
            ],
            ok_or_err(&["speed"]),
        )
        .limit(6.0),
    );
    v
}

/// `iolab calibrate` and the device-profile inputs ("calibrate").
#[allow(clippy::too_many_lines)] // a table of probes, one row per input
fn calibrate_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for b in ["0", "NaN", "1e12", "-5s", "abc", "0.5s"] {
        let budget = format!("--budget={b}");
        v.push(
            Probe::new(
                "calibrate",
                format!("calibrate {budget}"),
                &["calibrate", "{W}/t", &budget],
                err(&["--budget"]),
            )
            .after(After::NoLeftovers(vec![]))
            .limit(10.0),
        );
    }
    for (kname, prep) in
        [("FIFO", Prep::Fifo("in")), ("/dev/zero (mknod)", Prep::CharDev("in", 1, 5))]
    {
        v.push(
            Probe::new(
                "calibrate",
                format!("calibrate <- {kname}"),
                &["calibrate", "{W}/in", "--budget=5s"],
                err(&["/in", "not a regular file"]),
            )
            .prep(prep)
            .limit(5.0),
        );
    }
    v.push(Probe::new("calibrate", "calibrate (no target)", &["calibrate"], err(&["target"])));
    v.push(Probe::new(
        "calibrate",
        "calibrate --from-preset=bogus",
        &["calibrate", "--from-preset=bogus"],
        err(&["bogus"]),
    ));
    v.push(
        Probe::new(
            "calibrate",
            "calibrate --from-preset=hdd:10k",
            &["calibrate", "--from-preset=hdd:10k"],
            Oracle::Ok,
        )
        .after(After::Stdout("version = 1")),
    );
    // A run document's `iolab_predict` (viz's predict-vs-measure section) with rows of the
    // wrong shape or values: drawn from what is usable, never a panic.
    let run = r#"{"fio version":"iolab-0.1.0","jobs":[],"iolab_predict":"#;
    // A number beyond any measurement (-1e308 µs) is refused, naming its place (issue 28).
    for (what, pred, oracle) in [
        ("rows not an array", r#"{"rows":"x"}"#, Oracle::Ok),
        (
            "rows with strings, nulls and NaN",
            r#"{"profile":5,"rows":[{"groupid":"x","dir":7,"measured":null,"predicted":{"iops":"nan","p99_us":null},"error":{"iops":"inf"}}]}"#,
            Oracle::Ok,
        ),
        (
            "rows with -1e308",
            r#"{"profile":5,"rows":[{"groupid":"x","dir":7,"measured":null,"predicted":{"iops":1,"p99_us":-1e308}}]}"#,
            err(&["r.json", "/iolab_predict/rows/0/predicted/p99_us", "-1e308"]),
        ),
    ] {
        for (cmd, args) in [
            ("report", &["report", "{W}/r.json", "-o", "{W}/page.html"][..]),
            ("plot", &["plot", "{W}/r.json", "--out-dir", "{W}/plots"][..]),
        ] {
            v.push(
                Probe::new(
                    "report",
                    format!("{cmd} of iolab_predict {what}"),
                    args,
                    oracle.clone(),
                )
                .prep(Prep::File("r.json", format!("{run}{pred}}}").into_bytes())),
            );
        }
    }
    let unknown =
        b"version = 1\nname = \"x\"\ncapacity = 1000000\nservers = 1\nbogus_key = 3\n".to_vec();
    v.push(
        Probe::new(
            "calibrate",
            "sim --backing profile with an unknown key",
            &["sim", "--backing={W}/p.toml", "--name=x", "--size=1m"],
            err(&["p.toml", "line 5", "bogus_key"]),
        )
        .prep(Prep::File("p.toml", unknown)),
    );
    let v2 = b"version = 2\nname = \"x\"\ncapacity = 1000000\nservers = 1\n[read]\nbase_us=1\nseq_base_us=1\nxfer_bytes_per_sec=1e9\nservers=1\nshape=[[0.0,1.0],[1.0,1.0]]\n[write]\nbase_us=1\nseq_base_us=1\nxfer_bytes_per_sec=1e9\nservers=1\nshape=[[0.0,1.0],[1.0,1.0]]\n".to_vec();
    v.push(
        Probe::new(
            "calibrate",
            "run --predict profile version 2",
            &[
                "run",
                "--predict={W}/p.toml",
                "--name=x",
                "--ioengine=null",
                "--size=64k",
                "--filename={W}/d",
            ],
            err(&["p.toml", "version = 2"]),
        )
        .prep(Prep::File("p.toml", v2)),
    );
    // The profile's fitted host stage, throttle window and per-depth stalls are range-checked
    // like its other curves (a negative CPU per I/O, a depth 0 or a falling stall table).
    let dir = "base_us=1\nseq_base_us=1\nxfer_bytes_per_sec=1e9\nservers=1\nshape=[[0.0,1.0],[1.0,1.0]]\n";
    let head = "version = 1\nname = \"x\"\ncapacity = 1000000\nservers = 1\n";
    for (what, read_extra, want) in [
        ("host_us = -1", "host_us=-1\n", vec!["p.toml", "host_us"]),
        ("host_idle_us = -5", "host_idle_us=-5\n", vec!["p.toml", "host_idle_us"]),
        (
            "host_us_by_size as binary bytes",
            "host_us_by_size=\"\\u0000\\u00ff\"\n",
            vec!["p.toml", "line 11"],
        ),
        ("xfer_parallel = nan", "xfer_parallel=nan\n", vec!["p.toml", "xfer_parallel"]),
        ("xfer_parallel = inf", "xfer_parallel=inf\n", vec!["p.toml", "xfer_parallel"]),
        (
            "xfer_parallel_by_size as a string",
            "xfer_parallel_by_size=\"fast\"\n",
            vec!["p.toml", "line 11"],
        ),
        (
            "a depth_shape of depth 0",
            "[[read.depth_shape]]\ndepth=0\nshape=[[0.0,1.0],[1.0,1.0]]\n",
            vec!["p.toml", "depth = 0"],
        ),
        ("xfer_us with a NaN time", "xfer_us=[[4096.0,nan]]\n", vec!["p.toml", "xfer_us"]),
        ("xfer_us with a negative time", "xfer_us=[[4096.0,-3.0]]\n", vec!["p.toml", "xfer_us"]),
        (
            "xfer_us with falling sizes",
            "xfer_us=[[1e300,1.0],[4096.0,2.0]]\n",
            vec!["p.toml", "xfer_us"],
        ),
        (
            "a depth_shape stretch of 0",
            "[[read.depth_shape]]\ndepth=4\nstretch=0\nshape=[[0.0,1.0],[1.0,1.0]]\n",
            vec!["p.toml", "stretch"],
        ),
        (
            "a huge depth_shape stretch",
            "[[read.depth_shape]]\ndepth=4\nstretch=1e300\nshape=[[0.0,1.0],[1.0,1.0]]\n",
            vec!["p.toml", "stretch"],
        ),
        (
            "stall durations that fall",
            "[[read.depth_shape]]\ndepth=4\nshape=[[0.0,1.0],[1.0,1.0]]\nstall_rate_hz=5\nstall_us=[[0.0,900.0],[1.0,100.0]]\n",
            vec!["p.toml", "stall_us"],
        ),
    ] {
        let text = format!("{head}[read]\n{dir}{read_extra}[write]\n{dir}");
        v.push(
            Probe::new(
                "calibrate",
                format!("sim --backing profile with {what}"),
                &["sim", "--backing={W}/p.toml", "--name=x", "--size=1m"],
                err(&want),
            )
            .prep(Prep::File("p.toml", text.into_bytes())),
        );
    }
    // The per-size transfer sharing (each bad value, and sizes that fall), and mix_stretch,
    // the profile's own (read and write together): NaN, below -0.9, huge.
    let sharing = [
        ("a NaN sharing", "[[65536.0,nan]]"),
        ("an infinite sharing", "[[65536.0,inf]]"),
        ("a negative sharing", "[[65536.0,-1.0]]"),
        ("a zero sharing", "[[65536.0,0.0]]"),
        ("a huge sharing", "[[65536.0,1e300]]"),
        ("falling sizes", "[[1048576.0,2.0],[65536.0,1.0]]"),
    ]
    .map(|(what, value)| ("xfer_parallel_by_size", what, value));
    // The CPU per I/O by size (the submitting thread of a CPU-bound target): each bad value,
    // a binary string, and sizes that fall.
    let host = [
        ("a NaN cost", "[[4096.0,nan]]"),
        ("an infinite cost", "[[4096.0,inf]]"),
        ("a negative cost", "[[4096.0,-2.0]]"),
        ("a zero cost", "[[4096.0,0.0]]"),
        ("a huge cost", "[[4096.0,1e300]]"),
        ("a zero size", "[[0.0,2.0]]"),
        ("falling sizes", "[[1048576.0,90.0],[4096.0,2.0]]"),
    ]
    .map(|(what, value)| ("host_us_by_size", what, value));
    let by_size = sharing.into_iter().chain(host).map(|(key, what, value)| {
        let text = format!("{head}[read]\n{dir}{key}={value}\n[write]\n{dir}");
        (format!("{key} with {what}"), key, text)
    });
    let mix = ["nan", "-5", "1e300"].map(|bad| {
        let text = format!("{head}mix_stretch = {bad}\n[read]\n{dir}[write]\n{dir}");
        (format!("mix_stretch = {bad}"), "mix_stretch", text)
    });
    for (what, key, text) in by_size.chain(mix) {
        v.push(
            Probe::new(
                "calibrate",
                format!("sim --backing profile with {what}"),
                &["sim", "--backing={W}/p.toml", "--name=x", "--size=1m"],
                err(&["p.toml", key]),
            )
            .prep(Prep::File("p.toml", text.into_bytes())),
        );
    }
    v.push(Probe::new(
        "calibrate",
        "run --predict without a job",
        &["run", "--predict={W}/p.toml"],
        err(&["--predict"]),
    ));
    v
}

/// All probes except the device ones (which need root and loop devices).
pub fn all() -> Vec<Probe> {
    let mut v = Vec::new();
    v.extend(own_limits());
    v.extend(fio_numeric());
    v.extend(fill_probes());
    v.extend(replay_probes());
    v.extend(jobfile_probes());
    v.extend(sim_mrc_probes());
    v.extend(input_probes());
    v.extend(output_probes());
    v.extend(dropin_probes());
    v.extend(signal_probes());
    v.extend(clock_probes());
    v.extend(calibrate_probes());
    v.extend(super::firsthour::probes());
    v
}
