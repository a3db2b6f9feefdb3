//! Integration tests for iolab-report: fio JSON key set and units against a real fio-3.33
//! document (typed in from fio-behaviour.md Appendix B), json+ bins, text lines, logs, JSON
//! Lines, CSV, group reporting.
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod clients;
mod common;
mod compare_latency;
mod json;
mod logs;
mod text;
