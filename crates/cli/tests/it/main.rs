//! Integration tests of the `iolab` binary: each module runs it as a user would (job files,
//! flags, traces, signals, outputs) and checks what it printed and wrote; `hostile` is the
//! hostile-input harness (probe tables in `hostile/tables.rs`).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod advice;
mod agreement;
mod architecture;
mod compare;
mod data;
mod examples;
mod fio_conformance;
mod fio_diff;
mod fio_dropin;
mod help;
mod hostile;
mod iolog;
mod mpi;
mod outputs;
mod parse;
mod predict_range;
mod presets;
mod report;
mod run;
mod scale;
mod server;
mod signals;
mod sim;
mod sim_flush;
mod trace_stat;
