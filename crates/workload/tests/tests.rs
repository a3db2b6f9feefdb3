//! Integration tests for iolab-workload: what a storage engineer would check about a request
//! stream (offsets, coverage, proportions, rates), with fixed seeds.
#![allow(clippy::unwrap_used)]

use iolab_core::{IoDir, IoRequest, Nanos, PerDir};
use iolab_job::{BsSplit, Distribution, FileServiceKind, Job, RateProcess, RwKind, SizeSpec, Zone};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};

mod fio_diff;
mod region;

fn input<'a>(job: &'a Job, files: &'a [FileLayout]) -> WorkerInput<'a> {
    WorkerInput { job, clone_index: 0, thread_number: 1, files }
}

fn wl(job: &Job) -> Workload {
    let files = vec![FileLayout { size: 0 }; job.nrfiles.max(1) as usize];
    Workload::new(&input(job, &files)).unwrap()
}

fn job(rw: RwKind, size: u64) -> Job {
    let mut j = Job::with_defaults("x");
    j.rw = rw;
    j.size = Some(SizeSpec::Bytes(size));
    j
}

/// `fio-3.33 --ioengine=null --name=x --rw=randread --size=1m --bs=4k --write_iolog=...`:
/// the whole pass, in 4 KiB blocks. Collisions go to the next free block (6th: 215 → 216).
const FIO_3_33_RANDREAD_1M: [u64; 256] = [
    15, 189, 215, 120, 102, 216, 97, 90, 233, 17, 218, 166, 237, 63, 100, 143, 112, 205, 92, 158,
    1, 108, 80, 176, 202, 252, 206, 66, 64, 254, 18, 217, 245, 3, 11, 19, 47, 9, 91, 136, 230, 190,
    65, 25, 13, 241, 122, 87, 6, 173, 31, 255, 83, 248, 113, 191, 10, 232, 199, 171, 61, 174, 224,
    101, 129, 93, 16, 115, 20, 130, 36, 180, 219, 12, 7, 84, 24, 89, 109, 177, 220, 73, 192, 110,
    221, 116, 193, 82, 198, 69, 40, 44, 60, 56, 228, 167, 51, 147, 103, 8, 137, 70, 185, 53, 222,
    188, 52, 81, 21, 119, 22, 159, 234, 175, 178, 104, 163, 168, 105, 244, 242, 144, 124, 210, 42,
    134, 88, 23, 249, 49, 231, 14, 201, 207, 43, 223, 161, 133, 107, 29, 67, 186, 250, 200, 54,
    208, 106, 85, 152, 94, 253, 146, 170, 45, 251, 0, 203, 194, 2, 195, 187, 196, 164, 41, 155,
    131, 5, 32, 27, 197, 118, 123, 111, 26, 172, 225, 204, 33, 95, 209, 114, 62, 226, 28, 30, 48,
    99, 142, 117, 135, 34, 121, 35, 165, 211, 212, 125, 4, 79, 140, 229, 46, 235, 184, 96, 37, 213,
    169, 98, 55, 238, 181, 57, 145, 246, 214, 126, 243, 38, 227, 59, 179, 236, 39, 149, 151, 50,
    58, 68, 239, 127, 128, 162, 240, 71, 72, 74, 247, 153, 132, 75, 76, 138, 77, 78, 86, 139, 141,
    148, 150, 154, 156, 182, 157, 160, 183,
];

/// The same job with `--norandommap`: independent draws (block 215 repeats at I/O 6).
const FIO_3_33_NORANDOMMAP_1M: [u64; 32] = [
    15, 189, 215, 120, 102, 215, 97, 90, 233, 17, 218, 166, 237, 63, 100, 143, 112, 205, 92, 158,
    1, 108, 80, 176, 202, 252, 205, 66, 64, 254, 18, 215,
];

#[test]
fn randread_offsets_are_bit_exact_with_fio_3_33() {
    let j = job(RwKind::RandRead, 1 << 20);
    let files = [FileLayout { size: 0 }];
    let seeds = JobSeeds::fio_3_33(j.randseed, 1, true);
    let w = Workload::with_seeds(&input(&j, &files), &seeds).unwrap();
    let got: Vec<u64> = w.map(|r| r.offset / 4096).collect();
    assert_eq!(got, FIO_3_33_RANDREAD_1M);

    let mut j = j;
    j.norandommap = true;
    let w = Workload::with_seeds(&input(&j, &files), &seeds).unwrap();
    let got: Vec<u64> = w.take(32).map(|r| r.offset / 4096).collect();
    assert_eq!(got, FIO_3_33_NORANDOMMAP_1M);
}

#[test]
fn current_fio_seeding_differs_from_3_33_only_in_block_offsets() {
    let j = job(RwKind::RandRead, 1 << 20);
    let new = JobSeeds::repeatable(j.randseed, 1);
    let old = JobSeeds::fio_3_33(j.randseed, 1, true);
    let diff: Vec<usize> = (0..new.slots.len()).filter(|&i| new.slots[i] != old.slots[i]).collect();
    assert_eq!(diff, vec![iolab_workload::seeds::Slot::BlockOff as usize]);
    // Still a full pass, each block once.
    let mut seen = [0u32; 256];
    for r in wl(&j) {
        seen[(r.offset / 4096) as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c == 1));
}

fn fio33(j: &Job, files: &[FileLayout]) -> Workload {
    Workload::with_seeds(&input(j, files), &JobSeeds::fio_3_33(j.randseed, 1, true)).unwrap()
}

fn blocks(w: Workload, n: usize) -> Vec<u64> {
    w.take(n).map(|r| r.offset / 4096).collect()
}

/// `fio-3.33 --rw=randrw --rwmixread=70 --size=1m --bs=4k`: direction and block of the first
/// 40 I/Os (fio's per-I/O 1..100 draw from the MIX seed; offsets as randread).
#[test]
fn randrw_directions_and_offsets_are_bit_exact_with_fio_3_33() {
    let fio = "r15,r189,r215,w120,r102,r216,w97,r90,r233,r17,w218,r166,w237,r63,r100,r143,r112,\
               r205,r92,r158,w1,w108,r80,w176,r202,r252,r206,w66,w64,w254,r18,r217,r245,w3,r11,\
               w19,w47,r9,r91,w136";
    let mut j = job(RwKind::RandRw, 1 << 20);
    j.rwmixread = 70;
    let got: Vec<String> = fio33(&j, &[FileLayout::default()])
        .take(40)
        .map(|r| format!("{}{}", if r.dir == IoDir::Read { 'r' } else { 'w' }, r.offset / 4096))
        .collect();
    assert_eq!(got.join(","), fio);
}

/// `--bsrange=4k-16k`: (block, length in 4k) — lengths from the BS seed, and the random map
/// shortening an I/O that runs into a used block (101:1 because 102 is taken).
#[test]
fn bsrange_lengths_and_map_shortening_are_bit_exact_with_fio_3_33() {
    let fio: [(u64, u64); 30] = [
        (15, 1),
        (189, 3),
        (215, 4),
        (120, 2),
        (102, 4),
        (219, 1),
        (97, 4),
        (90, 1),
        (233, 1),
        (17, 1),
        (220, 1),
        (166, 2),
        (237, 1),
        (63, 1),
        (101, 1),
        (143, 3),
        (112, 3),
        (205, 4),
        (92, 4),
        (158, 4),
        (1, 3),
        (108, 3),
        (80, 2),
        (176, 4),
        (202, 2),
        (252, 1),
        (209, 2),
        (66, 2),
        (64, 2),
        (254, 1),
    ];
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.bs.read.max = 16384;
    let got: Vec<(u64, u64)> = fio33(&j, &[FileLayout::default()])
        .take(30)
        .map(|r| (r.offset / 4096, r.len / 4096))
        .collect();
    assert_eq!(got, fio);
}

/// `--rw=read --size=64k --bssplit=4k/50:16k/30:8k/20`: fio sorts entries by share.
#[test]
fn bssplit_sequence_is_bit_exact_with_fio_3_33() {
    let mut j = job(RwKind::Read, 64 << 10);
    j.bs.read.split = vec![
        BsSplit { bs: 4096, perc: 50 },
        BsSplit { bs: 16384, perc: 30 },
        BsSplit { bs: 8192, perc: 20 },
    ];
    let got: Vec<(u64, u64)> =
        fio33(&j, &[FileLayout::default()]).map(|r| (r.offset / 4096, r.len / 4096)).collect();
    let fio = [(0, 2), (2, 1), (3, 1), (4, 4), (8, 1), (9, 2), (11, 1), (12, 2), (14, 1), (15, 1)];
    assert_eq!(got, fio);
}

/// Non-uniform distributions on `--size=64m --bs=4k` (16384 blocks), first 20 blocks as fio
/// 3.33 wrote them with `write_iolog`: the hash scramble, `rand_off` from jhash("x.0.0") and
/// the zone table all match.
#[test]
fn distributions_are_bit_exact_with_fio_3_33() {
    let z = vec![
        Zone { access_pct: 60, size: 10.0 },
        Zone { access_pct: 30, size: 20.0 },
        Zone { access_pct: 10, size: 70.0 },
    ];
    let cases: [(Distribution, [u64; 20]); 4] = [
        (
            Distribution::Zipf { theta: 1.2, center: None },
            [
                462, 5803, 14780, 15843, 13837, 14840, 462, 7814, 4474, 13837, 13837, 13165, 15843,
                13837, 11781, 121, 14840, 16174, 1465, 6636,
            ],
        ),
        (
            Distribution::Pareto { h: 0.3, center: None },
            [
                3070, 14556, 13133, 5783, 462, 1786, 5402, 2675, 1320, 13501, 13832, 6416, 7122,
                15838, 1137, 6256, 12819, 3051, 15743, 1534,
            ],
        ),
        (
            Distribution::Normal { dev: 5.0, center: None },
            [
                7074, 188, 15444, 5153, 9235, 3974, 14601, 549, 7785, 9706, 11983, 5505, 15725,
                11557, 9009, 4084, 12535, 7966, 15178, 10107,
            ],
        ),
        (
            Distribution::Zoned(PerDir::splat(z)),
            [
                98, 1212, 1381, 10305, 2954, 1376, 2884, 579, 4629, 5681, 14722, 1066, 1520, 404,
                2923, 915, 721, 1317, 592, 1014,
            ],
        ),
    ];
    for (d, fio) in cases {
        let mut j = job(RwKind::RandRead, 64 << 20);
        j.random_distribution = d.clone();
        assert_eq!(blocks(fio33(&j, &[FileLayout::default()]), 20), fio, "{d:?}");
    }
}

/// `rw=randread:4` (first I/O random, then 3 sequential), `percentage_random=50` (sequential
/// steps are not marked in the random map, so 216 and 17 can be drawn again), and
/// `nrfiles=3 file_service_type=random`.
#[test]
fn sequencing_and_file_choice_are_bit_exact_with_fio_3_33() {
    let one = [FileLayout::default()];
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.ddir_seq_nr = 4;
    assert_eq!(
        blocks(fio33(&j, &one), 20),
        [
            15, 16, 17, 18, 189, 190, 191, 192, 215, 216, 217, 218, 120, 121, 122, 123, 102, 103,
            104, 105
        ]
    );
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.percentage_random = PerDir::splat(50);
    assert_eq!(
        blocks(fio33(&j, &one), 20),
        [15, 16, 17, 189, 190, 215, 216, 120, 102, 216, 97, 98, 99, 90, 91, 92, 233, 17, 18, 19]
    );
    let mut j = job(RwKind::RandRead, 3 << 20);
    j.nrfiles = 3;
    j.file_service.kind = FileServiceKind::Random;
    let got: Vec<u32> = fio33(&j, &[FileLayout::default(); 3]).take(20).map(|r| r.file).collect();
    assert_eq!(got, [2, 2, 0, 0, 2, 0, 2, 2, 1, 2, 2, 1, 0, 2, 2, 0, 1, 2, 1, 2]);
}

#[test]
fn offsets_are_aligned_and_inside_the_region() {
    let mut j = job(RwKind::RandRw, 3 << 20);
    j.offset = SizeSpec::Bytes(1 << 20);
    j.nrfiles = 3;
    j.bs = PerDir::splat(iolab_job::BlockSizes { min: 4096, max: 65536, split: vec![] });
    let files = [FileLayout { size: 0 }; 3];
    let w = Workload::new(&input(&j, &files)).unwrap();
    let regions = w.regions().to_vec();
    assert_eq!(regions.len(), 3);
    for r in &regions {
        assert_eq!((r.start, r.end), (1 << 20, 2 << 20));
    }
    let mut n = 0;
    let mut bytes = 0;
    for r in w {
        let reg = regions[r.file as usize];
        assert_eq!(r.offset % 4096, 0, "{r:?}");
        assert_eq!(r.len % 4096, 0, "{r:?}");
        assert!(r.offset >= reg.start && r.end() <= reg.end, "{r:?}");
        n += 1;
        bytes += r.len;
    }
    assert!(n > 0);
    assert_eq!(bytes, 3 << 20, "randrw issues exactly size bytes");
}

#[test]
fn random_map_pass_touches_every_block_exactly_once_then_wraps() {
    // 1000 blocks: not a power of two, so collisions exercise next_free and wrap-around.
    let mut j = job(RwKind::RandWrite, 1000 * 4096);
    j.time_based = true;
    let mut w = wl(&j);
    for pass in 0..3 {
        let mut seen = vec![0u8; 1000];
        let mut r = IoRequest::default();
        for _ in 0..1000 {
            assert!(w.next_into(&mut r));
            seen[(r.offset / 4096) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c == 1), "pass {pass}");
        assert_eq!(w.passes(), pass);
    }
    assert_eq!(w.stop().bytes, None);
}

/// Pearson's chi-square over 100 equal bins of a 10,000-block region, 200,000 uniform draws
/// (norandommap): 99 degrees of freedom, critical value 148.2 at p = 0.001.
#[test]
fn uniform_offsets_pass_chi_square() {
    let mut j = job(RwKind::RandRead, 10_000 * 4096);
    j.norandommap = true;
    j.number_ios = Some(200_000);
    j.time_based = true;
    let mut bins = [0u64; 100];
    let mut n = 0;
    for r in wl(&j) {
        bins[(r.offset / 4096 / 100) as usize] += 1;
        n += 1;
    }
    assert_eq!(n, 200_000);
    let e = n as f64 / 100.0;
    let chi2: f64 = bins.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    assert!(chi2 < 148.2, "chi2 = {chi2}");
    assert!(chi2 > 50.0, "chi2 = {chi2} is suspiciously small for 99 dof");
}

/// Least-squares slope of log(frequency) on log(rank) over ranks 1..=k.
fn rank_slope(counts: &mut [u64], k: usize) -> f64 {
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let pts: Vec<(f64, f64)> = (0..k)
        .filter(|&i| counts[i] > 0)
        .map(|i| (((i + 1) as f64).ln(), (counts[i] as f64).ln()))
        .collect();
    let m = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / m, sy / m);
    let num: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let den: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    num / den
}

#[test]
fn exact_zipf_rank_frequency_slope_is_minus_theta() {
    for theta in [0.8, 1.2] {
        let mut j = job(RwKind::RandRead, 100_000 * 4096);
        j.random_distribution = Distribution::Zipf { theta, center: None };
        j.zipf_exact = true;
        j.number_ios = Some(1_000_000);
        let mut counts = vec![0u64; 100_000];
        for r in wl(&j) {
            counts[(r.offset / 4096) as usize] += 1;
        }
        let slope = rank_slope(&mut counts, 200);
        assert!((slope + theta).abs() < 0.05, "theta {theta}: slope {slope}");
    }
}

/// fio's Gray et al. generator against its own analytic rank probabilities (ranks 1..=20 and
/// the tail beyond), 1,000,000 draws: every cell within 4 standard errors.
#[test]
fn fio_zipf_matches_the_gray_formula_rank_probabilities() {
    use iolab_workload::dist::FioZipf;
    let n = 1_000_000u64;
    let mut z = FioZipf::new(n, 1.2, None, 1234);
    let draws = 1_000_000;
    let mut counts = [0u64; 21];
    for _ in 0..draws {
        let r = z.next_rank() as usize;
        counts[r.min(20)] += 1;
    }
    let mut p_head = 0.0;
    for (r, &c) in counts.iter().enumerate().take(20) {
        let p = z.rank_probability(r as u64);
        p_head += p;
        let se = (p * (1.0 - p) / draws as f64).sqrt();
        let got = c as f64 / draws as f64;
        assert!((got - p).abs() < 4.0 * se + 1e-9, "rank {}: {got} vs {p}", r + 1);
    }
    let tail = counts[20] as f64 / draws as f64;
    assert!((tail - (1.0 - p_head)).abs() < 0.002, "tail {tail} vs {}", 1.0 - p_head);
    // The approximation is visible: fio's rank 3 is over-sampled relative to exact Zipf.
    let exact3 = 3f64.powf(-1.2) / z.zetan();
    assert!(z.rank_probability(2) > 1.1 * exact3);
}

/// pareto:0.2 is the 80/20 rule: P(rank < 0.2·n) = 0.2^(ln 0.8 / ln 0.2) = 0.800.
#[test]
fn pareto_sends_80_percent_to_the_hottest_20_percent() {
    use iolab_workload::dist::FioPareto;
    let n = 100_000u64;
    let mut p = FioPareto::new(n, 0.2, None, 99);
    let draws = 200_000;
    let hot = (0..draws).filter(|_| p.next_rank() < n / 5).count();
    let f = hot as f64 / draws as f64;
    assert!((f - 0.8).abs() < 0.005, "{f}");
}

#[test]
fn rwmix_70_30_proportions_and_run_lengths() {
    let mut j = job(RwKind::RandRw, 1 << 30);
    j.rwmixread = 70;
    j.norandommap = true;
    j.number_ios = Some(200_000);
    let (mut reads, mut runs) = (0u64, [Vec::new(), Vec::new()]);
    let (mut cur, mut len) = (None, 0u64);
    for r in wl(&j) {
        let d = (r.dir == IoDir::Write) as usize;
        reads += (d == 0) as u64;
        if cur == Some(d) {
            len += 1;
        } else {
            if let Some(c) = cur {
                runs[c].push(len);
            }
            cur = Some(d);
            len = 1;
        }
    }
    let frac = reads as f64 / 200_000.0;
    assert!((frac - 0.70).abs() < 0.005, "read fraction {frac}");
    let mean = |v: &Vec<u64>| v.iter().sum::<u64>() as f64 / v.len() as f64;
    let (mr, mw) = (mean(&runs[0]), mean(&runs[1]));
    assert!((mr - 1.0 / 0.3).abs() < 0.05, "mean read run {mr}");
    assert!((mw - 1.0 / 0.7).abs() < 0.02, "mean write run {mw}");
}

#[test]
fn bssplit_proportions() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.number_ios = Some(100_000);
    j.time_based = true;
    j.bs.read.split = vec![
        BsSplit { bs: 4096, perc: 50 },
        BsSplit { bs: 16384, perc: 30 },
        BsSplit { bs: 65536, perc: 20 },
    ];
    let mut c = std::collections::BTreeMap::new();
    for r in wl(&j) {
        *c.entry(r.len).or_insert(0u64) += 1;
    }
    for (bs, want) in [(4096, 0.5), (16384, 0.3), (65536, 0.2)] {
        let got = c[&bs] as f64 / 100_000.0;
        assert!((got - want).abs() < 0.006, "{bs}: {got}");
    }
}

#[test]
fn bsrange_rounds_down_to_a_multiple_of_min_unless_bs_unaligned() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.number_ios = Some(20_000);
    j.bs.read = iolab_job::BlockSizes { min: 3000, max: 10_000, split: vec![] };
    let lens: std::collections::BTreeSet<u64> = wl(&j).map(|r| r.len).collect();
    // fio draws in [min, min + max), rounds down to a multiple of min, then caps at max: so a
    // max that is not a multiple of min is itself produced (12000 → 10000).
    assert_eq!(lens.into_iter().collect::<Vec<_>>(), vec![3000, 6000, 9000, 10_000]);
    j.bs_unaligned = true;
    let lens: std::collections::BTreeSet<u64> = wl(&j).map(|r| r.len).collect();
    assert!(lens.len() > 1000 && lens.iter().all(|&l| (3000..=10_000).contains(&l)));
}

fn achieved_iops(j: &Job, n: u64) -> f64 {
    let mut last = Nanos::ZERO;
    let mut prev = Nanos::ZERO;
    for r in wl(j).take(n as usize) {
        let t = r.issue_at.unwrap();
        assert!(t >= prev, "issue_at must not go backwards");
        prev = t;
        last = t;
    }
    (n - 1) as f64 / last.as_secs_f64()
}

#[test]
fn rate_schedule_is_accurate_at_10k_300k_and_1m_iops() {
    for process in [RateProcess::Linear, RateProcess::Poisson] {
        for iops in [10_000u64, 300_000, 1_000_000] {
            let mut j = job(RwKind::RandRead, 1 << 30);
            j.norandommap = true;
            j.time_based = true;
            j.rate_iops = PerDir::splat(iops);
            j.rate_process = process;
            let got = achieved_iops(&j, 1_000_000);
            let err = (got - iops as f64).abs() / iops as f64;
            assert!(err < 0.005, "{process:?} {iops}: {got} ({:.3}%)", err * 100.0);
        }
    }
    // `rate=` in bytes/s: 400 MB/s of 4 KiB = 97,656.25 IOPS.
    let mut j = job(RwKind::Read, 1 << 30);
    j.rate = PerDir::splat(400_000_000);
    let got = achieved_iops(&j, 100_000);
    assert!((got / 97_656.25 - 1.0).abs() < 1e-4, "{got}");
}

#[test]
fn poisson_interarrivals_are_exponential() {
    let mut j = job(RwKind::RandRead, 1 << 30);
    j.norandommap = true;
    j.time_based = true;
    j.rate_iops = PerDir::splat(1_000_000);
    j.rate_process = RateProcess::Poisson;
    let t: Vec<u64> = wl(&j).take(200_001).map(|r| r.issue_at.unwrap().0).collect();
    let gaps: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    // Exponential: coefficient of variation 1 (rounding to whole ns adds < 0.1%).
    assert!((mean - 1000.0).abs() < 10.0, "mean gap {mean} ns");
    assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "cv {}", var.sqrt() / mean);
}

#[test]
fn thinktime_is_folded_into_the_schedule() {
    let mut j = job(RwKind::Read, 1 << 20);
    j.thinktime = Nanos::from_micros(100);
    j.thinktime_blocks = 4;
    let t: Vec<u64> = wl(&j).take(12).map(|r| r.issue_at.unwrap().0).collect();
    assert_eq!(
        t,
        [0, 0, 0, 0, 100_000, 100_000, 100_000, 100_000, 200_000, 200_000, 200_000, 200_000]
    );
    // With rate_iops=1000 and thinktime shorter than the gap, the rate dominates.
    j.rate_iops = PerDir::splat(1000);
    j.thinktime_blocks = 1;
    let t: Vec<u64> = wl(&j).take(3).map(|r| r.issue_at.unwrap().0).collect();
    assert_eq!(t, [0, 1_000_000, 2_000_000]);
    // Unpaced jobs carry no issue time.
    assert_eq!(wl(&job(RwKind::Read, 1 << 20)).next().unwrap().issue_at, None);
}

/// zoned:60/10:30/20:10/70 — 60% of I/O in the first 10% of the region, 30% in the next 20%.
#[test]
fn zoned_proportions() {
    let z = vec![
        Zone { access_pct: 60, size: 10.0 },
        Zone { access_pct: 30, size: 20.0 },
        Zone { access_pct: 10, size: 70.0 },
    ];
    let mut j = job(RwKind::RandRead, 10_000 * 4096);
    j.random_distribution = Distribution::Zoned(PerDir::splat(z));
    j.number_ios = Some(100_000);
    j.time_based = true;
    let mut c = [0u64; 3];
    for r in wl(&j) {
        let b = r.offset / 4096;
        c[if b < 1000 {
            0
        } else if b < 3000 {
            1
        } else {
            2
        }] += 1;
    }
    for (got, want) in c.iter().zip([0.6, 0.3, 0.1]) {
        assert!((*got as f64 / 1e5 - want).abs() < 0.006, "{c:?}");
    }
    // zoned_abs: 50% of accesses in the first 1 MiB, 50% in the next 3 MiB.
    let z =
        vec![Zone { access_pct: 50, size: 1048576.0 }, Zone { access_pct: 50, size: 3145728.0 }];
    j.random_distribution = Distribution::ZonedAbs(PerDir::splat(z));
    let first = wl(&j).filter(|r| r.offset < 1 << 20).count();
    assert!((first as f64 / 1e5 - 0.5).abs() < 0.006, "{first}");
    assert!(wl(&j).all(|r| r.end() <= 4 << 20));
}

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
fn trimwrite_trims_then_writes_the_same_block() {
    let j = job(RwKind::TrimWrite, 64 << 10);
    let v: Vec<(IoDir, u64)> = wl(&j).map(|r| (r.dir, r.offset / 4096)).collect();
    assert_eq!(v.len(), 32);
    for (i, p) in v.chunks(2).enumerate() {
        assert_eq!(p, [(IoDir::Trim, i as u64), (IoDir::Write, i as u64)]);
    }
    let j = job(RwKind::RandTrimWrite, 64 << 10);
    let v: Vec<IoRequest> = wl(&j).collect();
    for p in v.chunks(2) {
        assert_eq!((p[0].dir, p[1].dir), (IoDir::Trim, IoDir::Write));
        assert_eq!((p[0].offset, p[0].len), (p[1].offset, p[1].len));
    }
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
fn hot_set_shared_gives_clones_the_same_hot_blocks() {
    let top = |j: &Job, t: u32| {
        let files = [FileLayout::default()];
        let w =
            Workload::new(&WorkerInput { job: j, clone_index: 0, thread_number: t, files: &files })
                .unwrap();
        let mut c = std::collections::HashMap::new();
        for r in w.take(50_000) {
            *c.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<(u32, u64)> = c.into_iter().map(|(o, n)| (n, o)).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.iter().take(10).map(|x| x.1).collect::<std::collections::BTreeSet<u64>>()
    };
    let mut j = job(RwKind::RandRead, 64 << 20);
    j.random_distribution = Distribution::Zipf { theta: 1.2, center: None };
    j.numjobs = 2;
    let (a, b) = (top(&j, 1), top(&j, 2));
    assert_eq!(a.intersection(&b).count(), 0, "per-job hot sets differ, as in fio");
    j.hot_set = iolab_job::HotSet::Shared;
    let (a, b) = (top(&j, 1), top(&j, 2));
    assert!(a.intersection(&b).count() >= 8, "{a:?} vs {b:?}");
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

/// `--random_generator=lfsr --size=1m --bs=4k` with fio 3.33: the LFSR's first 40 blocks, and a
/// full pass of 256 distinct blocks with no random map.
#[test]
fn lfsr_is_bit_exact_with_fio_3_33() {
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.random_generator = iolab_job::RandomGenerator::Lfsr;
    let fio = [
        235, 205, 163, 196, 114, 41, 154, 93, 135, 248, 108, 38, 3, 208, 120, 44, 6, 19, 210, 121,
        142, 87, 245, 173, 187, 199, 252, 110, 39, 242, 105, 138, 85, 133, 177, 188, 78, 55, 243,
        206,
    ];
    let all: Vec<u64> = fio33(&j, &[FileLayout::default()]).map(|r| r.offset / 4096).collect();
    assert_eq!(all[..40], fio);
    let distinct: std::collections::BTreeSet<u64> = all.iter().copied().collect();
    assert_eq!((all.len(), distinct.len()), (256, 256));
    // 250 blocks (not a power of two): values ≥ 250 are stepped over.
    let mut j = job(RwKind::RandRead, 1000 << 10);
    j.random_generator = iolab_job::RandomGenerator::Lfsr;
    let fio250 = [
        67, 161, 208, 80, 16, 48, 32, 40, 44, 46, 47, 151, 203, 229, 242, 65, 160, 104, 12, 62, 39,
        147, 201, 228, 74, 29, 142, 127, 191, 223,
    ];
    assert_eq!(blocks(fio33(&j, &[FileLayout::default()]), 30), fio250);
}

/// `rw=randread:4 rw_sequencer=identical`: each random offset is issued 4 times (fio 3.33);
/// `nrfiles=3 filesize=64k-256k`: per-file sizes drawn from the FILE_SIZE seed, rounded down
/// to the block size (fio 3.33 read 22, 30 and 30 blocks).
#[test]
fn identical_sequencer_and_filesize_range_match_fio_3_33() {
    let mut j = job(RwKind::RandRead, 1 << 20);
    j.ddir_seq_nr = 4;
    j.rw_sequencer = iolab_job::RwSequencer::Identical;
    assert_eq!(
        blocks(fio33(&j, &[FileLayout::default()]), 12),
        [15, 15, 15, 15, 189, 189, 189, 189, 215, 215, 215, 215]
    );
    let mut j = Job::with_defaults("x");
    j.nrfiles = 3;
    j.filesize = Some((64 << 10, 256 << 10));
    let w = fio33(&j, &[FileLayout::default(); 3]);
    let sizes: Vec<u64> = w.regions().iter().map(|r| r.len() / 4096).collect();
    assert_eq!(sizes, [22, 30, 30]);
    let mut per_file = [0u64; 3];
    for r in w {
        per_file[r.file as usize] += 1;
    }
    assert_eq!(per_file, [22, 30, 30]);
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

/// `offset_increment=N%` and `io_size=N%` as fio 3.33 computes them (filesetup.c
/// get_start_offset / setup_files). Pinned from `fio --name=x --filename=f8 (8 MiB)
/// --rw=read --bs=4k --numjobs=3 --ioengine=psync --write_iolog`: with 25%/50% the clones'
/// io_bytes are 4/3/2 MiB from 0/2/4 MiB; with 10%/10% they are 839,680 / 757,760 / 671,744
/// bytes, and every offset of the three logs equals iolab's `--write-iolog` (2304 and 554 I/Os).
#[test]
fn percent_offset_increment_and_io_size_follow_fio() {
    let files = [FileLayout { size: 8 << 20 }];
    let mut job = job(RwKind::Read, 0);
    job.size = None;
    job.numjobs = 3;
    let run = |job: &Job| -> Vec<(u64, u64, u64)> {
        (0..3u32)
            .map(|c| {
                let w = Workload::new(&WorkerInput {
                    job,
                    clone_index: c,
                    thread_number: c + 1,
                    files: &files,
                })
                .unwrap();
                let start = w.regions()[0].start;
                let reqs: Vec<_> = w.into_iter().collect();
                let bytes: u64 = reqs.iter().map(|r| r.len).sum();
                assert_eq!(reqs[0].offset, start);
                (start, bytes, reqs.last().unwrap().end())
            })
            .collect()
    };
    job.offset_increment_percent = Some(25);
    job.io_size_percent = Some(50);
    assert_eq!(
        run(&job),
        vec![(0, 4 << 20, 4 << 20), (2 << 20, 3 << 20, 5 << 20), (4 << 20, 2 << 20, 6 << 20)]
    );
    // 10% of 8 MiB is 838,860 bytes: the increment aligns up to 839,680 (a 4 KiB multiple),
    // and each clone's budget (10% of what is left of its region) ends on a whole block.
    job.offset_increment_percent = Some(10);
    job.io_size_percent = Some(10);
    let got = run(&job);
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![0, 839_680, 1_679_360]);
    assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), vec![839_680, 757_760, 671_744]);
}
