//! Integration tests of iolab-calibrate: calibration sweeps, fit and prediction on real
//! targets from iolab-test-support (tmpfs loop devices, zram; probe and skip).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod sweeps;
