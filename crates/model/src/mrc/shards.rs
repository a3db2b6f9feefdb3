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
//!
//! Stated error. With the adjustment, the estimate at a cache of `c` entries is
//! `mr(c) = Σ_{k∈S} m_k(c) / (N·R)`, where `m_k(c)` is key `k`'s misses at size `c` and `S` the
//! sampled keys. Each key is in `S` with probability `R`, independently (a hash), so
//! `Var mr(c) = (1-R)/R · Σ_k m_k(c)² / N²`: the spread comes from the keys, weighted by the
//! square of their misses, not from the count of sampled keys (the former `1/sqrt(keys)` said
//! ±0.029 where a 1,000-entry cache at R = 1 % was off by 0.041: a few dozen warm keys, each
//! missing hundreds of times, carry that size's misses). `Σ_{k∈S} m_k(c)² / R` estimates the
//! sum (in fixed-size mode the surviving keys were sampled from the start, at every rate, so
//! the final rate applies). To have `m_k(c)` at every size, each sampled key keeps its reuse
//! count per quarter-octave class of scaled distance; a size counts the misses of its own
//! class too, so `m_k(c)` and the stated error err large by at most a quarter octave. Memory:
//! one `(u16, u32)` per sampled key and distance class it has used.

use super::curve::Sampling;
use super::stack::StackDistance;
use super::{MissRatioCurve, MrcBuilder, MrcError};
use std::collections::BinaryHeap;
use std::collections::HashMap;

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

/// Standard errors in a stated error: one (the real error is within it about 2 times in 3,
/// within twice it about 19 in 20, if the estimate is normal; `mrc_fill.rs` measures it).
pub const ERROR_Z: f64 = 1.0;

/// Stated error of a SHARDS miss ratio from the sampling alone: [`ERROR_Z`] standard errors,
/// `sqrt((1-R)·v) / (N·R)` with `v = Σ_{k∈S} m_k(c)²` over the sampled keys at the cache
/// size (see the module header), `R` the rate and `N` the accesses (sampled or not).
pub fn expected_error(v: f64, rate: f64, accesses: f64) -> f64 {
    if accesses <= 0.0 || rate <= 0.0 {
        return 1.0;
    }
    (ERROR_Z * ((1.0 - rate).max(0.0) * v.max(0.0)).sqrt() / (accesses * rate)).min(1.0)
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
    /// Per sampled key with reuses: (distance class, reuses in it), see [`class_of`].
    reuses: HashMap<u64, Vec<(u16, u32)>>,
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
            reuses: HashMap::new(),
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
            self.reuses.remove(&key);
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
                let class = class_of(d as f64 / self.rate);
                let v = self.reuses.entry(key).or_default();
                match v.iter_mut().find(|e| e.0 == class) {
                    Some(e) => e.1 = e.1.saturating_add(1),
                    None => v.push((class, 1)),
                }
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
        c.sampling = Some(self.variance_steps());
        c.expected_error = c.sampling_error(c.resolution.ceil() as u64);
        c
    }
}

/// Distance classes per octave for the stated error.
const CLASSES_PER_OCTAVE: f64 = 4.0;
/// Classes for every `u64` size.
pub(crate) const CLASSES: usize = 64 * CLASSES_PER_OCTAVE as usize + 1;

/// The quarter-octave class of a scaled distance or cache size (`floor(4·log2 d)`, 0 below 1):
/// a distance `d > c` has a class of at least `c`'s.
pub(crate) fn class_of(d: f64) -> u16 {
    if d < 1.0 {
        0
    } else {
        ((CLASSES_PER_OCTAVE * d.log2()).floor() as usize).min(CLASSES - 1) as u16
    }
}

impl Shards {
    /// `Σ_{k∈S} m_k(c)²` per size class: each sampled key misses once cold and once per reuse
    /// in a class at or above the size's. Built as a difference array over classes, one range
    /// per (key, class) entry.
    fn variance_steps(&self) -> Sampling {
        let mut diff = vec![0.0f64; CLASSES + 1];
        let mut mine: Vec<(u16, u32)> = Vec::new();
        for v in self.reuses.values() {
            mine.clear();
            mine.extend_from_slice(v);
            mine.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
            let mut hi = CLASSES; // exclusive end of the range the running count holds on
            let mut m = 1.0f64;
            for &(c, n) in &mine {
                let c = usize::from(c);
                // classes (c, hi) see the misses counted so far
                if c + 1 < hi {
                    diff[c + 1] += m * m - 1.0;
                    diff[hi] -= m * m - 1.0;
                }
                m += f64::from(n);
                hi = c + 1;
            }
            diff[0] += m * m - 1.0;
            diff[hi] -= m * m - 1.0;
        }
        let base = self.stack.keys() as f64;
        let mut acc = 0.0;
        let per_class = diff[..CLASSES]
            .iter()
            .map(|d| {
                acc += d;
                base + acc.max(0.0)
            })
            .collect();
        Sampling { rate: self.rate, per_class }
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
