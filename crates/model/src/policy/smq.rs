//! dm-cache's stochastic multiqueue policy, smq (Linux `drivers/md/dm-cache-policy-smq.c`,
//! Joe Thornber 2015; `Documentation/admin-guide/device-mapper/cache-policies.rst`).
//!
//! Modelled: cache blocks sit in a 64-level multiqueue (a hit moves a block up one level,
//! eviction takes the oldest block of the lowest level, levels are periodically redistributed
//! so each holds an equal share); a separate *hotspot* multiqueue tracks hotspot blocks of 16
//! cache blocks (`nr_hotspot_blocks = max(cache_blocks / 4, 1024)`) and decides promotion: a
//! missed block is promoted only when its hotspot is at level ≥ `read_promote_level`.
//!
//! `update_promote_levels()` computes a threshold level (32 while the cache has free blocks,
//! else the hit-ratio table {1,1,1,2,4,6,7,8,7,6,4,4,3,3,2,2,1}) and then, in every kernel
//! since the 2016 background-work rewrite, applies `max(threshold_level, NR_HOTSPOT_LEVELS)`,
//! which makes it 64 whatever the table says. What remains is the hotspot queue's confidence
//! (`stats_assess`: share of hotspot hits in its top quarter of levels): under 1/16 the
//! threshold is divided by 4 (promote at level ≥ 48), under 1/8 by 2 (≥ 32), else every miss
//! promotes. The same assessment sets the hotspot level jump to 4 / 2 / 1. Writes to a cache
//! with free blocks are promoted at once (`fast_promote`).
//!
//! Simplified, and said so: the kernel's ticks are wall-clock (hotspot queue every 1 s, cache
//! every 10 s); here a tick is `nr_hotspot_blocks` requests and the cache period ten ticks.
//! The kernel's "once per tick" limit on level moves, its sentinels and its clean/dirty split
//! (the tier layer tracks dirtiness) are not modelled.

use super::store::{List, Store, NIL};
use super::{Access, Policy};

const LEVELS: usize = 64;
const HOTSPOT_BLOCK_SHIFT: u32 = 4;

/// A 64-level queue over one store; entry = level.
struct MultiQueue {
    s: Store<u8>,
    q: Vec<List>,
    len: usize,
}

impl MultiQueue {
    fn new(cap: usize) -> Self {
        MultiQueue { s: Store::with_capacity(cap), q: vec![List::default(); LEVELS], len: 0 }
    }

    fn push(&mut self, key: u64, level: usize) -> u32 {
        let i = self.s.alloc(key, level as u8);
        self.s.push_head(&mut self.q[level], i);
        self.len += 1;
        i
    }

    fn set_level(&mut self, i: u32, level: usize) {
        let old = *self.s.e(i) as usize;
        self.s.unlink(&mut self.q[old], i);
        *self.s.e_mut(i) = level as u8;
        self.s.push_head(&mut self.q[level], i);
    }

    fn level(&self, i: u32) -> usize {
        *self.s.e(i) as usize
    }

    fn drop_node(&mut self, i: u32) -> u64 {
        let l = self.level(i);
        self.s.unlink(&mut self.q[l], i);
        let k = self.s.key(i);
        self.s.release(i);
        self.len -= 1;
        k
    }

    /// The oldest entry of the lowest non-empty level.
    fn victim(&self) -> Option<u32> {
        self.q.iter().map(|l| l.tail).find(|&t| t != NIL)
    }

    /// Spread the entries evenly over the levels, keeping their order (`q_redistribute`).
    fn redistribute(&mut self) {
        let mut order = Vec::with_capacity(self.len);
        for l in 0..LEVELS {
            let mut i = self.q[l].tail;
            while i != NIL {
                order.push(i);
                i = self.s.prev(i);
            }
        }
        let per = order.len().div_ceil(LEVELS).max(1);
        for (n, i) in order.into_iter().enumerate() {
            self.set_level(i, (n / per).min(LEVELS - 1));
        }
    }
}

pub struct Smq {
    cap: usize,
    cache: MultiQueue,
    hot: MultiQueue,
    nr_hotspot: usize,
    tick_len: u64,
    requests: u64,
    ticks: u64,
    // hotspot accesses landing in the top quarter vs all, over the current tick
    hs_top: u64,
    hs_all: u64,
    read_promote_level: usize,
    level_jump: usize,
}

impl Smq {
    pub fn new(cap: usize) -> Self {
        let nr_hotspot = (cap / 4).max(1024);
        Smq {
            cap,
            cache: MultiQueue::new(cap),
            hot: MultiQueue::new(nr_hotspot),
            nr_hotspot,
            tick_len: nr_hotspot as u64,
            requests: 0,
            ticks: 0,
            hs_top: 0,
            hs_all: 0,
            // No statistics yet: stats_assess() reads as poor.
            read_promote_level: LEVELS - LEVELS / 4,
            level_jump: 4,
        }
    }

    /// 0 poor, 1 fair, 2 well (`stats_assess`).
    fn assess(&self) -> u8 {
        if self.hs_all == 0 || self.hs_top * 16 < self.hs_all {
            0
        } else if self.hs_top * 8 < self.hs_all {
            1
        } else {
            2
        }
    }

    fn update_promote_levels(&mut self) {
        // max(threshold_level, NR_HOTSPOT_LEVELS) in the kernel: always 64 before the division.
        let a = self.assess();
        let threshold = match a {
            0 => LEVELS / 4,
            1 => LEVELS / 2,
            _ => LEVELS,
        };
        self.read_promote_level = LEVELS - threshold;
        self.level_jump = match a {
            0 => 4,
            1 => 2,
            _ => 1,
        };
    }

    fn tick(&mut self) {
        self.requests += 1;
        if self.requests % self.tick_len != 0 {
            return;
        }
        self.ticks += 1;
        self.hot.redistribute();
        self.update_promote_levels();
        self.hs_top = 0;
        self.hs_all = 0;
        if self.ticks % 10 == 0 {
            self.cache.redistribute();
        }
    }

    /// `update_hotspot_queue`: returns the hotspot's level after this access.
    fn touch_hotspot(&mut self, key: u64) -> usize {
        let hb = key >> HOTSPOT_BLOCK_SHIFT;
        self.hs_all += 1;
        if let Some(i) = self.hot.s.find(hb) {
            let l = self.hot.level(i);
            if l >= LEVELS * 3 / 4 {
                self.hs_top += 1;
            }
            let nl = (l + self.level_jump).min(LEVELS - 1);
            self.hot.set_level(i, nl);
            nl
        } else {
            if self.hot.len >= self.nr_hotspot {
                if let Some(v) = self.hot.victim() {
                    self.hot.drop_node(v);
                }
            }
            self.hot.push(hb, 0);
            0
        }
    }
}

impl Policy for Smq {
    type Entry = u8;
    fn name(&self) -> &'static str {
        "smq"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.cache.s
    }
    fn forget(&mut self, idx: u32) {
        self.cache.drop_node(idx);
    }
    fn extra_heap_bytes(&self) -> usize {
        self.hot.s.heap_bytes()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.cache.len
    }
    fn find(&mut self, a: &Access) -> bool {
        self.tick();
        self.touch_hotspot(a.key);
        match self.cache.s.find(a.key) {
            Some(i) => {
                let l = (self.cache.level(i) + 1).min(LEVELS - 1);
                self.cache.set_level(i, l);
                true
            }
            None => false,
        }
    }
    fn admit(&mut self, a: &Access) -> bool {
        if a.write && self.cache.len < self.cap {
            return true; // fast_promote
        }
        let hb = a.key >> HOTSPOT_BLOCK_SHIFT;
        let level = self.hot.s.find(hb).map_or(0, |i| self.hot.level(i));
        level >= self.read_promote_level
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        let v = self.cache.victim()?;
        Some(self.cache.drop_node(v))
    }
    fn insert(&mut self, a: &Access) {
        // New blocks start in the middle so one early hit does not outrank established ones.
        self.cache.push(a.key, LEVELS / 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_reads_are_not_promoted_until_the_hotspot_heats_up() {
        let mut c = Smq::new(4096);
        // One read of a block: its hotspot is new (level 0) so nothing is promoted.
        assert!(!c.access(&Access::new(7)).admitted);
        // Repeated reads in the same 16-block hotspot raise its level until it promotes.
        let mut n = 1;
        while !c.contains(7) {
            c.access(&Access::new(7));
            n += 1;
            assert!(n < 100, "never promoted");
        }
        // Poor confidence at start: level jump 4, promote level 48, so 13 reads.
        assert_eq!(n, 13);
        // A write to a not-yet-full cache is promoted at once (fast_promote).
        let w = Access { key: 1 << 20, vtime: 0, next_access: u64::MAX, write: true };
        assert!(c.access(&w).admitted);
    }
}
