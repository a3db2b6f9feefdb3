//! Cost of the all-zero check on a 4 KiB and a 128 KiB block: random data (the probe rejects
//! it) and zeros (the whole block is scanned).
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use iolab_advice::zeroprobe::is_all_zero;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("is_all_zero");
    g.measurement_time(std::time::Duration::from_secs(2));
    g.warm_up_time(std::time::Duration::from_millis(500));
    for len in [4096usize, 131072] {
        let zeros = vec![0u8; len];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(format!("zeros/{len}"), |b| b.iter(|| is_all_zero(black_box(&zeros))));
        g.bench_function(format!("random/{len}"), |b| b.iter(|| is_all_zero(black_box(&random))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
