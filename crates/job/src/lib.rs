//! iolab-job: the fio job-file reader and the option registry.
//!
//! Reading validates and never touches the disk: it turns job files and fio-style command
//! lines into [`Job`] specs plus warnings. Opening files and choosing engines happen later,
//! in the engine. A job file means what it means to fio's code (init.c `__parse_jobs_ini`,
//! parse.c, options.c); where fio's meaning is a known trap (`4KiB` is 4000 bytes by default,
//! non-uniform distributions force `norandommap`) the job parses as fio would and a
//! [`Warning`] says so.
//!
//! ```
//! let p = iolab_job::parse_str("a.fio", "[global]\nbs=8k\n[job1]\nrw=randread:4\nsize=1g\n").unwrap();
//! assert_eq!(p.jobs[0].bs.read.min, 8192);
//! assert_eq!(p.jobs[0].ddir_seq_nr, 4);
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod apply;
pub mod check;
pub mod cmdline;
mod data;
pub mod describe;
pub mod engines;
pub mod error;
pub mod fixup;
pub mod ini;
pub mod preset;
pub mod registry;
mod report;
pub mod resolve;
pub mod spec;
pub mod typed;
pub mod value;

pub use cmdline::SplitArgs;
pub use data::gen_config;
pub use error::{JobError, JobErrorKind, Location};
pub use ini::Env;
pub use spec::*;
pub use typed::{ClockSource, LogWindow, StatType, StridedZones, SyncMode, UnifiedRw};

use serde::Serialize;
use std::path::PathBuf;

/// What to read: job files, fio-style `--option=value` arguments, and a `--section` filter.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub files: Vec<PathBuf>,
    /// Raw fio-style args (`--name=x`, `--rw=randread`); options before the first `--name` are
    /// global.
    pub cmdline: Vec<String>,
    /// `--section` filter: only these job sections are kept (globals always apply).
    pub sections: Vec<String>,
}

/// The jobs, in definition order (command-line jobs first, then each file's), and every
/// warning.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Parsed {
    pub jobs: Vec<Job>,
    pub warnings: Vec<Warning>,
}

/// Something that parses but probably does not mean what the writer thinks, or that iolab
/// accepts without acting on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// `file:line`, or `command line (argument N)`.
    pub location: String,
    pub message: String,
    /// One of fio's own warnings, in fio's words ([`fixup`]): `--warnings-fatal` makes these
    /// fatal, and the fio personality prints them as fio does. iolab's own notes are not.
    #[serde(skip)]
    pub fio: bool,
}

impl Warning {
    /// One of iolab's own warnings.
    pub fn new(location: String, message: String) -> Self {
        Warning { location, message, fio: false }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: warning: {}", self.location, self.message)
    }
}

/// Read job files and command-line options with the process environment.
pub fn load(opts: &LoadOptions) -> Result<Parsed, JobError> {
    load_with(opts, &Env::from_system())
}

/// [`load`] with explicit `${VAR}` values and machine figures.
pub fn load_with(opts: &LoadOptions, env: &Env) -> Result<Parsed, JobError> {
    let mut warnings = Vec::new();
    let mut units = Vec::new();
    let cmd = cmdline::sections(&opts.cmdline, env, &mut warnings)?;
    let cmd_has_globals = cmd.iter().any(|s| s.is_global());
    if !cmd.is_empty() {
        units.push(resolve::Unit {
            sections: cmd,
            file_index: 0,
            reset_defaults: false,
            implicit_stonewall: false,
        });
    }
    for (i, f) in opts.files.iter().enumerate() {
        let sections = ini::read_file(f, env, &mut warnings)?;
        if i > 0 && cmd_has_globals {
            warnings.push(Warning::new(
                f.display().to_string(),
                "command-line options before the first --name do not apply to this file: fio \
                 resets its defaults for every job file after the first; repeat them in its \
                 [global] section"
                    .to_string(),
            ));
        }
        units.push(resolve::Unit {
            sections,
            file_index: i as u32,
            reset_defaults: i > 0,
            implicit_stonewall: i > 0,
        });
    }
    let had_input = !units.is_empty();
    let jobs = resolve::resolve(units, &opts.sections, &mut warnings)?;
    if had_input && jobs.is_empty() && opts.sections.is_empty() {
        let location = match opts.files.first() {
            Some(f) => Location::Path { file: f.display().to_string() },
            None => Location::CommandLine { index: 0 },
        };
        return Err(JobError::new(location, JobErrorKind::NoJobs));
    }
    Ok(Parsed { jobs, warnings: dedup(warnings) })
}

/// Each distinct warning once, in first-seen order (`${TESTDIR}` three times on one line is
/// one warning).
fn dedup(warnings: Vec<Warning>) -> Vec<Warning> {
    let mut out: Vec<Warning> = Vec::with_capacity(warnings.len());
    for w in warnings {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Parse one in-memory job file named `name` (used in messages) with the process environment.
pub fn parse_str(name: &str, text: &str) -> Result<Parsed, JobError> {
    parse_str_with(name, text, &Env::from_system())
}

/// [`parse_str`] with explicit `${VAR}` values and machine figures.
pub fn parse_str_with(name: &str, text: &str, env: &Env) -> Result<Parsed, JobError> {
    let mut warnings = Vec::new();
    let sections = ini::parse_text(name, text, None, env, &mut warnings)?;
    let unit =
        resolve::Unit { sections, file_index: 0, reset_defaults: false, implicit_stonewall: false };
    let jobs = resolve::resolve(vec![unit], &[], &mut warnings)?;
    if jobs.is_empty() {
        return Err(JobError::new(Location::Path { file: name.to_string() }, JobErrorKind::NoJobs));
    }
    Ok(Parsed { jobs, warnings: dedup(warnings) })
}

/// Split a fio-style argv into (job files, fio options like `--rw=x`, `--section` filters,
/// the caller's own flags). `own_flags` are long flag names without dashes; a trailing `=`
/// means the flag takes a value that may be the next argument.
pub fn split_fio_args(args: &[String], own_flags: &[&str]) -> SplitArgs {
    cmdline::split_fio_args(args, own_flags)
}
