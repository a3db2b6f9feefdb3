//! `iolab replay TRACE --filename=TARGET …`: real I/O from a block trace, run by
//! `iolab_engine::replay` (which reads the trace, sizes or wraps onto the target, falls back
//! from io_uring to psync as `run` does and records the engine used); this file parses the
//! flags, runs it (the signals stop it through its `Stop`) and renders.

use std::path::PathBuf;
use std::process::ExitCode;

use iolab_engine::replay::{replay, ReplayConfig};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    c: ReplayConfig,
    /// normal, json, json+, terse, jsonl, csv or html (`iolab run`'s exporters).
    #[arg(long, default_value = "normal")]
    output_format: String,
    /// Write the result to FILE (atomically) instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    iolab_run::hosts::refuse_command("replay")?;
    let c = a.c;
    c.validate()?;
    iolab_report::render::check_formats(&a.output_format, false)?;
    if let Some(p) = &a.output {
        iolab_report::output::check(p, &[&c.trace, &c.target])?;
    }
    let meta = super::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    // SIGINT, SIGTERM and SIGHUP (`iolab_core::stop`) end the replay: a `Stop` reads them.
    let result = replay(&c, meta, &iolab_core::stop::Stop::new())?;
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
