//! `iolab replay TRACE --filename=TARGET …`: real I/O from a block trace, run by
//! `iolab_engine::replay` (which reads the trace, sizes or wraps onto the target, falls back
//! from io_uring to psync as `run` does and records the engine used); this file parses the
//! flags, bridges the signals and renders.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::bail;
use iolab_engine::replay::{replay, ReplayConfig};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file (format detected from its name and first bytes unless --format).
    trace: PathBuf,
    /// File or block device to replay onto (created and sized to the trace if missing).
    #[arg(long)]
    filename: PathBuf,
    /// Trace format name (see `iolab trace`), instead of detection.
    #[arg(long)]
    format: Option<String>,
    /// I/O engine (io_uring falls back to psync where unavailable, with a note).
    #[arg(long, default_value = "io_uring")]
    ioengine: String,
    /// Requests in flight (1 to 65536).
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
    /// normal, json, json+, terse, jsonl, csv or html (`iolab run`'s exporters).
    #[arg(long, default_value = "normal")]
    output_format: String,
    /// Write the result to FILE (atomically) instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if a.direct > 1 {
        bail!("--direct={}: expected 0 or 1", a.direct);
    }
    let c = ReplayConfig {
        trace: a.trace,
        format: a.format,
        target: a.filename,
        ioengine: a.ioengine,
        iodepth: a.iodepth,
        direct: a.direct != 0,
        timed: a.timed,
        speed: a.speed,
        limit: a.limit,
        read_only: a.read_only,
        allow_destroy: a.allow_destroy,
    };
    c.validate()?;
    iolab_report::render::check_formats(&a.output_format, false)?;
    if let Some(p) = &a.output {
        iolab_report::output::check(p, &[&c.trace, &c.target])?;
    }
    let meta = super::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    let stop = Arc::new(AtomicBool::new(false));
    // SIGINT, SIGTERM and SIGHUP (`iolab_core::stop`) end the replay through this flag.
    let bridge = iolab_core::stop::bridge(stop.clone());
    let result = replay(&c, meta, &stop)?;
    drop(bridge);
    for n in result.jobs.iter().flat_map(|j| &j.notes) {
        eprintln!("iolab: {n}");
    }
    let x = iolab_report::Extras::default();
    iolab_report::render::render_to(&result, &a.output_format, &x, a.output.as_deref())?;
    Ok(match iolab_core::stop::exit_status() {
        Some(status) => ExitCode::from(status),
        None if result.jobs.iter().any(|j| j.error != 0) => ExitCode::from(1),
        None => ExitCode::SUCCESS,
    })
}
