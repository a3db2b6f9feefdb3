//! `zonemode=strided` against fio 3.33 (issue 34; fio's t/strided.py and
//! examples/disk-zone-profile.fio): the offsets both tools issue, read from their
//! `write_iolog`. Sequential jobs give the same stream record for record; random ones are held
//! to t/strided.py's own check (every offset inside the current zone; with the random map
//! every block of a zone once per `zonerange`), since the default seeds differ between fio
//! 3.33 and iolab's current-fio default.

use std::collections::BTreeSet;

use super::both_kept;

/// `(offset, length)` of every read and write in an iolog, in order.
fn records(iolog: &str) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for line in iolog.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let [.., action, off, len] = t.as_slice() else { continue };
        if matches!(*action, "read" | "write") {
            let n = |s: &str| s.parse::<u64>().unwrap_or_else(|e| panic!("{e}: {line}"));
            out.push((n(off), n(len)));
        }
    }
    out
}

/// The job under both tools with an iolog; both must exit 0. `None` after `skip:`.
fn streams(opts: &[&str]) -> Option<[Vec<(u64, u64)>; 2]> {
    let mut args = vec!["--name=s", "--ioengine=null", "--write_iolog=il"];
    args.extend_from_slice(opts);
    let (dir, f, i) = both_kept(&args)?;
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!((f.status.code(), i.status.code()), (Some(0), Some(0)), "{opts:?}: {}", err(&i));
    let read = |sub: &str| {
        records(&std::fs::read_to_string(dir.path().join(sub).join("il")).expect("iolog"))
    };
    Some([read("fio"), read("iolab")])
}

fn blocks(r: &[(u64, u64)]) -> Vec<u64> {
    r.iter().map(|&(o, _)| o / 4096).collect()
}

/// examples/disk-zone-profile.fio's shape: 8k in each zone, then 16k skipped, back to the
/// start past the end. iolab refused `zonemode=strided`.
#[test]
fn sequential_zones_with_a_skip_are_fio_s_stream() {
    let opts =
        ["--rw=read", "--zonemode=strided", "--zonesize=8k", "--zoneskip=16k", "--size=128k"];
    let Some([f, i]) = streams(&opts) else { return };
    let first = [0, 1, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 0, 1];
    assert_eq!(blocks(&f)[..first.len()], first, "fio");
    assert_eq!(f.len(), 32, "fio: 128k of 4k reads");
    assert_eq!(i, f, "iolab against fio");
    // `zoneskip=2z` is two zones of zonesize (zbd.c zone granularity, strided too).
    let opts = ["--rw=read", "--zonemode=strided", "--zonesize=8k", "--zoneskip=2z", "--size=128k"];
    let Some([f2, i2]) = streams(&opts) else { return };
    assert_eq!((&f2, &i2), (&f, &f), "zoneskip=2z as 16k: fio, iolab");
}

/// A zone narrower than `zonesize` is gone over again from its start: 8k done in each 4k
/// zone reads every block twice.
#[test]
fn a_zonesize_above_the_range_reads_the_zone_again() {
    let opts = ["--rw=read", "--zonemode=strided", "--zonesize=8k", "--zonerange=4k", "--size=64k"];
    let Some([f, i]) = streams(&opts) else { return };
    assert_eq!(blocks(&f), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7], "fio");
    assert_eq!(i, f, "iolab against fio");
}

/// One of t/strided.py's cases.
struct Case {
    zonerange: u64,
    zonesize: u64,
    offset: u64,
    size: u64,
    /// The random map or the LFSR is on: blocks are unique within a zone's range.
    unique: bool,
}

/// t/strided.py's `check_output`, on offsets.
fn check(offsets: &[u64], t: &Case) -> Result<(), String> {
    let bs = 4096;
    let (per_size, per_range) = (t.zonesize / bs, t.zonerange / bs);
    let (mut zonestart, mut in_zone, mut seen) = (t.offset, 0, BTreeSet::new());
    for &off in offsets {
        if in_zone == per_size {
            (in_zone, zonestart) = (0, zonestart + t.zonerange);
            seen.clear();
            if zonestart >= t.size {
                zonestart = t.offset;
            }
        }
        in_zone += 1;
        if off < zonestart || off >= zonestart + t.zonerange {
            return Err(format!("offset {off} outside of the zone starting at {zonestart}"));
        }
        if !t.unique {
            continue;
        }
        if !seen.insert((off - zonestart) / bs) {
            return Err(format!("offset {off} in the zone already touched"));
        }
        if in_zone % per_range == 0 {
            if seen.len() as u64 != per_range {
                return Err(format!("{} blocks of {per_range} in the zone", seen.len()));
            }
            seen.clear();
        }
    }
    Ok(())
}

/// t/strided.py's randread cases with the random map, with the LFSR and with neither, as
/// the script runs them (`--filesize=N)` included: fio reads the number and drops the `)`).
#[test]
fn random_zones_pass_t_strided_py_s_checks() {
    let k = 4096;
    let cases = [
        (Case { zonerange: k, zonesize: k, offset: 8 * k, size: 16 * k, unique: true }, ""),
        (Case { zonerange: 2 * k, zonesize: k, offset: 0, size: 16 * k, unique: true }, ""),
        (Case { zonerange: k, zonesize: 4 * k, offset: 0, size: 16 * k, unique: true }, ""),
        (
            Case { zonerange: 64 * k, zonesize: 32 * k, offset: 0, size: 512 * k, unique: true },
            "lfsr",
        ),
        (
            Case { zonerange: 4 * k, zonesize: 8 * k, offset: 0, size: 64 * k, unique: false },
            "norandommap",
        ),
    ];
    for (t, extra) in cases {
        let owned = [
            "--rw=randread".to_string(),
            "--zonemode=strided".to_string(),
            format!("--zonerange={}", t.zonerange),
            format!("--zonesize={}", t.zonesize),
            format!("--offset={}", t.offset),
            format!("--size={}", t.size),
            format!("--io_size={}", t.size),
            format!("--filesize={})", t.size),
            match extra {
                "lfsr" => "--random_generator=lfsr".to_string(),
                "norandommap" => "--norandommap".to_string(),
                _ => "--randrepeat=0".to_string(),
            },
        ];
        let opts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let Some([f, i]) = streams(&opts) else { return };
        let offs = |r: &[(u64, u64)]| r.iter().map(|&(o, _)| o).collect::<Vec<_>>();
        assert_eq!(check(&offs(&f), &t), Ok(()), "fio {opts:?}");
        assert_eq!(check(&offs(&i), &t), Ok(()), "iolab {opts:?}");
        assert_eq!(i.len(), f.len(), "I/Os: iolab against fio, {opts:?}");
        assert!(!f.is_empty(), "{opts:?}");
    }
}

/// fio 3.33's init.c refusals: a `zonesize` without `zonemode=strided`, and `strided`
/// without a `zonesize`.
#[test]
fn zone_options_fio_refuses_are_refused() {
    for opts in [
        &["--name=z", "--ioengine=null", "--size=64k", "--zonesize=8k"][..],
        &["--name=z", "--ioengine=null", "--size=64k", "--zonemode=none", "--zonesize=8k"],
        &["--name=z", "--ioengine=null", "--size=64k", "--zonemode=strided"],
    ] {
        let Some((_, f, i)) = both_kept(opts) else { return };
        assert_eq!(f.status.code(), Some(1), "fio {opts:?}");
        assert_eq!(i.status.code(), f.status.code(), "iolab {opts:?}");
        let e = String::from_utf8_lossy(&i.stderr);
        assert!(e.contains("zone"), "iolab names the option: {e}");
    }
}
