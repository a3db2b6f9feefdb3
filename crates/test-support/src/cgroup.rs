//! A cgroup of the test's own that throttles one block device: cgroup v1's blkio throttle
//! (`blkio.throttle.*_device`, Documentation/admin-guide/cgroup-v1/blkio-controller.rst) or
//! v2's `io.max` (Documentation/admin-guide/cgroup-v2.rst). Removed on drop; I/O is throttled
//! only for processes (or, in v1, threads) moved into it.

use crate::probe::{require_root, Skip};
use std::path::{Path, PathBuf};

const V1: &str = "/sys/fs/cgroup/blkio";
const V2: &str = "/sys/fs/cgroup";

/// A throttle group; caps are `[read IOPS, write IOPS, read bytes/s, write bytes/s]`, 0 = none.
#[derive(Debug)]
pub struct Throttle {
    dir: PathBuf,
    v1: bool,
}

impl Throttle {
    /// cgroup v1's blkio throttle on `majmin` (`8:0`); a [`Skip`] when it is not mounted.
    pub fn v1(tag: &str, majmin: &str, caps: [u64; 4]) -> Result<Throttle, Skip> {
        require_root("a blkio cgroup")?;
        if !Path::new(V1).join("blkio.throttle.read_iops_device").exists() {
            return Err(Skip(format!("no cgroup-v1 blkio throttle at {V1}")));
        }
        let t = Self::make(Path::new(V1), tag, true)?;
        let names =
            ["read_iops_device", "write_iops_device", "read_bps_device", "write_bps_device"];
        for (n, v) in names.iter().zip(caps) {
            if v > 0 {
                t.write(&format!("blkio.throttle.{n}"), &format!("{majmin} {v}"))?;
            }
        }
        Ok(t)
    }

    /// v1's blkio throttle when mounted, else v2's `io.max`.
    pub fn new(tag: &str, majmin: &str, caps: [u64; 4]) -> Result<Throttle, Skip> {
        require_root("a block I/O cgroup")?;
        if Path::new(V1).join("blkio.throttle.read_iops_device").exists() {
            return Self::v1(tag, majmin, caps);
        }
        if !Path::new(V2).join("cgroup.controllers").exists() {
            return Err(Skip("no cgroup block I/O controller mounted".into()));
        }
        let _ = std::fs::write(Path::new(V2).join("cgroup.subtree_control"), "+io");
        let t = Self::make(Path::new(V2), tag, false)?;
        let keys = ["riops", "wiops", "rbps", "wbps"];
        let set: Vec<String> = keys
            .iter()
            .zip(caps)
            .filter(|(_, v)| *v > 0)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        t.write("io.max", &format!("{majmin} {}", set.join(" ")))?;
        Ok(t)
    }

    fn make(root: &Path, tag: &str, v1: bool) -> Result<Throttle, Skip> {
        let dir = root.join(format!("iolab-test-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Skip(format!("{}: {e}", dir.display())))?;
        Ok(Throttle { dir, v1 })
    }

    fn write(&self, file: &str, line: &str) -> Result<(), Skip> {
        std::fs::write(self.dir.join(file), line)
            .map_err(|e| Skip(format!("{}/{file} <- '{line}': {e}", self.dir.display())))
    }

    /// The cgroup's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether this is a cgroup-v1 blkio group (threads can be moved one by one).
    pub fn is_v1(&self) -> bool {
        self.v1
    }

    /// `cgroup.procs`: `echo $$ > procs; exec iolab ...` runs a command throttled.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Moves the calling thread into the group (v1's `tasks`), so only its I/O is throttled.
    pub fn enter_thread(&self) -> std::io::Result<()> {
        // SAFETY: gettid(2) has no preconditions and cannot fail.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        let file = if self.v1 { "tasks" } else { "cgroup.threads" };
        std::fs::write(self.dir.join(file), tid.to_string())
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::LoopDev;
    use crate::probe::or_skip;

    #[test]
    fn a_throttle_group_caps_its_device_and_is_removed_on_drop() {
        let Some(lo) = or_skip(LoopDev::new_sized(4 << 20)) else { return };
        let mm = lo.majmin().unwrap();
        let Some(t) = or_skip(Throttle::new("support", &mm, [100, 0, 0, 0])) else { return };
        let dir = t.dir().to_path_buf();
        let (file, want) = if t.is_v1() {
            ("blkio.throttle.read_iops_device", format!("{mm} 100"))
        } else {
            ("io.max", format!("{mm} rbps=max wbps=max riops=100 wiops=max"))
        };
        let got = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(got.lines().any(|l| l.trim() == want), "{file}: {got}");
        assert!(t.procs().exists());
        drop(t);
        assert!(!dir.exists());
    }
}
