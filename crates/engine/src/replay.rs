//! Real I/O from a block trace: any format `iolab-trace` reads, issued through the worker loop
//! as one job (fio's own `read_iolog`/`replay_*` options play this role in fio, iolog.c).
//!
//! The trace is read into memory first (32 bytes a record) so the target can be sized to the
//! trace's highest byte. Offsets beyond an existing target wrap modulo its size (with a note).
//! Timed, each request waits for its trace timestamp (divided by `speed`) and latency counts
//! from that time, so a slow device shows up as latency instead of a slower replay. The engine
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

/// The trace's requests, the highest byte they reach and how many records were skipped.
fn read_trace(c: &ReplayConfig) -> Result<(Vec<IoRequest>, u64, u64), ReplayError> {
    let mut reader = iolab_trace::open(&c.trace, c.format.as_deref(), &ReaderConfig::default())?;
    let mut reqs: Vec<IoRequest> = Vec::new();
    let mut rec = TraceRecord::default();
    let (mut skipped, mut max_end) = (0u64, 0u64);
    while c.limit.is_none_or(|l| (reqs.len() as u64) < l) && reader.read_into(&mut rec)? {
        if iolab_core::stop::requested() {
            return Err(ReplayError::Stopped { trace: c.trace.clone() });
        }
        let mut r = rec.req;
        if r.len == 0 || r.dir == IoDir::Sync || (c.read_only && r.dir != IoDir::Read) {
            skipped += 1;
            continue;
        }
        r.file = 0;
        let at = rec.req.issue_at.unwrap_or_default().0;
        r.issue_at = c.timed.then(|| Nanos((at as f64 / c.speed) as u64));
        let end = r.offset.checked_add(r.len).ok_or_else(|| ReplayError::PastEnd {
            trace: c.trace.clone(),
            record: reqs.len() as u64 + skipped + 1,
            offset: r.offset,
            len: r.len,
        })?;
        max_end = max_end.max(end);
        reqs.push(r);
    }
    if reqs.is_empty() {
        return Err(ReplayError::Empty { trace: c.trace.clone() });
    }
    Ok((reqs, max_end, skipped))
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
    let (mut reqs, max_end, skipped) = read_trace(c)?;
    let writes = reqs.iter().any(|r| r.dir != IoDir::Read);
    let reads = reqs.iter().any(|r| r.dir == IoDir::Read);
    let (target, mut notes) =
        open_replay_target(&c.target, max_end, reads, writes, c.direct, c.allow_destroy)?;
    if target.size < max_end {
        notes.push(wrap_note(&c.target, max_end, target.size));
        let size = target.size;
        for r in &mut reqs {
            r.offset %= size.saturating_sub(r.len).max(1);
            r.offset -= r.offset % 4096;
        }
    }
    if skipped > 0 {
        notes.push(format!("{skipped} records skipped (zero length, flush, or --read-only)"));
    }
    let engine_name = pick_engine(&c.ioengine, &mut notes);
    let depth = if iolab_job::engines::has(&engine_name, iolab_job::engines::SYNC) {
        1
    } else {
        c.iodepth.max(1)
    };
    let max_bs = reqs.iter().map(|r| r.len).max().unwrap_or(4096) as usize;
    let files = vec![EngineFile::dup(&target.file, target.is_block, &target.path)?];
    let mut engine =
        (engines::lookup(&engine_name)?.ctor)(&EngineConfig::new(depth, max_bs, files))?;
    let cfg = WorkerConfig { depth, depth_low: depth.saturating_sub(1), ..WorkerConfig::default() };
    let mut it = reqs.into_iter();
    let mut src = move |r: &mut IoRequest| it.next().map(|x| *r = x).is_some();
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
    let mut result = RunResult { meta, ..RunResult::default() };
    result.meta.percentile_list = pcts.to_vec();
    result.groups.push(iolab_stats::group(0, &[(0, &job)], pcts));
    result.jobs.push(job);
    result.meta.interrupted = iolab_core::stop::requested();
    Ok(result)
}

fn wrap_note(target: &Path, max_end: u64, size: u64) -> String {
    format!(
        "trace reaches byte {max_end} but {} has {size} bytes: offsets wrap modulo its size",
        target.display()
    )
}
