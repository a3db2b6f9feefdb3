//! Integration tests for iolab-workload: what a storage engineer would check about a request
//! stream (offsets, coverage, proportions, rates), with fixed seeds.
#![allow(clippy::unwrap_used)]

use iolab_job::{Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};

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
    let diff: Vec<usize> = (0..new.0.len()).filter(|&i| new.0[i] != old.0[i]).collect();
    assert_eq!(diff, vec![iolab_workload::seeds::Slot::BlockOff as usize]);
    // Still a full pass, each block once.
    let mut seen = [0u32; 256];
    for r in wl(&j) {
        seen[(r.offset / 4096) as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c == 1));
}
