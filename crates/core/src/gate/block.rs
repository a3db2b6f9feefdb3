//! Whether a block device, or a file backing a loop device, is in use: mounted (it or one of
//! its partitions, `/proc/self/mountinfo` by `major:minor`, as util-linux lib/ismounted.c and
//! fio's `device_is_mounted`), active swap (`/proc/swaps`), held by another driver (dm, md,
//! bcache: `/sys/class/block/X/holders/`, also per partition), claimed exclusively so that
//! `open(O_EXCL)` fails with `EBUSY` (the kernel's `bd_prepare_to_claim`), or — for loop
//! devices — sharing bytes of its backing file with another loop device that is in use.
//!
//! Loop devices over the same file are found as util-linux lib/loopdev.c
//! `loopcxt_is_used`/`loopdev_find_by_backing_file` finds them: each bound loop device's
//! `/sys/block/loopN/loop/backing_file` (stat'ed to device and inode) and its `offset`, and
//! its size (`/sys/block/loopN/size`, which already honours `sizelimit`); two regions of one
//! file that overlap are aliases (a loop over `losetup -o 2M` of a mounted image included).

use super::classify::{Classified, Kind};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The sysfs directory of block device `rdev` (`/sys/dev/block/MAJ:MIN`, resolved).
pub fn sys_dir(rdev: u64) -> Option<PathBuf> {
    let (maj, min) = (libc::major(rdev), libc::minor(rdev));
    std::fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()
}

fn read_num(p: &Path) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

fn read_devno(p: &Path) -> Option<u64> {
    let s = std::fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
}

/// Undo the octal escapes (`\040` for a space) of `/proc/self/mountinfo` and `/proc/swaps`.
pub fn unescape(s: &str) -> String {
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
pub fn family(rdev: u64) -> Vec<u64> {
    let mut devs = vec![rdev];
    if let Some(rd) = sys_dir(rdev).and_then(|d| std::fs::read_dir(d).ok()) {
        for e in rd.flatten() {
            if e.path().join("partition").exists() {
                devs.extend(read_devno(&e.path().join("dev")));
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
            && std::fs::metadata(&source).is_ok_and(|m| {
                use std::os::unix::fs::FileTypeExt;
                m.file_type().is_block_device() && family.contains(&m.rdev())
            });
        if by_num == Some(true) || by_src {
            return Some((source, unescape(dir)));
        }
    }
    None
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

/// Why device `rdev` (reachable at `node`, when known) itself is in use, loop aliases aside.
fn device_in_use(rdev: u64, node: Option<&Path>) -> Option<String> {
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
    let excl = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(node?);
    match excl {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(
            "it is claimed by another user of the device (open with O_EXCL fails with EBUSY: \
             mounted elsewhere, a RAID/LVM/bcache member, or being formatted)"
                .to_string(),
        ),
        _ => None,
    }
}

/// A bound loop device: its name, number, backing file's `(dev, ino)` and byte region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopRegion {
    pub name: String,
    pub rdev: u64,
    pub backing: PathBuf,
    pub file: (u64, u64),
    pub start: u64,
    pub end: u64,
}

/// The region of the backing file that block device `rdev` (a loop device or a partition
/// of one) covers.
pub fn loop_region(rdev: u64) -> Option<LoopRegion> {
    let dir = sys_dir(rdev)?;
    let (whole, part_start) = if dir.join("partition").exists() {
        (dir.parent()?.to_path_buf(), read_num(&dir.join("start"))?.checked_mul(512)?)
    } else {
        (dir.clone(), 0)
    };
    let backing = std::fs::read_to_string(whole.join("loop/backing_file")).ok()?;
    let backing = PathBuf::from(backing.trim_end_matches('\n'));
    let m = std::fs::metadata(&backing).ok()?;
    let start = read_num(&whole.join("loop/offset"))?.checked_add(part_start)?;
    let len = read_num(&dir.join("size"))?.checked_mul(512)?;
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let end = start.checked_add(len)?;
    Some(LoopRegion { name, rdev, backing, file: (m.dev(), m.ino()), start, end })
}

/// Every bound loop device (whole devices; their partitions are in their families).
pub fn loop_devices() -> Vec<LoopRegion> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else { return Vec::new() };
    rd.flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("loop"))
        .filter_map(|e| read_devno(&e.path().join("dev")))
        .filter_map(loop_region)
        .collect()
}

/// The `/dev` node of loop device `name` when it has the expected number.
fn dev_node(name: &str, rdev: u64) -> Option<PathBuf> {
    let p = PathBuf::from(format!("/dev/{name}"));
    std::fs::metadata(&p).ok().filter(|m| m.rdev() == rdev).map(|_| p)
}

/// Why another loop device over bytes of `file` in `[start, end)` (not `skip`) is in use.
fn loop_alias_in_use(file: (u64, u64), start: u64, end: u64, skip: u64) -> Option<String> {
    for l in loop_devices() {
        if l.file != file || l.rdev == skip || l.end <= start || end <= l.start {
            continue;
        }
        if let Some(why) = device_in_use(l.rdev, dev_node(&l.name, l.rdev).as_deref()) {
            return Some(format!(
                "it shares bytes {}..{} of {} with /dev/{}, and {why}",
                start.max(l.start),
                end.min(l.end),
                l.backing.display(),
                l.name
            ));
        }
    }
    None
}

/// Why the classified path is in use: a block device by [`device_in_use`] or through a loop
/// alias; a regular file when it backs a loop device in use.
pub fn in_use(c: &Classified) -> Option<String> {
    match c.kind {
        Kind::Block => device_in_use(c.rdev, Some(&c.resolved)).or_else(|| {
            let r = loop_region(c.rdev)?;
            loop_alias_in_use(r.file, r.start, r.end, c.rdev)
        }),
        Kind::Regular => file_in_use(c),
        _ => None,
    }
}

/// Why the regular file is in use: it backs a loop device that is (the file is a mounted
/// image).
pub fn file_in_use(c: &Classified) -> Option<String> {
    let file = c.id.filter(|_| c.kind == Kind::Regular)?;
    loop_alias_in_use(file, 0, u64::MAX, 0)
        .map(|why| format!("the file backs a loop device: {why}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
        let mi = "40 35 259:1 / /data rw - xfs /dev/loop3p1 rw\n";
        assert!(mounted_on(mi, &[libc::makedev(7, 3), libc::makedev(259, 1)]).is_some());
    }

    #[test]
    fn unescape_octal() {
        assert_eq!(unescape("a\\040b\\011c\\\\d"), "a b\tc\\\\d");
        assert_eq!(unescape("end\\04"), "end\\04");
    }
}
