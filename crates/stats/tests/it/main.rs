//! Integration tests for iolab-stats: exact merging, moments, percentiles, groups, diskstats
//! deltas and wraps, clock rescaling, steady state, serde round trip.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod clock_rescale;
mod diskstats_wraps;
mod recording;
