//! The random map: which blocks of a file this pass has already touched, so that a random
//! pass touches each block exactly once (fio's default, `norandommap=0`).
//!
//! Semantics are fio's `lib/axmap.c` as used by `io_u.c` (`__get_next_rand_offset`,
//! `mark_random_map`): a drawn block that is already used is replaced by `axmap_next_free()`,
//! the first free block *after* it, wrapping to block 0; marking a multi-block I/O stops at
//! the first block already used (`axmap_set_nr`), which shortens the I/O.
//!
//! Written here rather than taken from a crate because both fio's exact search order and speed
//! matter: level 0 holds one bit per block; each higher level holds one bit per 64-bit word of
//! the level below, set when that word is full. Bits past the end of a level are kept set, so
//! "full" is simply `word == !0` and a search never needs a bounds test per bit. A search
//! walks up only as far as it needs to find a non-full word, so `next_free` is O(levels) and a
//! pass over n blocks costs O(n) in total.

/// A multi-level bitmap over `nr_bits` blocks.
#[derive(Clone, Debug)]
pub struct RandMap {
    nr_bits: u64,
    used: u64,
    levels: Vec<Vec<u64>>,
}

impl RandMap {
    pub fn new(nr_bits: u64) -> Self {
        let mut levels = Vec::new();
        let mut n = nr_bits.max(1);
        loop {
            let words = n.div_ceil(64) as usize;
            levels.push(vec![0u64; words]);
            if words == 1 {
                break;
            }
            n = words as u64;
        }
        let mut m = RandMap { nr_bits, used: 0, levels };
        m.pad();
        m
    }

    /// Number of blocks in the map.
    pub fn len(&self) -> u64 {
        self.nr_bits
    }

    pub fn is_empty(&self) -> bool {
        self.nr_bits == 0
    }

    /// Blocks marked used in this pass.
    pub fn used(&self) -> u64 {
        self.used
    }

    pub fn is_full(&self) -> bool {
        self.used >= self.nr_bits
    }

    /// Clear every block (the start of a new pass).
    pub fn reset(&mut self) {
        for l in &mut self.levels {
            l.iter_mut().for_each(|w| *w = 0);
        }
        self.used = 0;
        self.pad();
    }

    /// Mark the bits past the end of each level as set, so they read as "full".
    fn pad(&mut self) {
        let mut n = self.nr_bits;
        for li in 0..self.levels.len() {
            let words = self.levels[li].len() as u64;
            for bit in n..words * 64 {
                self.levels[li][(bit >> 6) as usize] |= 1u64 << (bit & 63);
            }
            // Words that became full through padding alone (only possible when n == 0).
            n = words;
        }
        // Propagate any full words upwards (a map of 0 bits is full everywhere).
        for li in 0..self.levels.len().saturating_sub(1) {
            for w in 0..self.levels[li].len() {
                if self.levels[li][w] == !0 {
                    self.levels[li + 1][w >> 6] |= 1u64 << (w & 63);
                }
            }
        }
    }

    #[inline]
    pub fn is_free(&self, bit: u64) -> bool {
        self.levels[0][(bit >> 6) as usize] & (1u64 << (bit & 63)) == 0
    }

    /// Mark one free block used.
    #[inline]
    pub fn set(&mut self, bit: u64) {
        let mut idx = bit;
        self.used += 1;
        for li in 0..self.levels.len() {
            let w = &mut self.levels[li][(idx >> 6) as usize];
            *w |= 1u64 << (idx & 63);
            if *w != !0 {
                return;
            }
            idx >>= 6;
        }
    }

    /// Mark up to `n` consecutive blocks from `start` (which must be free), stopping at the
    /// first used block or the end of the map; returns how many were marked (fio's
    /// `axmap_set_nr`).
    #[inline]
    pub fn set_run(&mut self, start: u64, n: u64) -> u64 {
        let mut k = 0;
        while k < n && start + k < self.nr_bits && self.is_free(start + k) {
            self.set(start + k);
            k += 1;
        }
        k
    }

    /// The first clear bit at or after `from` in `level`, if any before the level's end.
    fn first_clear(&self, level: usize, from: u64) -> Option<u64> {
        let l = &self.levels[level];
        let w = (from >> 6) as usize;
        if w >= l.len() {
            return None;
        }
        let m = !l[w] & (!0u64 << (from & 63));
        if m != 0 {
            return Some(((w as u64) << 6) | m.trailing_zeros() as u64);
        }
        if level + 1 == self.levels.len() {
            return None;
        }
        let j = self.first_clear(level + 1, w as u64 + 1)?;
        Some((j << 6) | (!l[j as usize]).trailing_zeros() as u64)
    }

    /// fio's `axmap_next_free(bit)`: the first free block after `bit`, wrapping to 0; `None`
    /// when the map is full.
    #[inline]
    pub fn next_free(&self, bit: u64) -> Option<u64> {
        if bit >= self.nr_bits {
            return None;
        }
        let next = if bit + 1 == self.nr_bits { 0 } else { bit + 1 };
        self.first_clear(0, next).or_else(|| if next != 0 { self.first_clear(0, 0) } else { None })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn next_free_wraps_and_skips_full_words() {
        let mut m = RandMap::new(200);
        for b in 0..200 {
            if b != 3 && b != 150 {
                m.set(b);
            }
        }
        assert_eq!(m.next_free(10), Some(150));
        assert_eq!(m.next_free(150), Some(3));
        assert_eq!(m.next_free(199), Some(3));
        m.set(3);
        assert_eq!(m.next_free(0), Some(150));
        m.set(150);
        assert!(m.is_full());
        assert_eq!(m.next_free(0), None);
        m.reset();
        assert_eq!(m.used(), 0);
        assert_eq!(m.next_free(199), Some(0));
    }

    #[test]
    fn deep_map_search_crosses_levels() {
        // 3 levels: 300_000 bits → 4688 words → 74 words → 2 words → 1 word.
        let n = 300_000u64;
        let mut m = RandMap::new(n);
        for b in 0..n - 1 {
            m.set(b);
        }
        assert_eq!(m.next_free(5), Some(n - 1));
        assert_eq!(m.next_free(n - 1), Some(n - 1));
        m.set(n - 1);
        assert_eq!(m.next_free(0), None);
    }

    #[test]
    fn set_run_stops_at_used_block() {
        let mut m = RandMap::new(64);
        m.set(10);
        assert_eq!(m.set_run(7, 8), 3);
        assert_eq!(m.set_run(62, 8), 2);
        assert_eq!(m.used(), 6);
    }
}
