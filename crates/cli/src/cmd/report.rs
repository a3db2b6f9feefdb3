//! `iolab report RESULT… -o report.html`: one offline HTML page (inline SVG charts, tables,
//! advice) of iolab's and fio's JSON results; drawing and reading in crate iolab-viz.

use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Result files: `iolab run`/`sim` JSON (json, json+, optionally followed by jsonl
    /// intervals: `--output-format=json+,jsonl`), JSON Lines, `iolab mrc --json`, `iolab sim
    /// --object-level --output-format=json`, `iolab fill --json`, fio's JSON.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", default_value = "report.html")]
    output: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let inputs =
        a.results.iter().map(|p| iolab_viz::Input::read(p)).collect::<Result<Vec<_>, _>>()?;
    let page = iolab_viz::html(&inputs)?;
    iolab_report::write_atomic(&a.output, page.as_bytes())
        .with_context(|| format!("writing the report to {}", a.output.display()))?;
    eprintln!("iolab: wrote {} ({} bytes)", a.output.display(), page.len());
    Ok(ExitCode::SUCCESS)
}
