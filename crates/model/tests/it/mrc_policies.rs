//! Every policy's miss-ratio curve (`mrc::mini`, `iolab mrc --policy`): miniature simulations
//! against full simulations on a seeded Zipf trace and the bundled real trace, the stated
//! error's coverage, thread-count independence and byte miss ratios.
#![allow(clippy::unwrap_used)]

use crate::zipf::Zipf;
use iolab_model::mrc::mini::{self, MiniResult, Sample};
use iolab_model::policy::{self, Access, PolicyInfo};
use iolab_trace::{ObjectRequest, ReaderConfig};

/// Every object-level policy but Belady (which needs the future: tested on its own below).
const ALL: [&str; 11] =
    ["lru", "fifo", "clock", "sieve", "s3fifo", "arc", "2q", "lfu", "lirs", "wtinylfu", "smq"];

fn policies() -> Vec<&'static PolicyInfo> {
    ALL.iter().map(|n| policy::lookup(n).unwrap()).collect()
}

fn zipf(n: usize, objects: usize, alpha: f64, seed: u64) -> Vec<(u64, u64)> {
    let mut z = Zipf::new(objects, alpha, seed);
    (0..n).map(|_| (z.next_key(), 1)).collect()
}

fn bundled() -> Vec<(u64, u64)> {
    let p = crate::common::shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    let cfg = ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() };
    let mut r = iolab_trace::open(&p, None, &cfg).unwrap();
    let mut buf = vec![ObjectRequest::default(); 4096];
    let mut out = Vec::new();
    loop {
        let k = r.read_objects(&mut buf).unwrap();
        if k == 0 {
            return out;
        }
        out.extend(buf[..k].iter().map(|o| (o.obj_id, o.size)));
    }
}

fn sample(keys: &[(u64, u64)], rate: f64) -> Sample {
    let mut s = Sample::fixed(rate).unwrap();
    for &(k, b) in keys {
        s.access(k, b).unwrap();
    }
    s
}

/// `n` sizes spaced geometrically over [1 %, 50 %] of the footprint.
fn sizes(footprint: f64, n: usize) -> Vec<u64> {
    let (lo, hi) = (0.01 * footprint, 0.5 * footprint);
    (0..n).map(|i| (lo * (hi / lo).powf(i as f64 / (n - 1) as f64)).round() as u64).collect()
}

/// One comparison: the miniature and the full miss ratios and the stated error, per point.
struct Compared {
    name: String,
    rows: Vec<(f64, f64, f64)>,
}

fn compare(label: &str, keys: &[(u64, u64)], rate: f64, n: usize) -> Vec<Compared> {
    let pols = policies();
    let full = sample(keys, 1.0);
    let sz = sizes(full.footprint(), n);
    let exact = mini::run(&full, &pols, &sz, 2);
    let mini_s = sample(keys, rate);
    let est = mini::run(&mini_s, &pols, &sz, 2);
    let total = keys.len() as f64;
    let mr = |r: &MiniResult, rate: f64| r.misses as f64 / (total * rate);
    pols.iter()
        .enumerate()
        .map(|(p, info)| {
            let e: Vec<f64> = (0..sz.len()).map(|i| mr(&est[p * sz.len() + i], rate)).collect();
            let rows = (0..sz.len())
                .map(|i| {
                    let slope = slope(&sz, &e, i);
                    let r = &est[p * sz.len() + i];
                    let err = mini::stated_error(r.sq_misses, total, rate, sz[i], slope);
                    (e[i].min(1.0), mr(&exact[p * sz.len() + i], 1.0), err)
                })
                .collect();
            Compared { name: format!("{label} {} R={rate}", info.name), rows }
        })
        .collect()
}

/// As `mrc_policies::slope` (the larger side's change per unit of ln size).
fn slope(sizes: &[u64], mr: &[f64], i: usize) -> f64 {
    let d = |a: usize, b: usize| {
        ((mr[b] - mr[a]) / ((sizes[b] as f64).ln() - (sizes[a] as f64).ln())).abs()
    };
    let l = if i > 0 { d(i - 1, i) } else { 0.0 };
    let r = if i + 1 < sizes.len() { d(i, i + 1) } else { 0.0 };
    l.max(r)
}

/// Every curve within 0.01 mean and 0.03 max absolute error (issue 31's bound).
fn check_accuracy(all: &[Compared]) {
    let mut missed = Vec::new();
    for c in all {
        let errs: Vec<f64> = c.rows.iter().map(|(e, x, _)| (e - x).abs()).collect();
        let mean = errs.iter().sum::<f64>() / errs.len() as f64;
        let max = errs.iter().copied().fold(0.0, f64::max);
        eprintln!("{}: mean abs error {mean:.4}, max {max:.4}", c.name);
        if mean > 0.01 || max > 0.03 {
            eprintln!("  misses the bound: {:?}", c.rows);
            missed.push(c.name.clone());
        }
    }
    assert!(missed.is_empty(), "curves missing 0.01 mean / 0.03 max absolute error: {missed:?}");
}

#[test]
fn miniature_curves_match_full_simulations_on_zipf_and_the_bundled_trace() {
    // A Zipf 0.95 trace of a seed no parameter was tuned on, a tenth of the 2 M
    // requests over 200 k objects (the full size's figures are in docs/performance.md), and
    // the real CloudPhysics trace; every policy at 8 sizes over 1-50 % of the footprint.
    let z = zipf(400_000, 40_000, 0.95, 20261128);
    let mut all = compare("zipf0.95", &z, 0.5, 8);
    all.extend(compare("cloudPhysicsIO", &bundled(), 0.5, 8));
    // SMQ on the real trace missed the bound (0.0096 mean / 0.0383 max) while the replays
    // numbered keys densely: its hotspot blocks (16 neighbouring keys) then grouped unrelated
    // blocks. With the trace's keys it is 0.0090 / 0.0195 (2026-11-28).
    check_accuracy(&all);
}

#[test]
fn stated_error_covers_the_measured_error_in_nine_points_of_ten() {
    let mut all = compare("zipf0.9", &zipf(300_000, 30_000, 0.9, 5), 0.2, 6);
    all.extend(compare("zipf0.7", &zipf(300_000, 30_000, 0.7, 6), 0.2, 6));
    all.extend(compare("cloudPhysicsIO", &bundled(), 0.25, 6));
    let (mut within, mut n) = (0, 0);
    for c in &all {
        for &(e, x, err) in &c.rows {
            n += 1;
            within += usize::from((e - x).abs() <= err);
        }
    }
    eprintln!("stated error covers {within} of {n} points");
    assert!(within * 10 >= n * 9, "{within} of {n}");
    // And it is not vacuous: the mean stated error stays well below the curves' values.
    let mean_err: f64 = all.iter().flat_map(|c| c.rows.iter().map(|r| r.2)).sum::<f64>() / n as f64;
    assert!(mean_err < 0.05, "mean stated error {mean_err}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let z = zipf(100_000, 10_000, 0.9, 3);
    let s = sample(&z, 0.2);
    let mut pols = policies();
    pols.push(policy::lookup("belady").unwrap());
    let sz = [300, 1000, 3000];
    let one = mini::run(&s, &pols, &sz, 1);
    assert_eq!(one.len(), pols.len() * sz.len());
    for t in [2, 3, 7, 1000] {
        assert_eq!(mini::run(&s, &pols, &sz, t), one, "{t} threads");
    }
    // Belady (next accesses from the sample) never misses more than LRU at the same size.
    for i in 0..sz.len() {
        assert!(one[11 * sz.len() + i].misses <= one[i].misses);
    }
}

#[test]
fn full_simulation_counts_misses_and_missed_bytes_per_request() {
    // LRU of 2 on a 3-cycle with sizes 10, 20, 30: every request misses; at 3 only cold ones.
    let keys: Vec<(u64, u64)> = [1, 2, 3, 1, 2, 3].iter().map(|&k| (k, 10 * k)).collect();
    let s = sample(&keys, 1.0);
    assert_eq!((s.requests, s.total_bytes, s.max_size), (6, 120, 30));
    let r = mini::run(&s, &[policy::lookup("lru").unwrap()], &[2, 3], 2);
    assert_eq!((r[0].misses, r[0].miss_bytes), (6, 120));
    assert_eq!((r[1].misses, r[1].miss_bytes), (3, 60));
    // FIFO and LRU agree here; one direct count of a different policy: CLOCK at 2.
    let c = mini::run(&s, &[policy::lookup("fifo").unwrap()], &[3], 1);
    assert_eq!(c[0].misses, 3);
}

/// Misses of `p` at `size` entries over `keys`, each key mapped through `key` first.
fn replay(
    keys: &[(u64, u64)],
    p: &PolicyInfo,
    size: usize,
    mut key: impl FnMut(u64) -> u64,
) -> u64 {
    let mut c = (p.ctor)(size);
    let mut misses = 0u64;
    for (i, &(k, _)) in keys.iter().enumerate() {
        let a = Access { key: key(k), vtime: i as u64, next_access: policy::NEVER, write: false };
        misses += u64::from(!c.get(&a).hit);
    }
    misses
}

#[test]
fn full_simulation_replays_the_traces_own_keys() {
    // smq groups 16 neighbouring keys into one hotspot block, so a replay of renumbered keys
    // is another simulation: `mrc --policy=smq --exact` must count what a direct replay of
    // the trace's keys (LBNs here) counts.
    let keys = bundled();
    let smq = policy::lookup("smq").unwrap();
    let direct = replay(&keys, smq, 5000, |k| k);
    let r = mini::run(&sample(&keys, 1.0), &[smq], &[5000], 1);
    assert_eq!(r[0].misses, direct);
    // Dense ids in first-appearance order (what the replays fed before) count otherwise.
    let mut ids = std::collections::HashMap::new();
    let dense = replay(&keys, smq, 5000, |k| {
        let n = ids.len() as u64;
        *ids.entry(k).or_insert(n)
    });
    assert_ne!(dense, direct);
}
