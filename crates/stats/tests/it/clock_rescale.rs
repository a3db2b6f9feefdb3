//! The worker's end-of-job clock cross-check (engine clock.rs) rescales what a job recorded
//! when its clock ran at the wrong rate: `Recorder::rescale_time` must scale the latency
//! histograms (min, max, mean, percentiles), the interval series and its clat sums, so the
//! summary computed afterwards reads as if the right clock had been used.
#![allow(clippy::unwrap_used)]

use iolab_core::{IoDir, Nanos};
use iolab_stats::{summarize, Recorder};

#[test]
fn rescaled_recording_summarises_like_the_true_clock() {
    // A clock running 1.6x fast: 1000 reads of 4 KiB whose clat read 100..=1099 µs · 1.6.
    let mut fast = Recorder::new(Nanos::from_millis(500));
    for i in 0..1000u64 {
        let clat = Nanos((100_000 + i * 1000) * 16 / 10);
        fast.record_complete(IoDir::Read, 4096, None, clat, clat);
        if i % 250 == 249 {
            fast.tick_interval(Nanos::from_millis((i + 1) * 16 / 10));
        }
    }
    fast.finish_intervals(Nanos::from_millis(1600));
    fast.rescale_time(1.0 / 1.6);
    let j = summarize(&fast, Nanos::from_millis(1000), &[50.0, 99.0]);
    let c = &j.read.clat;
    assert_eq!(c.n, 1000);
    assert_eq!((c.min, c.max), (100_000, 1_099_000));
    assert!((c.mean - 599_500.0).abs() < 1.0, "{}", c.mean);
    // HdrHistogram buckets keep 3 significant digits: the median lands within 0.1 %.
    let p50 = c.percentile(50.0).value as f64;
    assert!((p50 - 599_000.0).abs() < 600.0, "{p50}");
    // Ticks at 400 (before the first 500 ms boundary), 800, 1200 and 1600 ms by the fast
    // clock closed three intervals, which now end at the true 500, 750 and 1000 ms.
    let ends: Vec<u64> = fast.intervals().iter().map(|iv| iv.end_ns / 1_000_000).collect();
    assert_eq!(ends, vec![500, 750, 1000]);
    assert_eq!(j.read.total_ios, 1000);
    assert!((j.read.bw_bytes_per_sec() - 4_096_000.0).abs() < 1.0);
}
