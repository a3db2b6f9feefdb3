//! Dev-only helpers for iolab's integration tests (never a normal dependency; `publish = false`).
//!
//! What the tests used to copy from file to file: the root probe, tool probes (fio, chromium,
//! mkfs, losetup), loop devices over temporary files detached on drop, device nodes of the
//! test's own made with `mknod(2)` (tests never rely on `/dev/null`, `/dev/zero` or a loop
//! device's `/dev` entry being intact), mounts unmounted on drop, and cgroup block-I/O
//! throttles. Every probe that fails says why in one line starting `skip: `, which
//! `scripts/test.sh` collects into the closing list of what did not run.
//!
//! ```no_run
//! use iolab_test_support::{or_skip, LoopDev};
//! let Some(lo) = or_skip(LoopDev::new_sized(16 << 20)) else { return };
//! assert!(lo.device().starts_with("/dev/loop"));
//! ```
//!
//! Set-up is done with the system tools a storage engineer would use (`losetup`, `mkfs.*`,
//! `mount`) rather than ioctls, so a test's set-up reads like the shell session it replaces.
//! `unsafe` here is four libc calls std has no wrapper for (geteuid, mknod, pipe2, gettid),
//! each with its `// SAFETY:` line; this crate is test-only.

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod cgroup;
mod device;
mod pressure;
mod probe;
mod stdio;

pub use cgroup::Throttle;
pub use device::{mknod_block, mknod_char, mknod_fifo, LoopDev, Mount, TmpfsLoop, Zram};
pub use pressure::{thread_cpu_time, CpuPressure};
pub use probe::{
    chromium, fio, global_lock, have, is_root, mkfs, or_skip, quick_tier, require_root, sh, skip,
    tool, which, Skip, QUICK_VAR,
};
pub use stdio::{empty_stdin, sink};
