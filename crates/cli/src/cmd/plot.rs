//! `iolab plot RESULT… --out-dir DIR`: the report's charts as SVG and PNG files (crate
//! iolab-viz, plotters' SVG and bitmap backends; PNG text in DejaVu Sans from the `dejavu`
//! crate, compiled in).

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Result files, as for `iolab report`.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Directory for the `CHART.svg` and `CHART.png` files (created if missing).
    #[arg(long)]
    out_dir: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let inputs = super::report::read_inputs(&a.results)?;
    let report = iolab_viz::model::build(&inputs)?;
    let files = iolab_viz::plot::write_all(&report, &a.out_dir)?;
    for f in &files {
        println!("{}", f.display());
    }
    if files.is_empty() {
        eprintln!("iolab: the results hold nothing to chart");
    }
    Ok(ExitCode::SUCCESS)
}
