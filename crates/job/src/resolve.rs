//! From sections to jobs: `[global]` scoping, option lookup and typing, implicit stonewalls,
//! reporting groups, `wait_for`.
//!
//! Source: fio init.c `__parse_jobs_ini` (a section whose name starts with "global" sets
//! defaults for the jobs after it; the first job of every later job file gets an implicit
//! `stonewall`), `parse_options` (fio resets its defaults before every job file after the
//! first, so command-line options before the first `--name` reach only the command-line jobs
//! and the first file), `add_job` (a new reporting group at each `stonewall`/`new_group` after
//! at least one job). On the command line options act in the order written, so `kb_base`
//! affects only the options after it (fio issue #1740); inside a job-file section fio sorts
//! options by priority first, so there `kb_base` applies to the whole section (checked against
//! fio 3.33 by the differential tests), but not to what an earlier `[global]` already parsed.

use crate::apply;
use crate::error::{JobError, JobErrorKind, Location};
use crate::ini::{RawEntry, RawSection};
use crate::registry::{self, Status};
use crate::spec::{Job, OptionValue, Origin, ResolvedOption};
use crate::value;
use crate::Warning;

/// The sections of one input: the command line or one job file.
pub struct Unit {
    pub sections: Vec<RawSection>,
    pub file_index: u32,
    /// Whether this unit starts from fio's defaults (true for every file after the first).
    pub reset_defaults: bool,
    /// Whether its first job gets an implicit stonewall.
    pub implicit_stonewall: bool,
}

fn origin(loc: &Location, section: &str) -> Origin {
    match loc {
        Location::File { file, line } => {
            Origin::File { file: file.clone(), line: *line, section: section.to_string() }
        }
        Location::CommandLine { index } => Origin::CommandLine { index: *index },
        Location::Path { .. } => Origin::Default,
    }
}

pub fn origin_location(o: &Origin) -> Option<Location> {
    match o {
        Origin::File { file, line, .. } => Some(Location::File { file: file.clone(), line: *line }),
        Origin::CommandLine { index } => Some(Location::CommandLine { index: *index }),
        Origin::Default => None,
    }
}

/// Apply one entry to `job`: lookup, status, typed value, typed fields.
pub fn apply_entry(
    job: &mut Job,
    e: &RawEntry,
    section: &str,
    warnings: &mut Vec<Warning>,
) -> Result<(), JobError> {
    let err = |kind| JobError::new(e.location.clone(), kind);
    let def = registry::lookup(&e.key).ok_or_else(|| {
        err(JobErrorKind::UnknownOption {
            name: e.key.clone(),
            suggestion: registry::nearest(&e.key).map(str::to_string),
        })
    })?;
    let kb = apply::kb_base(job);
    let v = e.value.as_deref();
    let mut msgs = Vec::new();
    match def.status {
        Status::Unsupported(reason) => {
            return Err(err(JobErrorKind::Unsupported {
                name: def.name.to_string(),
                reason: reason.to_string(),
            }))
        }
        Status::Ignored(reason) => {
            msgs.push(format!("option '{}' is ignored by iolab: {reason}", def.name));
        }
        Status::Supported => match def.set {
            Some(set) => set(job, v, &mut msgs).map_err(err)?,
            None => size_suffix_warnings(def, v, kb, &mut msgs),
        },
    }
    if def.ty == registry::OptionType::Deprecated {
        msgs.push(format!("option '{}' is deprecated; fio ignores it too", def.name));
    }
    if def.ty == registry::OptionType::Special && !def.choices.is_empty() {
        if let Some(text) = v {
            let head = text.split(':').next().unwrap_or(text).trim();
            let external = def.name == "ioengine" && head == "external";
            if !external && !def.choices.contains(&head) {
                return Err(err(JobErrorKind::BadValue {
                    name: def.name.to_string(),
                    value: text.to_string(),
                    expected: format!("one of: {}", def.choices.join(", ")),
                }));
            }
        }
    }
    let typed = match value::typed(def, v, kb) {
        Ok(t) => t,
        // A choice that no setter parses (an iolab extension read through a typed accessor)
        // must still be one of the registry's choices.
        Err(k) if !def.choices.is_empty() && def.set.is_none() => return Err(err(k)),
        // A number with no setter of its own: the registry type is its only grammar (a typed
        // accessor reads it), so a value it refuses is an error, not text the accessor would
        // read as the default (`log_hist_msec=nan` ran silently).
        Err(k) if def.set.is_none() && v.is_some() && is_number(def.ty) => return Err(err(k)),
        // A flag is 0/1, true/false or a number whatever reads it (`disk_util=maybe` and
        // `refill_buffers=nan` were kept as text: `parse` accepted them, `run` refused one
        // and read the other as off).
        Err(k) if def.ty == registry::OptionType::Bool => return Err(err(k)),
        // apply accepted it with its own grammar; keep the text
        Err(_) if def.status == Status::Supported => {
            OptionValue::Str(v.unwrap_or_default().to_string())
        }
        Err(k) => return Err(err(k)),
    };
    check_bounds(def, &typed).map_err(err)?;
    override_warnings(job, def.name, e, &mut msgs);
    job.options.insert(
        def.name.to_string(),
        ResolvedOption {
            value: typed,
            raw: e.raw.clone(),
            origin: origin(&e.location, section),
            seq: job.next_seq(),
        },
    );
    msgs.dedup();
    let loc = e.location.to_string();
    warnings.extend(msgs.into_iter().map(|message| Warning::new(loc.clone(), message)));
    Ok(())
}

fn is_number(ty: registry::OptionType) -> bool {
    use registry::OptionType as T;
    matches!(ty, T::Int | T::Float | T::Size | T::Time { .. })
}

/// What fio does silently and a user would want to know: a command-line option replaced by
/// the job file, and a Windows drive letter (`F:fiofile`) that fio on Linux splits into two
/// files at the ':'.
fn override_warnings(job: &Job, name: &str, e: &RawEntry, msgs: &mut Vec<String>) {
    if let Some(prev) = job.options.get(name) {
        let from_cmdline = matches!(prev.origin, Origin::CommandLine { .. });
        if from_cmdline && matches!(e.location, Location::File { .. }) && prev.raw != e.raw {
            msgs.push(format!(
                "{name}={} from the job file overrides {name}={} given on the command line \
                 (fio does this silently)",
                quote_short(&e.raw),
                quote_short(&prev.raw)
            ));
        }
    }
    if name == "filename" && cfg!(unix) {
        // Only the first name, an upper-case letter as Windows writes drives (`F:`); a
        // rooted second name (`D:\x`) is apply.rs's warning (fio #1912).
        if let Some((letter, rest)) = e.raw.trim().split_once(':') {
            let drive = letter.len() == 1 && letter.chars().all(|c| c.is_ascii_uppercase());
            let second = rest.split(':').next().unwrap_or("");
            if drive && !second.is_empty() && !second.starts_with(['\\', '/']) {
                msgs.push(format!(
                    "filename={}: '{letter}:' looks like a drive letter, but ':' separates \
                     files, so this names '{letter}' and '{}' as two files; write \
                     '{letter}\\:' for one file",
                    quote_short(&e.raw),
                    quote_short(second)
                ));
            }
        }
    }
}

/// At most ~100 characters of a value, for messages.
fn quote_short(v: &str) -> String {
    if v.chars().count() > 100 {
        format!("{}…", v.chars().take(100).collect::<String>())
    } else {
        v.to_string()
    }
}

/// fio's `.prio` (the registry entry's `prio`): within one job-file section fio sorts the
/// options before parsing them (options.c `fio_options_parse` → parse.c `sort_options`), so
/// `kb_base`, `unit_base`, `lockfile` and `cpus_allowed_policy` (prio 1) act first and
/// `filename`/`filename_format` (prio -1) last. Command-line options are parsed one by one as written, unsorted.
fn prio(key: &str) -> i8 {
    registry::lookup(key).map_or(0, |d| d.prio)
}

/// The section's entries in the order fio parses them (a stable sort by descending prio for
/// job-file sections; command-line sections as given).
fn by_prio(s: &RawSection) -> Vec<RawEntry> {
    let mut v = s.entries.clone();
    if matches!(s.location, Location::File { .. }) {
        v.sort_by_key(|e| -prio(&e.key));
    }
    v
}

/// fio's `.minval` / `.maxval` on numeric values (each element of a per-direction list).
fn check_bounds(def: &registry::OptionDef, v: &OptionValue) -> Result<(), JobErrorKind> {
    if def.min.is_none() && def.max.is_none() {
        return Ok(());
    }
    let n = match v {
        OptionValue::Int(i) => *i,
        OptionValue::Size(s) => i64::try_from(*s).unwrap_or(i64::MAX),
        OptionValue::List(l) => return l.iter().try_for_each(|e| check_bounds(def, e)),
        _ => return Ok(()),
    };
    if def.min.is_some_and(|m| n < m) || def.max.is_some_and(|m| n > m) {
        return Err(JobErrorKind::OutOfRange {
            name: def.name.to_string(),
            value: n,
            min: def.min,
            max: def.max,
        });
    }
    Ok(())
}

/// The `KiB` trap for size options without a typed field (the typed ones warn in `apply`).
fn size_suffix_warnings(
    def: &registry::OptionDef,
    v: Option<&str>,
    kb: iolab_core::units::KbBase,
    msgs: &mut Vec<String>,
) {
    use registry::OptionType as T;
    let (Some(v), true) =
        (v, matches!(def.ty, T::Size | T::SizeOrPercent | T::SizeList | T::Range | T::Int))
    else {
        return;
    };
    if matches!(def.ty, T::Size | T::SizeOrPercent) {
        crate::value::fio_head(def.name, v, msgs);
    }
    for part in v.split([',', '/', ':']) {
        for p in part
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '-')
            .map_or(vec![part], |(i, _)| vec![&part[..i], &part[i + 1..]])
        {
            if let Some(w) = iolab_core::units::suffix_warning(p, kb) {
                msgs.push(format!("{}: {w}", def.name));
            }
        }
    }
}

/// Resolve all units into jobs, in order. `filter` keeps only the named job sections.
pub fn resolve(
    units: Vec<Unit>,
    filter: &[String],
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Job>, JobError> {
    if filter.is_empty() {
        check_section_count(&units)?;
    }
    let mut jobs: Vec<Job> = Vec::new();
    let mut defaults = Job::with_defaults("global");
    let mut seen_sections: Vec<String> = Vec::new();
    for unit in units {
        if unit.reset_defaults {
            defaults = Job::with_defaults("global");
        }
        let mut stonewall_pending = unit.implicit_stonewall;
        for s in &unit.sections {
            if s.is_global() {
                for e in &by_prio(s) {
                    apply_entry(&mut defaults, e, &s.name, warnings)?;
                }
                continue;
            }
            seen_sections.push(s.name.clone());
            if !filter.is_empty() && !filter.contains(&s.name) {
                continue;
            }
            let mut job = defaults.clone();
            job.name = s.name.clone();
            job.section = s.name.clone();
            job.file_index = unit.file_index;
            let mut job_warnings = Vec::new();
            for e in &by_prio(s) {
                apply_entry(&mut job, e, &s.name, &mut job_warnings)?;
            }
            if stonewall_pending {
                job.stonewall = true;
                stonewall_pending = false;
            }
            let fixups = crate::fixup::fio_fixups(&mut job);
            let mut msgs = Vec::new();
            apply::finish(&mut job, &mut msgs);
            engine_option_check(&job, &mut msgs);
            crate::check::runnable(&job).map_err(|k| JobError::new(s.location.clone(), k))?;
            let loc = s.location.to_string();
            warnings.extend(job_warnings);
            // fio's own warnings keep fio's text (`--warnings-fatal` makes them fatal).
            warnings.extend(fixups.into_iter().map(|message| Warning {
                location: loc.clone(),
                message,
                fio: true,
            }));
            warnings.extend(msgs.into_iter().map(|message| {
                Warning::new(loc.clone(), format!("job '{}': {message}", job.name))
            }));
            jobs.push(job);
        }
    }
    for f in filter {
        if !seen_sections.contains(f) {
            return Err(JobError::new(
                Location::CommandLine { index: 0 },
                JobErrorKind::NoSuchSection {
                    name: f.clone(),
                    available: seen_sections.join(", "),
                },
            ));
        }
    }
    check_job_count(&jobs)?;
    assign_groups(&mut jobs);
    check_wait_for(&jobs)?;
    Ok(jobs)
}

/// An engine option set on a job whose engine does not define it has no effect.
fn engine_option_check(job: &Job, msgs: &mut Vec<String>) {
    for name in job.options.keys() {
        if let Some(def) = registry::lookup(name) {
            if !def.engine.is_empty() && !def.engine.contains(&job.ioengine.as_str()) {
                msgs.push(format!(
                    "option '{name}' belongs to ioengine {} but this job uses ioengine={}; it has \
                     no effect",
                    def.engine.join("/"),
                    job.ioengine
                ));
            }
        }
    }
}

/// fio's job table has `REAL_MAX_JOBS` (4096) slots; `add_job` fails with "maximum number of
/// jobs reached" before any job starts. Checked here, before threads are spawned.
pub const MAX_JOBS: u32 = 4096;

/// Every job section is at least one job: past `MAX_JOBS` sections the run is refused before
/// any section is resolved (100,000 sections would otherwise be resolved, a few KB each, only
/// to be refused by [`check_job_count`]).
pub fn check_section_count(units: &[Unit]) -> Result<(), JobError> {
    let mut sections = units.iter().flat_map(|u| u.sections.iter()).filter(|s| !s.is_global());
    match sections.nth(MAX_JOBS as usize) {
        None => Ok(()),
        Some(s) => {
            let total = MAX_JOBS as u64 + 1 + sections.count() as u64;
            Err(JobError::new(
                s.location.clone(),
                JobErrorKind::TooManyJobs { total, max: MAX_JOBS },
            ))
        }
    }
}

fn check_job_count(jobs: &[Job]) -> Result<(), JobError> {
    let mut total = 0u64;
    for j in jobs {
        total += u64::from(j.numjobs.max(1));
        if total > u64::from(MAX_JOBS) {
            let location = j
                .options
                .get("numjobs")
                .and_then(|o| origin_location(&o.origin))
                .unwrap_or(Location::CommandLine { index: 0 });
            let total = jobs.iter().map(|j| u64::from(j.numjobs.max(1))).sum();
            return Err(JobError::new(
                location,
                JobErrorKind::TooManyJobs { total, max: MAX_JOBS },
            ));
        }
    }
    Ok(())
}

/// fio `add_job`: a new group id at each stonewall/new_group after at least one job.
fn assign_groups(jobs: &mut [Job]) {
    let mut group = 0u32;
    let mut prev_group_jobs = 0u32;
    for j in jobs.iter_mut() {
        if (j.stonewall || j.new_group) && prev_group_jobs > 0 {
            prev_group_jobs = 0;
            group += 1;
        }
        j.group_id = group;
        prev_group_jobs += 1;
    }
}

fn check_wait_for(jobs: &[Job]) -> Result<(), JobError> {
    for (i, j) in jobs.iter().enumerate() {
        let Some(target) = &j.wait_for else { continue };
        let loc = j
            .options
            .get("wait_for")
            .and_then(|o| origin_location(&o.origin))
            .unwrap_or(Location::CommandLine { index: 0 });
        let count = jobs[..i].iter().filter(|e| &e.name == target).count();
        match count {
            0 => {
                return Err(JobError::new(
                    loc,
                    JobErrorKind::WaitForUnknown { target: target.clone() },
                ))
            }
            1 => {}
            n => {
                return Err(JobError::new(
                    loc,
                    JobErrorKind::WaitForAmbiguous { target: target.clone(), count: n },
                ))
            }
        }
    }
    Ok(())
}
