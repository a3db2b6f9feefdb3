//! Request generation speed (requests/s per core) for the patterns the DESIGN budget names:
//! uniform randread with fio's random map, norandommap, sequential, zipf (fio's Gray et al.
//! formula) and exact zipf (rejection-inversion). Each iteration generates one request into
//! a caller-owned `IoRequest`, as the engine's hot loop does.
//!
//! Time is the benchmark thread's *CPU* time (`CLOCK_THREAD_CPUTIME_ID`, which brings the
//! scheduler's runtime up to date on every read; `/proc/thread-self/schedstat` only moves at
//! scheduler events and read zero for short batches), not wall time, so the figure is
//! requests per second per core even on a loaded machine; where the clock fails it falls back
//! to wall time.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use iolab_core::IoRequest;
use iolab_job::{Distribution, Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::time::{Duration, Instant};

const BATCH: u64 = 100_000;

/// Nanoseconds this thread has run on a CPU.
fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// Run `f` `iters` times and return the CPU time it took (wall time as a fallback).
fn cpu_time(iters: u64, mut f: impl FnMut()) -> Duration {
    let (c0, w0) = (thread_cpu_ns(), Instant::now());
    for _ in 0..iters {
        f();
    }
    match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => w0.elapsed(),
    }
}

fn job(rw: RwKind, f: impl FnOnce(&mut Job)) -> Job {
    let mut j = Job::with_defaults("bench");
    j.rw = rw;
    // 4 GiB of 4 KiB blocks: 1 M blocks, a 128 KiB random map that stays in L2.
    j.size = Some(SizeSpec::Bytes(4 << 30));
    j.time_based = true;
    f(&mut j);
    j
}

fn bench(c: &mut Criterion) {
    let cases: Vec<(&str, Job)> = vec![
        ("randread_randommap", job(RwKind::RandRead, |_| {})),
        ("randread_norandommap", job(RwKind::RandRead, |j| j.norandommap = true)),
        ("read_sequential", job(RwKind::Read, |_| {})),
        (
            "randread_zipf_fio",
            job(RwKind::RandRead, |j| {
                j.random_distribution = Distribution::Zipf { theta: 1.2, center: None }
            }),
        ),
        (
            "randread_zipf_exact",
            job(RwKind::RandRead, |j| {
                j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
                j.zipf_exact = true;
            }),
        ),
    ];
    let files = [FileLayout { size: 0 }];
    let mut g = c.benchmark_group("generate");
    g.throughput(Throughput::Elements(BATCH));
    for (name, j) in &cases {
        let mut w =
            Workload::new(&WorkerInput { job: j, clone_index: 0, thread_number: 1, files: &files })
                .expect("bench job is valid");
        let mut r = IoRequest::default();
        g.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                cpu_time(iters, || {
                    for _ in 0..BATCH {
                        w.next_into(&mut r);
                        black_box(&r);
                    }
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
