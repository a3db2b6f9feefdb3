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
    #[command(flatten)]
    q: FillQuery,
    #[command(flatten)]
    out: iolab_report::render::DocFormat,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let r = FillReport::compute(&a.q)?;
    let format = a.out.name();
    let page = iolab_report::export::html::doc_page("fill");
    let out = render_document(&r, format, &FillReport::text, None, Some(&page))?;
    iolab_report::render::write(&out, None)?;
    // 128 + the signal after a stop request (the Monte Carlo runs end early), else success.
    Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from))
}
