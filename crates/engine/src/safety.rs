//! Refuse to destroy data: before any write to a block device, probe it for filesystem,
//! partition-table, LVM and swap signatures and check whether it (or a partition of it) is
//! mounted, used as swap or held by another driver (dm, md, bcache: `/sys/block/*/holders`).
//!
//! Signature offsets are those blkid (util-linux libblkid `superblocks/*.c`,
//! `partitions/{dos,gpt}.c`) probes: ext2/3/4 magic 0xEF53 at byte 1080, XFS "XFSB" at 0,
//! btrfs "_BHRfS_M" at 65600, LUKS "LUKS\xba\xbe" at 0, LVM2 "LABELONE" in sectors 0–3,
//! swap "SWAPSPACE2"/"SWAP-SPACE" at page size − 10, MBR 0x55AA at 510, GPT "EFI PART" at
//! LBA 1 (512- or 4096-byte sectors) and the backup header in the last sector.

use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

/// The first signature in the device at `path`, read with O_DIRECT (so the device's own
/// sectors are probed, not stale cached pages; buffered if the device refuses O_DIRECT).
pub fn probe_path(path: &Path, size: u64) -> Option<&'static str> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .or_else(|_| std::fs::File::open(path))
        .ok()?;
    probe_signature(&f, size)
}

/// The first signature found in the device's first 128 KiB and last 4 KiB, if any.
pub fn probe_signature(dev: &std::fs::File, size: u64) -> Option<&'static str> {
    // Aligned, so the read also works through an O_DIRECT descriptor.
    let mut hbuf = crate::buf::AlignedBuf::new(128 * 1024, 4096);
    let n = read_at_most(dev, hbuf.as_mut_slice(), 0);
    let head = &hbuf.as_slice()[..n];
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    if at(1080, &[0x53, 0xEF]) {
        return Some("an ext2/3/4 filesystem");
    }
    if at(0, b"XFSB") {
        return Some("an XFS filesystem");
    }
    if at(65600, b"_BHRfS_M") {
        return Some("a btrfs filesystem");
    }
    if at(0, b"LUKS\xba\xbe") {
        return Some("a LUKS header");
    }
    if (0..4).any(|s| at(s * 512, b"LABELONE")) {
        return Some("an LVM2 physical volume");
    }
    if [4096usize, 8192, 16384, 65536]
        .iter()
        .any(|p| at(p - 10, b"SWAPSPACE2") || at(p - 10, b"SWAP-SPACE"))
    {
        return Some("a swap area");
    }
    if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        return Some("a GPT partition table");
    }
    if at(510, &[0x55, 0xAA]) {
        return Some("an MBR partition table or boot sector");
    }
    if size >= 8192 {
        let mut tbuf = crate::buf::AlignedBuf::new(4096, 4096);
        let n = read_at_most(dev, tbuf.as_mut_slice(), (size - 4096) & !4095);
        let tail = tbuf.as_slice();
        if n == 4096 && (&tail[3584..3592] == b"EFI PART" || &tail[0..8] == b"EFI PART") {
            return Some("a backup GPT header");
        }
    }
    None
}

fn read_at_most(f: &std::fs::File, buf: &mut [u8], off: u64) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], off + done as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => done += n,
        }
    }
    done
}

/// `major:minor` of the device and of all its partitions, from sysfs.
fn device_family(rdev: u64) -> (Option<String>, Vec<u64>) {
    let (maj, min) = (libc::major(rdev), libc::minor(rdev));
    let sys = format!("/sys/dev/block/{maj}:{min}");
    let Ok(real) = std::fs::canonicalize(&sys) else {
        return (None, vec![rdev]);
    };
    let name = real.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut devs = vec![rdev];
    if let Ok(rd) = std::fs::read_dir(&real) {
        for e in rd.flatten() {
            let dev_file = e.path().join("dev");
            if let Ok(s) = std::fs::read_to_string(&dev_file) {
                if let Some((a, b)) = s.trim().split_once(':') {
                    if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                        devs.push(libc::makedev(a, b));
                    }
                }
            }
        }
    }
    (name, devs)
}

/// Why the device is in use (mounted, swap, holders), or `None`.
pub fn in_use(path: &Path) -> Option<String> {
    let rdev = std::fs::metadata(path).ok()?.rdev();
    let (name, family) = device_family(rdev);
    let on_family = |src: &str| {
        src.starts_with('/')
            && std::fs::metadata(src).map(|m| family.contains(&m.rdev())).unwrap_or(false)
    };
    if let Ok(mounts) = std::fs::read_to_string("/proc/self/mounts") {
        for line in mounts.lines() {
            let mut it = line.split_whitespace();
            if let (Some(src), Some(dir)) = (it.next(), it.next()) {
                if on_family(src) {
                    return Some(format!("{src} is mounted on {dir}"));
                }
            }
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            if let Some(src) = line.split_whitespace().next() {
                if on_family(src) {
                    return Some(format!("{src} is in use as swap"));
                }
            }
        }
    }
    let name = name?;
    let mut dirs = vec![format!("/sys/block/{name}/holders")];
    if let Ok(rd) = std::fs::read_dir(format!("/sys/block/{name}")) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(name.as_str()) {
                dirs.push(e.path().join("holders").to_string_lossy().into_owned());
            }
        }
    }
    for d in dirs {
        if let Ok(rd) = std::fs::read_dir(&d) {
            let holders: Vec<String> =
                rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
            if !holders.is_empty() {
                return Some(format!("held by {} ({d})", holders.join(", ")));
            }
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn image(patch: &[(usize, &[u8])]) -> std::fs::File {
        let mut f = tempfile::tempfile().unwrap();
        let mut b = vec![0u8; 256 * 1024];
        for (off, bytes) in patch {
            b[*off..*off + bytes.len()].copy_from_slice(bytes);
        }
        f.write_all(&b).unwrap();
        f
    }

    #[test]
    fn finds_each_signature() {
        let cases: &[(usize, &[u8], &str)] = &[
            (1080, &[0x53, 0xEF], "ext2/3/4"),
            (0, b"XFSB", "XFS"),
            (65600, b"_BHRfS_M", "btrfs"),
            (512, b"LABELONE", "LVM2"),
            (4086, b"SWAPSPACE2", "swap"),
            (512, b"EFI PART", "GPT"),
            (510, &[0x55, 0xAA], "MBR"),
            (256 * 1024 - 512, b"EFI PART", "backup GPT"),
        ];
        for (off, magic, want) in cases {
            let f = image(&[(*off, magic)]);
            let got = probe_signature(&f, 256 * 1024).unwrap();
            assert!(got.contains(want), "{want}: got {got}");
        }
    }

    #[test]
    fn blank_device_has_no_signature() {
        let f = image(&[]);
        assert_eq!(probe_signature(&f, 256 * 1024), None);
    }
}
