//! Per-job random seeds, derived as fio derives them (init.c `setup_random_seeds`,
//! `td_fill_rand_seeds`; the slot order is fio.h's `FIO_RAND_*_OFF` enum).
//!
//! With `randrepeat=1` (the default) or an explicit `randseed`, fio multiplies the seed by
//! `0x9e370001` four times, then gives slot `i` the value `seed * thread_number + i`,
//! multiplying the seed again after each slot (all in wrapping 64-bit arithmetic). Each
//! generator of the job (block sizes per direction, rw mix, file choice, block offsets,
//! zones, poisson arrivals, ...) is seeded from its own slot, so changing one option does not
//! shift the draws of the others. With `randrepeat=0` and no `randseed`, fio takes the seeds
//! from the OS; so does iolab (and the stream is then not repeatable, as in fio).

/// fio's `FIO_RAND_*` slots, in fio's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Slot {
    BsRead = 0,
    BsWrite,
    BsTrim,
    Verify,
    Mix,
    File,
    BlockOff,
    FileSize,
    Trim,
    Buf,
    SeqRandRead,
    SeqRandWrite,
    SeqRandTrim,
    StartDelay,
    Dedupe,
    Poisson,
    Zone,
    Poisson2,
    Poisson3,
    PrioCmds,
    DedupeWorkingSetIx,
    Fdp,
    Sprandom,
    Wmode,
}

/// `FIO_RAND_NR_OFFS`.
pub const NR_SLOTS: usize = 24;

const FIO_SEED_MULT: u64 = 0x9e37_0001;
/// fio's `FIO_RANDSEED` (init.c), used for block offsets before 3.35.
const FIO_RANDSEED_3_33: u64 = 0xb189_9bed;

/// The seeds of one job (one clone), indexed by [`Slot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSeeds {
    pub slots: [u64; NR_SLOTS],
    /// fio ≤ 3.34 seeds a file's zipf/pareto/normal generator with `jhash(name) ·
    /// thread_number` only; since 3.35 the block-offset seed is multiplied in as well.
    pub legacy_dist_seed: bool,
}

impl JobSeeds {
    /// Repeatable seeds from `randseed` and fio's 1-based `thread_number`.
    pub fn repeatable(randseed: u64, thread_number: u32) -> Self {
        let mut seed = randseed;
        for _ in 0..4 {
            seed = seed.wrapping_mul(FIO_SEED_MULT);
        }
        let mut out = [0u64; NR_SLOTS];
        for (i, s) in out.iter_mut().enumerate() {
            *s = seed.wrapping_mul(thread_number as u64).wrapping_add(i as u64);
            seed = seed.wrapping_mul(FIO_SEED_MULT);
        }
        JobSeeds { slots: out, legacy_dist_seed: false }
    }

    /// fio ≤ 3.34 (`td_fill_rand_seeds_internal`): as [`JobSeeds::repeatable`], except that
    /// with `randrepeat=1` the block-offset seed is `0xb1899bed · thread_number`. Debian and
    /// Ubuntu LTS still ship fio 3.33; this reproduces its random offsets.
    pub fn fio_3_33(randseed: u64, thread_number: u32, randrepeat: bool) -> Self {
        let mut s = Self::repeatable(randseed, thread_number);
        if randrepeat {
            s.slots[Slot::BlockOff as usize] = FIO_RANDSEED_3_33.wrapping_mul(thread_number as u64);
            s.legacy_dist_seed = true;
        }
        s
    }

    /// Seeds from the OS, for `randrepeat=0` without `randseed` (not repeatable, like fio).
    pub fn from_os() -> Self {
        use std::collections::hash_map::RandomState;
        use std::hash::{BuildHasher, Hasher};
        let mut out = [0u64; NR_SLOTS];
        for (i, s) in out.iter_mut().enumerate() {
            let mut h = RandomState::new().build_hasher();
            h.write_usize(i);
            *s = h.finish();
        }
        JobSeeds { slots: out, legacy_dist_seed: false }
    }

    #[inline]
    pub fn get(&self, slot: Slot) -> u64 {
        self.slots[slot as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_differ_by_index_and_scale_with_thread_number() {
        let a = JobSeeds::repeatable(0x89, 1);
        let b = JobSeeds::repeatable(0x89, 2);
        assert_ne!(a, b);
        assert_eq!(Slot::Wmode as usize + 1, NR_SLOTS);
        // Slot 0 is `seed' * thread_number + 0` with seed' = 0x89 * M^4.
        let s0 = 0x89u64.wrapping_mul(FIO_SEED_MULT.wrapping_pow(4));
        assert_eq!(a.get(Slot::BsRead), s0);
        assert_eq!(b.get(Slot::BsRead), s0.wrapping_mul(2));
        assert_eq!(a.get(Slot::BsWrite), s0.wrapping_mul(FIO_SEED_MULT) + 1);
    }
}
