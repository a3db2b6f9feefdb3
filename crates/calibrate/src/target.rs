//! What `iolab calibrate` may calibrate and how: an existing regular file or block device
//! (read-only unless `--allow-write`), a directory (iolab creates `iolab-calibrate.dat` in
//! a private scratch directory `iolab-calibrate-PID.RANDOM/` there) or a new path (iolab
//! creates the file under that name in a private `.iolab-calibrate-PID.RANDOM/` beside it).
//! Scratch is never a planted name or symlink and goes however the command ends
//! (`iolab_core::gate::scratch`); scratch a killed run left is reported, never reused (the
//! user's new path is never created, so a leftover cannot pass for the user's file).
//! Anything else (FIFO, socket, character device) is refused before it is opened, so a FIFO
//! cannot block the command.

use crate::error::CalibrateError;
use iolab_core::gate::scratch::{self, ScratchDir};
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

/// The prefixes of calibration scratch directories: in a directory target, and beside a
/// new path.
pub const SCRATCH_IN_DIR: &str = "iolab-calibrate-";
pub const SCRATCH_BESIDE: &str = ".iolab-calibrate-";

/// A resolved target, the scratch directory holding a file iolab creates, and notes (stale
/// scratch of killed runs).
pub type Resolved = (Target, Option<ScratchDir>, Vec<String>);

/// A new file `name` in a fresh scratch directory in `dir`.
fn scratch_target(
    dir: &Path,
    prefix: &str,
    name: &str,
    size: u64,
) -> Result<Resolved, CalibrateError> {
    let notes = scratch::stale_notes(dir, prefix);
    // The sweep lays the file out first: refused before any write when it cannot fit.
    if let Some(free) = scratch::free_bytes(dir).filter(|&f| f < size) {
        return Err(bad(
            dir,
            format!(
                "a new {size}-byte file needs that much free space and the filesystem has {free} \
                 bytes free: nothing was written (lower --size)"
            ),
        ));
    }
    let sd = ScratchDir::create(dir, prefix).map_err(|e| bad(dir, e.reason()))?;
    let path = sd.path().join(name);
    let t = Target { path, size, created: true, block_device: false, writable: true };
    Ok((t, Some(sd), notes))
}

/// Resolves `path`; `new_size` is the size of a file iolab creates.
pub fn resolve(path: &Path, new_size: u64, allow_write: bool) -> Result<Resolved, CalibrateError> {
    if path.to_string_lossy().contains(':') {
        return Err(bad(path, "a ':' in the path would split fio's filename= list; rename it"));
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let c = iolab_core::gate::check(path, iolab_core::gate::Intent::Scratch)
                .map_err(|e| bad(path, e.reason()))?;
            let dir = c.resolved.parent().unwrap_or(Path::new("/")).to_path_buf();
            let name = c.resolved.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_else(|| "iolab-calibrate.dat".into());
            return scratch_target(&dir, SCRATCH_BESIDE, &name, new_size);
        }
        Err(e) => return Err(bad(path, format!("cannot stat: {e}"))),
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return scratch_target(path, SCRATCH_IN_DIR, "iolab-calibrate.dat", new_size);
    }
    let block = ft.is_block_device();
    if !ft.is_file() && !block {
        return Err(bad(path, "not a regular file, block device or directory"));
    }
    let size = if block { device_size(path)? } else { meta.len() };
    if size < 4 << 20 {
        return Err(bad(path, format!("{size} bytes: expected at least 4 MiB to sweep")));
    }
    let t = Target {
        path: path.to_path_buf(),
        size,
        created: false,
        block_device: block,
        writable: allow_write,
    };
    Ok((t, None, Vec::new()))
}

fn device_size(path: &Path) -> Result<u64, CalibrateError> {
    let mut f = std::fs::File::open(path).map_err(|e| bad(path, format!("cannot open: {e}")))?;
    f.seek(SeekFrom::End(0)).map_err(|e| bad(path, format!("cannot size: {e}")))
}
