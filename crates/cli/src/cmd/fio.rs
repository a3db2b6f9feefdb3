//! fio's global command-line flags, and iolab's fio personality: `iolab fio …`, or iolab
//! run under the name `fio` (a symlink or hard link), which speaks fio's command-line
//! language: fio's flags and parsing, fio's output on stdout, fio's messages and exit codes,
//! and no iolab advice or notes on stderr.
//!
//! Source: fio 3.33 init.c `parse_cmd_line` (one `case` per flag), `usage()`,
//! `parse_output_format`; the flag table is `iolab_job::cmdline::FIO_FLAGS`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use iolab_core::units::{parse_time, TimeUnitDefault};
use iolab_job::cmdline::{fio_flag, FlagArg, FlagUse, FIO_FLAGS};
use iolab_job::registry;

/// What fio calls itself in `--version`, JSON and terse v3+.
pub const FIO_VERSION: &str = iolab_report::export::terse::FIO_VERSION;

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

    /// The exporter of one format, terse with its version.
    pub fn exporter(&self, fmt: &str) -> anyhow::Result<Box<dyn iolab_report::Exporter>> {
        if fmt == "terse" {
            return Ok(Box::new(iolab_report::export::terse::Terse {
                version: self.terse_version,
            }));
        }
        Ok(iolab_report::exporter(fmt)?)
    }
}

/// A fio time value (`check_str_time` with seconds as the bare unit).
fn fio_time(flag: &str, v: &str) -> anyhow::Result<Duration> {
    let t = parse_time(v, TimeUnitDefault::Seconds)
        .with_context(|| format!("fio: failed parsing --{flag}={}", short(v)))?;
    Ok(Duration::from_nanos(t.0))
}

/// At most ~100 characters of a user value, for messages.
fn short(v: &str) -> String {
    if v.chars().count() > 100 {
        format!("{}…", v.chars().take(100).collect::<String>())
    } else {
        v.to_string()
    }
}

/// fio `parse_output_format`: a comma-separated list of terse, json, json+, normal (and
/// iolab's jsonl, csv).
fn output_formats(v: &str) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for f in v.split(',') {
        if f != "terse" && f != "html" {
            iolab_report::exporter(f).with_context(|| {
                format!("--output-format={}: fio: failed parsing output-format", short(v))
            })?;
        }
        out.push(f.to_string());
    }
    Ok(out)
}

/// Interpret fio's global flags (`split.flags`) as fio's `parse_cmd_line` does.
pub fn globals(flags: &[(String, Option<String>)]) -> anyhow::Result<Globals> {
    let mut g = Globals::default();
    for (name, value) in flags {
        let Some(def) = fio_flag(name) else { bail!("fio: unrecognized option '--{name}'") };
        if let FlagUse::Refused(reason) = def.usage {
            bail!("--{name}: not supported by iolab: {reason}");
        }
        if def.arg == FlagArg::No && value.is_some() {
            bail!("fio: option '--{name}' doesn't allow an argument");
        }
        let need = || -> anyhow::Result<String> {
            match value {
                Some(v) if !v.is_empty() => Ok(v.clone()),
                _ => bail!("fio: option '--{name}' requires an argument"),
            }
        };
        apply_flag(&mut g, name, value.as_deref(), need)?;
    }
    Ok(g)
}

fn apply_flag(
    g: &mut Globals,
    name: &str,
    value: Option<&str>,
    need: impl Fn() -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    match name {
        "output" => g.output = Some(need()?.into()),
        "minimal" => g.formats = vec!["terse".into()],
        "output-format" => g.formats = output_formats(&need()?)?,
        "append-terse" => g.formats.push("terse".into()),
        "version" => g.action = Some(Action::Version),
        "help" => g.action = Some(Action::Help),
        "cmdhelp" => g.action = Some(Action::Cmdhelp(value.map(str::to_string))),
        "enghelp" => g.action = Some(Action::Enghelp(value.map(str::to_string))),
        "showcmd" => g.showcmd = true,
        "readonly" => g.readonly = true,
        "parse-only" => g.parse_only = true,
        "warnings-fatal" => g.warnings_fatal = true,
        "terse-version" => {
            let v = need()?;
            g.terse_version = match v.trim().parse::<u8>() {
                Ok(n @ 2..=5) => n,
                _ => bail!("--terse-version={}: fio: bad terse version format", short(&v)),
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
        "eta-newline" | "eta-interval" => {
            let v = need()?;
            let t = fio_time(name, &v)?;
            if name == "eta-interval" && t < Duration::from_millis(250) {
                bail!("--eta-interval={v}: fio: eta interval time too short (250msec min)");
            }
            if t < Duration::from_millis(1) {
                bail!("--eta-newline={v}: fio: eta new line time too short");
            }
            g.eta_interval = Some(t);
        }
        "status-interval" => {
            let v = need()?;
            // iolab's own `--status-interval=0.5` (seconds with a fraction) was accepted before
            // the fio flag table took over; fio's parser refuses fractions outside ( … ).
            let secs = v.parse::<f64>().ok().filter(|s| (0.1..=86_400.0).contains(s));
            let t = match secs {
                Some(s) => Duration::from_secs_f64(s),
                None => fio_time(name, &v)?,
            };
            if t < Duration::from_millis(1) {
                bail!("--status-interval={v}: fio: status interval too small");
            }
            g.status_interval = Some(t);
        }
        "alloc-size" | "max-jobs" => {
            let v = need()?;
            v.trim()
                .parse::<u64>()
                .with_context(|| format!("--{name}={}: expected a whole number", short(&v)))?;
        }
        "aux-path" => {
            let v = need()?;
            if !std::path::Path::new(&v).is_dir() {
                bail!("--aux-path={}: not a directory", short(&v));
            }
        }
        other => bail!("--{other}: not handled"),
    }
    Ok(())
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
