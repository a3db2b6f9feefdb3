//! Engine overhead: the worker loop driving `ioengine=null` (what fio's null engine measures),
//! 4 KiB random reads from the workload generator, at QD1 (sync path) and QD32 (batched
//! queue/commit/reap). Reports time per 100k I/Os; divide for ns per I/O.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iolab_core::IoRequest;
use iolab_engine::engines::{lookup, EngineConfig};
use iolab_engine::worker::{run_worker, WorkerConfig};
use iolab_job::{Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::sync::atomic::AtomicBool;

const N: u64 = 100_000;

fn bench(c: &mut Criterion) {
    let mut job = Job::with_defaults("null");
    job.rw = RwKind::RandRead;
    job.size = Some(SizeSpec::Bytes(1 << 30));
    job.norandommap = true;
    job.number_ios = Some(N);
    let files = [FileLayout { size: 0 }];
    let mut g = c.benchmark_group("null_engine_randread_4k");
    g.throughput(Throughput::Elements(N));
    for depth in [1u32, 32] {
        g.bench_function(format!("qd{depth}"), |b| {
            b.iter(|| {
                let mut wl = Workload::new(&WorkerInput {
                    job: &job,
                    clone_index: 0,
                    thread_number: 1,
                    files: &files,
                })
                .unwrap_or_else(|e| panic!("{e}"));
                let mut src = move |r: &mut IoRequest| wl.next_into(r);
                let cfg = EngineConfig::new(depth, 4096, vec![]);
                let mut e = (lookup("null").unwrap_or_else(|e| panic!("{e}")).ctor)(&cfg)
                    .unwrap_or_else(|e| panic!("{e}"));
                let wcfg = WorkerConfig {
                    depth,
                    batch_submit: depth,
                    complete_min: 1,
                    depth_low: 0,
                    ..Default::default()
                };
                let mut fill = |_: &mut [u8], _: u32, _: u64| {};
                let stop = AtomicBool::new(false);
                run_worker(&mut *e, &mut src, &mut fill, None, &wcfg, &stop, None)
                    .unwrap_or_else(|e| panic!("{e}"))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
