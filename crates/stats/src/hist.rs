//! Latency histograms: an HdrHistogram (Gil Tene's HdrHistogram, Rust crate `hdrhistogram`,
//! 3 significant digits, 1 ns .. 1 h) plus exact min, max, sum and sum of squares.
//!
//! fio keeps a log-linear histogram with 64 sub-buckets per power of two (stat.h,
//! `FIO_IO_U_PLAT_BITS`, ≈0.78 % error) and Welford's running mean/variance (stat.c
//! `add_stat_sample`). iolab keeps a finer histogram (≤0.1 % error) for percentiles and exact
//! integer sums for the mean and standard deviation, so both merge exactly across workers, jobs
//! and groups. [`LatStats`] is the serializable summary; it carries the non-empty histogram
//! buckets so a saved result can still be merged, re-percentiled or turned into fio's json+
//! `bins` without the live histogram.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Lowest value the histogram resolves (ns). 0 is still recorded, in the first bucket.
pub const HIST_LOW_NS: u64 = 1;
/// Highest value the histogram resolves (ns): one hour. Larger values saturate at this value
/// in the histogram; min/max/mean stay exact.
pub const HIST_HIGH_NS: u64 = 3_600 * 1_000_000_000;
/// Significant decimal digits kept by the histogram.
pub const HIST_SIGFIG: u8 = 3;

/// fio's default `percentile_list` (options.c, `percentile_list` default; stat.h
/// `FIO_IO_U_LIST_MAX_LEN`).
pub const FIO_DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// iolab's default list: fio's, plus 99.999.
pub const DEFAULT_PERCENTILES: [f64; 18] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99, 99.999,
];

/// A percentile is marked unreliable when fewer samples than this lie above it.
pub const MIN_TAIL_SAMPLES: u64 = 10;

fn new_histogram() -> Histogram<u64> {
    // Constant bounds that satisfy the crate's preconditions (1 ≤ low, 2·low ≤ high,
    // sigfig ≤ 5): this cannot fail, and no input reaches it.
    Histogram::new_with_bounds(HIST_LOW_NS, HIST_HIGH_NS, HIST_SIGFIG)
        .expect("constant HdrHistogram bounds are valid")
}

/// One latency histogram with exact moments. Recording is a few ns and never allocates.
#[derive(Clone, Debug)]
pub struct LatHist {
    h: Histogram<u64>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: u128,
}

impl Default for LatHist {
    fn default() -> Self {
        Self::new()
    }
}

impl LatHist {
    /// An empty histogram (allocates its ~270 KiB bucket array once, here).
    pub fn new() -> Self {
        LatHist { h: new_histogram(), n: 0, min: u64::MAX, max: 0, sum: 0, sum_sq: 0 }
    }

    /// Record one latency in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.h.saturating_record(ns);
        self.n += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128;
        self.sum_sq += (ns as u128) * (ns as u128);
    }

    /// Record `count` samples of the same latency: exactly `count` calls of
    /// [`LatHist::record`] (integer sums), in one histogram update.
    #[inline]
    pub fn record_n(&mut self, ns: u64, count: u64) {
        self.h.saturating_record_n(ns, count);
        self.n += count;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128 * count as u128;
        self.sum_sq += (ns as u128) * (ns as u128) * count as u128;
    }

    /// Add `other` into `self`; exact (same bucket layout, integer sums).
    pub fn merge(&mut self, other: &LatHist) {
        // Both histograms share the constant bounds above, so adding cannot fail; should it,
        // fall back to re-recording bucket by bucket, which is equally exact.
        if self.h.add(&other.h).is_err() {
            for v in other.h.iter_recorded() {
                self.h.saturating_record_n(v.value_iterated_to(), v.count_at_value());
            }
        }
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// The same samples with every value multiplied by `f` (a clock found running at the
    /// wrong rate after the fact): buckets are re-recorded at their scaled value, the moments
    /// are scaled exactly enough for a mean and deviation.
    pub fn scaled(&self, f: f64) -> LatHist {
        let sc = |v: u64| (v as f64 * f).round() as u64;
        let mut out = LatHist::new();
        for v in self.h.iter_recorded() {
            out.h.saturating_record_n(sc(v.value_iterated_to()), v.count_at_value());
        }
        out.n = self.n;
        (out.min, out.max) = if self.n == 0 { (u64::MAX, 0) } else { (sc(self.min), sc(self.max)) };
        out.sum = (self.sum as f64 * f) as u128;
        out.sum_sq = (self.sum_sq as f64 * f * f) as u128;
        out
    }

    /// The underlying HdrHistogram (for callers that want its iterators).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.h
    }

    /// The serializable summary with the given percentiles (in percent, e.g. 99.9).
    pub fn to_stats(&self, percentiles: &[f64]) -> LatStats {
        let buckets =
            self.h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        LatStats::from_parts(
            self.n,
            self.min,
            self.max,
            self.sum,
            self.sum_sq,
            buckets,
            percentiles,
        )
    }
}

/// One reported percentile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// The percentile in percent (99.9).
    pub pct: f64,
    /// Latency in ns: the histogram's value at this quantile, clamped to the observed
    /// [min, max] (fio reports its bucket midpoint, which can exceed max: fio #1984).
    pub value: u64,
    /// How many samples lie above this percentile's rank (`n - ceil(n·pct/100)`).
    pub tail_samples: u64,
    /// False when `tail_samples` < [`MIN_TAIL_SAMPLES`]: the run was too short to resolve it.
    pub reliable: bool,
}

/// Serializable latency summary: exact moments, percentiles, and the non-empty histogram
/// buckets as `(highest equivalent value ns, count)` in ascending order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatStats {
    /// Number of samples (fio's `N`).
    pub n: u64,
    /// ns; 0 when `n == 0`.
    pub min: u64,
    /// ns.
    pub max: u64,
    /// ns.
    pub mean: f64,
    /// Sample standard deviation (n−1), ns, as fio's Welford code.
    pub stddev: f64,
    /// Exact sum of the samples, ns (kept for exact merging).
    pub sum: u128,
    /// Exact sum of squares, ns².
    pub sum_sq: u128,
    pub percentiles: Vec<Percentile>,
    /// Non-empty HdrHistogram buckets: (highest value equivalent to the bucket, count).
    pub buckets: Vec<(u64, u64)>,
}

impl LatStats {
    /// Build the summary from raw parts; computes mean, stddev and the percentiles.
    pub fn from_parts(
        n: u64,
        min: u64,
        max: u64,
        sum: u128,
        sum_sq: u128,
        buckets: Vec<(u64, u64)>,
        percentiles: &[f64],
    ) -> LatStats {
        if n == 0 {
            return LatStats::default();
        }
        let (mean, stddev) = mean_stddev(n, sum, sum_sq);
        let mut s =
            LatStats { n, min, max, mean, stddev, sum, sum_sq, percentiles: vec![], buckets };
        s.percentiles = percentiles.iter().map(|&p| s.percentile(p)).collect();
        s
    }

    /// The value at percentile `pct` (0..=100), computed as HdrHistogram's
    /// `value_at_quantile` does (first bucket whose cumulative count reaches
    /// `ceil(q·n)`), clamped to [min, max].
    pub fn percentile(&self, pct: f64) -> Percentile {
        let q = (pct / 100.0).clamp(0.0, 1.0);
        let rank = ((q * self.n as f64).ceil() as u64).max(1).min(self.n.max(1));
        let mut cum = 0u64;
        let mut value = self.max;
        for &(v, c) in &self.buckets {
            cum += c;
            if cum >= rank {
                value = v;
                break;
            }
        }
        // max/min rather than clamp: a hand-edited summary with min > max must not panic.
        let value = value.min(self.max).max(self.min.min(self.max));
        let tail_samples = self.n.saturating_sub(rank);
        Percentile { pct, value, tail_samples, reliable: tail_samples >= MIN_TAIL_SAMPLES }
    }

    /// The exact merge of two summaries (union of their samples), with new percentiles.
    pub fn merged(&self, other: &LatStats, percentiles: &[f64]) -> LatStats {
        if other.n == 0 {
            let mut s = self.clone();
            s.percentiles = percentiles.iter().map(|&p| s.percentile(p)).collect();
            return s;
        }
        if self.n == 0 {
            return other.merged(self, percentiles);
        }
        let mut buckets = Vec::with_capacity(self.buckets.len() + other.buckets.len());
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.buckets, &other.buckets);
        while i < a.len() || j < b.len() {
            if j >= b.len() || (i < a.len() && a[i].0 < b[j].0) {
                buckets.push(a[i]);
                i += 1;
            } else if i >= a.len() || b[j].0 < a[i].0 {
                buckets.push(b[j]);
                j += 1;
            } else {
                buckets.push((a[i].0, a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
        LatStats::from_parts(
            self.n + other.n,
            self.min.min(other.min),
            self.max.max(other.max),
            self.sum + other.sum,
            self.sum_sq + other.sum_sq,
            buckets,
            percentiles,
        )
    }

    /// Count of samples whose bucket value lies in `[lo, hi)` ns.
    pub fn count_between(&self, lo: u64, hi: u64) -> u64 {
        self.buckets.iter().filter(|(v, _)| *v >= lo && *v < hi).map(|(_, c)| c).sum()
    }
}

/// Mean and sample standard deviation from exact integer sums.
pub fn mean_stddev(n: u64, sum: u128, sum_sq: u128) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = sum as f64 / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    // n·Σx² − (Σx)² is exact in integers when it fits; it is ≥ 0 by Cauchy–Schwarz.
    let num = (n as u128).checked_mul(sum_sq).zip(sum.checked_mul(sum)).map(|(a, b)| a - b);
    let var = match num {
        Some(num) => num as f64 / (n as f64 * (n - 1) as f64),
        None => ((sum_sq as f64 - sum as f64 * mean) / (n - 1) as f64).max(0.0),
    };
    (mean, var.sqrt())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn percentile_matches_hdr_and_never_exceeds_max() {
        let mut h = LatHist::new();
        let mut x: u64 = 12345;
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            h.record(1_000 + (x >> 40) % 5_000_000);
        }
        let s = h.to_stats(&DEFAULT_PERCENTILES);
        for p in &s.percentiles {
            let hv = h.histogram().value_at_quantile(p.pct / 100.0);
            assert_eq!(p.value, hv.min(s.max), "p{}", p.pct);
            assert!(p.value <= s.max);
        }
        // The single-sample case: HdrHistogram's highest-equivalent exceeds the sample.
        let mut one = LatHist::new();
        one.record(123_456_789);
        let s1 = one.to_stats(&[50.0, 99.0]);
        assert!(one.histogram().value_at_quantile(0.99) > 123_456_789);
        assert_eq!(s1.percentiles[1].value, 123_456_789);
        assert!(!s1.percentiles[1].reliable);
    }

    #[test]
    fn tail_sample_counts() {
        let mut h = LatHist::new();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        let s = h.to_stats(&[99.99, 99.999]);
        assert_eq!(s.percentiles[0].tail_samples, 10);
        assert!(s.percentiles[0].reliable);
        assert_eq!(s.percentiles[1].tail_samples, 1);
        assert!(!s.percentiles[1].reliable);
    }

    #[test]
    fn mean_stddev_small() {
        let (m, sd) = mean_stddev(4, 2 + 4 + 4 + 6, 4 + 16 + 16 + 36);
        assert_eq!(m, 4.0);
        assert!((sd - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }
}
