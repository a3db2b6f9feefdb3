//! Devices of the test's own: loop devices over temporary files (losetup(8), detached on
//! drop), block and character nodes made with mknod(2) in the test's directory, private tmpfs
//! mounts, zram devices (Documentation/admin-guide/blockdev/zram.rst) and mounts unmounted on
//! drop. Nothing here relies on the system's `/dev` entries beyond `/dev/loop-control`.

use crate::probe::{require_root, sh, tool, Skip};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn mknod(path: &Path, mode: libc::mode_t, dev: libc::dev_t) -> std::io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call; mode and dev are
    // plain integers.
    let r = unsafe { libc::mknod(c.as_ptr(), mode, dev) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A character device node of our own at `path` (`mknod path c major minor`; 1,3 is null and
/// 1,5 is zero on Linux). Needs CAP_MKNOD.
pub fn mknod_char(path: &Path, major: u32, minor: u32) -> std::io::Result<()> {
    mknod(path, libc::S_IFCHR | 0o666, libc::makedev(major, minor))
}

/// A block device node of our own at `path` (`mknod path b major minor`). Needs CAP_MKNOD.
pub fn mknod_block(path: &Path, major: u32, minor: u32) -> std::io::Result<()> {
    mknod(path, libc::S_IFBLK | 0o660, libc::makedev(major, minor))
}

/// A FIFO at `path` (`mkfifo`); needs no privilege.
pub fn mknod_fifo(path: &Path) -> std::io::Result<()> {
    mknod(path, libc::S_IFIFO | 0o666, 0)
}

/// A loop device over a backing file, detached on drop (with its temporary directory, when
/// it made one).
#[derive(Debug)]
pub struct LoopDev {
    device: PathBuf,
    name: String,
    backing: PathBuf,
    node: Option<PathBuf>,
    // Dropped after the device is detached (fields drop in order, after Drop::drop).
    _dir: Option<TempDir>,
}

impl LoopDev {
    /// A loop device over the existing file `backing`; `direct` sets `--direct-io=on`.
    pub fn over(backing: &Path, direct: bool) -> Result<LoopDev, Skip> {
        Self::attach(backing, &[if direct { "--direct-io=on" } else { "--direct-io=off" }])
    }

    /// A loop device over `backing` with extra `losetup` arguments (`-P` for partitions).
    pub fn attach(backing: &Path, extra: &[&str]) -> Result<LoopDev, Skip> {
        require_root("a loop device")?;
        let losetup = tool("losetup")?;
        let o = Command::new(&losetup)
            .args(["-f", "--show"])
            .args(extra)
            .arg(backing)
            .output()
            .map_err(|e| Skip(format!("losetup: {e}")))?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            return Err(Skip(format!("losetup -f failed: {}", err.trim())));
        }
        let device = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        let name = device.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let backing = backing.to_path_buf();
        Ok(LoopDev { device, name, backing, node: None, _dir: None })
    }

    /// A loop device over a new sparse file of `bytes` in a temporary directory of its own
    /// under `dir` (removed on drop); `direct` as in [`LoopDev::over`]. Put `dir` on a file
    /// system with O_DIRECT (not tmpfs) when `direct` matters.
    pub fn new_in(dir: &Path, bytes: u64, direct: bool) -> Result<LoopDev, Skip> {
        require_root("a loop device")?;
        let tmp = tempfile::tempdir_in(dir)
            .map_err(|e| Skip(format!("temporary directory in {}: {e}", dir.display())))?;
        let backing = tmp.path().join("backing.img");
        std::fs::File::create(&backing)
            .and_then(|f| f.set_len(bytes))
            .map_err(|e| Skip(format!("{}: {e}", backing.display())))?;
        let mut lo = Self::over(&backing, direct)?;
        lo._dir = Some(tmp);
        Ok(lo)
    }

    /// A loop device over a new sparse file of `bytes` under the system's temporary directory.
    pub fn new_sized(bytes: u64) -> Result<LoopDev, Skip> {
        Self::new_in(&std::env::temp_dir(), bytes, false)
    }

    /// `/dev/loopN` as losetup printed it.
    pub fn device(&self) -> &Path {
        &self.device
    }

    /// `loopN`, the name in /proc/diskstats and /sys/block.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The backing file.
    pub fn backing(&self) -> &Path {
        &self.backing
    }

    /// `major:minor` from /sys/block/NAME/dev.
    pub fn majmin(&self) -> Result<String, Skip> {
        let p = format!("/sys/block/{}/dev", self.name);
        let s = std::fs::read_to_string(&p).map_err(|e| Skip(format!("{p}: {e}")))?;
        Ok(s.trim().to_string())
    }

    /// A block node of our own for this device in `dir` (`mknod dir/NAME b MAJ MIN`), so the
    /// test does not depend on the `/dev` entry; returns its path.
    pub fn make_node(&mut self, dir: &Path) -> Result<PathBuf, Skip> {
        let mm = self.majmin()?;
        let (maj, min) = mm.split_once(':').ok_or_else(|| Skip(format!("bad dev '{mm}'")))?;
        let (Ok(maj), Ok(min)) = (maj.parse(), min.parse()) else {
            return Err(Skip(format!("bad dev '{mm}'")));
        };
        let node = dir.join(&self.name);
        mknod_block(&node, maj, min).map_err(|e| Skip(format!("mknod {}: {e}", node.display())))?;
        self.node = Some(node.clone());
        Ok(node)
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = sh("losetup", &["-d", &self.device.to_string_lossy()]);
        if let Some(n) = self.node.take() {
            let _ = std::fs::remove_file(n);
        }
    }
}

/// A mount, lazily unmounted on drop (before a loop device under it is detached, when it is
/// declared after the device).
#[derive(Debug)]
pub struct Mount {
    dir: PathBuf,
}

impl Mount {
    /// `mount [args] source dir`.
    pub fn new(source: &Path, dir: &Path, args: &[&str]) -> Result<Mount, Skip> {
        let o = Command::new("mount")
            .args(args)
            .arg(source)
            .arg(dir)
            .output()
            .map_err(|e| Skip(format!("mount: {e}")))?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            return Err(Skip(format!("mount {}: {}", source.display(), err.trim())));
        }
        Ok(Mount { dir: dir.to_path_buf() })
    }

    /// Takes over a mount made otherwise: `dir` is unmounted on drop.
    pub fn adopt(dir: &Path) -> Mount {
        Mount { dir: dir.to_path_buf() }
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = sh("umount", &["-l", &self.dir.to_string_lossy()]);
    }
}

/// A loop device over a file on a private tmpfs mount (a RAM-speed block device).
#[derive(Debug)]
pub struct TmpfsLoop {
    lo: Option<LoopDev>,
    mount: Option<Mount>,
    dir: TempDir,
}

impl TmpfsLoop {
    /// `mib` MiB of 0x5a bytes on a tmpfs of `mib + 4` MiB.
    pub fn new(mib: u64) -> Result<TmpfsLoop, Skip> {
        require_root("tmpfs mounts and loop devices")?;
        let dir = tempfile::tempdir().map_err(|e| Skip(format!("temporary directory: {e}")))?;
        let size = format!("size={}m", mib + 4);
        let mount = Mount::new(Path::new("iolab-test"), dir.path(), &["-t", "tmpfs", "-o", &size])?;
        let img = dir.path().join("loop.img");
        let bytes = usize::try_from(mib << 20).map_err(|e| Skip(e.to_string()))?;
        std::fs::write(&img, vec![0x5au8; bytes])
            .map_err(|e| Skip(format!("{}: {e}", img.display())))?;
        let lo = LoopDev::over(&img, false)?;
        Ok(TmpfsLoop { lo: Some(lo), mount: Some(mount), dir })
    }

    /// `/dev/loopN`.
    pub fn device(&self) -> &Path {
        self.lo.as_ref().map_or(self.dir.path(), LoopDev::device)
    }
}

impl Drop for TmpfsLoop {
    fn drop(&mut self) {
        self.lo.take();
        self.mount.take();
    }
}

/// A zram device of `mib` MiB (hot_add / hot_remove), removed on drop.
#[derive(Debug)]
pub struct Zram {
    device: PathBuf,
    id: String,
}

impl Zram {
    /// A new zram device with `disksize` of `mib` MiB.
    pub fn new(mib: u64) -> Result<Zram, Skip> {
        require_root("zram")?;
        let Ok(id) = std::fs::read_to_string("/sys/class/zram-control/hot_add") else {
            return Err(Skip("no /sys/class/zram-control (zram module not loaded)".into()));
        };
        let id = id.trim().to_string();
        let z = Zram { device: format!("/dev/zram{id}").into(), id };
        std::fs::write(format!("/sys/block/zram{}/disksize", z.id), format!("{mib}M"))
            .map_err(|e| Skip(format!("zram{} disksize: {e}", z.id)))?;
        Ok(z)
    }

    /// `/dev/zramN`.
    pub fn device(&self) -> &Path {
        &self.device
    }

    /// (orig_data_size, compr_data_size) from `mm_stat`.
    pub fn mm_stat(&self) -> Option<(u64, u64)> {
        let s = std::fs::read_to_string(format!("/sys/block/zram{}/mm_stat", self.id)).ok()?;
        let v: Vec<u64> = s.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        Some((*v.first()?, *v.get(1)?))
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        let _ = std::fs::write("/sys/class/zram-control/hot_remove", &self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::or_skip;
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    #[test]
    fn a_fifo_of_our_own() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        mknod_fifo(&p).unwrap();
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_zero_device_of_our_own_reads_zeros() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("zero");
        let Some(()) = or_skip(mknod_char(&p, 1, 5).map_err(|e| format!("mknod: {e}"))) else {
            return;
        };
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(m.file_type().is_char_device());
        assert_eq!(m.rdev(), libc::makedev(1, 5));
        let mut buf = [0xffu8; 4096];
        std::fs::File::open(&p).unwrap().read_exact(&mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
    }

    #[test]
    fn a_loop_device_of_our_own_has_the_size_and_a_node_and_goes_on_drop() {
        let Some(mut lo) = or_skip(LoopDev::new_sized(8 << 20)) else { return };
        let name = lo.name().to_string();
        assert!(name.starts_with("loop"), "{name}");
        let sectors = std::fs::read_to_string(format!("/sys/block/{name}/size")).unwrap();
        assert_eq!(sectors.trim(), "16384");
        let d = tempfile::tempdir().unwrap();
        let node = lo.make_node(d.path()).unwrap();
        let m = std::fs::metadata(&node).unwrap();
        assert!(m.file_type().is_block_device());
        let mm = lo.majmin().unwrap();
        assert_eq!(format!("{}:{}", libc::major(m.rdev()), libc::minor(m.rdev())), mm);
        // Our node reads the backing file's (sparse, zero) bytes.
        let mut buf = vec![0xffu8; 65536];
        std::fs::File::open(&node).unwrap().read_exact(&mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
        let backing = lo.backing().to_path_buf();
        drop(lo);
        assert!(!node.exists() && !backing.exists());
        let bf = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"));
        assert!(bf.map_or(true, |f| f.trim() != backing.to_string_lossy()), "still attached");
    }
}
