//! fio's range and size parser against fio 3.33 (issue 34; its t/jobs/t0023 and t0024):
//! parse.c `FIO_OPT_RANGE` splits a `bsrange` into directions at `,` only, splits each at the
//! first `-` (else the first `:`), and reads each end as `str_to_decimal` does, dropping what
//! follows its number and unit. The block sizes a job issues, read from both tools'
//! `write_iolog`, are the same sets.

use std::collections::BTreeSet;

use super::both_kept;

/// The block sizes of each direction (read, write) in an iolog.
fn sizes(iolog: &str) -> [BTreeSet<u64>; 2] {
    let mut out = [BTreeSet::new(), BTreeSet::new()];
    for line in iolog.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let [.., action, _offset, len] = t.as_slice() else { continue };
        let d = match *action {
            "read" => 0,
            "write" => 1,
            _ => continue,
        };
        out[d].insert(len.parse().unwrap_or_else(|e| panic!("{e}: {line}")));
    }
    out
}

/// The block sizes `bsrange=value` gives a 1 MiB randrw job under fio and under iolab.
/// Without the random map: fio 3.33's `mark_random_map` trims a length to free blocks counted
/// in the direction's own minimum size on a map of the smallest size, which iolab does not
/// reproduce when the directions' minimums differ.
fn both_sizes(value: &str) -> Option<[[BTreeSet<u64>; 2]; 2]> {
    let flag = format!("--bsrange={value}");
    let args = [
        "--name=b",
        "--ioengine=null",
        "--size=1m",
        "--rw=randrw",
        "--norandommap",
        "--write_iolog=il",
        "--output-format=json",
        &flag,
    ];
    let (dir, f, i) = both_kept(&args)?;
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!((f.status.code(), i.status.code()), (Some(0), Some(0)), "{value}: {}", err(&i));
    let read = |sub: &str| {
        let text = std::fs::read_to_string(dir.path().join(sub).join("il")).expect("iolog");
        sizes(&text)
    };
    Some([read("fio"), read("iolab")])
}

fn set(v: &[u64]) -> BTreeSet<u64> {
    v.iter().copied().collect()
}

/// t/jobs/t0023's `bsrange=512/25:1k:25:2k:25:4k/25` (a bssplit written as a range): fio
/// 3.33 reads `512-1k` for every direction, silently; iolab refused it ("unknown suffix
/// 'k:25:2k:25:4k'").
#[test]
fn a_bssplit_written_as_bsrange_is_512_to_1k_as_fio_reads_it() {
    let Some([f, i]) = both_sizes("512/25:1k:25:2k:25:4k/25") else { return };
    assert_eq!(f, [set(&[512, 1024]), set(&[512, 1024])], "fio");
    assert_eq!(i, f, "iolab against fio");
}

/// `/` is no direction separator for a range (parse.c splits at `,`): `1k-4k/8k-32k` is
/// 1k-4k for reads and writes; iolab gave writes 8k-32k.
#[test]
fn a_slash_does_not_split_a_range_s_directions() {
    let Some([f, i]) = both_sizes("1k-4k/8k-32k") else { return };
    let k14 = set(&[1024, 2048, 3072, 4096]);
    assert_eq!(f, [k14.clone(), k14], "fio");
    assert_eq!(i, f, "iolab against fio");
}

/// `,` does: reads 1k-2k, writes 8k-16k (each a multiple of its own minimum); and a
/// trailing `,` leaves writes at the default `bs` (4k).
#[test]
fn a_comma_splits_directions_and_a_trailing_comma_keeps_the_default() {
    let Some([f, i]) = both_sizes("1k-2k,8k-16k") else { return };
    assert_eq!(f, [set(&[1024, 2048]), set(&[8192, 16384])], "fio");
    assert_eq!(i, f, "iolab against fio");
    let Some([f, i]) = both_sizes("1k-4k,") else { return };
    assert_eq!(f, [set(&[1024, 2048, 3072, 4096]), set(&[4096])], "fio");
    assert_eq!(i, f, "iolab against fio");
}
