//! The subcommand table (`Cli`, clap) and one module per subcommand; each has `Args` (clap)
//! and `run(Args) -> Result<ExitCode>`.
//!
//! `run`, `sim` and `parse` mix iolab's flags with fio's job files and `--option=value`
//! arguments in any order: their `Args` flatten a clap flag struct (so `--help` lists every
//! flag) beside the fio arguments, and [`split_own`] re-reads the whole list
//! (`iolab_job::cmdline::clap_split`, which takes the flag names from clap).

use clap::{Args, FromArgMatches, Parser, Subcommand};
use iolab_job::SplitArgs;
use std::process::ExitCode;

pub mod calibrate;
pub mod compare;
pub mod data;
pub mod fill;
pub mod fio;
pub mod mrc;
pub mod options;
pub mod parse;
pub mod paths;
pub mod plot;
pub mod preset;
pub mod replay;
pub mod report;
pub mod run;
pub mod server;
pub mod sim;
pub mod trace;

#[derive(Parser)]
#[command(
    name = "iolab",
    version,
    about = "Measure storage with fio job files; predict cached, tiered stacks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Real I/O from fio job files or fio-style arguments (no job: a quick built-in profile).
    Run(run::Args),
    /// Speak fio's command-line language exactly (as when iolab is run under the name `fio`).
    Fio(FioArgs),
    /// The same workload through cache tiers and device models.
    Sim(sim::Args),
    /// Sweep a file, device or directory with real I/O and fit a device profile (TOML).
    Calibrate(calibrate::Args),
    /// Resolve job files to JSON with every warning; no I/O.
    Parse(parse::Args),
    /// The option registry, like `fio --cmdhelp`.
    Options(options::Args),
    /// Generate data of a given compressibility/dedupe; measure a file's real ratios.
    Data(data::Args),
    /// Workload presets (oltp, backup, vm-blender): list them, print one as an fio job file.
    Preset(preset::Args),
    /// Trace statistics and format conversion.
    Trace(trace::Args),
    /// Run clients' jobs here after they prove the shared secret (`run --client` there).
    Server(server::Args),
    /// Real I/O from a block trace.
    Replay(replay::Args),
    /// Miss-ratio curve of a trace or a job, exact or sampled.
    Mrc(mrc::Args),
    /// How many reads and how long to fill a cache.
    Fill(fill::Args),
    /// Result files side by side: differences, and whether each is beyond run-to-run noise.
    Compare(compare::Args),
    /// One offline HTML report of result files.
    Report(report::Args),
    /// The report's charts as SVG and PNG files.
    Plot(plot::Args),
}

/// `iolab fio ARGS…`; never parsed by clap (see `personality::fio_personality`), listed for `--help`.
#[derive(clap::Args)]
struct FioArgs {
    /// fio's flags, job options and job files.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// A subcommand run: `Err` is the fio personality's exit, already final. `run`, `sim` and
/// `parse` mix their flags with fio's arguments: clap reads them from the split
/// ([`split_own`]); the whole-argv parse is only for their `--help`.
pub fn run_subcommand(argv: &[String]) -> Result<anyhow::Result<ExitCode>, ExitCode> {
    let help = std::env::args_os().skip(2).any(|a| a == "--help" || a == "-h");
    Ok(match argv.get(1).map(String::as_str) {
        Some("run") if !help => {
            iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
            raw_args().and_then(|a| run::run_args(&a, run::Personality::Iolab))
        }
        Some("sim") if !help => {
            iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
            raw_args().and_then(|a| sim::run_args(&a))
        }
        Some("parse") if !help => raw_args().and_then(|a| parse::run_args(&a)),
        _ => return dispatch(Cli::parse()),
    })
}

/// Run a subcommand clap has parsed whole; `Err` is the fio personality's exit, already final.
fn dispatch(cli: Cli) -> Result<anyhow::Result<ExitCode>, ExitCode> {
    if matches!(
        cli.command,
        Command::Run(_)
            | Command::Data(_)
            | Command::Trace(_)
            | Command::Replay(_)
            | Command::Mrc(_)
            | Command::Fill(_)
            | Command::Calibrate(_)
    ) {
        // These poll the stop and write what they gathered, marked interrupted.
        iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
    }
    Ok(match cli.command {
        Command::Run(a) => run::run(a),
        Command::Fio(a) => return Err(crate::fio_exit(fio::run("fio", &a.rest))),
        Command::Sim(a) => sim::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Parse(a) => parse::run(a),
        Command::Options(a) => options::run(a),
        Command::Data(a) => data::run(a),
        Command::Preset(a) => preset::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Mrc(a) => mrc::run(a),
        Command::Fill(a) => fill::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Report(a) => report::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Server(a) => server::run(a),
    })
}

/// The arguments after the subcommand's name, as text (clap has already refused non-UTF-8
/// in the fio arguments; this refuses it in a flag's value too).
pub fn raw_args() -> anyhow::Result<Vec<String>> {
    let args = iolab_job::cmdline::personality::utf8_args(std::env::args_os().skip(2));
    args.map_err(|shown| anyhow::anyhow!("argument '{shown}' is invalid UTF-8"))
}

/// Split `rest` into fio's parts and `F`'s flags (`iolab_job::cmdline::clap_split`), clap's
/// message on one line: its first line, without the `error: ` it adds.
pub fn split_own<F: Args + FromArgMatches>(
    name: &'static str,
    rest: &[String],
) -> anyhow::Result<(SplitArgs, F)> {
    iolab_job::cmdline::clap_split::split_own(name, rest).map_err(|e| {
        // A value parser's own message names the flag and quotes the value, bounded
        // (`--mpi-stonewall=ff… (102400 bytes): expected …`); clap's wrapper around it would
        // repeat the raw value, however long.
        let own = std::error::Error::source(&e).map(|s| s.to_string());
        if let (clap::error::ErrorKind::ValueValidation, Some(m)) = (e.kind(), own) {
            if m.starts_with("--") {
                return anyhow::anyhow!("{}", m.lines().next().unwrap_or_default());
            }
        }
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        anyhow::anyhow!("{}", first.trim_start_matches("error: "))
    })
}

/// The result's meta for a command starting now (`RunMeta::started`).
pub fn meta_now(mode: iolab_stats::RunMode, percentiles: Vec<f64>) -> iolab_stats::RunMeta {
    iolab_stats::RunMeta::started(mode, std::env::args().collect(), percentiles)
}
