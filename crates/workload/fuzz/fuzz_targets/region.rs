//! Fuzz target: the generator's invariant "every request lies inside its file's region"
//! (see `src/generator.rs`) for arbitrary options. The bytes choose a fio command line
//! (rw, offset, size, filesize, nrfiles, bs / bsrange / bssplit, offset_increment with a
//! clone index, io_size, number_ios, norandommap, zoned / zoned_abs, time_based), which goes
//! through the job parser as `iolab run` would take it, and the existing sizes of the files;
//! then the first requests of the stream are checked. Any panic, a request outside its
//! region or a wrapped `offset + len` is a bug; refused options are fine.
#![no_main]

use iolab_job::{load_with, Env, LoadOptions};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

const RW: [&str; 10] = [
    "read",
    "write",
    "trim",
    "randread",
    "randwrite",
    "randtrim",
    "rw",
    "randrw",
    "trimwrite",
    "randtrimwrite",
];

/// A byte count near the interesting edges: small, block-aligned, or close to 2^64.
fn bytes(u: &mut Unstructured<'_>) -> Result<u64> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => u.int_in_range(0..=(64u64 << 20))?,
        1 => u.int_in_range(0..=64u64)? * 4096,
        2 => u64::MAX - u.int_in_range(0..=(8u64 << 20))?,
        _ => u.arbitrary()?,
    })
}

fn block_size(u: &mut Unstructured<'_>) -> Result<u64> {
    Ok(match u.int_in_range(0..=2u8)? {
        0 => 512 << u.int_in_range(0..=8u32)?,
        1 => u.int_in_range(1..=300_000u64)?,
        _ => bytes(u)?,
    })
}

fn cmdline(u: &mut Unstructured<'_>) -> Result<(Vec<String>, u32)> {
    let mut a = vec!["--name=f".to_string(), "--ioengine=null".to_string()];
    a.push(format!("--rw={}", u.choose(&RW)?));
    a.push(format!("--offset={}", bytes(u)?));
    if u.arbitrary()? {
        a.push(format!("--size={}", bytes(u)?));
    }
    if u.ratio(1, 4)? {
        a.push(format!("--filesize={}", bytes(u)?));
    }
    a.push(format!("--nrfiles={}", u.int_in_range(1..=3u32)?));
    match u.int_in_range(0..=2u8)? {
        0 => a.push(format!("--bs={}", block_size(u)?)),
        1 => a.push(format!("--bsrange={}-{}", block_size(u)?, block_size(u)?)),
        _ => {
            let (p, q) = (u.int_in_range(1..=99u32)?, block_size(u)?);
            a.push(format!("--bssplit={}/{p}:{}/{}", block_size(u)?, q, 100 - p));
        }
    }
    let clones = u.int_in_range(1..=4u32)?;
    a.push(format!("--numjobs={clones}"));
    a.push(format!("--offset_increment={}", bytes(u)?));
    if u.ratio(1, 4)? {
        a.push(format!("--io_size={}", bytes(u)?));
    }
    if u.ratio(1, 4)? {
        a.push(format!("--number_ios={}", u.int_in_range(0..=5000u64)?));
    }
    if u.arbitrary()? {
        a.push("--norandommap=1".to_string());
    }
    if u.ratio(1, 4)? {
        let p = u.int_in_range(1..=99u32)?;
        let s = u.int_in_range(0..=100u32)?;
        a.push(format!("--random_distribution=zoned:{p}/{s}:{}/{}", 100 - p, 100 - s));
    } else if u.ratio(1, 5)? {
        let p = u.int_in_range(1..=99u32)?;
        let (s1, s2) = (u.int_in_range(0..=(8u64 << 20))?, u.int_in_range(0..=(8u64 << 20))?);
        a.push(format!("--random_distribution=zoned_abs:{p}/{s1}:{}/{s2}", 100 - p));
    }
    if u.ratio(1, 4)? {
        a.push("--time_based=1".to_string());
    }
    Ok((a, u.int_in_range(0..=clones - 1)?))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((args, clone)) = cmdline(&mut u) else { return };
    let files: Vec<FileLayout> = (0..3)
        .map(|_| FileLayout {
            size: if u.arbitrary().unwrap_or(false) { bytes(&mut u).unwrap_or(0) } else { 0 },
        })
        .collect();
    let env = Env::fixed(&[], 4, 1024, 4096);
    let Ok(loaded) = load_with(&LoadOptions { cmdline: args, ..Default::default() }, &env) else {
        return;
    };
    let Some(job) = loaded.jobs.first() else { return };
    let files = &files[..(job.nrfiles.clamp(1, 3) as usize)];
    let input = WorkerInput { job, clone_index: clone, thread_number: 1, files };
    let Ok(w) = Workload::with_seeds(&input, &JobSeeds::repeatable(job.randseed, 1)) else {
        return;
    };
    let regions = w.regions().to_vec();
    for r in &regions {
        assert!(r.start <= r.end && r.end <= r.file_size, "bad region {r:?}");
    }
    for req in w.take(2000) {
        let r = regions[req.file as usize];
        let end = req.offset.checked_add(req.len);
        assert!(req.len > 0, "empty request {req:?}");
        assert!(
            req.offset >= r.start && end.is_some_and(|e| e <= r.end),
            "request {req:?} outside region {r:?}"
        );
    }
});
