//! The one writer for every output file of iolab (results, `data gen -o`, `trace convert`,
//! `replay --output`, `--write-iolog`, fio's log files, `sim --output`).
//!
//! - A new path or an existing regular file is written atomically: a temporary file with a
//!   name unique to this process and call (`.NAME.iolab-tmp.PID.N.RANDOM`, created with
//!   `O_EXCL`, so it can never be an existing file such as an input) in the same directory,
//!   fsync, rename over the destination, fsync of the directory. A reader sees the old file or
//!   the new one, never a mix, and two concurrent writers leave one of the two whole files.
//! - An existing non-regular path (character device, FIFO, socket, `/dev/stdout`,
//!   `/proc/self/fd/1`) is written through: opened for writing, never replaced.
//! - A symlink is followed: the link stays, its target is written by the rules above.
//!
//! Temporary files are listed in a process-wide registry until committed or dropped, so the
//! signal path of the binary can remove them ([`remove_temporaries`]) when it must end the
//! process without unwinding. [`check`] validates a destination before the work starts.
//! Same rules as shell redirection (`>`) for character devices, and as `rename(2)`-based
//! editors for regular files. Every destination is first asked of the gate
//! (`iolab_core::gate`, intent output): block devices, files backing a mounted loop device,
//! missing names under `/dev` and files this process read as inputs are refused. A result
//! that cannot be written at the end (ENOSPC) is saved elsewhere ([`rescue`]).

use std::collections::hash_map::RandomState;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use iolab_core::input::{kind_name, shown};

use crate::ReportError;

pub mod rescue;

static COUNTER: AtomicU64 = AtomicU64::new(0);
/// Symlink hops followed before giving up (Linux's own limit, MAXSYMLINKS).
const MAX_HOPS: usize = 40;

/// Remove every registered temporary file (and forget them): the gate's one list of
/// temporaries and scratch files (`iolab_core::gate::scratch`). For the signal path, which
/// ends the process without running destructors; returns how many were removed.
pub fn remove_temporaries() -> usize {
    iolab_core::gate::scratch::remove_all()
}

/// A registered temporary (or scratch) path, removed when dropped.
#[derive(Debug)]
pub struct TempPath {
    path: PathBuf,
    keep: bool,
}

impl TempPath {
    /// Register `path` (not yet necessarily created) for removal on drop and on signals.
    pub fn register(path: PathBuf) -> Self {
        iolab_core::gate::scratch::register(&path);
        TempPath { path, keep: false }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Forget the path without removing it (it was renamed into place).
    fn disarm(mut self) {
        self.keep = true;
        unregister(&self.path);
    }
}

fn unregister(path: &Path) {
    iolab_core::gate::scratch::unregister(path);
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
            unregister(&self.path);
        }
    }
}

/// A name for a temporary file beside `target`, unique per process and per call:
/// `.NAME.iolab-tmp.PID.N.RANDOM`.
pub fn temp_name(target: &Path) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(n);
    let name = target.file_name().map(|s| s.to_string_lossy()).unwrap_or_default();
    // Long names would make the temporary's name too long for the filesystem.
    let name: String = name.chars().take(120).collect();
    let file = format!(".{name}.iolab-tmp.{}.{n}.{:08x}", std::process::id(), h.finish() as u32);
    parent_dir(target).join(file)
}

fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Where an output goes once symlinks are followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A new path or an existing regular file: written atomically at this (resolved) path.
    Replace(PathBuf),
    /// An existing device, FIFO, socket or `/proc` file: opened and written in place.
    Through(PathBuf),
}

fn bad(path: &Path, why: impl Into<String>) -> ReportError {
    ReportError::BadOutput { path: shown(path), why: why.into() }
}

fn io_err(path: &Path, source: std::io::Error) -> ReportError {
    ReportError::Io { path: path.to_path_buf(), source }
}

/// Follow `path` to what an output there means: symlinks resolved hop by hop (a dangling link
/// names the file to create), `/proc` and `/dev` magic links written through.
pub fn resolve(path: &Path) -> Result<Destination, ReportError> {
    if path.as_os_str().is_empty() {
        return Err(bad(path, "empty path"));
    }
    // The gate's output rules: no block device, no mounted image, no missing name under
    // /dev, no input of this process.
    iolab_core::gate::check(path, iolab_core::gate::Intent::Output)
        .map_err(|e| bad(path, e.reason()))?;
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(bad(path, "is a directory")),
        Ok(m) if !m.is_file() => return Ok(Destination::Through(path.to_path_buf())),
        // `/dev/stdout` → `/proc/self/fd/1` → a file the shell opened: write into that open
        // file, as a shell redirection would, not replace it.
        Ok(_) if is_fd_alias(path) => return Ok(Destination::Through(path.to_path_buf())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(path, e)),
    }
    let mut cur = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&cur) {
            // A link into /proc (`/proc/self/fd/1`) names an open file: write into it.
            Ok(_) if is_fd_alias(&cur) => return Ok(Destination::Through(path.to_path_buf())),
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&cur).map_err(|e| io_err(&cur, e))?;
                cur = if to.is_absolute() { to } else { parent_dir(&cur).join(to) };
            }
            _ => return Ok(Destination::Replace(cur)),
        }
    }
    Err(bad(path, format!("more than {MAX_HOPS} symbolic links")))
}

/// `/proc/…`, `/dev/fd/…`, `/dev/stdout`, `/dev/stderr`: names of already open files.
fn is_fd_alias(path: &Path) -> bool {
    path.starts_with("/proc")
        || path.starts_with("/dev/fd")
        || path == Path::new("/dev/stdout")
        || path == Path::new("/dev/stderr")
}

/// Validate an output path before the work starts: not empty, not a directory, its directory
/// exists and takes a new file (probed by creating and removing a temporary), and it is not
/// the same file (device and inode) as any of `inputs`.
pub fn check(path: &Path, inputs: &[&Path]) -> Result<Destination, ReportError> {
    let dest = resolve(path)?;
    // A file that does not exist yet (a job's target, created by the run) is compared by name.
    let named = |p: &Path| {
        let dir = std::fs::canonicalize(parent_dir(p)).ok()?;
        Some(dir.join(p.file_name()?))
    };
    let out_name = match &dest {
        Destination::Replace(p) | Destination::Through(p) => named(p),
    };
    for i in inputs {
        if out_name.is_some() && named(i) == out_name {
            return Err(bad(path, format!("is the input {}", shown(i))));
        }
    }
    if let Ok(out) = std::fs::metadata(path) {
        for i in inputs {
            if let Ok(m) = std::fs::metadata(i) {
                if (m.dev(), m.ino()) == (out.dev(), out.ino()) {
                    return Err(bad(path, format!("is the input {}", shown(i))));
                }
            }
        }
    }
    match &dest {
        Destination::Replace(p) => {
            let dir = parent_dir(p);
            match std::fs::metadata(&dir) {
                Ok(m) if m.is_dir() => {}
                Ok(m) => return Err(bad(path, format!("{} is a {}", shown(&dir), kind_of(&m)))),
                Err(e) => return Err(bad(path, format!("directory {}: {e}", shown(&dir)))),
            }
            let probe = create_temp(p)?;
            drop(probe);
        }
        Destination::Through(p) => {
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
                .map_err(|_| bad(path, "contains a NUL byte"))?;
            // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(bad(path, format!("not writable: {e}")));
            }
        }
    }
    Ok(dest)
}

fn kind_of(m: &std::fs::Metadata) -> &'static str {
    kind_name(&m.file_type())
}

/// How long an output FIFO may wait for its reader before the write is refused.
const FIFO_READER_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// A FIFO is opened without blocking (a plain open waits forever for a reader, fifo(7)):
/// ENXIO means no reader yet, retried for [`FIFO_READER_WAIT`]; then the descriptor goes
/// back to blocking writes so a slow reader gets every byte.
fn open_fifo(shown_as: &Path, p: &Path) -> Result<File, ReportError> {
    let t0 = std::time::Instant::now();
    let file = loop {
        let r =
            OpenOptions::new().write(true).custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK).open(p);
        match r {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if t0.elapsed() >= FIFO_READER_WAIT {
                    return Err(bad(
                        shown_as,
                        format!(
                            "a FIFO with no reader (waited {} s); start the reader first",
                            FIFO_READER_WAIT.as_secs()
                        ),
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(io_err(shown_as, e)),
        }
    };
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is an open descriptor owned by `file`, which outlives both calls; F_GETFL
    // and F_SETFL only read and set its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io_err(shown_as, std::io::Error::last_os_error()));
    }
    Ok(file)
}

fn create_temp(target: &Path) -> Result<(File, TempPath), ReportError> {
    let tmp = TempPath::register(temp_name(target));
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(libc::O_CLOEXEC)
        .open(tmp.path())
        .map_err(|e| {
            bad(target, format!("cannot create a file in {}: {e}", shown(&parent_dir(target))))
        })?;
    Ok((f, tmp))
}

/// An output being written: `Write` it, then [`commit`](OutputFile::commit). Dropped
/// without a commit (error, panic, interruption), a temporary file is removed and the
/// destination is left as it was.
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    shown: PathBuf,
    pending: Option<(TempPath, PathBuf)>,
}

impl OutputFile {
    /// Open the destination `path` by the rules in the module notes.
    pub fn create(path: &Path) -> Result<Self, ReportError> {
        match resolve(path)? {
            Destination::Replace(target) => {
                let (file, tmp) = create_temp(&target)?;
                // A replaced file keeps its permission bits, as an editor's save would.
                if let Ok(m) = std::fs::metadata(&target) {
                    file.set_permissions(m.permissions()).map_err(|e| io_err(path, e))?;
                }
                Ok(OutputFile { file, shown: path.to_path_buf(), pending: Some((tmp, target)) })
            }
            Destination::Through(p) => {
                // A regular file reached through /proc or /dev/fd is rewritten as `>` would.
                let meta = std::fs::metadata(&p);
                let regular = meta.as_ref().map(|m| m.is_file()).unwrap_or(false);
                let fifo = meta.map(|m| m.file_type().is_fifo()).unwrap_or(false);
                let file = if fifo {
                    open_fifo(path, &p)?
                } else {
                    OpenOptions::new()
                        .write(true)
                        .truncate(regular)
                        .custom_flags(libc::O_CLOEXEC)
                        .open(&p)
                        .map_err(|e| io_err(path, e))?
                };
                Ok(OutputFile { file, shown: path.to_path_buf(), pending: None })
            }
        }
    }

    /// Whether the output is replaced atomically (false: written through).
    pub fn is_atomic(&self) -> bool {
        self.pending.is_some()
    }

    /// Finish: fsync and rename into place (atomic case), or flush (written through).
    pub fn commit(self) -> Result<(), ReportError> {
        let OutputFile { file, shown: path, pending } = self;
        let Some((tmp, target)) = pending else {
            return Ok(());
        };
        file.sync_all().map_err(|e| io_err(&path, e))?;
        std::fs::rename(tmp.path(), &target).map_err(|e| io_err(&path, e))?;
        tmp.disarm();
        // Directory fsync makes the rename durable; some filesystems refuse it, which does not
        // undo the (already atomic) rename.
        if let Ok(d) = File::open(parent_dir(&target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// The path as the user gave it, for messages.
    pub fn path(&self) -> &Path {
        &self.shown
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Write `bytes` to `path` by the rules in the module notes.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let mut f = OutputFile::create(path)?;
    f.write_all(bytes).map_err(|e| io_err(path, e))?;
    f.commit()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn symlink_to_fifo_is_written_through_and_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        mkfifo(&fifo);
        let link = d.path().join("out.json");
        std::os::unix::fs::symlink("fifo", &link).unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        assert_eq!(check(&link, &[]).unwrap(), Destination::Through(link.clone()));
        write_atomic(&link, b"{\"x\": 1}\n").unwrap();
        assert_eq!(reader.join().unwrap(), b"{\"x\": 1}\n");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names(d.path()), ["fifo", "out.json"]);
    }

    #[test]
    fn symlink_to_regular_file_replaces_the_target_and_keeps_the_link() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("real")).unwrap();
        std::fs::write(d.path().join("real/r.json"), b"old").unwrap();
        let link = d.path().join("l.json");
        std::os::unix::fs::symlink("real/r.json", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(d.path().join("real/r.json")).unwrap(), b"new");
        assert_eq!(names(&d.path().join("real")), ["r.json"]);
        // A dangling link names the file to create.
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink("real/new.json", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read(d.path().join("real/new.json")).unwrap(), b"made");
    }

    #[test]
    fn bad_destinations_are_refused_before_writing() {
        let d = tempfile::tempdir().unwrap();
        let e = check(Path::new(""), &[]).unwrap_err();
        assert_eq!(e.to_string(), "output : empty path");
        let e = check(d.path(), &[]).unwrap_err();
        assert!(e.to_string().ends_with(": is a directory"), "{e}");
        let input = d.path().join("in.csv");
        std::fs::write(&input, b"1,2\n").unwrap();
        let e = check(&input, &[&input]).unwrap_err();
        assert!(e.to_string().contains(": is the input "), "{e}");
        let hard = d.path().join("hard");
        std::fs::hard_link(&input, &hard).unwrap();
        assert!(check(&hard, &[&input]).is_err(), "a hard link is the same file");
        assert!(check(&d.path().join("nodir/x"), &[]).is_err());
        let later = d.path().join("sub/../later");
        std::fs::create_dir(d.path().join("sub")).unwrap();
        let e = check(&d.path().join("later"), &[&later]).unwrap_err();
        assert!(e.to_string().contains(": is the input "), "not yet created, same name: {e}");
        std::fs::remove_dir(d.path().join("sub")).unwrap();
        assert_eq!(names(d.path()), ["hard", "in.csv"], "the probe left nothing");
    }

    #[test]
    fn dropped_without_commit_leaves_the_old_file_and_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("o");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        write_atomic(&p, b"old").unwrap();
        let mode =
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&p).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600, "the replaced file kept its mode");
        let mut f = OutputFile::create(&p).unwrap();
        f.write_all(b"partial").unwrap();
        assert_eq!(names(d.path()).len(), 2);
        drop(f);
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(names(d.path()), ["o"]);
        let (a, b) = (temp_name(&p), temp_name(&p));
        assert_ne!(a, b);
        assert!(a.to_string_lossy().contains(&format!(".o.iolab-tmp.{}.", std::process::id())));
    }
}
