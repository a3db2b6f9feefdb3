//! Data generation throughput per core (DESIGN.md budget: ≥ 10 GB/s incompressible,
//! ≥ 5 GB/s compressible). Each iteration fills 64 KiB (16 writes of 4 KiB, as the engine
//! calls `DataGen::fill`), so the buffer stays in L2 and the figure is the generator's, not
//! DRAM's. fio's own `refill_buffers` runs at ~3.4 GB/s per core (notes/fio-behaviour.md §2.8).
//!
//! Time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not the wall clock: the figure
//! is "per core" even on a shared, oversubscribed machine, where wall time counts the time
//! the thread waited for a CPU.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use iolab_data::{CompressContent, DataConfig, DataGen, DedupeMode};
use std::time::Duration;

/// Thread CPU time in nanoseconds.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns() - i
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFmt
    }
}

struct CpuFmt;

impl ValueFormatter for CpuFmt {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        for v in values.iter_mut() {
            *v /= 1e3;
        }
        "µs cpu"
    }
    fn scale_throughputs(&self, _t: f64, tp: &Throughput, values: &mut [f64]) -> &'static str {
        let bytes = match tp {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => *b as f64,
            Throughput::Elements(e) => *e as f64,
        };
        for v in values.iter_mut() {
            *v = bytes / *v; // bytes per ns = GB/s
        }
        "GB/s per core"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn run(c: &mut Criterion<ThreadCpu>, name: &str, cfg: DataConfig) {
    let mut g = DataGen::new(&cfg, 7);
    let mut buf = vec![0u8; 64 << 10];
    let mut off = 0u64;
    let mut grp = c.benchmark_group("gen");
    grp.throughput(Throughput::Bytes(buf.len() as u64));
    grp.bench_function(name, |b| {
        b.iter(|| {
            for blk in buf.chunks_mut(4096) {
                g.fill(blk, 0, off, 0);
                off = off.wrapping_add(4096) & ((1 << 30) - 1);
            }
            black_box(&buf);
        })
    });
    grp.finish();
}

/// The two incompressible streams on their own, 4 KiB per call: `fill_lanes` (what
/// `refill_buffers` writes) and `fill_random` (the counter-based one compressible chunks use).
fn raw(c: &mut Criterion<ThreadCpu>) {
    use iolab_data::gen::{lanes::fill_lanes, random::fill_random};
    let mut buf = vec![0u8; 64 << 10];
    let mut grp = c.benchmark_group("stream");
    grp.throughput(Throughput::Bytes(buf.len() as u64));
    type Fill = fn(&mut [u8], u64);
    let fills: [(&str, Fill); 2] = [("fill_lanes_4k", fill_lanes), ("fill_random_4k", fill_random)];
    for (name, f) in fills {
        let mut key = 0u64;
        grp.bench_function(name, |b| {
            b.iter(|| {
                for blk in buf.chunks_mut(4096) {
                    key += 1;
                    f(blk, key);
                }
                black_box(&buf);
            })
        });
    }
    grp.finish();
}

fn benches(c: &mut Criterion<ThreadCpu>) {
    raw(c);
    let base =
        DataConfig { refill_buffers: true, region_size: Some(1 << 30), ..Default::default() };
    run(c, "random_refill", base.clone());
    run(c, "compress50_zeros", DataConfig { compress_percentage: 50, ..base.clone() });
    run(
        c,
        "compress50_pattern",
        DataConfig {
            compress_percentage: 50,
            compress_content: CompressContent::Pattern,
            pattern: vec![0xde, 0xad, 0xbe, 0xef],
            ..base.clone()
        },
    );
    run(
        c,
        "compress50_text",
        DataConfig {
            compress_percentage: 50,
            compress_content: CompressContent::Text,
            ..base.clone()
        },
    );
    run(
        c,
        "dedupe50_repeat",
        DataConfig { dedupe_percentage: 50, dedupe_mode: DedupeMode::Repeat, ..base.clone() },
    );
    run(c, "fio_default_scramble", DataConfig::default());
}

criterion_group! {
    name = gen;
    config = Criterion::default()
        .with_measurement(ThreadCpu)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20);
    targets = benches
}
criterion_main!(gen);
