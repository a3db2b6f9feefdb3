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

use crate::blkid::{Blkid, Signature};
use crate::error::EngineError;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
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
    if let Some(why) = in_use(&real) {
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

/// The sysfs directory of the device `rdev`, through the one `/sys/dev/block` resolver.
fn sys_dir(rdev: u64) -> Option<PathBuf> {
    let (maj, min) = (libc::major(rdev), libc::minor(rdev));
    iolab_stats::topology::Resolver::default().sysfs_entry(maj, min)
}

fn read_num(p: &Path) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

fn read_devno(p: &Path) -> Option<u64> {
    let s = std::fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
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

/// Undo the octal escapes (`\040` for a space) of `/proc/self/mountinfo` and `/proc/swaps`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let oct = b.get(i + 1..i + 4).filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], oct) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') << 6 | (d[1] - b'0') << 3 | (d[2] - b'0'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The device's number and its partitions' (`family`), for matching mounts and swap.
fn family(rdev: u64) -> Vec<u64> {
    let mut devs = vec![rdev];
    if let Some(dir) = sys_dir(rdev) {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                if e.path().join("partition").exists() {
                    devs.extend(read_devno(&e.path().join("dev")));
                }
            }
        }
    }
    devs
}

/// A mount of any device in `family`: `(source, mount point)` from a mountinfo text.
/// Matched by the `major:minor` field, and by the source's device number for filesystems
/// (btrfs) whose field is an anonymous device.
pub fn mounted_on(mountinfo: &str, family: &[u64]) -> Option<(String, String)> {
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (Some(majmin), Some(dir)) = (f.get(2), f.get(4)) else { continue };
        let source = f.iter().position(|x| *x == "-").and_then(|i| f.get(i + 2));
        let source = source.map(|s| unescape(s)).unwrap_or_default();
        let by_num = majmin.split_once(':').and_then(|(a, b)| {
            Some(family.contains(&libc::makedev(a.parse().ok()?, b.parse().ok()?)))
        });
        let by_src = source.starts_with('/')
            && std::fs::metadata(&source)
                .is_ok_and(|m| m.file_type().is_block_device() && family.contains(&m.rdev()));
        if by_num == Some(true) || by_src {
            return Some((source, unescape(dir)));
        }
    }
    None
}

/// Why the device is in use (mounted, swap, holders, exclusively open), or `None`.
pub fn in_use(path: &Path) -> Option<String> {
    let rdev = std::fs::metadata(path).ok()?.rdev();
    let fam = family(rdev);
    if let Ok(mi) = std::fs::read_to_string("/proc/self/mountinfo") {
        if let Some((src, dir)) = mounted_on(&mi, &fam) {
            return Some(format!("it is mounted ({src} on {dir})"));
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            let Some(src) = line.split_whitespace().next().map(unescape) else { continue };
            if std::fs::metadata(&src).is_ok_and(|m| fam.contains(&m.rdev())) {
                return Some(format!("it is in use as swap ({src})"));
            }
        }
    }
    if let Some(why) = held(rdev) {
        return Some(why);
    }
    let excl = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(path);
    match excl {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(
            "it is claimed by another user of the device (open with O_EXCL fails with EBUSY: \
             mounted elsewhere, a RAID/LVM/bcache member, or being formatted)"
                .to_string(),
        ),
        _ => None,
    }
}

/// Holders (dm, md, bcache …) of the device or of any partition of it.
fn held(rdev: u64) -> Option<String> {
    let dir = sys_dir(rdev)?;
    let mut dirs = vec![dir.join("holders")];
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            if e.path().join("partition").exists() {
                dirs.push(e.path().join("holders"));
            }
        }
    }
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        let holders: Vec<String> =
            rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        if !holders.is_empty() {
            return Some(format!("it is held by {} ({})", holders.join(", "), d.display()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_match_by_devno_and_escaped_mount_point() {
        let mi = "36 35 7:3 / /mnt/my\\040disk rw,relatime shared:1 - ext4 /dev/loop3 rw\n\
                  37 35 0:52 / /proc rw - proc proc rw\n";
        let fam = [libc::makedev(7, 3)];
        let (src, dir) = mounted_on(mi, &fam).unwrap();
        assert_eq!((src.as_str(), dir.as_str()), ("/dev/loop3", "/mnt/my disk"));
        assert_eq!(mounted_on(mi, &[libc::makedev(7, 4)]), None);
        // A partition of the device (259:1) mounted: found through the family.
        let mi = "40 35 259:1 / /data rw - xfs /dev/loop3p1 rw\n";
        assert!(mounted_on(mi, &[libc::makedev(7, 3), libc::makedev(259, 1)]).is_some());
    }

    #[test]
    fn unescape_octal() {
        assert_eq!(unescape("a\\040b\\011c\\\\d"), "a b\tc\\\\d");
        assert_eq!(unescape("end\\04"), "end\\04");
    }

    #[test]
    fn describe_names_usage_and_partition() {
        let s = vec![Signature { name: "minix".into(), usage: "filesystem".into() }];
        assert_eq!(describe(&s, None), vec!["minix (filesystem)"]);
        assert_eq!(describe(&s, Some("loop3p1")), vec!["minix (filesystem) on partition loop3p1"]);
    }
}
