//! Integration tests for iolab-workload: what a storage engineer would check about a request
//! stream (offsets, coverage, proportions, rates), with fixed seeds.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod bit_exact;
mod budget;
mod common;
mod fio_diff;
mod mix;
mod offsets;
mod rate;
mod region;
