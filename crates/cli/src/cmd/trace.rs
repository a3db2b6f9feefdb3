//! `iolab trace stat|convert`: trace statistics (mix, footprint, reuse, sizes, sequential
//! streams) and format conversion (fio iolog v3, oracleGeneral, CSV). Readers and writers live
//! in iolab-trace (`ops`: the stat pass and its text, conversion); reuse distances come from
//! iolab-model's stack-distance engine.

use anyhow::{bail, Context};
use iolab_core::units::{parse_size, KbBase};
use iolab_model::mrc::stack::StackDistance;
use iolab_model::mrc_report::check_block_size;
use iolab_report::render::write_streamed;
use iolab_trace::ops::{self, ReadOptions, Target};
use iolab_trace::write::oracle::OracleOptions;
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

pub fn size_arg(s: &str, what: &str) -> anyhow::Result<u64> {
    let v = parse_size(s, KbBase::K1024).with_context(|| format!("{what} `{s}`"))?;
    if v == 0 {
        bail!("{what} `{s}` must be at least 1 byte");
    }
    Ok(v)
}

#[derive(clap::Args)]
struct StatArgs {
    trace: PathBuf,
    /// Block size for footprint and reuse (fio size syntax: 4k = 4096).
    #[arg(long, default_value = "4k")]
    block_size: String,
    /// A request continues a sequential stream if it starts where the stream ended within
    /// this many requests.
    #[arg(long, default_value_t = 256)]
    stream_window: u64,
    #[command(flatten)]
    out: super::DocFormat,
    #[command(flatten)]
    opts: ReadOptions,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum To {
    Iolog,
    Oracle,
    Csv,
}

#[derive(clap::Args)]
struct ConvertArgs {
    input: PathBuf,
    output: PathBuf,
    #[arg(long, value_enum)]
    to: To,
    /// oracleGeneral output: clock_time unit (s, ms, us, ns).
    #[arg(long, default_value = "s")]
    out_time_unit: String,
    /// oracleGeneral output: give every object the size of its first request (libCacheSim).
    #[arg(long)]
    first_size: bool,
    /// iolog output: file names for device indices 0, 1, ... (comma-separated); default: the
    /// names the input trace carries, else iolab.N.
    #[arg(long, value_delimiter = ',')]
    files: Vec<String>,
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
    let bs = check_block_size(size_arg(&a.block_size, "--block-size")?)?;
    let mut r = a.opts.open(&a.trace)?;
    let mut stack = StackDistance::new();
    let name = a.trace.display().to_string();
    let s = ops::stat(&mut *r, &name, bs, a.stream_window, &mut |k| stack.access(k))?;
    let doc = ops::stat_doc(&a.trace, &s);
    let text = |_: &_| ops::stat_text(&a.trace, &s);
    let format = a.out.name();
    let page = super::report::doc_page("trace stat");
    iolab_report::render::write(
        &iolab_report::render_document(&doc, format, &text, None, Some(&page))?,
        None,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn convert(a: ConvertArgs) -> anyhow::Result<ExitCode> {
    // Refused before anything is touched: an output that is the input (same device and inode).
    iolab_report::output::check(&a.output, &[&a.input])?;
    let mut r = a.opts.open(&a.input)?;
    let out_name = a.output.display().to_string();
    let to = match a.to {
        To::Iolog => Target::Iolog { files: a.files.clone() },
        To::Csv => Target::Csv,
        To::Oracle => Target::Oracle(OracleOptions {
            time_unit_ns: ops::time_unit(&a.out_time_unit)?,
            first_size: a.first_size,
        }),
    };
    // A temporary beside the output (unique name, O_EXCL, so never the input), renamed into
    // place when whole; a device or FIFO is written through.
    let n = write_streamed(&a.output, |w| -> anyhow::Result<u64> {
        Ok(ops::convert(&mut *r, w, &out_name, &to)?)
    })?;
    eprintln!("wrote {n} records to {out_name} ({} skipped as malformed)", r.skipped());
    Ok(ExitCode::SUCCESS)
}
