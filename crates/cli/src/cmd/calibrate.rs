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
        let budget = iolab_core::units::parse_time(
            &args.budget,
            iolab_core::units::TimeUnitDefault::Seconds,
        )
        .map_err(|e| anyhow::anyhow!("--budget={}: {e}", args.budget))?;
        let budget_secs = budget.0 as f64 / 1e9;
        iolab_calibrate::sweep::check_budget(budget_secs, &args.budget)?;
        let size = iolab_core::units::parse_size(&args.size, iolab_core::units::KbBase::default())
            .map_err(|e| anyhow::anyhow!("--size={}: {e}", args.size))?;
        if size < 4 << 20 {
            bail!("--size={}: expected at least 4MiB", args.size);
        }
        if !(1..=4096).contains(&args.max_depth) {
            bail!("--max-depth={}: expected 1 to 4096", args.max_depth);
        }
        let opts = CalibrateOptions {
            budget_secs,
            new_file_size: size,
            allow_write: args.allow_write,
            allow_destroy: args.allow_destroy,
            max_depth: args.max_depth,
            ..CalibrateOptions::default()
        };
        let cal = calibrate(target, &opts)
            .with_context(|| format!("calibrating {}", target.display()))?;
        eprintln!(
            "iolab: calibrated {} in {:.1}s (budget {:.1}s), {} points",
            cal.target.path.display(),
            cal.elapsed_secs,
            budget_secs,
            cal.measured.len()
        );
        for p in &cal.profile.points {
            eprintln!(
                "  {:<10} bs={:<8} qd={:<3} IOPS {:>10.0} → {:>10.0} ({:+.1} %)  p50 {:>8.1} → {:>8.1} µs  p99 {:>8.1} → {:>8.1} µs",
                p.rw, p.bs, p.iodepth, p.measured_iops, p.predicted_iops, p.iops_error * 100.0,
                p.measured_p50_us, p.predicted_p50_us, p.measured_p99_us, p.predicted_p99_us
            );
        }
        cal.profile
    };
    let text = match args.output_format.as_str() {
        "html" => super::report::page_of("calibrate", &profile)?,
        _ => profile.to_toml()?,
    };
    match &args.output {
        Some(p) => iolab_report::write_atomic(p, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
