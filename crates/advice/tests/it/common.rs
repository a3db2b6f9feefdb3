//! Helpers shared by the topic modules of iolab-advice's integration tests.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

pub(crate) fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

pub(crate) fn scratch(tag: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("advice-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A loop device, detached on drop.
pub(crate) struct Loop {
    pub(crate) dev: String,
}

impl Loop {
    pub(crate) fn attach(backing: &Path, direct_io: bool) -> Option<Loop> {
        let b = backing.to_str()?;
        let args: Vec<&str> = if direct_io {
            vec!["-f", "--show", "--direct-io=on", b]
        } else {
            vec!["-f", "--show", b]
        };
        sh("losetup", &args).map(|dev| Loop { dev })
    }
    pub(crate) fn name(&self) -> String {
        self.dev.trim_start_matches("/dev/").to_string()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        sh("losetup", &["-d", &self.dev]);
    }
}

/// A mounted filesystem, unmounted on drop (before its loop device is detached).
pub(crate) struct Mount {
    pub(crate) dir: PathBuf,
}

impl Drop for Mount {
    fn drop(&mut self) {
        sh("umount", &[self.dir.to_str().unwrap()]);
    }
}

/// The TID of the calling thread, from `/proc/thread-self` (a link to `PID/task/TID`).
pub(crate) fn tid() -> String {
    let l = std::fs::read_link("/proc/thread-self").unwrap();
    l.file_name().unwrap().to_string_lossy().into_owned()
}

/// A 4096-aligned window into a Vec (O_DIRECT needs aligned buffers; this keeps the test free
/// of unsafe allocation code).
pub(crate) fn aligned(len: usize, fill: u8) -> (Vec<u8>, usize) {
    let v = vec![fill; len + 4096];
    let off = v.as_ptr().align_offset(4096);
    (v, off)
}

pub(crate) fn open_direct(p: &Path, write: bool) -> File {
    OpenOptions::new().read(true).write(write).custom_flags(libc::O_DIRECT).open(p).unwrap()
}
