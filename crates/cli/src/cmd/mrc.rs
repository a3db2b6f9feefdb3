//! `iolab mrc TRACE`: the LRU miss-ratio curve of a trace, exact (Mattson stack distances)
//! or sampled (SHARDS fixed-rate `--shards R` or fixed-size `--shards-size N`), at object
//! granularity (libCacheSim's view: one entry per obj_id) or split into `--block-size` blocks.
//! Prints a plot-ready table: cache size, miss ratio, byte miss ratio (`model::mrc_report`).
//!
//! `iolab mrc TRACE --policy=P1,P2,…`: one curve per eviction policy over the same sizes, the
//! trace read once and every (policy, size) simulated on all cores, fully or as miniature
//! simulations of a sampled trace (`model::mrc_policies`).
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
    /// Eviction policies, comma-separated (lru, fifo, clock, sieve, s3fifo, arc, 2q, lfu, lirs,
    /// wtinylfu, smq, belady): one curve each, by full or miniature simulations (default: the
    /// LRU curve from stack distances).
    #[arg(long, value_name = "P1,P2,...", conflicts_with_all = ["job", "shards", "shards_size", "block_size"])]
    policy: Option<String>,
    /// With --policy: a full simulation at every point (default: when the trace fits the work
    /// budget, else miniature simulations).
    #[arg(long, conflicts_with = "sample")]
    exact: bool,
    /// With --policy: miniature simulations of the keys sampled at this rate, 0 < R <= 1.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    sample: Option<f64>,
    /// With --policy: at most this many threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// With --policy: byte miss ratios too (missed bytes / requested bytes; the trace must have
    /// object sizes).
    #[arg(long)]
    by_bytes: bool,
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
    if let Some(list) = &a.policy {
        return run_policies(&a, list);
    }
    // Checked here rather than by clap's `requires`, whose error spans three lines.
    let with_policy = [
        ("--exact", a.exact),
        ("--sample", a.sample.is_some()),
        ("--threads", a.threads.is_some()),
        ("--by-bytes", a.by_bytes),
    ];
    if let Some((flag, _)) = with_policy.iter().find(|(_, given)| *given) {
        bail!("{flag} goes with --policy=P1,P2,… (without it the LRU curve comes from stack distances)");
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

/// `--policy`: every policy's curve from one read of the trace.
fn run_policies(a: &Args, list: &str) -> anyhow::Result<ExitCode> {
    use iolab_model::mrc_policies::{self as mp, Method, PolicyCurveError};
    let policies = mp::parse_policies(list)?;
    let threads = match a.threads {
        Some(0) => return Err(PolicyCurveError::Threads.into()),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if a.curve.points < 2 && a.curve.sizes.is_empty() {
        return Err(mrc_report::MrcInputError::Points(a.curve.points).into());
    }
    if a.curve.sizes.contains(&0) {
        bail!("--sizes 0: expected caches of at least 1 entry");
    }
    let method = match (a.exact, a.sample) {
        (true, _) => Method::Exact,
        (false, Some(r)) => Method::Rate(r),
        (false, None) => Method::Auto,
    };
    let per = if a.curve.sizes.is_empty() { a.curve.points } else { a.curve.sizes.len() };
    let mut sample = mp::new_sample(method, policies.len().saturating_mul(per))?;
    let Some(t) = &a.trace else { bail!("--policy needs a TRACE") };
    let mut cfg = a.opts.config()?;
    // Object ids are keys, not LBNs (see `run`).
    cfg.oracle_id_unit_bytes = 1;
    let fmt = a.opts.format.as_deref();
    drop(iolab_trace::open(t, fmt, &cfg)?);
    let src = iolab_trace::ahead::TracePath { path: t, format: fmt, cfg: &cfg };
    let end = mp::sample_trace(src, &mut sample).map_err(|e| match e {
        PolicyCurveError::Input(mrc_report::MrcInputError::Trace(_)) => anyhow::Error::new(e),
        _ => anyhow::Error::new(e).context(t.display().to_string()),
    })?;
    let interrupted = iolab_core::stop::requested();
    let read = mp::Read { label: t.display().to_string(), end, interrupted };
    let sizes = mp::grid(&sample, &a.curve.sizes, a.curve.points);
    let curves = mp::curves(&sample, &policies, &sizes, threads, a.by_bytes, &read)
        .map_err(|e| anyhow::Error::new(e).context(t.display().to_string()))?;
    let format = a.out.name();
    let page = iolab_report::export::html::doc_page("mrc");
    let out = match curves.as_slice() {
        [one] => {
            let text = |c: &mp::PolicyCurve| mp::text(std::slice::from_ref(c));
            let csv = |c: &mp::PolicyCurve| mp::csv(std::slice::from_ref(c));
            render_document(one, format, &text, Some(&csv), Some(&page))?
        }
        all => {
            let text = |c: &Vec<mp::PolicyCurve>| mp::text(c);
            let csv = |c: &Vec<mp::PolicyCurve>| mp::csv(c);
            render_document(&all.to_vec(), format, &text, Some(&csv), Some(&page))?
        }
    };
    iolab_report::render::write(&out, None)?;
    Ok(ExitCode::SUCCESS)
}
