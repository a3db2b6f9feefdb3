//! `iolab calibrate TARGET`: a budgeted sweep of real I/O on a file, block device or
//! directory (crate `iolab-calibrate`), written as a device profile (TOML, the format of
//! `iolab_model::device::profile`), with the fit's error per sweep point on stderr.
//! `--from-preset=NAME` writes an HDD/SSD preset in the same form instead.

use anyhow::{bail, Context};
use iolab_calibrate::{calibrate, CalibrateOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A file (created if missing), a block device or a directory.
    target: Option<PathBuf>,
    /// Wall-time budget of the whole calibration (e.g. 60s, 2m).
    #[arg(long, default_value = "60s")]
    budget: String,
    /// Size of the file iolab creates (a new path or a directory).
    #[arg(long, default_value = "256MiB")]
    size: String,
    /// Write to an existing file or block device (the sweep overwrites its data).
    #[arg(long)]
    allow_write: bool,
    /// As `iolab run --allow-destroy`: write to a block device carrying a signature.
    #[arg(long)]
    allow_destroy: bool,
    /// Deepest queue swept.
    #[arg(long, default_value_t = 64)]
    max_depth: u32,
    /// Write the profile to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// toml (the profile) or html (an offline page of the sweep: measured against fitted).
    #[arg(long, default_value = "toml", value_parser = ["toml", "html"])]
    output_format: String,
    /// Write a preset (hdd-7200, hdd-10k, sata-ssd, nvme, …) as a profile; no I/O.
    #[arg(long, conflicts_with = "target")]
    from_preset: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let profile = if let Some(name) = &args.from_preset {
        iolab_model::device::preset_profile(name)?
    } else {
        let Some(target) = &args.target else {
            bail!("give a TARGET (file, block device or directory) or --from-preset=NAME");
        };
        let opts = CalibrateOptions {
            allow_write: args.allow_write,
            allow_destroy: args.allow_destroy,
            ..CalibrateOptions::from_flags(&args.budget, &args.size, args.max_depth)?
        };
        let cal = calibrate(target, &opts)
            .with_context(|| format!("calibrating {}", target.display()))?;
        let mut lines = cal.summary(opts.budget_secs).into_iter();
        lines.next().iter().for_each(|l| eprintln!("iolab: {l}"));
        lines.for_each(|l| eprintln!("{l}"));
        cal.profile
    };
    let text = match args.output_format.as_str() {
        "html" => super::report::doc_page("calibrate")(&serde_json::to_vec(&profile)?)?,
        _ => profile.to_toml()?.into_bytes(),
    };
    iolab_report::render::write(&text, args.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
