//! fio-style command-line jobs: `--name=x --rw=randread --bs=4k`, and splitting a mixed argv
//! into job files, fio options and the caller's own flags.
//!
//! Source: fio init.c `parse_cmd_line` (`FIO_GETOPT_JOB`): `--name=` starts a new job (a name
//! starting with "global" makes it a global section); options before the first `--name` are
//! global; `--section=` selects sections to run.

use crate::error::{JobError, JobErrorKind, Location};
use crate::ini::{self, Env, RawEntry, RawSection};
use crate::Warning;
use std::path::PathBuf;

/// A fio-style argv split into its parts (see [`crate::split_fio_args`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitArgs {
    /// Positional arguments: job files.
    pub job_files: Vec<PathBuf>,
    /// `--option=value` / `--option` arguments for the job reader, in order.
    pub fio_options: Vec<String>,
    /// `--section=name` filters.
    pub sections: Vec<String>,
    /// Arguments that name one of the caller's own flags (with their value when it was a
    /// separate argument), in order.
    pub other: Vec<String>,
}

/// Split `args`. `own_flags` are the caller's long flags without dashes; a name ending in `=`
/// takes a value, which may be the next argument (`--tier ram:1g`).
pub fn split_fio_args(args: &[String], own_flags: &[&str]) -> SplitArgs {
    let mut out = SplitArgs::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(body) = a.strip_prefix("--") {
            let (key, has_value) = match body.split_once('=') {
                Some((k, _)) => (k, true),
                None => (body, false),
            };
            let takes_value = own_flags.iter().any(|f| f.strip_suffix('=') == Some(key));
            if takes_value || own_flags.contains(&key) {
                out.other.push(a.clone());
                if takes_value && !has_value && i < args.len() {
                    out.other.push(args[i].clone());
                    i += 1;
                }
            } else if key == "section" {
                if let Some((_, v)) = body.split_once('=') {
                    out.sections.push(v.to_string());
                } else if i < args.len() {
                    out.sections.push(args[i].clone());
                    i += 1;
                }
            } else if !has_value
                && takes_separate_value(key)
                && i < args.len()
                && !args[i].starts_with("--")
            {
                // getopt_long with required_argument: `--rw randread` is `--rw=randread`.
                out.fio_options.push(format!("--{key}={}", args[i]));
                i += 1;
            } else {
                out.fio_options.push(a.clone());
            }
        } else if a.starts_with('-') && a.len() > 1 {
            out.other.push(a.clone());
        } else {
            out.job_files.push(PathBuf::from(a));
        }
    }
    out
}

/// fio registers every option except the flag-like ones (`FIO_OPT_STR_SET`, bool) with
/// `required_argument`, so getopt takes the next argument as the value.
fn takes_separate_value(key: &str) -> bool {
    key == "name"
        || crate::registry::lookup(key).is_some_and(|d| d.ty != crate::registry::OptionType::Bool)
}

/// Turn `--key=value` arguments into sections: a leading `global` section for options before
/// the first `--name`, then one section per `--name`.
pub fn sections(
    args: &[String],
    env: &Env,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<RawSection>, JobError> {
    let mut out: Vec<RawSection> = Vec::new();
    for (index, a) in args.iter().enumerate() {
        let location = Location::CommandLine { index: index as u32 };
        let body = a.strip_prefix("--").ok_or_else(|| {
            JobError::new(location.clone(), JobErrorKind::BadArgument { arg: a.clone() })
        })?;
        let subst = ini::substitute(body, env, &location, warnings)?;
        let (key, value) = match subst.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (subst.trim().to_string(), None),
        };
        if key.is_empty() {
            return Err(JobError::new(location, JobErrorKind::BadArgument { arg: a.clone() }));
        }
        if key == "name" {
            let name = value.clone().unwrap_or_default();
            if name.is_empty() {
                return Err(JobError::new(
                    location,
                    JobErrorKind::MissingValue { name: "name".into() },
                ));
            }
            out.push(RawSection { name, location: location.clone(), entries: Vec::new() });
        } else if out.is_empty() {
            out.push(RawSection {
                name: "global".into(),
                location: location.clone(),
                entries: Vec::new(),
            });
        }
        let raw = body.split_once('=').map(|(_, v)| v.to_string()).unwrap_or_default();
        if let Some(s) = out.last_mut() {
            s.entries.push(RawEntry { key, value, raw, location });
        }
    }
    Ok(out)
}
