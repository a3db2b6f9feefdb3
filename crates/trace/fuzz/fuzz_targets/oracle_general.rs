//! Fuzz the oracleGeneral reader (24-byte binary records) with arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

fuzz_target!(|data: &[u8]| common::drive("oracleGeneral", data));
