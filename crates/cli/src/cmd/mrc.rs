//! `iolab mrc TRACE`: the LRU miss-ratio curve of a trace, exact (Mattson stack distances)
//! or sampled (SHARDS fixed-rate `--shards R` or fixed-size `--shards-size N`), at object
//! granularity (libCacheSim's view: one entry per obj_id) or split into `--block-size` blocks.
//! Prints a plot-ready table: cache size, miss ratio, byte miss ratio.

use super::trace::{size_arg, TraceOpts};
use anyhow::bail;
use iolab_core::IoDir;
use iolab_model::mrc::{
    curve::CurvePoint, exact::ExactMrc, shards::Shards, split_blocks, MrcBuilder,
};
use iolab_trace::TraceRecord;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    trace: PathBuf,
    /// SHARDS fixed-rate sampling, e.g. 0.01 (default: exact).
    #[arg(long, conflicts_with = "shards_size")]
    shards: Option<f64>,
    /// SHARDS fixed-size: at most this many sampled keys.
    #[arg(long)]
    shards_size: Option<usize>,
    /// Split requests into cache blocks of this size (fio size syntax); default: one entry
    /// per object id, as libCacheSim.
    #[arg(long)]
    block_size: Option<String>,
    /// Number of cache sizes in the table (geometric from 1 entry to the footprint).
    #[arg(long, default_value_t = 40)]
    points: usize,
    /// Exact cache sizes (entries, comma-separated) instead of the geometric grid.
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<u64>,
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    opts: TraceOpts,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let block = a.block_size.as_deref().map(|s| size_arg(s, "--block-size")).transpose()?;
    let (mut builder, method): (Box<dyn MrcBuilder>, String) = match (a.shards, a.shards_size) {
        (Some(r), _) => (Box::new(Shards::fixed_rate(r)?), format!("shards fixed-rate {r}")),
        (None, Some(n)) => (Box::new(Shards::fixed_size(n)?), format!("shards fixed-size {n}")),
        (None, None) => (Box::new(ExactMrc::new()), "exact".to_string()),
    };
    if a.points < 2 && a.sizes.is_empty() {
        bail!("--points {}: need at least 2", a.points);
    }
    let mut r = a.opts.open(&a.trace)?;
    let mut rec = TraceRecord::default();
    while r.read_into(&mut rec)? {
        match block {
            None => builder.access(rec.obj_id, rec.size),
            // A block cache holds data: trims and syncs are not accesses to it.
            Some(_) if matches!(rec.req.dir, IoDir::Trim | IoDir::Sync) => {}
            Some(bs) => split_blocks(rec.req.file, rec.req.offset, rec.req.len, bs, |k, b| {
                builder.access(k, b)
            }),
        }
    }
    let curve = builder.finish();
    let pts: Vec<CurvePoint> =
        if a.sizes.is_empty() { curve.table(a.points) } else { curve.at(&a.sizes) };
    let unit = block.unwrap_or(0);
    if a.json {
        let v = serde_json::json!({
            "trace": a.trace.display().to_string(),
            "format": r.format(),
            "method": method,
            "granularity": if block.is_some() { "block" } else { "object" },
            "block_size": block,
            "requests": r.records(),
            "accesses": curve.total,
            "footprint_entries": curve.footprint,
            "skipped_malformed": r.skipped(),
            "points": pts.iter().map(|p| serde_json::json!({
                "cache_entries": p.size,
                "cache_bytes": block.map(|b| b * p.size),
                "miss_ratio": p.miss_ratio,
                "byte_miss_ratio": p.byte_miss_ratio,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else if a.csv {
        println!("cache_entries,cache_bytes,miss_ratio,byte_miss_ratio");
        for p in &pts {
            let bytes = if unit > 0 { (p.size * unit).to_string() } else { String::new() };
            println!("{},{bytes},{:.6},{:.6}", p.size, p.miss_ratio, p.byte_miss_ratio);
        }
    } else {
        let gran = match block {
            Some(b) => format!("{b}-byte blocks"),
            None => "objects (obj_id, size 1 each)".to_string(),
        };
        println!(
            "# {} ({}): {} requests, {:.0} accesses, footprint {:.0} entries; LRU, {method}, {gran}",
            a.trace.display(),
            r.format(),
            r.records(),
            curve.total,
            curve.footprint
        );
        if r.skipped() > 0 {
            println!("# skipped malformed records: {}", r.skipped());
        }
        println!(
            "{:>14} {:>16} {:>10} {:>10}",
            "cache_entries", "cache_bytes", "miss", "byte_miss"
        );
        for p in &pts {
            let bytes = if unit > 0 { (p.size * unit).to_string() } else { "-".into() };
            println!(
                "{:>14} {:>16} {:>10.4} {:>10.4}",
                p.size, bytes, p.miss_ratio, p.byte_miss_ratio
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
