//! Rank queries over a bitmap of access times: the counting structure behind the stack-distance
//! engine. One bit per time; a set bit is a key whose last access was at that time. The bitmap is
//! cut into 512-bit superblocks, each one 64-byte cache line, and a Fenwick tree (Fenwick, "A new
//! data structure for cumulative frequency tables", 1994) counts the set bits per superblock.
//! `rank(t)` is the tree's prefix over whole superblocks plus popcounts inside one cache line, so
//! an access touches one line of the bitmap and a tree 512× smaller than a per-time Fenwick tree
//! (it stays in L1/L2 where the per-time tree of Bennett & Kruskal's method missed the cache on
//! its lower levels). This is the "rank/select dictionary" layout of Vigna, "Broadword
//! implementation of rank/select queries", WEA 2008, with a Fenwick tree as the dynamic
//! first level.

const WORDS: usize = 8;
const SB_BITS: usize = WORDS * 64;

/// One superblock: eight words, one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Line([u64; WORDS]);

pub(crate) struct RankBits {
    lines: Vec<Line>,
    /// 1-based Fenwick tree over the set-bit counts of the lines below `open`.
    tree: Vec<u32>,
    /// The line bits are being appended to (the time frontier). Its count enters the tree only
    /// when [`RankBits::push`] moves past it, so appending a mark costs one OR instead
    /// of a tree walk; ranks inside or past it read its popcount directly.
    open: usize,
}

impl RankBits {
    /// A bitmap of at least `bits` zero bits.
    pub(crate) fn new(bits: usize) -> Self {
        let n = bits.div_ceil(SB_BITS).max(1);
        RankBits { lines: vec![Line::default(); n], tree: vec![0; n + 1], open: 0 }
    }

    /// A bitmap of at least `bits` bits with bits `0..ones` set (`ones <= bits`).
    pub(crate) fn with_prefix(bits: usize, ones: usize) -> Self {
        let mut r = Self::new(bits.max(ones));
        for (i, line) in r.lines.iter_mut().enumerate() {
            let lo = i * SB_BITS;
            if lo >= ones {
                break;
            }
            for (j, w) in line.0.iter_mut().enumerate() {
                let lo = lo + j * 64;
                *w = match ones.saturating_sub(lo) {
                    0 => 0,
                    n if n >= 64 => u64::MAX,
                    n => (1u64 << n) - 1,
                };
            }
        }
        // Linear Fenwick construction from the counts of the full lines; the line holding the
        // frontier (`ones`) stays open.
        let n = r.lines.len();
        r.open = ones / SB_BITS;
        for i in 1..=n {
            if i <= r.open {
                r.tree[i] += popcount(&r.lines[i - 1]);
            }
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                r.tree[j] += r.tree[i];
            }
        }
        r
    }

    /// Number of bits.
    pub(crate) fn len(&self) -> usize {
        self.lines.len() * SB_BITS
    }

    fn tree_add(&mut self, line: usize, delta: i32) {
        let n = self.tree.len();
        let mut k = line + 1;
        while k < n {
            self.tree[k] = self.tree[k].wrapping_add_signed(delta);
            k += k & k.wrapping_neg();
        }
    }

    /// Sets bit `i` (which must be clear); tests only, the engine appends with [`Self::push`].
    #[cfg(test)]
    pub(crate) fn set(&mut self, i: usize) {
        self.lines[i / SB_BITS].0[(i / 64) % WORDS] |= 1u64 << (i % 64);
        if i / SB_BITS < self.open {
            self.tree_add(i / SB_BITS, 1);
        }
    }

    /// Appends a mark at the frontier `i` (bits are appended in increasing order): lines the
    /// frontier has left are sealed into the tree, the open line takes the bit untreed.
    #[inline(always)]
    pub(crate) fn push(&mut self, i: usize) {
        let line = i / SB_BITS;
        debug_assert!(line >= self.open, "push({i}) behind the frontier line {}", self.open);
        if self.open < line {
            self.seal_to(line);
        }
        if let Some(l) = self.lines.get_mut(line) {
            l.0[(i / 64) % WORDS] |= 1u64 << (i % 64);
        }
    }

    /// Seals the lines before `line` into the tree (once per 512 pushes, out of the loop).
    #[inline(never)]
    fn seal_to(&mut self, line: usize) {
        while self.open < line {
            let c = popcount(&self.lines[self.open]);
            self.tree_add(self.open, c as i32);
            self.open += 1;
        }
    }

    /// Clears bit `i` (which must be set).
    #[inline]
    pub(crate) fn clear(&mut self, i: usize) {
        self.lines[i / SB_BITS].0[(i / 64) % WORDS] &= !(1u64 << (i % 64));
        if i / SB_BITS < self.open {
            self.tree_add(i / SB_BITS, -1);
        }
    }

    /// Starts loading the bitmap line holding bit `i` (a hint; no effect on results).
    #[inline]
    pub(crate) fn prefetch(&self, i: usize) {
        if let Some(l) = self.lines.get(i / SB_BITS) {
            super::table::prefetch_ptr(l as *const Line as *const i8);
        }
    }

    /// Set bits at positions `0..=i`.
    #[inline(always)]
    pub(crate) fn rank(&self, i: usize) -> u32 {
        let sb = i / SB_BITS;
        let mut s = 0u32;
        let mut k = sb.min(self.open);
        while k > 0 {
            s = s.wrapping_add(self.tree[k]);
            k &= k - 1;
        }
        // Lines between the sealed prefix and `sb` (only the open line, when `sb` is past it).
        for l in &self.lines[self.open.min(sb)..sb] {
            s += popcount(l);
        }
        s + rank_in_line(&self.lines[sb], i % SB_BITS)
    }

    /// The rank (`0..=i` inclusive) of every bit, as a closure over a snapshot of per-line
    /// prefix counts: O(1) per call, for renumbering all live times at once.
    pub(crate) fn static_rank(&self) -> impl Fn(usize) -> u32 + '_ {
        let mut base = Vec::with_capacity(self.lines.len());
        let mut acc = 0u32;
        for l in &self.lines {
            base.push(acc);
            acc += l.0.iter().map(|w| w.count_ones()).sum::<u32>();
        }
        move |i| base[i / SB_BITS] + rank_in_line(&self.lines[i / SB_BITS], i % SB_BITS)
    }
}

fn popcount(l: &Line) -> u32 {
    l.0.iter().map(|w| w.count_ones()).sum()
}

/// Set bits at positions `0..=b` of one line. The default x86-64 target has no `popcnt`, so
/// `count_ones` is a 15-instruction bit-twiddling sequence per word (a fifth of all the
/// instructions of the exact MRC); where the CPU has the instruction the same code runs compiled
/// with it (`is_x86_feature_detected!` reads a cached flag). Inside a caller compiled with
/// `popcnt` (the exact curve's batch loop) the call inlines.
#[inline]
fn rank_in_line(line: &Line, b: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has `popcnt`, the only feature `rank_in_line_popcnt` enables.
        return unsafe { rank_in_line_popcnt(line, b) };
    }
    rank_in_line_soft(line, b)
}

/// [`rank_in_line`] compiled with the `popcnt` instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn rank_in_line_popcnt(line: &Line, b: usize) -> u32 {
    rank_in_line_soft(line, b)
}

/// `BEFORE[w][j]`: word `j` of a line wholly counted when the rank's bit is in word `w`
/// (`j < w`).
static BEFORE: [[u64; WORDS]; WORDS] = {
    let mut t = [[0u64; WORDS]; WORDS];
    let mut w = 0;
    while w < WORDS {
        let mut j = 0;
        while j < w {
            t[w][j] = u64::MAX;
            j += 1;
        }
        w += 1;
    }
    t
};

/// The words before `b`'s word masked in whole by a row of [`BEFORE`] (no compare per word),
/// plus `b`'s own word up to `b`: a fixed nine-popcount sum, no branch on `b` for the
/// predictor to miss (masks built per word by compares were 80 instructions a rank).
#[inline(always)]
fn rank_in_line_soft(line: &Line, b: usize) -> u32 {
    let w = (b / 64) % WORDS;
    let last = u64::MAX >> (63 - b % 64);
    let before = &BEFORE[w];
    let mut s = (line.0[w] & last).count_ones();
    for (&x, &m) in line.0.iter().zip(before) {
        s += (x & m).count_ones();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_naive() {
        let marks = [0usize, 3, 63, 64, 511, 512, 700, 1500, 2047];
        let mut r = RankBits::new(2048);
        for &m in &marks {
            r.set(m);
        }
        let st = r.static_rank();
        for i in 0..2048 {
            let naive = marks.iter().filter(|&&m| m <= i).count() as u32;
            assert_eq!((r.rank(i), st(i)), (naive, naive), "at {i}");
        }
        drop(st);
        r.clear(700);
        assert_eq!(r.rank(2047), 8);
        assert_eq!(r.rank(699), 6);
    }

    #[test]
    fn pushes_at_the_frontier_match_naive() {
        // Append marks in order across lines, clearing some behind the frontier (sealed) and
        // some in the open line, as the stack-distance engine does.
        let mut r = RankBits::with_prefix(4096, 700);
        let mut naive: Vec<bool> = (0..4096).map(|i| i < 700).collect();
        for i in 700..3000 {
            r.push(i);
            naive[i] = true;
            for c in [i / 3, i - 1] {
                if naive[c] && c % 5 == 0 {
                    r.clear(c);
                    naive[c] = false;
                }
            }
            if i % 97 == 0 {
                for q in [0, i / 2, i - 1, i] {
                    let want = naive[..=q].iter().filter(|&&b| b).count() as u32;
                    assert_eq!(r.rank(q), want, "rank({q}) after push({i})");
                }
            }
        }
    }

    #[test]
    fn prefix_construction() {
        for ones in [0usize, 1, 63, 64, 65, 511, 512, 513, 1000] {
            let r = RankBits::with_prefix(1024, ones);
            assert!(r.len() >= 1024);
            for i in [0usize, 62, 63, 64, 511, 512, 999, 1023] {
                assert_eq!(r.rank(i) as usize, ones.min(i + 1), "ones {ones} at {i}");
            }
        }
    }

    /// The in-line rank without `popcnt` (the path of CPUs lacking it) and the dispatched one
    /// agree with a bit-by-bit count at every position of a line.
    #[test]
    fn in_line_rank_paths_match_naive() {
        let mut x = iolab_core::rand::SplitMix64(9);
        let line = Line(std::array::from_fn(|_| x.next_u64()));
        let bit = |i: usize| (line.0[i / 64] >> (i % 64)) & 1;
        let mut want = 0;
        for b in 0..SB_BITS {
            want += bit(b) as u32;
            assert_eq!(
                (rank_in_line_soft(&line, b), rank_in_line(&line, b)),
                (want, want),
                "bit {b}"
            );
        }
        assert!(want > 200 && want < 312, "{want}");
    }
}
