//! The io_uring submit/complete path's CPU per I/O without a device in the way: the worker
//! loop driving `ioengine=io_uring` over 4 KiB random reads of a 64 MiB file that sits in the
//! page cache (buffered, so every read completes in the kernel's copy, no waiting), at
//! iodepth 32 with submit and complete batches of 8 (the shape of `scripts/bench-vs-fio.sh`'s
//! io_uring row and of `t/io_uring -d32 -s8 -c8`). Criterion reports time per 100k reads;
//! the figure is ring + loop + recorder + the kernel's page-cache copy. Skips with a line when
//! io_uring is unavailable.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iolab_core::IoRequest;
use iolab_engine::engines::uring::{probe, Uring};
use iolab_engine::engines::{EngineConfig, EngineFile};
use iolab_engine::worker::{run_worker, WorkerConfig};
use iolab_job::{Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::io::Write;
use std::sync::atomic::AtomicBool;

const N: u64 = 100_000;
const FILE: u64 = 64 << 20;

fn bench(c: &mut Criterion) {
    if let Err(why) = probe() {
        println!("skip: io_uring unavailable here ({why})");
        return;
    }
    let dir = tempfile::tempdir_in(".").unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("uring.dat");
    let mut f = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
    let block: Vec<u8> = (0..1 << 20).map(|i: u32| (i * 7 + 1) as u8).collect();
    for _ in 0..FILE >> 20 {
        f.write_all(&block).unwrap_or_else(|e| panic!("{e}"));
    }
    drop(f);
    let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let file = EngineFile::dup(&f, false, &path).unwrap_or_else(|e| panic!("{e}"));
    let mut job = Job::with_defaults("uring");
    job.rw = RwKind::RandRead;
    job.size = Some(SizeSpec::Bytes(FILE));
    job.norandommap = true;
    job.number_ios = Some(N);
    let files = [FileLayout { size: FILE }];
    let mut g = c.benchmark_group("uring_randread_4k_page_cache");
    g.throughput(Throughput::Elements(N));
    g.bench_function("qd32_batch8_complete8", |b| {
        b.iter(|| {
            let mut wl = Workload::new(&WorkerInput {
                job: &job,
                clone_index: 0,
                thread_number: 1,
                files: &files,
            })
            .unwrap_or_else(|e| panic!("{e}"));
            let mut src = move |r: &mut IoRequest| wl.next_into(r);
            let mut cfg = EngineConfig::new(32, 4096, vec![file.clone()]);
            cfg.reap_max = 8;
            let mut e = Uring::new(&cfg).unwrap_or_else(|e| panic!("{e}"));
            let wcfg = WorkerConfig {
                depth: 32,
                batch_submit: 8,
                complete_min: 8,
                depth_low: 0,
                ..Default::default()
            };
            let stop = AtomicBool::new(false);
            let mut fill = |_: &mut [u8], _: u32, _: u64| {};
            let out = run_worker(&mut e, &mut src, &mut fill, None, &wcfg, &stop, None)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(out.error.is_none(), "{:?}", out.error);
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(10);
    targets = bench
}
criterion_main!(benches);
