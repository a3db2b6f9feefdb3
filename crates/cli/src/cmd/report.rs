//! `iolab report RESULT… -o report.html`: one offline HTML page (inline SVG charts, tables,
//! advice) of iolab's and fio's JSON results; drawing and reading in crate iolab-viz. Also
//! the `html` output format of `run` and `sim` (`iolab_report::render`'s page hook).

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Result files: `iolab run`/`sim` JSON (json, json+, optionally followed by jsonl
    /// intervals: `--output-format=json+,jsonl`), JSON Lines, `iolab mrc --json`, `iolab sim
    /// --object-level --output-format=json`, `iolab fill --json`, `iolab trace stat --json`,
    /// `iolab compare --output-format=json`, fio's JSON.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", default_value = "report.html")]
    output: PathBuf,
}

/// Result files are JSON text: more than this is not one.
const MAX_BYTES: u64 = 256 << 20;

/// Read each result (regular files only, bounded, as `iolab compare` reads them).
pub fn read_inputs(paths: &[PathBuf]) -> anyhow::Result<Vec<iolab_viz::Input>> {
    paths
        .iter()
        .map(|p| {
            let bytes = iolab_core::input::read_bounded(p, "result", MAX_BYTES)?;
            Ok(iolab_viz::Input::from_bytes(p, &bytes)?)
        })
        .collect()
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let sources: Vec<&std::path::Path> = a.results.iter().map(PathBuf::as_path).collect();
    iolab_report::output::check(&a.output, &sources)?;
    let inputs = read_inputs(&a.results)?;
    let page = iolab_viz::html(&inputs)?;
    // A page that cannot be written (ENOSPC) is saved elsewhere and the error says where.
    iolab_report::render::write(page.as_bytes(), Some(&a.output))?;
    eprintln!("iolab: wrote {} ({} bytes)", a.output.display(), page.len());
    Ok(ExitCode::SUCCESS)
}
