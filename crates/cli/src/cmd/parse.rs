//! `iolab parse JOB… [--name=value…] [--section=NAME] [--defaults]`: the jobs as iolab (and
//! fio) read them (`iolab_job::describe`), as pretty JSON `{"jobs":[…], "warnings":[…]}`, every option with its typed
//! value, the text as written and where it came from. Warnings also go to stderr. No I/O.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use iolab_job::LoadOptions;

#[derive(clap::Args)]
#[command(
    after_help = "Example:\n  iolab parse --name=x --rw=randread --bs=4k --size=1m --defaults"
)]
pub struct Args {
    #[command(flatten)]
    flags: Flags,
    /// Job files, fio-style options (`--rw=randread`, `--name=job2`) and `--section=NAME`,
    /// in fio's order: options before the first `--name` are global.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JOB|--OPTION=VALUE")]
    rest: Vec<String>,
}

/// `iolab parse`'s own flags.
#[derive(clap::Args)]
pub struct Flags {
    /// Also list every option left at its fio default.
    #[arg(long)]
    defaults: bool,
}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    run_args(&super::raw_args()?)
}

/// `iolab parse` with `rest` as its arguments.
pub fn run_args(rest: &[String]) -> anyhow::Result<ExitCode> {
    let (split, flags) = super::split_own::<Flags>("parse", rest)?;
    if let Some((f, _)) = split.flags.first() {
        anyhow::bail!(
            "--{f}: a fio flag for `iolab run` or `iolab fio`; `iolab parse` does no run"
        );
    }
    if split.job_files.is_empty() && split.fio_options.is_empty() {
        anyhow::bail!("nothing to parse; expected job files and/or fio-style options such as --name=x --rw=randread");
    }
    let opts = LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let parsed = iolab_job::load(&opts)?;
    let mut stderr = std::io::stderr().lock();
    for w in &parsed.warnings {
        writeln!(stderr, "iolab: {w}").context("writing warnings")?;
    }
    // What the data alone tells (zero runs, repeated blocks), as `run`'s advice would.
    let data_warnings: Vec<String> =
        parsed.jobs.iter().flat_map(iolab_advice::from_job::job_warnings).collect();
    for w in &data_warnings {
        writeln!(stderr, "iolab: {w}").context("writing warnings")?;
    }
    let out = iolab_job::describe::document(&parsed, &data_warnings, flags.defaults)?;
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &out).context("writing JSON")?;
    writeln!(stdout).context("writing JSON")?;
    Ok(ExitCode::SUCCESS)
}
