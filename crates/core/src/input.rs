//! Opening input files safely (job files, includes, hierarchy and pattern files, traces,
//! `data measure` inputs): opened with `O_NONBLOCK` and checked with `fstat` on the open
//! descriptor, so a FIFO cannot block the open and `/dev/zero`, a socket or a directory is
//! refused up front with one line, before anything reads forever (reliability review
//! 2026-11, "Hangs"). Reads of whole files are bounded ([`read_bounded`]).
//!
//! `O_NONBLOCK` has no effect on regular files and block devices (open(2)), so the returned
//! handle reads as usual. Every input opened here is noted by the gate
//! ([`crate::gate::inputs`]), so that no output of the process can replace it.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why an input could not be used.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{what} {path}: {source}")]
    Open {
        what: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{what} {path}: is a {kind}; expected a regular file")]
    NotRegular { what: &'static str, path: String, kind: &'static str },
    #[error("{what} {path}: {size} bytes, more than the {max}-byte limit")]
    TooBig { what: &'static str, path: String, size: u64, max: u64 },
}

impl InputError {
    /// The message without the leading `WHAT PATH: `, for callers that name the file
    /// themselves.
    pub fn reason(&self) -> String {
        match self {
            InputError::Open { source, .. } => source.to_string(),
            InputError::NotRegular { kind, .. } => format!("is a {kind}; expected a regular file"),
            InputError::TooBig { size, max, .. } => {
                format!("{size} bytes, more than the {max}-byte limit")
            }
        }
    }
}

/// What kinds of file an input may be besides a regular file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accept {
    /// Block devices (`data measure /dev/sdX`).
    pub block_devices: bool,
}

/// A path for a one-line message: at most ~100 characters, control bytes escaped.
pub fn shown(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out: String = s.chars().take(100).flat_map(char::escape_default).collect();
    if s.chars().count() > 100 {
        out.push('…');
    }
    out
}

/// The kind of a non-regular file, for messages.
pub fn kind_name(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "directory"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Open `path` read-only as a regular file (or a block device where `accept` says so);
/// `what` names the input in errors (`job file`, `trace`, …).
pub fn open_input(path: &Path, what: &'static str, accept: Accept) -> Result<File, InputError> {
    let open_err = |source| InputError::Open { what, path: shown(path), source };
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(open_err)?;
    let meta = f.metadata().map_err(open_err)?;
    let ft = meta.file_type();
    if ft.is_file() || (accept.block_devices && ft.is_block_device()) {
        // No output may replace it (`crate::gate::inputs`).
        crate::gate::inputs::note(path, &meta);
        return Ok(f);
    }
    Err(InputError::NotRegular { what, path: shown(path), kind: kind_name(&ft) })
}

/// The whole of a regular file of at most `max` bytes.
pub fn read_bounded(path: &Path, what: &'static str, max: u64) -> Result<Vec<u8>, InputError> {
    let f = open_input(path, what, Accept::default())?;
    let read_err = |source| InputError::Open { what, path: shown(path), source };
    let size = f.metadata().map_err(read_err)?.len();
    if size > max {
        return Err(InputError::TooBig { what, path: shown(path), size, max });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The file may grow while read: never take more than the bound.
    f.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(read_err)?;
    if bytes.len() as u64 > max {
        return Err(InputError::TooBig { what, path: shown(path), size: bytes.len() as u64, max });
    }
    Ok(bytes)
}

/// The size of an existing file or block device, 0 when there is none (or it cannot be
/// read). A block device's size is where a seek to its end lands (lseek(2) on a block
/// device reports its capacity, as `BLKGETSIZE64` does). The one way the engine and the
/// iolog writer size a target that is already there.
pub fn existing_size(p: &Path) -> u64 {
    use std::io::{Seek, SeekFrom};
    match std::fs::metadata(p) {
        Ok(m) if m.file_type().is_block_device() => {
            File::open(p).and_then(|mut f| f.seek(SeekFrom::End(0))).unwrap_or(0)
        }
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn refuses_fifos_directories_and_char_devices_without_blocking() {
        let d = std::env::temp_dir().join(format!("iolab-input-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_input(&fifo, "trace", Accept::default()).unwrap_err();
        assert!(e.to_string().ends_with("fifo: is a FIFO; expected a regular file"), "{e}");
        let e = read_bounded(&d, "job file", 10).unwrap_err();
        assert!(e.to_string().contains(": is a directory;"), "{e}");
        let f = d.join("f");
        std::fs::write(&f, b"0123456789x").unwrap();
        let e = read_bounded(&f, "job file", 10).unwrap_err();
        assert!(e.to_string().ends_with("11 bytes, more than the 10-byte limit"), "{e}");
        assert_eq!(read_bounded(&f, "job file", 11).unwrap(), b"0123456789x");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
