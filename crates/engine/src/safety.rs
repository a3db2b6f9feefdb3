//! Refuse to destroy data: before any write to a block device (layout, `--prefill`, verify
//! writes, write/trim jobs, `iolab replay`), check
//!
//! 1. whether it is **in use**: it or one of its partitions is mounted (`/proc/self/mountinfo`
//!    by `major:minor`, as util-linux `lib/ismounted.c` and fio's `device_is_mounted` do),
//!    active swap (`/proc/swaps`), held by another driver (dm, md, bcache:
//!    `/sys/class/block/X/holders/`, also per partition), or claimed exclusively so that
//!    `open(O_EXCL)` fails with `EBUSY` (the kernel's `bd_prepare_to_claim`). Only fio's
//!    `allow_mounted_write=1` lifts this, with a warning in the job's notes;
//! 2. whether it **carries data**: any signature util-linux libblkid recognises on the device
//!    or on any partition of it (see [`crate::blkid`]). `--allow-destroy` lifts this. When
//!    libblkid cannot be loaded, every block device counts as carrying data.
//!
//! Paths are resolved first, so a symlink to a device is checked (and named) as the device.
//! The classification and the in-use checks (mounts, swap, holders, `O_EXCL`, loop devices
//! over the same backing file) are the gate's (`iolab_core::gate`), shared with every other
//! path iolab writes; the signatures (libblkid) are this file's.

use crate::blkid::{Blkid, Signature};
use crate::error::EngineError;
use iolab_core::gate;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What lifts the checks, from the command line and the job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteGrant {
    /// `--allow-destroy`: signatures do not stop the write.
    pub allow_destroy: bool,
    /// fio's `allow_mounted_write=1`: neither use nor signatures stop the write.
    pub allow_mounted_write: bool,
}

/// The checks for a write to block device `path`: `Ok` with notes for the run report (the
/// warning when `allow_mounted_write=1` lets a write through to a device in use).
pub fn check_block_write(path: &Path, grant: WriteGrant) -> Result<Vec<String>, EngineError> {
    check_block_write_with(path, grant, &Blkid::load)
}

/// [`check_block_write`] with the way libblkid is loaded given (tests pass a missing library
/// to see the refusal a system without libblkid gets).
pub fn check_block_write_with(
    path: &Path,
    grant: WriteGrant,
    load_blkid: &dyn Fn() -> Result<Blkid, String>,
) -> Result<Vec<String>, EngineError> {
    let real = std::fs::canonicalize(path).map_err(|e| EngineError::io(path, "resolve", e))?;
    let shown = shown_name(path, &real);
    let mut notes = Vec::new();
    let c = gate::classify(path)
        .map_err(|e| EngineError::InUse { path: shown.clone(), reason: e.reason() })?;
    if let Some(why) = gate::block::in_use(&c) {
        if !grant.allow_mounted_write {
            return Err(EngineError::InUse { path: shown, reason: why });
        }
        notes.push(format!(
            "warning: {}: allow_mounted_write=1: writing although {why}; the data on it may \
             be destroyed and a mounted filesystem corrupted",
            shown.display()
        ));
        return Ok(notes);
    }
    if grant.allow_destroy || grant.allow_mounted_write {
        return Ok(notes);
    }
    let blkid = load_blkid().map_err(|e| EngineError::Destructive {
        path: shown.clone(),
        reason: format!(
            "its signatures cannot be checked ({e}; libblkid is part of util-linux), so it \
             may carry a filesystem or partition table"
        ),
    })?;
    let found = signatures(&blkid, &real)
        .map_err(|e| EngineError::Destructive { path: shown.clone(), reason: e })?;
    if !found.is_empty() {
        return Err(EngineError::Destructive {
            path: shown,
            reason: format!("it carries {}", found.join(", ")),
        });
    }
    Ok(notes)
}

/// `real`, and how the user named it when that differs (a symlink).
fn shown_name(path: &Path, real: &Path) -> PathBuf {
    if path == real {
        real.to_path_buf()
    } else {
        PathBuf::from(format!("{} (-> {})", path.display(), real.display()))
    }
}

/// `minix (filesystem)`, `gpt (partition table)`, `ext4 (filesystem) on partition loop3p1`.
fn describe(sigs: &[Signature], part: Option<&str>) -> Vec<String> {
    sigs.iter()
        .map(|s| {
            let usage = if s.usage.is_empty() { "signature" } else { s.usage.as_str() };
            match part {
                Some(p) => format!("{} ({usage}) on partition {p}", s.name),
                None => format!("{} ({usage})", s.name),
            }
        })
        .collect()
}

/// Every signature on the device and on each of its partitions, described for a message.
fn signatures(blkid: &Blkid, dev: &Path) -> Result<Vec<String>, String> {
    let whole = std::fs::File::open(dev).map_err(|e| format!("open for probing: {e}"))?;
    // Drop clean cached pages so libblkid reads the medium, not pages cached before
    // something wrote around the page cache (O_DIRECT writes, a loop device's backing file).
    // SAFETY: posix_fadvise takes an open fd and plain integers.
    unsafe { libc::posix_fadvise(whole.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    let mut found = describe(&blkid.probe_path(dev)?, None);
    let parts = partitions(dev);
    if !parts.is_empty() {
        for p in parts {
            let sigs = blkid.probe_range(&whole, p.start, p.size)?;
            found.extend(describe(&sigs, Some(&p.name)));
        }
    }
    Ok(found)
}

/// A partition of a whole device, from sysfs (`start` and `size` are in 512-byte sectors).
#[derive(Debug)]
struct Partition {
    name: String,
    start: u64,
    size: u64,
}

/// The sysfs directory of the device `rdev`, through the gate's resolver.
fn sys_dir(rdev: u64) -> Option<PathBuf> {
    gate::block::sys_dir(rdev)
}

fn read_num(p: &Path) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// The partitions of the block device at `dev` (none for a partition itself).
fn partitions(dev: &Path) -> Vec<Partition> {
    let Some(dir) = std::fs::metadata(dev).ok().and_then(|m| sys_dir(m.rdev())) else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        if !p.join("partition").exists() {
            continue;
        }
        let (Some(start), Some(size)) = (read_num(&p.join("start")), read_num(&p.join("size")))
        else {
            continue;
        };
        let name = e.file_name().to_string_lossy().into_owned();
        let (start, size) = (start.saturating_mul(512), size.saturating_mul(512));
        out.push(Partition { name, start, size });
    }
    out.sort_by_key(|p| p.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_names_usage_and_partition() {
        let s = vec![Signature { name: "minix".into(), usage: "filesystem".into() }];
        assert_eq!(describe(&s, None), vec!["minix (filesystem)"]);
        assert_eq!(describe(&s, Some("loop3p1")), vec!["minix (filesystem) on partition loop3p1"]);
    }
}
