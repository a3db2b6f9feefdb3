//! Scratch files iolab creates for itself (the quick profile's file, calibration's file):
//! `PREFIX` + this process's id + a random part + `SUFFIX`, created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW` (mode 0600) so that neither a planted file nor a planted
//! symlink is ever opened ([`Scratch`]); or, when the engine must create and lay out the file
//! itself, a private directory of such a name (`mkdir`, mode 0700: it fails on anything
//! already there, a symlink included, and nobody else can plant a link inside) holding the
//! file ([`ScratchDir`]). Both are registered for removal however the process ends (drop, the
//! signal path's [`remove_all`]). A process killed with SIGKILL leaves its file behind: the
//! next run finds files of the same prefix whose process is gone ([`stale`]) and reports
//! them; it never reuses one (its own name is new every time).

use super::GateError;
use crate::input::shown;
use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Scratch (and temporary) files not yet removed or kept.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Register `path` for removal by [`remove_all`].
pub fn register(path: &Path) {
    registry().push(path.to_path_buf());
}

/// Forget `path` (removed or kept by its owner).
pub fn unregister(path: &Path) {
    let mut reg = registry();
    if let Some(i) = reg.iter().position(|p| p == path) {
        reg.swap_remove(i);
    }
}

/// Remove every registered file (and forget them): for the signal path, which ends the
/// process without running destructors. Returns how many were removed.
pub fn remove_all() -> usize {
    let mut reg = registry();
    let gone = |p: &PathBuf| std::fs::remove_file(p).is_ok() || std::fs::remove_dir_all(p).is_ok();
    let n = reg.iter().filter(|p| gone(p)).count();
    reg.clear();
    n
}

/// 64 unpredictable bits (getrandom(2); the clock and a counter if it fails).
pub fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: getrandom writes at most `b.len()` bytes into the buffer, which is valid.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n == 8 {
        return u64::from_ne_bytes(b);
    }
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    t.map(|d| d.as_nanos() as u64).unwrap_or(0) ^ u64::from(std::process::id()).rotate_left(32)
}

/// A scratch file, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    pub file: File,
    path: PathBuf,
    kept: bool,
}

impl Scratch {
    /// Create `DIR/PREFIX<pid>.<random>SUFFIX` as the module notes say.
    pub fn create(dir: &Path, prefix: &str, suffix: &str) -> Result<Scratch, GateError> {
        let name = format!("{prefix}{}.{:016x}{suffix}", std::process::id(), random_u64());
        let path = dir.join(name);
        super::check(&path, super::Intent::Scratch)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|source| GateError::Io { path: shown(&path), source })?;
        register(&path);
        Ok(Scratch { file, path, kept: false })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keep the file once it holds what the user needs (a result saved where its output
    /// could not be written): no longer removed on drop or on a signal. Returns its path.
    pub fn keep(mut self) -> PathBuf {
        self.kept = true;
        unregister(&self.path);
        self.path.clone()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
            unregister(&self.path);
        }
    }
}

/// A private scratch directory, removed with its contents when dropped.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Create `DIR/PREFIX<pid>.<random>` (mode 0700) as the module notes say.
    pub fn create(dir: &Path, prefix: &str) -> Result<ScratchDir, GateError> {
        use std::os::unix::fs::DirBuilderExt;
        let name = format!("{prefix}{}.{:016x}", std::process::id(), random_u64());
        let path = dir.join(name);
        super::check(&path, super::Intent::Scratch)?;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|source| GateError::Io { path: shown(&path), source })?;
        register(&path);
        Ok(ScratchDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        unregister(&self.path);
    }
}

/// Whether process `pid` is gone (kill(2) with signal 0 fails with ESRCH).
fn dead(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Bytes free for an unprivileged writer on the filesystem holding `path` (`statvfs`:
/// `f_bavail × f_frsize`); `None` when the filesystem does not say. A file iolab lays out is
/// checked against it before the first write, so a `size=1p` job on a small filesystem is
/// refused instead of filling it until ENOSPC.
pub fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statvfs is a valid value for statvfs to overwrite.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` is writable for the call.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Files in `dir` named `PREFIX<pid>…` whose process is gone: scratch files a killed run
/// left. Reported, never reused.
pub fn stale(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix(prefix)?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let pid: i32 = digits.parse().ok()?;
            (pid > 0 && pid != std::process::id() as i32 && dead(pid)).then(|| e.path())
        })
        .collect();
    out.sort();
    out
}

/// One note per stale file, for the run's notes.
pub fn stale_notes(dir: &Path, prefix: &str) -> Vec<String> {
    stale(dir, prefix)
        .iter()
        .map(|p| {
            format!(
                "{}: a scratch file left by an iolab process that no longer runs (killed?); \
                 not used; remove it",
                shown(p)
            )
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_differ_refuse_links_and_stale_files_are_found() {
        let d = std::env::temp_dir().join(format!("iolab-gate-scr-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let a = Scratch::create(&d, ".t-", ".dat").unwrap();
        let b = Scratch::create(&d, ".t-", ".dat").unwrap();
        assert_ne!(a.path(), b.path());
        let pa = a.path().to_path_buf();
        drop(a);
        assert!(!pa.exists());
        // A dead pid's file (pid_max is below 2^22) is stale; a live one's is not.
        std::fs::write(d.join(".t-4194999.0123.dat"), b"x").unwrap();
        std::fs::write(d.join(".t-1.0123.dat"), b"x").unwrap();
        assert_eq!(stale(&d, ".t-"), [d.join(".t-4194999.0123.dat")]);
        drop(b);
        let sd = ScratchDir::create(&d, ".q-").unwrap();
        std::fs::write(sd.path().join("data"), b"x").unwrap();
        let kept = sd.path().to_path_buf();
        drop(sd);
        assert!(!kept.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
