//! Engine overhead: the worker loop driving `ioengine=null` (what fio's null engine measures),
//! 4 KiB random I/O from the workload generator, as `scripts/bench-vs-fio.sh` runs it:
//! QD1 (the sync path), QD32 with `iodepth_batch=32 iodepth_batch_complete_min=32` (the
//! batched queue/commit/reap path), and random writes with `refill_buffers` (a fresh buffer
//! per write from `data::DataGen`). Each QD1/QD32 case runs twice: the engine behind
//! `dyn IoEngine` and as its concrete type (what the runner does for `null`), to show what
//! the vtable costs. Criterion reports time per 100k I/Os and I/Os per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iolab_core::IoRequest;
use iolab_data::{DataConfig, DataGen};
use iolab_engine::engines::null::Null;
use iolab_engine::engines::{lookup, EngineConfig, IoEngine};
use iolab_engine::worker::{run_worker, BufFill, WorkerConfig, WorkerOutcome};
use iolab_job::{Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::sync::atomic::AtomicBool;

const N: u64 = 100_000;

fn job(rw: RwKind) -> Job {
    let mut job = Job::with_defaults("null");
    job.rw = rw;
    job.size = Some(SizeSpec::Bytes(1 << 30));
    job.norandommap = true;
    job.number_ios = Some(N);
    job
}

/// One run of N I/Os; `concrete` drives the engine as `Null` rather than `dyn IoEngine`.
fn run(job: &Job, depth: u32, complete_min: u32, concrete: bool, fill: &mut dyn BufFill) {
    let files = [FileLayout { size: 0 }];
    let mut wl =
        Workload::new(&WorkerInput { job, clone_index: 0, thread_number: 1, files: &files })
            .unwrap_or_else(|e| panic!("{e}"));
    let mut src = move |r: &mut IoRequest| wl.next_into(r);
    let cfg = EngineConfig::new(depth, 4096, vec![]);
    let wcfg = WorkerConfig {
        depth,
        batch_submit: depth,
        complete_min,
        depth_low: 0,
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let out: WorkerOutcome = if concrete {
        let mut e = Null::new(&cfg).unwrap_or_else(|e| panic!("{e}"));
        run_worker(&mut e, &mut src, fill, None, &wcfg, &stop, None)
    } else {
        let mut e: Box<dyn IoEngine> =
            (lookup("null").unwrap_or_else(|e| panic!("{e}")).ctor)(&cfg)
                .unwrap_or_else(|e| panic!("{e}"));
        run_worker(&mut *e, &mut src, fill, None, &wcfg, &stop, None)
    }
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.error.is_none());
}

fn bench(c: &mut Criterion) {
    let read = job(RwKind::RandRead);
    let mut g = c.benchmark_group("null_engine_randread_4k");
    g.throughput(Throughput::Elements(N));
    for (name, depth, min) in [("qd1", 1, 1), ("qd32_batch32_complete32", 32, 32)] {
        for (how, concrete) in [("dyn", false), ("concrete", true)] {
            g.bench_function(format!("{name}_{how}"), |b| {
                b.iter(|| run(&read, depth, min, concrete, &mut |_: &mut [u8], _: u32, _: u64| {}))
            });
        }
    }
    g.finish();
    let write = job(RwKind::RandWrite);
    let dcfg = DataConfig { refill_buffers: true, ..Default::default() };
    let mut gen = DataGen::new(&dcfg, 7);
    let mut g = c.benchmark_group("null_engine_randwrite_4k_refill");
    g.throughput(Throughput::Elements(N));
    g.bench_function("qd1_concrete", |b| {
        b.iter(|| {
            let mut fill = |buf: &mut [u8], file: u32, off: u64| gen.fill(buf, file, off, 0);
            run(&write, 1, 1, true, &mut fill)
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(20);
    targets = bench
}
criterion_main!(benches);
