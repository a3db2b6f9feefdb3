//! `iolab mrc TRACE`: the LRU miss-ratio curve of a trace, exact (Mattson stack distances)
//! or sampled (SHARDS fixed-rate `--shards R` or fixed-size `--shards-size N`), at object
//! granularity (libCacheSim's view: one entry per obj_id) or split into `--block-size` blocks.
//! Prints a plot-ready table: cache size, miss ratio, byte miss ratio (`model::mrc_report`).
//!
//! `iolab mrc --job JOB.fio [-- --name=x --rw=randread …]`: the same curve for the request
//! stream `iolab run` would issue (built by `iolab_run::iolog`, without I/O), split into blocks of
//! `--block-size` or the jobs' smallest block size; shared files are one key space.

use anyhow::bail;
use iolab_model::mrc::MrcBuilder;
use iolab_model::mrc_report::{self, CurveOptions, CurveReport, Source};
use iolab_report::render_document;
use iolab_trace::ops::ReadOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The trace (not with --job).
    #[arg(required_unless_present = "job", conflicts_with = "job")]
    trace: Option<PathBuf>,
    /// fio job file(s) whose request stream to analyse instead of a trace (repeat).
    #[arg(long)]
    job: Vec<PathBuf>,
    /// fio-style options for --job, after `--` (`-- --size=1g --loops=2`).
    #[arg(last = true, allow_hyphen_values = true)]
    fio: Vec<String>,
    #[command(flatten)]
    curve: CurveOptions,
    #[command(flatten)]
    out: iolab_report::render::DocFormat,
    #[command(flatten)]
    opts: ReadOptions,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if !a.fio.is_empty() && a.job.is_empty() {
        bail!("fio-style options after `--` need --job JOB.fio");
    }
    if !a.job.is_empty() && (a.opts.format.is_some() || a.opts.lenient) {
        bail!("--format/--lenient read a trace; --job has none");
    }
    let (mut block, mut builder, method) = a.curve.check()?;
    let (label, format, requests, skipped) = match &a.trace {
        Some(t) => {
            let mut cfg = a.opts.config()?;
            if block.is_none() {
                // Object ids are keys here, not LBNs: no conversion to byte offsets (a hashed
                // 64-bit oracleGeneral obj_id would overflow it).
                cfg.oracle_id_unit_bytes = 1;
            }
            // Opened here first for its one-line errors (missing, FIFO, unknown format); the
            // reading opens it again, on a second thread at object granularity.
            let fmt = a.opts.format.as_deref();
            drop(iolab_trace::open(t, fmt, &cfg)?);
            let src = iolab_trace::ahead::TracePath { path: t, format: fmt, cfg: &cfg };
            // A trace error already names the trace (and the record); the others do not.
            let end =
                mrc_report::trace_accesses_at(src, builder.as_mut(), block).map_err(
                    |e| match e {
                        mrc_report::MrcInputError::Trace(_) => anyhow::Error::new(e),
                        _ => anyhow::Error::new(e).context(t.display().to_string()),
                    },
                )?;
            (t.display().to_string(), end.format.to_string(), end.records, end.skipped)
        }
        None => {
            let (n, bs) = job_accesses(&a, block, builder.as_mut())?;
            block = Some(bs);
            let names: Vec<String> = a.job.iter().map(|p| p.display().to_string()).collect();
            (names.join(","), "fio job".to_string(), n, 0)
        }
    };
    let curve = builder.finish();
    let pts = a.curve.points(&curve);
    let interrupted = iolab_core::stop::requested();
    let src = Source { label, format, requests, skipped, interrupted };
    let report = CurveReport::new(src, method, block, &curve, &pts);
    let format = a.out.name();
    if interrupted && format == "csv" {
        eprintln!("iolab: interrupted: the curve covers the {requests} records read");
    }
    let page = iolab_report::export::html::doc_page("mrc");
    let out =
        render_document(&report, format, &CurveReport::text, Some(&CurveReport::csv), Some(&page))?;
    iolab_report::render::write(&out, None)?;
    Ok(ExitCode::SUCCESS)
}

/// Feed the jobs' request streams (`iolab_run::iolog::build`, as `run` would issue them)
/// into `builder` at `block` (default: the jobs' smallest block size); returns the requests
/// seen and the block size used.
fn job_accesses(
    a: &Args,
    block: Option<u64>,
    builder: &mut dyn MrcBuilder,
) -> anyhow::Result<(u64, u64)> {
    let opts = iolab_job::LoadOptions {
        files: a.job.clone(),
        cmdline: a.fio.clone(),
        ..Default::default()
    };
    let parsed = iolab_job::load(&opts)?;
    parsed.warnings.iter().for_each(|w| eprintln!("iolab: {w}"));
    let bs = block.map_or_else(|| mrc_report::jobs_block_size(&parsed.jobs), Ok)?;
    let s = iolab_run::iolog::build(&parsed.jobs, iolab_run::iolog::Sizes::Existing)?;
    s.notes.iter().for_each(|n| eprintln!("iolab: {n}"));
    Ok((mrc_report::stream_accesses(s, builder, bs), bs))
}
