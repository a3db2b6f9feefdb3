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
//!
//! Two fio generations seed differently ([`FioSeeds`], chosen per job with the iolab option
//! `iolab_fio_seeds=current|3.33` or for a whole run with `--fio-seeds=3.33`):
//! - current fio (≥ 3.35, commit 95282650 for #1502): every slot as above, and a file's
//!   zipf/pareto/normal seed is `jhash(name) · thread_number · seed[BLOCK_OFF]`;
//! - fio ≤ 3.34 (Debian 12's and Ubuntu 22.04's 3.33): with `randrepeat=1` the block-offset
//!   slot is overridden with `FIO_RANDSEED · thread_number` (init.c
//!   `td_fill_rand_seeds_internal`), so `randseed` does not move offsets. A file's
//!   zipf/pareto/normal seed is `jhash(name) · thread_number` while `randrepeat` holds, and
//!   the (32-bit) block-offset slot otherwise (filesetup.c `__init_rand_distribution`). A
//!   subtlety decides the `randseed` case: `setup_random_seeds` runs before `fixup_options`,
//!   which clears `randrepeat` when `randseed` is set. So with `randseed` and no
//!   `randrepeat=0`, offsets still use `FIO_RANDSEED · thread_number`, and the distributions
//!   are seeded from that overridden slot, not from `jhash` (checked against fio 3.33's
//!   `write_iolog` in `tests/fio_diff`).

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

/// Which fio generation's seeding a job reproduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FioSeeds {
    /// fio ≥ 3.35 (the default).
    #[default]
    Current,
    /// fio 3.33 (and every release up to 3.34).
    V3_33,
}

impl FioSeeds {
    /// `current` or `3.33` (also `3.34`, which seeds as 3.33); `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "current" => Some(FioSeeds::Current),
            "3.33" | "3.34" => Some(FioSeeds::V3_33),
            _ => None,
        }
    }

    /// Make `job` seed as this generation (what `--fio-seeds` does to every job).
    pub fn apply_to(self, job: &mut iolab_job::Job) {
        let raw = match self {
            FioSeeds::Current => "current",
            FioSeeds::V3_33 => "3.33",
        };
        job.set_fio_seeds(raw);
    }

    /// The generation a job asks for (`iolab_fio_seeds`, validated by the option registry).
    pub fn of_job(job: &iolab_job::Job) -> Self {
        Self::parse(&job.fio_seeds()).unwrap_or_default()
    }
}

/// How a file's zipf/pareto/normal generator is seeded (filesetup.c
/// `__init_rand_distribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DistSeed {
    /// fio ≥ 3.35: `jhash(name) · thread_number · seed[BLOCK_OFF]` (32-bit).
    Current,
    /// fio ≤ 3.34 with `randrepeat=1`: `jhash(name) · thread_number`.
    JhashThread,
    /// fio ≤ 3.34 once `randrepeat` is off (`randrepeat=0`, or cleared by `randseed`): the
    /// block-offset slot, truncated to 32 bits.
    BlockOffSlot,
}

/// The seed of a clone's buffer contents (`iolab_data::DataGen`): fixed per (`randseed`,
/// fio thread number), so a rerun writes the same bytes. The engine seeds its data with it
/// and the advice regenerates the same blocks from it, so both measure one stream.
pub fn data_seed(randseed: u64, thread_number: u32) -> u64 {
    iolab_core::rand::mix64(randseed ^ ((thread_number as u64) << 32))
}

/// The seeds of one job (one clone), indexed by [`Slot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSeeds {
    pub slots: [u64; NR_SLOTS],
    /// How a file's zipf/pareto/normal seed is formed.
    pub dist_seed: DistSeed,
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
        JobSeeds { slots: out, dist_seed: DistSeed::Current }
    }

    /// fio ≤ 3.34 (`td_fill_rand_seeds_internal`): as [`JobSeeds::repeatable`], except that
    /// with `randrepeat=1` the block-offset seed is `0xb1899bed · thread_number`. Debian and
    /// Ubuntu LTS still ship fio 3.33; this reproduces its random offsets.
    pub fn fio_3_33(randseed: u64, thread_number: u32, randrepeat: bool) -> Self {
        Self::fio_3_33_with(randseed, thread_number, randrepeat, false)
    }

    /// As [`JobSeeds::fio_3_33`], for a job that may also set `randseed` (`randseed_set`).
    pub fn fio_3_33_with(
        randseed: u64,
        thread_number: u32,
        randrepeat: bool,
        randseed_set: bool,
    ) -> Self {
        let mut s = Self::repeatable(randseed, thread_number);
        if randrepeat {
            s.slots[Slot::BlockOff as usize] = FIO_RANDSEED_3_33.wrapping_mul(thread_number as u64);
        }
        s.dist_seed = if randrepeat && !randseed_set {
            DistSeed::JhashThread
        } else {
            DistSeed::BlockOffSlot
        };
        s
    }

    /// The seeds fio of generation `gen` gives clone `clone` (thread `thread_number`,
    /// 1-based) of `job`: repeatable with `randrepeat=1` or a `randseed`, from the OS
    /// otherwise.
    ///
    /// fio ≤ 3.34: `numjobs` clones are copied from the first after its `fixup_options`
    /// cleared `randrepeat` for a `randseed` (init.c `add_job`), so with `randseed` only the
    /// first clone gets the `FIO_RANDSEED` offset override.
    pub fn for_job(job: &iolab_job::Job, clone: u32, thread_number: u32, gen: FioSeeds) -> Self {
        let tn = thread_number.max(1);
        if !(job.randrepeat || job.randseed_set) {
            return Self::from_os();
        }
        match gen {
            FioSeeds::Current => Self::repeatable(job.randseed, tn),
            FioSeeds::V3_33 => {
                let repeat = job.randrepeat && !(job.randseed_set && clone > 0);
                Self::fio_3_33_with(job.randseed, tn, repeat, job.randseed_set)
            }
        }
    }

    /// The 32-bit seed of a file's zipf/pareto/normal generator, from `jhash(file name)`.
    pub fn dist_seed_for(&self, jhash: u32, thread_number: u32) -> u32 {
        match self.dist_seed {
            DistSeed::Current => {
                jhash.wrapping_mul(thread_number).wrapping_mul(self.get(Slot::BlockOff) as u32)
            }
            DistSeed::JhashThread => jhash.wrapping_mul(thread_number),
            DistSeed::BlockOffSlot => self.get(Slot::BlockOff) as u32,
        }
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
        JobSeeds { slots: out, dist_seed: DistSeed::Current }
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
