//! A seeded Zipf request generator for benchmarks and scenario tests: object ranks drawn by
//! inverse CDF over the exact Zipf(α) probabilities (binary search in a precomputed table),
//! ranks scattered over the id space by a bijective mix so hot objects are not neighbours.
//! Not fio's generator (that is `iolab_workload`'s job); this one only has to be the same in
//! the benchmark and in `scripts/bench-libcachesim.sh`, which reads the trace it writes.
//!
//! Not part of the library: the policies bench, the `zipf_trace` example and the model tests
//! include this file with `#[path]`.

use iolab_core::rand::{mix64, SplitMix64};

#[allow(dead_code)]
pub struct Zipf {
    cdf: Vec<f64>,
    rng: SplitMix64,
}

impl Zipf {
    /// `n` objects, exponent `alpha`, seed `seed`.
    pub fn new(n: usize, alpha: f64, seed: u64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut acc = 0.0;
        for r in 1..=n.max(1) {
            acc += 1.0 / (r as f64).powf(alpha);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf, rng: SplitMix64(seed) }
    }

    /// The next object id.
    #[inline]
    pub fn next_key(&mut self) -> u64 {
        let u = self.rng.next_f64();
        let rank = self.cdf.partition_point(|&c| c < u) as u64;
        mix64(rank)
    }
}
