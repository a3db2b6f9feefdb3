//! `iolab`: measure storage with fio job files, predict cached stacks, warn about misleading
//! benchmarks. This file maps subcommands to their modules and errors to exit codes.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

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
}

/// `iolab fio ARGS…`; never parsed by clap (see [`fio_personality`]), listed for `--help`.
#[derive(clap::Args)]
struct FioArgs {
    /// fio's flags, job options and job files.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// fio's arguments when iolab runs as `fio` (argv[0]'s file name, a symlink or hard link) or
/// as `iolab fio …`; `None` otherwise.
fn fio_personality(argv: &[String]) -> Option<(String, Vec<String>)> {
    let argv0 = argv.first()?;
    let name = std::path::Path::new(argv0).file_name()?.to_string_lossy().into_owned();
    if name == "fio" {
        return Some((argv0.clone(), argv[1..].to_vec()));
    }
    (argv.get(1)? == "fio").then(|| ("fio".to_string(), argv[2..].to_vec()))
}

fn main() -> ExitCode {
    restore_sigpipe();
    let argv: Vec<String> = std::env::args().collect();
    if let Some((argv0, args)) = fio_personality(&argv) {
        return cmd::fio::run(&argv0, &args);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => cmd::run::run(a),
        Command::Fio(a) => return cmd::fio::run("fio", &a.rest),
        Command::Sim(a) => cmd::sim::run(a),
        Command::Parse(a) => cmd::parse::run(a),
        Command::Options(a) => cmd::options::run(a),
        Command::Data(a) => cmd::data::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Mrc(a) => cmd::mrc::run(a),
        Command::Fill(a) => cmd::fill::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("iolab: {}", one_line(&e));
            ExitCode::from(1)
        }
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

/// Rust ignores SIGPIPE, so `iolab options | head` would panic inside `println!` once the
/// reader goes away. Restoring the default makes iolab end quietly, like other Unix tools.
fn restore_sigpipe() {
    // SAFETY: called first thing in main, before any thread exists; `signal` with SIG_DFL
    // installs no handler code, so nothing can run concurrently with or inside it. This is
    // the one `unsafe` outside the engine crate, for that reason.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
