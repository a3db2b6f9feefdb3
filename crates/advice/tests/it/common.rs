//! Helpers shared by the topic modules of iolab-advice's integration tests.

use iolab_test_support::LoopDev;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

pub(crate) use iolab_test_support::{is_root, Mount};

pub(crate) fn scratch(tag: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("advice-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A loop device (iolab-test-support's, detached on drop) with its path as a string.
pub(crate) struct Loop {
    pub(crate) dev: String,
    lo: LoopDev,
}

impl Loop {
    pub(crate) fn attach(backing: &Path, direct_io: bool) -> Option<Loop> {
        let lo = LoopDev::over(backing, direct_io).ok()?;
        Some(Loop { dev: lo.device().to_string_lossy().into_owned(), lo })
    }
    pub(crate) fn name(&self) -> String {
        self.lo.name().to_string()
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
