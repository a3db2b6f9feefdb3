//! Block-size choice per I/O, as fio's `get_next_buflen` (io_u.c) does it.
//!
//! * `bs` (min == max): that size, no draw.
//! * `bsrange=min-max`: `min + max · r/(R+1)` from the direction's own Tausworthe state,
//!   rounded down to a multiple of `min` (unless `bs_unaligned`) and capped at `max`; so for
//!   `4k-16k` each of 4k, 8k, 12k, 16k has probability 1/4.
//! * `bssplit`: entries sorted by share, smallest first (fio's `bs_cmp` qsort in options.c
//!   `str_bssplit_cb`; glibc's qsort is a stable merge sort here); walk them adding each share
//!   to a running total and take the first entry with `r / total ≤ R / 100`.
//!
//! A candidate that does not fit before the end of the region is redrawn (`io_u_fits`).

use iolab_core::rand::FioRand;
use iolab_job::BlockSizes;

#[derive(Clone, Debug)]
pub struct BsGen {
    pub min: u64,
    pub max: u64,
    /// (bs, percent), sorted by percent, zero shares dropped.
    split: Vec<(u64, u64)>,
    unaligned: bool,
    rng: FioRand,
}

impl BsGen {
    pub fn new(bs: &BlockSizes, unaligned: bool, rng: FioRand) -> Self {
        let mut split: Vec<(u64, u64)> =
            bs.split.iter().filter(|s| s.perc > 0).map(|s| (s.bs, s.perc as u64)).collect();
        split.sort_by_key(|s| s.1);
        let (min, max) = if split.is_empty() {
            (bs.min, bs.max.max(bs.min))
        } else {
            let sizes = || split.iter().map(|s| s.0);
            (sizes().min().unwrap_or(bs.min), sizes().max().unwrap_or(bs.max))
        };
        BsGen { min, max, split, unaligned, rng }
    }

    /// The next length; `room` is the number of bytes left before the region's end from the
    /// chosen offset. Returns 0 when not even `min` fits.
    #[inline]
    pub fn next(&mut self, room: u64) -> u64 {
        if self.min == self.max {
            return self.min;
        }
        if room < self.min {
            return 0;
        }
        let rmax = self.rng.max();
        loop {
            let r = self.rng.next_u64();
            let mut buflen = 0;
            if self.split.is_empty() {
                buflen = self.min + (self.max as f64 * (r as f64 / (rmax as f64 + 1.0))) as u64;
            } else {
                let mut perc = 0u64;
                for &(bs, p) in &self.split {
                    buflen = bs;
                    perc += p;
                    if r / perc <= rmax / 100 && bs <= room {
                        break;
                    }
                }
            }
            if !self.unaligned {
                if self.min.is_power_of_two() {
                    buflen &= !(self.min - 1);
                } else {
                    buflen -= buflen % self.min;
                }
            }
            buflen = buflen.min(self.max);
            if buflen <= room && buflen > 0 {
                return buflen;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_job::BsSplit;

    #[test]
    fn bsrange_rounds_down_to_multiples_of_min() {
        let bs = BlockSizes { min: 4096, max: 16384, split: vec![] };
        let mut g = BsGen::new(&bs, false, FioRand::new(1, false));
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..40_000 {
            let l = g.next(u64::MAX);
            assert_eq!(l % 4096, 0);
            *counts.entry(l).or_insert(0u32) += 1;
        }
        assert_eq!(counts.keys().copied().collect::<Vec<_>>(), vec![4096, 8192, 12288, 16384]);
        for &c in counts.values() {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn bssplit_is_sorted_by_share_and_respects_room() {
        let bs = BlockSizes {
            min: 4096,
            max: 65536,
            split: vec![BsSplit { bs: 65536, perc: 60 }, BsSplit { bs: 4096, perc: 40 }],
        };
        let mut g = BsGen::new(&bs, false, FioRand::new(1, false));
        assert_eq!(g.split[0], (4096, 40));
        for _ in 0..1000 {
            assert_eq!(g.next(8192), 4096);
        }
    }
}
