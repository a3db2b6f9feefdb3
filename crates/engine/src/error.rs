//! Typed errors of the engine: what went wrong, on which file or device, and the errno.
//!
//! Every variant carries the path (or engine name) so the cli can print one line that names
//! the target and the fix, as fio's `fio: pid=…, err=…/file:…` lines do, but readable.

use std::path::PathBuf;

/// What failed, with its context. `errno` is the raw OS error where there is one.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{path}: {op} failed: {source}{hint}")]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: std::io::Error,
        /// A one-line fix, or empty.
        hint: String,
    },
    #[error("ioengine={engine}: {op} failed: {source}")]
    Engine {
        engine: &'static str,
        op: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("ioengine={name} is not known (known: {known})")]
    UnknownEngine { name: String, known: String },
    #[error("ioengine={name} is not supported: {reason}")]
    RefusedEngine { name: String, reason: &'static str },
    #[error("{path}: direct=1 (O_DIRECT) is not supported by this filesystem{fs}; use direct=0 (buffered) or another directory")]
    DirectUnsupported { path: PathBuf, fs: String },
    #[error("{path}: refusing to write: {reason}; pass --allow-destroy if you mean to destroy its contents")]
    Destructive { path: PathBuf, reason: String },
    #[error("{path}: refusing to write: {reason}; --allow-destroy does not lift this: set allow_mounted_write=1 in the job if you mean to write into a device in use")]
    InUse { path: PathBuf, reason: String },
    #[error("{path}: refusing to write into an existing file the job did not create: {reason}")]
    ExistingFile { path: PathBuf, reason: String },
    #[error(
        "{path}: file is {actual} bytes but the job's region needs {needed} bytes (offset+size)"
    )]
    TooSmall { path: PathBuf, actual: u64, needed: u64 },
    #[error("{path}: no such device (iolab does not create files under /dev; check the name, or use a path on a filesystem)")]
    MissingDevice { path: PathBuf },
    #[error("job {job}: {what}")]
    Job { job: String, what: String },
    /// The job's workload could not be built (bad block sizes, distributions, regions).
    #[error("job {job}: {source}")]
    Workload {
        job: String,
        #[source]
        source: iolab_workload::WorkloadError,
    },
    /// The job's data options (buffer_pattern, compression, dedupe, verify) were refused.
    #[error("job {job}: {source}")]
    Data {
        job: String,
        #[source]
        source: iolab_data::DataError,
    },
    #[error("{path}: short I/O at offset {offset}: {done} of {len} bytes")]
    Short { path: PathBuf, offset: u64, done: u64, len: u64 },
}

impl EngineError {
    /// An I/O error on a path, with a hint chosen from the errno (ENOSPC, EACCES, ENOENT …).
    pub fn io(path: impl Into<PathBuf>, op: &'static str, source: std::io::Error) -> Self {
        let hint = match source.raw_os_error() {
            Some(libc::ENOSPC) => {
                "; the filesystem is full: use a smaller size= or another directory"
            }
            Some(libc::EACCES) | Some(libc::EPERM) => {
                "; permission denied: run as a user that may open it, or choose another path"
            }
            Some(libc::ENOENT) => "; no such file or device: check filename=/directory=",
            Some(libc::EROFS) => "; read-only filesystem: choose a writable directory",
            Some(libc::EBUSY) => "; the device is busy (mounted or held by another driver)",
            _ => "",
        };
        EngineError::Io { path: path.into(), op, source, hint: hint.to_string() }
    }

    pub fn engine(engine: &'static str, op: &'static str, source: std::io::Error) -> Self {
        EngineError::Engine { engine, op, source }
    }
}

/// The last OS error as an `io::Error`.
pub(crate) fn last_os_error() -> std::io::Error {
    std::io::Error::last_os_error()
}
