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
//! A candidate that does not fit before the end of the region is redrawn (`io_u_fits`), and
//! when not even the minimum fits the length is 0 (`get_next_buflen` returns 0): the file's
//! pass ends there, so a region that is not a multiple of `bs` leaves its tail untouched, as
//! in fio (`size=4097 bs=4096` does one I/O).

use iolab_core::rand::FioRand;
use iolab_job::BlockSizes;

/// Draws of one length before giving up on the random choice (see [`BsGen::next`]).
const MAX_REDRAWS: u32 = 10_000;

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
        if room < self.min {
            return 0;
        }
        if self.min == self.max {
            return self.min;
        }
        let rmax = self.rng.max();
        // fio redraws without bound; a range far wider than the room left (bsrange=4k-1t
        // near the end of a region) would then spin, so after many draws take the largest
        // aligned length that fits.
        for _ in 0..MAX_REDRAWS {
            let r = self.rng.next_u64();
            let mut buflen = 0;
            if self.split.is_empty() {
                let span = (self.max as f64 * (r as f64 / (rmax as f64 + 1.0))) as u64;
                buflen = self.min.saturating_add(span);
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
        let fit = room.min(self.max);
        if self.unaligned {
            fit
        } else {
            fit - fit % self.min
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_job::BsSplit;

    #[test]
    fn bsrange_rounds_down_to_multiples_of_min() {
        let bs = BlockSizes { min: 4096, max: 16384, split: vec![], ranged: false };
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
            ranged: false,
        };
        let mut g = BsGen::new(&bs, false, FioRand::new(1, false));
        assert_eq!(g.split[0], (4096, 40));
        for _ in 0..1000 {
            assert_eq!(g.next(8192), 4096);
        }
    }

    #[test]
    fn fixed_bs_that_does_not_fit_ends_the_pass() {
        let bs = BlockSizes { min: 4096, max: 4096, split: vec![], ranged: false };
        let mut g = BsGen::new(&bs, false, FioRand::new(1, false));
        assert_eq!(g.next(4097), 4096);
        assert_eq!(g.next(4095), 0);
        assert_eq!(g.next(1), 0);
    }

    #[test]
    fn huge_bsrange_near_the_end_still_fits() {
        let bs = BlockSizes { min: 4096, max: 1 << 62, split: vec![], ranged: false };
        let mut g = BsGen::new(&bs, false, FioRand::new(7, false));
        for room in [4096, 8191, 12288, 1 << 20] {
            let l = g.next(room);
            assert!(l >= 4096 && l <= room && l % 4096 == 0, "room {room}: {l}");
        }
    }
}
