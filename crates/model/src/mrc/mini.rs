//! Miniature simulations: every policy's miss-ratio curve from one pass over a trace
//! (Waldspurger, Park, Garthwaite, Ahmad, "Cache Modeling and Optimization using Miniature
//! Simulations", USENIX ATC 2017).
//!
//! The trace is read once into a [`Sample`]: the requests whose key hashes below a threshold
//! (SHARDS spatial sampling, [`super::shards::shards_hash`], rate `R = T / 2^64`), each as a
//! dense key id (for the per-key counts) and its bytes. A key is sampled on every access or on
//! none. Then every (policy, cache size) pair replays the sample, with the trace's own keys,
//! through the policy at `round(C·R)` entries, on all cores ([`run`]); the pairs are
//! independent, so the results do not depend on the thread count.
//!
//! * Rate: while the sample grows past its budget the threshold halves and the requests of
//!   the keys above it are dropped (SHARDS fixed-size applied to requests), so the memory is
//!   the budget's, whatever the trace's length. A trace that never exceeds it keeps `R = 1`:
//!   every point is then a full simulation (`exact`).
//! * Estimate (SHARDS_adj, as `shards.rs`): `mr(C) = misses_S / (N·R)`, sampled misses over
//!   the expected sampled requests rather than over the sampled requests, so a hot key that
//!   falls in (or out of) the sample moves the ratio by its few misses, not by its many hits.
//! * Stated error: the sampling's variance `(1-R)·Σ_{k∈S} m_k² / (N·R)²` (each key is in the
//!   sample independently with probability `R`, see `shards.rs`), from the sampled keys'
//!   misses counted here, and the curve's change over the scaled cache's size uncertainty
//!   (`1/sqrt(C·R)` relative), see [`stated_error`].
//!
//! Threads: `std::thread::scope` with an atomic work counter, not rayon: the work is a flat
//! list of equal, independent replays, results go to their own slots, and no new dependency
//! is needed for that.

use super::shards::shards_hash;
use crate::policy::{self, Access, PolicyInfo};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The requests of the sampled keys, in trace order.
pub struct Sample {
    threshold: u64,
    rate: f64,
    /// Halve the rate when the sample grows past this many requests (`None`: a fixed rate).
    budget: Option<usize>,
    ids: Vec<u32>,
    bytes: Vec<u64>,
    /// Dense id -> key.
    keys: Vec<u64>,
    map: policy::store::KeyMap,
    /// Every request and byte seen, sampled or not.
    pub requests: u64,
    pub total_bytes: u64,
    /// Largest request size seen (0: the trace has no sizes).
    pub max_size: u64,
}

/// Why a sample cannot be taken.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SampleError {
    #[error("--sample {0:?}: expected a rate in (0, 1] (a fraction of the keys, e.g. 0.01)")]
    BadRate(f64),
    #[error(
        "the sample holds {0} requests, past the {MAX_SAMPLE} a run keeps in memory: use a \
         smaller --sample (or none: the rate is then chosen to fit)"
    )]
    TooLarge(usize),
}

/// Most sampled requests kept (12 bytes each); a forced rate that keeps more is refused.
pub const MAX_SAMPLE: usize = 1 << 27;

/// Smallest rate a `--sample` may ask for (as SHARDS).
pub const MIN_RATE: f64 = super::shards::MIN_RATE;

impl Sample {
    fn with(threshold: u64, rate: f64, budget: Option<usize>) -> Self {
        Sample {
            threshold,
            rate,
            budget,
            ids: Vec::new(),
            bytes: Vec::new(),
            keys: Vec::new(),
            map: policy::store::KeyMap::with_capacity(1024),
            requests: 0,
            total_bytes: 0,
            max_size: 0,
        }
    }

    /// Starts at rate 1 and halves it whenever more than `budget` requests are kept.
    pub fn adaptive(budget: usize) -> Self {
        Self::with(u64::MAX, 1.0, Some(budget.clamp(1, MAX_SAMPLE)))
    }

    /// A fixed rate in `[MIN_RATE, 1]`.
    pub fn fixed(rate: f64) -> Result<Self, SampleError> {
        if !(MIN_RATE..=1.0).contains(&rate) {
            return Err(SampleError::BadRate(rate));
        }
        let t = if rate >= 1.0 { u64::MAX } else { (rate * 2f64.powi(64)) as u64 };
        Ok(Self::with(t, rate, None))
    }

    /// The sampling rate (1: every request).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Sampled requests kept.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Distinct sampled keys.
    pub fn keys(&self) -> usize {
        self.keys.len()
    }

    /// One request for `key` of `bytes`.
    #[inline]
    pub fn access(&mut self, key: u64, bytes: u64) -> Result<(), SampleError> {
        self.requests += 1;
        self.total_bytes = self.total_bytes.saturating_add(bytes);
        self.max_size = self.max_size.max(bytes);
        if self.threshold != u64::MAX && shards_hash(key) >= self.threshold {
            return Ok(());
        }
        let id = match self.map.get(key) {
            Some(id) => id,
            None => {
                let id = self.keys.len() as u32;
                self.keys.push(key);
                self.map.insert(key, id);
                id
            }
        };
        self.ids.push(id);
        self.bytes.push(bytes);
        match self.budget {
            Some(b) if self.ids.len() > b => self.halve(b),
            None if self.ids.len() > MAX_SAMPLE => Err(SampleError::TooLarge(self.ids.len())),
            _ => Ok(()),
        }
    }

    /// Halves the rate until at most `budget` requests are kept.
    fn halve(&mut self, budget: usize) -> Result<(), SampleError> {
        while self.ids.len() > budget && self.threshold > 1 {
            self.threshold = if self.threshold == u64::MAX { 1 << 63 } else { self.threshold / 2 };
            self.rate = self.threshold as f64 / 2f64.powi(64);
            self.keep_below_threshold();
        }
        Ok(())
    }

    /// Drops the requests of keys at or above the threshold and renumbers the rest densely
    /// (first appearance order, as if they had been sampled at this rate from the start).
    fn keep_below_threshold(&mut self) {
        let t = self.threshold;
        let mut new_id = vec![u32::MAX; self.keys.len()];
        let mut keys = Vec::new();
        let mut map = policy::store::KeyMap::with_capacity(self.keys.len() / 2);
        let mut w = 0;
        for r in 0..self.ids.len() {
            let old = self.ids[r] as usize;
            let key = self.keys[old];
            if shards_hash(key) >= t {
                continue;
            }
            if new_id[old] == u32::MAX {
                new_id[old] = keys.len() as u32;
                map.insert(key, new_id[old]);
                keys.push(key);
            }
            self.ids[w] = new_id[old];
            self.bytes[w] = self.bytes[r];
            w += 1;
        }
        self.ids.truncate(w);
        self.bytes.truncate(w);
        self.keys = keys;
        self.map = map;
    }

    /// Lowers the rate (halving, as the budget does) until at most `budget` requests are kept,
    /// but never below `min_keys` distinct sampled keys.
    pub fn shrink_to(&mut self, budget: usize, min_keys: usize) {
        while self.ids.len() > budget && self.keys.len() / 2 >= min_keys && self.threshold > 1 {
            self.threshold = if self.threshold == u64::MAX { 1 << 63 } else { self.threshold / 2 };
            self.rate = self.threshold as f64 / 2f64.powi(64);
            self.keep_below_threshold();
        }
    }

    /// Estimated distinct keys of the whole trace (exact at rate 1).
    pub fn footprint(&self) -> f64 {
        self.keys.len() as f64 / self.rate
    }
}

/// One (policy, size) replay of the sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MiniResult {
    /// Entries the miniature cache held (`round(size·R)`).
    pub scaled: usize,
    pub misses: u64,
    pub miss_bytes: u64,
    /// `Σ_k m_k²` over the sampled keys (misses per key), and the same over missed bytes.
    pub sq_misses: f64,
    pub sq_bytes: f64,
}

/// The miniature cache size for `size` entries at `rate` (at least 1).
pub fn scaled_size(size: u64, rate: f64) -> usize {
    ((size as f64 * rate).round() as usize).max(1)
}

/// Replays the sample through `p` at `scaled` entries, counting each key's misses.
pub fn simulate(p: &PolicyInfo, scaled: usize, s: &Sample, next: Option<&[u64]>) -> MiniResult {
    let mut c = (p.ctor)(scaled);
    let mut per_key = vec![(0u32, 0u64); s.keys.len()];
    let (mut misses, mut miss_bytes) = (0u64, 0u64);
    for (i, (&id, &b)) in s.ids.iter().zip(&s.bytes).enumerate() {
        let next_access = next.and_then(|n| n.get(i).copied()).unwrap_or(policy::NEVER);
        // The trace's own key, not the dense id: a policy that reads key bits (smq's hotspot
        // blocks of 16 neighbouring keys) sees the trace's neighbours, as a full simulation.
        let key = s.keys[id as usize];
        let a = Access { key, vtime: i as u64, next_access, write: false };
        if !c.get(&a).hit {
            misses += 1;
            miss_bytes = miss_bytes.saturating_add(b);
            let e = &mut per_key[id as usize];
            e.0 = e.0.saturating_add(1);
            e.1 = e.1.saturating_add(b);
        }
    }
    let sq_misses = per_key.iter().map(|e| f64::from(e.0).powi(2)).sum();
    let sq_bytes = per_key.iter().map(|e| (e.1 as f64).powi(2)).sum();
    MiniResult { scaled, misses, miss_bytes, sq_misses, sq_bytes }
}

/// Next-access times over the sample (Belady), by sampled request index.
pub fn next_access(s: &Sample) -> Vec<u64> {
    let keys: Vec<u64> = s.ids.iter().map(|&i| u64::from(i)).collect();
    policy::next_access_times(&keys)
}

/// Every policy of `policies` at every size of `sizes` (entries of the full cache), on up to
/// `threads` threads; results in `policies × sizes` order, the same for any thread count.
pub fn run(
    s: &Sample,
    policies: &[&'static PolicyInfo],
    sizes: &[u64],
    threads: usize,
) -> Vec<MiniResult> {
    let next = policies.iter().any(|p| p.offline).then(|| next_access(s));
    let jobs: Vec<(usize, usize)> =
        (0..policies.len()).flat_map(|p| (0..sizes.len()).map(move |z| (p, z))).collect();
    let next_job = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let j = next_job.fetch_add(1, Ordering::Relaxed);
            let Some(&(p, z)) = jobs.get(j) else { return done };
            let pol = policies[p];
            let nx = next.as_deref().filter(|_| pol.offline);
            done.push((j, simulate(pol, scaled_size(sizes[z], s.rate), s, nx)));
        }
    };
    let mut out = vec![MiniResult::default(); jobs.len()];
    let threads = threads.clamp(1, jobs.len().max(1));
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads).map(|_| sc.spawn(work)).collect();
        for h in handles {
            // A replay cannot panic on input (the policies are total); if one did, its slots
            // keep their defaults and the panic resurfaces here.
            match h.join() {
                Ok(done) => done.into_iter().for_each(|(j, r)| out[j] = r),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
    });
    out
}

/// Standard errors in a stated error: 2 (about 19 points in 20 within it if the estimate is
/// normal; the tests measure at least 9 in 10 over their traces).
pub const ERROR_Z: f64 = 2.0;

/// The stated absolute error of a miniature point: [`ERROR_Z`] times the sampling's standard
/// error `sqrt((1-R)·sq) / (N·R)` and the curve's change over the scaled cache's relative size
/// uncertainty `1/sqrt(C·R)` (`slope` is the curve's change per unit of `ln C` there), added
/// in quadrature, plus the rounding of the miniature cache to whole entries. 0 at `R = 1`.
pub fn stated_error(sq: f64, total: f64, rate: f64, size: u64, slope: f64) -> f64 {
    if rate >= 1.0 || total <= 0.0 {
        return 0.0;
    }
    let sampling = ((1.0 - rate) * sq.max(0.0)).sqrt() / (total * rate);
    let scaled = (size as f64 * rate).max(1.0);
    let rel = 1.0 / scaled.sqrt();
    let spread = slope.abs() * (rel + 0.5 / scaled);
    (ERROR_Z * sampling.hypot(spread)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_sample_halves_and_keeps_whole_keys() {
        let mut s = Sample::adaptive(1000);
        let mut x = iolab_core::rand::SplitMix64(9);
        for _ in 0..20_000 {
            s.access(x.below(3000), 4096).unwrap();
        }
        assert!(s.len() <= 1000 && s.rate() < 1.0);
        assert_eq!(s.requests, 20_000);
        // Every kept request is of a key below the threshold, numbered densely.
        assert!(s.ids.iter().all(|&i| (i as usize) < s.keys.len()));
        assert!(s.keys.iter().all(|&k| shards_hash(k) < s.threshold));
        // The same trace at that fixed rate keeps exactly the same requests.
        let mut f = Sample::fixed(s.rate()).unwrap();
        let mut x = iolab_core::rand::SplitMix64(9);
        for _ in 0..20_000 {
            f.access(x.below(3000), 4096).unwrap();
        }
        assert_eq!((f.ids.len(), f.keys.len()), (s.ids.len(), s.keys.len()));
        assert_eq!(f.ids, s.ids);
    }

    #[test]
    fn rate_one_is_a_full_simulation() {
        let mut s = Sample::fixed(1.0).unwrap();
        for k in [1, 2, 3, 1, 2, 3, 1] {
            s.access(k, 10).unwrap();
        }
        let lru = policy::lookup("lru").unwrap();
        let r = simulate(lru, 2, &s, None);
        assert_eq!((r.misses, r.miss_bytes), (7, 70));
        assert_eq!(r.sq_misses, 9.0 + 4.0 + 4.0);
        assert_eq!(simulate(lru, 3, &s, None).misses, 3);
        assert_eq!(stated_error(17.0, 7.0, 1.0, 2, 0.3), 0.0);
    }

    #[test]
    fn bad_rates() {
        for r in [0.0, -1.0, f64::NAN, 1.5, 1e-9, f64::INFINITY] {
            assert!(Sample::fixed(r).is_err(), "{r}");
        }
    }
}
