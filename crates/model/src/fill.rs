//! Cache-fill mathematics: how many reads it takes to fill a cache, with what spread, and
//! where an observation falls. Formulas and reference numbers: notes/caches-and-models.md §5
//! (coupon collector: E[T] = N·H_N, Var[T] = N²·Σ1/i² − N·H_N, Erdős–Rényi limit
//! P(T ≤ N ln N + cN) → e^{−e^{−c}}, filled fraction 1 − (1 − 1/N)^k; non-uniform access
//! D(k) = Σ 1 − (1 − p_i)^k and P(T ≤ k) ≈ Π (1 − (1 − p_i)^k), Flajolet–Gardy–Thimonier 1992;
//! working set W larger than the cache C: W·(H_W − H_{W−C}) reads to hold C distinct blocks).
//!
//! Patterns:
//! * `Uniform`: independent uniform draws over N entries (fio `norandommap`, or any workload
//!   without a random map): the coupon collector.
//! * `RandomMap`: fio's default random map hands out every block once per pass, so exactly N
//!   reads fill the cache and there is no spread.
//! * `Zipf(s)`: rank i drawn with probability ∝ 1/i^s. Ranks are grouped into bins of nearly
//!   equal probability (ratio ≤ 1 + 1e-3) so each evaluation is O(bins), not O(N).
//!
//! The Monte-Carlo check draws with SplitMix64 and Lemire's multiply-shift range reduction
//! into a bitmap, seeded, so it is reproducible.

use iolab_core::rand::SplitMix64;

/// Euler–Mascheroni constant.
pub const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// H_n = Σ_{i≤n} 1/i: summed exactly (backwards, for accuracy) up to 10^6, asymptotic beyond.
pub fn harmonic(n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    if n <= 1_000_000 {
        return (1..=n).rev().map(|i| 1.0 / i as f64).sum();
    }
    let x = n as f64;
    x.ln() + EULER_GAMMA + 1.0 / (2.0 * x) - 1.0 / (12.0 * x * x) + 1.0 / (120.0 * x.powi(4))
}

/// Σ_{i≤n} 1/i²: exact up to 10^6, then π²/6 − 1/n + 1/(2n²) − 1/(6n³).
pub fn sum_inv_squares(n: u64) -> f64 {
    if n <= 1_000_000 {
        return (1..=n).rev().map(|i| 1.0 / (i as f64 * i as f64)).sum();
    }
    let x = n as f64;
    std::f64::consts::PI.powi(2) / 6.0 - 1.0 / x + 1.0 / (2.0 * x * x) - 1.0 / (6.0 * x.powi(3))
}

/// How reads pick entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    Uniform,
    RandomMap,
    Zipf(f64),
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "uniform" | "norandommap" => Ok(Pattern::Uniform),
            "randommap" | "random_map" => Ok(Pattern::RandomMap),
            _ => match s.strip_prefix("zipf:") {
                Some(t) => match t.parse::<f64>() {
                    Ok(v) if v > 0.0 && v <= MAX_ZIPF_EXPONENT => Ok(Pattern::Zipf(v)),
                    _ => Err(format!(
                        "bad zipf exponent `{}` (expected a number > 0 and at most \
                         {MAX_ZIPF_EXPONENT})",
                        iolab_core::units::quote(t)
                    )),
                },
                None => Err(format!(
                    "unknown pattern `{}` (expected uniform, randommap or zipf:S, e.g. zipf:1.1)",
                    iolab_core::units::quote(s)
                )),
            },
        }
    }
}

/// Largest zipf exponent the model takes: beyond it the least likely of even a few thousand
/// entries has a probability below 1e-300 and every figure is an overflow.
pub const MAX_ZIPF_EXPONENT: f64 = 20.0;

/// Most zipf probability bins one model holds (each evaluation is O(bins)).
const MAX_BINS: usize = 100_000;

/// A model or a simulation that would not finish in reasonable time or memory.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FillError {
    #[error(
        "zipf:{s} over {n} entries: the least likely entry is read with probability {p_min:e}, \
         below what f64 resolves (1e-300); expected a smaller exponent or fewer entries"
    )]
    Underflow { n: u64, s: f64, p_min: f64 },
    #[error(
        "zipf:{s} over {n} entries needs about {bins} probability bins (at most {MAX_BINS}); \
         expected a smaller exponent or fewer entries"
    )]
    TooManyBins { n: u64, s: f64, bins: f64 },
}

/// What a Monte-Carlo check would cost, from [`Fill::monte_carlo_cost`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McCost {
    /// Random draws over all runs (each run stops at the fill or at the cap).
    pub draws: f64,
    /// Bytes held at once: the bitmap, plus the CDF table for zipf.
    pub bytes: f64,
}

/// The fill model for N entries under one pattern.
#[derive(Clone, Debug)]
pub struct Fill {
    pub n: u64,
    pub pattern: Pattern,
    /// (entries in the bin, ln(1 − p) for the access probability p of each): the logarithm
    /// is what every evaluation needs, so it is taken once.
    bins: Vec<(f64, f64)>,
}

impl Fill {
    /// The model, unbounded in time for extreme zipf inputs: use [`Fill::try_new`] for user
    /// input.
    pub fn new(n: u64, pattern: Pattern) -> Self {
        let n = n.max(1);
        let bins = match pattern {
            Pattern::Uniform | Pattern::RandomMap => vec![(n as f64, 1.0 / n as f64)],
            Pattern::Zipf(s) => zipf_bins(n, s),
        };
        let bins = bins.into_iter().map(|(c, p)| (c, f64::ln_1p(-p))).collect();
        Fill { n, pattern, bins }
    }

    /// As [`Fill::new`], refusing a zipf model whose probabilities underflow or whose bin
    /// table would be too large to evaluate quickly.
    pub fn try_new(n: u64, pattern: Pattern) -> Result<Self, FillError> {
        let n = n.max(1);
        if let Pattern::Zipf(s) = pattern {
            // Width-1 bins up to rank 1/((1+1e-3)^(1/s) - 1), then geometric bins.
            let growth = (1.0 + 1e-3f64).powf(1.0 / s) - 1.0;
            let head = (1.0 / growth).min(n as f64);
            let bins = head + ((n as f64 / head.max(1.0)).ln() / growth.ln_1p()).max(0.0);
            if bins > MAX_BINS as f64 {
                return Err(FillError::TooManyBins { n, s, bins: bins.ceil() });
            }
            let p_min = (n as f64).powf(-s) / generalized_harmonic(n, s);
            if p_min.is_nan() || p_min < 1e-300 {
                return Err(FillError::Underflow { n, s, p_min });
            }
        }
        Ok(Self::new(n, pattern))
    }

    /// The draws and memory [`Fill::monte_carlo`] would need for `runs` runs capped at `cap`
    /// draws, so a caller can refuse before starting.
    pub fn monte_carlo_cost(&self, runs: usize, cap: u64) -> McCost {
        let n = self.n as f64;
        let per_run = match self.pattern {
            Pattern::RandomMap => 0.0,
            _ => self.quantile(0.99).min(cap as f64),
        };
        let table = if matches!(self.pattern, Pattern::Zipf(_)) { 8.0 * n } else { 0.0 };
        McCost { draws: per_run * runs as f64, bytes: n / 8.0 + table }
    }

    /// Probability that a given read lands on rank `i` (1-based).
    pub fn p_rank(&self, i: u64) -> f64 {
        match self.pattern {
            Pattern::Uniform | Pattern::RandomMap => 1.0 / self.n as f64,
            Pattern::Zipf(s) => (i as f64).powf(-s) / generalized_harmonic(self.n, s),
        }
    }

    /// Expected fraction of entries filled after `k` reads.
    pub fn filled_fraction(&self, k: f64) -> f64 {
        if self.pattern == Pattern::RandomMap {
            return (k / self.n as f64).min(1.0);
        }
        let d: f64 = self.bins.iter().map(|&(c, l)| c * -f64::exp_m1(k * l)).sum();
        (d / self.n as f64).min(1.0)
    }

    /// P(every entry filled within `k` reads), T being the reads needed. Uses the independence
    /// (Poisson) approximation Π (1 − (1 − p_i)^k), accurate to O(1/N) for uniform draws.
    pub fn cdf(&self, k: f64) -> f64 {
        if self.pattern == Pattern::RandomMap {
            return if k >= self.n as f64 { 1.0 } else { 0.0 };
        }
        let mut ln = 0.0;
        for &(c, l) in &self.bins {
            let miss = (k * l).exp();
            if miss >= 1.0 {
                return 0.0;
            }
            ln += c * f64::ln_1p(-miss);
        }
        ln.exp()
    }

    /// The reads by which all entries are filled with probability `q`.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.pattern == Pattern::RandomMap {
            return self.n as f64;
        }
        if self.pattern == Pattern::Uniform {
            // Solve exp(−N (1 − 1/N)^k) = q exactly.
            let n = self.n as f64;
            return ((-q.ln()) / n).ln() / f64::ln_1p(-1.0 / n);
        }
        let (mut lo, mut hi) = (0.0, self.n as f64);
        while self.cdf(hi) < q {
            hi *= 2.0;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if self.cdf(mid) < q {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }

    /// E[T]: N·H_N for uniform (exact), N for a random map, the integral of 1 − P(T ≤ t)
    /// otherwise.
    pub fn expected_reads(&self) -> f64 {
        match self.pattern {
            Pattern::Uniform => self.n as f64 * harmonic(self.n),
            Pattern::RandomMap => self.n as f64,
            Pattern::Zipf(_) => self.moments().0,
        }
    }

    /// Standard deviation of T: √(N²·Σ1/i² − N·H_N) for uniform.
    pub fn stddev(&self) -> f64 {
        match self.pattern {
            Pattern::Uniform => {
                let n = self.n as f64;
                (n * n * sum_inv_squares(self.n) - n * harmonic(self.n)).max(0.0).sqrt()
            }
            Pattern::RandomMap => 0.0,
            Pattern::Zipf(_) => {
                let (m1, m2) = self.moments();
                (m2 - m1 * m1).max(0.0).sqrt()
            }
        }
    }

    /// (E[T], E[T²]) by integrating the survival function over quantile-bounded limits.
    fn moments(&self) -> (f64, f64) {
        let lo = self.quantile(1e-12);
        let hi = self.quantile(1.0 - 1e-12);
        let steps = 2000;
        let h = (hi - lo) / steps as f64;
        let (mut m1, mut m2) = (lo, lo * lo);
        for i in 0..steps {
            let a = lo + i as f64 * h;
            let b = a + h;
            let (sa, sb) = (1.0 - self.cdf(a), 1.0 - self.cdf(b));
            m1 += 0.5 * h * (sa + sb);
            m2 += 0.5 * h * (2.0 * a * sa + 2.0 * b * sb);
        }
        (m1, m2)
    }

    /// Where an observation of `reads` falls: P(T ≤ reads).
    pub fn percentile_of(&self, reads: f64) -> f64 {
        self.cdf(reads)
    }

    /// Seeded Monte-Carlo: `runs` fills, each drawing until every entry is hit or `cap` draws
    /// are spent. Returns the reads per run (`None` for a run that hit the cap).
    pub fn monte_carlo(&self, runs: usize, seed: u64, cap: u64) -> Vec<Option<u64>> {
        let n = self.n;
        let mut rng = SplitMix64(seed);
        let cdf = match self.pattern {
            Pattern::Zipf(s) => Some(zipf_cdf(n, s)),
            _ => None,
        };
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        // A stop request (SIGINT/SIGTERM) ends the runs early: fewer runs come back.
        (0..runs)
            .take_while(|_| !iolab_core::stop::requested())
            .map(|_| {
                if self.pattern == Pattern::RandomMap {
                    return Some(n);
                }
                bits.iter_mut().for_each(|w| *w = 0);
                let (mut filled, mut draws) = (0u64, 0u64);
                while filled < n {
                    if draws == cap {
                        return None;
                    }
                    draws += 1;
                    let i = match &cdf {
                        None => ((rng.next_u64() as u128 * n as u128) >> 64) as u64,
                        Some(c) => {
                            let u = rng.next_f64();
                            (c.partition_point(|&x| x < u) as u64).min(n - 1)
                        }
                    };
                    let (w, b) = ((i / 64) as usize, i % 64);
                    if bits[w] & (1 << b) == 0 {
                        bits[w] |= 1 << b;
                        filled += 1;
                    }
                }
                Some(draws)
            })
            .collect()
    }

    /// Fraction filled after `reads` draws in one seeded simulated run.
    pub fn simulate_filled(&self, reads: u64, seed: u64) -> f64 {
        if self.pattern == Pattern::RandomMap {
            return (reads as f64 / self.n as f64).min(1.0);
        }
        let n = self.n;
        let mut rng = SplitMix64(seed);
        let cdf = match self.pattern {
            Pattern::Zipf(s) => Some(zipf_cdf(n, s)),
            _ => None,
        };
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        let mut filled = 0u64;
        for _ in 0..reads {
            let i = match &cdf {
                None => ((rng.next_u64() as u128 * n as u128) >> 64) as u64,
                Some(c) => {
                    let u = rng.next_f64();
                    (c.partition_point(|&x| x < u) as u64).min(n - 1)
                }
            };
            let (w, b) = ((i / 64) as usize, i % 64);
            if bits[w] & (1 << b) == 0 {
                bits[w] |= 1 << b;
                filled += 1;
            }
        }
        filled as f64 / n as f64
    }
}

/// Σ_{i≤n} i^−s: summed exactly up to 10^3 terms, the rest by Euler–Maclaurin (error far
/// below f64 resolution there), so a 10^12-entry model costs the same as a 10^3 one.
pub fn generalized_harmonic(n: u64, s: f64) -> f64 {
    power_sum(1, n, s)
}

/// Σ_{a≤i≤b} i^−s.
fn power_sum(a: u64, b: u64, s: f64) -> f64 {
    const EXACT: u64 = 1_000;
    if a > b {
        return 0.0;
    }
    if b - a < EXACT {
        return (a..=b).rev().map(|i| (i as f64).powf(-s)).sum();
    }
    let m = a + EXACT - 1;
    let head: f64 = (a..=m).rev().map(|i| (i as f64).powf(-s)).sum();
    // Σ_{m<i≤b} f(i) = ∫_m^b f + (f(b) − f(m))/2 + (f1(b) − f1(m))/12 − (f3(b) − f3(m))/720,
    // f1 and f3 the first and third derivatives.
    let (x, y) = (m as f64, b as f64);
    let f = |t: f64| t.powf(-s);
    let d1 = |t: f64| -s * t.powf(-s - 1.0);
    let d3 = |t: f64| -s * (s + 1.0) * (s + 2.0) * t.powf(-s - 3.0);
    let integral = if (s - 1.0).abs() < 1e-12 {
        (y / x).ln()
    } else {
        (y.powf(1.0 - s) - x.powf(1.0 - s)) / (1.0 - s)
    };
    head + integral + (f(y) - f(x)) / 2.0 + (d1(y) - d1(x)) / 12.0 - (d3(y) - d3(x)) / 720.0
}

fn zipf_cdf(n: u64, s: f64) -> Vec<f64> {
    let h = generalized_harmonic(n, s);
    let mut acc = 0.0;
    (1..=n)
        .map(|i| {
            acc += (i as f64).powf(-s) / h;
            acc
        })
        .collect()
}

/// Ranks grouped into bins whose probabilities differ by at most a factor 1 + 1e-3.
fn zipf_bins(n: u64, s: f64) -> Vec<(f64, f64)> {
    let h = generalized_harmonic(n, s);
    let mut bins = Vec::new();
    let mut i = 1u64;
    while i <= n {
        // Largest j with (j/i)^s ≤ 1 + 1e-3.
        let j = ((i as f64) * (1.0 + 1e-3f64).powf(1.0 / s)).floor().max(i as f64) as u64;
        let j = j.min(n);
        let c = (j - i + 1) as f64;
        let p_mean = power_sum(i, j, s) / c / h;
        bins.push((c, p_mean));
        i = j + 1;
    }
    bins
}

/// A cache of `cache` entries under LRU with uniform reads over a working set of `working_set`
/// entries (≥ cache): the steady-state hit ratio and how long it takes to get there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Oversubscribed {
    pub cache: u64,
    pub working_set: u64,
}

impl Oversubscribed {
    /// Steady-state hit ratio C/W (uniform access makes every resident set equally good).
    pub fn steady_hit_ratio(&self) -> f64 {
        (self.cache as f64 / self.working_set as f64).min(1.0)
    }

    /// Expected reads until the cache holds C distinct entries: W·(H_W − H_{W−C}), or W·H_W
    /// when W = C.
    pub fn reads_to_full(&self) -> f64 {
        let (w, c) = (self.working_set, self.cache.min(self.working_set));
        w as f64 * (harmonic(w) - harmonic(w - c))
    }

    /// Expected reads until the hit ratio reaches `frac` of its steady state: the distinct
    /// count D(k) = W(1 − (1 − 1/W)^k) reaches frac·C.
    pub fn reads_to_hit_ratio(&self, frac: f64) -> f64 {
        let (w, c) = (self.working_set as f64, self.cache.min(self.working_set) as f64);
        let target = 1.0 - frac * c / w;
        if target <= 0.0 {
            return f64::INFINITY;
        }
        target.ln() / f64::ln_1p(-1.0 / w)
    }
}

/// Seconds to issue `reads` at `iops`.
pub fn seconds_at(reads: f64, iops: f64) -> f64 {
    reads / iops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_sums_match_direct_sums() {
        for s in [0.5, 1.0, 1.1, 3.0] {
            let direct: f64 = (1..=200_000u64).rev().map(|i| (i as f64).powf(-s)).sum();
            let em = generalized_harmonic(200_000, s);
            assert!((em - direct).abs() / direct < 1e-12, "s={s}: {em} vs {direct}");
        }
    }

    #[test]
    fn out_of_range_models_are_refused() {
        assert!(matches!(
            Fill::try_new(1_000_000_000, Pattern::Zipf(15.0)),
            Err(FillError::TooManyBins { .. })
        ));
        assert!(matches!(
            Fill::try_new(1u64 << 40, Pattern::Zipf(19.0)),
            Err(FillError::TooManyBins { .. } | FillError::Underflow { .. })
        ));
        assert!(Fill::try_new(1_000_000, Pattern::Zipf(1.1)).is_ok());
        let f = Fill::try_new(1_000_000_000_000, Pattern::Uniform).unwrap();
        let c = f.monte_carlo_cost(1, 1 << 40);
        assert_eq!(c.bytes, 1e12 / 8.0);
        assert!("zipf:1e300".parse::<Pattern>().is_err());
    }

    #[test]
    fn harmonic_asymptotic_matches_sum() {
        let x = 1_000_000u64;
        let exact = harmonic(x);
        let xf = x as f64;
        let asym = xf.ln() + EULER_GAMMA + 1.0 / (2.0 * xf) - 1.0 / (12.0 * xf * xf);
        assert!((exact - asym).abs() < 1e-9);
        assert!((harmonic(2_000_000) - harmonic(1_000_000) - 2f64.ln()).abs() < 1e-6);
    }

    #[test]
    fn pattern_parsing() {
        assert_eq!("zipf:1.1".parse::<Pattern>(), Ok(Pattern::Zipf(1.1)));
        assert_eq!("randommap".parse::<Pattern>(), Ok(Pattern::RandomMap));
        assert!("zipf:-1".parse::<Pattern>().is_err());
        assert!("pareto".parse::<Pattern>().unwrap_err().contains("expected uniform"));
    }
}
