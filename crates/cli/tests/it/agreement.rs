//! `iolab parse` refuses what `iolab run` refuses (issue 35), for every option in the registry.
//!
//! For each option (supported, ignored with a warning, and unsupported) the test derives values
//! from its declared type: valid ones (its default, a small value in range, every choice) and
//! invalid ones (wrong type, out of range, an unknown choice, an overflowing size, NaN, control
//! bytes). Each value goes into a job that runs in a moment (a 64 KiB file in a temporary
//! directory, psync; an engine option gets its own engine), and the job is given to both
//! `iolab parse` and `iolab run`. They must agree: both accept or both refuse, and a refusal's
//! last line names the option. A valid value of an option iolab runs must be accepted, and an
//! invalid one refused. Where run refuses for a reason `parse` cannot know (a missing target,
//! no root), the case is listed in [`RUN_ONLY`] with that reason.
//!
//! The cases run on a few threads, each case in its own temporary directory; the test prints
//! how many cases ran and how long they took.

use iolab_job::engines;
use iolab_job::registry::{Category, OptionDef, OptionType, Status, OPTIONS};
use iolab_test_support::empty_stdin;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn iolab(cmd: &str, job: &Path) -> Output {
    let dir = job.parent().unwrap();
    Command::new(env!("CARGO_BIN_EXE_iolab"))
        .arg(cmd)
        .arg(job)
        .current_dir(dir)
        .stdin(empty_stdin().unwrap())
        .output()
        .unwrap()
}

/// `iolab CMD JOB` with its output in files beside the job, killed after [`HANG`]: a hang is
/// a failure, not a stalled test. `None` when it had to be killed.
fn iolab_bounded(cmd: &str, job: &Path) -> Option<Output> {
    let dir = job.parent().unwrap();
    let (out, err) = (dir.join(format!("{cmd}.out")), dir.join(format!("{cmd}.err")));
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .arg(cmd)
        .arg(job)
        .current_dir(dir)
        .stdin(empty_stdin().unwrap())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Some(Output {
        status,
        stdout: std::fs::read(out).unwrap(),
        stderr: std::fs::read(err).unwrap(),
    })
}

/// A case's job runs for at most `runtime=100ms`; a process still running after this hangs.
const HANG: Duration = Duration::from_secs(30);

/// What a value should do on an option iolab runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Accepted by both.
    Valid,
    /// Refused by both, naming the option.
    Invalid,
    /// fio's grammar allows either reading; parse and run must only agree.
    Agree,
}
use Expect::{Agree, Invalid, Valid};

/// One job to give to both commands: `option=value` (`None`: the bare name) on `base`.
#[derive(Clone, Debug)]
struct Case {
    option: &'static str,
    value: Option<String>,
    expect: Expect,
}

/// Cases `run` refuses for a reason `parse` cannot know: (option, value, the reason). Each
/// is also a case of its own, and must be accepted by `parse` and refused by `run`.
const RUN_ONLY: &[(&str, &str, &str)] = &[
    ("program", "agree.x", "no such program on this machine: exec's execve fails at run time"),
    ("program", "/nonexistent/prog", "no such program: exec's execve fails at run time"),
];

/// Values no type rule derives: options with their own grammar or a value that names
/// something on the machine. (option, valid values, invalid values).
const OWN: &[(&str, &[&str], &[&str])] = &[
    (
        "ioengine",
        &["psync", "null", "sync", "io_uring", "libaio", "mmap", "cpuio"],
        &["nosuch", "external", "external:/x.so", "rbd", "sg", ""],
    ),
    ("rw", &["read", "randwrite", "rw:4k", "randrw:8"], &["readx", "rw:x", ""]),
    ("filename", &["agree.dat", "other.dat"], &[""]),
    ("directory", &["."], &[]),
    ("program", &["/bin/true"], &[]),
    // It names an earlier job; this case's job is the only one.
    ("wait_for", &[], &["agree.x", "agree"]),
    ("buffer_pattern", &["0xdeadbeef", "\"abc\"", "42"], &["nosuch", "0xzz", CONTROL]),
    ("verify_pattern", &["0xdeadbeef", "\"abc\"", "42"], &["nosuch", "0xzz", CONTROL]),
];

const HUGE: &str = "99999999999999999999999";
const CONTROL: &str = "a\u{1}\u{7f}b";

fn own(d: &OptionDef) -> Option<Vec<Case>> {
    let (_, ok, bad) = OWN.iter().find(|(n, _, _)| *n == d.name)?;
    let mut v: Vec<Case> = ok.iter().map(|s| case(d, s, Valid)).collect();
    v.extend(bad.iter().map(|s| case(d, s, Invalid)));
    Some(v)
}

fn case(d: &OptionDef, v: &str, expect: Expect) -> Case {
    Case { option: d.name, value: Some(v.to_string()), expect }
}

/// Values for an integer option with its bounds.
fn ints(d: &OptionDef) -> Vec<Case> {
    let low = d.min.unwrap_or(0).max(0);
    let mut v = vec![
        case(d, &low.to_string(), Valid),
        case(d, "abc", Invalid),
        case(d, "12x", Invalid),
        case(d, HUGE, Invalid),
        case(d, "nan", Invalid),
        case(d, CONTROL, Invalid),
        case(d, "-1", if d.min.is_some_and(|m| m >= 0) { Invalid } else { Agree }),
    ];
    if let Some(m) = d.min {
        v.push(case(d, &(i128::from(m) - 1).to_string(), Invalid));
    }
    if let Some(m) = d.max {
        v.push(case(d, &m.min(1 << 20).to_string(), Valid));
        v.push(case(d, &(i128::from(m) + 1).to_string(), Invalid));
    }
    v
}

/// Values for the option's declared type.
fn by_type(d: &OptionDef) -> Vec<Case> {
    let c = |v: &str, e| case(d, v, e);
    let mut v = match d.ty {
        OptionType::Bool => vec![
            Case { option: d.name, value: None, expect: Valid },
            c("1", Valid),
            c("0", Valid),
            c("maybe", Invalid),
            c("nan", Invalid),
            c(CONTROL, Invalid),
            c(HUGE, Agree),
        ],
        OptionType::Int => ints(d),
        OptionType::Size => vec![
            c("4k", Valid),
            c("12x", Invalid),
            c(HUGE, Invalid),
            c("16e", Invalid),
            c("nan", Invalid),
            c(CONTROL, Invalid),
            c("-1", Agree),
        ],
        OptionType::SizeOrPercent => vec![
            c("4k", Valid),
            c("50%", Valid),
            c("x%", Invalid),
            c("12x", Invalid),
            c(HUGE, Invalid),
            c("150%", Agree),
            c("-5%", Agree),
        ],
        OptionType::Time { .. } => vec![
            c("1ms", Valid),
            c("abc", Invalid),
            c("1x", Invalid),
            c(&format!("{HUGE}s"), Invalid),
            c("nan", Invalid),
            c("-1", Agree),
        ],
        OptionType::Float => vec![
            c("0.5", Valid),
            c("abc", Invalid),
            c("nan", Invalid),
            c("inf", Invalid),
            c("1e400", Invalid),
        ],
        OptionType::Str if !d.choices.is_empty() => {
            let mut v: Vec<Case> = d.choices.iter().map(|s| c(s, Valid)).collect();
            v.push(c("nosuchchoice", Invalid));
            v.push(c(CONTROL, Invalid));
            v
        }
        OptionType::Str => vec![c("agree.x", Valid), c(CONTROL, Agree)],
        OptionType::Range => vec![
            c("4k-8k", Valid),
            c("8k:4k", Valid),
            c("x-y", Invalid),
            c(&format!("4k-{HUGE}"), Invalid),
        ],
        OptionType::SizeList => vec![
            c("4k,8k", Valid),
            c("4k", Valid),
            c("4k,8k,4k,8k", Invalid),
            c("12x", Invalid),
            c(HUGE, Invalid),
        ],
        OptionType::IntList => {
            vec![c("10,20", Valid), c("a,b", Invalid), c("1,2,3,4", Invalid), c(HUGE, Invalid)]
        }
        OptionType::Split => {
            vec![c("4k/50:8k/50", Valid), c("4k/80:8k/80", Invalid), c("x/10", Invalid)]
        }
        OptionType::Special => vec![c("nosuch", Agree), c(CONTROL, Agree)],
        OptionType::Deprecated => vec![c("1", Valid)],
    };
    if !d.default.is_empty() && !matches!(d.ty, OptionType::Bool) {
        v.push(c(d.default, Valid));
    }
    v
}

fn cases() -> Vec<Case> {
    let mut v: Vec<Case> =
        OPTIONS.iter().flat_map(|d| own(d).unwrap_or_else(|| by_type(d))).collect();
    v.extend(RUN_ONLY.iter().map(|(n, val, _)| Case {
        option: n,
        value: Some(val.to_string()),
        expect: Agree,
    }));
    v
}

/// The engine a case runs on: an engine option's first engine that iolab runs, else psync.
fn engine_for(d: &OptionDef) -> &'static str {
    d.engine
        .iter()
        .copied()
        .find(|e| engines::facts(e).is_some_and(|f| f.refused.is_none()))
        .unwrap_or("psync")
}

/// The base job of an option's cases: 64 KiB of an existing 128 KiB file (written before the case,
/// so nothing depends on layout), for 100 ms at most; writes for the verify options (a read
/// would verify a file without headers), and what the engine cannot do without (`cpuload=`,
/// `program=`) unless that is the option under test.
fn job_text(d: &OptionDef, c: &Case) -> String {
    let line = match &c.value {
        Some(v) => format!("{}={v}", c.option),
        None => c.option.to_string(),
    };
    let engine = engine_for(d);
    let rw = if d.category == Category::Verify { "write" } else { "read" };
    let mut base = format!(
        "[agree]\nioengine={engine}\nrw={rw}\nbs=4k\nsize=64k\nfilename=agree.dat\nruntime=100ms\n"
    );
    match engine {
        "cpuio" if d.name != "cpuload" => base.push_str("cpuload=10\n"),
        "exec" if d.name != "program" => base.push_str("program=/bin/true\n"),
        _ => {}
    }
    for (n, v, extra) in NEEDS {
        if *n == c.option && (v.is_empty() || Some(*v) == c.value.as_deref()) {
            base.push_str(extra);
            base.push('\n');
        }
    }
    format!("{base}{line}\n")
}

/// What a value needs beside it to be valid: (option, value or "" for any, the line added).
const NEEDS: &[(&str, &str, &str)] = &[
    ("compress_content", "pattern", "buffer_pattern=0xab"),
    ("verify", "pattern", "verify_pattern=0xab"),
    ("ioengine", "cpuio", "cpuload=10"),
    // Only the file-operation engines take it; psync refuses it by name (an invalid case).
    ("openfiles", "", "ioengine=filestat"),
    // fio 3.33 refuses each without the other ("--zonemode=none and --zonesize are not
    // compatible"; strided without a zone size).
    ("zonemode", "strided", "zonesize=16k"),
    ("zonesize", "4k", "zonemode=strided"),
];

/// The verdict of one case, or what was wrong with it.
fn check(c: &Case) -> Result<(), String> {
    let d = OPTIONS.iter().find(|d| d.name == c.option).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("agree.fio");
    std::fs::write(&job, job_text(d, c)).unwrap();
    std::fs::write(dir.path().join("agree.dat"), vec![0x5a; 128 << 10]).unwrap();
    let shown = format!("{}={:?}", c.option, c.value.as_deref().unwrap_or("(bare)"));
    let hung = |cmd| format!("{shown}: `iolab {cmd}` still running after {HANG:?}");
    let parse = iolab_bounded("parse", &job).ok_or_else(|| hung("parse"))?;
    let run = iolab_bounded("run", &job).ok_or_else(|| hung("run"))?;
    let last = |o: &Output| {
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        e.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").to_string()
    };
    let (p, r) = (parse.status.success(), run.status.success());
    let run_only =
        RUN_ONLY.iter().find(|(n, v, _)| *n == c.option && Some(*v) == c.value.as_deref());
    if let Some((_, _, why)) = run_only {
        return match (p, r) {
            (true, false) => Ok(()),
            _ => Err(format!(
                "{shown}: listed as refused by run only ({why}), but parse {p}, run {r}"
            )),
        };
    }
    if p != r {
        return Err(format!(
            "{shown}: parse {} but run {}: parse said {:?}; run said {:?}",
            if p { "accepts" } else { "refuses" },
            if r { "accepts" } else { "refuses" },
            last(&parse),
            last(&run)
        ));
    }
    let runs = !matches!(d.status, Status::Unsupported(_));
    let inert = c.value.as_deref().is_some_and(|v| d.is_inert(v));
    let want = match (d.status, c.expect) {
        (Status::Unsupported(_), Valid) if !inert => Some(false),
        (_, Valid) if runs => Some(true),
        (_, Invalid) => Some(false),
        _ => None,
    };
    if want.is_some_and(|w| w != p) {
        return Err(format!(
            "{shown}: expected {} by both, but both {}: {:?}",
            if p { "a refusal" } else { "acceptance" },
            if p { "accept" } else { "refuse" },
            last(&run)
        ));
    }
    if !p {
        for (who, o) in [("parse", &parse), ("run", &run)] {
            let l = last(o);
            if !l.contains(c.option) {
                return Err(format!("{shown}: {who}'s refusal does not name the option: {l:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn parse_and_run_agree_on_every_option_in_the_registry() {
    let all = cases();
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get() * 2).min(8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = all.get(i) else { break };
                if let Err(e) = check(c) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    println!(
        "{} cases over {} options in {:.1} s on {threads} threads",
        all.len(),
        OPTIONS.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn parse_and_run_agree_on_every_steadystate_value() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, bool)] = &[
        ("iops:20%", true),
        ("bw_slope:0.1%", true),
        ("bw:10m", true),
        ("lat:100us", true),
        ("bw:12x", false),
        ("iops", false),
        ("iops:", false),
        ("lat:abc", false),
        ("nosuch:1", false),
        ("iops:x%", false),
    ];
    for (ss, ok) in cases {
        let job = d.path().join("j.fio");
        let text = format!(
            "[j]\nrw=read\nsize=1m\nioengine=null\nfilename=j.dat\ntime_based\nruntime=200ms\n\
             steadystate={ss}\nss_dur=2\n"
        );
        std::fs::write(&job, text).unwrap();
        let (parse, run) = (iolab("parse", &job), iolab("run", &job));
        let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(parse.status.success(), *ok, "parse ss={ss}: {}", stderr(&parse));
        assert_eq!(run.status.success(), *ok, "run ss={ss}: {}", stderr(&run));
        if !ok {
            for o in [&parse, &run] {
                let e = stderr(o);
                assert!(e.contains("steadystate") && e.contains(ss), "ss={ss}: {e}");
            }
        }
    }
}
