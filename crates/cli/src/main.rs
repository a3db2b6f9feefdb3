//! `iolab`: measure storage with fio job files, predict cached stacks, warn about misleading
//! benchmarks. This file maps subcommands to their modules and errors to exit codes.

use clap::{Parser, Subcommand};
use iolab_job::cmdline::personality::{self, fio_personality};
use std::process::ExitCode;

mod cmd;
mod signals;

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
    Run(cmd::run::Args),
    /// Speak fio's command-line language exactly (as when iolab is run under the name `fio`).
    Fio(FioArgs),
    /// The same workload through cache tiers and device models.
    Sim(cmd::sim::Args),
    /// Sweep a file, device or directory with real I/O and fit a device profile (TOML).
    Calibrate(cmd::calibrate::Args),
    /// Resolve job files to JSON with every warning; no I/O.
    Parse(cmd::parse::Args),
    /// The option registry, like `fio --cmdhelp`.
    Options(cmd::options::Args),
    /// Generate data of a given compressibility/dedupe; measure a file's real ratios.
    Data(cmd::data::Args),
    /// Trace statistics and format conversion.
    Trace(cmd::trace::Args),
    /// Real I/O from a block trace.
    Replay(cmd::replay::Args),
    /// Miss-ratio curve of a trace or a job, exact or sampled.
    Mrc(cmd::mrc::Args),
    /// How many reads and how long to fill a cache.
    Fill(cmd::fill::Args),
    /// Result files side by side: differences, and whether each is beyond run-to-run noise.
    Compare(cmd::compare::Args),
    /// One offline HTML report of result files.
    Report(cmd::report::Args),
    /// The report's charts as SVG and PNG files.
    Plot(cmd::plot::Args),
}

/// `iolab fio ARGS…`; never parsed by clap (see `personality::fio_personality`), listed for `--help`.
#[derive(clap::Args)]
struct FioArgs {
    /// fio's flags, job options and job files.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

fn main() -> ExitCode {
    signals::install();
    let argv = match personality::argv_text(std::env::args_os().collect()) {
        Ok(argv) => argv,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    if let Some((argv0, args)) = fio_personality(&argv) {
        iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
        return fio_exit(cmd::fio::run(&argv0, &args));
    }
    // run, sim and parse mix their flags with fio's arguments: clap reads them from the split
    // (cmd::split_own); the whole-argv parse is only for their --help.
    let help = std::env::args_os().skip(2).any(|a| a == "--help" || a == "-h");
    let result = match argv.get(1).map(String::as_str) {
        Some("run") if !help => {
            iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
            cmd::raw_args().and_then(|a| cmd::run::run_args(&a, cmd::run::Personality::Iolab))
        }
        Some("sim") if !help => {
            iolab_core::stop::set_grace(std::time::Duration::from_secs(10));
            cmd::raw_args().and_then(|a| cmd::sim::run_args(&a))
        }
        Some("parse") if !help => cmd::raw_args().and_then(|a| cmd::parse::run_args(&a)),
        _ => match dispatch(Cli::parse()) {
            Ok(r) => r,
            Err(code) => return code,
        },
    };
    if let Err(e) = &result {
        if signals::is_broken_pipe(e) {
            signals::broken_pipe_exit();
        }
    }
    iolab_report::output::remove_temporaries();
    if let Some(status) = iolab_core::stop::exit_status() {
        let why = result.err().map(|e| format!(": {}", one_line(&e))).unwrap_or_default();
        eprintln!("iolab: interrupted by {}{why}", iolab_core::stop::signal_name());
        return ExitCode::from(status);
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("iolab: {}", one_line(&e));
            ExitCode::from(1)
        }
    }
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
        Command::Run(a) => cmd::run::run(a),
        Command::Fio(a) => return Err(fio_exit(cmd::fio::run("fio", &a.rest))),
        Command::Sim(a) => cmd::sim::run(a),
        Command::Calibrate(a) => cmd::calibrate::run(a),
        Command::Parse(a) => cmd::parse::run(a),
        Command::Options(a) => cmd::options::run(a),
        Command::Data(a) => cmd::data::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Mrc(a) => cmd::mrc::run(a),
        Command::Fill(a) => cmd::fill::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Plot(a) => cmd::plot::run(a),
    })
}

/// The fio personality's exit: temporaries removed and, after a signal, 128 + its number
/// (fio prints its own messages).
fn fio_exit(code: ExitCode) -> ExitCode {
    iolab_report::output::remove_temporaries();
    match iolab_core::stop::exit_status() {
        Some(status) => ExitCode::from(status),
        None => code,
    }
}

/// The error and its causes on one line, each cause once: the library errors already print
/// their I/O cause in their own message, which `{:#}` would repeat.
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}
