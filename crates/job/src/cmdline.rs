//! fio-style command-line jobs: `--name=x --rw=randread --bs=4k`, and splitting a mixed argv
//! into job files, fio options and the caller's own flags.
//!
//! Source: fio init.c `parse_cmd_line` (`FIO_GETOPT_JOB`): `--name=` starts a new job (a name
//! starting with "global" makes it a global section); options before the first `--name` are
//! global; `--section=` selects sections to run.

#[cfg(feature = "clap")]
pub mod clap_split;
pub mod fio_text;
pub mod globals;
pub mod personality;

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
    /// fio's global flags ([`FIO_FLAGS`], `--section` aside) with their value, in order.
    pub flags: Vec<(String, Option<String>)>,
}

/// How a fio global flag takes its value (getopt's `has_arg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagArg {
    /// `no_argument`: `--minimal`.
    No,
    /// `required_argument`: `--output=F` or `--output F`.
    Required,
    /// `optional_argument`: `--cmdhelp` or `--cmdhelp=bs`, never a separate argument.
    Optional,
}

/// What iolab does with a fio global flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagUse {
    /// Does what fio does (the note says how, where it differs in kind).
    Accepted(&'static str),
    /// Refused by name with this reason.
    Refused(&'static str),
}

/// One of fio's global command-line flags (fio 3.33 init.c `l_opts`).
#[derive(Clone, Copy, Debug)]
pub struct FioFlag {
    pub name: &'static str,
    pub arg: FlagArg,
    /// The value's placeholder in the usage text (`""` for none).
    pub value: &'static str,
    /// fio's help line (`usage()`).
    pub help: &'static str,
    pub usage: FlagUse,
}

const fn fl(
    name: &'static str,
    arg: FlagArg,
    value: &'static str,
    help: &'static str,
    usage: FlagUse,
) -> FioFlag {
    FioFlag { name, arg, value, help, usage }
}

use FlagArg::{No, Optional, Required};
use FlagUse::{Accepted as Yes, Refused as Nope};

const MULTI_HOST: &str = "fio's client/server mode (several hosts) is not implemented";

/// Every flag of fio 3.33's `l_opts` (init.c) except the job options, in fio's order. This
/// table drives [`split_fio_args`], `fio --help` in iolab's fio personality and
/// `docs/fio-flags.md`.
pub const FIO_FLAGS: &[FioFlag] = &[
    fl("output", Required, "file", "Write output to file", Yes("written atomically at the end")),
    fl("latency-log", Required, "file", "Deprecated", Nope("deprecated in fio too: fio refuses it; use write_lat_log= in the job")),
    fl("bandwidth-log", No, "", "Generate aggregate bandwidth logs", Nope("aggregate (all-job) bandwidth logs are not implemented; use write_bw_log= per job")),
    fl("minimal", No, "", "Minimal (terse) output", Yes("terse output only, as --output-format=terse")),
    fl("output-format", Required, "type", "Output format (terse,json,json+,normal)", Yes("also iolab's jsonl and csv; several comma-separated, printed in fio's order terse, json, normal")),
    fl("append-terse", Optional, "", "Append terse output to the other formats", Yes("adds terse output")),
    fl("version", No, "", "Print version info and exit", Yes("prints `fio-3.33 (iolab X.Y.Z)`; tools looking for `fio-3` accept it")),
    fl("help", No, "", "Print this page", Yes("")),
    fl("cmdhelp", Optional, "cmd", "Print command help, \"all\" for all of them", Yes("from iolab's option registry, as `iolab options`")),
    fl("enghelp", Optional, "engine[,cmd]", "Print ioengine help, or list available ioengines", Yes("engines and engine options from iolab's option registry")),
    fl("showcmd", No, "", "Turn a job file into command line options", Yes("")),
    fl("readonly", No, "", "Turn on safety read-only checks, preventing writes", Yes("a job that writes or trims is refused before any I/O")),
    fl("eta", Required, "when", "When ETA estimate should be printed (always, never, auto)", Yes("controls iolab's progress line on stderr")),
    fl("eta-interval", Required, "t", "ETA update interval", Yes("progress line interval; at least 250ms as in fio")),
    fl("eta-newline", Required, "t", "Force a new line for every 't' period passed", Yes("progress line interval")),
    fl("debug", Required, "options", "Enable debug logging", Nope("fio's internal debug logging (process, file, io, ...) has no iolab equivalent")),
    fl("parse-only", No, "", "Parse options only, don't start any IO", Yes("")),
    fl("section", Required, "name", "Only run specified section in job file", Yes("")),
    fl("inflate-log", Required, "log", "Inflate and output compressed log", Yes("prints a `.fz` log (log_store_compressed=1), fio's or iolab's, as fio does")),
    fl("alloc-size", Required, "kb", "Set smalloc pool to this size in kb (def 16384)", Yes("checked and ignored: iolab has no fixed shared-memory pool")),
    fl("profile", Required, "name", "Run a built-in profile (tiobench, act)", Nope("fio's built-in profiles (tiobench, act) are not implemented; their options are accepted in jobs")),
    fl("warnings-fatal", No, "", "Fio parser warnings are fatal", Yes("any job-file warning ends the run with exit 1")),
    fl("max-jobs", Required, "nr", "Maximum number of threads/processes to support", Yes("ignored, as fio 3.33 ignores it")),
    fl("terse-version", Required, "type", "Set terse version output format (default 3, or 2 or 4 or 5)", Yes("")),
    fl("server", Optional, "args", "Start a backend fio server", Yes("iolab's authenticated server (`iolab server`): needs --secret-file=F; listens on loopback unless given ADDR:PORT")),
    fl("daemonize", Required, "pidfile", "Background fio server, write pid to file", Nope(MULTI_HOST)),
    fl("client", Required, "hostname", "Talk to remote backend(s) fio server at hostname", Yes("to iolab servers (not fio's), with --secret-file=F: HOST[:PORT],…, a hostfile or ssh://host; one client JSON document")),
    fl("remote-config", Required, "file", "Tell fio server to load this local job file", Nope(MULTI_HOST)),
    fl("cpuclock-test", No, "", "Perform test/validation of CPU clock", Nope("iolab times with clock_gettime(CLOCK_MONOTONIC) only and has no cpu clock to test")),
    fl("crctest", Optional, "type", "Test speed of checksum functions", Nope("no checksum speed test is implemented")),
    fl("memcpytest", Optional, "type", "Test speed of memcpy functions", Nope("no memcpy speed test is implemented")),
    fl("idle-prof", Required, "option", "Report cpu idleness on a system or percpu basis", Nope("idleness profiling is not implemented")),
    fl("status-interval", Required, "t", "Force full status dump every 't' period passed", Yes("fio's full cumulative report every interval, in each output format asked for")),
    fl("trigger-file", Required, "file", "Execute trigger cmd when file exists", Nope("triggers (power-cut tests) are not implemented")),
    fl("trigger-timeout", Required, "t", "Execute trigger at this time", Nope("triggers (power-cut tests) are not implemented")),
    fl("trigger", Required, "cmd", "Set this command as local trigger", Nope("triggers (power-cut tests) are not implemented")),
    fl("trigger-remote", Required, "cmd", "Set this command as remote trigger", Nope(MULTI_HOST)),
    fl("aux-path", Required, "path", "Use this path for fio state generated files", Yes("checked to be a directory; iolab writes its state files beside the job")),
    fl("merge-blktrace-only", No, "", "Merge blktraces only, don't start any IO", Nope("blktrace merging (merge_blktrace_file) is not implemented")),
];

/// The fio global flag called `name`.
pub fn fio_flag(name: &str) -> Option<&'static FioFlag> {
    FIO_FLAGS.iter().find(|f| f.name == name)
}

/// `docs/fio-flags.md`: the table of fio's global flags and what iolab does with each.
pub fn flags_markdown() -> String {
    let mut s = String::from(
        "# fio's global flags in iolab\n\n\
         Generated from `iolab_job::cmdline::FIO_FLAGS` by `iolab options --fio-flags`; do not \
         edit. Every flag of fio 3.33 (`init.c` `l_opts`) is either accepted, doing what fio \
         does, or refused by name with the reason (exit status 1).\n\n\
         | flag | value | fio's help | iolab |\n|---|---|---|---|\n",
    );
    for f in FIO_FLAGS {
        let value = match f.arg {
            FlagArg::No => String::new(),
            FlagArg::Required => format!("`{}`", f.value),
            FlagArg::Optional if f.value.is_empty() => "optional".into(),
            FlagArg::Optional => format!("optional `{}`", f.value),
        };
        let what = match f.usage {
            FlagUse::Accepted("") => "accepted".to_string(),
            FlagUse::Accepted(n) => format!("accepted: {n}"),
            FlagUse::Refused(r) => format!("**refused**: {r}"),
        };
        s.push_str(&format!("| `--{}` | {value} | {} | {what} |\n", f.name, f.help));
    }
    s
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
            } else if let Some(flag) = fio_flag(key).filter(|f| f.name != "section") {
                let mut value = body.split_once('=').map(|(_, v)| v.to_string());
                if value.is_none() && flag.arg == FlagArg::Required && i < args.len() {
                    value = Some(args[i].clone());
                    i += 1;
                }
                out.flags.push((key.to_string(), value));
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
            // getopt_long_only: `-minimal` and `-name=x` are long options too.
            let body = &a[1..];
            let key = body.split_once('=').map_or(body, |(k, _)| k);
            if fio_flag(key).is_some() || key == "name" || crate::registry::lookup(key).is_some() {
                let mut rest = vec![format!("-{a}")];
                rest.extend_from_slice(&args[i..]);
                let sub = split_fio_args(&rest, own_flags);
                out.job_files.extend(sub.job_files);
                out.fio_options.extend(sub.fio_options);
                out.sections.extend(sub.sections);
                out.other.extend(sub.other);
                out.flags.extend(sub.flags);
                return out;
            }
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
