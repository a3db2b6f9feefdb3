//! The generator's invariant, "every request lies inside its file's region"
//! (`region.start <= offset`, `offset + len <= region.end`, no sum wrapping), checked with
//! proptest over random option values: offset (up to 2^64 − 1), size, filesize, nrfiles,
//! bs / bsrange / bssplit, every rw kind, zoned and zoned_abs distributions, norandommap,
//! numjobs × offset_increment, io_size, number_ios and time_based. An option set the
//! generator refuses must be refused with an error, never a panic.

use iolab_core::PerDir;
use iolab_job::{BlockSizes, BsSplit, Distribution, Job, RwKind, SizeSpec, Zone};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};
use proptest::prelude::*;

const KINDS: [RwKind; 10] = [
    RwKind::Read,
    RwKind::Write,
    RwKind::Trim,
    RwKind::RandRead,
    RwKind::RandWrite,
    RwKind::RandTrim,
    RwKind::ReadWrite,
    RwKind::RandRw,
    RwKind::TrimWrite,
    RwKind::RandTrimWrite,
];

/// Byte values that reach the edges: small, block-sized, and within a few MiB of 2^64.
fn bytes() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..(64 << 20),
        3 => (0u64..64).prop_map(|k| k * 4096),
        1 => (0u64..(8 << 20)).prop_map(|k| u64::MAX - k),
        1 => any::<u64>(),
    ]
}

fn block_sizes() -> impl Strategy<Value = BlockSizes> {
    let sizes = prop_oneof![Just(512u64), Just(4096), Just(65536), 1u64..200_000];
    prop_oneof![
        sizes.clone().prop_map(|b| BlockSizes { min: b, max: b, split: vec![], ranged: false }),
        (sizes.clone(), sizes.clone()).prop_map(|(a, b)| BlockSizes {
            min: a.min(b),
            max: a.max(b),
            split: vec![],
            ranged: true,
        }),
        prop::collection::vec((sizes, 1u32..100), 1..4).prop_map(|v| {
            let total: u32 = v.iter().map(|s| s.1).sum();
            let mut split: Vec<BsSplit> =
                v.iter().map(|&(bs, p)| BsSplit { bs, perc: (p * 100 / total).max(1) }).collect();
            let sum: u32 = split.iter().map(|s| s.perc).sum();
            split[0].perc = (split[0].perc + 100).saturating_sub(sum).max(1);
            let min = split.iter().map(|s| s.bs).min().unwrap();
            let max = split.iter().map(|s| s.bs).max().unwrap();
            BlockSizes { min, max, split, ranged: false }
        }),
    ]
}

fn distribution() -> impl Strategy<Value = Distribution> {
    let zones = prop_oneof![
        Just(vec![Zone { access_pct: 100, size: 100.0 }]),
        (1u32..99, 0.0f64..100.0).prop_map(|(a, s)| vec![
            Zone { access_pct: a, size: s },
            Zone { access_pct: 100 - a, size: 100.0 - s },
        ]),
    ];
    let abs = (1u32..99, 0u64..(8 << 20), 0u64..(8 << 20)).prop_map(|(a, s1, s2)| {
        vec![Zone { access_pct: a, size: s1 as f64 }, Zone { access_pct: 100 - a, size: s2 as f64 }]
    });
    prop_oneof![
        3 => Just(Distribution::Random),
        1 => zones.prop_map(|z| Distribution::Zoned(PerDir::splat(z))),
        1 => abs.prop_map(|z| Distribution::ZonedAbs(PerDir::splat(z))),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    kind: usize,
    offset: u64,
    size: Option<u64>,
    filesize: Option<(u64, u64)>,
    files: Vec<u64>,
    bs: BlockSizes,
    dist: Distribution,
    norandommap: bool,
    clone: u32,
    offset_increment: u64,
    io_size: Option<u64>,
    number_ios: Option<u64>,
    time_based: bool,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let a = (0..KINDS.len(), bytes(), prop::option::of(bytes()), prop::option::of(bytes()));
    let b = (
        prop::collection::vec(prop_oneof![Just(0u64), bytes()], 1..4),
        block_sizes(),
        distribution(),
        any::<bool>(),
        0u32..4,
        bytes(),
    );
    let c = (prop::option::of(bytes()), prop::option::of(0u64..5000), any::<bool>(), any::<u64>());
    (a, b, c).prop_map(|((kind, offset, size, fsize), b, c)| Case {
        kind,
        offset,
        size,
        filesize: fsize.map(|f| (f, f)),
        files: b.0,
        bs: b.1,
        dist: b.2,
        norandommap: b.3,
        clone: b.4,
        offset_increment: b.5,
        io_size: c.0,
        number_ios: c.1,
        time_based: c.2,
        seed: c.3,
    })
}

fn job_of(c: &Case) -> Job {
    let mut j = Job::with_defaults("prop");
    j.rw = KINDS[c.kind];
    j.offset = SizeSpec::Bytes(c.offset);
    j.size = c.size.map(SizeSpec::Bytes);
    j.filesize = c.filesize;
    j.nrfiles = c.files.len() as u32;
    j.bs = PerDir::splat(c.bs.clone());
    j.random_distribution = c.dist.clone();
    j.norandommap = c.norandommap;
    j.numjobs = c.clone + 1;
    j.offset_increment = c.offset_increment;
    j.io_size = c.io_size;
    j.number_ios = c.number_ios;
    j.time_based = c.time_based;
    j.randseed = c.seed;
    j
}

/// Check up to `n` requests of the stream for `c`: how many there were, or `None` when the
/// options are refused.
fn check_stream(c: &Case, n: usize) -> Result<Option<usize>, TestCaseError> {
    let job = job_of(c);
    let files: Vec<FileLayout> = c.files.iter().map(|&size| FileLayout { size }).collect();
    let input = WorkerInput { job: &job, clone_index: c.clone, thread_number: 1, files: &files };
    let Ok(w) = Workload::with_seeds(&input, &JobSeeds::repeatable(c.seed, 1)) else {
        return Ok(None);
    };
    let regions = w.regions().to_vec();
    for r in &regions {
        prop_assert!(r.start <= r.end && r.end <= r.file_size, "{r:?}");
    }
    let mut count = 0;
    for (i, req) in w.take(n).enumerate() {
        count += 1;
        let r = regions[req.file as usize];
        let end = req.offset.checked_add(req.len);
        prop_assert!(req.len > 0, "request {i}: {req:?}");
        prop_assert!(
            req.offset >= r.start && end.is_some_and(|e| e <= r.end),
            "request {i} {req:?} outside region {r:?}"
        );
    }
    Ok(Some(count))
}

/// 800 random option sets from a fixed seed; at least 180 must be accepted (so the
/// invariant is checked on real streams, not only on refusals).
#[test]
fn every_request_lies_inside_its_region() {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let config = Config { cases: 800, failure_persistence: None, ..Config::default() };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let (accepted, requests) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let r = runner.run(&case(), |c| {
        if let Some(n) = check_stream(&c, 3000)? {
            accepted.fetch_add(1, Ordering::Relaxed);
            requests.fetch_add(n, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{e}");
    }
    let (a, n) = (accepted.into_inner(), requests.into_inner());
    eprintln!("{a} of 800 option sets accepted, {n} requests checked");
    assert!(a >= 180 && n >= 100_000, "{a} accepted, {n} requests");
}

/// The two cases from the review: an offset that wrapped and one that laid out 1048575 bytes.
#[test]
fn offsets_near_2_64_are_refused_naming_offset() {
    for offset in [18446744073709543424u64, 18446744073709551615] {
        let mut j = Job::with_defaults("x");
        j.rw = RwKind::RandWrite;
        j.offset = SizeSpec::Bytes(offset);
        j.size = Some(SizeSpec::Bytes(1 << 20));
        let files = [FileLayout { size: 16 << 20 }];
        let input = WorkerInput { job: &j, clone_index: 0, thread_number: 1, files: &files };
        let e = Workload::new(&input).unwrap_err().to_string();
        assert!(e.starts_with("job 'x': offset="), "{e}");
        assert!(e.contains("2^64"), "{e}");
    }
}

/// A sequential region of 4097 bytes with bs=4096: one I/O, the tail untouched (fio 3.33).
#[test]
fn sequential_tail_shorter_than_bs_is_not_issued() {
    for (size, bs, n) in [(4097u64, 4096u64, 1usize), (4_000_000, 64_000, 62)] {
        let mut j = Job::with_defaults("x");
        j.size = Some(SizeSpec::Bytes(size));
        j.bs = PerDir::splat(BlockSizes { min: bs, max: bs, split: vec![], ranged: false });
        let files = [FileLayout { size: 0 }];
        let input = WorkerInput { job: &j, clone_index: 0, thread_number: 1, files: &files };
        let w = Workload::new(&input).unwrap();
        assert_eq!(w.regions()[0].end, size);
        let reqs: Vec<_> = w.collect();
        assert_eq!(reqs.len(), n, "size={size} bs={bs}");
        assert!(reqs.iter().all(|r| r.end() <= size));
    }
}
