//! Tests for miss-ratio curves and cache-fill mathematics (brief H5): exact LRU against a
//! direct LRU simulation and libCacheSim's reference miss ratios on the bundled trace, SHARDS
//! accuracy, and the fill numbers of notes/caches-and-models.md §5.
#![allow(clippy::unwrap_used)]

use iolab_core::rand::SplitMix64;
use iolab_model::mrc::{exact::ExactMrc, shards::Shards, split_blocks, MrcBuilder};
use iolab_trace::{open, ReaderConfig, TraceRecord};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

fn bundled() -> Vec<TraceRecord> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces/cloudPhysicsIO.csv");
    let mut r = open(&p, None, &ReaderConfig::default()).unwrap();
    let mut v = Vec::new();
    let mut rec = TraceRecord::default();
    while r.read_into(&mut rec).unwrap() {
        v.push(rec);
    }
    v
}

/// A textbook LRU of `cap` entries: recency order in a BTreeMap keyed by last-use tick.
/// Returns (misses, missed bytes).
fn reference_lru(keys: &[(u64, u64)], cap: usize) -> (u64, u64) {
    let mut by_time: BTreeMap<u64, u64> = BTreeMap::new();
    let mut last: HashMap<u64, u64> = HashMap::new();
    let (mut misses, mut missed_bytes) = (0, 0);
    for (t, &(k, b)) in keys.iter().enumerate() {
        let t = t as u64;
        match last.insert(k, t) {
            Some(old) => {
                by_time.remove(&old);
            }
            None => {
                misses += 1;
                missed_bytes += b;
                if by_time.len() == cap {
                    let (&ot, &ok) = by_time.iter().next().unwrap();
                    by_time.remove(&ot);
                    last.remove(&ok);
                }
            }
        }
        by_time.insert(t, k);
    }
    (misses, missed_bytes)
}

fn exact_of(keys: &[(u64, u64)]) -> iolab_model::mrc::MissRatioCurve {
    let mut m = ExactMrc::new();
    for &(k, b) in keys {
        m.access(k, b);
    }
    m.finish()
}

#[test]
fn exact_lru_matches_libcachesim_reference_on_bundled_trace() {
    let recs = bundled();
    // Object level, every object size 1 (libCacheSim --ignore-obj-size 1); byte weights are
    // the request sizes.
    let keys: Vec<(u64, u64)> = recs.iter().map(|r| (r.obj_id, r.size)).collect();
    let c = exact_of(&keys);
    let r4 = |x: f64| (x * 1e4).round() / 1e4;
    assert_eq!(r4(c.miss_ratio(1_000).0), 0.8327);
    assert_eq!(r4(c.miss_ratio(5_000).0), 0.8038);
    assert_eq!(r4(c.miss_ratio(20_000).0), 0.6328);
    let total_bytes: u64 = keys.iter().map(|k| k.1).sum();
    for cap in [1usize, 10, 100, 1_000, 3_000, 5_000, 10_000, 20_000, 40_000, 60_000] {
        let (m, mb) = reference_lru(&keys, cap);
        let (mr, bmr) = c.miss_ratio(cap as u64);
        assert_eq!(mr, m as f64 / keys.len() as f64, "object level at {cap}");
        assert!((bmr - mb as f64 / total_bytes as f64).abs() < 1e-12, "bytes at {cap}");
    }
}

#[test]
fn exact_block_level_matches_reference_lru() {
    let recs = bundled();
    let mut keys = Vec::new();
    for r in &recs {
        split_blocks(r.req.file, r.req.offset, r.req.len, 4096, |k, b| keys.push((k, b)));
    }
    assert!(keys.len() > recs.len());
    let c = exact_of(&keys);
    for cap in [256usize, 4_096, 32_768, 131_072] {
        let (m, _) = reference_lru(&keys, cap);
        assert_eq!(c.miss_ratio(cap as u64).0, m as f64 / keys.len() as f64, "blocks at {cap}");
    }
}

/// Zipf(s) over `n` keys by inverse CDF, keys scattered by a hash so hot keys are not adjacent.
pub fn zipf_keys(n: usize, s: f64, count: usize, seed: u64) -> Vec<u64> {
    let mut cdf = Vec::with_capacity(n);
    let mut acc = 0.0;
    for i in 1..=n {
        acc += 1.0 / (i as f64).powf(s);
        cdf.push(acc);
    }
    let mut rng = SplitMix64(seed);
    (0..count)
        .map(|_| {
            let u = rng.next_f64() * acc;
            let rank = cdf.partition_point(|&c| c < u) as u64;
            iolab_core::rand::mix64(rank)
        })
        .collect()
}

#[test]
fn shards_fixed_rate_and_fixed_size_within_mae() {
    let keys = zipf_keys(200_000, 0.9, 1_000_000, 42);
    let mut e = ExactMrc::new();
    let mut fr = Shards::fixed_rate(0.01).unwrap();
    let mut fs = Shards::fixed_size(8_192).unwrap();
    for &k in &keys {
        e.access(k, 4096);
        fr.access(k, 4096);
        fs.access(k, 4096);
    }
    let (e, fr_c, fs_c) = (e.finish(), fr.finish(), fs.finish());
    let sizes: Vec<u64> = (1..=40).map(|i| i * 5_000).collect();
    let (mae_r, mae_s) = (fr_c.mae(&e, &sizes), fs_c.mae(&e, &sizes));
    eprintln!("SHARDS 1M zipf 0.9: fixed-rate 1% MAE {mae_r:.5}, fixed-size 8192 MAE {mae_s:.5} (rate {:.5})", fs.rate());
    assert!(mae_r <= 0.01, "fixed-rate MAE {mae_r}");
    assert!(mae_s <= 0.01, "fixed-size MAE {mae_s}");
    assert!(fs.rate() < 0.1 && fs.rate() > 0.01);
    // Footprint estimate within 5 % of the true distinct count.
    assert!(
        (fr_c.footprint / e.footprint - 1.0).abs() < 0.05,
        "{} vs {}",
        fr_c.footprint,
        e.footprint
    );
}

use iolab_model::fill::{Fill, Oversubscribed, Pattern};

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[test]
fn uniform_fill_numbers_from_the_notes() {
    // notes §5.2: N·H_N, σ, median and 95th/99th percentiles in passes.
    let cases = [
        (500_000u64, 6_849_790.0, 13.70, 13.49, 16.09, 17.72),
        (1_000_000, 14_392_727.0, 14.39, 14.18, 16.79, 18.42),
        (2_000_000, 30_171_747.0, 15.09, 14.88, 17.48, 19.11),
    ];
    for (n, reads, passes, median, p95, p99) in cases {
        let f = Fill::new(n, Pattern::Uniform);
        let nf = n as f64;
        assert!((f.expected_reads() - reads).abs() < 1.0, "{n}: {}", f.expected_reads());
        assert_eq!((f.expected_reads() / nf * 100.0).round() / 100.0, passes);
        assert!((f.stddev() / nf - 1.2825).abs() < 0.001, "σ {}", f.stddev() / nf);
        for (q, want) in [(0.5, median), (0.95, p95), (0.99, p99)] {
            let got = f.quantile(q) / nf;
            assert!((got - want).abs() < 0.006, "{n} q{q}: {got} vs {want}");
        }
        // Filled after 1, 2, 3 passes: 63.2 %, 86.5 %, 95.0 %.
        let pct = |k: f64| (f.filled_fraction(k * nf) * 1000.0).round() / 10.0;
        assert_eq!((pct(1.0), pct(2.0), pct(3.0)), (63.2, 86.5, 95.0));
        assert_eq!(pct(5.0), 99.3);
    }
    // §5.3: 17 passes at 1M is the 95.9th percentile; 15 at 500K the 85.8th; 19 at 2M 98.9th.
    for (n, obs, pct) in
        [(1_000_000u64, 17.0, 95.9), (500_000, 15.0, 85.8), (2_000_000, 19.0, 98.9)]
    {
        let f = Fill::new(n, Pattern::Uniform);
        assert_eq!(r1(f.percentile_of(obs * n as f64) * 100.0), pct, "{n}");
    }
}

#[test]
fn uniform_fill_by_simulation() {
    // Filled fractions after 1, 2, 3 passes in one seeded run per size.
    for n in [500_000u64, 1_000_000, 2_000_000] {
        let f = Fill::new(n, Pattern::Uniform);
        for (k, want) in [(1u64, 0.632), (2, 0.865), (3, 0.950)] {
            let got = f.simulate_filled(k * n, 7 + n);
            assert!((got - want).abs() < 0.002, "{n} after {k}: {got}");
        }
    }
    // Total reads to fill 1M entries: 12 seeded runs, mean within 3 σ/√12 of 14.39 passes.
    let f = Fill::new(1_000_000, Pattern::Uniform);
    let runs = f.monte_carlo(12, 2024, u64::MAX);
    let passes: Vec<f64> = runs.iter().map(|r| r.unwrap() as f64 / 1e6).collect();
    let mean = passes.iter().sum::<f64>() / passes.len() as f64;
    assert!((mean - 14.39).abs() < 3.0 * 1.2825 / 12f64.sqrt(), "MC mean {mean}");
    assert!(passes.iter().all(|&p| p > 12.0 && p < 22.0), "{passes:?}");
    // A small N with many runs pins the spread too.
    let f = Fill::new(2_000, Pattern::Uniform);
    let runs: Vec<f64> =
        f.monte_carlo(2_000, 9, u64::MAX).iter().map(|r| r.unwrap() as f64).collect();
    let m = runs.iter().sum::<f64>() / runs.len() as f64;
    let sd = (runs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (runs.len() - 1) as f64).sqrt();
    assert!((m / f.expected_reads() - 1.0).abs() < 0.01, "{m} vs {}", f.expected_reads());
    assert!((sd / f.stddev() - 1.0).abs() < 0.06, "{sd} vs {}", f.stddev());
}

#[test]
fn randommap_and_oversubscribed_and_zipf() {
    let f = Fill::new(1_000_000, Pattern::RandomMap);
    assert_eq!((f.expected_reads(), f.stddev(), f.filled_fraction(500_000.0)), (1e6, 0.0, 0.5));
    assert_eq!(f.monte_carlo(3, 1, u64::MAX), [Some(1_000_000); 3]);

    // notes §5.1: C = 1M with W = 1.25M, 2M, 10M → 2.01, 1.386, 1.054 C reads.
    for (w, want) in [(1_250_000u64, 2.01), (2_000_000, 1.386), (10_000_000, 1.054)] {
        let o = Oversubscribed { cache: 1_000_000, working_set: w };
        let got = o.reads_to_full() / 1e6;
        assert!((got - want).abs() < 0.005, "W={w}: {got}");
        assert_eq!(o.steady_hit_ratio(), 1e6 / w as f64);
        assert!(o.reads_to_hit_ratio(0.95) < o.reads_to_full());
    }

    // Zipf: binned analytic model against a direct per-rank sum and a seeded simulation.
    let n = 5_000u64;
    let z = Fill::new(n, Pattern::Zipf(0.8));
    let k = 5.0 * n as f64;
    let direct: f64 = (1..=n).map(|i| 1.0 - (1.0 - z.p_rank(i)).powf(k)).sum::<f64>() / n as f64;
    assert!((z.filled_fraction(k) - direct).abs() < 1e-4, "{} vs {direct}", z.filled_fraction(k));
    let sim = z.simulate_filled(k as u64, 5);
    assert!((sim - direct).abs() < 0.01, "sim {sim} vs {direct}");
    // Skew slows the fill: mean and median above the uniform ones.
    let u = Fill::new(n, Pattern::Uniform);
    assert!(z.expected_reads() > 2.0 * u.expected_reads());
    let mc: Vec<f64> = z.monte_carlo(30, 3, u64::MAX).iter().map(|r| r.unwrap() as f64).collect();
    let mean = mc.iter().sum::<f64>() / mc.len() as f64;
    let tol = 3.0 * z.stddev() / (mc.len() as f64).sqrt();
    assert!((mean - z.expected_reads()).abs() < tol, "MC {mean} vs {} ± {tol}", z.expected_reads());
}

#[test]
fn zipf_fill_matches_the_notes() {
    // notes §5.3: Zipf α = 0.2 predicts 15.5 passes at 500K; α = 1.0 needs 152.6.
    let p = |s: f64| Fill::new(500_000, Pattern::Zipf(s)).expected_reads() / 500_000.0;
    assert_eq!(r1(p(0.2)), 15.5);
    assert_eq!(r1(p(1.0)), 152.6);
}

/// SHARDS' stated error is a standard error of the real one (issue 15: at R = 1 % a
/// 1,000-entry cache was off by 0.045 with ±0.029 stated, a figure from the count of sampled
/// keys, which fell short at small sizes). One Zipf(0.9) trace, its keys relabelled by 8 seeds
/// so each run samples different keys; fixed-rate 1 % and fixed-size 2,000 keys; every
/// measured size from the resolution up, against the exact curve. Coverage is what a standard
/// error promises: at least 2 in 3 within it, 9 in 10 within twice it, none beyond 4x; at
/// caches of at most 1,000 entries (10 sampled keys or fewer) 4 in 5 within it, where the
/// former statement (measured alongside) covered 69 %.
#[test]
fn shards_stated_error_covers_the_exact_error_at_small_and_large_sizes() {
    let ranks = zipf_keys(100_000, 0.9, 1_000_000, 11);
    let mut e = ExactMrc::new();
    for &k in &ranks {
        e.access(k, 1);
    }
    let e = e.finish();
    let sizes = [100u64, 150, 200, 300, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
    let (mut n, mut within, mut within2, mut worst, mut old_within) = (0, 0, 0, 0.0f64, 0);
    let (mut small, mut small_within, mut small_old) = (0, 0, 0);
    for seed in 1..=8u64 {
        let keys: Vec<u64> = ranks
            .iter()
            .map(|&k| iolab_core::rand::mix64(k ^ seed.wrapping_mul(0x9E37_79B9)))
            .collect();
        for mut s in [Shards::fixed_rate(0.01).unwrap(), Shards::fixed_size(2_000).unwrap()] {
            for &k in &keys {
                s.access(k, 1);
            }
            let sampled_keys = s.finish().footprint * s.rate();
            let c = s.finish();
            for p in c.at(&sizes).iter().filter(|p| p.measured) {
                let err = (p.miss_ratio - e.miss_ratio(p.size).0).abs();
                // the former statement: 1/sqrt(sampled keys) plus the same size term
                let x = p.size as f64;
                let rel = 1.0 / (x / c.resolution).max(1.0).sqrt();
                let (lo, hi) = ((x * (1.0 - rel)).floor() as u64, (x * (1.0 + rel)).ceil() as u64);
                let old = (c.miss_ratio(lo).0 - c.miss_ratio(hi).0).abs() / 2.0
                    + 1.0 / sampled_keys.sqrt();
                if p.size <= 1_000 {
                    small += 1;
                    small_within += usize::from(err <= p.error);
                    small_old += usize::from(err <= old);
                }
                n += 1;
                within += usize::from(err <= p.error);
                within2 += usize::from(err <= 2.0 * p.error);
                old_within += usize::from(err <= old);
                worst = worst.max(err / p.error);
            }
            // informative where ~600 sampled keys fit
            assert!(c.error_at(60_000) < 0.03, "seed {seed}: {}", c.error_at(60_000));
        }
    }
    let (f1, f2) = (within as f64 / n as f64, within2 as f64 / n as f64);
    eprintln!(
        "SHARDS stated error over {n} points: {f1:.2} within 1x, {f2:.2} within 2x, worst \
         {worst:.2}x; former statement: {:.2} within 1x; caches <= 1,000 entries ({small} \
         points): {small_within} within now, {small_old} within the former",
        old_within as f64 / n as f64
    );
    assert!(n >= 150 && small >= 80, "{n} {small}");
    assert!(f1 >= 0.6 && f2 >= 0.9 && worst <= 4.0, "{f1} {f2} {worst}");
    // the small caches are where the former statement fell short
    assert!(small_within * 10 >= small * 8 && small_within > small_old + 10, "{small_within}");
}
