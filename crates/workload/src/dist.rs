//! Non-uniform block distributions (`random_distribution=`), reproduced from fio:
//!
//! * `zipf:θ` — fio's `lib/zipf.c` (`zipf_init`, `zipf_next`): the approximate inverse of Gray
//!   et al., "Quickly generating billion-record synthetic databases" (SIGMOD'94), with fio's
//!   limits kept on purpose (ζn summed over at most 10 M terms, a 32-bit uniform divided by
//!   2^32 − 1), then fio's hot-block scramble `(hash_u64(rank − 1) + rand_off) % n`.
//! * `pareto:h` — `pareto_next`: `(n − 1) · u^(ln h / ln(1 − h))`, scrambled the same way.
//! * `normal:dev` — `lib/gauss.c`: Irwin–Hall mean of 12 draws `r % (n + 1)`, plus uniform
//!   noise of width `⌈n·dev/100⌉`, scrambled.
//! * iolab's `zipf_exact=1` — exact Zipf by rejection-inversion (W. Hörmann, G. Derflinger,
//!   "Rejection-inversion to generate variates from monotone discrete distributions", ACM
//!   TOMACS 1996), written here so it runs on iolab's seeded generator with no allocation.
//!   Ranks are mapped to blocks by a *bijective* stride (`rank · s + rand_off mod n`, with
//!   `s` = fio's golden-ratio multiplier mod n made coprime to n), so every rank has its own
//!   block and block frequencies are exactly Zipf; fio's modulo hash is not a bijection for n
//!   not a power of two.
//!
//! `rand_off` is one Tausworthe draw from the per-file seed (so each job gets its own hot set,
//! as in fio) unless a `center` is given.

use iolab_core::rand::{fio_hash_u64, SplitMix64, Taus88};

/// fio's `ZIPF_MAX_GEN`.
pub const ZIPF_MAX_GEN: u64 = 10_000_000;
const FRAND32_MAX: f64 = u32::MAX as f64;

/// fio's `jhash` (hash.h) with its quirk kept: whole 12-byte blocks add one *byte* per word.
pub fn fio_jhash(key: &[u8], initval: u32) -> u32 {
    let mut a: u32;
    let mut b: u32;
    let mut c: u32;
    a = 0x61C8_8647u32.wrapping_add(key.len() as u32).wrapping_add(initval);
    b = a;
    c = a;
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(k[0] as u32);
        b = b.wrapping_add(k[4] as u32);
        c = c.wrapping_add(k[8] as u32);
        a = a.wrapping_sub(c) ^ c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c) ^ c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    let byte = |i: usize, sh: u32| -> u32 { k.get(i).map_or(0, |&x| (x as u32) << sh) };
    c = c.wrapping_add(byte(11, 24) + byte(10, 16) + byte(9, 8) + byte(8, 0));
    b = b.wrapping_add(byte(7, 24) + byte(6, 16) + byte(5, 8) + byte(4, 0));
    a = a.wrapping_add(byte(3, 24) + byte(2, 16) + byte(1, 8) + byte(0, 0));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(24));
    c
}

/// fio's ζ(n, θ) as `zipf_update` computes it: at most [`ZIPF_MAX_GEN`] terms.
pub fn fio_zetan(n: u64, theta: f64) -> f64 {
    let to_gen = n.min(ZIPF_MAX_GEN);
    let mut z = 0.0;
    for i in 0..to_gen {
        z += (1.0 / (i + 1) as f64).powf(theta);
    }
    z
}

/// How a drawn rank (0-based) becomes a block.
#[derive(Clone, Copy, Debug)]
pub enum Scramble {
    /// fio: `(hash_u64(rank) + rand_off) % n`.
    FioHash { rand_off: u64 },
    /// No hash (fio's `zipf_disable_hash`, used for file choice): `(rank + rand_off) % n`.
    None { rand_off: u64 },
    /// iolab's bijection: `(rank · stride + rand_off) % n`; build it with `rand_off < n`.
    Stride { stride: u64, rand_off: u64 },
}

impl Scramble {
    #[inline]
    pub fn apply(self, rank: u64, n: u64) -> u64 {
        match self {
            Scramble::FioHash { rand_off } => fio_hash_u64(rank).wrapping_add(rand_off) % n,
            Scramble::None { rand_off } => rank.wrapping_add(rand_off) % n,
            Scramble::Stride { stride, rand_off } => {
                if n <= u32::MAX as u64 {
                    // rank, stride < n < 2^32: the product fits in 64 bits (avoids a 128-bit
                    // division).
                    // `rand_off < n` (reduced when the scramble is built).
                    let v = rank * stride % n + rand_off;
                    if v >= n {
                        v - n
                    } else {
                        v
                    }
                } else {
                    ((rank as u128 * stride as u128 + rand_off as u128) % n as u128) as u64
                }
            }
        }
    }
}

/// fio's `shared_rand_init`: the generator and the per-file `rand_off`.
fn shared_init(nranges: u64, center: Option<f64>, seed: u32) -> (Taus88, u64) {
    let mut rng = Taus88::new(seed as u64);
    let mut rand_off = rng.next_u32() as u64;
    if let Some(c) = center {
        rand_off = (nranges as f64 * c) as u64;
    }
    (rng, rand_off)
}

/// A bijective stride for n: fio's multiplier mod n, moved to the next value coprime to n.
pub fn coprime_stride(n: u64) -> u64 {
    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    if n <= 1 {
        return 1;
    }
    let mut s = (iolab_core::rand::GOLDEN_RATIO_64 % n).max(1);
    while gcd(s, n) != 1 {
        s = s % (n - 1) + 1;
    }
    s
}

/// fio's Gray et al. zipf generator over `n` ranges.
#[derive(Clone, Debug)]
pub struct FioZipf {
    n: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
    two_cut: f64,
    rng: Taus88,
    pub scramble: Scramble,
}

impl FioZipf {
    /// `zipf_init(zs, nranges, theta, center, seed)`.
    pub fn new(n: u64, theta: f64, center: Option<f64>, seed: u32) -> Self {
        let (rng, rand_off) = shared_init(n, center, seed);
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        let zetan = fio_zetan(n, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        FioZipf {
            n,
            theta,
            zetan,
            alpha,
            eta,
            two_cut: 1.0 + 0.5f64.powf(theta),
            rng,
            scramble: Scramble::FioHash { rand_off },
        }
    }

    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// The 0-based rank of the next draw (before the scramble).
    #[inline]
    pub fn next_rank(&mut self) -> u64 {
        let u = self.rng.next_u32() as f64 / FRAND32_MAX;
        let z = u * self.zetan;
        let val = if z < 1.0 {
            1
        } else if z < self.two_cut {
            2
        } else {
            1 + (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        val - 1
    }

    /// `zipf_next`: the next block.
    #[inline]
    pub fn sample(&mut self) -> u64 {
        let r = self.next_rank();
        self.scramble.apply(r, self.n)
    }

    /// The probability fio's formula gives to 0-based rank `r` (ranks 0 and 1 come from the
    /// ζ cuts; higher ranks from the inverse), for checking a sample against the model.
    pub fn rank_probability(&self, r: u64) -> f64 {
        let cut1 = 1.0 / self.zetan;
        let cut2 = self.two_cut / self.zetan;
        // u in [0,1]; rank k (1-based, k ≥ 3 here) is produced where
        // k - 1 ≤ n·(η·u − η + 1)^α < k, i.e. u in [u(k−1), u(k)) above cut2.
        let u_of = |x: f64| -> f64 {
            // Solve n·(η u − η + 1)^α = x for u.
            ((x / self.n as f64).powf(1.0 / self.alpha) - 1.0 + self.eta) / self.eta
        };
        let clamp = |u: f64| u.clamp(cut2.min(1.0), 1.0);
        match r {
            0 => cut1.min(1.0),
            1 => (cut2.min(1.0) - cut1.min(1.0)).max(0.0),
            _ => {
                let k = (r + 1) as f64;
                (clamp(u_of(k)) - clamp(u_of(k - 1.0))).max(0.0)
            }
        }
    }
}

/// fio's pareto generator (`pareto_init`, `pareto_next`).
#[derive(Clone, Debug)]
pub struct FioPareto {
    n: u64,
    pow: f64,
    rng: Taus88,
    pub scramble: Scramble,
}

impl FioPareto {
    pub fn new(n: u64, h: f64, center: Option<f64>, seed: u32) -> Self {
        let (rng, rand_off) = shared_init(n, center, seed);
        FioPareto { n, pow: h.ln() / (1.0 - h).ln(), rng, scramble: Scramble::FioHash { rand_off } }
    }

    #[inline]
    pub fn next_rank(&mut self) -> u64 {
        let u = self.rng.next_u32() as f64 / FRAND32_MAX;
        ((self.n - 1) as f64 * u.powf(self.pow)) as u64
    }

    #[inline]
    pub fn sample(&mut self) -> u64 {
        let r = self.next_rank();
        self.scramble.apply(r, self.n)
    }
}

/// fio's `normal`/`gauss` generator (`lib/gauss.c`).
#[derive(Clone, Debug)]
pub struct FioGauss {
    n: u64,
    stddev: u64,
    rng: Taus88,
    pub scramble: Scramble,
}

impl FioGauss {
    pub fn new(n: u64, dev: f64, center: Option<f64>, seed: u32) -> Self {
        let rng = Taus88::new(seed as u64);
        let mut stddev = 0;
        if dev != 0.0 {
            stddev = ((n as f64 * dev) / 100.0).ceil() as u64;
            stddev = stddev.min(n / 2);
        }
        let rand_off = match center {
            None => 0,
            Some(c) => (n as f64 * (c - 0.5)) as i64 as u64,
        };
        FioGauss { n, stddev, rng, scramble: Scramble::FioHash { rand_off } }
    }

    #[inline]
    pub fn next_rank(&mut self) -> u64 {
        let mut sum: u64 = 0;
        for _ in 0..12 {
            sum += self.rng.next_u32() as u64 % (self.n + 1);
        }
        sum = sum.div_ceil(12);
        if self.stddev != 0 {
            // `gauss_dev`: an int in [−stddev/2, stddev/2).
            let r = self.rng.next_u32();
            let vr = (self.stddev as f64 * (r as f64 / (FRAND32_MAX + 1.0))) as i64;
            let mut dev = vr - (self.stddev / 2) as i64;
            while (dev + sum as i64) as u64 >= self.n {
                dev /= 2;
                if dev == 0 && sum >= self.n {
                    break;
                }
            }
            sum = (sum as i64 + dev) as u64;
        }
        sum
    }

    #[inline]
    pub fn sample(&mut self) -> u64 {
        let r = self.next_rank();
        self.scramble.apply(r, self.n)
    }
}

/// Exact Zipf(θ) over ranks 1..=n by rejection-inversion (Hörmann & Derflinger 1996).
#[derive(Clone, Debug)]
pub struct ExactZipf {
    n: u64,
    exponent: f64,
    h_x1: f64,
    h_n: f64,
    s: f64,
    /// `H(k + 0.5) − h(k)` for the first ranks, where most of the mass (and most rejection
    /// tests) falls: a table lookup instead of four transcendental calls.
    bound: Vec<f64>,
    rng: SplitMix64,
    pub scramble: Scramble,
}

const EXACT_ZIPF_TABLE: u64 = 256;

impl ExactZipf {
    pub fn new(n: u64, theta: f64, seed: u64, scramble: Scramble) -> Self {
        let mut z = ExactZipf {
            n,
            exponent: theta,
            h_x1: 0.0,
            h_n: 0.0,
            s: 0.0,
            bound: Vec::new(),
            rng: SplitMix64(seed),
            scramble,
        };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(n as f64 + 0.5);
        z.s = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z.bound = (0..=n.min(EXACT_ZIPF_TABLE))
            .map(|k| if k == 0 { 0.0 } else { z.h_integral(k as f64 + 0.5) - z.h(k as f64) })
            .collect();
        z
    }

    #[inline]
    fn h(&self, x: f64) -> f64 {
        (-self.exponent * x.ln()).exp()
    }

    #[inline]
    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper2((1.0 - self.exponent) * lx) * lx
    }

    #[inline]
    fn h_integral_inv(&self, x: f64) -> f64 {
        let mut t = x * (1.0 - self.exponent);
        if t < -1.0 {
            t = -1.0;
        }
        (helper1(t) * x).exp()
    }

    /// The next 0-based rank.
    #[inline]
    pub fn next_rank(&mut self) -> u64 {
        loop {
            let u = self.h_n + self.rng.next_f64() * (self.h_x1 - self.h_n);
            let x = self.h_integral_inv(u);
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            let kf = k as f64;
            if kf - x <= self.s {
                return k - 1;
            }
            let bound = match self.bound.get(k as usize) {
                Some(&b) => b,
                None => self.h_integral(kf + 0.5) - self.h(kf),
            };
            if u >= bound {
                return k - 1;
            }
        }
    }

    #[inline]
    pub fn sample(&mut self) -> u64 {
        let r = self.next_rank();
        self.scramble.apply(r, self.n)
    }
}

/// `ln(1 + x) / x`, accurate near 0.
#[inline]
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `(e^x − 1) / x`, accurate near 0.
#[inline]
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// The fraction of blocks fio's scramble `hash_u64(r) % n` can reach over r in 0..n, computed
/// exactly with a bitmap for n up to 2^26 (8 MiB); `None` above that.
pub fn fio_scramble_reachable(n: u64) -> Option<f64> {
    if n == 0 {
        return Some(1.0);
    }
    if n.is_power_of_two() {
        // An odd multiplier is a bijection modulo a power of two.
        return Some(1.0);
    }
    if n > 1 << 26 {
        return None;
    }
    let mut seen = vec![0u64; n.div_ceil(64) as usize];
    for r in 0..n {
        let b = fio_hash_u64(r) % n;
        seen[(b >> 6) as usize] |= 1 << (b & 63);
    }
    let hit: u64 = seen.iter().map(|w| w.count_ones() as u64).sum();
    Some(hit as f64 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachable_fraction_matches_the_measured_fio_figure() {
        // fio-behaviour.md §2.2: 87.5% of blocks reachable for n = 1,000,000.
        let f = fio_scramble_reachable(1_000_000).unwrap_or(0.0);
        assert!((f - 0.875).abs() < 0.001, "{f}");
        assert_eq!(fio_scramble_reachable(16384), Some(1.0));
    }

    #[test]
    fn power_of_two_scramble_is_a_stride_of_1003_for_16384_blocks() {
        // fio-behaviour.md §2.2: n = 16384 → stride G mod 16384 = 1003.
        let s = Scramble::FioHash { rand_off: 0 };
        assert_eq!(s.apply(1, 16384), 1003);
        assert_eq!(s.apply(2, 16384), 2006);
    }

    #[test]
    fn coprime_stride_is_a_bijection() {
        for n in [1u64, 2, 10, 1000, 786_432, 999_983] {
            let s = coprime_stride(n);
            let sc = Scramble::Stride { stride: s, rand_off: 7 % n };
            if n <= 1000 {
                let mut seen = vec![false; n as usize];
                for r in 0..n {
                    seen[sc.apply(r, n) as usize] = true;
                }
                assert!(seen.iter().all(|&x| x), "n={n}");
            }
            let g = |mut a: u64, mut b: u64| {
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                a
            };
            assert_eq!(g(s, n.max(1)), 1, "n={n} s={s}");
        }
    }

    #[test]
    fn jhash_is_deterministic_and_length_sensitive() {
        assert_ne!(fio_jhash(b"x.0.0", 0), fio_jhash(b"x.0.1", 0));
        assert_eq!(fio_jhash(b"", 0), 0x61C8_8647);
    }
}
