//! Integration tests of iolab-calibrate: calibration sweeps, fit and prediction on real
//! targets from iolab-test-support (tmpfs loop devices, zram, loop devices over a disk file,
//! a blkio-throttled loop device; probe and skip).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod sweeps;
mod targets;

static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held by every test that measures real I/O (a calibration sweep, a job set beside its
/// prediction): the crate's tests share one process and run side by side, and two sweeps at
/// once on a 2-core machine measure each other, not the target (a QD1 point read 1,272 IOPS at
/// p50 678 µs beside another sweep, against ~15,000 alone). A test that panicked while
/// holding it does not poison the rest.
fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
