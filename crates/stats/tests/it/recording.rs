//! Integration tests for iolab-stats: exact merging, moments, percentiles, groups, diskstats
//! deltas, steady state, serde round trip.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use iolab_core::{IoDir, Nanos};
use iolab_stats::diskstats::{self, counter_delta};
use iolab_stats::steady::{max_deviation, slope};
use iolab_stats::*;

/// Deterministic 64-bit LCG so tests need no RNG crate.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
}

/// A lognormal-ish latency: 20 µs base with a long tail, in ns.
fn lat(r: &mut Lcg) -> u64 {
    let u = (r.next() % 1_000_000) as f64 / 1e6;
    (20_000.0 * (1.0 / (1.0 - u)).powf(0.8)) as u64
}

#[test]
fn merged_recorders_equal_the_union() {
    let mut parts: Vec<Recorder> = (0..3).map(|_| Recorder::default()).collect();
    let mut all = Recorder::default();
    let mut r = Lcg(42);
    for i in 0..30_000usize {
        let v = lat(&mut r) * (1 + (i % 3) as u64); // each worker gets a different distribution
        parts[i % 3].record_complete(IoDir::Read, 4096, Some(Nanos(700)), Nanos(v), Nanos(v + 700));
        all.record_complete(IoDir::Read, 4096, Some(Nanos(700)), Nanos(v), Nanos(v + 700));
    }
    let mut merged = parts[0].clone();
    merged.merge(&parts[1]);
    merged.merge(&parts[2]);
    let a = summarize(&merged, Nanos::from_secs(1), &DEFAULT_PERCENTILES);
    let b = summarize(&all, Nanos::from_secs(1), &DEFAULT_PERCENTILES);
    assert_eq!(a.read.clat, b.read.clat);
    assert_eq!(a.read.lat, b.read.lat);
    assert_eq!(a.read.io_bytes, 30_000 * 4096);

    // The same through saved summaries (the group path): LatStats merge is exact too.
    let jobs: Vec<JobResult> =
        parts.iter().map(|p| summarize(p, Nanos::from_secs(1), &DEFAULT_PERCENTILES)).collect();
    let refs: Vec<(usize, &JobResult)> = jobs.iter().enumerate().collect();
    let g = group(0, &refs, &DEFAULT_PERCENTILES);
    assert_eq!(g.read.stats.clat, b.read.clat);
    assert_eq!(g.read.stats.total_ios, 30_000);
    // And the values are HdrHistogram's own for the union.
    let mut h = LatHist::new();
    let mut r = Lcg(42);
    for i in 0..30_000usize {
        h.record(lat(&mut r) * (1 + (i % 3) as u64));
    }
    for p in &b.read.clat.percentiles {
        assert_eq!(p.value, h.histogram().value_at_quantile(p.pct / 100.0).min(b.read.clat.max));
    }
}

#[test]
fn mean_and_stddev_are_exact() {
    let mut r = Lcg(7);
    let vals: Vec<u64> = (0..50_000).map(|_| lat(&mut r)).collect();
    let mut h = LatHist::new();
    vals.iter().for_each(|&v| h.record(v));
    let s = h.to_stats(&[]);
    let n = vals.len() as f64;
    let mean = vals.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = vals.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
    assert!((s.mean - mean).abs() <= 1e-9 * mean, "{} vs {}", s.mean, mean);
    assert!((s.stddev - var.sqrt()).abs() <= 1e-9 * var.sqrt(), "{} vs {}", s.stddev, var.sqrt());
    assert_eq!(s.min, *vals.iter().min().unwrap());
    assert_eq!(s.max, *vals.iter().max().unwrap());
    assert_eq!(s.sum, vals.iter().map(|&v| v as u128).sum::<u128>());
}

#[test]
fn percentiles_never_exceed_max_and_count_their_tail() {
    for seed in 0..20u64 {
        let mut r = Lcg(seed);
        let n = 1 + (r.next() % 5000) as usize;
        let mut h = LatHist::new();
        for _ in 0..n {
            h.record(lat(&mut r));
        }
        let s = h.to_stats(&DEFAULT_PERCENTILES);
        let mut prev = 0;
        for p in &s.percentiles {
            assert!(p.value <= s.max && p.value >= s.min, "seed {seed} p{}", p.pct);
            assert!(p.value >= prev);
            prev = p.value;
            assert_eq!(p.reliable, p.tail_samples >= 10);
            assert!(p.tail_samples < n as u64);
        }
    }
}

#[test]
fn group_runtime_is_the_longest_job_and_window_spans_starts() {
    let mut a = Recorder::default();
    let mut b = Recorder::default();
    for _ in 0..1000 {
        a.record_complete(IoDir::Write, 8192, None, Nanos(1000), Nanos(1000));
    }
    for _ in 0..3000 {
        b.record_complete(IoDir::Write, 8192, None, Nanos(2000), Nanos(2000));
    }
    let ja = summarize(&a, Nanos::from_secs(1), &DEFAULT_PERCENTILES);
    let mut jb = summarize(&b, Nanos::from_secs(2), &DEFAULT_PERCENTILES);
    jb.start_ns = Nanos::from_secs(1).0;
    let g = group(0, &[(0, &ja), (1, &jb)], &DEFAULT_PERCENTILES);
    assert_eq!(g.runtime_ns, 2_000_000_000);
    assert_eq!(g.window_ns, 3_000_000_000);
    let w = &g.write;
    assert_eq!(w.stats.io_bytes, 4000 * 8192);
    assert_eq!(w.min_run_ns, 1_000_000_000);
    assert_eq!(w.max_run_ns, 2_000_000_000);
    assert!((w.agg_bw_bytes - 4000.0 * 8192.0 / 2.0).abs() < 1e-6);
    assert!((w.window_bw_bytes - 4000.0 * 8192.0 / 3.0).abs() < 1e-6);
    assert!((w.min_bw_bytes - 1000.0 * 8192.0).abs() < 1e-6);
    assert!((w.max_bw_bytes - 1500.0 * 8192.0).abs() < 1e-6);
    assert_eq!(w.stats.clat.n, 4000);
    assert!((w.stats.clat.mean - 1750.0).abs() < 1e-9);
    assert_eq!(g.read.stats.runtime_ns, 0);
}

#[test]
fn interval_samples_match_fio_units() {
    // 4 intervals of 500 ms: 100, 200, 100, 0 I/Os of 4 KiB; the idle one adds no sample.
    let mut r = Recorder::new(Nanos::from_millis(500));
    let mut t = 0u64;
    for (k, n) in [100u64, 200, 100, 0].iter().enumerate() {
        for i in 0..*n {
            r.record_complete(IoDir::Read, 4096, None, Nanos(50_000), Nanos(50_000));
            r.tick_interval(Nanos(t + i * 1000));
        }
        t = (k as u64 + 1) * 500_000_000;
        r.tick_interval(Nanos(t));
    }
    let j = summarize(&r, Nanos::from_secs(2), &DEFAULT_PERCENTILES);
    assert_eq!(j.read.series.len(), 4);
    assert_eq!(j.read.iops.samples, 3);
    assert_eq!(j.read.iops.min, 200.0);
    assert_eq!(j.read.iops.max, 400.0);
    assert_eq!(j.read.bw.max, 400.0 * 4.0); // KiB/s
    assert!((j.read.iops.mean - 800.0 / 3.0).abs() < 1e-9);
    assert_eq!(j.read.series[1].clat_mean_ns, 50_000.0);
}

const SNAP_A: &str = "\
   8       0 sda 1000 10 80000 500 2000 20 160000 900 0 1200 1400
 259       0 nvme0n1 4294967000 0 800 100 50 0 400 30 2 4294967200 4294967100 0 0 0 0
 253       0 dm-0 10 0 80 1 20 0 160 2 0 3 3 0 0 0 0 5 1
";
const SNAP_B: &str = "\
   8       0 sda 1500 12 120000 750 2600 26 208000 1200 1 1700 1950
 259       0 nvme0n1 704 0 1600 200 150 0 1200 90 0 104 204 0 0 0 0
 253       0 dm-0 10 0 80 1 20 0 160 2 0 3 3 0 0 0 0 9 2
";

#[test]
fn diskstats_deltas_across_a_32_bit_wrap() {
    let p = Path::new("snapshot");
    let a = diskstats::parse(SNAP_A, p).unwrap();
    let b = diskstats::parse(SNAP_B, p).unwrap();
    assert_eq!([a[0].nfields, a[1].nfields, a[2].nfields], [11, 15, 17]);
    let d = diskstats::deltas(&a, &b, 1_000_000_000);
    assert_eq!(d.len(), 3);
    let sda = &d[0];
    assert_eq!((sda.read_ios, sda.write_ios, sda.read_merges, sda.write_merges), (500, 600, 2, 6));
    assert_eq!((sda.read_ticks, sda.write_ticks, sda.in_queue), (250, 300, 550));
    assert_eq!(sda.util, 50.0);
    assert_eq!(sda.iostat.r_s, 500.0);
    assert_eq!(sda.iostat.r_await, 0.5);
    assert_eq!(sda.iostat.w_await, 0.5);
    assert_eq!(sda.iostat.aqu_sz, 0.55);
    assert_eq!(sda.iostat.rmb_s, 40_000.0 / 2048.0);
    // nvme0n1: reads went 4294967000 → 704 (wrapped at 2^32: +1000), io_ticks and
    // time_in_queue wrapped too.
    let nv = &d[1];
    assert_eq!(nv.read_ios, 1000);
    assert_eq!(nv.io_ticks, 200);
    assert_eq!(nv.in_queue, 400);
    assert_eq!(nv.util, 20.0);
    assert_eq!(counter_delta(4294967000, 704), 1000);
    assert_eq!(d[2].read_ios, 0);
}

#[test]
fn diskstats_errors_name_the_line() {
    let e = diskstats::parse("8 0 sda 1 2 3\n", Path::new("/proc/diskstats")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/proc/diskstats:1: expected 14, 18 or 20 columns (major minor name + 11/15/17 counters), found 6"
    );
    let text = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 x 4 5 6 7 8 9 10 11\n";
    let e = diskstats::parse(text, Path::new("d")).unwrap_err();
    assert_eq!(e.to_string(), "d:2: column 6 'x' is not an unsigned integer");
}

#[test]
fn steady_state_on_synthetic_series() {
    let mut r = Lcg(3);
    // Ramp for 20 samples (1000 → 10000 IOPS), then flat 10000 ± 3 %.
    let series: Vec<f64> = (0..60)
        .map(|i| {
            let noise = ((r.next() % 601) as f64 - 300.0) / 10_000.0; // ±3 %
            let base = if i < 20 { 1000.0 + 450.0 * i as f64 } else { 10_000.0 };
            base * (1.0 + noise)
        })
        .collect();
    let dev = SsCriterion::parse("iops:10%", iolab_core::units::KbBase::K1024).unwrap();
    let end = dev.first_attained(&series, 10).unwrap();
    // The first window entirely past the ramp ends at sample 29 at the latest; windows that
    // still include ramp samples below 9000 cannot pass a 10 % deviation test.
    assert!((20..=29).contains(&end), "attained at {end}");
    let first = &series[end + 1 - 10..=end];
    assert!(dev.check(first).criterion < 10.0);
    assert!(!dev.check(&series[5..15]).attained);

    let slope_crit = SsCriterion::parse("iops_slope:1%", iolab_core::units::KbBase::K1024).unwrap();
    let c = slope_crit.check(&series[5..15]);
    assert!((c.slope - 450.0).abs() < 60.0, "slope {}", c.slope);
    assert!(!c.attained);
    assert!(slope_crit.check(&series[40..60]).attained);

    // SNIA PTS: the flat part passes, the ramp fails; a 25 % range fails on range alone.
    assert!(snia_pts(&series[40..45]));
    assert!(!snia_pts(&series[5..10]));
    assert!(!snia_pts(&[100.0, 125.0, 100.0, 125.0, 100.0]));
    assert_eq!(max_deviation(&[100.0, 125.0, 100.0, 125.0, 100.0]), 15.0);
    assert!(slope(&[5.0, 5.0, 5.0]).abs() < 1e-12);
}

#[test]
fn run_result_round_trips_through_json() {
    let mut r = Recorder::default();
    r.record_submit(IoDir::Read, 4);
    r.record_complete(IoDir::Read, 4096, Some(Nanos(10)), Nanos(1000), Nanos(1010));
    r.record_error(IoDir::Write, 5);
    let mut job = summarize(&r, Nanos::from_secs(1), &DEFAULT_PERCENTILES);
    job.name = "t".into();
    assert_eq!(job.error, 5);
    assert_eq!(job.errors, vec![ErrnoCount { errno: 5, count: 1 }]);
    assert_eq!(job.depth.exact, vec![(4, 1)]);
    let g = group(0, &[(0, &job)], &DEFAULT_PERCENTILES);
    let run = RunResult {
        meta: RunMeta { iolab_version: "0.1.0".into(), ..Default::default() },
        jobs: vec![job],
        groups: vec![g],
        advice: vec![serde_json::json!({"id": "x"})],
        ..Default::default()
    };
    let s = serde_json::to_string(&run).unwrap();
    let back: RunResult = serde_json::from_str(&s).unwrap();
    assert_eq!(back, run);
}

#[test]
fn merged_workers_share_the_interval_grid() {
    // Two workers of one job on the same 500 ms grid: the merged series adds per interval.
    let mut a = Recorder::new(Nanos::from_millis(500));
    let mut b = Recorder::new(Nanos::from_millis(500));
    for k in 1..=4u64 {
        for _ in 0..k {
            a.record_complete(IoDir::Read, 4096, None, Nanos(1000), Nanos(1000));
        }
        for _ in 0..10 {
            b.record_complete(IoDir::Read, 4096, None, Nanos(3000), Nanos(3000));
        }
        a.tick_interval(Nanos::from_millis(500 * k));
        b.tick_interval(Nanos::from_millis(500 * k));
    }
    a.merge(&b);
    let j = summarize(&a, Nanos::from_secs(2), &DEFAULT_PERCENTILES);
    let ios: Vec<u64> = j.read.series.iter().map(|p| p.ios).collect();
    assert_eq!(ios, [11, 12, 13, 14]);
    let m = j.read.series[0].clat_mean_ns;
    assert!((m - (1000.0 + 10.0 * 3000.0) / 11.0).abs() < 1e-9, "{m}");
    assert_eq!(j.read.iops.samples, 4);
    assert_eq!(j.read.iops.min, 22.0);
    assert_eq!(j.read.clat.n, 50);
}
