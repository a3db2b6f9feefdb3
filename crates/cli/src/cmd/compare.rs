//! `iolab compare A B [C…]`: result files (fio's or iolab's JSON, measured or predicted) side
//! by side per job and direction, each later file against the first, with whether each
//! difference is beyond run-to-run noise (`iolab_report::compare`).

use std::process::ExitCode;

use iolab_report::compare;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  iolab compare before.json after.json\n  \
    iolab compare fio.json iolab.json --output-format=csv --output=diff.csv\n\n\
    Noise: Welch's t-test on the per-interval IOPS and bandwidth samples each result keeps \
    (fio's iops_mean/iops_stddev/iops_samples), and on iolab's per-interval device aqu-sz and \
    %util; the latency means on each side's per-I/O mean, deviation and count. Latency \
    percentiles (clat p50/p99/p99.9) are judged by their own sampling noise: each side's \
    distribution-free 95 % confidence interval from its listed percentiles and I/O count; \
    intervals apart are beyond noise. A latency difference under 1 µs is never significant.")]
pub struct Args {
    #[command(flatten)]
    c: compare::CompareFlags,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let (render, alpha, min_pct) = a.c.settings()?;
    if let Some(path) = &a.c.output {
        let inputs: Vec<&std::path::Path> = a.c.files.iter().map(|f| f.as_path()).collect();
        iolab_report::output::check(path, &inputs)?;
    }
    let c = compare::Comparison::new(&a.c.read()?, alpha, min_pct)?;
    iolab_report::render::write(render(&c, &a.c.files)?.as_bytes(), a.c.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
