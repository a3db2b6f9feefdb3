//! Real-device tests of the device view and the advice checks: loop devices (root), ext4 on a
//! loop device, the kernel's own `/proc/diskstats` counters. I/O is issued by threads in this
//! test with O_DIRECT, so what is measured is the kernel's behaviour, not a model of it.
//! Each test probes for root, `losetup`, `mkfs.ext4` and the blkio cgroup, and prints why it
//! skipped when one is missing.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod common;
mod devices;
mod direct_writes;
