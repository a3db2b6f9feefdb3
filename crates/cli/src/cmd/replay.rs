//! `iolab replay TRACE --filename=TARGET [--format=NAME] [--ioengine=io_uring] [--iodepth=32]
//! [--direct=1] [--timed] [--speed=X] [--limit=N] [--allow-destroy] [--output-format=…]
//! [--output=FILE]`: real I/O from a block trace (any format `iolab-trace` reads; fio's own
//! `read_iolog`/`replay_*` options play this role in fio).
//!
//! The trace is read into memory first (32 bytes a record) so the target can be sized to
//! the trace's highest byte, then issued through `iolab-engine`'s worker loop as one job.
//! Offsets beyond an existing target wrap modulo its size (with a note). With `--timed` each
//! request waits for its trace timestamp (divided by `--speed`) and latency is measured from
//! that time, so a slow device shows up as latency instead of a slower replay.

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Context};
use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_engine::engines::{self, EngineConfig, EngineFile};
use iolab_engine::target::open_replay_target;
use iolab_engine::worker::{run_worker, WorkerConfig};
use iolab_trace::{ReaderConfig, TraceRecord};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file (format detected from its name and first bytes unless --format).
    trace: std::path::PathBuf,
    /// File or block device to replay onto (created and sized to the trace if missing).
    #[arg(long)]
    filename: std::path::PathBuf,
    /// Trace format name (see `iolab trace`), instead of detection.
    #[arg(long)]
    format: Option<String>,
    #[arg(long, default_value = "io_uring")]
    ioengine: String,
    #[arg(long, default_value_t = 32)]
    iodepth: u32,
    /// O_DIRECT (offsets and lengths must be 4 KiB-aligned in the trace).
    #[arg(long, default_value_t = 1)]
    direct: u8,
    /// Issue each request at its trace time (open loop) instead of as fast as possible.
    #[arg(long)]
    timed: bool,
    /// With --timed: replay this many times faster than recorded.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Replay at most this many records.
    #[arg(long)]
    limit: Option<u64>,
    /// Replay only reads (skip writes and trims), for a target whose contents must survive.
    #[arg(long)]
    read_only: bool,
    /// Allow writes to a block device that carries a filesystem or partition table.
    #[arg(long)]
    allow_destroy: bool,
    #[arg(long, default_value = "normal")]
    output_format: String,
    #[arg(long)]
    output: Option<std::path::PathBuf>,
}

/// Flag checks before anything is opened or created: fio's ranges where fio has the option
/// (`iodepth` 1..=65536, `direct` a bool), and a `--speed` whose scaled waits stay finite.
fn validate(args: &Args) -> anyhow::Result<()> {
    if !(1..=65536).contains(&args.iodepth) {
        bail!("--iodepth={}: expected 1 to 65536", args.iodepth);
    }
    if args.direct > 1 {
        bail!("--direct={}: expected 0 or 1", args.direct);
    }
    if !(1e-3..=1e9).contains(&args.speed) {
        bail!("--speed={:?}: expected 0.001 to 1e9 (times faster than recorded)", args.speed);
    }
    if engines::lookup(&args.ioengine).is_err() {
        let known: Vec<&str> = engines::ENGINES.iter().map(|e| e.name).collect();
        bail!(
            "--ioengine={}: not known; expected one of {}",
            iolab_core::units::quote(&args.ioengine),
            known.join(", ")
        );
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    validate(&args)?;
    let exporter = iolab_report::exporter(&args.output_format)?;
    if let Some(p) = &args.output {
        iolab_report::output::check(p, &[&args.trace, &args.filename])?;
    }
    let mut reader =
        iolab_trace::open(&args.trace, args.format.as_deref(), &ReaderConfig::default())?;
    let mut reqs: Vec<IoRequest> = Vec::new();
    let mut rec = TraceRecord::default();
    let (mut skipped_dirs, mut max_end) = (0u64, 0u64);
    while args.limit.is_none_or(|l| (reqs.len() as u64) < l) && reader.read_into(&mut rec)? {
        if iolab_core::stop::requested() {
            bail!("{}: stopped while reading the trace", args.trace.display());
        }
        let mut r = rec.req;
        if r.len == 0 || r.dir == IoDir::Sync || (args.read_only && r.dir != IoDir::Read) {
            skipped_dirs += 1;
            continue;
        }
        r.file = 0;
        r.issue_at = args
            .timed
            .then(|| Nanos((rec.req.issue_at.unwrap_or_default().0 as f64 / args.speed) as u64));
        let Some(end) = r.offset.checked_add(r.len) else {
            bail!(
                "{}: record {}: offset {} + length {} passes 2^64 bytes",
                args.trace.display(),
                reqs.len() as u64 + skipped_dirs + 1,
                r.offset,
                r.len
            );
        };
        max_end = max_end.max(end);
        reqs.push(r);
    }
    if reqs.is_empty() {
        bail!("{}: no replayable records", args.trace.display());
    }
    let writes = reqs.iter().any(|r| r.dir != IoDir::Read);
    let reads = reqs.iter().any(|r| r.dir == IoDir::Read);
    let (target, mut notes) = open_replay_target(
        &args.filename,
        max_end,
        reads,
        writes,
        args.direct != 0,
        args.allow_destroy,
    )?;
    if target.size < max_end {
        notes.push(format!(
            "trace reaches byte {max_end} but {} has {} bytes: offsets wrap modulo its size",
            args.filename.display(),
            target.size
        ));
        let size = target.size;
        for r in &mut reqs {
            r.offset %= size.saturating_sub(r.len).max(1);
            r.offset -= r.offset % 4096;
        }
    }
    if skipped_dirs > 0 {
        notes.push(format!("{skipped_dirs} records skipped (zero length, flush, or --read-only)"));
    }
    let depth = if engines::is_sync_engine(&args.ioengine) { 1 } else { args.iodepth.max(1) };
    let max_bs = reqs.iter().map(|r| r.len).max().unwrap_or(4096) as usize;
    let files = vec![EngineFile::dup(&target.file, target.is_block, &target.path)?];
    let mut engine =
        (engines::lookup(&args.ioengine)?.ctor)(&EngineConfig::new(depth, max_bs, files))?;
    let cfg = WorkerConfig { depth, depth_low: depth.saturating_sub(1), ..WorkerConfig::default() };
    let stop = Arc::new(AtomicBool::new(false));
    // SIGINT, SIGTERM and SIGHUP (crate::signals) end the replay through this flag.
    let bridge = crate::signals::bridge(stop.clone());
    let mut it = reqs.into_iter();
    let mut src = move |r: &mut IoRequest| match it.next() {
        Some(x) => {
            *r = x;
            true
        }
        None => false,
    };
    let mut fill = |b: &mut [u8], _f: u32, off: u64| iolab_data::gen::random::fill_random(b, off);
    let out = run_worker(&mut *engine, &mut src, &mut fill, None, &cfg, &stop, None)
        .context("replaying")?;
    drop(bridge);
    let mut job = iolab_stats::summarize(&out.rec, out.runtime, &iolab_stats::DEFAULT_PERCENTILES);
    job.name = format!("replay:{}", args.trace.display());
    job.cpu = out.cpu;
    job.error = out.rec.first_error.map(|e| e.1).unwrap_or(0);
    job.notes = notes;
    if let Some(e) = &out.error {
        job.notes.push(format!("stopped: {e}"));
    }
    let mut result = iolab_stats::RunResult::default();
    result.groups.push(iolab_stats::group(0, &[(0, &job)], &iolab_stats::DEFAULT_PERCENTILES));
    result.jobs.push(job);
    result.meta.interrupted = iolab_core::stop::requested();
    result.meta.command_line = std::env::args().collect();
    result.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
    for n in &result.jobs[0].notes {
        eprintln!("iolab: {n}");
    }
    let bytes = exporter.render(&result)?;
    match &args.output {
        Some(p) => iolab_report::write_atomic(p, &bytes)?,
        None => {
            std::io::Write::write_all(&mut std::io::stdout(), &bytes).context("writing results")?
        }
    }
    Ok(match iolab_core::stop::exit_status() {
        Some(status) => ExitCode::from(status),
        None if result.jobs[0].error != 0 => ExitCode::from(1),
        None => ExitCode::SUCCESS,
    })
}
