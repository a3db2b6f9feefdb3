//! The one gate every path goes through: a path is classified once, after symlinks, `..`,
//! `/proc/self/root` and relative names are resolved ([`classify`]), and then checked for
//! what the caller means to do with it ([`Intent`]), by the same rules for every command:
//!
//! - an **output** (results, reports, logs, iologs, `data gen`, `trace convert`, …) is never a
//!   block device, never a file backing a loop device in use (a mounted image), never a
//!   missing name under `/dev`, and never one of the files the process has read as input
//!   (job files and their includes, profiles, pattern files, traces, iologs: [`inputs`]);
//! - a **target** (what a job reads or writes) that is missing under `/dev` is refused
//!   whatever the spelling; written, a block device in use (mounted, swap, held, claimed
//!   exclusively, or a loop device sharing its backing file's bytes with one that is) or a
//!   file backing a loop device in use is refused unless `allow_mounted_write=1`
//!   ([`block`]); the signature check (`--allow-destroy`) stays with the engine, which owns
//!   libblkid;
//! - a **file operation** (`filecreate`, `filestat`, `filedelete`) works on files only, as
//!   fio's engines/fileoperations.c: "only files are supported";
//! - **scratch** files are created with `O_EXCL|O_NOFOLLOW` under unpredictable names, and
//!   stale ones left by a killed process are recognised ([`scratch`]).
//!
//! The rules follow util-linux (lib/ismounted.c, lib/loopdev.c `loopdev_find_by_backing_file`
//! and its offset/sizelimit overlap test) and fio 3.33 (filesetup.c, fileoperations.c).

pub mod block;
pub mod classify;
pub mod inputs;
pub mod scratch;

pub use classify::{classify, Classified, Kind};

use crate::input::shown;
use std::path::{Path, PathBuf};

/// What the caller means to do with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// Read as an input (job file, include, profile, pattern, trace, iolog, result).
    Input,
    /// Written as an output (result, report, log, iolog, generated data, converted trace).
    Output,
    /// A job's target, as declared in the option tables: read or written as the job's `rw`
    /// says, checked as [`Intent::TargetRead`] or [`Intent::TargetWrite`] when opened.
    Target,
    /// A job's target, read only.
    TargetRead,
    /// A job's target, written; `allow_mounted_write` is fio's option of that name.
    TargetWrite { allow_mounted_write: bool },
    /// Created, stat'ed or deleted by a file-operation engine (`filecreate`, `filedelete`).
    FileOp,
    /// A scratch file iolab creates and removes.
    Scratch,
}

impl Intent {
    /// The name used in `docs/paths.md` and messages.
    pub fn name(self) -> &'static str {
        match self {
            Intent::Input => "input",
            Intent::Output => "output",
            Intent::Target => "target",
            Intent::TargetRead => "target (read)",
            Intent::TargetWrite { .. } => "target (write)",
            Intent::FileOp => "file operation",
            Intent::Scratch => "scratch",
        }
    }
}

impl Intent {
    /// The rule the gate applies, for `docs/paths.md`.
    pub fn rule(self) -> &'static str {
        match self {
            Intent::Input => {
                "opened without blocking; regular files only (block devices where a command \
                 measures them); noted, so that no output of the process replaces it"
            }
            Intent::Output => {
                "never a block device, a file backing a loop device in use, a missing name \
                 under /dev or an input of the process; replaced atomically, or written \
                 through a character device or FIFO"
            }
            Intent::Target | Intent::TargetRead | Intent::TargetWrite { .. } => {
                "a missing name under /dev is refused; written, a device or image in use \
                 (mounted, swap, held, O_EXCL-claimed, a loop alias of one) needs \
                 allow_mounted_write=1 and a signature needs --allow-destroy"
            }
            Intent::FileOp => "files only (fio: only files are supported)",
            Intent::Scratch => {
                "created O_EXCL|O_NOFOLLOW (or as a private 0700 directory) under a random \
                 name, removed on every exit; stale ones reported, never reused"
            }
        }
    }
}

/// Why the gate refused a path.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: is a block device{also}; outputs are never written into block devices (a job target is the one way to write a device)")]
    BlockOutput { path: String, also: String },
    #[error("{path}: no such device (iolab does not create files under /dev; check the name, or use a path on a filesystem)")]
    MissingDevice { path: String },
    #[error("{path}: refusing to write: {reason}")]
    InUse { path: String, reason: String },
    #[error("{path}: is the input {input}; choose another output name")]
    IsInput { path: String, input: String },
    #[error("{path}: is a {kind}; only files are supported (fio: only files are supported)")]
    NotAFile { path: String, kind: &'static str },
    #[error("{path}: is a directory")]
    Directory { path: String },
}

impl GateError {
    /// The message without the leading `PATH: `.
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let path = match self {
            GateError::Io { path, .. }
            | GateError::BlockOutput { path, .. }
            | GateError::MissingDevice { path }
            | GateError::InUse { path, .. }
            | GateError::IsInput { path, .. }
            | GateError::NotAFile { path, .. }
            | GateError::Directory { path } => path,
        };
        full.strip_prefix(path.as_str()).and_then(|s| s.strip_prefix(": ")).unwrap_or(&full).into()
    }
}

/// `given (-> resolved)` for messages, when the two differ.
pub(crate) fn named(c: &Classified) -> String {
    if c.given == c.resolved {
        shown(&c.given)
    } else {
        format!("{} (-> {})", shown(&c.given), shown(&c.resolved))
    }
}

/// Classify `path` and check it for `intent`; the classification is returned for the caller
/// to act on (so it is made once).
pub fn check(path: &Path, intent: Intent) -> Result<Classified, GateError> {
    let c = classify(path)?;
    check_classified(&c, intent)?;
    Ok(c)
}

/// The rules of the module notes on a path already classified.
pub fn check_classified(c: &Classified, intent: Intent) -> Result<(), GateError> {
    match intent {
        Intent::Input => Ok(()),
        Intent::Output => check_output(c),
        Intent::Target | Intent::TargetRead => no_missing_device(c),
        Intent::TargetWrite { allow_mounted_write } => {
            no_missing_device(c)?;
            if allow_mounted_write {
                return Ok(());
            }
            match block::in_use(c) {
                Some(reason) => Err(GateError::InUse { path: named(c), reason }),
                None => Ok(()),
            }
        }
        Intent::FileOp => match c.kind {
            Kind::Regular | Kind::Missing => no_missing_device(c),
            k => Err(GateError::NotAFile { path: named(c), kind: k.name() }),
        },
        Intent::Scratch => match c.kind {
            Kind::Missing => no_missing_device(c),
            k => Err(GateError::NotAFile { path: named(c), kind: k.name() }),
        },
    }
}

fn no_missing_device(c: &Classified) -> Result<(), GateError> {
    if c.kind == Kind::Missing && under_dev(&c.resolved) {
        return Err(GateError::MissingDevice { path: named(c) });
    }
    Ok(())
}

/// Whether `p` (resolved) lies in devtmpfs: `/dev` but not `/dev/shm` (a tmpfs meant for
/// files) or `/dev/mqueue`.
pub fn under_dev(p: &Path) -> bool {
    p.starts_with("/dev") && !p.starts_with("/dev/shm") && !p.starts_with("/dev/mqueue")
}

fn check_output(c: &Classified) -> Result<(), GateError> {
    match c.kind {
        Kind::Block => {
            let also = block::in_use(c).map(|r| format!(" and {r}")).unwrap_or_default();
            return Err(GateError::BlockOutput { path: named(c), also });
        }
        Kind::Directory => return Err(GateError::Directory { path: named(c) }),
        Kind::Missing => no_missing_device(c)?,
        Kind::Regular => {
            if let Some(reason) = block::file_in_use(c) {
                return Err(GateError::InUse { path: named(c), reason });
            }
        }
        Kind::Char | Kind::Fifo | Kind::Socket => {}
    }
    if let Some(input) = inputs::matching(c) {
        return Err(GateError::IsInput { path: named(c), input: shown(&input) });
    }
    Ok(())
}

/// The resolved form of `path` (see [`classify`]), or the path itself when it cannot be
/// resolved.
pub fn resolved(path: &Path) -> PathBuf {
    classify(path).map(|c| c.resolved).unwrap_or_else(|_| path.to_path_buf())
}
