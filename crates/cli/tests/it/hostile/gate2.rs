//! The gate's families left open after issue 28's first round (the reliability review of
//! 2026-11-28 §9–§10 and its held-out variants): hostile durations on every option and flag
//! that takes one ("gate-time": fio 3.33 accepts `runtime=99999999999` and keeps µs; iolab
//! saturates, and a run still ends at its size, at a signal or at a shorter limit), every
//! clone's and job's target checked before the first write of any job, a missing `/dev` name
//! without `size`, calibrate's signature refusal before any I/O, replay's created target and
//! backward timestamps, `plot --out-dir` naming a file ("gate-start"), and fio's personality
//! (`--cmdhelp` of an unknown name, `--warnings-fatal` on fio's own warnings only, a closed
//! stdout) checked against fio 3.33 where it is installed ("gate-fio").
#![allow(clippy::unwrap_used)]

use super::runner::{self, After, Oracle, Prep, Probe};
use iolab_test_support::{empty_stdin, have, is_root, or_skip, LoopDev};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

fn args(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn probe(family: &'static str, name: &str, a: &[String], o: Oracle) -> Probe {
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    Probe::new(family, name, &refs, o)
}

const NULL_RUN: &[&str] = &["run", "--name=x", "--ioengine=null", "--size=1m"];

/// Huge durations: a run bounded by its size ends there; one bounded by time ends at SIGINT
/// with its results; nothing overflows (a panic is a crash, a wrapped deadline ends at once).
fn durations() -> Vec<Probe> {
    let mut v = Vec::new();
    let ends_at_size: &[(&str, &[&str])] = &[
        ("runtime", &[]),
        ("runtime with d suffix", &["--runtime=99999999999d"]),
        ("runtime u64 max", &["--runtime=18446744073709551615"]),
        ("timeout (fio's alias)", &["--timeout=99999999999"]),
        ("ramp_time", &["--ramp_time=99999999999"]),
        ("runtime + ramp_time", &["--runtime=99999999999", "--ramp_time=99999999999"]),
        ("steadystate_duration", &["--steadystate=iops:1%", "--ss_dur=99999999999"]),
        ("steadystate_ramp_time", &["--steadystate=iops:1%", "--ss_ramp=99999999999"]),
        ("status-interval", &["--status-interval=99999999999"]),
        ("thinktime_blocks past the size", &["--thinktime=99999999999", "--thinktime_blocks=1000"]),
    ];
    for (name, extra) in ends_at_size {
        let extra: Vec<&str> =
            if extra.is_empty() { vec!["--runtime=99999999999"] } else { extra.to_vec() };
        let a = args(NULL_RUN, &extra);
        v.push(probe("gate-time", &format!("run {name} huge: ends at its size"), &a, Oracle::Ok));
    }
    let fio =
        args(&["fio", "--name=x", "--ioengine=null", "--size=1m"], &["--runtime=99999999999"]);
    v.push(probe("gate-time", "fio --runtime huge (fio 3.33: rc 0)", &fio, Oracle::Ok));
    let sim = args(&["sim", "--name=x", "--size=1m", "--rw=randread"], &["--runtime=99999999999"]);
    v.push(probe("gate-time", "sim --runtime huge: ends at its size", &sim, Oracle::Ok));
    // Bounded by time only: SIGINT ends them with what they gathered.
    let until_signal: &[(&str, &[&str], bool)] = &[
        ("time_based runtime", &["--time_based", "--runtime=99999999999"], true),
        ("time_based runtime u64 max", &["--time_based", "--runtime=18446744073709551615"], true),
        ("thinktime", &["--thinktime=99999999999"], true),
        ("thinktime u64 max", &["--thinktime=18446744073709551615"], true),
        ("thinktime_spin", &["--thinktime=99999999999", "--thinktime_spin=99999999999"], true),
        ("startdelay", &["--startdelay=99999999999"], false),
    ];
    for (name, extra, results) in until_signal {
        let a = args(NULL_RUN, extra);
        let o = if *results { Oracle::Interrupted } else { Oracle::Signalled };
        let p = probe("gate-time", &format!("run {name} huge: ends at SIGINT"), &a, o);
        v.push(p.signal(libc::SIGINT, 1.0).limit(12.0));
    }
    // exec's grace_time past what an Instant holds (a panic before): the program ends on
    // SIGTERM at the runtime.
    if have("sleep") {
        let a = args(
            &["run", "--name=x", "--ioengine=exec", "--program=sleep", "--arguments=30"],
            &["--time_based", "--runtime=1", "--grace_time=9223372036854775807"],
        );
        v.push(probe("gate-time", "exec grace_time 2^63-1", &a, Oracle::Ok).limit(12.0));
    }
    // Past 64 bits as a number: refused as fio refuses it ("failed parsing").
    let a = args(NULL_RUN, &["--runtime=18446744073709551616"]);
    v.push(probe("gate-time", "runtime 2^64: refused", &a, err(&["runtime"])));
    let a = args(&["run", "--size=4m", "--directory={W}"], &["--phase-time=99999999999"]);
    v.push(probe("gate-time", "quick --phase-time huge: refused", &a, err(&["--phase-time"])));
    let a = args(&["calibrate", "{W}/c.dat", "--size=8m"], &["--budget=99999999999"]);
    v.push(probe("gate-time", "calibrate --budget huge: refused", &a, err(&["--budget"])));
    v
}

/// A 1 TiB record: the engine cannot have its buffers (fio: err=12); the sparse target the
/// replay created goes with the failure.
fn replay_probes() -> Vec<Probe> {
    let tb = b"version,time,op,size,lbn\n1,1,2a,1099511627776,0\n".to_vec();
    let a = args(&["replay", "{W}/tb.csv", "--format=cloudphysics", "--filename={W}/tb.dat"], &[]);
    let big = probe("gate-start", "replay 1 TiB record leaves no target", &a, err(&["12"]))
        .prep(Prep::File("tb.csv", tb))
        .after(After::NoLeftovers(vec![]));
    let back = b"version,time,op,size,lbn\n1,100000,28,4096,0\n1,1000,28,4096,8\n\
                 1,50000,28,4096,16\n1,60000,28,4096,24\n"
        .to_vec();
    let a = args(
        &["replay", "{W}/back.csv", "--format=cloudphysics", "--filename={W}/bk.dat"],
        &["--timed", "--direct=0", "--output-format=json"],
    );
    let timed = probe("gate-start", "replay --timed backward timestamps: one note", &a, Oracle::Ok)
        .prep(Prep::File("back.csv", back))
        .after(After::Stdout("3 of 4 records have a timestamp earlier than a record before"));
    vec![big, timed]
}

/// Unclear errors of §10 that need no device.
fn start_probes() -> Vec<Probe> {
    let mut v = replay_probes();
    let a = args(&["plot", "{F}/r.json", "--out-dir={W}/afile"], &[]);
    v.push(
        probe("gate-start", "plot --out-dir a regular file", &a, err(&["--out-dir", "afile"]))
            .prep(Prep::File("afile", b"keep".to_vec()))
            .after(After::Unchanged("afile")),
    );
    let a =
        args(&["run", "--name=x", "--filename={W}/fa.dat", "--size=1m"], &["--fallocate=truncate"]);
    v.push(probe("gate-start", "fallocate=truncate (fio 3.33 lists it)", &a, Oracle::Ok));
    for (name, file) in [
        ("missing /dev partition without size", "/dev/iolab-gate2-97p3"),
        ("missing /dev name via .. without size", "/dev/../dev/iolab-gate2-96"),
    ] {
        let f = format!("--filename={file}");
        let a = args(&["run", "--name=x", "--rw=read"], &[&f]);
        v.push(probe("gate-start", name, &a, err(&["no such device", "/dev/"])));
    }
    // time_based with no runtime: fio warns and turns time_based off; it ran forever before.
    let a = args(NULL_RUN, &["--time_based"]);
    v.push(probe("gate-start", "time_based without runtime ends at its size", &a, Oracle::Ok));
    v
}

/// fio's personality: exit codes of fio 3.33 (checked against fio itself in the tests below).
fn fio_probes() -> Vec<Probe> {
    let f = |a: &[&str]| -> Vec<String> { args(&["fio"], a) };
    vec![
        probe(
            "gate-fio",
            "--cmdhelp=nonexistent_opt exits 0",
            &f(&["--cmdhelp=nonexistent_opt"]),
            Oracle::Ok,
        ),
        probe(
            "gate-fio",
            "--cmdhelp=runtim shows the closest",
            &f(&["--cmdhelp=runtim"]),
            Oracle::Ok,
        )
        .after(After::Stdout("showing closest match")),
        probe(
            "gate-fio",
            "--warnings-fatal with iolab's own note: rc 0",
            &f(&[
                "--warnings-fatal",
                "--name=x",
                "--ioengine=null",
                "--size=1m",
                "--rw=randread",
                "--random_distribution=zipf:1.2",
            ]),
            Oracle::Ok,
        ),
        probe(
            "gate-fio",
            "--warnings-fatal with fio's own warning: rc 1",
            &f(&["--warnings-fatal", "--name=x", "--ioengine=null", "--size=1m", "--time_based"]),
            err(&["warnings-fatal"]),
        ),
    ]
}

/// A zeroed loop device of `bytes` over `backing`.
fn zeroed_loop(backing: &Path, bytes: usize) -> Option<LoopDev> {
    std::fs::write(backing, vec![0u8; bytes]).ok()?;
    LoopDev::over(backing, false).ok()
}

/// Device probes (root): nothing is written before a later clone or job is refused.
fn device_probes(fix: &Path, loops: &mut Vec<LoopDev>) -> Vec<Probe> {
    if !is_root() {
        println!("skip: gate-start device probes need root");
        return Vec::new();
    }
    let mut v = Vec::new();
    let (Some(blank), Some(sig)) = (
        zeroed_loop(&fix.join("g2blank.img"), 16 << 20),
        zeroed_loop(&fix.join("g2sig.img"), 16 << 20),
    ) else {
        println!("skip: losetup failed; no gate-start device probes");
        return v;
    };
    let ext4 = Command::new("mkfs.ext4").arg("-q").arg(sig.device()).output();
    let has_sig = ext4.is_ok_and(|o| o.status.success());
    let b = blank.device().display().to_string();
    let s = sig.device().display().to_string();
    let same_blank = |p: Probe| {
        p.prep(Prep::File("before.img", vec![0u8; 16 << 20]))
            .after(After::SameAs("before.img", blank.backing().to_path_buf()))
            .limit(15.0)
    };
    // Clone 2 of 4 ends past the 16 MiB device: refused before clones 0 and 1 write.
    let f = format!("--filename={b}");
    let a = args(
        &["run", "--name=x", "--rw=write", "--direct=1", "--ioengine=psync", &f],
        &["--offset=12m", "--size=1m", "--offset_increment=2m", "--numjobs=4"],
    );
    v.push(same_blank(probe(
        "gate-start",
        "offset_increment clone past the device end",
        &a,
        err(&["region needs"]),
    )));
    let a = args(
        &["run", "--name=x", "--rw=randwrite", "--direct=1", "--ioengine=psync", &f],
        &["--size=4m", "--offset_increment=4m", "--numjobs=8", "--group_reporting"],
    );
    v.push(same_blank(probe(
        "gate-start",
        "8 clones x 4m on 16m: clone 4 refused first",
        &a,
        err(&["region needs"]),
    )));
    if has_sig {
        let g = format!("--filename={s}");
        let a = args(
            &["run", "--name=x", "--rw=write", "--direct=1", "--size=1m", &f],
            &["--name=y", "--rw=write", "--direct=1", "--size=1m", &g],
        );
        v.push(same_blank(probe(
            "gate-start",
            "blank job x, ext4 job y: nothing written",
            &a,
            err(&["ext4"]),
        )));
        let a = args(
            &["run", "--name=x", "--rw=write", "--direct=1", "--size=1m", &f],
            &["--name=y", "--stonewall", "--rw=randwrite", "--size=1m", &g],
        );
        v.push(same_blank(probe(
            "gate-start",
            "stonewalled ext4 job: refused before job x",
            &a,
            err(&["ext4"]),
        )));
        let a = args(&["calibrate", &s, "--budget=5s", "--allow-write"], &[]);
        v.push(
            probe(
                "gate-start",
                "calibrate --allow-write on ext4: before any I/O",
                &a,
                err(&["ext4", "--allow-destroy"]),
            )
            .limit(4.0),
        );
    } else {
        println!("skip: mkfs.ext4 failed; no signature probes");
    }
    loops.push(blank);
    loops.push(sig);
    v
}

/// The families of this module, with a table of probes and verdicts and the totals.
#[test]
fn gate2_families() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fix = tmp.path().join("fixtures");
    std::fs::create_dir_all(&fix).unwrap();
    if !super::fixtures(&fix) || !super::gate::more_fixtures(&fix) {
        return println!("skip: fixtures (../shared trace, a result, a profile) could not be made");
    }
    let mut probes = durations();
    probes.extend(start_probes());
    probes.extend(fio_probes());
    let mut loops = Vec::new();
    probes.extend(device_probes(&fix, &mut loops));
    let verdicts = runner::run_all(&probes, 2, &tmp.path().join("scratch"), &fix);
    drop(loops);
    let mut failed = Vec::new();
    for v in &verdicts {
        println!("{:<10} {:<60} {:>6.2}  {}", v.family, v.name.escape_debug(), v.secs, v.verdict);
        if !v.passed() {
            failed.push(format!("{}: {}: {}", v.family, v.name, v.verdict));
        }
    }
    println!("\n{} probes, {} failed", verdicts.len(), failed.len());
    assert!(failed.is_empty(), "{} probes failed:\n{}", failed.len(), failed.join("\n"));
}

/// `fio ARGS` under fio 3.33 and under iolab named `fio`, each in a fresh directory; with
/// `closed`, stdout's reader goes away as the process starts. `None` after `skip:` without
/// fio.
fn both(a: &[&str], closed: bool) -> Option<(Output, Output)> {
    or_skip(iolab_test_support::fio())?;
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let shim = d.path().join("bin");
    std::fs::create_dir(&shim).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iolab"), shim.join("fio")).unwrap();
    let run = |exe: &Path, sub: &str| {
        let wd = d.path().join(sub);
        std::fs::create_dir(&wd).unwrap();
        let mut child = Command::new(exe)
            .args(a)
            .current_dir(&wd)
            .stdin(empty_stdin().unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if closed {
            drop(child.stdout.take());
        }
        child.wait_with_output().unwrap()
    };
    Some((run(Path::new("fio"), "fio"), run(&shim.join("fio"), "iolab")))
}

/// The status a shell shows: the code, or 128 + the signal that ended the process.
fn shell_status(o: &Output) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    o.status.code().unwrap_or_else(|| 128 + o.status.signal().unwrap_or(0))
}

#[test]
fn cmdhelp_of_an_unknown_name_is_fios() {
    for name in ["nonexistent_opt", "runtim", "bs=4k"] {
        let arg = format!("--cmdhelp={name}");
        let Some((fio, iolab)) = both(&[&arg], false) else { return };
        let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
        let err = |o: &Output| String::from_utf8_lossy(&o.stderr).trim().to_string();
        assert_eq!((shell_status(&fio), shell_status(&iolab)), (0, 0), "{name}");
        assert_eq!(err(&iolab), err(&fio), "{name}: stderr");
        let first = |o: &Output| text(o).lines().next().unwrap_or_default().to_string();
        assert_eq!(first(&iolab), first(&fio), "{name}: the first line of stdout");
        if name == "runtim" {
            assert!(text(&iolab).contains("runtime"), "{}", text(&iolab));
        }
    }
}

#[test]
fn warnings_fatal_counts_fios_own_warnings_only() {
    let base = ["--warnings-fatal", "--name=x", "--ioengine=null", "--size=1m"];
    let cases: &[&[&str]] = &[
        &["--rw=randread", "--random_distribution=zipf:1.2"],
        &["--rw=randread", "--random_distribution=pareto:0.9", "--numjobs=2"],
        &["--time_based"],
        &["--rw=randread", "--blockalign=8k"],
    ];
    for extra in cases {
        let a: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let Some((fio, iolab)) = both(&a, false) else { return };
        let (f, i) = (shell_status(&fio), shell_status(&iolab));
        let e = String::from_utf8_lossy(&iolab.stderr);
        assert_eq!(i, f, "{extra:?}: fio {f}, iolab {i}: {e}");
        if f != 0 {
            // fio's own words on stderr.
            let fe = String::from_utf8_lossy(&fio.stderr);
            let line = fe.lines().find(|l| l.starts_with("fio: ")).unwrap_or_default();
            assert!(e.contains(line), "{extra:?}: fio said {line:?}; iolab: {e}");
        }
    }
}

#[test]
fn closed_stdout_ends_as_fio_ends() {
    // The reader is gone before anything is written: both die of SIGPIPE, silently.
    let a = ["--name=x", "--ioengine=null", "--size=1m", "--output-format=json+"];
    let Some((fio, iolab)) = both(&a, true) else { return };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(fio.status.signal(), Some(libc::SIGPIPE), "fio");
    assert_eq!(
        iolab.status.signal(),
        Some(libc::SIGPIPE),
        "{}",
        String::from_utf8_lossy(&iolab.stderr)
    );
    assert!(!String::from_utf8_lossy(&iolab.stderr).contains("Broken pipe"));
}

#[test]
fn a_huge_runtime_is_accepted_as_fio_accepts_it() {
    for v in ["99999999999", "99999999999d", "9999999999999"] {
        let r = format!("--runtime={v}");
        let a = ["--name=x", "--ioengine=null", "--size=1m", r.as_str()];
        let Some((fio, iolab)) = both(&a, false) else { return };
        let e = String::from_utf8_lossy(&iolab.stderr);
        assert_eq!(shell_status(&iolab), shell_status(&fio), "{v}: {e}");
    }
}
