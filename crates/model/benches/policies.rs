//! Single-threaded policy replay, one criterion bench per policy, on the workload of
//! `scripts/bench-libcachesim.sh`: the seeded Zipf(0.9) trace of 2 M objects (the `zipf_trace`
//! example's generator and seed), cache = 200,000 objects, cold start per iteration, replayed
//! through `Cache::get_batch` in batches of 4096 as `iolab sim --object-level` does (so the
//! prefetch pipeline is measured too), without reading the trace file.
//!
//! Reported per request: criterion's `Throughput::Elements` is one request, so its "thrpt"
//! line is requests/s and time per request is its inverse; the setup line prints the miss
//! ratio so a regression in the figures shows here too. `IOLAB_BENCH_REQS` changes the request
//! count (default 2 M; the script's trace is 20 M).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iolab_model::policy::{self, Access};
use std::time::Duration;
#[path = "support/zipf.rs"]
mod zipf;
use zipf::Zipf;

const OBJECTS: usize = 2_000_000;
const CACHE: usize = 200_000;
const BATCH: usize = 4096;
/// Online policies compared with libCacheSim in the script (lru, s3fifo) and the other cheap
/// single-queue ones, for scale.
const POLICIES: &[&str] = &["lru", "s3fifo", "fifo", "clock", "sieve", "arc", "2q"];

fn replay(name: &str, accesses: &[Access]) -> u64 {
    let Ok(mut c) = policy::build(name, CACHE) else { return 0 };
    accesses.chunks(BATCH).map(|b| c.get_batch(b)).sum()
}

fn bench(c: &mut Criterion) {
    let n: usize =
        std::env::var("IOLAB_BENCH_REQS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let mut z = Zipf::new(OBJECTS, 0.9, 42);
    let accesses: Vec<Access> =
        (0..n as u64).map(|vtime| Access { vtime, ..Access::new(z.next_key()) }).collect();
    let mut g = c.benchmark_group("policy");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(n as u64));
    for &p in POLICIES {
        println!("{p}: {n} requests, miss ratio {:.8}", replay(p, &accesses) as f64 / n as f64);
        g.bench_function(p, |b| b.iter(|| replay(p, &accesses)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
