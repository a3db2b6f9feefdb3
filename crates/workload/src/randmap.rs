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
//!
//! Speed: all levels live in one flat `Vec<u64>` (level `l` starts at `off[l]`), so the hot
//! path is one load with one bounds check instead of two indirections. The per-I/O question
//! "is the drawn block free, else which free block follows it" is answered by
//! [`RandMap::first_free_from`] with one masked word test: whether the drawn block is free is
//! a coin toss half-way through a pass, and as a branch it mispredicted on every other I/O.

/// fio's bitmaps are over at most 2^64 blocks: 64 → 11 levels of 64-way fan-out.
const MAX_LEVELS: usize = 11;

/// A multi-level bitmap over `nr_bits` blocks.
#[derive(Clone, Debug)]
pub struct RandMap {
    nr_bits: u64,
    used: u64,
    /// Every level's words, level 0 first.
    words: Vec<u64>,
    /// Word index where each level starts; `off[nlevels]` is `words.len()`.
    off: [usize; MAX_LEVELS + 1],
    nlevels: usize,
}

impl RandMap {
    pub fn new(nr_bits: u64) -> Self {
        Self::try_new(nr_bits).unwrap_or_else(|| std::alloc::handle_alloc_error(Self::layout(0)))
    }

    fn layout(words: usize) -> std::alloc::Layout {
        std::alloc::Layout::array::<u64>(words).unwrap_or(std::alloc::Layout::new::<u64>())
    }

    /// The map, or `None` when its memory cannot be allocated (fio: "failed allocating
    /// random map").
    pub fn try_new(nr_bits: u64) -> Option<Self> {
        let mut off = [0usize; MAX_LEVELS + 1];
        let mut nlevels = 0;
        let mut total = 0usize;
        let mut n = nr_bits.max(1);
        loop {
            let words = n.div_ceil(64) as usize;
            off[nlevels] = total;
            total += words;
            nlevels += 1;
            if words == 1 {
                break;
            }
            n = words as u64;
        }
        off[nlevels] = total;
        // Probe that the memory can be had (a region of 2^60 bytes cannot), then allocate
        // it zeroed, which for large maps is lazily zeroed pages and not a memset.
        Vec::<u64>::new().try_reserve_exact(total).ok()?;
        let words = vec![0u64; total];
        let mut m = RandMap { nr_bits, used: 0, words, off, nlevels };
        m.pad();
        Some(m)
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
        self.words.fill(0);
        self.used = 0;
        self.pad();
    }

    #[inline]
    fn level(&self, li: usize) -> &[u64] {
        &self.words[self.off[li]..self.off[li + 1]]
    }

    /// Mark the bits past the end of each level as set, so they read as "full".
    fn pad(&mut self) {
        let mut n = self.nr_bits;
        for li in 0..self.nlevels {
            let (o, words) = (self.off[li], (self.off[li + 1] - self.off[li]) as u64);
            for bit in n..words * 64 {
                self.words[o + (bit >> 6) as usize] |= 1u64 << (bit & 63);
            }
            n = words;
        }
        // Propagate any full words upwards (a map of 0 bits is full everywhere).
        for li in 0..self.nlevels.saturating_sub(1) {
            let (o, up) = (self.off[li], self.off[li + 1]);
            for w in 0..up - o {
                if self.words[o + w] == !0 {
                    self.words[up + (w >> 6)] |= 1u64 << (w & 63);
                }
            }
        }
    }

    #[inline]
    pub fn is_free(&self, bit: u64) -> bool {
        self.words[(bit >> 6) as usize] & (1u64 << (bit & 63)) == 0
    }

    /// Mark one free block used.
    #[inline]
    pub fn set(&mut self, bit: u64) {
        self.used += 1;
        let w = &mut self.words[(bit >> 6) as usize];
        *w |= 1u64 << (bit & 63);
        if *w != !0 {
            return;
        }
        self.set_upper(bit >> 6);
    }

    /// A level-0 word became full: mark it in the levels above, as far as words fill up.
    #[inline(never)]
    fn set_upper(&mut self, mut idx: u64) {
        for li in 1..self.nlevels {
            let w = &mut self.words[self.off[li] + (idx >> 6) as usize];
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
        let l = self.level(level);
        let w = (from >> 6) as usize;
        if w >= l.len() {
            return None;
        }
        let m = !l[w] & (!0u64 << (from & 63));
        if m != 0 {
            return Some(((w as u64) << 6) | m.trailing_zeros() as u64);
        }
        if level + 1 == self.nlevels {
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

    /// `bit` when it is free, else fio's `axmap_next_free(bit)`: what
    /// `__get_next_rand_offset` makes of a drawn block (`bit < len()`). Equal to the first
    /// free block at or after `bit`, wrapping to 0, so the common case is one masked test of
    /// `bit`'s own word, with no branch on whether `bit` itself is free.
    #[inline]
    pub fn first_free_from(&self, bit: u64) -> Option<u64> {
        let w = (bit >> 6) as usize;
        if let Some(&word) = self.words.get(w) {
            let m = !word & (!0u64 << (bit & 63));
            // Padding bits are set, so a clear bit in the word is a block of the map.
            if m != 0 {
                return Some(((w as u64) << 6) | m.trailing_zeros() as u64);
            }
        }
        self.first_free_slow(bit)
    }

    #[inline(never)]
    fn first_free_slow(&self, bit: u64) -> Option<u64> {
        if bit < self.nr_bits && self.is_free(bit) {
            return Some(bit);
        }
        self.next_free(bit)
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
    fn first_free_from_matches_fio_draw_semantics() {
        // Against a plain bool vector: free → the block itself, used → the first free block
        // after it, wrapping; over a 3-level map filled in a scrambled order to full.
        let n = 5_000u64;
        let mut m = RandMap::new(n);
        let mut used = vec![false; n as usize];
        let reference = |used: &[bool], b: u64| -> Option<u64> {
            (0..n).map(|i| (b + i) % n).find(|&i| !used[i as usize])
        };
        for step in 0..n {
            let b = step.wrapping_mul(2_654_435_761) % n;
            for probe in [b, (b * 7 + 13) % n, n - 1, 0] {
                assert_eq!(m.first_free_from(probe), reference(&used, probe), "probe {probe}");
            }
            let f = m.first_free_from(b).unwrap();
            m.set(f);
            used[f as usize] = true;
        }
        assert!(m.is_full());
        assert_eq!(m.first_free_from(17), None);
        assert_eq!(m.first_free_from(n), None);
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
