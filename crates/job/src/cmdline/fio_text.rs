//! What fio prints from its command line before (or instead of) a run: `usage()`,
//! `--cmdhelp`, `--enghelp`, `--version`, `--inflate-log`, `--showcmd`, the normal-format job header and the
//! "unrecognized option" refusal.
//!
//! Source: fio 3.33 init.c `usage()`, `parse_cmd_line` (`case '?'` with
//! `show_closest_option`), `add_job` (the header line), options.c `show_cmd_help`,
//! `fio_show_ioengine_help`, `dump_cmdline`; backend.c "Starting N process(es)".

use super::globals::{short, Action, FlagError, Globals};
use super::{FlagArg, FlagUse, FIO_FLAGS};
use crate::{registry, Job, JobError, RwKind};
use iolab_core::FIO_VERSION;
use std::path::PathBuf;

/// `--version`'s line: fio's version, then iolab's.
fn version_line() -> String {
    format!("{FIO_VERSION} (iolab {})\n", env!("CARGO_PKG_VERSION"))
}

/// fio `usage()`: the flags from the table, fio's layout.
pub fn usage(argv0: &str) -> String {
    let mut s = version_line();
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

/// What a `--cmdhelp`-style action prints: its text on stdout and, for a name fio does not
/// know, its line on stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub stdout: String,
    pub stderr: String,
}

impl From<String> for Answer {
    fn from(stdout: String) -> Self {
        Answer { stdout, stderr: String::new() }
    }
}

/// `--cmdhelp[=opt]`: every option, or one in full (`all` lists every option). An unknown
/// name is fio's parse.c `show_cmd_help`: "No such command: NAME" on stderr and, on stdout,
/// the closest option in full when its name is within edit distance 2 (" - showing closest
/// match"), else an empty line; fio 3.33 then exits 0, and so does iolab.
pub fn cmdhelp(name: Option<&str>) -> Answer {
    let Some(n) = name.filter(|n| !n.is_empty() && *n != "all") else {
        return registry::listing().into();
    };
    if let Some(o) = registry::lookup(n) {
        return registry::describe(o).into();
    }
    let closest = registry::OPTIONS
        .iter()
        .map(|o| (registry::edit_distance(n, o.name), o))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d < 3);
    let stdout = match closest {
        Some((_, o)) => format!(" - showing closest match\n{}", registry::describe(o)),
        None => "\n".to_string(),
    };
    Answer { stdout, stderr: format!("No such command: {}\n", short(n)) }
}

/// `--enghelp[=engine[,opt]]`: the engines, one engine's options, or one of them in full.
pub fn enghelp(arg: Option<&str>) -> Result<String, FlagError> {
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
        return Err(FlagError::Bad(format!("fio: engine {} not loadable", short(engine))));
    }
    let opts: Vec<_> = registry::OPTIONS.iter().filter(|o| o.engine.contains(&engine)).collect();
    if let Some(o) = opt {
        return match opts.iter().find(|d| d.answers_to(o)) {
            Some(d) => Ok(registry::describe(d)),
            None => Err(FlagError::Bad(format!("fio: engine {engine} has no option {}", short(o)))),
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

/// The answer to an [`Action`] (`argv0` names the program in the usage text).
pub fn action_text(a: &Action, argv0: &str) -> Result<Answer, FlagError> {
    Ok(match a {
        Action::Version => version_line().into(),
        Action::Help => usage(argv0).into(),
        Action::Cmdhelp(n) => cmdhelp(n.as_deref()),
        Action::Enghelp(e) => enghelp(e.as_deref())?.into(),
        Action::InflateLog(p) => iolab_stats::logfz::inflate_file(p)?.into(),
    })
}

/// `--showcmd`: each job file as one fio command line (fio's `dump_cmdline`: `fio`, then per
/// section `--name=S` first for jobs, then its options as written).
pub fn showcmd(files: &[PathBuf]) -> Result<String, JobError> {
    let env = crate::Env::from_system();
    let mut s = String::new();
    for f in files {
        let mut warnings = Vec::new();
        let sections = crate::ini::read_file(f, &env, &mut warnings)?;
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

/// fio's "unrecognized option" for a `--key` that is neither a job option nor a flag
/// (init.c `parse_cmd_line`, `case '?'`, with `show_closest_option`).
pub fn refuse_unrecognized(cmdline: &[String]) -> Result<(), FlagError> {
    for a in cmdline {
        let key = a.trim_start_matches('-');
        let key = key.split_once('=').map_or(key, |(k, _)| k);
        if key != "name" && registry::lookup(key).is_none() {
            return Err(FlagError::Bad(match registry::nearest(key) {
                Some(n) => format!("fio: unrecognized option '{a}'\nDid you mean {n}?"),
                None => format!("fio: unrecognized option '{a}'"),
            }));
        }
    }
    Ok(())
}

/// `--readonly`: fio refuses a job that writes or trims (init.c `fixup_options`).
pub fn refuse_writes(g: &Globals, jobs: &[Job]) -> Result<(), FlagError> {
    match jobs.iter().find(|j| g.readonly && (j.rw.has_write() || j.rw.has_trim())) {
        Some(j) => Err(FlagError::Bad(format!(
            "fio: job <{}> has write or trim bit set, but fio is in read-only mode",
            j.name
        ))),
        None => Ok(()),
    }
}

/// fio's `ddir_str` of a job's `rw`.
pub fn ddir_str(rw: RwKind) -> &'static str {
    use RwKind as R;
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
/// `num2str(value, pow2)` is fio's `num2str(v, 4, 1, pow2, N2S_BYTE)`.
pub fn normal_header(jobs: &[Job], num2str: &dyn Fn(u64, bool) -> String) -> String {
    let mut s = String::new();
    let (mut threads, mut procs) = (0u32, 0u32);
    for j in jobs {
        let pow2 = j.kb_base() == iolab_core::units::KbBase::K1024;
        let n = |v: u64| num2str(v, pow2);
        let (r, w, t) = (&j.bs.read, &j.bs.write, &j.bs.trim);
        s.push_str(&format!(
            "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}\n",
            j.name,
            j.group_id,
            ddir_str(j.rw),
            n(r.min),
            n(r.max),
            n(w.min),
            n(w.max),
            n(t.min),
            n(t.max),
            j.ioengine,
            j.iodepth
        ));
        if j.numjobs > 1 {
            s.push_str("...\n");
        }
        let count = j.numjobs.max(1);
        *(if j.thread { &mut threads } else { &mut procs }) += count;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(args: &[&str]) -> Vec<Job> {
        let cmdline = args.iter().map(|s| s.to_string()).collect();
        crate::load(&crate::LoadOptions { cmdline, ..Default::default() }).unwrap().jobs
    }

    #[test]
    fn header_is_fios_add_job_line_and_starting_count() {
        let j = jobs(&["--name=n", "--rw=randread", "--bs=4k", "--numjobs=2", "--iodepth=8"]);
        let h = normal_header(&j, &|v, _| format!("{}KiB", v / 1024));
        let want = "n: (g=0): rw=randread, bs=(R) 4KiB-4KiB, (W) 4KiB-4KiB, (T) 4KiB-4KiB, \
                    ioengine=psync, iodepth=8\n...\nfio-3.33\nStarting 2 processes\n";
        assert_eq!(h, want);
    }

    #[test]
    fn unrecognized_option_names_the_nearest() {
        let e = refuse_unrecognized(&["--name=x".into(), "--blocksiz=4k".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "fio: unrecognized option '--blocksiz=4k'\nDid you mean blocksize?"
        );
        assert!(refuse_unrecognized(&["--name=x".into(), "--bs=4k".into()]).is_ok());
    }

    #[test]
    fn readonly_refuses_a_writing_job_only() {
        let g = Globals { readonly: true, ..Globals::default() };
        assert!(refuse_writes(&g, &jobs(&["--name=r", "--rw=read"])).is_ok());
        let e = refuse_writes(&g, &jobs(&["--name=w", "--rw=randwrite"])).unwrap_err();
        assert!(e.to_string().contains("job <w> has write or trim bit set"), "{e}");
    }

    #[test]
    fn enghelp_lists_engines_and_refuses_unknown() {
        assert!(enghelp(None).unwrap().contains("\tio_uring\n"));
        let e = enghelp(Some("nosuch")).unwrap_err().to_string();
        assert_eq!(e, "fio: engine nosuch not loadable");
    }
}
