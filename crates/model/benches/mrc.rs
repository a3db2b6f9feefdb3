//! Exact LRU MRC vs SHARDS on a synthetic Zipf trace (brief H5: 20 M requests, SHARDS at 1 %
//! must be within 0.01 MAE of exact and at least 10× faster). The trace is generated once
//! here, not in tests. Run: `cargo bench -p iolab-model --bench mrc`; set `IOLAB_MRC_REQS` to
//! change the request count. MAE and the one-shot timing ratio are printed before criterion's
//! medians.

use criterion::{criterion_group, criterion_main, Criterion};
use iolab_core::rand::{mix64, SplitMix64};
use iolab_model::mrc::{exact::ExactMrc, shards::Shards, MissRatioCurve, MrcBuilder};
use std::time::Instant;

fn zipf_trace(objects: usize, s: f64, count: usize, seed: u64) -> Vec<u64> {
    let mut cdf = Vec::with_capacity(objects);
    let mut acc = 0.0;
    for i in 1..=objects {
        acc += (i as f64).powf(-s);
        cdf.push(acc);
    }
    let mut rng = SplitMix64(seed);
    (0..count)
        .map(|_| {
            let u = rng.next_f64() * acc;
            mix64(cdf.partition_point(|&c| c < u) as u64)
        })
        .collect()
}

fn run(b: &mut dyn MrcBuilder, keys: &[u64]) -> MissRatioCurve {
    for &k in keys {
        b.access(k, 4096);
    }
    b.finish()
}

fn bench(c: &mut Criterion) {
    let n: usize =
        std::env::var("IOLAB_MRC_REQS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000_000);
    let keys = zipf_trace(2_000_000, 0.8, n, 1);

    let t = Instant::now();
    let exact = run(&mut ExactMrc::new(), &keys);
    let t_exact = t.elapsed();
    let Ok(mut fr) = Shards::fixed_rate(0.01) else { return };
    let t = Instant::now();
    let shards = run(&mut fr, &keys);
    let t_shards = t.elapsed();
    let Ok(mut fs) = Shards::fixed_size(32_768) else { return };
    let t = Instant::now();
    let fixed = run(&mut fs, &keys);
    let t_fixed = t.elapsed();
    let top = exact.footprint as u64;
    let sizes: Vec<u64> = (1..=100).map(|i| (top * i / 100).max(1)).collect();
    println!(
        "zipf 0.8, {n} requests, {} distinct: exact {:.2?}; SHARDS 1 % {:.2?} ({:.1}x, MAE {:.5}); \
         SHARDS fixed-size 32768 {:.2?} ({:.1}x, MAE {:.5}, final rate {:.5})",
        top,
        t_exact,
        t_shards,
        t_exact.as_secs_f64() / t_shards.as_secs_f64(),
        shards.mae(&exact, &sizes),
        t_fixed,
        t_exact.as_secs_f64() / t_fixed.as_secs_f64(),
        fixed.mae(&exact, &sizes),
        fs.rate()
    );

    let mut g = c.benchmark_group("mrc");
    // Per access: criterion prints accesses/s, i.e. time per access.
    g.throughput(criterion::Throughput::Elements(n as u64));
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(5));
    g.bench_function("exact", |b| b.iter(|| run(&mut ExactMrc::new(), &keys)));
    g.bench_function("shards_rate_0.01", |b| {
        b.iter(|| Shards::fixed_rate(0.01).map(|mut s| run(&mut s, &keys)))
    });
    g.bench_function("shards_size_32768", |b| {
        b.iter(|| Shards::fixed_size(32_768).map(|mut s| run(&mut s, &keys)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
