//! Real targets for tests on one machine, each probed and skipped with a reason: a loop
//! device over a file on tmpfs, over a disk file, a zram device, and a loop device throttled
//! by the cgroup-v1 blkio controller. Each undoes its set-up when dropped.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

fn skip(why: &str) {
    println!("skip: {why}");
}

fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// A loop device over `file` (`--direct-io=on` when `direct`).
pub struct Loop {
    pub device: PathBuf,
}

impl Loop {
    pub fn over(file: &std::path::Path, direct: bool) -> Option<Loop> {
        if !root() {
            skip("loop devices need root");
            return None;
        }
        let f = file.to_string_lossy().into_owned();
        let dio = if direct { "--direct-io=on" } else { "--direct-io=off" };
        match sh("losetup", &["-f", "--show", dio, &f]) {
            Some(d) => Some(Loop { device: d.into() }),
            None => {
                skip("losetup -f failed (no free loop device or no loop support)");
                None
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = sh("losetup", &["-d", &self.device.to_string_lossy()]);
    }
}

/// A loop device over a file on a private tmpfs mount.
pub struct TmpfsLoop {
    pub device: PathBuf,
    lo: Option<Loop>,
    mnt: PathBuf,
}

impl TmpfsLoop {
    pub fn new(mib: u64) -> Option<TmpfsLoop> {
        if !root() {
            skip("tmpfs mounts and loop devices need root");
            return None;
        }
        let mnt = std::env::temp_dir().join(format!("iolab-tmpfs-{}-{mib}", std::process::id()));
        std::fs::create_dir_all(&mnt).ok()?;
        let size = format!("size={}m", mib + 4);
        if sh("mount", &["-t", "tmpfs", "-o", &size, "iolab-test", &mnt.to_string_lossy()])
            .is_none()
        {
            skip("cannot mount tmpfs");
            return None;
        }
        let img = mnt.join("loop.img");
        std::fs::write(&img, vec![0x5au8; (mib << 20) as usize]).ok()?;
        let lo = Loop::over(&img, false)?;
        Some(TmpfsLoop { device: lo.device.clone(), lo: Some(lo), mnt })
    }
}

impl Drop for TmpfsLoop {
    fn drop(&mut self) {
        self.lo.take();
        let _ = sh("umount", &[&self.mnt.to_string_lossy()]);
        let _ = std::fs::remove_dir(&self.mnt);
    }
}

/// A zram device of `mib` MiB (hot_add / hot_remove).
pub struct Zram {
    pub device: PathBuf,
    id: String,
}

impl Zram {
    pub fn new(mib: u64) -> Option<Zram> {
        if !root() {
            skip("zram needs root");
            return None;
        }
        let Ok(id) = std::fs::read_to_string("/sys/class/zram-control/hot_add") else {
            skip("no /sys/class/zram-control (zram module not loaded)");
            return None;
        };
        let id = id.trim().to_string();
        let z = Zram { device: format!("/dev/zram{id}").into(), id };
        std::fs::write(format!("/sys/block/zram{}/disksize", z.id), format!("{mib}M")).ok()?;
        Some(z)
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

/// A loop device whose reads and writes are capped by a cgroup-v1 blkio throttle group;
/// I/O must be issued by a process in `cgroup` (the tests run the CLI there).
pub struct Throttled {
    pub lo: Loop,
    pub cgroup: PathBuf,
}

impl Throttled {
    /// Caps: (read IOPS, write IOPS, read bytes/s, write bytes/s); 0 = none.
    pub fn new(file: &std::path::Path, caps: [u64; 4]) -> Option<Throttled> {
        if !std::path::Path::new("/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device").exists() {
            skip("no cgroup-v1 blkio throttle");
            return None;
        }
        let lo = Loop::over(file, true)?;
        let mm = sh("lsblk", &["-dno", "MAJ:MIN", &lo.device.to_string_lossy()])?;
        let cg = PathBuf::from(format!("/sys/fs/cgroup/blkio/iolab-test-{}", std::process::id()));
        std::fs::create_dir_all(&cg).ok()?;
        let names =
            ["read_iops_device", "write_iops_device", "read_bps_device", "write_bps_device"];
        for (n, v) in names.iter().zip(caps) {
            if v > 0 {
                std::fs::write(
                    cg.join(format!("blkio.throttle.{n}")),
                    format!("{} {v}", mm.trim()),
                )
                .ok()?;
            }
        }
        Some(Throttled { lo, cgroup: cg })
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.cgroup);
    }
}
