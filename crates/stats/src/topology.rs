//! Which block devices serve a target path: file → filesystem → block device → partition's
//! disk, loop device → its backing file → (recursively) the device under that file,
//! device-mapper / md → their member devices.
//!
//! Sources: sysfs layout in kernel `Documentation/ABI/stable/sysfs-block` and
//! `Documentation/admin-guide/sysfs-rules.rst` (`/sys/dev/block/MAJ:MIN` links to the device
//! directory; a partition directory holds a `partition` file and sits inside its disk's
//! directory; `slaves/` lists the devices a dm or md device is built on), `drivers/block/loop.c`
//! (`loop/backing_file`), `drivers/md/dm-sysfs.c` (`dm/name`), `proc(5)` for
//! `/proc/self/mountinfo` (fields, `\040` octal escapes) and `statfs(2)` for the filesystem
//! magic numbers (`include/uapi/linux/magic.h`). The dev_t split follows glibc's
//! `gnu_dev_major`/`gnu_dev_minor` (12-bit major, 20-bit minor, split encoding).
//!
//! The sysfs and mountinfo roots are parameters so that tests can describe dm, md and
//! partition layouts in a temporary directory; [`resolve`] uses the real ones.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Depth limit for loop-over-file-over-loop chains (and a guard against cycles).
const MAX_DEPTH: usize = 8;

/// What kind of block device a node is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DevKind {
    /// A whole disk (`sda`, `nvme0n1`, `vda`).
    Disk,
    /// A partition; its parent disk is the only child node.
    Partition,
    /// A loop device; the child nodes are the devices under the backing file.
    Loop { backing_file: Option<PathBuf> },
    /// Device-mapper (`dm-N`, named `name` in `/dev/mapper`); children are `slaves/`.
    DeviceMapper { dm_name: String },
    /// Software RAID (`mdN`); children are `slaves/`.
    Md,
}

/// One block device and the devices under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevNode {
    /// Kernel name as in `/proc/diskstats` (`vda`, `loop3`, `dm-0`).
    pub name: String,
    pub major: u32,
    pub minor: u32,
    #[serde(flatten)]
    pub kind: DevKind,
    /// Devices this one is built on (empty for a plain disk).
    pub children: Vec<DevNode>,
}

impl DevNode {
    /// This node and all below it, depth first, each name once.
    pub fn flatten_into(&self, out: &mut Vec<String>) {
        if !out.contains(&self.name) {
            out.push(self.name.clone());
        }
        for c in &self.children {
            c.flatten_into(out);
        }
    }
}

/// The filesystem holding a target (absent for a block-device target).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsInfo {
    /// `statfs` f_type.
    pub magic: u64,
    /// Name from mountinfo (`ext4`, `xfs`, `tmpfs`), or from the magic number.
    pub fs_type: String,
    pub mount_point: PathBuf,
    /// mountinfo "mount source" (`/dev/vda1`, `overlay`, `tmpfs`).
    pub source: String,
}

/// Everything known about one target path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    pub path: PathBuf,
    pub fs: Option<FsInfo>,
    /// The device that serves the path; `None` for filesystems without one (tmpfs, NFS).
    pub device: Option<DevNode>,
}

impl Topology {
    /// Device names to sample in `/proc/diskstats`, the serving device first.
    pub fn devices(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(d) = &self.device {
            d.flatten_into(&mut v);
        }
        v
    }
}

/// Why a path could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("{path}: {source}")]
    Stat {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: a {what} is not served by a block device; expected a regular file, a directory or a block device")]
    NotBlockBacked { path: PathBuf, what: &'static str },
    #[error("{path}: block device {major}:{minor} has no entry under {sys}/dev/block")]
    NoSysfsEntry { path: PathBuf, major: u32, minor: u32, sys: PathBuf },
    #[error("{path}: loop devices nested deeper than {MAX_DEPTH} levels")]
    TooDeep { path: PathBuf },
}

/// Where sysfs and mountinfo are read from.
#[derive(Clone, Debug)]
pub struct Resolver {
    pub sys: PathBuf,
    pub mountinfo: PathBuf,
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver { sys: "/sys".into(), mountinfo: "/proc/self/mountinfo".into() }
    }
}

/// Resolve `path` against the running system.
pub fn resolve(path: &Path) -> Result<Topology, TopologyError> {
    Resolver::default().resolve(path)
}

/// glibc `gnu_dev_major`.
pub fn dev_major(dev: u64) -> u32 {
    (((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)) as u32
}

/// glibc `gnu_dev_minor`.
pub fn dev_minor(dev: u64) -> u32 {
    ((dev & 0xff) | ((dev >> 12) & !0xff)) as u32
}

/// Name of a filesystem magic number (`include/uapi/linux/magic.h`, zfs from
/// `include/sys/fs/zfs.h`).
pub fn fs_name(magic: u64) -> Option<&'static str> {
    Some(match magic {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x0102_1994 => "tmpfs",
        0x794C_7630 => "overlay",
        0x2FC1_2FC1 => "zfs",
        0x6969 => "nfs",
        0xFF53_4D42 => "cifs",
        0x6573_5546 => "fuse",
        0xF2F5_2010 => "f2fs",
        0x4d44 => "vfat",
        0x5346_544e => "ntfs",
        0x1373 => "devfs",
        0x9FA0 => "proc",
        0x6265_6572 => "sysfs",
        0x858458f6 => "ramfs",
        _ => return None,
    })
}

/// One mountinfo line's fields that matter here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountEntry {
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub source: String,
}

/// Parse `/proc/self/mountinfo` text (proc(5)); malformed lines are skipped because the kernel
/// writes this file and a line we cannot read must not hide the others.
pub fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split(' ').collect();
        let Some(sep) = cols.iter().position(|c| *c == "-") else { continue };
        if sep < 6 || cols.len() < sep + 3 {
            continue;
        }
        let Some((maj, min)) = cols[2].split_once(':') else { continue };
        let (Ok(major), Ok(minor)) = (maj.parse(), min.parse()) else { continue };
        out.push(MountEntry {
            major,
            minor,
            mount_point: PathBuf::from(unescape_octal(cols[4])),
            fs_type: cols[sep + 1].to_string(),
            source: unescape_octal(cols[sep + 2]),
        });
    }
    out
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = oct.iter().fold(0u32, |acc, c| acc * 8 + (c - b'0') as u32);
                out.push(v as u8);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `statfs(2)` f_type of `path`, `None` if the call fails.
pub fn statfs_magic(path: &Path) -> Option<u64> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path that outlives the call and `buf` is writable memory
    // of the size of `struct statfs`; statfs only writes into it and reports failure by rc.
    let rc = unsafe { libc::statfs(c.as_ptr(), buf.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statfs returned 0 so the struct is filled (zeroed memory is valid too: integers).
    let st = unsafe { buf.assume_init() };
    Some(st.f_type as u64)
}

impl Resolver {
    /// Resolve `path` to its filesystem and device tree.
    pub fn resolve(&self, path: &Path) -> Result<Topology, TopologyError> {
        self.resolve_depth(path, 0)
    }

    fn resolve_depth(&self, path: &Path, depth: usize) -> Result<Topology, TopologyError> {
        if depth > MAX_DEPTH {
            return Err(TopologyError::TooDeep { path: path.into() });
        }
        let stat_err = |source| TopologyError::Stat { path: path.into(), source };
        let md = std::fs::metadata(path).map_err(stat_err)?;
        let ft = md.file_type();
        if ft.is_block_device() {
            let (maj, min) = (dev_major(md.rdev()), dev_minor(md.rdev()));
            let node = self.node(path, maj, min, depth)?;
            return Ok(Topology { path: path.into(), fs: None, device: Some(node) });
        }
        let what = if ft.is_char_device() {
            Some("character device")
        } else if ft.is_fifo() {
            Some("FIFO")
        } else if ft.is_socket() {
            Some("socket")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(TopologyError::NotBlockBacked { path: path.into(), what });
        }
        let canon = std::fs::canonicalize(path).map_err(stat_err)?;
        let (maj, min) = (dev_major(md.dev()), dev_minor(md.dev()));
        let mounts = std::fs::read_to_string(&self.mountinfo)
            .map(|t| parse_mountinfo(&t))
            .unwrap_or_default();
        let mount = find_mount(&mounts, &canon, maj, min);
        let magic = statfs_magic(&canon).unwrap_or(0);
        let fs = mount.map(|m| FsInfo {
            magic,
            fs_type: m.fs_type.clone(),
            mount_point: m.mount_point.clone(),
            source: m.source.clone(),
        });
        let fs = fs.or_else(|| {
            fs_name(magic).map(|n| FsInfo {
                magic,
                fs_type: n.into(),
                mount_point: PathBuf::new(),
                source: String::new(),
            })
        });
        // Filesystems without a block device (tmpfs, NFS) and those that give files an
        // anonymous device number (btrfs subvolumes) have no sysfs entry for st_dev; for the
        // latter the mount source names the block device.
        let device = if self.sysfs_entry(maj, min).is_some() {
            Some(self.node(path, maj, min, depth)?)
        } else {
            match mount.map(|m| Path::new(&m.source)) {
                Some(src) if src.starts_with("/dev/") => match std::fs::metadata(src) {
                    Ok(m) if m.file_type().is_block_device() => {
                        Some(self.node(path, dev_major(m.rdev()), dev_minor(m.rdev()), depth)?)
                    }
                    _ => None,
                },
                _ => None,
            }
        };
        Ok(Topology { path: path.into(), fs, device })
    }

    /// The sysfs directory of block device `maj:min` (`/sys/dev/block/MAJ:MIN` resolved):
    /// the one `/sys/dev/block` lookup (the engine's safety checks use it too).
    pub fn sysfs_entry(&self, maj: u32, min: u32) -> Option<PathBuf> {
        let link = self.sys.join(format!("dev/block/{maj}:{min}"));
        std::fs::canonicalize(link).ok()
    }

    /// The device tree of block device `maj:min`.
    pub fn device(&self, maj: u32, min: u32) -> Result<DevNode, TopologyError> {
        self.node(Path::new(&format!("{maj}:{min}")), maj, min, 0)
    }

    fn node(
        &self,
        path: &Path,
        maj: u32,
        min: u32,
        depth: usize,
    ) -> Result<DevNode, TopologyError> {
        let dir = self.sysfs_entry(maj, min).ok_or_else(|| TopologyError::NoSysfsEntry {
            path: path.into(),
            major: maj,
            minor: min,
            sys: self.sys.clone(),
        })?;
        self.node_at(path, &dir, maj, min, depth)
    }

    fn node_at(
        &self,
        path: &Path,
        dir: &Path,
        maj: u32,
        min: u32,
        depth: usize,
    ) -> Result<DevNode, TopologyError> {
        if depth > MAX_DEPTH {
            return Err(TopologyError::TooDeep { path: path.into() });
        }
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut children = Vec::new();
        let kind = if dir.join("partition").exists() {
            if let Some(parent) = dir.parent() {
                let (pmaj, pmin) = read_dev(parent).unwrap_or((maj, 0));
                children.push(self.node_at(path, parent, pmaj, pmin, depth + 1)?);
            }
            DevKind::Partition
        } else if dir.join("loop").is_dir() {
            let backing = read_trimmed(&dir.join("loop/backing_file")).map(PathBuf::from);
            if let Some(b) = &backing {
                // The backing file may be deleted or live in another mount namespace; the
                // loop device is still reported, only without what is under it.
                if let Ok(t) = self.resolve_depth(b, depth + 1) {
                    children.extend(t.device);
                }
            }
            DevKind::Loop { backing_file: backing }
        } else if dir.join("dm").is_dir() {
            children = self.slaves(path, dir, depth)?;
            DevKind::DeviceMapper {
                dm_name: read_trimmed(&dir.join("dm/name")).unwrap_or_default(),
            }
        } else if dir.join("md").is_dir() {
            children = self.slaves(path, dir, depth)?;
            DevKind::Md
        } else {
            children = self.slaves(path, dir, depth)?;
            DevKind::Disk
        };
        Ok(DevNode { name, major: maj, minor: min, kind, children })
    }

    fn slaves(&self, path: &Path, dir: &Path, depth: usize) -> Result<Vec<DevNode>, TopologyError> {
        let Ok(rd) = std::fs::read_dir(dir.join("slaves")) else { return Ok(Vec::new()) };
        let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        names.sort();
        let mut out = Vec::new();
        for s in names {
            let Ok(target) = std::fs::canonicalize(&s) else { continue };
            let (maj, min) = read_dev(&target).unwrap_or((0, 0));
            out.push(self.node_at(path, &target, maj, min, depth + 1)?);
        }
        Ok(out)
    }
}

fn read_trimmed(p: &Path) -> Option<String> {
    let s = std::fs::read_to_string(p).ok()?;
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The `dev` file of a sysfs block directory: `MAJ:MIN`.
fn read_dev(dir: &Path) -> Option<(u32, u32)> {
    let s = read_trimmed(&dir.join("dev"))?;
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The mount holding `canon`: the longest mount point that is a prefix of the path, preferring
/// entries whose device number matches the file's (bind mounts and overmounts).
fn find_mount<'a>(
    mounts: &'a [MountEntry],
    canon: &Path,
    maj: u32,
    min: u32,
) -> Option<&'a MountEntry> {
    let best = |want_dev: bool| {
        mounts
            .iter()
            .filter(|m| canon.starts_with(&m.mount_point))
            .filter(|m| !want_dev || (m.major == maj && m.minor == min))
            .max_by_key(|m| m.mount_point.as_os_str().len())
    };
    best(true).or_else(|| best(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_t_split_matches_glibc() {
        // makedev(259, 3) and makedev(8, 1048577) in glibc's encoding.
        let mk = |maj: u64, min: u64| {
            ((maj & 0xfff) << 8) | ((maj & !0xfff) << 32) | (min & 0xff) | ((min & !0xff) << 12)
        };
        for (a, b) in [(259u64, 3u64), (8, 1_048_577), (7, 0), (4095, 255), (254, 256)] {
            let d = mk(a, b);
            assert_eq!((dev_major(d), dev_minor(d)), (a as u32, b as u32));
        }
    }

    #[test]
    fn mountinfo_fields_and_escapes() {
        let t = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                 40 27 7:3 / /mnt/my\\040disk rw shared:5 master:1 - xfs /dev/loop3 rw\n\
                 garbage line\n";
        let m = parse_mountinfo(t);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].major, m[0].minor, m[0].fs_type.as_str()), (254, 0, "ext4"));
        assert_eq!(m[1].mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!((m[1].fs_type.as_str(), m[1].source.as_str()), ("xfs", "/dev/loop3"));
        let f = find_mount(&m, Path::new("/mnt/my disk/a"), 7, 3);
        assert_eq!(f.map(|e| e.source.as_str()), Some("/dev/loop3"));
        let f = find_mount(&m, Path::new("/home/x"), 254, 0);
        assert_eq!(f.map(|e| e.source.as_str()), Some("/dev/vda"));
    }

    #[test]
    fn magic_names() {
        assert_eq!(fs_name(0xEF53), Some("ext4"));
        assert_eq!(fs_name(0x58465342), Some("xfs"));
        assert_eq!(fs_name(0x12345), None);
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("iolab-topo-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn mkdev(dir: &Path, dev: &str, extra: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("dev"), format!("{dev}\n")).unwrap();
        for e in extra {
            let p = dir.join(e);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x\n").unwrap();
        }
    }

    /// A fake sysfs: dm-0 ("vg-lv") over md0 (RAID over sdb and sdc) and partition sda1.
    #[test]
    fn dm_over_md_and_partition_in_fake_sysfs() {
        use std::os::unix::fs::symlink;
        let sys = scratch("sys");
        let b = sys.join("devices/virtual/block");
        let sda = sys.join("devices/pci/block/sda");
        mkdev(&sda, "8:0", &[]);
        mkdev(&sda.join("sda1"), "8:1", &["partition"]);
        let sdb = sys.join("devices/pci/block/sdb");
        let sdc = sys.join("devices/pci/block/sdc");
        mkdev(&sdb, "8:16", &[]);
        mkdev(&sdc, "8:32", &[]);
        mkdev(&b.join("md0"), "9:0", &["md/level"]);
        std::fs::create_dir_all(b.join("md0/slaves")).unwrap();
        symlink(&sdb, b.join("md0/slaves/sdb")).unwrap();
        symlink(&sdc, b.join("md0/slaves/sdc")).unwrap();
        mkdev(&b.join("dm-0"), "253:0", &[]);
        std::fs::create_dir_all(b.join("dm-0/dm")).unwrap();
        std::fs::write(b.join("dm-0/dm/name"), "vg-lv\n").unwrap();
        std::fs::create_dir_all(b.join("dm-0/slaves")).unwrap();
        symlink(b.join("md0"), b.join("dm-0/slaves/md0")).unwrap();
        symlink(sda.join("sda1"), b.join("dm-0/slaves/sda1")).unwrap();
        std::fs::create_dir_all(sys.join("dev/block")).unwrap();
        symlink(b.join("dm-0"), sys.join("dev/block/253:0")).unwrap();
        symlink(sda.join("sda1"), sys.join("dev/block/8:1")).unwrap();

        let r = Resolver { sys: sys.clone(), mountinfo: sys.join("none") };
        let n = r.device(253, 0).unwrap();
        assert_eq!(n.kind, DevKind::DeviceMapper { dm_name: "vg-lv".into() });
        let mut names = Vec::new();
        n.flatten_into(&mut names);
        assert_eq!(names, ["dm-0", "md0", "sdb", "sdc", "sda1", "sda"]);
        assert_eq!(n.children[0].kind, DevKind::Md);
        assert_eq!((n.children[0].children[1].major, n.children[0].children[1].minor), (8, 32));
        let p = r.device(8, 1).unwrap();
        assert_eq!(p.kind, DevKind::Partition);
        assert_eq!((p.children[0].name.as_str(), p.children[0].minor), ("sda", 0));
        assert!(matches!(r.device(8, 99), Err(TopologyError::NoSysfsEntry { .. })));
        std::fs::remove_dir_all(&sys).unwrap();
    }

    #[test]
    fn temp_file_resolves_to_the_device_of_its_filesystem() {
        let d = scratch("file");
        let f = d.join("target");
        std::fs::write(&f, b"x").unwrap();
        let t = resolve(&f).unwrap();
        let st = std::fs::metadata(&f).unwrap();
        let fs = t.fs.as_ref().expect("a temp file lives on some mounted filesystem");
        assert!(f.starts_with(&fs.mount_point) || fs.mount_point.as_os_str().is_empty());
        match &t.device {
            Some(dev) => {
                // st_dev names the serving device unless the fs uses anonymous numbers.
                if dev_major(st.dev()) != 0 {
                    assert_eq!((dev.major, dev.minor), (dev_major(st.dev()), dev_minor(st.dev())));
                }
                assert_eq!(t.devices()[0], dev.name);
                assert!(std::fs::read_to_string("/proc/diskstats")
                    .unwrap()
                    .split_whitespace()
                    .any(|w| w == dev.name));
            }
            None => eprintln!("note: {} is on {} without a block device", f.display(), fs.fs_type),
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn char_device_is_refused_with_its_kind() {
        assert!(matches!(resolve(Path::new("/nonexistent/x")), Err(TopologyError::Stat { .. })));
        // Our own node (1,3 is null's numbers): the system's /dev/null may have been replaced
        // by a regular file on a machine where some program renamed over it.
        let d = std::env::temp_dir().join(format!("iolab-topo-chr-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let node = d.join("null");
        let made = std::process::Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            eprintln!("skip: mknod failed (needs root); character-device case not checked");
            std::fs::remove_dir_all(&d).unwrap();
            return;
        }
        let e = resolve(&node).unwrap_err();
        std::fs::remove_dir_all(&d).unwrap();
        assert!(matches!(e, TopologyError::NotBlockBacked { what: "character device", .. }));
        let want = format!("{}: a character device", node.display());
        assert!(e.to_string().starts_with(&want), "{e}");
    }

    fn sh(cmd: &str, args: &[&str]) -> Option<String> {
        let o = std::process::Command::new(cmd).args(args).output().ok()?;
        o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    /// As root: a file on ext4 on loopN over a sparse backing file resolves to
    /// loopN → backing file → the disk under the backing file.
    #[test]
    fn file_on_ext4_on_loop_resolves_through_the_backing_file() {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: loop devices need root");
            return;
        }
        let d = scratch("loop");
        let img = d.join("backing.img");
        std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
        let Some(dev) = sh("losetup", &["-f", "--show", img.to_str().unwrap()]) else {
            eprintln!("skipped: losetup -f failed (no loop support in this kernel/container)");
            std::fs::remove_dir_all(&d).unwrap();
            return;
        };
        let mnt = d.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let mounted = sh("mkfs.ext4", &["-q", "-F", &dev]).is_some()
            && sh("mount", &[&dev, mnt.to_str().unwrap()]).is_some();
        let check = || {
            let under = resolve(&img).unwrap();
            let t = resolve(Path::new(&dev)).unwrap();
            let n = t.device.as_ref().unwrap();
            assert_eq!(format!("/dev/{}", n.name), dev);
            assert_eq!(
                n.kind,
                DevKind::Loop { backing_file: Some(std::fs::canonicalize(&img).unwrap()) }
            );
            assert_eq!(n.children.first(), under.device.as_ref());
            if mounted {
                let f = mnt.join("f");
                std::fs::write(&f, b"data").unwrap();
                let t = resolve(&f).unwrap();
                let fs = t.fs.as_ref().unwrap();
                assert_eq!((fs.fs_type.as_str(), fs.magic), ("ext4", 0xEF53));
                assert_eq!(fs.mount_point, std::fs::canonicalize(&mnt).unwrap());
                let mut want = vec![n.name.clone()];
                want.extend(under.devices());
                assert_eq!(t.devices(), want);
            } else {
                eprintln!("note: mkfs.ext4/mount unavailable; checked the raw loop device only");
            }
        };
        let r = std::panic::catch_unwind(check);
        if mounted {
            sh("umount", &[mnt.to_str().unwrap()]);
        }
        sh("losetup", &["-d", &dev]);
        std::fs::remove_dir_all(&d).unwrap();
        if let Err(p) = r {
            std::panic::resume_unwind(p);
        }
    }
}
