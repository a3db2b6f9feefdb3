//! fio's global command-line flags, and iolab's fio personality: `iolab fio …`, or iolab
//! run under the name `fio` (a symlink or hard link), which speaks fio's command-line
//! language: fio's flags and parsing, fio's output on stdout, fio's messages and exit codes,
//! and no iolab advice or notes on stderr.
//!
//! Source: fio 3.33 init.c `parse_cmd_line` (one `case` per flag), `usage()`,
//! `parse_output_format`; the flag table is `iolab_job::cmdline::FIO_FLAGS`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use iolab_job::cmdline::globals::short;
pub use iolab_job::cmdline::globals::{Action, Eta, Globals};
use iolab_job::cmdline::{FlagArg, FlagUse, FIO_FLAGS};
use iolab_job::registry;

/// What fio calls itself in `--version`, JSON and terse v3+.
pub const FIO_VERSION: &str = iolab_report::export::terse::FIO_VERSION;

/// The exporter of one format, terse with fio's `--terse-version`.
pub fn exporter(g: &Globals, fmt: &str) -> anyhow::Result<Box<dyn iolab_report::Exporter>> {
    if fmt == "terse" {
        let version = g.terse_version;
        return Ok(Box::new(iolab_report::export::terse::Terse { version }));
    }
    Ok(iolab_report::exporter(fmt)?)
}

/// fio's global flags as fio reads them, output formats checked against iolab's exporters.
pub fn globals(flags: &[(String, Option<String>)]) -> anyhow::Result<Globals> {
    let known = |f: &str| iolab_report::exporter(f).map(|_| ()).map_err(|e| e.to_string());
    Ok(iolab_job::cmdline::globals::globals(flags, &known)?)
}

/// fio `usage()`: the flags from the table, fio's layout.
pub fn usage(argv0: &str) -> String {
    let mut s = format!("{FIO_VERSION} (iolab {})\n", env!("CARGO_PKG_VERSION"));
    s.push_str(&format!("{argv0} [options] [job options] <job file(s)>\n"));
    for f in FIO_FLAGS {
        let flag = match f.arg {
            FlagArg::No => format!("--{}", f.name),
            FlagArg::Required => format!("--{}={}", f.name, f.value),
            FlagArg::Optional if f.value.is_empty() => format!("--{}", f.name),
            FlagArg::Optional => format!("--{}=[{}]", f.name, f.value),
        };
        let refused = match f.usage {
            FlagUse::Refused(_) => " (not supported by iolab)",
            FlagUse::Accepted(_) => "",
        };
        s.push_str(&format!("  {flag:<23} {}{refused}\n", f.help));
    }
    s.push_str("\nfio was written by Jens Axboe; iolab reimplements its command line.\n");
    s
}

/// `--cmdhelp[=opt]`: every option, or one in full (`all` lists every option).
pub fn cmdhelp(name: Option<&str>) -> anyhow::Result<String> {
    match name {
        None | Some("all") | Some("") => Ok(registry::listing()),
        Some(n) => match registry::lookup(n) {
            Some(o) => Ok(registry::describe(o)),
            None => match registry::nearest(n) {
                Some(near) => bail!("No such command: {n}; did you mean {near}?"),
                None => bail!("No such command: {n}"),
            },
        },
    }
}

/// `--enghelp[=engine[,opt]]`: the engines, one engine's options, or one of them in full.
pub fn enghelp(arg: Option<&str>) -> anyhow::Result<String> {
    let engines = registry::lookup("ioengine").map(|o| o.choices).unwrap_or(&[]);
    let Some(arg) = arg.filter(|a| !a.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for e in engines {
            s.push_str(&format!("\t{e}\n"));
        }
        return Ok(s);
    };
    let (engine, opt) = match arg.split_once(',') {
        Some((e, o)) => (e, Some(o)),
        None => (arg, None),
    };
    if !engines.contains(&engine) {
        bail!("fio: engine {} not loadable", short(engine));
    }
    let opts: Vec<_> = registry::OPTIONS.iter().filter(|o| o.engine.contains(&engine)).collect();
    if let Some(o) = opt {
        return match opts.iter().find(|d| d.answers_to(o)) {
            Some(d) => Ok(registry::describe(d)),
            None => bail!("fio: engine {engine} has no option {}", short(o)),
        };
    }
    if opts.is_empty() {
        return Ok(format!("Engine {engine} has no options\n"));
    }
    let mut s = String::new();
    for o in opts {
        s.push_str(&format!("{:<20}: {}\n", o.name, o.help));
    }
    Ok(s)
}

/// The answer to an [`Action`].
pub fn action_text(a: &Action, argv0: &str) -> anyhow::Result<String> {
    Ok(match a {
        Action::Version => format!("{FIO_VERSION} (iolab {})\n", env!("CARGO_PKG_VERSION")),
        Action::Help => usage(argv0),
        Action::Cmdhelp(n) => cmdhelp(n.as_deref())?,
        Action::Enghelp(e) => enghelp(e.as_deref())?,
        Action::InflateLog(p) => iolab_stats::logfz::inflate_file(p)?,
    })
}

/// `--showcmd`: each job file as one fio command line (fio's `dump_cmdline`: `fio`, then per
/// section `--name=S` first for jobs, then its options as written).
pub fn showcmd(files: &[PathBuf]) -> anyhow::Result<String> {
    let env = iolab_job::Env::from_system();
    let mut s = String::new();
    for f in files {
        let mut warnings = Vec::new();
        let sections = iolab_job::ini::read_file(f, &env, &mut warnings)?;
        s.push_str("fio ");
        for sec in &sections {
            if !sec.is_global() {
                s.push_str(&format!("--name={} ", sec.name));
            }
            for e in &sec.entries {
                match &e.value {
                    Some(v) => s.push_str(&format!("--{}={} ", e.key, v)),
                    None => s.push_str(&format!("--{} ", e.key)),
                }
            }
        }
        s.push('\n');
    }
    Ok(s)
}

/// `iolab fio ARGS…` and iolab run as `fio`: the fio personality.
pub fn run(argv0: &str, args: &[String]) -> ExitCode {
    match super::run::run_args(args, super::run::Personality::Fio { argv0: argv0.into() }) {
        Ok(code) => code,
        Err(e) => {
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

/// fio's `ddir_str` of a job's `rw`.
fn ddir_str(rw: iolab_job::RwKind) -> &'static str {
    use iolab_job::RwKind as R;
    match rw {
        R::Read => "read",
        R::Write => "write",
        R::Trim => "trim",
        R::RandRead => "randread",
        R::RandWrite => "randwrite",
        R::RandTrim => "randtrim",
        R::ReadWrite => "rw",
        R::RandRw => "randrw",
        R::TrimWrite => "trimwrite",
        R::RandTrimWrite => "randtrimwrite",
    }
}

/// What fio prints before a normal-format run: one line per job (init.c `add_job`: name,
/// group, rw, block sizes by `num2str` with 4 significant figures, engine, iodepth; `...` for
/// its clones), its version, and `Starting N process(es)` / `thread(s)` (backend.c).
pub fn normal_header(jobs: &[iolab_job::Job]) -> String {
    use iolab_report::num::{num2str, N2s};
    let mut s = String::new();
    let (mut threads, mut procs) = (0u32, 0u32);
    for j in jobs {
        let pow2 = j.kb_base() == iolab_core::units::KbBase::K1024;
        let n = |v: u64| num2str(v, 4, pow2, N2s::Byte);
        s.push_str(&format!(
            "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}\n",
            j.name,
            j.group_id,
            ddir_str(j.rw),
            n(j.bs.read.min),
            n(j.bs.read.max),
            n(j.bs.write.min),
            n(j.bs.write.max),
            n(j.bs.trim.min),
            n(j.bs.trim.max),
            j.ioengine,
            j.iodepth
        ));
        if j.numjobs > 1 {
            s.push_str("...\n");
        }
        let count = j.numjobs.max(1);
        if j.thread {
            threads += count;
        } else {
            procs += count;
        }
    }
    s.push_str(&format!("{FIO_VERSION}\nStarting "));
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n > 1 { many } else { one });
    if threads > 0 {
        s.push_str(&plural(threads, "thread", "threads"));
    }
    if procs > 0 {
        if threads > 0 {
            s.push_str(" and ");
        }
        s.push_str(&plural(procs, "process", "processes"));
    }
    s.push('\n');
    s
}
