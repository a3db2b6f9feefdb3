//! `iolab data gen|measure`: write a file whose compressibility and dedupe are what was asked
//! (through the same `DataConfig`/`DataGen` a job's writes use, so `--compress 50` here is
//! `buffer_compress_percentage=50` there), and measure a file's or device's real ratios.
//! Library: iolab-data (`genfile`: the flags as a job's buffer options and the writer;
//! `measure`).

use anyhow::Context;
use iolab_core::units::{parse_size, KbBase};
use iolab_data::genfile::{size_arg, summary, write_data, GenSpec};
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

/// `iolab data gen`: the buffer options (`GenSpec`, the library's type) and the output.
#[derive(clap::Args)]
struct GenArgs {
    #[command(flatten)]
    spec: GenSpec,
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
    #[arg(long, default_value = "4k", value_parser = size_arg("bs", 1))]
    bs: u64,
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
    let (spec, size, bs, seed) = (&a.spec, a.spec.size, a.spec.bs, a.spec.seed);
    let cfg = iolab_job::gen_config(spec)?;
    cfg.warnings().iter().for_each(|w| eprintln!("iolab: warning: {w}"));
    iolab_report::output::check(&a.output, &[])?;
    let start = Instant::now();
    let name = a.output.display().to_string();
    iolab_report::render::write_streamed(&a.output, |w| -> anyhow::Result<()> {
        Ok(write_data(w, &name, &cfg, seed, size, bs)?)
    })?;
    println!("{}", summary(spec, &cfg, &a.output, start.elapsed().as_secs_f64()));
    Ok(ExitCode::SUCCESS)
}

fn measure(a: MeasureArgs) -> anyhow::Result<ExitCode> {
    let sample = match a.sample.as_str() {
        "all" => None,
        s => Some(size_of(s, "sample")?.max(1)),
    };
    let opts = MeasureOptions { block: a.bs as usize, sample };
    let m = measure_path(&a.path, &opts)?;
    let format = if a.json { "json" } else { "normal" };
    let out = iolab_report::render_document(&m, format, &|m| m.table(), None, None)?;
    iolab_report::render::write(&out, None)?;
    Ok(ExitCode::SUCCESS)
}
