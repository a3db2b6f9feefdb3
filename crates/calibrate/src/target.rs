//! What `iolab calibrate` may calibrate and how: an existing regular file or block device
//! (read-only unless `--allow-write`), a directory (iolab creates `iolab-calibrate.dat` in
//! it) or a new path (iolab creates the file). Anything else (FIFO, socket, character
//! device) is refused before it is opened, so a FIFO cannot block the command.

use crate::error::CalibrateError;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// A resolved target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub path: PathBuf,
    /// Bytes the sweep spans (the file's or device's size, or the size iolab gives a new file).
    pub size: u64,
    /// iolab creates (and lays out) the file, and removes it afterwards.
    pub created: bool,
    pub block_device: bool,
    /// Writes are allowed (a file iolab creates, or `--allow-write`).
    pub writable: bool,
}

fn bad(path: &Path, why: impl Into<String>) -> CalibrateError {
    CalibrateError::Target { path: path.display().to_string(), why: why.into() }
}

/// Resolves `path`; `new_size` is the size of a file iolab creates.
pub fn resolve(path: &Path, new_size: u64, allow_write: bool) -> Result<Target, CalibrateError> {
    if path.to_string_lossy().contains(':') {
        return Err(bad(path, "a ':' in the path would split fio's filename= list; rename it"));
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Target {
                path: path.to_path_buf(),
                size: new_size,
                created: true,
                block_device: false,
                writable: true,
            })
        }
        Err(e) => return Err(bad(path, format!("cannot stat: {e}"))),
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        let file = path.join("iolab-calibrate.dat");
        if file.exists() {
            return Err(bad(&file, "exists already; remove it or name it as the target"));
        }
        return Ok(Target {
            path: file,
            size: new_size,
            created: true,
            block_device: false,
            writable: true,
        });
    }
    let block = ft.is_block_device();
    if !ft.is_file() && !block {
        return Err(bad(path, "not a regular file, block device or directory"));
    }
    let size = if block { device_size(path)? } else { meta.len() };
    if size < 4 << 20 {
        return Err(bad(path, format!("{size} bytes: expected at least 4 MiB to sweep")));
    }
    Ok(Target {
        path: path.to_path_buf(),
        size,
        created: false,
        block_device: block,
        writable: allow_write,
    })
}

fn device_size(path: &Path) -> Result<u64, CalibrateError> {
    let mut f = std::fs::File::open(path).map_err(|e| bad(path, format!("cannot open: {e}")))?;
    f.seek(SeekFrom::End(0)).map_err(|e| bad(path, format!("cannot size: {e}")))
}
