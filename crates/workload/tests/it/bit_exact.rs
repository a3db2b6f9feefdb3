//! iolab-workload bit-exact with fio 3.33 (lib/rand.c, lib/lfsr.c, io_u.c): offsets, directions,
//! block sizes, distributions, sequencing and file choice.

use crate::common::*;
use iolab_core::{IoDir, PerDir};
use iolab_job::{BsSplit, Distribution, FileServiceKind, Job, RwKind, Zone};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};

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
