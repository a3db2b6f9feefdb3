//! `iolab compare A B [C…]`: result files (fio's or iolab's JSON, measured or predicted) side
//! by side per job and direction, each later file against the first, with whether each
//! difference is beyond run-to-run noise (`iolab_report::compare`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use iolab_report::compare;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  iolab compare before.json after.json\n  \
    iolab compare fio.json iolab.json --output-format=csv --output=diff.csv\n\n\
    Noise: Welch's t-test on the per-interval IOPS and bandwidth samples each result keeps \
    (fio's iops_mean/iops_stddev/iops_samples), and on iolab's per-interval device aqu-sz and \
    %util. Latency percentiles have no interval samples in either format and get no verdict.")]
pub struct Args {
    /// Result files (`iolab run|sim --output-format=json`, or fio's `--output-format=json`);
    /// the first is the baseline. `-` reads one from stdin.
    #[arg(required = true, num_args = 2..)]
    files: Vec<PathBuf>,
    /// text, json, csv or html (bars with noise bands, the results' intervals overlaid).
    #[arg(long, default_value = "text")]
    output_format: String,
    /// Write here instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Significance level of the two-sided test, in (0, 0.5].
    #[arg(long, default_value = "0.05")]
    alpha: String,
    /// A difference beyond noise but smaller than this many percent is called negligible.
    #[arg(long, default_value = "1")]
    min_diff: String,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let render = compare::renderer(&a.output_format)?;
    let (alpha, min_pct) = (compare::parse_alpha(&a.alpha)?, compare::parse_min_diff(&a.min_diff)?);
    if a.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("compare: stdin ('-') can be given once");
    }
    if let Some(path) = &a.output {
        let inputs: Vec<&std::path::Path> = a.files.iter().map(|f| f.as_path()).collect();
        iolab_report::output::check(path, &inputs)?;
    }
    let results = a.files.iter().map(|f| compare::read_result(f)).collect::<Result<Vec<_>, _>>()?;
    let c = compare::Comparison::new(&results, alpha, min_pct)?;
    iolab_report::render::write(render(&c, &a.files)?.as_bytes(), a.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
