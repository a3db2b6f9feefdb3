//! iolab-workload's direction and block-size mixes: rwmix proportions and run lengths, bssplit,
//! bsrange rounding, trimwrite.

use crate::common::*;
use iolab_core::{IoDir, IoRequest};
use iolab_job::{BsSplit, RwKind};

#[test]
fn rwmix_70_30_proportions_and_run_lengths() {
    let mut j = job(RwKind::RandRw, 1 << 30);
    j.rwmixread = 70;
    j.norandommap = true;
    j.number_ios = Some(200_000);
    let (mut reads, mut runs) = (0u64, [Vec::new(), Vec::new()]);
    let (mut cur, mut len) = (None, 0u64);
    for r in wl(&j) {
        let d = (r.dir == IoDir::Write) as usize;
        reads += (d == 0) as u64;
        if cur == Some(d) {
            len += 1;
        } else {
            if let Some(c) = cur {
                runs[c].push(len);
            }
            cur = Some(d);
            len = 1;
        }
    }
    let frac = reads as f64 / 200_000.0;
    assert!((frac - 0.70).abs() < 0.005, "read fraction {frac}");
    let mean = |v: &Vec<u64>| v.iter().sum::<u64>() as f64 / v.len() as f64;
    let (mr, mw) = (mean(&runs[0]), mean(&runs[1]));
    assert!((mr - 1.0 / 0.3).abs() < 0.05, "mean read run {mr}");
    assert!((mw - 1.0 / 0.7).abs() < 0.02, "mean write run {mw}");
}

#[test]
fn bssplit_proportions() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.number_ios = Some(100_000);
    j.time_based = true;
    j.bs.read.split = vec![
        BsSplit { bs: 4096, perc: 50 },
        BsSplit { bs: 16384, perc: 30 },
        BsSplit { bs: 65536, perc: 20 },
    ];
    let mut c = std::collections::BTreeMap::new();
    for r in wl(&j) {
        *c.entry(r.len).or_insert(0u64) += 1;
    }
    for (bs, want) in [(4096, 0.5), (16384, 0.3), (65536, 0.2)] {
        let got = c[&bs] as f64 / 100_000.0;
        assert!((got - want).abs() < 0.006, "{bs}: {got}");
    }
}

#[test]
fn bsrange_rounds_down_to_a_multiple_of_min_unless_bs_unaligned() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.number_ios = Some(20_000);
    j.bs.read = iolab_job::BlockSizes { min: 3000, max: 10_000, split: vec![], ranged: false };
    let lens: std::collections::BTreeSet<u64> = wl(&j).map(|r| r.len).collect();
    // fio draws in [min, min + max), rounds down to a multiple of min, then caps at max: so a
    // max that is not a multiple of min is itself produced (12000 → 10000).
    assert_eq!(lens.into_iter().collect::<Vec<_>>(), vec![3000, 6000, 9000, 10_000]);
    j.bs_unaligned = true;
    let lens: std::collections::BTreeSet<u64> = wl(&j).map(|r| r.len).collect();
    assert!(lens.len() > 1000 && lens.iter().all(|&l| (3000..=10_000).contains(&l)));
}

#[test]
fn trimwrite_trims_then_writes_the_same_block() {
    let j = job(RwKind::TrimWrite, 64 << 10);
    let v: Vec<(IoDir, u64)> = wl(&j).map(|r| (r.dir, r.offset / 4096)).collect();
    assert_eq!(v.len(), 32);
    for (i, p) in v.chunks(2).enumerate() {
        assert_eq!(p, [(IoDir::Trim, i as u64), (IoDir::Write, i as u64)]);
    }
    let j = job(RwKind::RandTrimWrite, 64 << 10);
    let v: Vec<IoRequest> = wl(&j).collect();
    for p in v.chunks(2) {
        assert_eq!((p[0].dir, p[1].dir), (IoDir::Trim, IoDir::Write));
        assert_eq!((p[0].offset, p[0].len), (p[1].offset, p[1].len));
    }
}
