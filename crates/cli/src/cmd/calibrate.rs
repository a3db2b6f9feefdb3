//! `iolab calibrate TARGET`: a budgeted sweep of real I/O on a file, block device or
//! directory (crate `iolab-calibrate`), written as a device profile (TOML, the format of
//! `iolab_model::device::profile`), with the fit's error per sweep point on stderr.
//! `--from-preset=NAME` writes an HDD/SSD preset in the same form instead.

use anyhow::{bail, Context};
use iolab_calibrate::calibrate;
use iolab_calibrate::options::CalibrateFlags;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    f: CalibrateFlags,
}

pub fn run(Args { f: args }: Args) -> anyhow::Result<ExitCode> {
    let profile = if let Some(name) = &args.from_preset {
        iolab_model::device::preset_profile(name)?
    } else {
        let Some(target) = &args.target else {
            bail!("give a TARGET (file, block device or directory) or --from-preset=NAME");
        };
        let opts = args.options()?;
        let cal = calibrate(target, &opts)
            .with_context(|| format!("calibrating {}", target.display()))?;
        cal.notes.iter().for_each(|n| eprintln!("iolab: {n}"));
        let mut lines = cal.summary(opts.budget_secs).into_iter();
        lines.next().iter().for_each(|l| eprintln!("iolab: {l}"));
        lines.for_each(|l| eprintln!("{l}"));
        cal.profile
    };
    let text = match args.output_format.as_str() {
        "html" => {
            iolab_report::export::html::doc_page("calibrate")(&serde_json::to_vec(&profile)?)?
        }
        _ => profile.to_toml()?.into_bytes(),
    };
    iolab_report::render::write(&text, args.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
