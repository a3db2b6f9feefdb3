//! `iolab`: measure storage with fio job files, predict cached stacks, warn about misleading
//! benchmarks. This file maps errors to exit codes; `cmd` holds the subcommands.

use iolab_job::cmdline::personality::{self, fio_personality};
use std::process::ExitCode;

mod cmd;
mod memlimit;
mod signals;

fn main() -> ExitCode {
    memlimit::hold_arenas_under_an_address_limit();
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
    let result = match cmd::run_subcommand(&argv) {
        Ok(r) => r,
        Err(code) => return code,
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

/// The fio personality's exit: temporaries removed and, after a signal, 128 + its number
/// (fio prints its own messages).
pub(crate) fn fio_exit(code: ExitCode) -> ExitCode {
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
