//! `iolab data gen|measure`: write a file whose compressibility and dedupe are what was asked
//! (through the same `DataConfig`/`DataGen` a job's writes use, so `--compress 50` here is
//! `buffer_compress_percentage=50` there), and measure a file's or device's real ratios.
//! Library: iolab-data (`gen`, `measure`).

use anyhow::{bail, Context};
use iolab_core::units::{format_bytes_iec, parse_size, KbBase};
use iolab_data::measure::{measure_path, MeasureOptions};
use iolab_data::{DataConfig, DataGen};
use iolab_job::{Job, OptionValue, Origin, ResolvedOption, RwKind, SizeSpec};
use std::io::Write;
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

fn size(s: &str, what: &str) -> anyhow::Result<u64> {
    parse_size(s, KbBase::K1024).with_context(|| format!("--{what}"))
}

fn set(job: &mut Job, index: u32, name: &str, value: OptionValue, raw: String) {
    let origin = Origin::CommandLine { index };
    job.options.insert(name.to_string(), ResolvedOption { value, raw, origin, seq: 0 });
}

/// The flags as the job a fio user would write, so the same resolution and warnings apply.
fn config(a: &GenArgs, total: u64, bs: u64) -> anyhow::Result<DataConfig> {
    let mut job = Job::with_defaults("data-gen");
    job.rw = RwKind::Write;
    job.bs.write.min = bs;
    job.bs.write.max = bs;
    job.size = Some(SizeSpec::Bytes(total));
    job.randseed = a.seed;
    job.randseed_set = true;
    let chunk = size(&a.chunk, "chunk")?;
    let mut i = 0;
    let mut opt = |job: &mut Job, name: &str, v: OptionValue, raw: String| {
        i += 1;
        set(job, i, name, v, raw);
    };
    if !a.fio_default {
        opt(&mut job, "refill_buffers", OptionValue::Bool(true), "1".into());
    }
    if a.compress != 0 {
        let v = OptionValue::Int(i64::from(a.compress));
        opt(&mut job, "buffer_compress_percentage", v, a.compress.to_string());
    }
    opt(&mut job, "buffer_compress_chunk", OptionValue::Size(chunk), a.chunk.clone());
    if a.dedupe != 0 {
        opt(
            &mut job,
            "dedupe_percentage",
            OptionValue::Int(i64::from(a.dedupe)),
            a.dedupe.to_string(),
        );
        let ws = a.dedupe_working_set;
        opt(
            &mut job,
            "dedupe_working_set_percentage",
            OptionValue::Int(i64::from(ws)),
            ws.to_string(),
        );
    }
    let mode = a.dedupe_mode.clone();
    opt(&mut job, "dedupe_mode", OptionValue::Str(mode.clone()), mode);
    if a.dedupe_spread {
        opt(&mut job, "dedupe_spread", OptionValue::Bool(true), "1".into());
    }
    if let Some(p) = &a.pattern {
        opt(&mut job, "buffer_pattern", OptionValue::Str(p.clone()), p.clone());
    }
    if let Some(c) = &a.content {
        opt(&mut job, "compress_content", OptionValue::Str(c.clone()), c.clone());
    }
    if a.zeros {
        opt(&mut job, "zero_buffers", OptionValue::Bool(true), "1".into());
    }
    Ok(job.data_config()?)
}

fn gen(a: GenArgs) -> anyhow::Result<ExitCode> {
    let total = size(&a.size, "size")?;
    let bs = size(&a.bs, "bs")?;
    if bs == 0 {
        bail!("--bs must be at least 1 byte");
    }
    let cfg = config(&a, total, bs)?;
    for w in cfg.warnings() {
        eprintln!("iolab: warning: {w}");
    }
    iolab_report::output::check(&a.output, &[])?;
    let start = Instant::now();
    // A temporary beside the output, renamed into place when whole (removed on error, drop or
    // signal); a device or FIFO is written through.
    let out = iolab_report::output::OutputFile::create(&a.output)?;
    write_file(out, &cfg, a.seed, total, bs)?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "wrote {} ({} B) to {} in {:.2} s ({:.0} MiB/s): bs {}, compress {}%, dedupe {}% ({:?}{}), seed {}",
        format_bytes_iec(total),
        total,
        a.output.display(),
        secs,
        total as f64 / (1 << 20) as f64 / secs.max(1e-9),
        bs,
        cfg.compress_percentage,
        cfg.dedupe_percentage,
        cfg.dedupe_mode,
        if cfg.dedupe_spread { ", spread" } else { "" },
        a.seed
    );
    Ok(ExitCode::SUCCESS)
}

fn write_file(
    f: iolab_report::output::OutputFile,
    cfg: &DataConfig,
    seed: u64,
    total: u64,
    bs: u64,
) -> anyhow::Result<()> {
    let name = f.path().display().to_string();
    let mut f = std::io::BufWriter::with_capacity(1 << 20, f);
    let mut g = DataGen::new(cfg, seed);
    // Batches of whole blocks, about 4 MiB, so each write(2) is large.
    let per_batch = (4u64 << 20).div_ceil(bs).max(1);
    let mut buf = vec![0u8; (per_batch * bs) as usize];
    let mut off = 0u64;
    while off < total {
        if iolab_core::stop::requested() {
            bail!("{name}: stopped after {off} of {total} bytes; nothing written");
        }
        let len = (per_batch * bs).min(total - off) as usize;
        for (i, blk) in buf[..len].chunks_mut(bs as usize).enumerate() {
            g.fill(blk, 0, off + i as u64 * bs, 0);
        }
        f.write_all(&buf[..len]).with_context(|| format!("writing {name}"))?;
        off += len as u64;
    }
    let f =
        f.into_inner().map_err(|e| e.into_error()).with_context(|| format!("writing {name}"))?;
    Ok(f.commit()?)
}

fn measure(a: MeasureArgs) -> anyhow::Result<ExitCode> {
    let bs = size(&a.bs, "bs")?;
    if bs == 0 {
        bail!("--bs must be at least 1 byte");
    }
    let sample = match a.sample.as_str() {
        "all" => None,
        s => Some(size(s, "sample")?.max(1)),
    };
    let opts = MeasureOptions { block: bs as usize, sample };
    let m = measure_path(&a.path, &opts)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&m)?);
    } else {
        print!("{}", m.table());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn run_args(argv: &[&str]) -> anyhow::Result<ExitCode> {
        let cli = Cli::try_parse_from(std::iter::once("data").chain(argv.iter().copied()))?;
        run(cli.args)
    }

    #[test]
    fn gen_then_measure_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("d.bin");
        let o = out.to_str().unwrap();
        run_args(&[
            "gen",
            "--size",
            "4m",
            "--compress",
            "50",
            "--dedupe",
            "30",
            "--dedupe-spread",
            "--pattern",
            "0xdeadbeef",
            "-o",
            o,
        ])
        .unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 4 << 20);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
        let m = measure_path(&out, &MeasureOptions::default()).unwrap();
        let unique = m.dedupe[0].unique as f64 / m.dedupe[0].blocks as f64;
        assert!((unique - 0.70).abs() < 0.04, "unique {unique}");
        // 50 % compressible and 30 % duplicate: zstd per block ≈ 2:1, zero runs none.
        let z = m.codecs.iter().find(|c| c.codec == "zstd-3").unwrap();
        assert!((z.block_ratio - 2.0).abs() < 0.1, "{}", z.block_ratio);
        assert_eq!(m.zero_run_bytes, 0.0);
        // Same seed, same bytes.
        let out2 = dir.path().join("e.bin");
        run_args(&[
            "gen",
            "--size",
            "4m",
            "--compress",
            "50",
            "--dedupe",
            "30",
            "--dedupe-spread",
            "--pattern",
            "0xdeadbeef",
            "-o",
            out2.to_str().unwrap(),
        ])
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
        run_args(&["measure", o, "--json", "--sample", "1m"]).unwrap();
    }

    #[test]
    fn bad_flags_are_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("x").to_str().unwrap().to_string();
        let e = run_args(&["gen", "--size", "1m", "--pattern", "0xzz", "-o", &o]).unwrap_err();
        assert!(format!("{e:#}").contains("buffer_pattern `0xzz`"), "{e:#}");
        let e = run_args(&["gen", "--size", "1m", "--compress", "150", "-o", &o]).unwrap_err();
        assert!(format!("{e:#}").contains("buffer_compress_percentage=150"), "{e:#}");
        let e = run_args(&["gen", "--size", "lots", "-o", &o]).unwrap_err();
        assert!(format!("{e:#}").contains("--size"), "{e:#}");
        assert!(!std::path::Path::new(&o).exists());
        let e = run_args(&["measure", "/nonexistent/iolab"]).unwrap_err();
        assert!(format!("{e:#}").contains("/nonexistent/iolab: opening read-only"), "{e:#}");
    }
}
