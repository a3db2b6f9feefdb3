//! SIGINT, SIGTERM and SIGHUP about a second into each long phase (layout, prefill, run,
//! verify, quick profile, `data gen`, `replay`, `sim`, `mrc`, `fill`): iolab ends promptly with
//! 128 + the signal number, what it gathered is written and marked interrupted (json,
//! json+, csv, jsonl, text), and no temporary or scratch file is left. A closed stdout ends
//! quietly (killed by SIGPIPE, 141 in a shell, as fio) with the same clean-up. Reliability
//! review 2026-11, "Signals".
#![allow(clippy::unwrap_used)]

use iolab_test_support::empty_stdin;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Seconds from the signal to the exit.
    after: f64,
}

/// Spawn, wait `delay`, send `sig` to the child (its own pid), wait at most 15 s.
fn signalled(mut cmd: Command, delay: Duration, sig: i32) -> Ended {
    let mut child: Child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(empty_stdin().unwrap())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    assert!(child.try_wait().unwrap().is_none(), "ended before the signal");
    // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("still running 15 s after signal {sig}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = t0.elapsed().as_secs_f64();
    let o = child.wait_with_output().unwrap();
    Ended {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        after,
    }
}

/// Names in `d` that look like temporaries or scratch files.
fn leftovers(d: &Path) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("iolab-tmp") || n.contains("iolab-quick") || n.ends_with(".tmp"))
        .collect()
}

fn json(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn run_cmd(d: &Path, extra: &[&str], out: &Path) -> Command {
    let mut c = iolab();
    c.current_dir(d).arg("run").args(extra).arg(format!("--output={}", out.display()));
    c
}

const SEC: Duration = Duration::from_millis(1000);

/// The size of a new file whose layout lasts well over a second yet fits in `dir`'s free
/// space (a layout that would not fit is refused before its first write, so a fixed 32 GiB
/// ended at once on a disk with less free): 32 GiB, or 3/4 of what is free; `None` under
/// 4 GiB free.
fn layout_size(dir: &Path) -> Option<String> {
    let free = iolab_core::gate::scratch::free_bytes(dir)?;
    let gib = ((free / 4 * 3) >> 30).min(32);
    (gib >= 4).then(|| format!("--size={gib}g"))
}

#[test]
fn layout_ends_on_sigint_with_marked_json() {
    let d = tempfile::tempdir_in(".").unwrap();
    let out = d.path().join("o.json");
    let Some(size) = layout_size(d.path()) else {
        println!("skip: under 4 GiB free here, and a smaller layout ends before the signal");
        return;
    };
    let args = ["--name=l", "--rw=read", &size, "--filename=big", "--output-format=json"];
    let e = signalled(run_cmd(d.path(), &args, &out), SEC, libc::SIGINT);
    assert_eq!(e.code, Some(130), "{}", e.stderr);
    assert!(e.after < 3.0, "layout took {:.1} s to stop", e.after);
    let v = json(&out);
    assert_eq!(v["iolab_interrupted"], true);
    assert!(e.stderr.contains("layout"), "{}", e.stderr);
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

#[test]
fn prefill_ends_on_sigterm() {
    let d = tempfile::tempdir_in(".").unwrap();
    let f = std::fs::File::create(d.path().join("sparse")).unwrap();
    f.set_len(32 << 30).unwrap();
    let out = d.path().join("o.json");
    let args =
        ["--name=p", "--rw=randread", "--filename=sparse", "--prefill", "--output-format=json"];
    let e = signalled(run_cmd(d.path(), &args, &out), SEC, libc::SIGTERM);
    assert_eq!(e.code, Some(143), "{}", e.stderr);
    assert!(e.after < 3.0, "prefill took {:.1} s to stop", e.after);
    assert_eq!(json(&out)["iolab_interrupted"], true);
}

/// The measured run in each output format and each signal.
#[test]
fn run_ends_on_each_signal_with_each_format_marked() {
    let d = tempfile::tempdir_in(".").unwrap();
    for (fmt, sig, code) in [
        ("json", libc::SIGINT, 130),
        ("json+", libc::SIGTERM, 143),
        ("csv", libc::SIGHUP, 129),
        ("jsonl", libc::SIGTERM, 143),
        ("normal", libc::SIGINT, 130),
    ] {
        let out = d.path().join(format!("o.{fmt}"));
        let args = [
            "--name=r",
            "--rw=randread",
            "--size=8m",
            "--ioengine=psync",
            "--runtime=30",
            "--time_based",
            "--log_avg_msec=200",
            "--status-interval=0.2",
        ];
        let mut c = run_cmd(d.path(), &args, &out);
        c.arg(format!("--output-format={fmt}"));
        let e = signalled(c, SEC, sig);
        assert_eq!(e.code, Some(code), "{fmt}: {}", e.stderr);
        assert!(e.after < 3.0, "{fmt}: {:.1} s", e.after);
        let text = std::fs::read_to_string(&out).unwrap();
        match fmt {
            "json" | "json+" => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(v["iolab_interrupted"], true);
                assert_eq!(v["jobs"][0]["iolab"]["interrupted"], true);
                assert!(v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
            }
            "csv" => {
                let mut lines = text.lines();
                let head: Vec<&str> = lines.next().unwrap().split(',').collect();
                let row: Vec<&str> = lines.next().unwrap().split(',').collect();
                assert_eq!(head.last(), Some(&"interrupted"));
                assert_eq!(row.last(), Some(&"1"), "{text}");
            }
            "jsonl" => {
                let last: serde_json::Value =
                    serde_json::from_str(text.lines().last().unwrap()).unwrap();
                assert_eq!(last["interrupted"], true, "{text}");
                assert!(text.lines().count() >= 2, "interval lines before the marker: {text}");
            }
            _ => assert!(text.contains("the run was interrupted"), "{text}"),
        }
    }
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

#[test]
fn quick_profile_ends_on_sigterm_and_removes_its_scratch_file() {
    let d = tempfile::tempdir_in(".").unwrap();
    let out = d.path().join("q.json");
    let mut c = iolab();
    c.arg("run")
        .arg(format!("--directory={}", d.path().display()))
        .args(["--size=64m", "--output-format=json"])
        .arg(format!("--output={}", out.display()));
    let e = signalled(c, SEC, libc::SIGTERM);
    assert_eq!(e.code, Some(143), "{}", e.stderr);
    assert_eq!(json(&out)["iolab_interrupted"], true);
    let names: Vec<_> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["q.json"], "the scratch file is gone");
}

#[test]
fn closed_stdout_ends_the_quick_profile_quietly_without_scratch() {
    let d = tempfile::tempdir_in(".").unwrap();
    let mut child = iolab()
        .arg("run")
        .arg(format!("--directory={}", d.path().display()))
        .args(["--size=16m", "--phase-time=0.2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before the table is printed
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // Killed by SIGPIPE, as fio is (a shell shows 141).
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{err}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0, "scratch file left");
}

#[test]
fn data_gen_ends_on_sigterm_and_removes_its_temporary() {
    let d = tempfile::tempdir_in(".").unwrap();
    let out = d.path().join("big.bin");
    let mut c = iolab();
    c.args(["data", "gen", "--size", "64g", "-o"]).arg(&out);
    let e = signalled(c, SEC, libc::SIGTERM);
    assert_eq!(e.code, Some(143), "{}", e.stderr);
    assert!(e.after < 3.0);
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0, "temporary or output left");
}

#[test]
fn timed_replay_ends_on_sigint_with_marked_json() {
    let d = tempfile::tempdir_in(".").unwrap();
    let t = d.path().join("t.csv");
    // Two requests 30 s apart in trace time.
    std::fs::write(&t, "version,time,op,size,lbn\n1,0,2a,4096,8\n1,30000000,28,4096,8\n").unwrap();
    let out = d.path().join("r.json");
    let mut c = iolab();
    c.arg("replay")
        .arg(&t)
        .arg(format!("--filename={}", d.path().join("target").display()))
        .args(["--ioengine=psync", "--direct=0", "--timed", "--output-format=json"])
        .arg(format!("--output={}", out.display()));
    let e = signalled(c, SEC, libc::SIGINT);
    assert_eq!(e.code, Some(130), "{}", e.stderr);
    let v = json(&out);
    assert_eq!(v["iolab_interrupted"], true);
    assert_eq!(v["jobs"][0]["write"]["total_ios"], 1, "the first request ran");
    assert!(leftovers(d.path()).is_empty());
}

#[test]
fn sim_mrc_and_fill_end_on_signals() {
    let d = tempfile::tempdir_in(".").unwrap();
    let sim_out = d.path().join("s.json");
    let mut sim = iolab();
    sim.current_dir(d.path())
        .args(["sim", "--name=x", "--rw=randread", "--size=50g", "--number_ios=50000000"])
        .args(["--tier=ram:1g", "--output-format=json"])
        .arg(format!("--output={}", sim_out.display()));
    let e = signalled(sim, SEC, libc::SIGTERM);
    assert_eq!(e.code, Some(143), "{}", e.stderr);
    assert!(e.after < 1.0, "sim took {:.1} s", e.after);
    // Issue 12: the simulation so far is written, marked (it was killed with no output).
    let v = json(&sim_out);
    assert_eq!(v["iolab_interrupted"], true);
    assert!(v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
    std::fs::remove_file(&sim_out).unwrap();
    let job = d.path().join("j.fio");
    std::fs::write(&job, "[j]\nrw=randread\nbs=512\nsize=200g\nfilename=zz\n").unwrap();
    let mut mrc = iolab();
    mrc.current_dir(d.path()).args(["mrc", "--json", "--job"]).arg(&job);
    let e = signalled(mrc, SEC, libc::SIGINT);
    assert_eq!(e.code, Some(130), "{}", e.stderr);
    let v: serde_json::Value = serde_json::from_str(&e.stdout).unwrap();
    assert_eq!(v["interrupted"], true);
    assert!(v["requests"].as_u64().unwrap() > 0);
    let mut fill = iolab();
    fill.args(["fill", "--entries", "1M", "--monte-carlo", "200"]);
    let e = signalled(fill, SEC, libc::SIGHUP);
    assert_eq!(e.code, Some(129), "{}", e.stderr);
    assert!(e.after < 1.0);
    let names: Vec<PathBuf> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(names, [job], "no output, temporary or scratch file");
}

/// What a phase's interrupted output must show.
enum Marked {
    /// `iolab_interrupted: true` in this JSON file.
    JsonFile(PathBuf),
    /// `interrupted: true` in the JSON on stdout.
    JsonStdout,
    /// No output file at this path (a temporary must not be renamed into place).
    Absent(PathBuf),
}

/// The command that is about a second into `phase` when the signal comes, in its own
/// directory `d`.
fn phase_cmd(phase: &str, d: &Path) -> (Command, Marked) {
    let out = d.join("o.json");
    let json = ["--output-format=json"];
    let sparse = |n: &str| {
        let f = std::fs::File::create(d.join(n)).unwrap();
        f.set_len(64 << 30).unwrap();
    };
    let mut c = iolab();
    c.current_dir(d);
    match phase {
        "layout" => {
            c.args(["run", "--name=l", "--rw=read", "--filename=big"]);
            c.arg(layout_size(d).unwrap_or_else(|| "--size=4g".to_string()));
        }
        "prefill" => {
            sparse("sparse");
            c.args(["run", "--name=p", "--rw=randread", "--filename=sparse", "--prefill"]);
        }
        "run" => {
            c.args(["run", "--name=r", "--rw=randread", "--size=8m", "--runtime=30"]);
            c.args(["--time_based", "--ioengine=psync"]);
        }
        "verify" => {
            // verify_only logs the writes without doing them, then reads 64 GiB back.
            sparse("sparse");
            c.args(["run", "--name=v", "--rw=write", "--bs=1m", "--size=64g", "--verify=crc32c"]);
            c.args(["--verify_only=1", "--filename=sparse"]);
        }
        "quick profile" => {
            c.args(["run", "--directory=.", "--size=64m"]);
        }
        "data gen" => {
            c.args(["data", "gen", "--size", "64g", "-o", "big.bin"]);
            return (c, Marked::Absent(d.join("big.bin")));
        }
        "replay" => {
            std::fs::write(
                d.join("t.csv"),
                "version,time,op,size,lbn\n1,0,2a,4096,8\n1,30000000,28,4096,8\n",
            )
            .unwrap();
            c.args(["replay", "t.csv", "--filename=target", "--ioengine=psync", "--direct=0"]);
            c.arg("--timed");
        }
        "sim" => {
            c.args(["sim", "--name=x", "--rw=randread", "--size=50g", "--number_ios=50000000"]);
            c.arg("--tier=ram:1g");
        }
        "mrc" => {
            std::fs::write(d.join("j.fio"), "[j]\nrw=randread\nbs=512\nsize=200g\nfilename=zz\n")
                .unwrap();
            c.args(["mrc", "--json", "--job", "j.fio"]);
            return (c, Marked::JsonStdout);
        }
        "fill" => {
            c.args(["fill", "--entries", "1M", "--monte-carlo", "200", "--json"]);
            return (c, Marked::JsonStdout);
        }
        _ => unreachable!("{phase}"),
    }
    c.args(json).arg(format!("--output={}", out.display()));
    (c, Marked::JsonFile(out))
}

/// Issue 12: SIGINT and SIGTERM about a second into each phase end it with 130 / 143, the
/// output it has is valid JSON marked interrupted, and no temporary or scratch file is left.
/// Prints the table (`--nocapture`).
#[test]
fn every_phase_ends_on_sigint_and_sigterm_marked_and_clean() {
    let phases = [
        "layout",
        "prefill",
        "run",
        "verify",
        "quick profile",
        "data gen",
        "replay",
        "sim",
        "mrc",
        "fill",
    ];
    println!("{:<14} {:<7} {:>4} {:>7}  output", "phase", "signal", "exit", "stop s");
    let mut bad = Vec::new();
    for phase in phases {
        for (sig, name, code) in [(libc::SIGINT, "SIGINT", 130), (libc::SIGTERM, "SIGTERM", 143)] {
            let d = tempfile::tempdir_in(".").unwrap();
            if phase == "layout" && layout_size(d.path()).is_none() {
                println!("{phase:<14} {name:<7} skip: under 4 GiB free for a layout");
                continue;
            }
            let (c, marked) = phase_cmd(phase, d.path());
            let e = signalled(c, SEC, sig);
            let shown = match &marked {
                Marked::JsonFile(p) => match std::fs::read_to_string(p) {
                    Ok(t) => match serde_json::from_str::<serde_json::Value>(&t) {
                        Ok(v) if v["iolab_interrupted"] == true => "json, interrupted".to_string(),
                        Ok(_) => "json, NOT marked".to_string(),
                        Err(e) => format!("invalid json: {e}"),
                    },
                    Err(e) => format!("no output: {e}"),
                },
                Marked::JsonStdout => match serde_json::from_str::<serde_json::Value>(&e.stdout) {
                    Ok(v) if v["interrupted"] == true => "json, interrupted".to_string(),
                    Ok(_) => "json, NOT marked".to_string(),
                    Err(err) => format!("invalid json: {err}"),
                },
                Marked::Absent(p) => {
                    if p.exists() {
                        "output left".to_string()
                    } else {
                        "no output".to_string()
                    }
                }
            };
            let left = leftovers(d.path());
            println!(
                "{phase:<14} {name:<7} {:>4} {:>7.2}  {shown}{}",
                e.code.map_or("-".into(), |c| c.to_string()),
                e.after,
                if left.is_empty() { String::new() } else { format!(", left {left:?}") }
            );
            let ok_out = shown == "json, interrupted" || shown == "no output";
            if e.code != Some(code) || !ok_out || !left.is_empty() || e.after > 3.0 {
                bad.push(format!("{phase} {name}: {:?} {shown} {left:?}: {}", e.code, e.stderr));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
