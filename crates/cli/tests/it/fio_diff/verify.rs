//! `verify_interval` against fio 3.33 (issue 34; its t/jobs/t0004 and
//! examples/surface-scan.fio): a header every N bytes of a block, N settled as init.c
//! `fixup_options` settles it (at most the minimum write size, a divisor of the write
//! sizes). iolab refused the option; now both tools write, read back and verify the same
//! blocks.

use super::same_jobs_and_exit;

/// The write job of t0004's shape: `bs` and `verify_interval` as given, then verified.
fn verified(bs: &'static str, interval: &'static str) -> Option<Vec<(String, i64, u64, u64)>> {
    same_jobs_and_exit(&[
        "--name=w",
        "--ioengine=psync",
        "--filename=vf",
        "--size=256k",
        "--rw=write",
        "--verify=md5",
        bs,
        interval,
        "--output-format=json",
    ])
}

/// t0004's large_writes: 1 MiB blocks (here 64k) with a header every 512 bytes.
#[test]
fn a_header_every_512_bytes_verifies_as_fio() {
    let Some(j) = verified("--bs=64k", "--verify_interval=512") else { return };
    assert_eq!(j, [("w".to_string(), 0, 4, 4)], "4 blocks written and read back");
}

/// t0004's small_writes: an interval above the block size is the block size (fio clamps).
#[test]
fn an_interval_above_the_block_size_is_the_block_size() {
    let Some(j) = verified("--bs=4k", "--verify_interval=1m") else { return };
    assert_eq!(j, [("w".to_string(), 0, 64, 64)], "64 blocks written and read back");
}
