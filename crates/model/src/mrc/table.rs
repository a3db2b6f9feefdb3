//! The last-access table of the stack-distance engine: an open-addressing hash table from key
//! to u32 time with linear probing, Fibonacci hashing (Knuth, TAOCP vol. 3 §6.4) and
//! backward-shift deletion (Knuth's Algorithm R), so no tombstones. Each slot is 16 bytes, four
//! to a cache line. It exists instead of `std::collections::HashMap` so the engine can
//! [`KeyTable::prefetch`] a key's slot a few accesses before it is looked up: over a footprint
//! of millions of keys every lookup misses the cache, and issuing the miss early overlaps it
//! with the work on earlier accesses (the "batching with prefetch of the hash lookups" of
//! Chen et al., "Improving hash join performance through prefetching", ICDE 2004).

pub(crate) use crate::policy::mem::prefetch_line as prefetch_ptr;

/// Marks an empty slot (no time reaches it: the time axis stops below `u32::MAX`).
const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    val: u32,
}

pub(crate) struct KeyTable {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    len: usize,
}

impl Default for KeyTable {
    fn default() -> Self {
        Self::with_log2(10)
    }
}

impl KeyTable {
    fn with_log2(bits: u32) -> Self {
        let slots = crate::policy::mem::huge_filled(1 << bits, Slot { key: 0, val: EMPTY });
        KeyTable { slots, shift: 64 - bits, len: 0 }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Hints the CPU to load `key`'s home slot.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        if let Some(s) = self.slots.get(self.home(key)) {
            prefetch_ptr(s as *const Slot as *const i8);
        }
    }

    /// `key`'s value, if present.
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.val == EMPTY {
                return None;
            }
            if s.key == key {
                return Some(s.val);
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets `key`'s value to `val` (`val != u32::MAX`); returns the previous value.
    #[inline]
    pub(crate) fn insert(&mut self, key: u64, val: u32) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = &mut self.slots[i];
            if s.val == EMPTY {
                *s = Slot { key, val };
                self.len += 1;
                // Load at most 1/2: a cold key's insert probes to the end of its run, and runs
                // grow as 1/(1-load)^2 (at 7/8 a footprint of 1.8 M keys cost 22 probes per cold
                // access).
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
                return None;
            }
            if s.key == key {
                return Some(std::mem::replace(&mut s.val, val));
            }
            i = (i + 1) & mask;
        }
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove(&mut self, key: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while self.slots[i].key != key || self.slots[i].val == EMPTY {
            if self.slots[i].val == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
        let old = self.slots[i].val;
        // Backward shift: move later members of the run into the hole when their home allows.
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while self.slots[j].val != EMPTY {
            let h = self.home(self.slots[j].key);
            // j may move to the hole iff its home is not cyclically in (hole, j].
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole].val = EMPTY;
        self.len -= 1;
        Some(old)
    }

    /// Every stored value, for renumbering.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut u32> {
        self.slots.iter_mut().filter(|s| s.val != EMPTY).map(|s| &mut s.val)
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let bits = 64 - self.shift + 1;
        let old = std::mem::replace(self, Self::with_log2(bits));
        for s in old.slots.into_iter().filter(|s| s.val != EMPTY) {
            self.insert(s.key, s.val);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_a_hashmap_under_inserts_and_removes() {
        let mut t = KeyTable::default();
        let mut m = HashMap::new();
        let mut x = iolab_core::rand::SplitMix64(3);
        for i in 0..200_000u32 {
            // Small key range so runs collide and removals shift entries back.
            let k = x.below(5000) << 20;
            if x.below(3) == 0 {
                assert_eq!(t.remove(k), m.remove(&k), "remove {k} at {i}");
            } else {
                assert_eq!(t.insert(k, i), m.insert(k, i), "insert {k} at {i}");
            }
            assert_eq!(t.len(), m.len());
        }
        let mut vals: Vec<u32> = t.values_mut().map(|v| *v).collect();
        let mut want: Vec<u32> = m.values().copied().collect();
        vals.sort_unstable();
        want.sort_unstable();
        assert_eq!(vals, want);
    }
}
