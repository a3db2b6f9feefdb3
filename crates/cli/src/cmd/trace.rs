//! `iolab trace stat|convert`: trace statistics (mix, footprint, reuse, sizes, sequential
//! streams) and format conversion (fio iolog v3, oracleGeneral, CSV). Readers and writers live
//! in iolab-trace; reuse distances come from iolab-model's stack-distance engine.

use anyhow::{bail, Context};
use iolab_core::units::{format_bytes_iec, parse_size, KbBase};
use iolab_model::mrc::stack::StackDistance;
use iolab_trace::stat::{Log2Histogram, StatBuilder, TraceStats};
use iolab_trace::write::{csv::CsvWriter, iolog::IologWriter, oracle, TraceWriter};
use iolab_trace::{ReaderConfig, TraceReader, TraceRecord};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
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

/// How to read a trace; shared by `trace`, `mrc` and `sim --trace`.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceOpts {
    /// Trace format (default: detected from content and extension). Known: cloudphysics,
    /// fio-iolog, msr, alibaba, tencent, blkparse, vscsi, oracleGeneral, txt, csv.
    #[arg(long)]
    pub format: Option<String>,
    /// Skip malformed records (their count is reported) instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Unit of oracleGeneral's clock_time: s (libCacheSim's default), ms, us or ns.
    #[arg(long, default_value = "s")]
    pub oracle_time_unit: String,
    /// blkparse action taken as the request stream (Q queued, D issued, C completed).
    #[arg(long, default_value = "Q")]
    pub blkparse_action: char,
}

impl TraceOpts {
    pub fn config(&self) -> anyhow::Result<ReaderConfig> {
        let mut cfg = ReaderConfig { lenient: self.lenient, ..ReaderConfig::default() };
        cfg.oracle_time_unit_ns = time_unit(&self.oracle_time_unit)?;
        if !matches!(self.blkparse_action, 'Q' | 'D' | 'C' | 'G' | 'I' | 'M') {
            bail!("--blkparse-action {}: expected one of Q, D, C, G, I, M", self.blkparse_action);
        }
        cfg.blkparse_action = self.blkparse_action as u8;
        Ok(cfg)
    }

    pub fn open(&self, path: &Path) -> anyhow::Result<Box<dyn TraceReader>> {
        Ok(iolab_trace::open(path, self.format.as_deref(), &self.config()?)?)
    }
}

pub fn time_unit(s: &str) -> anyhow::Result<u64> {
    Ok(match s {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        _ => bail!("time unit `{s}`: expected s, ms, us or ns"),
    })
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
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    opts: TraceOpts,
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
    opts: TraceOpts,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.cmd {
        Sub::Stat(a) => stat(a),
        Sub::Convert(a) => convert(a),
    }
}

fn stat(a: StatArgs) -> anyhow::Result<ExitCode> {
    let bs = size_arg(&a.block_size, "--block-size")?;
    let mut r = a.opts.open(&a.trace)?;
    let mut b = StatBuilder::new(r.format(), bs, a.stream_window);
    let mut stack = StackDistance::new();
    let mut rec = TraceRecord::default();
    while r.read_into(&mut rec)? {
        if iolab_core::stop::requested() {
            bail!("{}: stopped after {} records", a.trace.display(), r.records());
        }
        b.add(&rec, &mut |k| stack.access(k));
    }
    if r.records() == 0 {
        bail!("{}: no records: an empty trace has no statistics", a.trace.display());
    }
    let s = b.finish(r.skipped());
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print_stats(&a.trace, &s);
    }
    Ok(ExitCode::SUCCESS)
}

fn hist(name: &str, unit: &str, h: &Log2Histogram) {
    let total = h.total().max(1) as f64;
    println!("{name} (log2 buckets, {unit}):");
    for (i, &c) in h.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let lo = if i == 0 { 0 } else { 1u64 << i };
        println!(
            "  [{lo:>12}, {:>12})  {c:>10}  {:>6.2} %",
            1u128 << (i + 1),
            100.0 * c as f64 / total
        );
    }
}

fn print_stats(path: &Path, s: &TraceStats) {
    let pct = |n: u64| 100.0 * n as f64 / s.requests.max(1) as f64;
    println!("trace: {} ({})", path.display(), s.format);
    println!("requests: {}  duration: {:.3} s", s.requests, s.duration_ns as f64 / 1e9);
    for (n, d) in [("read", &s.read), ("write", &s.write), ("trim", &s.trim)] {
        println!(
            "  {n:<5} {:>10} ({:5.1} %)  {:>12}",
            d.requests,
            pct(d.requests),
            format_bytes_iec(d.bytes)
        );
    }
    println!("  sync  {:>10}", s.sync);
    if s.skipped_malformed > 0 {
        println!("skipped malformed records: {}", s.skipped_malformed);
    }
    println!(
        "footprint: {} blocks of {} = {}; block accesses {}, cold {}",
        s.footprint_blocks,
        format_bytes_iec(s.block_size),
        format_bytes_iec(s.footprint_bytes),
        s.block_accesses,
        s.cold_block_accesses
    );
    let st = &s.streams;
    println!(
        "sequential streams (>= 2 requests): {}; sequential requests {} ({:.1} %); concurrent \
         streams max {} mean {:.2}; longest {} requests / {}",
        st.streams,
        st.sequential_requests,
        pct(st.sequential_requests),
        st.max_concurrent,
        st.mean_concurrent,
        st.longest_requests,
        format_bytes_iec(st.longest_bytes)
    );
    for line in s.blender_verdict().into_iter().chain(s.time_unit_check()) {
        println!("{line}");
    }
    print!("{}", s.stream_table());
    hist("request size", "bytes", &s.request_size);
    hist("reuse distance", "distinct blocks between accesses", &s.reuse_distance);
    hist("reuse time", "block accesses between accesses", &s.reuse_time);
}

fn convert(a: ConvertArgs) -> anyhow::Result<ExitCode> {
    // Refused before anything is touched: an output that is the input (same device and inode).
    iolab_report::output::check(&a.output, &[&a.input])?;
    let mut r = a.opts.open(&a.input)?;
    let out_name = a.output.display().to_string();
    // A temporary beside the output (unique name, O_EXCL, so never the input), renamed into
    // place when whole; a device or FIFO is written through.
    let mut file = iolab_report::output::OutputFile::create(&a.output)?;
    let out = BufWriter::new(&mut file);
    let result = (|| -> anyhow::Result<u64> {
        let mut rec = TraceRecord::default();
        let mut n = 0u64;
        let stopped =
            |n: u64| anyhow::anyhow!("{out_name}: stopped after {n} records; nothing written");
        match a.to {
            To::Iolog => {
                let mut w = IologWriter::new(out, &out_name, a.files.clone());
                while r.read_into(&mut rec)? {
                    if n % 4096 == 0 && iolab_core::stop::requested() {
                        return Err(stopped(n));
                    }
                    // Devices get names as the reader meets them (blkparse, MSR, volumes).
                    if a.files.is_empty() && rec.req.file as usize >= w.files().len() {
                        *w.files_mut() = r.file_names();
                    }
                    w.write(&rec)?;
                    n += 1;
                }
                w.finish()?;
            }
            To::Oracle | To::Csv => {
                let mut w: Box<dyn TraceWriter + '_> = if matches!(a.to, To::Oracle) {
                    let opts = oracle::OracleOptions {
                        time_unit_ns: time_unit(&a.out_time_unit)?,
                        first_size: a.first_size,
                    };
                    Box::new(oracle::OracleWriter::new(out, &out_name, opts))
                } else {
                    Box::new(CsvWriter::new(out, &out_name))
                };
                while r.read_into(&mut rec)? {
                    if n % 4096 == 0 && iolab_core::stop::requested() {
                        return Err(stopped(n));
                    }
                    w.write(&rec)?;
                    n += 1;
                }
                w.finish()?;
            }
        }
        Ok(n)
    })();
    let n = result?;
    file.commit()?;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "wrote {n} records to {out_name} ({} skipped as malformed)", r.skipped());
    Ok(ExitCode::SUCCESS)
}
