//! iolab-workload's issue schedule: rate_iops accuracy, poisson inter-arrivals, thinktime.

use crate::common::*;
use iolab_core::{Nanos, PerDir};
use iolab_job::{Job, RateProcess, RwKind};

fn achieved_iops(j: &Job, n: u64) -> f64 {
    let mut last = Nanos::ZERO;
    let mut prev = Nanos::ZERO;
    for r in wl(j).take(n as usize) {
        let t = r.issue_at.unwrap();
        assert!(t >= prev, "issue_at must not go backwards");
        prev = t;
        last = t;
    }
    (n - 1) as f64 / last.as_secs_f64()
}

#[test]
fn rate_schedule_is_accurate_at_10k_300k_and_1m_iops() {
    for process in [RateProcess::Linear, RateProcess::Poisson] {
        for iops in [10_000u64, 300_000, 1_000_000] {
            let mut j = job(RwKind::RandRead, 1 << 30);
            j.norandommap = true;
            j.time_based = true;
            j.rate_iops = PerDir::splat(iops);
            j.rate_process = process;
            let got = achieved_iops(&j, 1_000_000);
            let err = (got - iops as f64).abs() / iops as f64;
            assert!(err < 0.005, "{process:?} {iops}: {got} ({:.3}%)", err * 100.0);
        }
    }
    // `rate=` in bytes/s: 400 MB/s of 4 KiB = 97,656.25 IOPS.
    let mut j = job(RwKind::Read, 1 << 30);
    j.rate = PerDir::splat(400_000_000);
    let got = achieved_iops(&j, 100_000);
    assert!((got / 97_656.25 - 1.0).abs() < 1e-4, "{got}");
}

#[test]
fn poisson_interarrivals_are_exponential() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.time_based = true;
    j.rate_iops = PerDir::splat(1_000_000);
    j.rate_process = RateProcess::Poisson;
    let t: Vec<u64> = wl(&j).take(200_001).map(|r| r.issue_at.unwrap().0).collect();
    let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    // Exponential: coefficient of variation 1 (rounding to whole ns adds < 0.1%).
    assert!((mean - 1000.0).abs() < 10.0, "mean gap {mean} ns");
    assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "cv {}", var.sqrt() / mean);
}

#[test]
fn thinktime_is_folded_into_the_schedule() {
    let mut j = job(RwKind::Read, 1 << 20);
    j.thinktime = Nanos::from_micros(100);
    j.thinktime_blocks = 4;
    let t: Vec<u64> = wl(&j).take(12).map(|r| r.issue_at.unwrap().0).collect();
    assert_eq!(
        t,
        [0, 0, 0, 0, 100_000, 100_000, 100_000, 100_000, 200_000, 200_000, 200_000, 200_000]
    );
    // With rate_iops=1000 and thinktime shorter than the gap, the rate dominates.
    j.rate_iops = PerDir::splat(1000);
    j.thinktime_blocks = 1;
    let t: Vec<u64> = wl(&j).take(3).map(|r| r.issue_at.unwrap().0).collect();
    assert_eq!(t, [0, 1_000_000, 2_000_000]);
    // Unpaced jobs carry no issue time.
    assert_eq!(wl(&job(RwKind::Read, 1 << 20)).next().unwrap().issue_at, None);
}
