//! Integration tests for iolab-trace: every format on small known inputs, the bundled
//! CloudPhysics trace in its three forms, writers round-tripping, and fio replay of an iolog.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod bundled;
mod common;
mod formats;
mod round_trip;
