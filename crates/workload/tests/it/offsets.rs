//! iolab-workload's offsets: alignment, random-map coverage, uniformity (chi-square),
//! zipf/pareto/zoned skew and shared hot sets.

use crate::common::*;
use iolab_core::{IoRequest, PerDir};
use iolab_job::{Distribution, Job, RwKind, SizeSpec, Zone};
use iolab_workload::{FileLayout, WorkerInput, Workload};

#[test]
fn offsets_are_aligned_and_inside_the_region() {
    let mut j = job(RwKind::RandRw, 3 << 20);
    j.offset = SizeSpec::Bytes(1 << 20);
    j.nrfiles = 3;
    j.bs = PerDir::splat(iolab_job::BlockSizes {
        min: 4096,
        max: 65536,
        split: vec![],
        ranged: false,
    });
    let files = [FileLayout { size: 0 }; 3];
    let w = Workload::new(&input(&j, &files)).unwrap();
    let regions = w.regions().to_vec();
    assert_eq!(regions.len(), 3);
    for r in &regions {
        assert_eq!((r.start, r.end), (1 << 20, 2 << 20));
    }
    let mut n = 0;
    let mut bytes = 0;
    for r in w {
        let reg = regions[r.file as usize];
        assert_eq!(r.offset % 4096, 0, "{r:?}");
        assert_eq!(r.len % 4096, 0, "{r:?}");
        assert!(r.offset >= reg.start && r.end() <= reg.end, "{r:?}");
        n += 1;
        bytes += r.len;
    }
    assert!(n > 0);
    assert_eq!(bytes, 3 << 20, "randrw issues exactly size bytes");
}

#[test]
fn random_map_pass_touches_every_block_exactly_once_then_wraps() {
    // 1000 blocks: not a power of two, so collisions exercise next_free and wrap-around.
    let mut j = job(RwKind::RandWrite, 1000 * 4096);
    j.time_based = true;
    let mut w = wl(&j);
    for pass in 0..3 {
        let mut seen = vec![0u8; 1000];
        let mut r = IoRequest::default();
        for _ in 0..1000 {
            assert!(w.next_into(&mut r));
            seen[(r.offset / 4096) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c == 1), "pass {pass}");
        assert_eq!(w.passes(), pass);
    }
    assert_eq!(w.stop().bytes, None);
}

/// Pearson's chi-square over 100 equal bins of a 10,000-block region, 200,000 uniform draws
/// (norandommap): 99 degrees of freedom, critical value 148.2 at p = 0.001.
#[test]
fn uniform_offsets_pass_chi_square() {
    let mut j = job(RwKind::RandRead, 10_000 * 4096);
    j.norandommap = true;
    j.number_ios = Some(200_000);
    j.time_based = true;
    let mut bins = [0u64; 100];
    let mut n = 0;
    for r in wl(&j) {
        bins[(r.offset / 4096 / 100) as usize] += 1;
        n += 1;
    }
    assert_eq!(n, 200_000);
    let e = n as f64 / 100.0;
    let chi2: f64 = bins.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    assert!(chi2 < 148.2, "chi2 = {chi2}");
    assert!(chi2 > 50.0, "chi2 = {chi2} is suspiciously small for 99 dof");
}

/// Least-squares slope of log(frequency) on log(rank) over ranks 1..=k.
fn rank_slope(counts: &mut [u64], k: usize) -> f64 {
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let pts: Vec<(f64, f64)> = (0..k)
        .filter(|&i| counts[i] > 0)
        .map(|i| (((i + 1) as f64).ln(), (counts[i] as f64).ln()))
        .collect();
    let m = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / m, sy / m);
    let num: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let den: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    num / den
}

#[test]
fn exact_zipf_rank_frequency_slope_is_minus_theta() {
    for theta in [0.8, 1.2] {
        let mut j = job(RwKind::RandRead, 100_000 * 4096);
        j.random_distribution = Distribution::Zipf { theta, center: None };
        j.zipf_exact = true;
        j.number_ios = Some(1_000_000);
        let mut counts = vec![0u64; 100_000];
        for r in wl(&j) {
            counts[(r.offset / 4096) as usize] += 1;
        }
        let slope = rank_slope(&mut counts, 200);
        assert!((slope + theta).abs() < 0.05, "theta {theta}: slope {slope}");
    }
}

/// fio's Gray et al. generator against its own analytic rank probabilities (ranks 1..=20 and
/// the tail beyond), 1,000,000 draws: every cell within 4 standard errors.
#[test]
fn fio_zipf_matches_the_gray_formula_rank_probabilities() {
    use iolab_workload::dist::FioZipf;
    let n = 1_000_000u64;
    let mut z = FioZipf::new(n, 1.2, None, 1234);
    let draws = 1_000_000;
    let mut counts = [0u64; 21];
    for _ in 0..draws {
        let r = z.next_rank() as usize;
        counts[r.min(20)] += 1;
    }
    let mut p_head = 0.0;
    for (r, &c) in counts.iter().enumerate().take(20) {
        let p = z.rank_probability(r as u64);
        p_head += p;
        let se = (p * (1.0 - p) / draws as f64).sqrt();
        let got = c as f64 / draws as f64;
        assert!((got - p).abs() < 4.0 * se + 1e-9, "rank {}: {got} vs {p}", r + 1);
    }
    let tail = counts[20] as f64 / draws as f64;
    assert!((tail - (1.0 - p_head)).abs() < 0.002, "tail {tail} vs {}", 1.0 - p_head);
    // The approximation is visible: fio's rank 3 is over-sampled relative to exact Zipf.
    let exact3 = 3f64.powf(-1.2) / z.zetan();
    assert!(z.rank_probability(2) > 1.1 * exact3);
}

/// pareto:0.2 is the 80/20 rule: P(rank < 0.2·n) = 0.2^(ln 0.8 / ln 0.2) = 0.800.
#[test]
fn pareto_sends_80_percent_to_the_hottest_20_percent() {
    use iolab_workload::dist::FioPareto;
    let n = 100_000u64;
    let mut p = FioPareto::new(n, 0.2, None, 99);
    let draws = 200_000;
    let hot = (0..draws).filter(|_| p.next_rank() < n / 5).count();
    let f = hot as f64 / draws as f64;
    assert!((f - 0.8).abs() < 0.005, "{f}");
}

/// zoned:60/10:30/20:10/70 — 60% of I/O in the first 10% of the region, 30% in the next 20%.
#[test]
fn zoned_proportions() {
    let z = vec![
        Zone { access_pct: 60, size: 10.0 },
        Zone { access_pct: 30, size: 20.0 },
        Zone { access_pct: 10, size: 70.0 },
    ];
    let mut j = job(RwKind::RandRead, 10_000 * 4096);
    j.random_distribution = Distribution::Zoned(PerDir::splat(z));
    j.number_ios = Some(100_000);
    j.time_based = true;
    let mut c = [0u64; 3];
    for r in wl(&j) {
        let b = r.offset / 4096;
        c[if b < 1000 {
            0
        } else if b < 3000 {
            1
        } else {
            2
        }] += 1;
    }
    for (got, want) in c.iter().zip([0.6, 0.3, 0.1]) {
        assert!((*got as f64 / 1e5 - want).abs() < 0.006, "{c:?}");
    }
    // zoned_abs: 50% of accesses in the first 1 MiB, 50% in the next 3 MiB.
    let z =
        vec![Zone { access_pct: 50, size: 1048576.0 }, Zone { access_pct: 50, size: 3145728.0 }];
    j.random_distribution = Distribution::ZonedAbs(PerDir::splat(z));
    let first = wl(&j).filter(|r| r.offset < 1 << 20).count();
    assert!((first as f64 / 1e5 - 0.5).abs() < 0.006, "{first}");
    assert!(wl(&j).all(|r| r.end() <= 4 << 20));
}

#[test]
fn hot_set_shared_gives_clones_the_same_hot_blocks() {
    let top = |j: &Job, t: u32| {
        let files = [FileLayout::default()];
        let w =
            Workload::new(&WorkerInput { job: j, clone_index: 0, thread_number: t, files: &files })
                .unwrap();
        let mut c = std::collections::HashMap::new();
        for r in w.take(50_000) {
            *c.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<(u32, u64)> = c.into_iter().map(|(o, n)| (n, o)).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.iter().take(10).map(|x| x.1).collect::<std::collections::BTreeSet<u64>>()
    };
    let mut j = job(RwKind::RandRead, 64 << 20);
    j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
    j.numjobs = 2;
    let (a, b) = (top(&j, 1), top(&j, 2));
    assert_eq!(a.intersection(&b).count(), 0, "per-job hot sets differ, as in fio");
    j.hot_set = iolab_job::HotSet::Shared;
    let (a, b) = (top(&j, 1), top(&j, 2));
    assert!(a.intersection(&b).count() >= 8, "{a:?} vs {b:?}");
}
