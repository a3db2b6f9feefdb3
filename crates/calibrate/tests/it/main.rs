//! Integration tests of iolab-calibrate: calibration sweeps, fit and prediction, and the real
//! targets they run on (`targets`: tmpfs, loop devices, blkio throttle; probe and skip).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod sweeps;
mod targets;
