//! iolab's fio personality: `iolab fio …`, or iolab run under the name `fio` (a symlink or
//! hard link), which speaks fio's command-line language: fio's flags and parsing, fio's
//! output on stdout, fio's messages and exit codes, and no iolab advice or notes on stderr.
//! fio's texts (usage, `--cmdhelp`, `--enghelp`, `--showcmd`, the job header) are
//! `iolab_job::cmdline::fio_text`; the flag table is `iolab_job::cmdline::FIO_FLAGS`.

use std::process::ExitCode;

pub use iolab_job::cmdline::globals::Globals;

/// fio's global flags as fio reads them (`fio`: as fio itself, else with iolab's own
/// readings, such as fractional `--status-interval` seconds), output formats checked against
/// iolab's exporters.
pub fn globals(flags: &[(String, Option<String>)], fio: bool) -> anyhow::Result<Globals> {
    let known = |f: &str| iolab_report::exporter(f).map(|_| ()).map_err(|e| e.to_string());
    Ok(iolab_job::cmdline::globals::globals(flags, &known, fio)?)
}

/// The job warnings as each personality shows them (iolab: every one; fio: fio's own, in
/// fio's words), and `--warnings-fatal`, which makes fio's own warnings fatal and nothing
/// else (fio 3.33 init.c `fixup_options`, `ret |= warnings_fatal`; `iolab_job::fixup`):
/// iolab's notes, such as a non-uniform distribution forcing norandommap, are not fio's.
pub fn job_warnings(warnings: &[iolab_job::Warning], fio: bool, fatal: bool) -> anyhow::Result<()> {
    for w in warnings {
        match (fio, w.fio) {
            (true, true) => eprintln!("{}", w.message),
            (true, false) => {}
            (false, _) => eprintln!("iolab: {w}"),
        }
    }
    let n = warnings.iter().filter(|w| w.fio).count();
    if fatal && n > 0 {
        anyhow::bail!("--warnings-fatal: {n} of fio's job warning(s)");
    }
    Ok(())
}

/// What fio prints before a normal-format run (`fio_text::normal_header`, fio's `num2str`).
pub fn normal_header(jobs: &[iolab_job::Job]) -> String {
    use iolab_report::num::{num2str, N2s};
    iolab_job::cmdline::fio_text::normal_header(jobs, &|v, pow2| num2str(v, 4, pow2, N2s::Byte))
}

/// `iolab fio ARGS…` and iolab run as `fio`: the fio personality.
pub fn run(argv0: &str, args: &[String]) -> ExitCode {
    match super::run::run_args(args, super::run::Personality::Fio { argv0: argv0.into() }) {
        Ok(code) => code,
        Err(e) => {
            // stdout's reader went away: fio dies of SIGPIPE, with no message.
            if crate::signals::is_broken_pipe(&e) {
                crate::signals::broken_pipe_exit();
            }
            let msg = crate::one_line(&e);
            if msg.starts_with("fio:") {
                eprintln!("{msg}");
            } else {
                eprintln!("fio: {msg}");
            }
            ExitCode::from(1)
        }
    }
}
