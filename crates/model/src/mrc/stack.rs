//! LRU stack distances in O(log(n/512)) per access (Mattson et al., "Evaluation techniques for
//! storage hierarchies", IBM Systems Journal 9(2), 1970; the marks-over-access-times method of
//! Bennett & Kruskal, "LRU stack processing", IBM J. R&D 19(4), 1975). A hash map holds each
//! key's last access time; a bitmap over times holds one mark per live key at that time, with
//! a Fenwick tree over cache-line superblocks of the bitmap for ranks ([`super::rank`]). The
//! stack distance of an access is 1 + the number of distinct keys accessed since the key's
//! previous access, i.e. the smallest LRU cache (in entries) that hits.
//!
//! Appending the new mark costs one OR: the bitmap line at the time frontier is kept out of
//! the Fenwick tree until the frontier leaves it ([`RankBits::push`]), so an access walks the
//! tree twice (rank and clear of the previous mark), not three times.
//!
//! When the time axis fills, live times are renumbered densely in O(live) (each key's new time
//! is the rank of its old one, no sort) and the axis is sized to 8× the live keys, so
//! renumbering runs once per 7× live accesses and memory is O(distinct keys), not O(requests).

use super::rank::RankBits;
use super::table::KeyTable;

pub struct StackDistance {
    last: KeyTable,
    tree: RankBits,
    now: u32,
    live: u32,
}

impl Default for StackDistance {
    fn default() -> Self {
        Self::new()
    }
}

impl StackDistance {
    pub fn new() -> Self {
        StackDistance { last: KeyTable::default(), tree: RankBits::new(1 << 16), now: 0, live: 0 }
    }

    /// Distinct keys currently tracked.
    pub fn keys(&self) -> usize {
        self.live as usize
    }

    /// Hints the CPU to load `key`'s last-access slot: call it some accesses before
    /// [`Self::access`] on the same key so the lookup's cache miss overlaps earlier work.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        self.last.prefetch(key);
    }

    /// Second prefetch stage: once `key`'s slot is in cache, load the bitmap line of its last
    /// access time (where [`Self::access`] will rank and clear). A hint only.
    #[inline]
    pub fn prefetch_mark(&self, key: u64) {
        if let Some(t0) = self.last.get(key) {
            self.tree.prefetch(t0 as usize);
        }
    }

    /// Records an access; returns its stack distance (1 = the most recent key), or `None` for a
    /// first access (a cold miss at every size). Always inlined, so the exact curve's loop
    /// compiled with `popcnt` ([`super::exact`]) ranks with the instruction.
    #[inline(always)]
    pub fn access(&mut self, key: u64) -> Option<u64> {
        if self.now as usize == self.tree.len() {
            self.compact();
        }
        let now = self.now;
        self.now += 1;
        self.tree.push(now as usize);
        match self.last.insert(key, now) {
            Some(t0) => {
                // Keys last seen after t0 (the new mark at `now` is past t0 and not counted in
                // `live`, which already holds this key).
                let newer = self.live - self.tree.rank(t0 as usize);
                self.tree.clear(t0 as usize);
                Some(newer as u64 + 1)
            }
            None => {
                self.live += 1;
                None
            }
        }
    }

    /// Forgets a key (SHARDS fixed-size drops keys when it lowers its sampling threshold).
    pub fn remove(&mut self, key: u64) {
        if let Some(t0) = self.last.remove(key) {
            self.tree.clear(t0 as usize);
            self.live -= 1;
        }
    }

    /// Renumbers live keys' times to 0..live in order (a key's new time is the number of live
    /// marks before its old one) and sizes the axis to 8× the live keys.
    fn compact(&mut self) {
        {
            let rank = self.tree.static_rank();
            for t in self.last.values_mut() {
                *t = rank(*t as usize) - 1;
            }
        }
        let live = self.live as usize;
        // Times are u32: the axis never grows past u32::MAX marks.
        let cap = live.saturating_mul(8).clamp(1 << 16, u32::MAX as usize - 512).max(live + 1);
        self.tree = RankBits::with_prefix(cap, live);
        self.now = self.live;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_of_a_small_string() {
        // a b c a a d b : a is 3rd most recent at its second access, then 1, b is 4th.
        let mut s = StackDistance::new();
        let got: Vec<Option<u64>> = [1, 2, 3, 1, 1, 4, 2].iter().map(|&k| s.access(k)).collect();
        assert_eq!(got, [None, None, None, Some(3), Some(1), None, Some(4)]);
        s.remove(1);
        assert_eq!(s.access(2), Some(1));
        assert_eq!(s.access(3), Some(3));
        assert_eq!(s.keys(), 3);
    }

    #[test]
    fn compaction_keeps_distances() {
        // Cycling over 1000 keys for 200k accesses forces several compactions.
        let mut s = StackDistance::new();
        for i in 0..200_000u64 {
            let d = s.access(i % 1000);
            if i >= 1000 {
                assert_eq!(d, Some(1000));
            }
        }
    }
}
