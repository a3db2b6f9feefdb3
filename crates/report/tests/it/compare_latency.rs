//! `compare` judges latency: the newcomer review's scenario 4 (measured against predicted on
//! a throttled loop device) had IOPS within 3.4 % and completion-latency p50 off by 93–98 %,
//! and ended with "within noise on every tested metric". Each latency percentile now carries a
//! verdict from its confidence interval, each latency mean one from Welch's test on per-I/O
//! statistics, and a miss like that one is flagged row by row.

use std::collections::BTreeMap;

use iolab_report::compare::{render_text, Comparison, DirView, JobView, ResultView, Samples};

/// A read direction at 2,000 IOPS over 10 one-second samples, with completion latency
/// percentiles scaled from `p50` µs (fio's default list) over 20,000 I/Os.
fn side(file: &str, iops: f64, p50: f64, p99: f64) -> ResultView {
    let list = [
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ];
    let clat_pct_ns: BTreeMap<String, f64> = list
        .iter()
        .map(|&q| {
            let v = if q <= 50.0 {
                p50 * (0.5 + q / 100.0)
            } else if q < 99.0 {
                p50 * (1.0 + (q - 50.0) / 50.0)
            } else {
                p99 * q / 99.0
            };
            (format!("{q:.6}"), v * 1e3)
        })
        .collect();
    let dir = DirView {
        iops,
        bw_bytes: iops * 4096.0,
        iops_samples: Some(Samples { mean: iops, sd: iops * 0.08, n: 10 }),
        bw_samples: Some(Samples { mean: iops * 4.0, sd: iops * 0.32, n: 10 }),
        clat_mean_ns: Some(p50 * 1.1e3),
        clat_pct_ns,
        slat: None,
        clat: Some(Samples { mean: p50 * 1.1, sd: p50, n: 20_000 }),
        lat: Some(Samples { mean: p50 * 1.1 + 8.0, sd: p50, n: 20_000 }),
        total_ios: 20_000,
    };
    ResultView {
        file: file.into(),
        source: "test".into(),
        jobs: vec![JobView { name: "randread 4k QD16".into(), dirs: vec![("read", dir)] }],
        devices: Vec::new(),
    }
}

fn verdicts(c: &Comparison) -> BTreeMap<&'static str, &'static str> {
    c.rows.iter().map(|r| (r.metric, c.diff(r, 1).verdict(c.alpha, c.min_pct))).collect()
}

#[test]
fn a_latency_miss_is_flagged_even_when_iops_agree() {
    // The review's row: 2068 vs 2130 IOPS (+3 %), p50 94 → 6.4 µs, p99 102.6 → 103.8 ms.
    let measured = side("measured.json", 2068.0, 94.0, 102_600.0);
    let predicted = side("predicted.json", 2130.0, 6.4, 103_800.0);
    let c = Comparison::new(&[measured, predicted], 0.05, 5.0).unwrap();
    let v = verdicts(&c);
    assert_eq!(v["iops"], "within noise", "{v:?}");
    assert_eq!(v["clat p50"], "significant", "{v:?}");
    assert_eq!(v["clat mean"], "significant", "{v:?}");
    assert_eq!(v["lat mean"], "significant", "{v:?}");
    // p99 and p99.9 +1.2 %: under the 5 % minimum (and p99's intervals overlap).
    assert_eq!(v["clat p99"], "within noise", "{v:?}");
    assert_ne!(v["clat p99.9"], "significant", "{v:?}");
    assert!(!c.within_noise(1));
    let text = render_text(&c);
    assert!(!text.contains("within noise on every tested metric"), "{text}");
    assert!(text.contains("clat p50 -93.2% better") || text.contains("clat p50 -93.2%"), "{text}");
}

#[test]
fn equal_sides_are_within_noise_on_every_latency_row() {
    let a = side("a.json", 2000.0, 94.0, 1026.0);
    let b = side("b.json", 2000.0, 94.0, 1026.0);
    let c = Comparison::new(&[a, b], 0.05, 1.0).unwrap();
    let v = verdicts(&c);
    for m in ["clat p50", "clat p99", "clat mean", "lat mean"] {
        assert_eq!(v[m], "within noise", "{m}: {v:?}");
    }
    assert_eq!(v["clat p99.9"], "within noise", "20,000 I/Os bound p99.9 too: {v:?}");
    assert!(c.within_noise(1));
}

#[test]
fn sub_microsecond_differences_are_never_significant() {
    // A null engine's completions: 0.40 vs 0.18 µs is -55 % and far beyond sampling noise.
    let a = side("a.json", 2000.0, 0.40, 2.0);
    let b = side("b.json", 2000.0, 0.18, 2.0);
    let c = Comparison::new(&[a, b], 0.05, 1.0).unwrap();
    let v = verdicts(&c);
    assert_eq!(v["clat p50"], "negligible", "{v:?}");
    assert_eq!(v["clat mean"], "negligible", "{v:?}");
}
