//! SHARDS: Spatially Hashed Approximate Reuse Distance Sampling (Waldspurger, Park, Garthwaite,
//! Ahmad, "Efficient MRC Construction with SHARDS", FAST'15).
//!
//! A key is sampled iff `hash(key) < T`, so the sampling rate is `R = T / 2^64` and a sampled
//! key is sampled on every access. Stack distances are computed over the sampled keys only and
//! scaled by `1/R`.
//!
//! * Fixed rate: `R` is constant. Following the paper's SHARDS_adj, the difference between the
//!   expected sample count `N·R` and the actual one is added to the smallest-distance bucket,
//!   which removes most of the bias from a few hot keys falling in or out of the sample.
//! * Fixed size: at most `s_max` sampled keys. When one more would be tracked, the key with the
//!   largest hash is dropped, `T` is lowered to its hash, and the histogram is rescaled by
//!   `R_new / R_old` so earlier samples weigh what samples at the new rate would. The same
//!   adjustment against `N·R_final` is applied at the end.
//!
//! Scaled distances go into log-linear buckets (64 per power of two, < 1.6 % relative width),
//! so memory is bounded by the sample, not by `footprint / R`.

use super::stack::StackDistance;
use super::{MissRatioCurve, MrcBuilder, MrcError};
use std::collections::BinaryHeap;

const SUB: usize = 64;
const SALT: u64 = 0x5eed_5a1f_d15c_0de5;

/// The sampling hash: SplitMix64's finaliser over the salted key.
pub fn shards_hash(key: u64) -> u64 {
    iolab_core::rand::mix64(key ^ SALT)
}

fn bucket(d: f64) -> usize {
    if d < 1.0 {
        return 0;
    }
    let e = d.log2().floor();
    let base = e.exp2();
    let sub = (((d / base) - 1.0) * SUB as f64).floor().min(SUB as f64 - 1.0);
    e as usize * SUB + sub as usize
}

/// The largest integer distance in a bucket: every access in it hits caches at least this
/// large, so the estimate never reports a hit at a size too small to hold the distance.
fn bucket_upper(i: usize) -> f64 {
    let e = (i / SUB) as f64;
    let sub = (i % SUB) as f64;
    (e.exp2() * (1.0 + (sub + 1.0) / SUB as f64) - 1e-9).floor()
}

/// Smallest fixed sampling rate accepted: below it a trace of a billion keys samples about a
/// thousand, and a rate like 1e-300 samples nothing (its threshold rounds to 0).
pub const MIN_RATE: f64 = 1e-6;

/// Expected absolute error of a SHARDS miss ratio from `k` sampled keys: `1/sqrt(k)`, the
/// relative standard error of a count of `k` independent samples. A heuristic bound, checked
/// against the exact curve in the tests and the bench (the measured mean error is below it).
pub fn expected_error(k: usize) -> f64 {
    if k == 0 {
        1.0
    } else {
        1.0 / (k as f64).sqrt()
    }
}

enum Mode {
    Rate,
    Size { s_max: usize, heap: BinaryHeap<(u64, u64)> },
}

pub struct Shards {
    stack: StackDistance,
    threshold: u64,
    rate: f64,
    mode: Mode,
    /// Buckets of (weighted accesses, weighted bytes).
    hist: Vec<(f64, f64)>,
    cold: (f64, f64),
    /// All accesses and bytes, sampled or not.
    total: u64,
    total_bytes: u64,
    /// Sampled accesses and bytes.
    sampled: u64,
    sampled_bytes: u64,
}

impl Shards {
    fn with(rate: f64, mode: Mode) -> Self {
        let threshold = if rate >= 1.0 { u64::MAX } else { (rate * 2f64.powi(64)) as u64 };
        Shards {
            stack: StackDistance::new(),
            threshold,
            rate,
            mode,
            hist: Vec::new(),
            cold: (0.0, 0.0),
            total: 0,
            total_bytes: 0,
            sampled: 0,
            sampled_bytes: 0,
        }
    }

    /// Fixed-rate SHARDS with sampling rate `rate` in (0, 1].
    pub fn fixed_rate(rate: f64) -> Result<Self, MrcError> {
        if !(MIN_RATE..=1.0).contains(&rate) {
            return Err(MrcError::BadRate { rate });
        }
        Ok(Self::with(rate, Mode::Rate))
    }

    /// Fixed-size SHARDS tracking at most `s_max` keys, starting at rate 1.
    pub fn fixed_size(s_max: usize) -> Result<Self, MrcError> {
        if s_max == 0 {
            return Err(MrcError::BadSize { s_max });
        }
        Ok(Self::with(1.0, Mode::Size { s_max, heap: BinaryHeap::new() }))
    }

    /// The current sampling rate.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    fn lower_threshold(&mut self) {
        let Mode::Size { s_max, heap } = &mut self.mode else { return };
        while heap.len() > *s_max {
            let Some((h, key)) = heap.pop() else { break };
            self.stack.remove(key);
            self.threshold = h;
        }
        let new_rate = self.threshold as f64 / 2f64.powi(64);
        let f = new_rate / self.rate;
        for b in &mut self.hist {
            b.0 *= f;
            b.1 *= f;
        }
        self.cold.0 *= f;
        self.cold.1 *= f;
        self.rate = new_rate;
    }
}

impl MrcBuilder for Shards {
    fn access(&mut self, key: u64, bytes: u64) {
        self.total += 1;
        self.total_bytes += bytes;
        let h = shards_hash(key);
        if h >= self.threshold && self.threshold != u64::MAX {
            return;
        }
        self.sampled += 1;
        self.sampled_bytes += bytes;
        match self.stack.access(key) {
            Some(d) => {
                let i = bucket(d as f64 / self.rate);
                if i >= self.hist.len() {
                    self.hist.resize(i + 1, (0.0, 0.0));
                }
                self.hist[i].0 += 1.0;
                self.hist[i].1 += bytes as f64;
            }
            None => {
                self.cold.0 += 1.0;
                self.cold.1 += bytes as f64;
                if let Mode::Size { s_max, heap } = &mut self.mode {
                    heap.push((h, key));
                    if heap.len() > *s_max {
                        self.lower_threshold();
                    }
                }
            }
        }
    }

    fn finish(&mut self) -> MissRatioCurve {
        let mut pts: Vec<(f64, f64, f64)> = self
            .hist
            .iter()
            .enumerate()
            .filter(|(_, b)| b.0 != 0.0)
            .map(|(i, &(n, b))| (bucket_upper(i), n, b))
            .collect();
        // SHARDS_adj: the expected weighted sample is N·R; count the shortfall (or excess) as
        // hits at the smallest distance. In fixed-size mode the weights are already rescaled
        // to the final rate, so the same correction applies.
        let (n_s, b_s) = match self.mode {
            Mode::Rate => (self.sampled as f64, self.sampled_bytes as f64),
            Mode::Size { .. } => (
                self.hist.iter().map(|b| b.0).sum::<f64>() + self.cold.0,
                self.hist.iter().map(|b| b.1).sum::<f64>() + self.cold.1,
            ),
        };
        let total = self.total as f64 * self.rate;
        let total_bytes = self.total_bytes as f64 * self.rate;
        // The paper adds the difference to the first histogram bucket: the smallest distance
        // a sample can show, 1/R (it was added at distance 1, which made a 1-entry cache hit
        // 11 % of a Zipf trace whose exact 1-entry miss ratio is 0.998).
        let first = bucket_upper(bucket(1.0 / self.rate));
        pts.push((first, total - n_s, total_bytes - b_s));
        // Normalise to the true totals so the ratio denominators are what a user counts.
        let (sn, sb) = (
            self.total as f64 / total.max(f64::MIN_POSITIVE),
            self.total_bytes as f64 / total_bytes.max(f64::MIN_POSITIVE),
        );
        for p in &mut pts {
            p.1 *= sn;
            p.2 *= sb;
        }
        let mut c = MissRatioCurve::from_points(
            pts,
            self.total as f64,
            self.total_bytes as f64,
            self.stack.keys() as f64 / self.rate,
        );
        c.resolution = (1.0 / self.rate).ceil();
        c.expected_error = expected_error(self.stack.keys());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut prev = 0;
        for d in 1..100_000u64 {
            let b = bucket(d as f64);
            assert!(b >= prev);
            prev = b;
            let up = bucket_upper(b);
            assert!(up >= d as f64 && up <= d as f64 * (1.0 + 1.0 / 32.0), "{d} {up}");
        }
    }

    #[test]
    fn rate_one_equals_exact() {
        let mut s = Shards::fixed_rate(1.0).unwrap();
        let mut e = super::super::exact::ExactMrc::new();
        let mut x = iolab_core::rand::SplitMix64(7);
        for _ in 0..20_000 {
            let k = x.below(500);
            s.access(k, 512);
            e.access(k, 512);
        }
        let (s, e) = (s.finish(), e.finish());
        // Within one bucket's width everywhere; equal once every distance fits.
        for size in [1u64, 2, 64, 128, 256, 400, 500] {
            let (a, b) = (s.miss_ratio(size).0, e.miss_ratio(size).0);
            assert!((a - b).abs() < 0.03, "{size}: {a} vs {b}");
        }
        assert_eq!(s.miss_ratio(504), e.miss_ratio(504));
        assert_eq!(e.miss_ratio(504).0, 500.0 / 20_000.0);
    }

    #[test]
    fn bad_parameters() {
        assert!(Shards::fixed_rate(0.0).is_err());
        assert!(Shards::fixed_rate(1.5).is_err());
        assert!(Shards::fixed_size(0).is_err());
    }
}
