//! `iolab calibrate TARGET`: a budgeted sweep of real I/O on a file, block device or
//! directory (crate `iolab-calibrate`), written as a device profile (TOML, the format of
//! `iolab_model::device::profile`), with the fit's error per sweep point on stderr.
//! `--from-preset=NAME` writes an HDD/SSD preset in the same form instead.
//!
//! While the sweep runs, stderr shows where it is (runs done of planned, the point just
//! measured and its IOPS, time against the budget): a bar redrawn in place on a terminal
//! (indicatif), a line per run otherwise (a log, a pipe); `--quiet` shows neither. `--html
//! FILE` writes the profile's page beside the profile in the same run. Both outputs are
//! checked before the sweep (the gate's output rule: not a device, not the target, not each
//! other) and written atomically.

use anyhow::{bail, Context};
use iolab_calibrate::options::CalibrateFlags;
use iolab_calibrate::{calibrate_with_progress, Progress};
use iolab_model::device::profile::DeviceProfile;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    f: CalibrateFlags,
}

pub fn run(Args { f: args }: Args) -> anyhow::Result<ExitCode> {
    check_outputs(&args)?;
    let profile = if let Some(name) = &args.from_preset {
        iolab_model::device::preset_profile(name)?
    } else {
        let Some(target) = &args.target else {
            bail!("give a TARGET (file, block device or directory) or --from-preset=NAME");
        };
        let opts = args.options()?;
        let mut shown = Shown::new(args.quiet);
        let cal = calibrate_with_progress(target, &opts, &mut |p| shown.show(p));
        shown.finish();
        let cal = cal.with_context(|| format!("calibrating {}", target.display()))?;
        cal.notes.iter().for_each(|n| eprintln!("iolab: {n}"));
        if !args.quiet {
            let mut lines = cal.summary(opts.budget_secs).into_iter();
            lines.next().iter().for_each(|l| eprintln!("iolab: {l}"));
            lines.for_each(|l| eprintln!("{l}"));
        }
        cal.profile
    };
    let text = match args.output_format.as_str() {
        "html" => html_page(&profile)?,
        _ => profile.to_toml()?.into_bytes(),
    };
    iolab_report::render::write(&text, args.output.as_deref())?;
    if let Some(html) = &args.html {
        iolab_report::render::write(&html_page(&profile)?, Some(html))?;
        if !args.quiet {
            eprintln!("iolab: wrote the profile's page to {}", html.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The profile's HTML page (the sweep, measured against fitted), as `iolab report
/// PROFILE.toml` draws it.
pub fn html_page(profile: &DeviceProfile) -> anyhow::Result<Vec<u8>> {
    Ok(iolab_report::export::html::doc_page("calibrate")(&serde_json::to_vec(profile)?)?)
}

/// `-o` and `--html` pass the output gate before the sweep spends its budget: not a device,
/// a directory or the target, and not the same file as each other.
fn check_outputs(args: &CalibrateFlags) -> anyhow::Result<()> {
    let target: Vec<&Path> = args.target.as_deref().into_iter().collect();
    if let Some(o) = &args.output {
        iolab_report::output::check(o, &target).context("--output")?;
    }
    let Some(html) = &args.html else { return Ok(()) };
    if args.output_format == "html" {
        bail!(
            "--html={}: --output-format=html already writes the page (to --output or \
             stdout); give one or the other",
            html.display()
        );
    }
    iolab_report::output::check(html, &target).context("--html")?;
    if let Some(o) = &args.output {
        if same_name(o, html) {
            bail!("--html={}: is the --output file too; give each its own file", html.display());
        }
    }
    Ok(())
}

/// The two paths name one file (the same directory, resolved, and the same name).
fn same_name(a: &Path, b: &Path) -> bool {
    let named = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(dir).ok()?.join(p.file_name()?))
    };
    a == b || named(a).is_some_and(|n| Some(n) == named(b))
}

/// The sweep's progress on stderr: a bar on a terminal, a line per run elsewhere, nothing
/// with `--quiet`.
enum Shown {
    Quiet,
    Lines,
    Bar(indicatif::ProgressBar),
}

impl Shown {
    fn new(quiet: bool) -> Shown {
        if quiet {
            return Shown::Quiet;
        }
        if !std::io::stderr().is_terminal() {
            return Shown::Lines;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        );
        let style =
            // `wide_msg` is cut at the terminal's width: no wrapped line to redraw.
            indicatif::ProgressStyle::with_template("calibrate [{bar:20}] {pos}/{len} runs, {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> ");
        bar.set_style(style);
        Shown::Bar(bar)
    }

    fn show(&mut self, p: &Progress) {
        match self {
            Shown::Quiet => {}
            Shown::Lines => eprintln!("iolab: calibrate: {}", p.line()),
            Shown::Bar(bar) => {
                bar.set_length(p.total as u64);
                bar.set_position(p.done as u64);
                let point = p
                    .point
                    .as_ref()
                    .map_or(String::new(), |(l, iops)| format!("; last {l}: {iops:.0} IOPS"));
                bar.set_message(format!(
                    "{:.0} s left of {:.0} s{point}",
                    p.left_secs(),
                    p.budget_secs
                ));
            }
        }
    }

    fn finish(&mut self) {
        if let Shown::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
