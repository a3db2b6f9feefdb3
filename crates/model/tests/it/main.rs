//! Integration tests for iolab-model: policies against libCacheSim's reference miss ratios on
//! the bundled CloudPhysics trace, golden miss counts, block semantics, devices, tiers and the
//! seed scenarios written up in `examples/*.md`.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod common;
mod mrc_fill;
mod mrc_policies;
mod policies;
mod scenarios;
#[path = "../../benches/support/zipf.rs"]
mod zipf;
