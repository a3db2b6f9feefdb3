//! The probe runner of the hostile-input harness: runs the `iolab` binary once per probe in its
//! own scratch directory, with a hard time limit, an address-space limit and an optional
//! signal, and judges the outcome against the probe's oracle (issue 12, "Must show").

use iolab_test_support::{empty_stdin, mknod_char, mknod_fifo};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Address-space limit of each probe's process: large allocations fail (ENOMEM) instead of
/// pushing the machine into swap, so "no abort on a huge allocation" is tested for real.
const AS_LIMIT: u64 = 4 << 30;

/// A path prepared in the probe's scratch directory before the run.
#[derive(Clone, Debug)]
pub enum Prep {
    /// `mknod NAME c MAJOR MINOR`.
    CharDev(&'static str, u32, u32),
    Fifo(&'static str),
    Dir(&'static str),
    /// `NAME -> NAME` (ELOOP on open).
    SymlinkLoop(&'static str),
    File(&'static str, Vec<u8>),
    /// A copy of a file from the shared fixtures.
    Copy(PathBuf, &'static str),
    /// `NAME -> TARGET` (the target as written, absolute or relative).
    Symlink(&'static str, &'static str),
}

/// What the run must show.
#[derive(Clone, Debug)]
pub enum Oracle {
    /// Exit 0.
    Ok,
    /// Exit 1; the last stderr line names every needle (case-insensitive); a needle starting
    /// with `!` must not appear (`!out of memory`: the input was read until memory ran out).
    Err(Vec<String>),
    /// Exit 0, or a clean `Err` naming the needles.
    OkOrErr(Vec<String>),
    /// After the signal: exit 130 (SIGINT) or 143 (SIGTERM) and results on stdout.
    Interrupted,
    /// After the signal: exit 130 or 143 (the work was abandoned cleanly).
    Signalled,
}

/// A check on the scratch directory after the run.
#[derive(Clone, Debug)]
pub enum After {
    /// The file's bytes are what they were before the run.
    Unchanged(&'static str),
    /// The path is still a character device.
    StillCharDev(&'static str),
    /// The path is still a FIFO.
    StillFifo(&'static str),
    /// Nothing but the prepared paths (and these) is left in the scratch directory.
    NoLeftovers(Vec<&'static str>),
    /// stdout contains this text.
    Stdout(&'static str),
    /// The file exists and holds exactly this many bytes.
    FileLen(&'static str, u64),
    /// Nothing exists at this absolute path (no file created under /dev).
    Absent(&'static str),
    /// The scratch file (a snapshot taken before the run) equals this file outside it (a loop
    /// device's backing file).
    SameAs(&'static str, PathBuf),
}

#[derive(Clone, Debug)]
pub struct Probe {
    pub family: &'static str,
    pub name: String,
    /// Arguments; `{W}` is replaced by the scratch directory, `{F}` by the fixtures.
    pub args: Vec<OsString>,
    pub prep: Vec<Prep>,
    pub oracle: Oracle,
    pub after: Vec<After>,
    /// Seconds before the process is killed (a hang).
    pub limit: f64,
    /// Signal and delay in seconds.
    pub signal: Option<(i32, f64)>,
}

impl Probe {
    pub fn new(family: &'static str, name: impl Into<String>, args: &[&str], o: Oracle) -> Self {
        Probe {
            family,
            name: name.into(),
            args: args.iter().map(OsString::from).collect(),
            prep: Vec::new(),
            oracle: o,
            after: Vec::new(),
            limit: 8.0,
            signal: None,
        }
    }

    pub fn prep(mut self, p: Prep) -> Self {
        self.prep.push(p);
        self
    }

    pub fn after(mut self, a: After) -> Self {
        self.after.push(a);
        self
    }

    pub fn limit(mut self, secs: f64) -> Self {
        self.limit = secs;
        self
    }

    pub fn signal(mut self, sig: i32, after_secs: f64) -> Self {
        self.signal = Some((sig, after_secs));
        self
    }

    /// Replace the last argument by raw bytes (not UTF-8).
    pub fn raw_last(mut self, bytes: Vec<u8>) -> Self {
        self.args.pop();
        self.args.push(OsString::from_vec(bytes));
        self
    }
}

/// One probe's outcome.
pub struct Verdict {
    pub family: &'static str,
    pub name: String,
    /// "ok", or what went wrong.
    pub verdict: String,
    pub secs: f64,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.verdict == "ok"
    }
}

fn subst(a: &OsString, w: &Path, f: &Path) -> OsString {
    match a.to_str() {
        Some(s) if s.contains("{W}") || s.contains("{F}") => OsString::from(
            s.replace("{W}", &w.display().to_string()).replace("{F}", &f.display().to_string()),
        ),
        _ => a.clone(),
    }
}

fn prepare(w: &Path, f: &Path, preps: &[Prep]) -> Result<(), String> {
    for p in preps {
        let ok = match p {
            Prep::CharDev(n, ma, mi) => mknod_char(&w.join(n), *ma, *mi).is_ok(),
            Prep::Fifo(n) => mknod_fifo(&w.join(n)).is_ok(),
            Prep::Dir(n) => std::fs::create_dir(w.join(n)).is_ok(),
            Prep::SymlinkLoop(n) => std::os::unix::fs::symlink(w.join(n), w.join(n)).is_ok(),
            Prep::File(n, b) => std::fs::write(w.join(n), b).is_ok(),
            Prep::Copy(src, n) => {
                let src = subst(&src.clone().into_os_string(), w, f);
                std::fs::copy(src, w.join(n)).is_ok()
            }
            Prep::Symlink(n, to) => std::os::unix::fs::symlink(to, w.join(n)).is_ok(),
        };
        if !ok {
            return Err(format!("setup failed: {p:?}"));
        }
    }
    Ok(())
}

fn prep_names(preps: &[Prep]) -> Vec<&'static str> {
    preps
        .iter()
        .map(|p| match p {
            Prep::CharDev(n, ..)
            | Prep::Fifo(n)
            | Prep::Dir(n)
            | Prep::SymlinkLoop(n)
            | Prep::File(n, _)
            | Prep::Copy(_, n)
            | Prep::Symlink(n, _) => *n,
        })
        .collect()
}

fn file_bytes(p: &Path) -> Option<Vec<u8>> {
    let ft = std::fs::symlink_metadata(p).ok()?.file_type();
    if ft.is_file() {
        std::fs::read(p).ok()
    } else {
        None
    }
}

/// Spawn, signal, wait with the limit. Returns (status or None on timeout, stdout, stderr).
fn execute(
    args: &[OsString],
    w: &Path,
    limit: f64,
    signal: Option<(i32, f64)>,
) -> (Option<std::process::ExitStatus>, Vec<u8>, Vec<u8>) {
    let out = w.join(".probe-stdout");
    let err = w.join(".probe-stderr");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_iolab"));
    cmd.args(args)
        .current_dir(w)
        .stdin(empty_stdin().unwrap())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .env("RUST_BACKTRACE", "0");
    // SAFETY: setrlimit is async-signal-safe and touches only this (forked) process.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: AS_LIMIT, rlim_max: AS_LIMIT };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let mut sent = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        let t = start.elapsed().as_secs_f64();
        if let Some((sig, at)) = signal {
            if !sent && t >= at {
                // SAFETY: kill on our own child's pid.
                unsafe { libc::kill(child.id() as i32, sig) };
                sent = true;
            }
        }
        // A probe's limit is for an idle machine; on a loaded one it stretches with the load
        // (up to 4x), so a slow start is not called a hang and a real hang still is.
        if t > limit && t > limit * load_factor() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let so = std::fs::read(&out).unwrap_or_default();
    let se = std::fs::read(&err).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&err);
    (status, so, se)
}

/// The 1-minute load average per CPU, between 1 and 4 (`/proc/loadavg`; 1 when unreadable).
fn load_factor() -> f64 {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    (load / cpus).clamp(1.0, 4.0)
}

/// The class of an exit: crash and hang are failures whatever the oracle says.
fn classify(st: Option<std::process::ExitStatus>, sent: Option<i32>) -> Result<i32, String> {
    let Some(st) = st else { return Err("HANG (killed at the time limit)".into()) };
    if let Some(code) = st.code() {
        if code >= 101 && code != 130 && code != 143 {
            return Err(format!("CRASH (exit {code})"));
        }
        return Ok(code);
    }
    let sig = st.signal().unwrap_or(0);
    if Some(sig) == sent {
        return Ok(128 + sig);
    }
    Err(format!("CRASH (killed by signal {sig})"))
}

fn last_line(stderr: &str) -> &str {
    stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("")
}

/// A clean error: exit 1, a last line naming the needles, no raw control bytes, no line longer
/// than 320 characters (a value is quoted at ~100).
fn check_err(code: i32, stderr: &[u8], needles: &[String]) -> Result<(), String> {
    let text = String::from_utf8_lossy(stderr);
    // Exit 2 is the argument parser's usage error (clap), its first line naming the flag.
    let last = if code == 2 && text.starts_with("error:") {
        text.lines().next().unwrap_or("")
    } else {
        last_line(&text)
    };
    if code != 1 && !(code == 2 && text.starts_with("error:")) {
        return Err(format!("exit {code}, expected 1: {}", short(last)));
    }
    if stderr.iter().any(|&b| b < 0x20 && b != b'\n' && b != b'\t') {
        return Err(format!("raw control bytes on stderr: {}", short(last)));
    }
    if let Some(l) = text.lines().find(|l| l.chars().count() > 320) {
        return Err(format!("stderr line of {} chars: {}", l.chars().count(), short(l)));
    }
    let low = last.to_lowercase();
    for n in needles {
        if let Some(bad) = n.strip_prefix('!') {
            if low.contains(&bad.to_lowercase()) {
                return Err(format!("stderr says '{bad}': {}", short(last)));
            }
            continue;
        }
        if !low.contains(&n.to_lowercase()) {
            return Err(format!("stderr does not name '{n}': {}", short(last)));
        }
    }
    Ok(())
}

fn short(s: &str) -> String {
    let t: String = s.chars().take(140).collect();
    t.escape_debug().to_string()
}

fn judge_after(w: &Path, p: &Probe, before: &[Option<Vec<u8>>], so: &[u8]) -> Result<(), String> {
    for (i, a) in p.after.iter().enumerate() {
        match a {
            After::Unchanged(n) => {
                if file_bytes(&w.join(n)) != before[i] {
                    return Err(format!("{n} was changed"));
                }
            }
            After::StillCharDev(n) => {
                let ok = std::fs::symlink_metadata(w.join(n))
                    .map(|m| m.file_type().is_char_device())
                    .unwrap_or(false);
                if !ok {
                    return Err(format!("{n} is no longer a character device"));
                }
            }
            After::StillFifo(n) => {
                let ok = std::fs::symlink_metadata(w.join(n))
                    .map(|m| m.file_type().is_fifo())
                    .unwrap_or(false);
                if !ok {
                    return Err(format!("{n} is no longer a FIFO"));
                }
            }
            After::NoLeftovers(extra) => {
                let mut allowed = prep_names(&p.prep);
                allowed.extend(extra.iter().copied());
                for e in std::fs::read_dir(w).unwrap().flatten() {
                    let name = e.file_name().to_string_lossy().to_string();
                    if !allowed.contains(&name.as_str()) {
                        return Err(format!("leftover file {name}"));
                    }
                }
            }
            After::Stdout(t) => {
                if !String::from_utf8_lossy(so).contains(t) {
                    return Err(format!("stdout lacks '{t}'"));
                }
            }
            After::SameAs(n, other) => {
                if file_bytes(&w.join(n)) != file_bytes(other) {
                    return Err(format!("{} was changed", other.display()));
                }
            }
            After::Absent(p) => {
                if std::fs::symlink_metadata(p).is_ok() {
                    return Err(format!("{p} was created"));
                }
            }
            After::FileLen(n, len) => {
                let got = std::fs::metadata(w.join(n)).map(|m| m.len()).ok();
                if got != Some(*len) {
                    return Err(format!("{n}: {got:?} bytes, expected {len}"));
                }
            }
        }
    }
    Ok(())
}

/// Run one probe in a fresh scratch directory under `root`.
pub fn run_probe(p: &Probe, idx: usize, root: &Path, fixtures: &Path) -> Verdict {
    let w = root.join(format!("p{idx}"));
    std::fs::create_dir_all(&w).unwrap();
    let start = Instant::now();
    let verdict = (|| -> Result<(), String> {
        prepare(&w, fixtures, &p.prep)?;
        let before: Vec<Option<Vec<u8>>> = p
            .after
            .iter()
            .map(|a| match a {
                After::Unchanged(n) => file_bytes(&w.join(n)),
                _ => None,
            })
            .collect();
        let args: Vec<OsString> = p.args.iter().map(|a| subst(a, &w, fixtures)).collect();
        let (st, so, se) = execute(&args, &w, p.limit, p.signal);
        let code = classify(st, p.signal.map(|s| s.0))?;
        let last = String::from_utf8_lossy(&se).to_string();
        match &p.oracle {
            Oracle::Ok if code != 0 => {
                return Err(format!("exit {code}, expected 0: {}", short(last_line(&last))))
            }
            Oracle::Ok => {}
            Oracle::Err(n) => check_err(code, &se, n)?,
            Oracle::OkOrErr(n) if code != 0 => check_err(code, &se, n)?,
            Oracle::OkOrErr(_) => {}
            Oracle::Signalled if code != 130 && code != 143 => {
                return Err(format!("exit {code} after the signal, expected 130/143"));
            }
            Oracle::Signalled => {}
            Oracle::Interrupted => {
                if code != 130 && code != 143 {
                    return Err(format!("exit {code} after the signal, expected 130/143"));
                }
                if so.is_empty() {
                    return Err("no results on stdout after the signal".into());
                }
            }
        }
        judge_after(&w, p, &before, &so)
    })();
    let _ = std::fs::remove_dir_all(&w);
    Verdict {
        family: p.family,
        name: p.name.clone(),
        verdict: match verdict {
            Ok(()) => "ok".into(),
            Err(e) => e,
        },
        secs: start.elapsed().as_secs_f64(),
    }
}

/// Run every probe on `threads` threads; verdicts come back in probe order.
pub fn run_all(probes: &[Probe], threads: usize, root: &Path, fixtures: &Path) -> Vec<Verdict> {
    let next = Mutex::new(0usize);
    let out: Mutex<Vec<Option<Verdict>>> = Mutex::new((0..probes.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(p) = probes.get(i) else { break };
                let v = run_probe(p, i, root, fixtures);
                out.lock().unwrap()[i] = Some(v);
            });
        }
    });
    out.into_inner().unwrap().into_iter().flatten().collect()
}
