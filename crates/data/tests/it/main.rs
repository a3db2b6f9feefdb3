//! Integration tests for iolab-data: what a storage engineer would check on generated data
//! (ratios, unique-block shares, byte layout) and on verification (each failure kind).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod common;
mod compress;
mod config;
mod dedupe;
mod verify;
