//! `iolab fill`: how many reads, and how long at a given IOPS, it takes to fill a cache of N
//! entries; the spread (coupon-collector percentiles) and where an observation falls. Maths in
//! iolab-model's `fill` module (notes/caches-and-models.md §5); the figures and their text in
//! `fill_report`.

use iolab_model::fill_report::{FillQuery, FillReport};
use iolab_report::render_document;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  iolab fill --entries=1M --iops=20000\n  iolab fill --entries=100k --monte-carlo=3 --json"
)]
pub struct Args {
    /// Cache entries (a count: 1M = 1,000,000; k, M, G are powers of 1000).
    #[arg(long)]
    entries: String,
    /// Reads per second, to turn reads into wall-clock time.
    #[arg(long)]
    iops: Option<f64>,
    /// An observed number of passes (reads / entries) until the cache was full.
    #[arg(long)]
    observed_passes: Option<f64>,
    /// uniform (independent draws, fio norandommap), randommap (fio default: each block once
    /// per pass) or zipf:S.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Also simulate this many seeded fills and report their spread.
    #[arg(long, default_value_t = 0)]
    monte_carlo: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A working set larger than the cache (same count syntax): LRU steady-state hit ratio and
    /// the time to reach it.
    #[arg(long)]
    working_set: Option<String>,
    #[arg(long)]
    json: bool,
    /// Write the fill curves as an offline HTML page (`iolab report`'s) to stdout.
    #[arg(long, conflicts_with = "json")]
    html: bool,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let q = FillQuery {
        entries: a.entries,
        iops: a.iops,
        observed_passes: a.observed_passes,
        pattern: a.pattern,
        monte_carlo: a.monte_carlo,
        seed: a.seed,
        working_set: a.working_set,
    };
    let r = FillReport::compute(&q)?;
    let format = if a.html {
        "html"
    } else if a.json {
        "json"
    } else {
        "normal"
    };
    let page = super::report::doc_page("fill");
    let out = render_document(&r, format, &FillReport::text, None, Some(&page))?;
    iolab_report::render::write(&out, None)?;
    // 128 + the signal after a stop request (the Monte Carlo runs end early), else success.
    Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from))
}
