//! A server's own copy of a job's intervals (issue 29: "each host also keeps its own
//! intervals locally until the run ends"): every interval's deltas, one JSON line each, appended
//! to a file of its own under a private state directory, so the host's numbers survive a
//! coordinator that dies mid-run. The file is removed once the coordinator says it holds the
//! final result; otherwise it stays, named in the server's log.
//!
//! The directory is created mode 0700 when missing and must be a real directory (not a
//! symlink) owned by this user with no permission for group or others; each file is created
//! with O_EXCL|O_NOFOLLOW, mode 0600, so nothing already there is followed or written over.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use iolab_stats::hosts::delta::HostInterval;

/// Files made by this process, for unique names.
static MADE: AtomicU64 = AtomicU64::new(0);

/// The default state directory: `$XDG_STATE_HOME/iolab-server`, else
/// `$HOME/.local/state/iolab-server`.
pub fn default_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
    xdg.or_else(|| home().map(|h| h.join(".local/state"))).map(|d| d.join("iolab-server"))
}

/// Check (or create) the private state directory; the error says why in one line.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    if dir.as_os_str().is_empty() {
        return Err("--state-dir: empty; expected a directory".into());
    }
    let meta = match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| format!("--state-dir={shown}: cannot create it: {e}"))?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("--state-dir={shown}: {e}"))?;
            std::fs::symlink_metadata(dir).map_err(|e| format!("--state-dir={shown}: {e}"))?
        }
        Err(e) => return Err(format!("--state-dir={shown}: {e}")),
        Ok(m) => m,
    };
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() {
        Err(format!("--state-dir={shown}: not a directory (a symlink is refused)"))
    } else if meta.uid() != me {
        Err(format!("--state-dir={shown}: owned by uid {}, not this user", meta.uid()))
    } else if meta.mode() & 0o077 != 0 {
        Err(format!(
            "--state-dir={shown}: mode {:o} lets group or others in; it must be private (chmod 700)",
            meta.mode() & 0o7777
        ))
    } else {
        Ok(())
    }
}

/// One job's interval file, open for appending.
#[derive(Debug)]
pub struct IntervalLog {
    pub path: PathBuf,
    file: std::fs::File,
}

impl IntervalLog {
    /// A new file `intervals-<start ns>-<pid>-<n>.jsonl` in `dir` (checked first).
    pub fn create(dir: &Path, at_ns: i64) -> Result<IntervalLog, String> {
        check_dir(dir)?;
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("intervals-{at_ns}-{}-{n}.jsonl", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| format!("interval file {}: {e}", path.display()))?;
        Ok(IntervalLog { path, file })
    }

    /// Append one interval as a line (flushed to the kernel at once: a crash of this
    /// process after the call keeps it).
    pub fn append(&mut self, d: &HostInterval) -> Result<(), String> {
        let mut line = serde_json::to_vec(d).map_err(|e| e.to_string())?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .map_err(|e| format!("interval file {}: {e}", self.path.display()))
    }

    /// The coordinator has the result: the file goes.
    pub fn remove(self) -> Result<(), String> {
        drop(self.file);
        std::fs::remove_file(&self.path)
            .map_err(|e| format!("interval file {}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_state_dir_is_private_and_files_are_never_reused() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("state/iolab");
        let mut log = IntervalLog::create(&dir, 7).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&log.path).unwrap().mode() & 0o777, 0o600);
        log.append(&HostInterval { seq: 1, ..Default::default() }).unwrap();
        log.append(&HostInterval { seq: 2, ..Default::default() }).unwrap();
        let text = std::fs::read_to_string(&log.path).unwrap();
        let seqs: Vec<u32> =
            text.lines().map(|l| serde_json::from_str::<HostInterval>(l).unwrap().seq).collect();
        assert_eq!(seqs, [1, 2]);
        let other = IntervalLog::create(&dir, 7).unwrap();
        assert_ne!(other.path, log.path);
        let p = log.path.clone();
        log.remove().unwrap();
        assert!(!p.exists());
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let e = IntervalLog::create(&dir, 8).unwrap_err();
        assert!(e.contains("lets group or others in"), "{e}");
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(check_dir(&link).unwrap_err().contains("not a directory"));
    }
}
