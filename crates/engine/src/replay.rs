//! Real I/O from a block trace: any format `iolab-trace` reads, issued through the worker loop
//! as one job (fio's own `read_iolog`/`replay_*` options play this role in fio, iolog.c).
//!
//! The trace is read twice, never held: a first pass finds the highest byte (the target is
//! sized to it), the largest request and the directions, and the second streams the records
//! into the worker, so memory is one record whatever the trace's size. Offsets beyond an existing target wrap modulo its size (with a note).
//! Timed, each request waits for its trace timestamp (divided by `speed`) and latency counts
//! from that time, so a slow device shows up as latency instead of a slower replay. A
//! timestamp earlier than a record before it (a trace merged from several sources, a clock
//! stepped back) is issued at the latest time before it, and one note says how many.
//! A target the replay created is removed when the replay fails (a 1 TiB record whose buffers
//! cannot be had left a 1 TiB sparse file behind). The engine
//! falls back as `iolab run`'s does (io_uring unavailable: psync, with a note), and the engine
//! used is recorded in the job's options (`ioengine`).

use crate::engines::{self, EngineConfig, EngineFile};
use crate::target::open_replay_target;
use crate::worker::{run_worker, WorkerConfig};
use crate::EngineError;
use iolab_core::stop::StopCheck;
use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_stats::{JobResult, RunMeta, RunResult};
use iolab_trace::{ReaderConfig, TraceRecord};
use std::path::{Path, PathBuf};

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Trace(#[from] iolab_trace::TraceError),
    #[error("--{flag}={value}: expected {expected}")]
    Flag { flag: &'static str, value: String, expected: String },
    #[error("{trace}: stopped while reading the trace")]
    Stopped { trace: PathBuf },
    #[error("{trace}: record {record}: offset {offset} + length {len} passes 2^64 bytes")]
    PastEnd { trace: PathBuf, record: u64, offset: u64, len: u64 },
    #[error("{trace}: no replayable records")]
    Empty { trace: PathBuf },
    #[error("replaying: {0}")]
    Worker(EngineError),
}

/// What to replay, where and how; with the `clap` feature, also `iolab replay`'s flags (one
/// type: no flag-by-flag conversion in the binary).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct ReplayConfig {
    /// The trace file (format detected from its name and first bytes unless --format).
    pub trace: PathBuf,
    /// File or block device to replay onto (created and sized to the trace if missing).
    #[cfg_attr(feature = "clap", arg(long = "filename", value_name = "FILENAME"))]
    pub target: PathBuf,
    /// Trace format name (see `iolab trace`), instead of detection.
    #[cfg_attr(feature = "clap", arg(long))]
    pub format: Option<String>,
    /// I/O engine (io_uring falls back to psync where unavailable, with a note).
    #[cfg_attr(feature = "clap", arg(long, default_value = "io_uring"))]
    pub ioengine: String,
    /// Requests in flight (1 to 65536).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 32))]
    pub iodepth: u32,
    /// O_DIRECT (offsets and lengths must be 4 KiB-aligned in the trace).
    #[cfg_attr(feature = "clap", arg(long, default_value = "1", action = clap::ArgAction::Set, value_parser = zero_or_one))]
    pub direct: bool,
    /// Issue each request at its trace time (open loop) instead of as fast as possible.
    #[cfg_attr(feature = "clap", arg(long))]
    pub timed: bool,
    /// With --timed: replay this many times faster than recorded.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1.0))]
    pub speed: f64,
    /// Replay at most this many records.
    #[cfg_attr(feature = "clap", arg(long))]
    pub limit: Option<u64>,
    /// Replay only reads (skip writes and trims), for a target whose contents must survive.
    #[cfg_attr(feature = "clap", arg(long))]
    pub read_only: bool,
    /// Allow writes to a block device that carries a filesystem or partition table.
    #[cfg_attr(feature = "clap", arg(long))]
    pub allow_destroy: bool,
}

/// `--direct`: fio's 0 or 1.
#[cfg(feature = "clap")]
fn zero_or_one(s: &str) -> Result<bool, String> {
    match s {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("--direct={s}: expected 0 or 1")),
    }
}

impl ReplayConfig {
    /// fio's ranges where fio has the option (`iodepth` 1..=65536), a `speed` whose scaled
    /// waits stay finite, a known engine: checked before anything is opened or created.
    pub fn validate(&self) -> Result<(), ReplayError> {
        let bad = |flag, value: String, expected: &str| {
            Err(ReplayError::Flag { flag, value, expected: expected.to_string() })
        };
        if !(1..=65536).contains(&self.iodepth) {
            return bad("iodepth", self.iodepth.to_string(), "1 to 65536");
        }
        if !(1e-3..=1e9).contains(&self.speed) {
            return bad(
                "speed",
                format!("{:?}", self.speed),
                "0.001 to 1e9 (times faster than recorded)",
            );
        }
        if engines::lookup(&self.ioengine).is_err() {
            let known: Vec<&str> = engines::ENGINES.iter().map(|e| e.name).collect();
            let value = iolab_core::units::quote(&self.ioengine).to_string();
            return bad("ioengine", value, &format!("one of {}", known.join(", ")));
        }
        Ok(())
    }
}

/// What the first pass over the trace found: how far it reaches and what it holds. The
/// requests themselves are not kept (a trace can be far larger than memory); the replay
/// reads the trace a second time as it issues them.
#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    /// Replayable records (within `--limit`).
    count: u64,
    /// Records skipped (zero length, flush, or reads only).
    skipped: u64,
    max_end: u64,
    max_len: u64,
    reads: bool,
    writes: bool,
    /// With `--timed`: records whose timestamp runs back, and the first of them.
    backwards: u64,
    first_backwards: Option<u64>,
}

/// The trace's records as replayable requests, one at a time (memory: one record).
struct Requests<'a> {
    c: &'a ReplayConfig,
    reader: Box<dyn iolab_trace::TraceReader>,
    rec: TraceRecord,
    /// Replayable requests returned so far, skipped records so far.
    taken: u64,
    skipped: u64,
    /// The latest trace time and issue time so far (`--timed`), the records that ran back
    /// and the first of them.
    last_raw: u64,
    last_at: u64,
    backwards: u64,
    first_backwards: Option<u64>,
}

impl<'a> Requests<'a> {
    fn open(c: &'a ReplayConfig) -> Result<Self, ReplayError> {
        let reader = iolab_trace::open(&c.trace, c.format.as_deref(), &ReaderConfig::default())?;
        Ok(Requests {
            c,
            reader,
            rec: TraceRecord::default(),
            taken: 0,
            skipped: 0,
            last_raw: 0,
            last_at: 0,
            backwards: 0,
            first_backwards: None,
        })
    }

    /// The next replayable request (`issue_at` scaled by `--speed` when timed), checked to end
    /// below 2^64; `None` at the end of the trace or of `--limit`.
    fn next(&mut self) -> Result<Option<IoRequest>, ReplayError> {
        let c = self.c;
        while c.limit.is_none_or(|l| self.taken < l) && self.reader.read_into(&mut self.rec)? {
            if iolab_core::stop::requested() {
                return Err(ReplayError::Stopped { trace: c.trace.clone() });
            }
            let mut r = self.rec.req;
            if r.len == 0 || r.dir == IoDir::Sync || (c.read_only && r.dir != IoDir::Read) {
                self.skipped += 1;
                continue;
            }
            r.file = 0;
            let mut at = self.rec.req.issue_at.unwrap_or_default().0;
            let raw = self.rec.time_ns;
            if c.timed && (raw < self.last_raw || at < self.last_at) {
                // Issued at the latest time before it: latency from a time already past
                // would count the wait for the records before it.
                at = self.last_at;
                self.backwards += 1;
                self.first_backwards.get_or_insert(self.taken + self.skipped + 1);
            }
            self.last_raw = self.last_raw.max(raw);
            self.last_at = at;
            r.issue_at = c.timed.then(|| Nanos((at as f64 / c.speed) as u64));
            if r.offset.checked_add(r.len).is_none() {
                return Err(ReplayError::PastEnd {
                    trace: c.trace.clone(),
                    record: self.taken + self.skipped + 1,
                    offset: r.offset,
                    len: r.len,
                });
            }
            self.taken += 1;
            return Ok(Some(r));
        }
        Ok(None)
    }
}

/// The first pass: the highest byte, the largest request, the directions, the counts.
fn scan_trace(c: &ReplayConfig) -> Result<Scan, ReplayError> {
    let mut reqs = Requests::open(c)?;
    let mut s = Scan::default();
    while let Some(r) = reqs.next()? {
        s.count += 1;
        s.max_end = s.max_end.max(r.offset + r.len);
        s.max_len = s.max_len.max(r.len);
        s.reads |= r.dir == IoDir::Read;
        s.writes |= r.dir != IoDir::Read;
    }
    s.skipped = reqs.skipped;
    s.backwards = reqs.backwards;
    s.first_backwards = reqs.first_backwards;
    if s.count == 0 {
        return Err(ReplayError::Empty { trace: c.trace.clone() });
    }
    Ok(s)
}

/// The engine to use: the one asked for, or psync when io_uring is not available (a note).
fn pick_engine(asked: &str, notes: &mut Vec<String>) -> String {
    if asked == "io_uring" {
        if let Err(why) = engines::uring::probe() {
            notes.push(format!("io_uring is not available ({why}); using psync (depth 1)"));
            return "psync".to_string();
        }
    }
    asked.to_string()
}

/// Replay `c` until the trace ends or `stop` is set; one job in a `RunResult` whose meta is
/// `meta` (built by the caller before the work, so it holds the real start time).
pub fn replay(
    c: &ReplayConfig,
    meta: RunMeta,
    stop: &dyn StopCheck,
) -> Result<RunResult, ReplayError> {
    c.validate()?;
    let scan = scan_trace(c)?;
    let (target, mut notes) = open_replay_target(
        &c.target,
        scan.max_end,
        scan.reads,
        scan.writes,
        c.direct,
        c.allow_destroy,
    )?;
    let mut created = Created(target.created.then_some(target.path.as_path()));
    if let Some(first) = scan.first_backwards {
        notes.push(format!(
            "--timed: {} of {} records have a timestamp earlier than a record before them \
             (the first: record {first}); each was issued at the latest time before it",
            scan.backwards, scan.count
        ));
    }
    if target.size < scan.max_end {
        notes.push(wrap_note(&c.target, scan.max_end, target.size));
    }
    if scan.skipped > 0 {
        let skipped = scan.skipped;
        notes.push(format!("{skipped} records skipped (zero length, flush, or --read-only)"));
    }
    let engine_name = pick_engine(&c.ioengine, &mut notes);
    let depth = if iolab_job::engines::has(&engine_name, iolab_job::engines::SYNC) {
        1
    } else {
        c.iodepth.max(1)
    };
    let max_bs = usize::try_from(scan.max_len).unwrap_or(usize::MAX);
    let files = vec![EngineFile::dup(&target.file, target.is_block, &target.path)?];
    let mut engine =
        (engines::lookup(&engine_name)?.ctor)(&EngineConfig::new(depth, max_bs, files))?;
    let cfg = WorkerConfig { depth, depth_low: depth.saturating_sub(1), ..WorkerConfig::default() };
    // The second pass streams the trace into the worker; an error there (the file changed
    // since the first pass) ends the replay with a note, as a stop would.
    let mut reqs = Requests::open(c)?;
    let mut second_pass: Option<ReplayError> = None;
    let size = target.size;
    let wraps = size < scan.max_end;
    let mut src = |r: &mut IoRequest| match reqs.next() {
        Ok(Some(mut x)) => {
            if wraps {
                x.offset %= size.saturating_sub(x.len).max(1);
                x.offset -= x.offset % 4096;
            }
            *r = x;
            true
        }
        Ok(None) => false,
        Err(e) => {
            second_pass.get_or_insert(e);
            false
        }
    };
    let mut fill = |b: &mut [u8], _f: u32, off: u64| iolab_data::gen::random::fill_random(b, off);
    let out = run_worker(&mut *engine, &mut src, &mut fill, None, &cfg, stop, None)
        .map_err(ReplayError::Worker)?;
    let pcts = &iolab_stats::DEFAULT_PERCENTILES;
    let mut job: JobResult = iolab_stats::summarize(&out.rec, out.runtime, pcts);
    job.name = format!("replay:{}", c.trace.display());
    job.cpu = out.cpu;
    job.error = out.rec.first_error.map(|e| e.1).unwrap_or(0);
    job.options.insert("ioengine".into(), engine_name);
    job.notes = notes;
    if let Some(e) = &out.error {
        job.notes.push(format!("stopped: {e}"));
    }
    if let Some(e) = second_pass {
        job.notes.push(format!("stopped: {e}"));
    }
    let mut result = RunResult { meta, ..RunResult::default() };
    result.meta.percentile_list = pcts.to_vec();
    result.groups.push(iolab_stats::group(0, &[(0, &job)], pcts));
    result.jobs.push(job);
    result.meta.interrupted = iolab_core::stop::requested();
    created.0 = None;
    Ok(result)
}

/// A target the replay created, removed unless the replay ends with a result.
struct Created<'a>(Option<&'a Path>);

impl Drop for Created<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn wrap_note(target: &Path, max_end: u64, size: u64) -> String {
    format!(
        "trace reaches byte {max_end} but {} has {size} bytes: offsets wrap modulo its size",
        target.display()
    )
}
