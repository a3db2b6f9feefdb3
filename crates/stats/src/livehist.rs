//! The live line's latency histogram: a log-linear histogram of completion latencies (16
//! sub-buckets per power of two, ≤ 6.25 % bucket width, the layout of fio's `plat` histogram in
//! stat.h with `FIO_IO_U_PLAT_BITS` = 4 instead of 6) in relaxed atomics, written by its one
//! worker and read by the progress thread, which takes differences between two reads to get
//! the last interval's p50/p99.
//!
//! Why not the recorder's HdrHistogram: reading that needs a copy made by the worker (~270 KiB
//! per histogram, `LiveCounters::snap_req`), a pause in the I/O loop every second. Here the
//! worker pays one bucket index (a leading-zero count and two shifts) and one relaxed
//! load/store per completion; the reader copies 976 counters.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Sub-buckets per power of two, as bits.
const SUB_BITS: u32 = 4;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets: values below 16 exactly, then 16 per power of two up to 2^64.
pub const BINS: usize = (SUB as usize) * (64 - SUB_BITS as usize + 1);

/// The bucket of `ns`.
#[inline]
pub fn bin(ns: u64) -> usize {
    if ns < SUB {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros();
    ((((e - SUB_BITS + 1) as u64) << SUB_BITS) | ((ns >> (e - SUB_BITS)) & (SUB - 1))) as usize
}

/// The smallest value of bucket `b` and the bucket's width.
pub fn bounds(b: usize) -> (u64, u64) {
    if b < SUB as usize {
        return (b as u64, 1);
    }
    let shift = (b as u32 >> SUB_BITS) - 1;
    ((SUB | (b as u64 & (SUB - 1))) << shift, 1u64 << shift)
}

/// One direction's live histogram (single writer: the worker that owns the recorder).
#[derive(Debug)]
pub struct LiveHist {
    bins: Box<[AtomicU64]>,
}

impl Default for LiveHist {
    fn default() -> Self {
        LiveHist { bins: (0..BINS).map(|_| AtomicU64::new(0)).collect() }
    }
}

impl LiveHist {
    /// `n` completions of latency `ns`. Only the owning worker calls this: a plain relaxed
    /// load and store, no read-modify-write.
    #[inline]
    pub fn add(&self, ns: u64, n: u64) {
        let c = &self.bins[bin(ns)];
        c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
    }

    /// Add every bucket's count into `into` (`BINS` long).
    pub fn read_into(&self, into: &mut [u64]) {
        for (o, c) in into.iter_mut().zip(self.bins.iter()) {
            *o = o.wrapping_add(c.load(Relaxed));
        }
    }
}

/// The latency (ns, the middle of its bucket) at quantile `q` (0..=1) of bucket counts
/// `counts`; `None` when they are all zero.
pub fn quantile(counts: &[u64], q: f64) -> Option<f64> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return None;
    }
    // The rank fio and HdrHistogram use: the smallest value with at least q·N at or below.
    let want = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0u64;
    for (b, &c) in counts.iter().enumerate() {
        seen += c;
        if seen >= want {
            let (lo, w) = bounds(b);
            return Some(lo as f64 + (w as f64 - 1.0) / 2.0);
        }
    }
    None
}

/// The last interval's read and write p50/p99 from the workers' cumulative histograms: each
/// step sums the clones' counts and takes the difference from the previous step.
#[derive(Debug, Default)]
pub struct LiveWindow {
    last: [Vec<u64>; 2],
}

/// p50 and p99 of one direction over the last interval, ns.
pub type LivePercentiles = Option<(f64, f64)>;

impl LiveWindow {
    /// Read `lives` (every clone's counters, finished ones included so their totals do not
    /// drop out of the sum) and return read and write (p50, p99) since the previous step.
    pub fn step<'a>(
        &mut self,
        lives: impl Iterator<Item = &'a crate::LiveCounters>,
    ) -> [LivePercentiles; 2] {
        let mut now = [vec![0u64; BINS], vec![0u64; BINS]];
        for l in lives {
            for (d, into) in now.iter_mut().enumerate() {
                l.clat_hist[d].read_into(into);
            }
        }
        let mut out = [None, None];
        for (d, cur) in now.into_iter().enumerate() {
            let last = &self.last[d];
            let delta: Vec<u64> = if last.len() == BINS {
                cur.iter().zip(last).map(|(c, l)| c.saturating_sub(*l)).collect()
            } else {
                cur.clone()
            };
            out[d] = quantile(&delta, 0.5).zip(quantile(&delta, 0.99));
            self.last[d] = cur;
        }
        out
    }
}

/// A latency for the live line: `850ns`, `85.2us`, `4.10ms`, `1.20s` (three significant
/// digits, fio's unit names without "sec").
pub fn fmt_latency(ns: f64) -> String {
    let (v, unit) = match ns {
        _ if ns >= 1e9 => (ns / 1e9, "s"),
        _ if ns >= 1e6 => (ns / 1e6, "ms"),
        _ if ns >= 1e3 => (ns / 1e3, "us"),
        _ => return format!("{ns:.0}ns"),
    };
    match v {
        _ if v >= 100.0 => format!("{v:.0}{unit}"),
        _ if v >= 10.0 => format!("{v:.1}{unit}"),
        _ => format!("{v:.2}{unit}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_u64() {
        let mut next = 0u64;
        for b in 0..BINS {
            let (lo, w) = bounds(b);
            assert_eq!(lo, next, "bucket {b}");
            assert_eq!(bin(lo), b);
            assert_eq!(bin(lo + (w - 1)), b);
            next = lo.wrapping_add(w);
        }
        assert_eq!(next, 0, "the last bucket ends at 2^64");
        assert_eq!(bin(u64::MAX), BINS - 1);
        // Width at most 1/16 of the bucket's start.
        assert_eq!(bounds(bin(1_000_000)), (983_040, 32_768));
    }

    #[test]
    fn quantiles_of_a_known_mix() {
        let h = LiveHist::default();
        // 98 completions at 100 µs, 2 at 5 ms: p50 100 µs, p99 5 ms (within a bucket).
        h.add(100_000, 98);
        h.add(5_000_000, 2);
        let mut c = vec![0; BINS];
        h.read_into(&mut c);
        let p50 = quantile(&c, 0.5).unwrap();
        let p99 = quantile(&c, 0.99).unwrap();
        assert!((p50 - 100_000.0).abs() / 100_000.0 < 0.035, "{p50}");
        assert!((p99 - 5_000_000.0).abs() / 5_000_000.0 < 0.035, "{p99}");
        assert_eq!(quantile(&[0; BINS], 0.5), None);
    }

    #[test]
    fn the_window_sees_only_the_last_interval() {
        let live = crate::LiveCounters::default();
        let mut w = LiveWindow::default();
        live.clat_hist[0].add(1_000_000, 100);
        let first = w.step(std::iter::once(&live));
        assert!(first[0].is_some_and(|(p50, _)| (p50 / 1e6 - 1.0).abs() < 0.035), "{first:?}");
        assert_eq!(first[1], None, "no writes");
        // Next interval: 50 µs reads only; the 1 ms ones are history.
        live.clat_hist[0].add(50_000, 10);
        let (p50, p99) = w.step(std::iter::once(&live))[0].unwrap();
        assert!((p50 / 50_000.0 - 1.0).abs() < 0.035 && (p99 / 50_000.0 - 1.0).abs() < 0.035);
        assert_eq!(w.step(std::iter::once(&live)), [None, None], "nothing new");
        assert_eq!(fmt_latency(850.0), "850ns");
        assert_eq!(fmt_latency(85_230.0), "85.2us");
        assert_eq!(fmt_latency(4_100_000.0), "4.10ms");
    }
}
