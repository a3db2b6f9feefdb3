//! Cost of the engine worker's hot-path calls into [`Recorder`]: `record_complete` (three
//! histogram records, counters, live-counter stores) and `record_submit`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use iolab_core::{IoDir, Nanos};
use iolab_stats::Recorder;

fn bench(c: &mut Criterion) {
    let mut r = Recorder::new(Nanos::from_millis(500));
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    c.bench_function("record_complete", |b| {
        b.iter(|| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let clat = 20_000 + (x >> 44);
            r.record_complete(
                IoDir::Read,
                black_box(4096),
                Some(Nanos(800)),
                Nanos(clat),
                Nanos(clat + 800),
            );
        })
    });
    // Latencies clustered like a real device's (80 µs ± 8 µs): the histogram's hot buckets stay
    // in L1, as they do in a run.
    let mut r2 = Recorder::new(Nanos::from_millis(500));
    let mut y: u64 = 7;
    c.bench_function("record_complete_clustered", |b| {
        b.iter(|| {
            y = y.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let clat = 72_000 + (y >> 50);
            r2.record_complete(
                IoDir::Read,
                black_box(4096),
                Some(Nanos(800)),
                Nanos(clat),
                Nanos(clat + 800),
            );
        })
    });
    let mut h = iolab_stats::LatHist::new();
    let mut z: u64 = 9;
    c.bench_function("lathist_record_one", |b| {
        b.iter(|| {
            z = z.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            h.record(black_box(72_000 + (z >> 50)));
        })
    });
    c.bench_function("record_submit", |b| {
        let mut d = 0u32;
        b.iter(|| {
            d = (d + 1) & 63;
            r.record_submit(IoDir::Read, black_box(d));
        })
    });
    c.bench_function("tick_interval_no_close", |b| b.iter(|| r.tick_interval(black_box(Nanos(1)))));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
