//! Classifying a path once: what it names after symlinks (hop by hop, so a dangling link
//! names the file it would create), `..`, `/proc/self/root` and relative names are resolved,
//! and what kind of file is there. A path that exists is resolved by `realpath(3)`
//! (`std::fs::canonicalize`); a missing one by resolving its directory and following any
//! dangling link, so `../../../../dev/loop97` and `dangl -> /dev/loop98` both resolve to a
//! name under `/dev`. Magic links that name open files without a path (`/proc/self/fd/1` to
//! a pipe) keep the given name.

use super::GateError;
use crate::input::shown;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

/// Symlink hops followed before giving up (Linux's own limit, MAXSYMLINKS).
const MAX_HOPS: usize = 40;

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Missing,
    Regular,
    Directory,
    Block,
    Char,
    Fifo,
    Socket,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Missing => "missing file",
            Kind::Regular => "regular file",
            Kind::Directory => "directory",
            Kind::Block => "block device",
            Kind::Char => "character device",
            Kind::Fifo => "FIFO",
            Kind::Socket => "socket",
        }
    }

    fn of(m: &std::fs::Metadata) -> Kind {
        let ft = m.file_type();
        if ft.is_file() {
            Kind::Regular
        } else if ft.is_dir() {
            Kind::Directory
        } else if ft.is_block_device() {
            Kind::Block
        } else if ft.is_char_device() {
            Kind::Char
        } else if ft.is_fifo() {
            Kind::Fifo
        } else {
            Kind::Socket
        }
    }
}

/// A classified path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    /// The path as given.
    pub given: PathBuf,
    /// Absolute, with symlinks and `..` resolved (for a missing file: the name that would be
    /// created).
    pub resolved: PathBuf,
    pub kind: Kind,
    /// `(st_dev, st_ino)` of what exists.
    pub id: Option<(u64, u64)>,
    /// The device number of a block or character device.
    pub rdev: u64,
}

fn io(path: &Path, source: std::io::Error) -> GateError {
    GateError::Io { path: shown(path), source }
}

/// Classify `path` (see the module notes).
pub fn classify(path: &Path) -> Result<Classified, GateError> {
    if path.as_os_str().is_empty() {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty path");
        return Err(io(path, e));
    }
    match std::fs::metadata(path) {
        Ok(m) => {
            let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            Ok(Classified {
                given: path.to_path_buf(),
                resolved,
                kind: Kind::of(&m),
                id: Some((m.dev(), m.ino())),
                rdev: m.rdev(),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Classified {
            given: path.to_path_buf(),
            resolved: resolve_missing(path).map_err(|e| io(path, e))?,
            kind: Kind::Missing,
            id: None,
            rdev: 0,
        }),
        Err(e) => Err(io(path, e)),
    }
}

fn parent_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The name a missing path would be created at: dangling links followed, then the deepest
/// existing directory canonicalized and the missing rest appended with `..` applied.
fn resolve_missing(path: &Path) -> std::io::Result<PathBuf> {
    let mut cur = std::path::absolute(path)?;
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&cur)?;
                cur = if to.is_absolute() { to } else { parent_of(&cur).join(to) };
            }
            _ => return Ok(existing_prefix(&cur)),
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::ELOOP))
}

/// `cur` with its longest existing prefix canonicalized and the rest applied lexically.
fn existing_prefix(cur: &Path) -> PathBuf {
    let comps: Vec<Component<'_>> = cur.components().collect();
    for cut in (1..=comps.len()).rev() {
        let head: PathBuf = comps[..cut].iter().collect();
        if let Ok(real) = std::fs::canonicalize(&head) {
            let mut out = real;
            for c in &comps[cut..] {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(n) => out.push(n),
                    _ => {}
                }
            }
            return out;
        }
    }
    cur.to_path_buf()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn missing_names_resolve_through_dotdot_and_dangling_links() {
        let d = std::env::temp_dir().join(format!("iolab-gate-cls-{}", std::process::id()));
        std::fs::create_dir_all(d.join("a/b/c/d")).unwrap();
        let deep = d.join("a/b/c/d");
        let ups = "../".repeat(deep.components().count() - 1);
        let c = classify(&deep.join(format!("{ups}dev/iolab-nope97"))).unwrap();
        assert_eq!((c.kind, c.resolved.as_path()), (Kind::Missing, Path::new("/dev/iolab-nope97")));
        let link = d.join("dangl");
        std::os::unix::fs::symlink("/dev/iolab-nope98", &link).unwrap();
        let c = classify(&link).unwrap();
        assert_eq!(c.resolved, Path::new("/dev/iolab-nope98"));
        let c = classify(Path::new("/proc/self/root/dev/iolab-nope99")).unwrap();
        assert_eq!(c.resolved, Path::new("/dev/iolab-nope99"));
        let c = classify(Path::new("/proc/self/root/dev/null")).unwrap();
        assert_eq!((c.kind, c.resolved.as_path()), (Kind::Char, Path::new("/dev/null")));
        let c = classify(&d.join("a/missing/../new")).unwrap();
        assert_eq!(c.resolved, std::fs::canonicalize(&d).unwrap().join("a/new"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
