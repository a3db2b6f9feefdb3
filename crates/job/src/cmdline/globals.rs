//! fio's global settings after its command-line flags (fio 3.33 init.c `parse_cmd_line`, one
//! `case` per flag): output formats, terse version, ETA and status intervals, read-only,
//! parse-only, and the flags that do their work and exit. The flag table is
//! [`super::FIO_FLAGS`]; the messages are fio's where fio has one.

use super::{fio_flag, FlagArg, FlagUse};
use iolab_core::units::{parse_time, TimeUnitDefault, UnitError};
use std::path::PathBuf;
use std::time::Duration;

/// Why fio's flags were refused (fio's wording where it has one).
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    #[error("fio: unrecognized option '--{0}'")]
    Unrecognized(String),
    #[error("--{name}: not supported by iolab: {reason}")]
    Refused { name: String, reason: &'static str },
    #[error("fio: option '--{0}' doesn't allow an argument")]
    NoArgument(String),
    #[error("fio: option '--{0}' requires an argument")]
    NeedsArgument(String),
    #[error("fio: failed parsing --{flag}={value}: {source}")]
    Time { flag: String, value: String, source: Box<UnitError> },
    #[error("--output-format={value}: fio: failed parsing output-format: {why}")]
    OutputFormat { value: String, why: String },
    #[error("--{name}={value}: expected a whole number: {source}")]
    WholeNumber { name: String, value: String, source: std::num::ParseIntError },
    /// `--inflate-log=FILE` could not be read or inflated.
    #[error(transparent)]
    Inflate(#[from] iolab_stats::logfz::FzError),
    /// A value fio refuses, with fio's message (`--terse-version`, `--eta-interval`, …).
    #[error("{0}")]
    Bad(String),
}

/// fio's `--eta` choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eta {
    #[default]
    Auto,
    Always,
    Never,
}

/// A flag that does its work and ends the program (fio's `do_exit` with `did_arg`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Version,
    Help,
    Cmdhelp(Option<String>),
    Enghelp(Option<String>),
    /// `--inflate-log=FILE`: print a `.fz` log as text.
    InflateLog(PathBuf),
}

/// fio's global settings after its flags.
#[derive(Clone, Debug)]
pub struct Globals {
    /// Output formats, in the order given (see [`Globals::ordered_formats`]).
    pub formats: Vec<String>,
    pub terse_version: u8,
    pub output: Option<PathBuf>,
    pub status_interval: Option<Duration>,
    pub eta: Eta,
    pub eta_interval: Option<Duration>,
    pub readonly: bool,
    pub parse_only: bool,
    pub showcmd: bool,
    pub warnings_fatal: bool,
    pub action: Option<Action>,
}

impl Default for Globals {
    fn default() -> Self {
        Globals {
            formats: vec!["normal".into()],
            terse_version: 3,
            output: None,
            status_interval: None,
            eta: Eta::Auto,
            eta_interval: None,
            readonly: false,
            parse_only: false,
            showcmd: false,
            warnings_fatal: false,
            action: None,
        }
    }
}

impl Globals {
    /// The formats in the order fio prints its buffers (stat.c: terse, json, normal), then
    /// iolab's own formats in the order given; each once.
    pub fn ordered_formats(&self) -> Vec<String> {
        let rank = |f: &str| match f {
            "terse" => 0,
            "json" | "json+" => 1,
            "normal" => 2,
            _ => 3,
        };
        let mut v: Vec<String> = Vec::new();
        for f in &self.formats {
            if !v.contains(f) {
                v.push(f.clone());
            }
        }
        v.sort_by_key(|f| rank(f));
        v
    }
}

/// A fio time value (`check_str_time` with seconds as the bare unit).
fn fio_time(flag: &str, v: &str) -> Result<Duration, FlagError> {
    let t = parse_time(v, TimeUnitDefault::Seconds).map_err(|source| FlagError::Time {
        flag: flag.to_string(),
        value: short(v),
        source: Box::new(source),
    })?;
    Ok(Duration::from_nanos(t.0))
}

/// At most ~100 characters of a user value, for messages.
pub fn short(v: &str) -> String {
    if v.chars().count() > 100 {
        format!("{}…", v.chars().take(100).collect::<String>())
    } else {
        v.to_string()
    }
}

/// fio `parse_output_format`: a comma-separated list of terse, json, json+, normal (and
/// iolab's jsonl, csv, html); `known(f)` says whether an exporter of that name exists, and
/// otherwise why not.
fn output_formats(
    v: &str,
    known: &dyn Fn(&str) -> Result<(), String>,
) -> Result<Vec<String>, FlagError> {
    let mut out = Vec::new();
    for f in v.split(',') {
        if f != "terse" && f != "html" {
            known(f).map_err(|why| FlagError::OutputFormat { value: short(v), why })?;
        }
        out.push(f.to_string());
    }
    Ok(out)
}

/// Interpret fio's global flags (`split.flags`) as fio's `parse_cmd_line` does; `known`
/// checks an output format name against the exporters.
pub fn globals(
    flags: &[(String, Option<String>)],
    known: &dyn Fn(&str) -> Result<(), String>,
    fio: bool,
) -> Result<Globals, FlagError> {
    let mut g = Globals::default();
    for (name, value) in flags {
        let name_s = || name.clone();
        let Some(def) = fio_flag(name) else { return Err(FlagError::Unrecognized(name_s())) };
        if let FlagUse::Refused(reason) = def.usage {
            return Err(FlagError::Refused { name: name_s(), reason });
        }
        if def.arg == FlagArg::No && value.is_some() {
            return Err(FlagError::NoArgument(name_s()));
        }
        let need = || -> Result<String, FlagError> {
            match value {
                Some(v) if !v.is_empty() => Ok(v.clone()),
                _ => Err(FlagError::NeedsArgument(name_s())),
            }
        };
        apply_flag(&mut g, name, value.as_deref(), need, known, fio)?;
    }
    Ok(g)
}

fn apply_flag(
    g: &mut Globals,
    name: &str,
    value: Option<&str>,
    need: impl Fn() -> Result<String, FlagError>,
    known: &dyn Fn(&str) -> Result<(), String>,
    fio: bool,
) -> Result<(), FlagError> {
    match name {
        "output" => g.output = Some(need()?.into()),
        "minimal" => g.formats = vec!["terse".into()],
        "output-format" => g.formats = output_formats(&need()?, known)?,
        "append-terse" => g.formats.push("terse".into()),
        "version" => g.action = Some(Action::Version),
        "help" => g.action = Some(Action::Help),
        "cmdhelp" => g.action = Some(Action::Cmdhelp(value.map(str::to_string))),
        "enghelp" => g.action = Some(Action::Enghelp(value.map(str::to_string))),
        "inflate-log" => g.action = Some(Action::InflateLog(need()?.into())),
        "showcmd" => g.showcmd = true,
        "readonly" => g.readonly = true,
        "parse-only" => g.parse_only = true,
        "warnings-fatal" => g.warnings_fatal = true,
        "terse-version" => {
            let v = need()?;
            g.terse_version = match v.trim().parse::<u8>() {
                Ok(n @ 2..=5) => n,
                _ => {
                    return Err(FlagError::Bad(format!(
                        "--terse-version={}: fio: bad terse version format",
                        short(&v)
                    )))
                }
            };
        }
        "eta" => {
            // fio: "always" and "never" change it; any other word leaves auto.
            g.eta = match need()?.as_str() {
                "always" => Eta::Always,
                "never" => Eta::Never,
                _ => g.eta,
            };
        }
        "eta-newline" | "eta-interval" | "status-interval" => {
            apply_interval(g, name, &need()?, fio)?
        }
        "alloc-size" | "max-jobs" => {
            let v = need()?;
            v.trim().parse::<u64>().map_err(|source| FlagError::WholeNumber {
                name: name.to_string(),
                value: short(&v),
                source,
            })?;
        }
        "aux-path" => {
            let v = need()?;
            if !std::path::Path::new(&v).is_dir() {
                return Err(FlagError::Bad(format!("--aux-path={}: not a directory", short(&v))));
            }
        }
        other => return Err(FlagError::Bad(format!("--{other}: not handled"))),
    }
    Ok(())
}

/// A unitless decimal `N.F` read as fio reads it: its whole seconds `N` (empty is 0); `None`
/// for anything else.
fn whole_seconds(v: &str) -> Option<u64> {
    let (int, frac) = v.split_once('.')?;
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || !digits(frac) {
        return None;
    }
    if int.is_empty() {
        return Some(0);
    }
    int.parse().ok()
}

/// fio's `--eta-interval`, `--eta-newline` and `--status-interval` (times, with fio's minima).
fn apply_interval(g: &mut Globals, name: &str, v: &str, fio: bool) -> Result<(), FlagError> {
    match name {
        "eta-newline" | "eta-interval" => {
            let t = fio_time(name, v)?;
            if name == "eta-interval" && t < Duration::from_millis(250) {
                return Err(FlagError::Bad(format!(
                    "--eta-interval={v}: fio: eta interval time too short (250msec min)"
                )));
            }
            if t < Duration::from_millis(1) {
                return Err(FlagError::Bad(format!(
                    "--eta-newline={v}: fio: eta new line time too short"
                )));
            }
            g.eta_interval = Some(t);
        }
        _ => {
            // iolab's own `--status-interval=0.5` keeps the fraction; fio (init.c
            // `check_str_time`) reads a unitless decimal as whole seconds: `0.2` is 0, "too
            // small", and `1.5` is 1 s.
            let secs = v.parse::<f64>().ok().filter(|s| (0.1..=86_400.0).contains(s));
            let t = match (fio, whole_seconds(v), secs) {
                (true, Some(s), _) => Duration::from_secs(s),
                (_, _, Some(s)) => Duration::from_secs_f64(s),
                _ => fio_time(name, v)?,
            };
            if t < Duration::from_millis(1) {
                return Err(FlagError::Bad(format!(
                    "--status-interval={v}: fio: status interval too small"
                )));
            }
            g.status_interval = Some(t);
        }
    }
    Ok(())
}
