//! Single-threaded policy throughput: LRU and S3-FIFO over a 20 M-request Zipf(1.0) trace of
//! 1 M objects (generated once, in memory), cache = 10 % of the objects, cold start per
//! iteration. Reported as requests/s (criterion `Throughput::Elements`); compare with
//! libCacheSim via `scripts/bench-libcachesim.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iolab_model::policy::lru::Lru;
use iolab_model::policy::s3fifo::{S3Fifo, S3FifoParams};
#[path = "support/zipf.rs"]
mod zipf;
use iolab_model::policy::{Access, Policy};
use std::time::Duration;
use zipf::Zipf;

const REQUESTS: usize = 20_000_000;
const OBJECTS: usize = 1_000_000;
const CACHE: usize = OBJECTS / 10;

fn replay<P: Policy>(mut p: P, keys: &[u64]) -> u64 {
    let mut misses = 0;
    for &k in keys {
        misses += u64::from(!p.access(&Access::new(k)).hit);
    }
    misses
}

fn bench(c: &mut Criterion) {
    let mut z = Zipf::new(OBJECTS, 1.0, 42);
    let keys: Vec<u64> = (0..REQUESTS).map(|_| z.next_key()).collect();
    let mut g = c.benchmark_group("policy");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(REQUESTS as u64));
    g.bench_function("lru", |b| b.iter(|| replay(Lru::new(CACHE), &keys)));
    g.bench_function("s3fifo", |b| {
        b.iter(|| replay(S3Fifo::new(CACHE, S3FifoParams::default()), &keys))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
