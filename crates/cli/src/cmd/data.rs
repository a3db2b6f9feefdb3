//! `iolab data gen|measure`: write a file whose compressibility and dedupe are what was asked
//! (through the same `DataConfig`/`DataGen` a job's writes use, so `--compress 50` here is
//! `buffer_compress_percentage=50` there), and measure a file's or device's real ratios.
//! Library: iolab-data (`genfile`: the flags as a job's buffer options and the writer;
//! `measure`).

use anyhow::{bail, Context};
use iolab_core::units::{parse_size, KbBase};
use iolab_data::genfile::{summary, write_data, GenSpec};
use iolab_data::measure::{measure_path, MeasureOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Write a file with the given compressibility, dedupe and pattern (atomically).
    Gen(GenArgs),
    /// Compression ratios (lz4, zstd, gzip), zero share and dedupe ratios of a file or device.
    Measure(MeasureArgs),
}

#[derive(clap::Args)]
struct GenArgs {
    /// Bytes to write (fio units: 1g = 1 GiB).
    #[arg(long)]
    size: String,
    /// buffer_compress_percentage: percent of each chunk that compresses away.
    #[arg(long, default_value_t = 0)]
    compress: u32,
    /// buffer_compress_chunk (0: one chunk per block).
    #[arg(long, default_value = "512")]
    chunk: String,
    /// compress_content: zeros, text or pattern (default: pattern if --pattern, else zeros).
    #[arg(long)]
    content: Option<String>,
    /// dedupe_percentage: percent of blocks that duplicate another.
    #[arg(long, default_value_t = 0)]
    dedupe: u32,
    /// dedupe_mode: repeat (fio default: duplicates next to their twin) or working_set.
    #[arg(long, default_value = "repeat")]
    dedupe_mode: String,
    /// dedupe_working_set_percentage (working_set mode).
    #[arg(long, default_value_t = 5)]
    dedupe_working_set: u32,
    /// dedupe_spread=1: duplicates spread over the whole file instead of adjacent.
    #[arg(long)]
    dedupe_spread: bool,
    /// buffer_pattern, in fio's forms: 0xdeadbeef, "string", 123, 'file', combined.
    #[arg(long)]
    pattern: Option<String>,
    /// zero_buffers: all zeros.
    #[arg(long)]
    zeros: bool,
    /// Write what fio writes with no buffer options: one random buffer reused with small
    /// scrambles (instead of refill_buffers=1).
    #[arg(long)]
    fio_default: bool,
    /// Block size of each write (the dedupe and chunking unit).
    #[arg(long, default_value = "4k")]
    bs: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file (written to a temporary beside it, then renamed; a device or FIFO is
    /// written through).
    #[arg(short = 'o', long)]
    output: PathBuf,
}

#[derive(clap::Args)]
struct MeasureArgs {
    /// File or block device (opened read-only).
    path: PathBuf,
    /// Block size for per-block compression and the zero-block share.
    #[arg(long, default_value = "4k")]
    bs: String,
    /// Read at most this much, in evenly spaced 1 MiB segments ("all": everything).
    #[arg(long, default_value = "64m")]
    sample: String,
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.cmd {
        Sub::Gen(a) => gen(a),
        Sub::Measure(a) => measure(a),
    }
}

fn size_of(s: &str, what: &str) -> anyhow::Result<u64> {
    parse_size(s, KbBase::K1024).with_context(|| format!("--{what}"))
}

fn gen(a: GenArgs) -> anyhow::Result<ExitCode> {
    let (size, bs) = (size_of(&a.size, "size")?, size_of(&a.bs, "bs")?);
    if bs == 0 {
        bail!("--bs must be at least 1 byte");
    }
    let chunk = (size_of(&a.chunk, "chunk")?, a.chunk.clone());
    let (content, dedupe_mode, pattern) = (a.content, a.dedupe_mode, a.pattern);
    let (compress, dedupe, seed) = (a.compress, a.dedupe, a.seed);
    let (dedupe_working_set, dedupe_spread) = (a.dedupe_working_set, a.dedupe_spread);
    let (zeros, fio_default) = (a.zeros, a.fio_default);
    let spec = GenSpec {
        size,
        bs,
        seed,
        compress,
        chunk,
        content,
        dedupe,
        dedupe_mode,
        dedupe_working_set,
        dedupe_spread,
        pattern,
        zeros,
        fio_default,
    };
    let cfg = iolab_job::gen_config(&spec)?;
    cfg.warnings().iter().for_each(|w| eprintln!("iolab: warning: {w}"));
    iolab_report::output::check(&a.output, &[])?;
    let start = Instant::now();
    let name = a.output.display().to_string();
    iolab_report::render::write_streamed(&a.output, |w| -> anyhow::Result<()> {
        Ok(write_data(w, &name, &cfg, seed, size, bs)?)
    })?;
    println!("{}", summary(&spec, &cfg, &a.output, start.elapsed().as_secs_f64()));
    Ok(ExitCode::SUCCESS)
}

fn measure(a: MeasureArgs) -> anyhow::Result<ExitCode> {
    let bs = size_of(&a.bs, "bs")?;
    if bs == 0 {
        bail!("--bs must be at least 1 byte");
    }
    let sample = match a.sample.as_str() {
        "all" => None,
        s => Some(size_of(s, "sample")?.max(1)),
    };
    let opts = MeasureOptions { block: bs as usize, sample };
    let m = measure_path(&a.path, &opts)?;
    let format = if a.json { "json" } else { "normal" };
    let out = iolab_report::render_document(&m, format, &|m| m.table(), None, None)?;
    iolab_report::render::write(&out, None)?;
    Ok(ExitCode::SUCCESS)
}
