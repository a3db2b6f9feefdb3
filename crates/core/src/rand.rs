//! Seeded generators.
//!
//! fio's Tausworthe generators (`lib/rand.c`, `lib/rand.h`) are reproduced bit for bit, so that
//! iolab draws the same numbers fio draws from the same seed: `taus88` (L'Ecuyer 1996, period
//! 2^88, fio's default `random_generator=tausworthe`) and `taus258` (`tausworthe64`). They are
//! written here rather than taken from a crate because fidelity needs fio's exact seeding,
//! including its `(2^31) + (2^17) + (2^7)` start value, which in C is XOR, not a power (= 53).
//!
//! fio's `random_generator=lfsr` ([`FioLfsr`], lib/lfsr.c) is here too, bit for bit.
//!
//! For bulk work where fio fidelity does not matter (data buffers, Monte-Carlo checks) use
//! [`SplitMix64`], a small, fast, well-mixed generator.

/// fio's 32-bit combined Tausworthe generator (`struct taus88_state`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taus88 {
    s1: u32,
    s2: u32,
    s3: u32,
}

/// fio's `(2^31) + (2^17) + (2^7)`: C's `^` is XOR, so this is 29 + 19 + 5.
const FIO_SEED_START: u64 = (31 ^ 2) + (17 ^ 2) + (7 ^ 2);

#[inline]
fn seed_min(x: u64, m: u64) -> u64 {
    if x < m {
        x + m
    } else {
        x
    }
}

impl Taus88 {
    /// `__init_rand32(state, seed)`: only the low 32 bits of the seed are used, as in fio.
    pub fn new(seed: u64) -> Self {
        let seed = seed as u32;
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let s1 = seed_min(lcg(FIO_SEED_START as u32) as u64, 1) as u32;
        let s2 = seed_min(lcg(s1) as u64, 7) as u32;
        let s3 = seed_min(lcg(s2) as u64, 15) as u32;
        let mut t = Taus88 { s1, s2, s3 };
        for _ in 0..6 {
            t.next_u32();
        }
        t
    }

    /// `__rand32`.
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        #[inline(always)]
        fn taus(s: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
            ((s & c) << d) ^ (((s << a) ^ s) >> b)
        }
        self.s1 = taus(self.s1, 13, 19, 4294967294, 12);
        self.s2 = taus(self.s2, 2, 25, 4294967288, 4);
        self.s3 = taus(self.s3, 3, 11, 4294967280, 17);
        self.s1 ^ self.s2 ^ self.s3
    }

    /// `rand32_upto(state, end)`: a value in `0..=end`, fio's float scaling included.
    #[inline]
    pub fn upto(&mut self, end: u32) -> u32 {
        let r = self.next_u32();
        let end = end as u64 + 1;
        (end as f64 * (r as f64 / 4294967296.0)) as u32
    }

    /// `__rand_0_1`: (r + 1) / 2^32, in (0, 1].
    #[inline]
    pub fn next_f64_0_1(&mut self) -> f64 {
        (self.next_u32() as f64 + 1.0) / 4294967296.0
    }
}

/// fio's 64-bit Tausworthe generator (`struct taus258_state`, `random_generator=tausworthe64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taus258 {
    s: [u64; 5],
}

impl Taus258 {
    /// `__init_rand64(state, seed)`.
    pub fn new(seed: u64) -> Self {
        let lcg = |x: u64| x.wrapping_mul(6906969069) ^ seed;
        let s1 = seed_min(lcg(FIO_SEED_START), 1);
        let s2 = seed_min(lcg(s1), 7);
        let s3 = seed_min(lcg(s2), 15);
        let s4 = seed_min(lcg(s3), 33);
        let s5 = seed_min(lcg(s4), 49);
        let mut t = Taus258 { s: [s1, s2, s3, s4, s5] };
        for _ in 0..6 {
            t.next_u64();
        }
        t
    }

    /// `__rand64`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let x = ((s[0] << 1) ^ s[0]) >> 53;
        s[0] = ((s[0] & 18446744073709551614) << 10) ^ x;
        let x = ((s[1] << 24) ^ s[1]) >> 50;
        s[1] = ((s[1] & 18446744073709551104) << 5) ^ x;
        let x = ((s[2] << 3) ^ s[2]) >> 23;
        s[2] = ((s[2] & 18446744073709547520) << 29) ^ x;
        let x = ((s[3] << 5) ^ s[3]) >> 24;
        s[3] = ((s[3] & 18446744073709420544) << 23) ^ x;
        let x = ((s[4] << 3) ^ s[4]) >> 33;
        s[4] = ((s[4] & 18446744073701163008) << 8) ^ x;
        s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
    }

    /// `rand64_upto(state, end)`: a value in `0..=end`.
    #[inline]
    pub fn upto(&mut self, end: u64) -> u64 {
        let r = self.next_u64();
        let end = end.wrapping_add(1) as f64;
        (end * (r as f64 / 18446744073709551616.0)) as u64
    }

    /// `__rand_0_1` for the 64-bit state.
    #[inline]
    pub fn next_f64_0_1(&mut self) -> f64 {
        (self.next_u64() as f64 + 1.0) / 18446744073709551616.0
    }
}

/// fio's `struct frand_state`: one of the two Tausworthe generators, chosen per file by
/// `random_generator` (and switched to 64-bit automatically for files over 2^32 blocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FioRand {
    Taus88(Taus88),
    Taus258(Taus258),
}

impl FioRand {
    /// `init_rand_seed(state, seed, use64)`.
    pub fn new(seed: u64, use64: bool) -> Self {
        if use64 {
            FioRand::Taus258(Taus258::new(seed))
        } else {
            FioRand::Taus88(Taus88::new(seed))
        }
    }

    /// `__rand`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        match self {
            FioRand::Taus88(t) => t.next_u32() as u64,
            FioRand::Taus258(t) => t.next_u64(),
        }
    }

    /// `rand_max(state)`.
    pub fn max(&self) -> u64 {
        match self {
            FioRand::Taus88(_) => u32::MAX as u64,
            FioRand::Taus258(_) => u64::MAX,
        }
    }

    /// `rand_between(state, start, end)`, both inclusive.
    #[inline]
    pub fn between(&mut self, start: u64, end: u64) -> u64 {
        match self {
            FioRand::Taus88(t) => start + t.upto((end - start) as u32) as u64,
            FioRand::Taus258(t) => start + t.upto(end - start),
        }
    }

    /// `__rand_0_1`.
    #[inline]
    pub fn next_f64_0_1(&mut self) -> f64 {
        match self {
            FioRand::Taus88(t) => t.next_f64_0_1(),
            FioRand::Taus258(t) => t.next_f64_0_1(),
        }
    }
}

/// Feedback masks of maximal-length XNOR LFSRs of 3..=63 bits (bit `t − 1` set for each tap
/// `t`), from the published tap table fio's lib/lfsr.c cites ("LFSRtaps", after Xilinx
/// XAPP 052). Index `i` is the `(i + 3)`-bit register.
const LFSR_MASKS: [u64; 61] = [
    0x6,
    0xc,
    0x14,
    0x30,
    0x60,
    0xb8,
    0x110,
    0x240,
    0x500,
    0x829,
    0x100d,
    0x2015,
    0x6000,
    0xd008,
    0x12000,
    0x20400,
    0x40023,
    0x90000,
    0x140000,
    0x300000,
    0x420000,
    0xe10000,
    0x1200000,
    0x2000023,
    0x4000013,
    0x9000000,
    0x14000000,
    0x20000029,
    0x48000000,
    0xd0000001,
    0x100080000,
    0x204000003,
    0x500000000,
    0x801000000,
    0x100000001f,
    0x2000000031,
    0x4400000000,
    0xa000140000,
    0x12000000000,
    0x300000c0000,
    0x63000000000,
    0xc0000030000,
    0x1b0000000000,
    0x300003000000,
    0x420000000000,
    0xc00000180000,
    0x1008000000000,
    0x3000000c00000,
    0x6000c00000000,
    0x9000000000000,
    0x18003000000000,
    0x30000000030000,
    0x40000040000000,
    0xc0000600000000,
    0x102000000000000,
    0x200004000000000,
    0x600003000000000,
    0xc00000000000000,
    0x1800300000000000,
    0x3000000000000030,
    0x6000000000000000,
];

/// fio's `random_generator=lfsr` (lib/lfsr.c): a maximal-length LFSR over the smallest
/// register with `2^bits > n`, stepping past values `>= n`, so each of `0..n` comes out
/// exactly once per pass without a random map. fio always builds it with `spin = 0`, whose
/// `prepare_spin` leaves a cycle length of 1: the very first value is taken after two steps,
/// every later one after one. Reproduced here bit for bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FioLfsr {
    xormask: u64,
    last_val: u64,
    cached_bit: u64,
    max_val: u64,
    num_vals: u64,
    cycle_length: u64,
}

impl FioLfsr {
    /// `lfsr_init(fl, n, seed, 0)`; `None` when `n` needs more than 63 bits or the seed is
    /// the register's forbidden all-ones state.
    pub fn new(n: u64, seed: u64) -> Option<Self> {
        let bits = (3..64).find(|&i| (1u64 << i) > n)?;
        let mut l = FioLfsr {
            xormask: LFSR_MASKS[bits - 3],
            last_val: 0,
            cached_bit: 1u64 << (bits - 1),
            max_val: n.wrapping_sub(1),
            num_vals: 0,
            cycle_length: 0,
        };
        l.reset(seed).then_some(l)
    }

    /// `lfsr_reset`: start a new pass from `seed`; false for the all-ones state.
    pub fn reset(&mut self, seed: u64) -> bool {
        let mask = (self.cached_bit << 1) - 1;
        self.num_vals = 0;
        self.last_val = seed & mask;
        // prepare_spin(0): no sub-cycle, then "cycle_length++" for the first value only.
        self.cycle_length = 1;
        self.last_val != mask
    }

    #[inline]
    fn step(&mut self) {
        let v = self.last_val;
        self.last_val = ((v >> 1) | self.cached_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
    }

    /// `lfsr_next`: the next value in `0..n`, `None` once all `n` have been produced.
    #[inline]
    pub fn next_val(&mut self) -> Option<u64> {
        let used = self.num_vals;
        self.num_vals += 1;
        if used > self.max_val {
            return None;
        }
        loop {
            if self.cycle_length != 0 {
                self.cycle_length -= 1;
                if self.cycle_length == 0 {
                    self.step();
                }
            }
            self.step();
            if self.last_val <= self.max_val {
                return Some(self.last_val);
            }
        }
    }
}

/// fio's `__hash_u64` (hash.h): a golden-ratio multiply, used to scramble hot blocks.
pub const GOLDEN_RATIO_64: u64 = 0x61C8864680B583EB;

/// `__hash_u64(x)`.
#[inline]
pub fn fio_hash_u64(x: u64) -> u64 {
    x.wrapping_mul(GOLDEN_RATIO_64)
}

/// SplitMix64 (Steele, Lea, Flood 2014): fast and statistically sound; used where fio
/// fidelity does not matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        mix64(self.0)
    }

    /// Uniform in [0, 1) with 53 bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift, bias below 2^-64 · n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// The SplitMix64 finaliser: a keyed hash of one word, for deriving independent seeds.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fio_seed_start_is_xor_not_power() {
        assert_eq!(FIO_SEED_START, 53);
    }

    #[test]
    fn taus88_respects_minimum_state() {
        // L'Ecuyer's erratum: s1 > 1, s2 > 7, s3 > 15 after seeding.
        for seed in [0u64, 1, 2, 0xffff_ffff, 1234] {
            let t = Taus88::new(seed);
            assert!(t.s1 > 1 && t.s2 > 7 && t.s3 > 15, "seed {seed}: {t:?}");
        }
    }

    #[test]
    fn taus88_upto_stays_in_range_and_is_deterministic() {
        let mut a = Taus88::new(0x89);
        let mut b = Taus88::new(0x89);
        for _ in 0..10_000 {
            let x = a.upto(99);
            assert!(x <= 99);
            assert_eq!(x, b.upto(99));
        }
    }

    #[test]
    fn taus258_upto_stays_in_range() {
        let mut a = Taus258::new(42);
        for _ in 0..10_000 {
            assert!(a.upto(1000) <= 1000);
        }
    }

    #[test]
    fn lfsr_produces_each_value_once_per_pass() {
        for n in [5u64, 256, 1000, 4097] {
            let mut l = FioLfsr::new(n, 0xb189_9bed).unwrap();
            let mut seen = vec![false; n as usize];
            while let Some(v) = l.next_val() {
                assert!(!seen[v as usize], "n={n}: {v} twice");
                seen[v as usize] = true;
            }
            assert!(seen.iter().all(|&x| x), "n={n}");
        }
        assert!(FioLfsr::new(4, 7).is_none(), "all-ones seed of a 3-bit register");
    }

    #[test]
    fn splitmix_below_is_uniform_enough() {
        let mut r = SplitMix64(7);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[r.below(10) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}
