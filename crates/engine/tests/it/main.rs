//! Integration tests of iolab-engine: real I/O on temporary files with every engine.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod common;
mod cpuio;
mod engine_truth;
mod exec;
mod fileops;
mod jobs;
mod loopdev;
mod safety;
mod time_limits;
mod verify;
mod worker;
