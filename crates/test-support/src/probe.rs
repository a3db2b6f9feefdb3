//! Probes for what a test needs (root, a tool on PATH, a working mkfs) and the one way a test
//! says it skipped: a line `skip: <reason>` on stdout, which `scripts/test.sh` lists at the end.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};

/// Why a check could not run; printed as `skip: <reason>` by [`skip`] and [`or_skip`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Skip {
    fn from(s: String) -> Self {
        Skip(s)
    }
}

impl From<&str> for Skip {
    fn from(s: &str) -> Self {
        Skip(s.to_string())
    }
}

/// Prints `skip: <reason>` (the line `scripts/test.sh` collects).
pub fn skip(reason: impl fmt::Display) {
    println!("skip: {reason}");
}

/// The value, or `None` after printing `skip: <reason>`:
/// `let Some(lo) = or_skip(LoopDev::new_sized(1 << 20)) else { return };`
pub fn or_skip<T, E: fmt::Display>(r: Result<T, E>) -> Option<T> {
    or_skip_to(r, &mut std::io::stdout())
}

/// [`or_skip`] writing its line to `out`.
fn or_skip_to<T, E: fmt::Display>(r: Result<T, E>, out: &mut impl std::io::Write) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            let _ = writeln!(out, "skip: {e}");
            None
        }
    }
}

/// The variable `scripts/test.sh --quick` sets for the edit-test loop's fast tier.
pub const QUICK_VAR: &str = "IOLAB_TEST_QUICK";

/// `Err` (a [`Skip`] saying `quick tier: WHAT`) when the fast tier is asked for
/// (`IOLAB_TEST_QUICK=1`, set by `scripts/test.sh --quick`): slow tests (real-I/O sweeps, the
/// browser, the hostile harness' slow families) call it first, e.g.
/// `let Some(()) = or_skip(quick_tier("a 10 s calibration sweep")) else { return };`.
pub fn quick_tier(what: &str) -> Result<(), Skip> {
    if std::env::var_os(QUICK_VAR).is_some_and(|v| v == "1") {
        return Err(Skip(format!("quick tier (scripts/test.sh --quick): {what}")));
    }
    Ok(())
}

/// Whether the effective user is root.
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `Ok(())` as root, else a [`Skip`] naming what needs root.
pub fn require_root(what: &str) -> Result<(), Skip> {
    if is_root() {
        Ok(())
    } else {
        Err(Skip(format!("{what} needs root")))
    }
}

/// The path of `tool` on PATH or in an sbin directory (mkfs and losetup live there).
pub fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let sbin = ["/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
    let found = path
        .split(':')
        .filter(|d| !d.is_empty())
        .chain(sbin)
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.is_file());
    found
}

/// Whether `tool` is installed ([`which`] finds it).
pub fn have(tool: &str) -> bool {
    which(tool).is_some()
}

/// The path of `tool`, or a [`Skip`] saying it is not installed.
pub fn tool(tool: &str) -> Result<PathBuf, Skip> {
    which(tool).ok_or_else(|| Skip(format!("{tool} not installed")))
}

/// Runs `cmd args`; its trimmed stdout when it exits 0, else `None`.
pub fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).stdin(Stdio::piped()).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Makes a file system of `fs` (`ext4`, `xfs`, ...) on `dev` with `mkfs.<fs>`; the error says
/// whether the tool is missing or what it printed.
pub fn mkfs(fs: &str, dev: &Path, extra: &[&str]) -> Result<(), Skip> {
    let bin = tool(&format!("mkfs.{fs}"))?;
    let force = match fs {
        "xfs" => &["-f"][..],
        "ext2" | "ext3" | "ext4" => &["-F", "-q"][..],
        _ => &[][..],
    };
    let o = Command::new(&bin)
        .args(force)
        .args(extra)
        .arg(dev)
        .stdin(Stdio::piped())
        .output()
        .map_err(|e| Skip(format!("{}: {e}", bin.display())))?;
    if o.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&o.stderr);
        Err(Skip(format!("mkfs.{fs} {}: {}", dev.display(), err.lines().next().unwrap_or(""))))
    }
}

static GLOBAL: Mutex<()> = Mutex::new(());

/// Serialises tests that change process-wide state (environment variables, the working
/// directory, signal dispositions, rlimits, umask): every test of a crate shares one process
/// in the one-binary layout. A test that panicked while holding it does not poison the rest.
pub fn global_lock() -> MutexGuard<'static, ()> {
    GLOBAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// fio, when installed and runnable (`fio --version` exits 0): its path.
pub fn fio() -> Result<PathBuf, Skip> {
    let p = which("fio").ok_or_else(|| Skip("fio not installed (apt-get install fio)".into()))?;
    let o = Command::new(&p).arg("--version").stdin(Stdio::piped()).output();
    if o.is_ok_and(|o| o.status.success()) {
        Ok(p)
    } else {
        Err(Skip(format!("{} --version failed", p.display())))
    }
}

/// Debian's `chromium` (or `chromium-browser`) on PATH.
pub fn chromium() -> Result<PathBuf, Skip> {
    quick_tier("no browser")?;
    which("chromium")
        .or_else(|| which("chromium-browser"))
        .ok_or_else(|| Skip("chromium not installed".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn or_skip_passes_values_and_turns_errors_into_one_skip_line() {
        let mut out = Vec::new();
        assert_eq!(or_skip_to::<u32, Skip>(Ok(7), &mut out), Some(7));
        assert!(out.is_empty());
        let e = Skip("losetup -f failed: no free loop device".into());
        assert_eq!(or_skip_to::<u32, Skip>(Err(e), &mut out), None);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "skip: losetup -f failed: no free loop device\n"
        );
    }

    #[test]
    fn which_finds_sh_and_not_a_made_up_tool() {
        let sh = which("sh").expect("a POSIX system has sh");
        assert!(sh.is_file() && sh.ends_with("sh"), "{}", sh.display());
        assert_eq!(which("iolab-no-such-tool"), None);
        assert_eq!(
            tool("iolab-no-such-tool"),
            Err(Skip("iolab-no-such-tool not installed".into()))
        );
    }

    #[test]
    fn mkfs_of_an_unknown_file_system_names_the_missing_tool() {
        let e = mkfs("iolabfs", Path::new("/nonexistent"), &[]).unwrap_err();
        assert_eq!(e.0, "mkfs.iolabfs not installed");
    }

    #[test]
    fn sh_returns_trimmed_stdout_only_on_success() {
        assert_eq!(sh("sh", &["-c", "echo ' a b '"]), Some("a b".into()));
        assert_eq!(sh("sh", &["-c", "echo out; exit 3"]), None);
    }

    #[test]
    fn global_lock_survives_a_panic_while_held() {
        let t = std::thread::spawn(|| {
            let _g = global_lock();
            panic!("deliberate panic holding global_lock, to poison it (test of global_lock)");
        });
        assert!(t.join().is_err());
        drop(global_lock());
    }
}
