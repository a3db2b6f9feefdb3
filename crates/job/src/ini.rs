//! The job-file layer below options: lines, `[sections]`, comments, `include`, `${VAR}` and the
//! `$pagesize` / `$mb_memory` / `$ncpus` keywords.
//!
//! Source: fio init.c `__parse_jobs_ini` (line handling, `include`, global sections, the
//! 255-character section name limit), parse.c `strip_blank_front` / `strip_blank_end` (a line
//! is cut at the first `;` or `#` anywhere, so values can never contain them), options.c
//! `fio_option_dup_subs` (`${VAR}` → environment, undefined → empty) and `fio_keyword_replace`
//! / `bc_calc` (after a keyword is replaced, a value containing `+ - * /` is computed; fio
//! pipes it to `bc`, iolab evaluates it with `iolab_core::units::expr`, integer arithmetic as
//! `bc` with its default scale 0). Where fio is silent (an undefined variable), iolab warns.

use crate::error::{JobError, JobErrorKind, Location};
use crate::Warning;
use iolab_core::units::expr;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Include nesting limit; fio has none and loops forever on a self-include.
const MAX_INCLUDE_DEPTH: u32 = 16;
/// Largest file `include` reads.
const MAX_INCLUDE_BYTES: u64 = 16 << 20;

/// Values for `${VAR}` and the `$keywords`. `from_system` reads the process environment and
/// the machine; tests build one by hand so results do not depend on the host.
#[derive(Clone, Debug)]
pub struct Env {
    /// Variables that take precedence over the process environment.
    pub vars: BTreeMap<String, String>,
    /// Whether to fall back to the process environment for `${VAR}`.
    pub process_env: bool,
    pub pagesize: u64,
    pub mb_memory: u64,
    /// fio's `$ncpus` counts configured CPUs (`_SC_NPROCESSORS_CONF`), not online ones.
    pub ncpus: u64,
}

impl Env {
    /// The process environment and this machine's page size, memory and configured CPUs.
    pub fn from_system() -> Self {
        Env {
            vars: BTreeMap::new(),
            process_env: true,
            pagesize: page_size().unwrap_or(4096),
            mb_memory: mem_total_mb().unwrap_or(0),
            ncpus: cpus_configured(),
        }
    }

    /// Only `vars`, and fixed machine figures: for tests and reproducible parses.
    pub fn fixed(vars: &[(&str, &str)], ncpus: u64, mb_memory: u64, pagesize: u64) -> Self {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            process_env: false,
            pagesize,
            mb_memory,
            ncpus,
        }
    }

    fn var(&self, name: &str) -> Option<String> {
        if let Some(v) = self.vars.get(name) {
            return Some(v.clone());
        }
        if self.process_env {
            return std::env::var(name).ok();
        }
        None
    }
}

/// `AT_PAGESZ` from the auxiliary vector (what `sysconf(_SC_PAGESIZE)` returns), read from
/// `/proc/self/auxv` as native-endian `(type, value)` word pairs; no `unsafe` needed.
fn page_size() -> Option<u64> {
    const AT_PAGESZ: u64 = 6;
    const W: usize = std::mem::size_of::<usize>();
    let auxv = std::fs::read("/proc/self/auxv").ok()?;
    let word = |c: &[u8]| -> Option<u64> {
        let mut b = [0u8; W];
        b.copy_from_slice(c.get(..W)?);
        Some(usize::from_ne_bytes(b) as u64)
    };
    auxv.chunks_exact(2 * W).find_map(|pair| {
        let (t, v) = (word(&pair[..W])?, word(&pair[W..])?);
        (t == AT_PAGESZ && v > 0).then_some(v)
    })
}

fn mem_total_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// `/sys/devices/system/cpu/possible` is what glibc's `_SC_NPROCESSORS_CONF` reports.
fn cpus_configured() -> u64 {
    let from_sys = std::fs::read_to_string("/sys/devices/system/cpu/possible").ok().and_then(|s| {
        let mut n = 0u64;
        for part in s.trim().split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            n += b.trim().parse::<u64>().ok()? - a.trim().parse::<u64>().ok()? + 1;
        }
        Some(n)
    });
    from_sys
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get() as u64))
        .unwrap_or(1)
}

/// One `key=value` (or bare `key`) line, after comment stripping and substitution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawEntry {
    pub key: String,
    pub value: Option<String>,
    /// The value as written before substitution (for `iolab parse`'s `raw`).
    pub raw: String,
    pub location: Location,
}

/// One `[section]` and its lines in order (includes already merged in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawSection {
    pub name: String,
    pub location: Location,
    pub entries: Vec<RawEntry>,
}

impl RawSection {
    /// fio: any section whose name starts with "global" is a global section.
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// fio's `strip_blank_end` plus front stripping: cut at the first `;` or `#`, trim.
pub fn strip_line(line: &str) -> &str {
    let cut = line.find([';', '#']).unwrap_or(line.len());
    line[..cut].trim_matches(|c: char| c.is_whitespace() || c.is_control())
}

/// fio cuts a line at the first `;` or `#` even inside a value (`filename=/data/run#1` is
/// `/data/run`). A cut right after a non-blank character is almost never a comment.
fn comment_cut_warning(line: &str, kept: &str) -> Option<String> {
    let cut = line.find([';', '#'])?;
    let before = line[..cut].chars().last()?;
    if before.is_whitespace() || !line[..cut].contains('=') {
        return None;
    }
    Some(format!(
        "'{}' starts a comment in fio even inside a value, so this line reads '{kept}'; fio \
         values cannot contain ';' or '#'",
        &line[cut..cut + 1]
    ))
}

/// Read a job file from disk.
pub fn read_file(
    path: &Path,
    env: &Env,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<RawSection>, JobError> {
    let name = path.display().to_string();
    // A regular file of bounded size: a FIFO, socket, /dev/zero or directory is refused at
    // open (O_NONBLOCK + fstat) instead of blocking or reading forever.
    let bytes = iolab_core::input::read_bounded(path, "job file", MAX_INCLUDE_BYTES)
        .map_err(|e| read_error(Location::Path { file: name.clone() }, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| JobError::new(Location::Path { file: name.clone() }, JobErrorKind::NotText))?;
    parse_text(&name, strip_bom(&text), path.parent(), env, warnings)
}

/// The message of an input error, without the leading `job file PATH: ` that the location
/// already gives.
fn read_error(loc: Location, e: iolab_core::input::InputError) -> JobError {
    JobError::new(loc, JobErrorKind::Read { message: e.reason() })
}

/// Text without a leading UTF-8 byte-order mark (editors on Windows write one; fio's
/// parser would see it as part of the first line).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Split job-file text into sections. `base_dir` is where relative includes are looked up
/// after the current directory (fio's order).
pub fn parse_text(
    name: &str,
    text: &str,
    base_dir: Option<&Path>,
    env: &Env,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<RawSection>, JobError> {
    let mut sections: Vec<RawSection> = Vec::new();
    let mut r = Reader { env, warnings, sections: &mut sections };
    r.lines(name, text, base_dir, 0)?;
    Ok(sections)
}

struct Reader<'a> {
    env: &'a Env,
    warnings: &'a mut Vec<Warning>,
    sections: &'a mut Vec<RawSection>,
}

impl Reader<'_> {
    fn lines(
        &mut self,
        name: &str,
        text: &str,
        base_dir: Option<&Path>,
        depth: u32,
    ) -> Result<(), JobError> {
        for (i, line) in text.lines().enumerate() {
            let loc = Location::File { file: name.to_string(), line: i as u32 + 1 };
            let p = strip_line(line);
            if p.is_empty() {
                continue;
            }
            if let Some(w) = comment_cut_warning(line, p) {
                self.warnings.push(Warning::new(loc.to_string(), w));
            }
            if p.starts_with('[') {
                if depth > 0 {
                    return Err(JobError::new(
                        loc,
                        JobErrorKind::SectionInInclude { path: name.to_string() },
                    ));
                }
                let inner = p.strip_prefix('[').and_then(|s| s.strip_suffix(']'));
                match inner {
                    Some(n) if !n.is_empty() && n.len() <= 255 => self.sections.push(RawSection {
                        name: n.to_string(),
                        location: loc,
                        entries: Vec::new(),
                    }),
                    _ => {
                        return Err(JobError::new(
                            loc,
                            JobErrorKind::BadSection { text: p.to_string() },
                        ))
                    }
                }
                continue;
            }
            if self.sections.is_empty() {
                let option = p.split('=').next().unwrap_or(p).trim().to_string();
                return Err(JobError::new(loc, JobErrorKind::OutsideSection { option }));
            }
            // fio matches any line that starts with "include" (strncmp(p, "include", 7)).
            if let Some(rest) = p.strip_prefix("include") {
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    self.include(rest.trim(), base_dir, depth, loc)?;
                    continue;
                }
            }
            let entry = self.entry(p, loc)?;
            if let Some(s) = self.sections.last_mut() {
                s.entries.push(entry);
            }
        }
        Ok(())
    }

    fn include(
        &mut self,
        path: &str,
        base_dir: Option<&Path>,
        depth: u32,
        loc: Location,
    ) -> Result<(), JobError> {
        if depth + 1 > MAX_INCLUDE_DEPTH {
            return Err(JobError::new(
                loc,
                JobErrorKind::IncludeDepth { path: path.to_string(), depth: MAX_INCLUDE_DEPTH },
            ));
        }
        let mut candidate = PathBuf::from(path);
        if !candidate.exists() && candidate.is_relative() {
            if let Some(b) = base_dir {
                candidate = b.join(path);
            }
        }
        // A job file is small text; refuse devices, FIFOs and huge files (`include /dev/zero`)
        // at open, before any read.
        let include_err = |message: String| {
            JobError::new(
                loc.clone(),
                JobErrorKind::Include { path: candidate.display().to_string(), message },
            )
        };
        let bytes = iolab_core::input::read_bounded(&candidate, "include", MAX_INCLUDE_BYTES)
            .map_err(|e| include_err(e.reason()))?;
        let text =
            String::from_utf8(bytes).map_err(|_| include_err("not UTF-8 text".to_string()))?;
        let text = strip_bom(&text);
        let name = candidate.display().to_string();
        let dir = candidate.parent().map(Path::to_path_buf);
        self.lines(&name, text, dir.as_deref(), depth + 1)
    }

    fn entry(&mut self, line: &str, loc: Location) -> Result<RawEntry, JobError> {
        let subst = substitute(line, self.env, &loc, self.warnings)?;
        let (key, value) = match subst.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (subst.trim().to_string(), None),
        };
        let raw = line.split_once('=').map(|(_, v)| v.trim().to_string()).unwrap_or_default();
        Ok(RawEntry { key, value, raw, location: loc })
    }
}

/// `${VAR}` → environment (undefined: empty, with a warning), then the `$keywords`; if a keyword
/// was replaced and the value has arithmetic, compute it (fio's `bc_calc`).
pub fn substitute(
    line: &str,
    env: &Env,
    loc: &Location,
    warnings: &mut Vec<Warning>,
) -> Result<String, JobError> {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(pos) = rest.find("${") {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 2..];
        match after.find('}') {
            Some(end) if end > 0 => {
                let var = &after[..end];
                match env.var(var) {
                    Some(v) => out.push_str(&v),
                    None => warnings.push(Warning::new(
                        loc.to_string(),
                        format!(
                            "${{{var}}} is not set in the environment and becomes empty, as in fio"
                        ),
                    )),
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);

    let mut replaced = false;
    for (word, value) in
        [("$pagesize", env.pagesize), ("$mb_memory", env.mb_memory), ("$ncpus", env.ncpus)]
    {
        if out.contains(word) {
            out = out.replace(word, &value.to_string());
            replaced = true;
        }
    }
    if replaced && out.contains(['+', '-', '*', '/']) && !out.contains('\'') {
        if let Some((k, v)) = out.split_once('=') {
            let n = expr::eval_int(v.trim(), expr::Context::plain()).map_err(|e| {
                JobError::new(
                    loc.clone(),
                    JobErrorKind::Substitution {
                        value: v.trim().to_string(),
                        message: e.to_string(),
                    },
                )
            })?;
            out = format!("{k}={n}");
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env::fixed(&[("TESTDIR", "/tmp/t")], 8, 16384, 4096)
    }

    #[test]
    fn system_figures_are_sane() {
        let e = Env::from_system();
        assert!(e.pagesize >= 4096 && e.pagesize.is_power_of_two(), "{}", e.pagesize);
        assert!(e.ncpus >= 1);
    }

    #[test]
    fn comments_cut_anywhere() {
        assert_eq!(strip_line("size=1m ; comment"), "size=1m");
        assert_eq!(strip_line("  bs=4k# x"), "bs=4k");
        assert_eq!(strip_line("; whole"), "");
        assert_eq!(strip_line("rw=randread \r"), "rw=randread");
    }

    #[test]
    fn sections_and_entries() {
        let mut w = Vec::new();
        let s = parse_text(
            "a.fio",
            "[global]\nbs=4k\n\n[job1]\nrw=read\ntime_based\n",
            None,
            &env(),
            &mut w,
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global());
        assert_eq!(s[1].entries[1].key, "time_based");
        assert_eq!(s[1].entries[1].value, None);
        assert_eq!(s[1].entries[0].location, Location::File { file: "a.fio".into(), line: 5 });
    }

    #[test]
    fn substitution() {
        let mut w = Vec::new();
        let l = Location::CommandLine { index: 0 };
        assert_eq!(
            substitute("filename=${TESTDIR}/f", &env(), &l, &mut w).unwrap(),
            "filename=/tmp/t/f"
        );
        assert_eq!(substitute("numjobs=$ncpus", &env(), &l, &mut w).unwrap(), "numjobs=8");
        assert_eq!(substitute("numjobs=$ncpus*2-1", &env(), &l, &mut w).unwrap(), "numjobs=15");
        assert_eq!(substitute("size=$mb_memory/4", &env(), &l, &mut w).unwrap(), "size=4096");
        assert!(w.is_empty());
        assert_eq!(substitute("filename=${NOPE}x", &env(), &l, &mut w).unwrap(), "filename=x");
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("${NOPE}"));
    }

    #[test]
    fn errors() {
        let mut w = Vec::new();
        let e = parse_text("a.fio", "bs=4k\n", None, &env(), &mut w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.fio:1: option 'bs' outside of a [section]; expected a [job] or [global] line first"
        );
        let e = parse_text("a.fio", "[job\n", None, &env(), &mut w).unwrap_err();
        assert!(matches!(e.kind, JobErrorKind::BadSection { .. }));
        let long = format!("[{}]\n", "x".repeat(256));
        assert!(parse_text("a.fio", &long, None, &env(), &mut w).is_err());
    }
}
