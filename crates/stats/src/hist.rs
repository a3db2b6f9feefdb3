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

/// HdrHistogram's layout for [`HIST_LOW_NS`]..[`HIST_HIGH_NS`] at [`HIST_SIGFIG`] digits
/// (hdrhistogram 7.x `Histogram::new_with_bounds`): 2048 sub-buckets (the smallest power of two
/// ≥ 2·10³), unit magnitude 0 (low = 1), 32 buckets (2048·2³¹ > one hour), so
/// (32 + 1)·1024 counts. A test checks these against the crate's own histogram.
const SUB_HALF_MAG: u32 = 10;
const SUB_MASK: u64 = (1 << (SUB_HALF_MAG + 1)) - 1;
/// `leading_zero_count_base`: 64 − unit magnitude − sub-bucket half-count magnitude − 1.
const LZ_BASE: u32 = 64 - SUB_HALF_MAG - 1;
/// Number of counts (hdrhistogram `distinct_values`).
pub const HIST_COUNTS: usize = 33 << SUB_HALF_MAG;

/// hdrhistogram `index_for`: bucket = powers of two above bucket 0, sub-bucket = the value
/// shifted down by it; values whose index falls past the array saturate at the highest
/// trackable value's, as `saturating_record` does.
#[inline(always)]
fn index_of(v: u64) -> usize {
    let bucket = LZ_BASE - (v | SUB_MASK).leading_zeros();
    let sub = (v >> bucket) as usize;
    let i = ((bucket as usize) << SUB_HALF_MAG) + sub;
    if i < HIST_COUNTS {
        i
    } else {
        index_of_high()
    }
}

#[cold]
fn index_of_high() -> usize {
    index_of(HIST_HIGH_NS)
}

/// hdrhistogram `value_for(index)` (the lowest value of the bucket) and the highest value
/// equivalent to it (`highest_equivalent`), which is what its iterators report.
fn bucket_range(i: usize) -> (u64, u64) {
    let half = 1usize << SUB_HALF_MAG;
    let (bucket, sub) = match (i >> SUB_HALF_MAG).checked_sub(1) {
        Some(b) => (b as u32, (i & (half - 1)) + half),
        None => (0, i),
    };
    let lo = (sub as u64) << bucket;
    (lo, lo + (1u64 << bucket) - 1)
}

/// One latency histogram with exact moments. Recording is a few ns and never allocates.
///
/// The counts are HdrHistogram's array, bucket for bucket, kept here rather than in a
/// `hdrhistogram::Histogram` because its `saturating_record` costs ~60 instructions (its
/// own min/max/total and range checks, all duplicated by the exact moments below) where the
/// index and one add are ~10; the worker records 1–3 of these per I/O. [`LatHist::histogram`]
/// builds the crate's histogram from the counts when its iterators are wanted.
#[derive(Clone, Debug)]
pub struct LatHist {
    counts: Box<[u64]>,
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
        LatHist {
            counts: vec![0; HIST_COUNTS].into_boxed_slice(),
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0,
        }
    }

    /// Record one latency in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let i = index_of(ns);
        // `index_of` is below HIST_COUNTS, the array's length.
        if let Some(c) = self.counts.get_mut(i) {
            *c += 1;
        }
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
        if let Some(c) = self.counts.get_mut(index_of(ns)) {
            *c = c.saturating_add(count);
        }
        self.n += count;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128 * count as u128;
        self.sum_sq += (ns as u128) * (ns as u128) * count as u128;
    }

    /// Add `other` into `self`; exact (same bucket layout, integer sums).
    pub fn merge(&mut self, other: &LatHist) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
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

    /// Non-empty buckets as (index, count), ascending.
    fn recorded(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, c)| (i, *c))
    }

    /// The same samples with every value multiplied by `f` (a clock found running at the
    /// wrong rate after the fact): buckets are re-recorded at their scaled value, the moments
    /// are scaled exactly enough for a mean and deviation.
    pub fn scaled(&self, f: f64) -> LatHist {
        let sc = |v: u64| (v as f64 * f).round() as u64;
        let mut out = LatHist::new();
        for (i, c) in self.recorded() {
            let hi = bucket_range(i).1;
            if let Some(o) = out.counts.get_mut(index_of(sc(hi))) {
                *o = o.saturating_add(c);
            }
        }
        out.n = self.n;
        (out.min, out.max) = if self.n == 0 { (u64::MAX, 0) } else { (sc(self.min), sc(self.max)) };
        out.sum = (self.sum as f64 * f) as u128;
        out.sum_sq = (self.sum_sq as f64 * f * f) as u128;
        out
    }

    /// The counts as an HdrHistogram (for callers that want its iterators): each bucket's
    /// count recorded at its lowest value, so every count lands in the same bucket.
    pub fn histogram(&self) -> Histogram<u64> {
        let mut h = new_histogram();
        for (i, c) in self.recorded() {
            h.saturating_record_n(bucket_range(i).0, c);
        }
        h
    }

    /// The serializable summary with the given percentiles (in percent, e.g. 99.9).
    pub fn to_stats(&self, percentiles: &[f64]) -> LatStats {
        let buckets = self.recorded().map(|(i, c)| (bucket_range(i).1, c)).collect();
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

    /// The counts kept here are HdrHistogram's, bucket for bucket: the same samples recorded
    /// into the crate's histogram give the same (highest equivalent value, count) list, and
    /// the same percentiles, over 1 ns .. beyond the one-hour ceiling (saturated).
    #[test]
    fn buckets_match_hdrhistogram_bucket_for_bucket() {
        let mut ours = LatHist::new();
        let mut theirs = new_histogram();
        assert_eq!(theirs.distinct_values(), HIST_COUNTS);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values =
            vec![0, 1, 2047, 2048, 2049, 4095, 4096, HIST_HIGH_NS, HIST_HIGH_NS << 3, 1 << 52];
        for _ in 0..200_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Log-uniform over 2^0 .. 2^50 ns.
            values.push((x >> 14) >> (x >> 58));
        }
        for &v in &values {
            ours.record(v);
            theirs.saturating_record(v);
        }
        ours.record_n(77_777, 5);
        theirs.saturating_record_n(77_777, 5);
        let want: Vec<(u64, u64)> =
            theirs.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        let got = ours.to_stats(&[]).buckets;
        assert_eq!(got.len(), want.len());
        assert_eq!(got, want);
        let rebuilt = ours.histogram();
        for q in [0.01, 0.5, 0.9, 0.99, 0.999, 1.0] {
            assert_eq!(rebuilt.value_at_quantile(q), theirs.value_at_quantile(q), "q {q}");
        }
        assert_eq!(rebuilt.len(), values.len() as u64 + 5);
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
