//! The per-worker request generator: fio's io_u.c decision sequence for one I/O —
//! direction (`get_rw_ddir`, `set_rw_ddir`), file (`get_next_file`), offset
//! (`get_next_offset` → `get_next_block` → `get_next_rand_block` / `get_next_seq_offset`),
//! length (`get_next_buflen`), random-map marking (`mark_random_map`) — plus the loop
//! structure of backend.c/`keep_running` (a pass per `loops`, wrapping when `io_size` exceeds
//! the region or the job is `time_based`).
//!
//! The hot path allocates nothing; it is one Tausworthe draw, one float multiply and a bitmap
//! test for a uniform random read.
//!
//! **Invariant**: every request lies inside its file's region, `region.start <= offset` and
//! `offset + len <= region.end` (no sum wraps: [`compute_regions`] refuses a region whose end
//! passes 2^64). `offset_len` and `fast_offset_len` keep it by drawing a length only for the
//! room left before the region's end (`BsGen::next` returns 0 when not even the minimum
//! fits, which ends the file's pass as fio's `get_next_buflen` does). `tests/it/region.rs`
//! checks it with proptest over random options and `fuzz/` with cargo-fuzz.

use crate::bs::BsGen;
use crate::dist::{
    coprime_stride, fio_jhash, fio_scramble_reachable, ExactZipf, FioGauss, FioPareto, FioZipf,
    Scramble,
};
use crate::pacing::{DirRate, Pacer};
use crate::randmap::RandMap;
use crate::region::{compute_regions, Region};
use crate::seeds::{FioSeeds, JobSeeds, Slot};
use crate::strided::Strided;
use crate::{StopConditions, WorkerInput, WorkloadError};
use iolab_core::rand::{mix64, FioLfsr, FioRand, Taus88};
use iolab_core::{IoDir, IoRequest};
use iolab_job::{
    Distribution, FileServiceKind, HotSet, Job, RandomGenerator, RwKind, RwSequencer, SizeSpec,
    Zone,
};

const DIRS: [IoDir; 3] = [IoDir::Read, IoDir::Write, IoDir::Trim];
/// fio's `FIO_FSERVICE_SHIFT`: non-uniform file choice draws over `nr_files << 10` ranges.
const FSERVICE_SHIFT: u32 = 10;
/// What a byte total that passes 2^64 should have been.
const SUM_EXPECTED: &str = "a byte total below 2^64";

/// A per-file non-uniform block generator.
#[derive(Clone, Debug)]
enum FileDist {
    Zipf(FioZipf),
    ExactZipf(ExactZipf),
    Pareto(FioPareto),
    Gauss(FioGauss),
}

impl FileDist {
    #[inline]
    fn sample(&mut self) -> u64 {
        match self {
            FileDist::Zipf(z) => z.sample(),
            FileDist::ExactZipf(z) => z.sample(),
            FileDist::Pareto(p) => p.sample(),
            FileDist::Gauss(g) => g.sample(),
        }
    }
}

/// `zoned`/`zoned_abs`: for each direction, the zone `[start, end)` picked by a 1..=100 draw
/// (percent of the region for `zoned`, bytes for `zoned_abs`).
#[derive(Clone, Debug)]
struct Zones {
    abs: bool,
    table: [Vec<(f64, f64)>; 3],
}

#[derive(Clone, Debug)]
struct FileState {
    /// Where the region's offsets count from (fio `file_offset`): the region's start, or
    /// the current zone's under `zonemode=strided`.
    start: u64,
    /// Absolute end of the region (fio `io_u_fits`: `io_size + get_start_offset`).
    end: u64,
    io_size: u64,
    /// The file's whole size (fio `real_file_size`), where holed sequential I/O wraps.
    file_size: u64,
    /// Absolute end of the last I/O per direction (fio `last_pos`).
    last_pos: [u64; 3],
    /// Absolute start of the last I/O per direction (fio `last_start`).
    last_start: [Option<u64>; 3],
    /// fio's `last_block()` per direction: blocks of `blockalign` a random offset is drawn from.
    lastb: [u64; 3],
    map: Option<RandMap>,
    /// `random_generator=lfsr`: each block once per pass without a map.
    lfsr: Option<FioLfsr>,
    lfsr_seed: u64,
    dist: Option<FileDist>,
    done: bool,
}

impl FileState {
    fn reset(&mut self) {
        self.last_pos = [self.start; 3];
        self.last_start = [None; 3];
        self.done = false;
        if let Some(m) = &mut self.map {
            m.reset();
        }
        if let Some(l) = &mut self.lfsr {
            // Cannot fail: the same seed was accepted when the file was set up.
            l.reset(self.lfsr_seed);
        }
    }
}

/// A deterministic stream of I/O requests for one worker of one job.
#[derive(Clone, Debug)]
pub struct Workload {
    kind: RwKind,
    files: Vec<FileState>,
    regions: Vec<Region>,
    offset_rng: FioRand,
    rwmix_rng: Taus88,
    seq_rand_rng: [Taus88; 3],
    file_rng: FioRand,
    file_dist: Option<FileDist>,
    zone_rng: Taus88,
    zones: Option<Zones>,
    bs: [BsGen; 3],
    ba: [u64; 3],
    map_unit: u64,
    /// log2(map_unit) when it is a power of two: the hot path then shifts instead of dividing.
    map_shift: Option<u32>,
    max_bs: u64,
    perc_rand: [u32; 3],
    rwmix_read: u32,
    seq_nr_cfg: u32,
    seq_nr: u32,
    seq_add: i64,
    rw_seq: RwSequencer,
    rwmix_ddir: usize,
    rwmix_issues: u64,
    io_issues: [u64; 3],
    pending_write: Option<IoRequest>,
    fsvc_kind: FileServiceKind,
    fsvc_nr: u32,
    fsvc_left: u32,
    cur_file: usize,
    rr_next: usize,
    issued_bytes: u64,
    issued_ios: u64,
    loop_bytes: u64,
    per_loop_bytes: u64,
    loops: u64,
    loops_done: u64,
    stop: StopConditions,
    /// `io_size=` was given: a pass that finishes every file short of the bytes starts
    /// another (fio `keep_running`: without `io_size` a job whose files are done is done).
    wrap_files: bool,
    passes: u64,
    pacer: Option<Pacer>,
    warnings: Vec<String>,
    finished: bool,
    /// The direction of a job whose every I/O takes the uniform-random path (see
    /// `fast_path_dir`); `None` sends every I/O through the general path.
    fast_dir: Option<usize>,
    /// `zonemode=strided`: the zone of the job's one file.
    strided: Option<Strided>,
}

fn bad(job: &Job, option: &'static str, value: String, expected: &'static str) -> WorkloadError {
    WorkloadError::BadOption { job: job.name.clone(), option, value, expected }
}

fn build_zones(
    job: &Job,
    zones: &iolab_core::PerDir<Vec<Zone>>,
    abs: bool,
) -> Result<Zones, WorkloadError> {
    let mut table: [Vec<(f64, f64)>; 3] = Default::default();
    for (d, list) in zones.iter() {
        if list.is_empty() {
            continue;
        }
        let mut acc = 0u32;
        let mut size_acc = 0.0f64;
        let mut t = Vec::with_capacity(100);
        for z in list {
            let prev = size_acc;
            size_acc += z.size;
            acc += z.access_pct;
            for _ in 0..z.access_pct {
                t.push((prev, size_acc));
            }
        }
        if acc != 100 {
            return Err(bad(
                job,
                "random_distribution",
                format!("zones of {d} summing to {acc}% of accesses"),
                "zone access percentages that add up to 100",
            ));
        }
        if !abs && size_acc > 100.0 + 1e-9 {
            return Err(bad(
                job,
                "random_distribution",
                format!("zones of {d} covering {size_acc}% of the region"),
                "zone sizes that add up to at most 100%",
            ));
        }
        table[d.data_index().unwrap_or(0)] = t;
    }
    Ok(Zones { abs, table })
}

/// What [`Workload::with_seeds`] assembles before the state is built.
struct Parts {
    b: BlockSizes,
    files: Vec<FileState>,
    regions: Vec<Region>,
    zones: Option<Zones>,
    file_dist: Option<FileDist>,
    budget: Budget,
    pacer: Option<Pacer>,
    warnings: Vec<String>,
    use64: bool,
    strided: Option<Strided>,
}

/// Block sizes and alignment per direction (fio init.c: trimwrite seeds trim like write,
/// verify seeds write like read).
struct BlockSizes {
    bs: [BsGen; 3],
    ba: [u64; 3],
    /// The directions the job does (data index).
    used: Vec<usize>,
    min_bs: u64,
    max_bs: u64,
    /// `blockalign` differs from the block size somewhere (the random map goes off).
    blockalign_set: bool,
}

impl BlockSizes {
    fn new(job: &Job, seeds: &JobSeeds, use64_opt: bool) -> Result<Self, WorkloadError> {
        let mut bs_seeds =
            [seeds.get(Slot::BsRead), seeds.get(Slot::BsWrite), seeds.get(Slot::BsTrim)];
        if job.verifies() {
            bs_seeds[1] = bs_seeds[0];
        }
        if matches!(job.rw, RwKind::TrimWrite | RwKind::RandTrimWrite) {
            bs_seeds[2] = bs_seeds[1];
        }
        let bs = [0, 1, 2].map(|i| {
            let b = match i {
                0 => &job.bs.read,
                1 => &job.bs.write,
                _ => &job.bs.trim,
            };
            BsGen::new(b, job.bs_unaligned, FioRand::new(bs_seeds[i], use64_opt))
        });
        for (i, b) in bs.iter().enumerate() {
            if b.min == 0 {
                return Err(bad(job, "bs", format!("0 for {}", DIRS[i]), "a block size above 0"));
            }
        }
        let used: Vec<usize> = (0..3)
            .filter(|&i| match i {
                0 => job.rw.has_read(),
                1 => job.rw.has_write(),
                _ => job.rw.has_trim(),
            })
            .collect();
        let min_bs = used.iter().map(|&i| bs[i].min).min().unwrap_or(4096);
        let max_bs = used.iter().map(|&i| bs[i].max).max().unwrap_or(4096);
        let align = [job.blockalign.read, job.blockalign.write, job.blockalign.trim];
        let ba = [0, 1, 2].map(|i| if align[i] == 0 { bs[i].min } else { align[i] });
        let blockalign_set = align.iter().zip(bs.iter()).any(|(&a, b)| a != 0 && a != b.min);
        Ok(BlockSizes { bs, ba, used, min_bs, max_bs, blockalign_set })
    }
}

/// How random offsets are drawn: random map, LFSR, or neither.
struct MapChoice {
    random: bool,
    uniform: bool,
    lfsr: bool,
    use_map: bool,
}

impl MapChoice {
    /// Random map: default on for uniform random I/O; off with norandommap, any non-uniform
    /// distribution (init.c l.1037) or blockalign. Options that do nothing here are warned.
    fn new(job: &Job, b: &BlockSizes, warnings: &mut Vec<String>) -> Self {
        let random = job.rw.is_random();
        let uniform = matches!(job.random_distribution, Distribution::Random);
        let lfsr = random && uniform && job.random_generator == RandomGenerator::Lfsr;
        let mut use_map = random && uniform && !job.norandommap && !lfsr;
        if use_map && b.blockalign_set {
            use_map = false;
            warnings.push(
                "blockalign turns off the random map (as in fio): blocks may repeat within a pass"
                    .to_string(),
            );
        }
        if !random {
            let pr = &job.percentage_random;
            if [pr.read, pr.write, pr.trim].iter().any(|&p| p < 100) {
                warnings.push(format!(
                    "percentage_random has no effect with rw={:?} (fio applies it to random \
                     patterns only): use a rand* rw mode",
                    job.rw
                ));
            }
            if !uniform {
                warnings.push(format!(
                    "random_distribution has no effect with rw={:?}: offsets are sequential",
                    job.rw
                ));
            }
        }
        if lfsr && b.used.iter().any(|&i| b.bs[i].min != b.bs[i].max) {
            warnings.push(
                "random_generator=lfsr with several block sizes may touch some blocks more than \
                 once per pass (as in fio: the LFSR counts blocks of the minimum size)"
                    .to_string(),
            );
        }
        MapChoice { random, uniform, lfsr, use_map }
    }
}

/// Per-file state: region, last blocks, random map or LFSR, and the non-uniform
/// distribution, one generator per file (filesetup.c `__init_rand_distribution`).
fn file_states(
    input: &WorkerInput<'_>,
    seeds: &JobSeeds,
    b: &BlockSizes,
    c: &MapChoice,
    regions: &[Region],
    zone_range: Option<u64>,
    warnings: &mut Vec<String>,
) -> Result<Vec<FileState>, WorkloadError> {
    let job = input.job;
    let range_size = b.bs[0].min.min(b.bs[1].min);
    let mut files = Vec::with_capacity(regions.len());
    for (i, r) in regions.iter().enumerate() {
        let io_size = r.len();
        // io_u.c last_block / filesetup.c init_random_map: a strided job's random offsets,
        // map and LFSR span one zone.
        // A zone wider than the region is the region (fio would draw past the file's end).
        let span = zone_range.unwrap_or(u64::MAX).min(io_size.min(r.file_size));
        let lastb = [0, 1, 2].map(|d| {
            let mut max_size = span;
            if b.bs[d].min > b.ba[d] {
                max_size = max_size.saturating_sub(b.bs[d].min - b.ba[d]);
            }
            max_size / b.ba[d]
        });
        let nranges = io_size.min(r.file_size).div_ceil(range_size);
        let jh = fio_jhash(crate::files::file_name(job, input.clone_index, i).as_bytes(), 0);
        let dist = if c.random {
            let d = DistSeed::new(jh, input.thread_number, seeds, job.randseed);
            file_dist(job, i, nranges, &d)?
        } else {
            None
        };
        warn_scramble(job, i, nranges, &dist, warnings);
        let blocks = span / b.min_bs;
        let lfsr_seed = seeds.get(Slot::BlockOff);
        let lfsr = match c.lfsr {
            true => Some(FioLfsr::new(blocks, lfsr_seed).ok_or_else(|| {
                bad(
                    job,
                    "random_generator",
                    format!("lfsr over {blocks} blocks with this randseed"),
                    "a seed that is not the LFSR's all-ones state, or tausworthe",
                )
            })?),
            false => None,
        };
        // The map's unit is the smallest block size (min_bs).
        let map = match c.use_map {
            true => Some(RandMap::try_new(blocks).map_err(|e| WorkloadError::RandMap {
                job: job.name.clone(),
                file: i as u32,
                source: e,
            })?),
            false => None,
        };
        let (start, last_pos, last_start) = (r.start, [r.start; 3], [None; 3]);
        let done = false;
        files.push(FileState {
            start,
            end: r.start.saturating_add(io_size),
            io_size,
            file_size: r.file_size,
            last_pos,
            last_start,
            lastb,
            lfsr,
            lfsr_seed,
            map,
            dist,
            done,
        });
    }
    if c.random && !c.uniform && job.numjobs > 1 && job.hot_set == HotSet::PerJob {
        if let Distribution::Zipf { center: None, .. } | Distribution::Pareto { center: None, .. } =
            job.random_distribution
        {
            warnings.push(
                "each clone gets its own hot set (fio seeds the scramble offset per job); \
                 hot_set=shared gives all clones the same hot blocks"
                    .to_string(),
            );
        }
    }
    Ok(files)
}

/// The seeds of one file's distribution: fio's `jhash(file name) * thread number` (times
/// the block-offset seed since fio 3.35), and the scramble offset clones share with
/// `hot_set=shared` (thread number 1's).
struct DistSeed {
    seed: u32,
    shared: u64,
}

impl DistSeed {
    fn new(jh: u32, thread_number: u32, seeds: &JobSeeds, randseed: u64) -> Self {
        let seed_for = |tn: u32, s: &JobSeeds| -> u32 { s.dist_seed_for(jh, tn) };
        let shared_seeds = JobSeeds::repeatable(randseed, 1);
        let shared = Taus88::new(seed_for(1, &shared_seeds) as u64).next_u32() as u64;
        DistSeed { seed: seed_for(thread_number.max(1), seeds), shared }
    }

    /// The shared scramble offset, when `hot_set=shared` and the distribution has no center.
    fn shared_off(&self, job: &Job, center: Option<f64>) -> Option<u64> {
        (job.hot_set == HotSet::Shared && center.is_none()).then_some(self.shared)
    }
}

/// File `i`'s non-uniform distribution over `nranges` ranges (`None`: uniform or zoned).
fn file_dist(
    job: &Job,
    i: usize,
    nranges: u64,
    d: &DistSeed,
) -> Result<Option<FileDist>, WorkloadError> {
    let seed = d.seed;
    let dist = match &job.random_distribution {
        Distribution::Zipf { theta, center } => {
            if *theta <= 0.0 || (*theta == 1.0 && !job.zipf_exact) {
                return Err(bad(
                    job,
                    "random_distribution",
                    format!("zipf:{theta}"),
                    "zipf theta > 0 and not 1 (fio's formula divides by 1 - theta)",
                ));
            }
            let mut z = FioZipf::new(nranges, *theta, *center, seed);
            if let Some(off) = d.shared_off(job, *center) {
                z.scramble = Scramble::FioHash { rand_off: off };
            }
            if !job.zipf_exact {
                return Ok(Some(FileDist::Zipf(z)));
            }
            let rand_off = match z.scramble {
                Scramble::FioHash { rand_off } => rand_off,
                _ => 0,
            };
            let stride = coprime_stride(nranges);
            FileDist::ExactZipf(ExactZipf::new(
                nranges,
                *theta,
                mix64(seed as u64 ^ (i as u64) << 32),
                Scramble::Stride { stride, rand_off: rand_off % nranges.max(1) },
            ))
        }
        Distribution::Pareto { h, center } => {
            if !(*h > 0.0 && *h < 1.0) {
                let v = format!("pareto:{h}");
                return Err(bad(job, "random_distribution", v, "pareto h between 0 and 1"));
            }
            let mut p = FioPareto::new(nranges, *h, *center, seed);
            if let Some(off) = d.shared_off(job, *center) {
                p.scramble = Scramble::FioHash { rand_off: off };
            }
            FileDist::Pareto(p)
        }
        Distribution::Normal { dev, center } => {
            if !(*dev >= 0.0 && *dev < 100.0) {
                let v = format!("normal:{dev}");
                return Err(bad(job, "random_distribution", v, "normal deviation in [0, 100)"));
            }
            // fio's gauss rand_off is 0 without a center: the hot set does not depend on the
            // job, so `hot_set` has nothing to change.
            FileDist::Gauss(FioGauss::new(nranges, *dev, *center, seed))
        }
        _ => return Ok(None),
    };
    Ok(Some(dist))
}

/// Warn when fio's hot-block scramble cannot reach every block of file `i`.
fn warn_scramble(
    job: &Job,
    i: usize,
    nranges: u64,
    dist: &Option<FileDist>,
    warnings: &mut Vec<String>,
) {
    if !(dist.is_some() && !job.zipf_exact || matches!(dist, Some(FileDist::Pareto(_)))) {
        return;
    }
    if let Some(frac) = fio_scramble_reachable(nranges) {
        if frac < 1.0 {
            warnings.push(format!(
                "file {i}: fio's hot-block scramble (hash(rank) % {nranges}) reaches \
                 only {:.1}% of the {nranges} blocks; a power-of-two number of \
                 blocks (or zipf_exact=1 for zipf) makes every block reachable",
                frac * 100.0
            ));
        }
    }
}

/// `random_distribution=zoned`/`zoned_abs` tables; an absolute zone past a file's region is
/// an error.
fn zones_for(job: &Job, random: bool, files: &[FileState]) -> Result<Option<Zones>, WorkloadError> {
    let zones = match &job.random_distribution {
        Distribution::Zoned(z) if random => build_zones(job, z, false)?,
        Distribution::ZonedAbs(z) if random => build_zones(job, z, true)?,
        _ => return Ok(None),
    };
    if zones.abs {
        for (d, t) in zones.table.iter().enumerate() {
            let Some(&(_, end)) = t.last() else { continue };
            for (i, f) in files.iter().enumerate() {
                if end > f.io_size as f64 {
                    return Err(bad(
                        job,
                        "random_distribution",
                        format!(
                            "zoned_abs ending at {end} bytes for {} on file {i} of {} bytes",
                            DIRS[d], f.io_size
                        ),
                        "zoned_abs sizes within the region",
                    ));
                }
            }
        }
    }
    Ok(Some(zones))
}

/// File service (init.c `init_rand_file_service`: no hash for non-uniform file choice).
fn file_service_dist(job: &Job, nfiles: u64, fseed: u32) -> Option<FileDist> {
    let fr = nfiles << FSERVICE_SHIFT;
    let none = Scramble::None { rand_off: 0 };
    match job.file_service.kind {
        FileServiceKind::Zipf(t) => {
            let mut z = FioZipf::new(fr, t, None, fseed);
            z.scramble = none;
            Some(FileDist::Zipf(z))
        }
        FileServiceKind::Pareto(h) => {
            let mut p = FioPareto::new(fr, h, None, fseed);
            p.scramble = none;
            Some(FileDist::Pareto(p))
        }
        FileServiceKind::Normal(d) => {
            let mut g = FioGauss::new(fr, d, None, fseed);
            g.scramble = none;
            Some(FileDist::Gauss(g))
        }
        _ => None,
    }
}

/// `zonemode=strided`'s zone state for the job's one file (init.c `fixup_options` turns the
/// mode off with several open files; iolab says so).
fn strided_zones(
    job: &Job,
    regions: &[Region],
    warnings: &mut Vec<String>,
) -> Result<Option<Strided>, WorkloadError> {
    let zones = job.strided_zones().map_err(|e| WorkloadError::BadOption {
        job: job.name.clone(),
        option: "zonemode",
        value: e.to_string(),
        expected: "strided zones fio accepts",
    })?;
    let Some(zones) = zones else { return Ok(None) };
    match regions {
        [r] => Ok(Some(Strided::new(zones, r.start))),
        _ => {
            warnings.push(format!(
                "zonemode=strided is off with {} files (as in fio, which strides one file only)",
                regions.len()
            ));
            Ok(None)
        }
    }
}

/// How much I/O a job does: bytes per loop, loops, and the stop conditions.
struct Budget {
    per_loop_bytes: u64,
    loops: u64,
    stop: StopConditions,
}

impl Budget {
    fn new(job: &Job, regions: &[Region]) -> Result<Self, WorkloadError> {
        let total = regions
            .iter()
            .try_fold(0u64, |acc, r| acc.checked_add(r.len()))
            .ok_or_else(|| bad(job, "size", format!("{} files", regions.len()), SUM_EXPECTED))?;
        let per_loop_bytes = match job.io_size_percent {
            // filesetup.c setup_files: each file's share scaled (integer maths), the sum
            // becoming the job's size when that is smaller.
            Some(p) => {
                let scaled: u64 =
                    regions.iter().map(|r| r.len() * u64::from(p.min(100)) / 100).sum();
                match job.size {
                    Some(SizeSpec::Bytes(b)) if b > 0 => b.min(scaled),
                    _ => scaled,
                }
            }
            None => job.io_size.unwrap_or(match job.size {
                Some(SizeSpec::Bytes(b)) if b > 0 => b.min(total),
                _ => total,
            }),
        };
        // backend.c do_io: in [rand]trimwrite every byte is trimmed and then written, so the
        // byte and I/O budgets double.
        let trimwrite = matches!(job.rw, RwKind::TrimWrite | RwKind::RandTrimWrite);
        let per_loop_bytes = if trimwrite {
            per_loop_bytes.checked_mul(2).ok_or_else(|| {
                bad(job, "io_size", format!("{per_loop_bytes} (x2 for trimwrite)"), SUM_EXPECTED)
            })?
        } else {
            per_loop_bytes
        };
        let loops = job.loops.max(1) as u64;
        let stop = StopConditions {
            runtime: job.runtime,
            time_based: job.time_based,
            ramp_time: job.ramp_time,
            bytes: if job.time_based { None } else { Some(per_loop_bytes.saturating_mul(loops)) },
            number_ios: job.number_ios.map(|n| if trimwrite { n.saturating_mul(2) } else { n }),
        };
        Ok(Budget { per_loop_bytes, loops, stop })
    }
}

impl Workload {
    /// The stream for one worker, seeded as current fio (≥ 3.35) seeds it.
    pub fn new(input: &WorkerInput<'_>) -> Result<Self, WorkloadError> {
        let gen = FioSeeds::of_job(input.job);
        let seeds = JobSeeds::for_job(input.job, input.clone_index, input.thread_number, gen);
        Self::with_seeds(input, &seeds)
    }

    /// The clone's regions alone (fio's `setup_files` offsets and sizes, as [`Workload::new`]
    /// computes them), without the stream's other state (random maps, zones): for the checks
    /// a run makes on every clone's targets before any clone starts.
    pub fn regions_of(input: &WorkerInput<'_>) -> Result<Vec<Region>, WorkloadError> {
        let job = input.job;
        let seeds =
            JobSeeds::for_job(job, input.clone_index, input.thread_number, FioSeeds::of_job(job));
        let use64 = job.random_generator == RandomGenerator::Tausworthe64;
        let b = BlockSizes::new(job, &seeds, use64)?;
        let mut file_size_rng = FioRand::new(seeds.get(Slot::FileSize), use64);
        compute_regions(job, input.clone_index, input.files, b.min_bs, &mut file_size_rng)
    }

    /// The stream with explicit per-job seeds (for example [`JobSeeds::fio_3_33`] to reproduce
    /// an older fio's offsets). Set-up in fio's order: block sizes, regions, the random map
    /// choice, per-file state, zones, file service, the byte budget, pacing.
    pub fn with_seeds(input: &WorkerInput<'_>, seeds: &JobSeeds) -> Result<Self, WorkloadError> {
        let job = input.job;
        let mut warnings = Vec::new();
        let use64_opt = job.random_generator == RandomGenerator::Tausworthe64;
        let b = BlockSizes::new(job, seeds, use64_opt)?;
        let mut file_size_rng = FioRand::new(seeds.get(Slot::FileSize), use64_opt);
        let regions =
            compute_regions(job, input.clone_index, input.files, b.min_bs, &mut file_size_rng)?;
        let choice = MapChoice::new(job, &b, &mut warnings);
        // Tausworthe32 cannot address more than 2^32 blocks: fio switches to the 64-bit
        // generator (filesetup.c check_rand_gen_limits).
        let mut use64 = use64_opt;
        let max_blocks = regions.iter().map(|r| r.len() / b.min_bs).max().unwrap_or(0);
        if choice.random && !use64 && max_blocks > u32::MAX as u64 {
            use64 = true;
            warnings.push(format!(
                "{max_blocks} blocks exceed random_generator=tausworthe's 2^32 range; \
                 switching to tausworthe64 (as fio does)"
            ));
        }
        let strided = strided_zones(job, &regions, &mut warnings)?;
        let zone_range = strided.as_ref().map(Strided::range);
        let files = file_states(input, seeds, &b, &choice, &regions, zone_range, &mut warnings)?;
        let zones = zones_for(job, choice.random, &files)?;
        let file_dist = file_service_dist(job, files.len() as u64, seeds.get(Slot::File) as u32);
        let budget = Budget::new(job, &regions)?;
        let rates = [0, 1, 2].map(|i| DirRate {
            rate_bytes: *job.rate.get(DIRS[i]).unwrap_or(&0),
            rate_iops: *job.rate_iops.get(DIRS[i]).unwrap_or(&0),
            min_bs: b.bs[i].min,
        });
        let pacer = Pacer::new(
            rates,
            job.rate_process == iolab_job::RateProcess::Poisson,
            [Slot::Poisson, Slot::Poisson2, Slot::Poisson3].map(|s| seeds.get(s)),
            job.thinktime,
            job.thinktime_blocks,
        );
        let parts =
            Parts { b, files, regions, zones, file_dist, budget, pacer, warnings, use64, strided };
        let mut w = Self::from_parts(job, seeds, use64_opt, parts);
        w.fast_dir = w.fast_path_dir();
        Ok(w)
    }

    /// The generator's state from its set-up parts; every counter at its start.
    fn from_parts(job: &Job, seeds: &JobSeeds, use64_opt: bool, p: Parts) -> Self {
        let map_unit = p.b.min_bs;
        Workload {
            kind: job.rw,
            files: p.files,
            regions: p.regions,
            offset_rng: FioRand::new(seeds.get(Slot::BlockOff), p.use64),
            rwmix_rng: Taus88::new(seeds.get(Slot::Mix)),
            // fio seeds all three from the READ slot (init.c td_fill_rand_seeds).
            seq_rand_rng: [0; 3].map(|_| Taus88::new(seeds.get(Slot::SeqRandRead))),
            file_rng: FioRand::new(seeds.get(Slot::File), use64_opt),
            file_dist: p.file_dist,
            zone_rng: Taus88::new(seeds.get(Slot::Zone)),
            zones: p.zones,
            bs: p.b.bs,
            ba: p.b.ba,
            map_unit,
            map_shift: map_unit.is_power_of_two().then(|| map_unit.trailing_zeros()),
            max_bs: p.b.max_bs,
            perc_rand: [
                job.percentage_random.read,
                job.percentage_random.write,
                job.percentage_random.trim,
            ],
            rwmix_read: job.rwmixread.min(100),
            seq_nr_cfg: job.ddir_seq_nr.max(1),
            // init.c: "td->ddir_seq_nr needs to be initialized to 1, NOT o->ddir_seq_nr", so
            // the first I/O of `randread:N` is random.
            seq_nr: 1,
            seq_add: job.ddir_seq_add,
            rw_seq: job.rw_sequencer,
            rwmix_ddir: 0,
            rwmix_issues: 0,
            io_issues: [0; 3],
            pending_write: None,
            fsvc_kind: job.file_service.kind,
            fsvc_nr: job.file_service.nr.max(1),
            fsvc_left: 0,
            cur_file: 0,
            rr_next: 0,
            issued_bytes: 0,
            issued_ios: 0,
            loop_bytes: 0,
            per_loop_bytes: p.budget.per_loop_bytes,
            loops: p.budget.loops,
            loops_done: 0,
            stop: p.budget.stop,
            wrap_files: job.io_size.is_some(),
            passes: 0,
            pacer: p.pacer,
            warnings: p.warnings,
            finished: false,
            fast_dir: None,
            strided: p.strided,
        }
    }

    /// The common case, decided once: one direction, one file, every I/O a uniform random
    /// block (`percentage_random=100`, no `rw=randX:N`, no distribution, zones, lfsr or
    /// pacing) of one fixed size equal to the random map's unit. Then `next_into` can skip
    /// the per-I/O branches of the general path; the decisions and draws are the same.
    fn fast_path_dir(&self) -> Option<usize> {
        let d = match self.kind {
            RwKind::RandRead => 0,
            RwKind::RandWrite => 1,
            RwKind::RandTrim => 2,
            _ => return None,
        };
        let [f] = self.files.as_slice() else { return None };
        let bs = &self.bs[d];
        let ok = self.perc_rand[d] >= 100
            && self.strided.is_none()
            && self.seq_nr_cfg == 1
            && self.pacer.is_none()
            && self.zones.as_ref().is_none_or(|z| z.table[d].is_empty())
            && f.dist.is_none()
            && f.lfsr.is_none()
            && bs.min == bs.max
            && (f.map.is_none() || (self.ba[d] == self.map_unit && bs.min == self.map_unit));
        ok.then_some(d)
    }

    /// `offset_len` for a `fast_path_dir` job: fio's `get_next_rand_offset` and
    /// `mark_random_map` for one block; `None` when the file's pass is over.
    #[inline(always)]
    fn fast_offset_len(&mut self, d: usize) -> Option<(u64, u64)> {
        let lastb = self.files[0].lastb[d];
        if lastb == 0 {
            return None;
        }
        let b = self.draw_block(lastb);
        let (ba, len) = (self.ba[d], self.bs[d].min);
        let f = &mut self.files[0];
        let rel = match &mut f.map {
            None => b * ba,
            Some(map) => {
                let blk = map.first_free_from(b)?;
                let rel = blk * ba;
                if rel >= f.io_size || len == 0 {
                    return None;
                }
                map.set(blk);
                rel
            }
        };
        if rel >= f.io_size || len == 0 || len > f.io_size - rel {
            return None;
        }
        let abs = f.start + rel;
        f.last_pos[d] = abs + len;
        f.last_start[d] = Some(abs);
        Some((abs, len))
    }

    /// Per file: the `[start, end)` byte range I/O goes to.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    pub fn stop(&self) -> StopConditions {
        self.stop
    }

    /// Completed passes: times every file's region was finished (random map full, sequential
    /// end reached) or a `loops` iteration ended, and the files were reset. The engine
    /// invalidates caches at each, like fio's `loop_cache_invalidate`.
    pub fn passes(&self) -> u64 {
        self.passes
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Bytes and I/Os issued so far.
    pub fn issued(&self) -> (u64, u64) {
        (self.issued_bytes, self.issued_ios)
    }

    /// Leave `thinktime` out of the issue schedule: the caller (the engine's worker) pauses
    /// after completions itself, as fio's backend.c `handle_thinktime` does. A job paced only
    /// by `thinktime` then has no schedule at all.
    pub fn think_outside_schedule(&mut self) {
        if let Some(p) = self.pacer.as_mut() {
            if !p.drop_thinktime() {
                self.pacer = None;
                self.fast_dir = self.fast_path_dir();
            }
        }
    }

    /// The end of the pacing schedule so far (`None` when the job is not paced).
    pub fn schedule_horizon(&self) -> Option<iolab_core::Nanos> {
        self.pacer.as_ref().map(|p| p.horizon())
    }

    fn reset_files(&mut self) {
        for f in &mut self.files {
            f.reset();
        }
        self.passes += 1;
    }

    /// Fill `req` with the next I/O; false when the job's I/O is done (size/io_size/number_ios/
    /// loops exhausted). `time_based` jobs never end here: they wrap (the engine stops on
    /// runtime).
    #[inline(always)]
    pub fn next_into(&mut self, req: &mut IoRequest) -> bool {
        if self.finished {
            return false;
        }
        if let Some(d) = self.fast_dir {
            // `number_ios` reached: the general path below ends the stream.
            if (self.stop.time_based || self.loop_bytes < self.per_loop_bytes)
                && !self.files[0].done
                && self.issued_ios < self.stop.number_ios.unwrap_or(u64::MAX)
            {
                if let Some((offset, len)) = self.fast_offset_len(d) {
                    *req = IoRequest { dir: DIRS[d], file: 0, offset, len, issue_at: None };
                    self.account(d, len);
                    return true;
                }
                // What the general path does with a finished pass, from its next step on.
                self.files[0].done = true;
            }
        }
        self.next_general(req)
    }

    /// [`Workload::next_into`] past the one-file fast path: kept out of line so the fast path
    /// inlines into every caller (the engine's worker loop has one copy per engine type).
    #[inline(never)]
    fn next_general(&mut self, req: &mut IoRequest) -> bool {
        if let Some(mut w) = self.pending_write.take() {
            self.zone_step(w.file as usize, 1);
            w.issue_at = self.pacer.as_mut().map(|p| p.schedule(1, w.len));
            self.account(1, w.len);
            *req = w;
            return true;
        }
        if let Some(n) = self.stop.number_ios {
            if self.issued_ios >= n {
                self.finished = true;
                return false;
            }
        }
        if !self.stop.time_based && self.loop_bytes >= self.per_loop_bytes && !self.end_loop() {
            return false;
        }
        let d = self.choose_dir();
        let mut wrapped = false;
        loop {
            let Some(fi) = self.choose_file() else {
                // Every file finished its pass.
                if wrapped {
                    self.finished = true;
                    return false;
                }
                if !self.stop.time_based
                    && (self.per_loop_bytes.saturating_sub(self.loop_bytes) < self.max_bs
                        || !self.wrap_files)
                {
                    if !self.end_loop() {
                        return false;
                    }
                } else {
                    self.reset_files();
                }
                wrapped = true;
                continue;
            };
            self.zone_step(fi, d);
            if let Some((off, len)) = self.offset_len(fi, d) {
                let issue_at = self.pacer.as_mut().map(|p| p.schedule(d, len));
                *req = IoRequest { dir: DIRS[d], file: fi as u32, offset: off, len, issue_at };
                self.account(d, len);
                if d == 2 && matches!(self.kind, RwKind::TrimWrite | RwKind::RandTrimWrite) {
                    self.pending_write = Some(IoRequest { dir: IoDir::Write, ..*req });
                }
                return true;
            }
            self.files[fi].done = true;
        }
    }

    /// `zonemode=strided`: the zone for the next I/O of direction `d` on file `fi`.
    #[inline]
    fn zone_step(&mut self, fi: usize, d: usize) {
        let Some(z) = self.strided.as_mut() else { return };
        let f = &mut self.files[fi];
        if z.before_io(&mut f.start, &mut f.last_pos, d, f.file_size) {
            let keep = f.done;
            f.reset();
            f.done = keep;
        }
    }

    /// End one `loops` iteration: reset the files for the next, or finish.
    fn end_loop(&mut self) -> bool {
        self.loops_done += 1;
        if self.loops_done >= self.loops {
            self.finished = true;
            return false;
        }
        if let (Some(z), Some(f)) = (self.strided.as_mut(), self.files.first_mut()) {
            z.restart(&mut f.start);
        }
        self.loop_bytes = 0;
        self.reset_files();
        true
    }

    /// Count one issued request. The byte sums saturate: a time_based job of huge blocks
    /// over a region near 2^64 bytes can pass 2^64 issued bytes (found by the fuzz target).
    #[inline]
    fn account(&mut self, d: usize, len: u64) {
        if let Some(z) = self.strided.as_mut() {
            z.account(len);
        }
        self.io_issues[d] += 1;
        self.issued_bytes = self.issued_bytes.saturating_add(len);
        self.loop_bytes = self.loop_bytes.saturating_add(len);
        self.issued_ios += 1;
    }

    /// fio's `get_rw_ddir` (without sync; pacing is a schedule here, so `rate_ddir` compares
    /// the directions' clocks with the schedule's time instead of the wall clock).
    #[inline]
    fn choose_dir(&mut self) -> usize {
        match self.kind {
            RwKind::Read | RwKind::RandRead => 0,
            RwKind::Write | RwKind::RandWrite => 1,
            RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite => 2,
            RwKind::ReadWrite | RwKind::RandRw => {
                if self.io_issues[self.rwmix_ddir] >= self.rwmix_issues {
                    let v = 1 + self.rwmix_rng.upto(99);
                    let ddir = if v <= self.rwmix_read { 0 } else { 1 };
                    if ddir != self.rwmix_ddir {
                        // set_rwmix_bytes: the share of the *other* direction.
                        let other = if self.rwmix_ddir == 0 {
                            100 - self.rwmix_read
                        } else {
                            self.rwmix_read
                        };
                        self.rwmix_issues = self.io_issues[self.rwmix_ddir] * other as u64 / 100;
                    }
                    self.rwmix_ddir = ddir;
                }
                if let Some(p) = &self.pacer {
                    // io_u.c get_rw_ddir: `td->rwmix_ddir = rate_ddir(td, ddir)`.
                    let d = self.rwmix_ddir;
                    let other_share = if d == 0 { 100 - self.rwmix_read } else { self.rwmix_read };
                    self.rwmix_ddir = p.rate_ddir(d, other_share > 0);
                }
                self.rwmix_ddir
            }
        }
    }

    /// fio's `get_next_file` for `file_service_type`; `None` when every file is done.
    #[inline]
    fn choose_file(&mut self) -> Option<usize> {
        let n = self.files.len();
        if n == 1 {
            return if self.files[0].done { None } else { Some(0) };
        }
        if self.fsvc_left > 0 && !self.files[self.cur_file].done {
            self.fsvc_left -= 1;
            return Some(self.cur_file);
        }
        if self.files.iter().all(|f| f.done) {
            return None;
        }
        let pick = match self.fsvc_kind {
            FileServiceKind::RoundRobin => {
                let mut i = self.rr_next;
                while self.files[i].done {
                    i = (i + 1) % n;
                }
                self.rr_next = (i + 1) % n;
                i
            }
            FileServiceKind::Sequential => {
                let mut i = self.cur_file;
                while self.files[i].done {
                    i = (i + 1) % n;
                }
                i
            }
            FileServiceKind::Random => self.draw_file(|w| {
                // __get_next_fileno_rand: nr_files · r / (R + 1).
                let r = w.file_rng.next_u64() as f64;
                ((n as f64 * (r / (w.file_rng.max() as f64 + 1.0))) as u64).min(n as u64 - 1)
            }),
            FileServiceKind::Zipf(_) | FileServiceKind::Pareto(_) | FileServiceKind::Normal(_) => {
                self.draw_file(|w| {
                    w.file_dist
                        .as_mut()
                        .map_or(0, |d| (d.sample() >> FSERVICE_SHIFT).min(n as u64 - 1))
                })
            }
        };
        self.cur_file = pick;
        self.fsvc_left =
            if self.fsvc_kind == FileServiceKind::Sequential { u32::MAX } else { self.fsvc_nr - 1 };
        Some(pick)
    }

    /// Draw until a file that is not done comes up (fio loops the same way); after a bounded
    /// number of tries, take the first one not done.
    fn draw_file(&mut self, mut f: impl FnMut(&mut Self) -> u64) -> usize {
        for _ in 0..64 {
            let i = f(self) as usize;
            if !self.files[i].done {
                return i;
            }
        }
        self.files.iter().position(|f| !f.done).unwrap_or(0)
    }

    /// fio's `should_do_random` for `percentage_random`.
    #[inline]
    fn should_do_random(&mut self, d: usize) -> bool {
        if self.perc_rand[d] >= 100 {
            return true;
        }
        let v = 1 + self.seq_rand_rng[d].upto(99);
        v <= self.perc_rand[d]
    }

    /// The next offset (relative to the region) and length for file `fi`, direction `d`;
    /// `None` when the file's pass is over for this direction.
    #[inline]
    fn offset_len(&mut self, fi: usize, d: usize) -> Option<(u64, u64)> {
        let rw_seq_hit = {
            self.seq_nr -= 1;
            if self.seq_nr == 0 {
                self.seq_nr = self.seq_nr_cfg;
                true
            } else {
                false
            }
        };
        let random = self.kind.is_random();
        // `mark`: the offset came from a random draw without fio's IO_U_F_BUSY_OK, so it is
        // marked in the random map (mark_random_map); sequential steps are not.
        let (rel, mark) = if rw_seq_hit {
            if random {
                if self.should_do_random(d) {
                    (self.rand_offset(fi, d)?, true)
                } else {
                    match self.seq_offset(fi, d) {
                        Some(o) => (o, false),
                        None => (self.rand_offset(fi, d)?, false),
                    }
                }
            } else {
                (self.seq_offset(fi, d)?, false)
            }
        } else {
            match self.rw_seq {
                RwSequencer::Sequential => match self.seq_offset(fi, d) {
                    Some(o) => (o, false),
                    None => (self.rand_offset(fi, d)?, false),
                },
                RwSequencer::Identical => {
                    let f = &self.files[fi];
                    (f.last_start[d].map_or(0, |s| s.saturating_sub(f.start)), false)
                }
            }
        };
        let f = &mut self.files[fi];
        // get_next_offset: past io_size (from the zone's start) or the file's end, the pass
        // is over; io_u_fits: a length ends by the region's end.
        if rel >= f.io_size || f.start.saturating_add(rel) >= f.file_size.max(f.end) {
            return None;
        }
        let room = f.end.saturating_sub(f.start + rel);
        let mut len = self.bs[d].next(room);
        if len == 0 {
            return None;
        }
        if mark {
            if let Some(map) = &mut f.map {
                let unit = self.map_unit;
                let blk = match self.map_shift {
                    Some(sh) => rel >> sh,
                    None => rel / unit,
                };
                if len == unit {
                    // The draw found this block free (random map semantics).
                    map.set(blk);
                } else {
                    let n = len.div_ceil(unit);
                    let k = map.set_run(blk, n);
                    if k > 0 && k < n {
                        len = len.min(k * unit);
                    }
                }
            }
        }
        let abs = f.start + rel;
        f.last_pos[d] = abs + len;
        f.last_start[d] = Some(abs);
        Some((abs, len))
    }

    /// fio's `get_next_seq_offset`, relative to the region start.
    #[inline]
    fn seq_offset(&mut self, fi: usize, d: usize) -> Option<u64> {
        let f = &self.files[fi];
        // Another direction's zone may have moved past this one's last position: fio's
        // unsigned difference is then huge and the pass over (strided mode only).
        let mut pos = f.last_pos[d].wrapping_sub(f.start);
        // fio: the file is done once the last I/O ended at the file's end (absolute), and
        // the caller ends the region at `io_size` (relative).
        if pos >= f.io_size || f.last_pos[d] >= f.file_size {
            return None;
        }
        if pos != 0 && self.seq_add != 0 {
            // fio compares the region-relative position with the file's whole size and, past
            // it, wraps forward I/O to `file_offset` (taken as relative): holed I/O that
            // steps over the end wraps, one that ends exactly there is done (`rw=write:64k
            // size=1m bs=4k` issues 16 writes, as fio 3.33, not 256). Backwards I/O wraps
            // to the end.
            let p = pos as i64 + self.seq_add;
            pos = if p < 0 {
                (f.io_size.min(f.file_size) as i64 + self.seq_add).max(0) as u64
            } else if p as u64 >= f.file_size {
                f.start
            } else {
                p as u64
            };
        }
        Some(pos)
    }

    /// A uniform block in `0..lastb`: `lastb · r / (R + 1)` (fio `__get_next_rand_offset`).
    /// `r / 2^32` is exact as `r · 2^-32`, and the product is below 2^63, so the cheap
    /// signed conversions give fio's result bit for bit.
    #[inline(always)]
    fn draw_block(&mut self, lastb: u64) -> u64 {
        match &mut self.offset_rng {
            FioRand::Taus88(t) => {
                let r = t.next_u32() as f64 * (1.0 / 4294967296.0);
                (lastb as i64 as f64 * r) as i64 as u64
            }
            FioRand::Taus258(t) => {
                let r = t.next_u64() as f64 * (1.0 / 18446744073709551616.0);
                (lastb as f64 * r) as u64
            }
        }
    }

    /// fio's `get_next_rand_offset`, relative to the region start, in bytes.
    #[inline(always)]
    fn rand_offset(&mut self, fi: usize, d: usize) -> Option<u64> {
        let ba = self.ba[d];
        if let Some(dist) = &mut self.files[fi].dist {
            return Some(dist.sample().saturating_mul(ba));
        }
        if let Some(z) = &self.zones {
            if !z.table[d].is_empty() {
                let v = 1 + self.zone_rng.upto(99) as usize;
                let (s, e) = z.table[d][v - 1];
                let abs = z.abs;
                let lastb = self.files[fi].lastb[d];
                if lastb == 0 {
                    return None;
                }
                let (first, nblocks) = if abs {
                    let first = s as u64 / ba;
                    (first, (e as u64 / ba).saturating_sub(first))
                } else {
                    let first = (s * lastb as f64 / 100.0) as u64;
                    (first, (lastb as f64 * (e - s) / 100.0) as u64)
                };
                let b = self.draw_block(nblocks);
                return Some(first.saturating_add(b).saturating_mul(ba));
            }
        }
        if let Some(l) = &mut self.files[fi].lfsr {
            return l.next_val().map(|b| b.saturating_mul(ba));
        }
        let lastb = self.files[fi].lastb[d];
        if lastb == 0 {
            return None;
        }
        let b = self.draw_block(lastb);
        let unit = self.map_unit;
        match &self.files[fi].map {
            None => Some(b * ba),
            // The common case (blockalign equal to the map unit): a free block is itself,
            // a used one becomes the next free one, in one word test.
            Some(map) if ba == unit => map.first_free_from(b).map(|nb| nb * unit),
            Some(map) => {
                let blk = b * ba / unit;
                if map.is_free(blk) {
                    Some(b * ba)
                } else {
                    map.next_free(blk).map(|nb| nb * unit)
                }
            }
        }
    }
}
