//! Fuzz the VMware vscsi reader (v1 32-byte / v2 40-byte records, version sniffing).
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

fuzz_target!(|data: &[u8]| common::drive("vscsi", data));
