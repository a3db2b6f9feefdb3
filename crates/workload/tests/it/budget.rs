//! iolab-workload's files and budget: file_service_type, io_size, loops, number_ios,
//! offset_increment, seeds per thread, holes, scramble warnings, typed errors.

use crate::common::*;
use iolab_core::{IoRequest, PerDir};
use iolab_job::{Distribution, FileServiceKind, Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, WorkerInput, Workload};

#[test]
fn file_service_type_sequences() {
    let files = [FileLayout::default(); 3];
    let seq = |kind, nr| {
        let mut j = job(RwKind::Read, 3 * 16384);
        j.nrfiles = 3;
        j.file_service.kind = kind;
        j.file_service.nr = nr;
        Workload::new(&input(&j, &files)).unwrap().map(|r| r.file).collect::<Vec<_>>()
    };
    assert_eq!(seq(FileServiceKind::RoundRobin, 1), [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    assert_eq!(seq(FileServiceKind::RoundRobin, 2), [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
    assert_eq!(seq(FileServiceKind::Sequential, 1), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    let r = seq(FileServiceKind::Random, 1);
    assert_eq!(r.len(), 12);
    for f in 0..3 {
        assert_eq!(r.iter().filter(|&&x| x == f).count(), 4, "{r:?}");
    }
    assert_ne!(r, seq(FileServiceKind::RoundRobin, 1));
}

#[test]
fn io_size_larger_than_size_loops_over_the_region() {
    let mut j = job(RwKind::RandRead, 256 * 4096);
    j.io_size = Some(3 * 256 * 4096);
    let mut w = wl(&j);
    assert_eq!(w.stop().bytes, Some(3 * 256 * 4096));
    let mut counts = vec![0u32; 256];
    let mut r = IoRequest::default();
    let mut n = 0;
    while w.next_into(&mut r) {
        counts[(r.offset / 4096) as usize] += 1;
        n += 1;
    }
    assert_eq!(n, 768);
    assert!(counts.iter().all(|&c| c == 3));
    assert_eq!(w.passes(), 2);
    // Sequential: io_size = 2.5 × size reads 0..size twice, then half again.
    let mut j = job(RwKind::Read, 1 << 20);
    j.io_size = Some(5 << 19);
    let offs: Vec<u64> = wl(&j).map(|r| r.offset).collect();
    assert_eq!(offs.len(), 640);
    assert_eq!((offs[255], offs[256], offs[639]), ((1 << 20) - 4096, 0, (1 << 19) - 4096));
}

#[test]
fn loops_repeat_the_job_from_the_start() {
    let mut j = job(RwKind::Read, 64 << 10);
    j.io_size = Some(32 << 10);
    j.loops = 2;
    let offs: Vec<u64> = wl(&j).map(|r| r.offset / 4096).collect();
    assert_eq!(offs, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn number_ios_stops_even_time_based() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.number_ios = Some(1234);
    assert_eq!(wl(&j).count(), 1234);
    j.time_based = true;
    assert_eq!(wl(&j).count(), 1234);
}

#[test]
fn offset_increment_per_clone() {
    let mut j = job(RwKind::Read, 1 << 20);
    j.offset = SizeSpec::Bytes(4096);
    j.offset_increment = 1 << 20;
    j.numjobs = 4;
    let files = [FileLayout { size: 8 << 20 }];
    for clone in 0..4u32 {
        let w = Workload::new(&WorkerInput {
            job: &j,
            clone_index: clone,
            thread_number: clone + 1,
            files: &files,
        })
        .unwrap();
        let start = 4096 + clone as u64 * (1 << 20);
        assert_eq!(w.regions()[0].start, start);
        assert_eq!(w.regions()[0].end, start + (1 << 20));
        let first = w.clone().next().unwrap().offset;
        assert_eq!(first, start);
        assert!(w.into_iter().all(|r| r.offset >= start && r.end() <= start + (1 << 20)));
    }
    // offset=50% of an 8 MiB device, rounded up to the block size.
    j.offset = SizeSpec::Percent(33.3);
    j.offset_increment = 0;
    let w = Workload::new(&input(&j, &files)).unwrap();
    assert_eq!(w.regions()[0].start, 2_793_472); // ceil(2793406.9 / 4096) * 4096
}

#[test]
fn same_seed_same_stream_other_thread_other_stream() {
    let mut j = job(RwKind::RandRw, 16 << 20);
    j.bs.read.max = 65536;
    let files = [FileLayout::default()];
    let a: Vec<IoRequest> = Workload::new(&input(&j, &files)).unwrap().collect();
    let b: Vec<IoRequest> = Workload::new(&input(&j, &files)).unwrap().collect();
    assert_eq!(a, b);
    let c: Vec<IoRequest> =
        Workload::new(&WorkerInput { job: &j, clone_index: 1, thread_number: 2, files: &files })
            .unwrap()
            .collect();
    assert_ne!(a, c);
}

#[test]
fn sequential_with_holes_and_backwards() {
    let mut j = job(RwKind::Write, 64 << 10);
    j.ddir_seq_add = 4096;
    let offs: Vec<u64> = wl(&j).take(10).map(|r| r.offset / 4096).collect();
    assert_eq!(offs, [0, 2, 4, 6, 8, 10, 12, 14, 0, 2]);
}

#[test]
fn scramble_warning_names_the_reachable_fraction() {
    let mut j = job(RwKind::RandRead, 1_000_000 * 4096);
    j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
    let w = wl(&j);
    assert!(
        w.warnings().iter().any(|m| m.contains("only 87.6% of the 1000000 blocks")),
        "{:?}",
        w.warnings()
    );
    let mut j = job(RwKind::RandRead, 1 << 26);
    j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
    assert!(wl(&j).warnings().is_empty());
}

#[test]
fn bad_input_is_a_typed_error() {
    let j = Job::with_defaults("nosize");
    let err = Workload::new(&input(&j, &[FileLayout::default()])).unwrap_err();
    assert!(err.to_string().contains("no size"), "{err}");
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.random_distribution = Distribution::Zipf { theta: 1.0, center: None };
    assert!(Workload::new(&input(&j, &[FileLayout::default()])).is_err());
    let j = job(RwKind::Read, 1024);
    assert!(Workload::new(&input(&j, &[FileLayout::default()])).is_err());
    assert!(Workload::new(&input(&job(RwKind::Read, 1 << 20), &[])).is_err());
}

#[test]
fn options_without_effect_are_reported() {
    let mut j = job(RwKind::Read, 1 << 20);
    j.percentage_random = PerDir::splat(50);
    j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
    let w = wl(&j);
    assert_eq!(w.warnings().len(), 2, "{:?}", w.warnings());
    assert!(w.warnings()[0].contains("percentage_random has no effect"));
    // The stream is still plain sequential.
    assert!(w.take(256).enumerate().all(|(i, r)| r.offset == i as u64 * 4096));
}
