//! `iolab trace stat|convert`: trace statistics (mix, footprint, reuse, sizes, sequential
//! streams) and format conversion (fio iolog v3, oracleGeneral, CSV). Readers and writers live
//! in iolab-trace (`ops`: the stat pass and its text, conversion); reuse distances come from
//! iolab-model's stack-distance engine.

use iolab_model::mrc::stack::StackDistance;
use iolab_model::mrc_report::check_block_size;
use iolab_report::render::write_streamed;
use iolab_trace::ops::{self, ConvertOptions, ReadOptions, StatOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Requests, read/write mix, footprint, reuse distance/time, sizes, sequential streams.
    Stat(StatArgs),
    /// Convert between formats.
    Convert(ConvertArgs),
}

#[derive(clap::Args)]
struct StatArgs {
    trace: PathBuf,
    #[command(flatten)]
    s: StatOptions,
    #[command(flatten)]
    out: iolab_report::render::DocFormat,
    #[command(flatten)]
    opts: ReadOptions,
}

#[derive(clap::Args)]
struct ConvertArgs {
    input: PathBuf,
    output: PathBuf,
    #[command(flatten)]
    c: ConvertOptions,
    #[command(flatten)]
    opts: ReadOptions,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.cmd {
        Sub::Stat(a) => stat(a),
        Sub::Convert(a) => convert(a),
    }
}

fn stat(a: StatArgs) -> anyhow::Result<ExitCode> {
    let bs = check_block_size(a.s.block_size()?)?;
    let name = a.trace.display().to_string();
    let mut cfg = a.opts.config()?;
    let run = |cfg: &iolab_trace::ReaderConfig| -> Result<_, ops::OpError> {
        let mut r = iolab_trace::open(&a.trace, a.opts.format.as_deref(), cfg)?;
        let format = r.format();
        let mut stack = StackDistance::new();
        let s = ops::stat(&mut *r, &name, bs, a.s.stream_window, &mut |k| stack.access(k));
        Ok((format, s))
    };
    let (format, mut s) = run(&cfg)?;
    // An oracleGeneral obj_id is a sector number only when the producer made it one; hashed
    // 64-bit ids (libCacheSim's converters) do not fit as sectors. Those are read again as
    // object keys, and the statistics say what no longer applies.
    let hashed = |s: &Result<_, ops::OpError>| {
        matches!(s, Err(ops::OpError::Trace(e))
            if matches!(e.kind, iolab_trace::TraceErrorKind::Overflow { what: "obj_id" }))
    };
    if format == "oracleGeneral" && hashed(&s) && a.trace.as_os_str() != "-" {
        eprintln!(
            "iolab: {name}: obj_id values too large for sector numbers (hashed 64-bit ids): read \
             as object keys of one byte each; offsets, streams and sequentiality below do not \
             describe a disk"
        );
        cfg.oracle_id_unit_bytes = 1;
        s = run(&cfg)?.1;
    }
    let s = s?;
    let doc = ops::stat_doc(&a.trace, &s);
    let text = |_: &_| ops::stat_text(&a.trace, &s);
    let page = iolab_report::export::html::doc_page("trace stat");
    let out = iolab_report::render_document(&doc, a.out.name(), &text, None, Some(&page))?;
    iolab_report::render::write(&out, None)?;
    Ok(ExitCode::SUCCESS)
}

fn convert(a: ConvertArgs) -> anyhow::Result<ExitCode> {
    // Refused before anything is touched: an output that is the input (same device and inode).
    iolab_report::output::check(&a.output, &[&a.input])?;
    let mut r = a.opts.open(&a.input)?;
    let out_name = a.output.display().to_string();
    let to = a.c.target()?;
    // A temporary beside the output (unique name, O_EXCL, so never the input), renamed into
    // place when whole; a device or FIFO is written through.
    let lossy = a.c.lossy;
    let done = write_streamed(&a.output, |w| -> anyhow::Result<ops::Converted> {
        Ok(ops::convert(&mut *r, w, &out_name, &to, lossy)?)
    })?;
    let n = done.records;
    eprintln!("wrote {n} records to {out_name} ({} skipped as malformed)", r.skipped());
    if let Some(lost) = done.lost {
        eprintln!("lost (--lossy): {lost}");
    }
    Ok(ExitCode::SUCCESS)
}
