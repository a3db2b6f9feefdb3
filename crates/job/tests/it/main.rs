//! Job reader integration tests: every job file under `shared/jobs` parses with the values a
//! user would check, one test per fio rule the reader reproduces, one per error kind, and a
//! proptest that arbitrary input never panics.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod common;
mod errors;
mod fio_diff;
mod fio_flags;
mod lookups;
mod registry;
mod rules;
mod shared_jobs;
