//! S3-FIFO (Yang, Zhang, Qiu, Yue, Rashmi, "FIFO queues are all you need for cache eviction",
//! SOSP'23): a small FIFO (10 %) that filters one-hit wonders, a main FIFO (90 %) run as a
//! CLOCK with a 2-bit counter, and a ghost FIFO of keys (90 % of the cache) that sends a quickly
//! re-requested key straight to main.
//!
//! Follows libCacheSim's current `eviction/S3FIFO.c` (defaults `small-size-ratio=0.10,
//! ghost-size-ratio=0.90, move-to-main-threshold=2`), including its change from the paper
//! version: until the first eviction, a full small queue sends new objects to main. One
//! deliberate difference: libCacheSim refuses every small-queue insert when the small queue
//! holds at most one object (caches under 20 objects); here the small queue is at least 1.

use super::store::{List, Store};
use super::{Access, Policy, PolicyEntry};

#[derive(Clone, Copy, Debug)]
pub struct S3FifoParams {
    pub small_ratio: f64,
    pub ghost_ratio: f64,
    pub move_to_main_threshold: u8,
}

impl Default for S3FifoParams {
    fn default() -> Self {
        S3FifoParams { small_ratio: 0.10, ghost_ratio: 0.90, move_to_main_threshold: 2 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Q {
    Small,
    Main,
    Ghost,
}

#[derive(Clone, Copy, Debug)]
pub struct S3Entry {
    q: Q,
    freq: u8,
}

pub struct S3Fifo {
    cap: usize,
    small_cap: usize,
    main_cap: usize,
    ghost_cap: usize,
    threshold: u8,
    s: Store<S3Entry>,
    small: List,
    main: List,
    ghost: List,
    hit_on_ghost: bool,
    has_evicted: bool,
}

impl S3Fifo {
    pub fn new(cap: usize, p: S3FifoParams) -> Self {
        let small_cap = ((cap as f64 * p.small_ratio) as usize).max(1).min(cap);
        let ghost_cap = (cap as f64 * p.ghost_ratio) as usize;
        S3Fifo {
            cap,
            small_cap,
            main_cap: cap - small_cap,
            ghost_cap,
            threshold: p.move_to_main_threshold,
            s: Store::with_capacity(cap + ghost_cap),
            small: List::default(),
            main: List::default(),
            ghost: List::default(),
            hit_on_ghost: false,
            has_evicted: false,
        }
    }

    fn evict_small(&mut self) -> Option<u64> {
        while let Some(i) = self.s.pop_tail(&mut self.small) {
            let e = self.s.e_mut(i);
            if e.freq >= self.threshold {
                *e = S3Entry { q: Q::Main, freq: 0 };
                self.s.push_head(&mut self.main, i);
                continue;
            }
            let key = self.s.key(i);
            if self.ghost_cap == 0 {
                self.s.release(i);
                return Some(key);
            }
            while self.ghost.len >= self.ghost_cap {
                if let Some(g) = self.s.pop_tail(&mut self.ghost) {
                    self.s.release(g);
                }
            }
            *self.s.e_mut(i) = S3Entry { q: Q::Ghost, freq: 0 };
            self.s.push_head(&mut self.ghost, i);
            return Some(key);
        }
        None
    }

    fn evict_main(&mut self) -> Option<u64> {
        while let Some(i) = self.s.pop_tail(&mut self.main) {
            let e = self.s.e_mut(i);
            if e.freq >= 1 {
                e.freq = e.freq.min(3) - 1;
                self.s.push_head(&mut self.main, i);
            } else {
                let key = self.s.key(i);
                self.s.release(i);
                return Some(key);
            }
        }
        None
    }
}

impl PolicyEntry for S3Entry {
    fn resident(&self) -> bool {
        self.q != Q::Ghost
    }
}

impl Policy for S3Fifo {
    type Entry = S3Entry;
    fn name(&self) -> &'static str {
        "s3fifo"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        match self.s.e(idx).q {
            Q::Small => self.s.unlink(&mut self.small, idx),
            Q::Main => self.s.unlink(&mut self.main, idx),
            Q::Ghost => self.s.unlink(&mut self.ghost, idx),
        }
        self.s.release(idx);
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.small.len + self.main.len
    }
    #[inline]
    fn find(&mut self, a: &Access) -> bool {
        self.hit_on_ghost = false;
        let Some(i) = self.s.find(a.key) else { return false };
        let e = self.s.e_mut(i);
        if e.q == Q::Ghost {
            self.s.unlink(&mut self.ghost, i);
            self.s.release(i);
            self.hit_on_ghost = true;
            return false;
        }
        e.freq = e.freq.saturating_add(1);
        true
    }
    #[inline]
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        self.has_evicted = true;
        if self.main.len > self.main_cap || self.small.len == 0 {
            self.evict_main()
        } else {
            self.evict_small()
        }
    }
    #[inline]
    fn insert(&mut self, a: &Access) {
        let to_main = self.hit_on_ghost || (!self.has_evicted && self.small.len >= self.small_cap);
        self.hit_on_ghost = false;
        if to_main {
            let i = self.s.alloc(a.key, S3Entry { q: Q::Main, freq: 0 });
            self.s.push_head(&mut self.main, i);
        } else {
            let i = self.s.alloc(a.key, S3Entry { q: Q::Small, freq: 0 });
            self.s.push_head(&mut self.small, i);
        }
    }
    /// The tails the next eviction reads: main's when main is over its share (the choice
    /// `evict` makes), else small's and ghost's (a small victim pushes out the oldest ghost).
    #[inline]
    fn prefetch_near(&self, _key: u64) {
        if self.main.len > self.main_cap || self.small.len == 0 {
            self.s.prefetch_tail(&self.main);
        } else {
            self.s.prefetch_tail(&self.small);
            self.s.prefetch_tail(&self.ghost);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hit_wonders_leave_through_small_and_ghost_readmits_to_main() {
        let mut c = S3Fifo::new(10, S3FifoParams::default()); // small 1, main 9
        for k in 0..10 {
            c.access(&Access::new(k)); // fills: 0 in small, 1..9 in main (small full, no eviction yet)
        }
        c.access(&Access::new(100)); // evicts from small? small=1 (0), main=9: evict small → 0 to ghost
        assert!(!c.contains(0) && c.contains(100));
        assert_eq!(c.ghost.len, 1);
        let o = c.access(&Access::new(0)); // ghost hit: a miss, re-inserted into main
        assert!(!o.hit);
        let i = c.s.find(0).unwrap();
        assert_eq!(c.s.e(i).q, Q::Main);
    }
}
