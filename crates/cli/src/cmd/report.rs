//! `iolab report RESULT… -o report.html`: one offline HTML page (inline SVG charts, tables,
//! advice) of iolab's and fio's JSON results; drawing and reading in crate iolab-viz.

use anyhow::Context;
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
    iolab_report::write_atomic(&a.output, page.as_bytes())
        .with_context(|| format!("writing the report to {}", a.output.display()))?;
    eprintln!("iolab: wrote {} ({} bytes)", a.output.display(), page.len());
    Ok(ExitCode::SUCCESS)
}

/// `iolab run --output-format=html`: the report page of this run (iolab-report's `html`
/// exporter).
pub fn run_page(result: &iolab_stats::RunResult) -> anyhow::Result<Vec<u8>> {
    Ok(iolab_report::exporter("html")?.render(result)?)
}

/// `iolab sim --output-format=html`: the page of the predicted run (json+ layout with the
/// `iolab_sim` section, as `--output-format=json+` writes it).
pub fn sim_page(
    result: &iolab_stats::RunResult,
    sim: &impl serde::Serialize,
) -> anyhow::Result<Vec<u8>> {
    let doc = iolab_report::exporter("json+")?.render(result)?;
    let mut v: serde_json::Value =
        serde_json::from_slice(&doc).context("re-reading the JSON document")?;
    if let Some(o) = v.as_object_mut() {
        o.insert("iolab_sim".into(), serde_json::to_value(sim)?);
    }
    Ok(iolab_viz::html_of("sim", &serde_json::to_vec(&v)?, b"")?.into_bytes())
}

/// The page of any result document given as a JSON value (`iolab sim --object-level`).
pub fn page_of(label: &str, v: &impl serde::Serialize) -> anyhow::Result<String> {
    Ok(iolab_viz::html_of(label, &serde_json::to_vec(v)?, b"")?)
}
