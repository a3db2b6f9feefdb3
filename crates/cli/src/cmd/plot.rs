//! `iolab plot RESULT… --out-dir DIR`: the report's charts as SVG and PNG files (crate
//! iolab-viz, plotters' SVG and bitmap backends; PNG text in DejaVu Sans from the `dejavu`
//! crate, compiled in). The directory and every file in it are asked of the gate first
//! (`iolab_core::gate`): a directory, or a missing one not under /dev; each chart file an
//! output (never a block device, a mounted image or one of the results read).

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
    gate_check(&a.out_dir, &report)?;
    let files = iolab_viz::plot::write_all(&report, &a.out_dir)?;
    for f in &files {
        println!("{}", f.display());
    }
    if files.is_empty() {
        eprintln!("iolab: the results hold nothing to chart");
    }
    Ok(ExitCode::SUCCESS)
}

/// The gate's rules for the directory and each file `write_all` will write.
fn gate_check(dir: &std::path::Path, report: &iolab_viz::model::Report) -> anyhow::Result<()> {
    use iolab_core::gate::{self, Intent, Kind};
    let c = gate::classify(dir)?;
    match c.kind {
        Kind::Directory => {}
        Kind::Missing => gate::check_classified(&c, Intent::Output)?,
        k => anyhow::bail!("--out-dir {}: is a {}; expected a directory", dir.display(), k.name()),
    }
    for id in report.sections.iter().flat_map(|s| &s.charts).map(|c| &c.id) {
        for ext in ["svg", "png"] {
            gate::check(&dir.join(format!("{id}.{ext}")), Intent::Output)?;
        }
    }
    Ok(())
}
