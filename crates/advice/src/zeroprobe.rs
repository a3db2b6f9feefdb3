//! Sampling read completions for all-zero blocks (pitfall #1: never-written, thin or
//! trimmed regions read back as zeros; fio #719).
//!
//! Cheap by construction: only every `every`-th completion is looked at, and of those only a
//! 64-byte probe in the middle of the block is read unless it is zero; the whole block is
//! scanned (word-wise) only then. Random data passes the probe with probability 2⁻⁵¹², so
//! for ordinary data the cost is one 64-byte compare per sampled read. Counters are atomics
//! so that every worker thread of a job can share one probe without locks.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::ZeroReadSample;

const PROBE: usize = 64;

/// True if every byte of `buf` is zero.
pub fn is_all_zero(buf: &[u8]) -> bool {
    let mid = (buf.len() / 2).saturating_sub(PROBE / 2);
    let probe = &buf[mid..(mid + PROBE).min(buf.len())];
    if !words_zero(probe) {
        return false;
    }
    words_zero(buf)
}

fn words_zero(b: &[u8]) -> bool {
    let mut chunks = b.chunks_exact(64);
    for c in &mut chunks {
        // OR of eight words: one branch per 64 bytes, which the compiler vectorises.
        let mut acc = 0u64;
        for w in c.chunks_exact(8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            acc |= u64::from_ne_bytes(a);
        }
        if acc != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|&x| x == 0)
}

/// Counts of sampled completions, shared by a job's workers.
#[derive(Debug)]
pub struct ZeroProbe {
    every: u64,
    seen: AtomicU64,
    sampled: AtomicU64,
    all_zero: AtomicU64,
}

impl ZeroProbe {
    /// Look at one completion in `every` (1 = all).
    pub fn new(every: u64) -> Self {
        ZeroProbe {
            every: every.max(1),
            seen: AtomicU64::new(0),
            sampled: AtomicU64::new(0),
            all_zero: AtomicU64::new(0),
        }
    }

    /// Call on every read completion with the bytes read.
    #[inline]
    pub fn observe(&self, buf: &[u8]) {
        if buf.is_empty() || self.seen.fetch_add(1, Ordering::Relaxed) % self.every != 0 {
            return;
        }
        self.sampled.fetch_add(1, Ordering::Relaxed);
        if is_all_zero(buf) {
            self.all_zero.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn sample(&self) -> ZeroReadSample {
        ZeroReadSample {
            sampled: self.sampled.load(Ordering::Relaxed),
            all_zero: self.all_zero.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_detection_at_every_position() {
        for len in [1usize, 63, 64, 65, 512, 4096, 4099] {
            let mut b = vec![0u8; len];
            assert!(is_all_zero(&b), "{len}");
            for pos in [0, len / 2, len - 1] {
                b[pos] = 1;
                assert!(!is_all_zero(&b), "len {len} pos {pos}");
                b[pos] = 0;
            }
        }
        assert!(is_all_zero(&[]));
    }

    #[test]
    fn samples_one_in_n() {
        let p = ZeroProbe::new(4);
        let z = vec![0u8; 4096];
        let mut d = vec![0u8; 4096];
        d[4095] = 7;
        for i in 0..100 {
            p.observe(if i % 8 == 0 { &d } else { &z });
        }
        // Completions 0, 4, 8, … are sampled; those at multiples of 8 are non-zero.
        assert_eq!(p.sample(), ZeroReadSample { sampled: 25, all_zero: 12 });
    }
}
