//! `iolab run [JOB…] [--name=value…] [--output-format=normal|json|json+|jsonl|csv]
//! [--output FILE] [--status-interval N] [--allow-destroy] [--prefill] [--cache-size SIZE]`:
//! real I/O, then the device view and the advice (crate `iolab-advice`).
//!
//! Job files and a pasted fio command line are read by `iolab-job` (fio's precedence: options
//! before the first `--name` are global, a job file's `[global]` overrides them), run by
//! `iolab-engine`, rendered by `iolab-report` and written atomically. Diagnostics go to
//! stderr so stdout stays valid JSON (fio #731). Ctrl-C stops every worker; the result is
//! still written, marked interrupted.
//!
//! With no job at all, a built-in quick profile runs on a temporary file in the current
//! directory (`--size`, default 256m; `--directory`): sequential 1 MiB reads and writes at
//! QD8, random 4 KiB reads and writes at QD32 and QD1, about 3.5 s each, and prints one table.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use iolab_engine::runner::{clone_files, run_jobs, Progress, ReadProbe, RunOptions};
use iolab_job::LoadOptions;
use iolab_stats::RunResult;

mod logs;
mod predict;
mod quick;

#[derive(clap::Args)]
pub struct Args {
    /// Job files and fio-style options (`--name=x --rw=randread --bs=4k`), plus iolab's own
    /// flags: --output-format=normal|json|json+|jsonl|csv|html, --output=FILE,
    /// --status-interval=SECONDS, --allow-destroy, --prefill, --cache-size=SIZE (a cache in
    /// front of the media, for the advice), --write-iolog=FILE (the request stream as a fio
    /// iolog v3, written before the run). No job: the quick profile
    /// (`--size=256m`, `--directory=DIR`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

/// iolab's own flags; fio's global flags (`--output`, `--output-format`, `--status-interval`,
/// …) come from `iolab_job::cmdline::FIO_FLAGS` and are read by `super::fio::globals`.
const OWN_FLAGS: &[&str] =
    &["allow-destroy", "prefill", "phase-time=", "cache-size=", "write-iolog=", "predict"];

/// Who is speaking: iolab (advice, notes and progress on stderr) or fio (fio's output only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Personality {
    Iolab,
    Fio { argv0: String },
}

struct Flags {
    /// fio's global flags.
    g: super::fio::Globals,
    format: String,
    output: Option<std::path::PathBuf>,
    status_interval: Option<Duration>,
    allow_destroy: bool,
    prefill: bool,
    /// Quick profile only: measured seconds per phase.
    phase_time: Option<f64>,
    /// `--cache-size=SIZE`: a cache in front of the media (controller, array, SLC), for the
    /// advice that compares it with the working set.
    cache_size: Option<u64>,
    /// `--write-iolog=FILE`: the jobs' request streams as a fio iolog v3, written before the run.
    write_iolog: Option<std::path::PathBuf>,
    /// `--predict[=PROFILE.toml]`: also predict the jobs on a device profile.
    predict: Option<String>,
}

fn own_flags(other: &[String], g: super::fio::Globals) -> anyhow::Result<Flags> {
    let mut f = Flags {
        format: g.ordered_formats().join(","),
        output: g.output.clone(),
        status_interval: g.status_interval,
        g,
        allow_destroy: false,
        prefill: false,
        phase_time: None,
        cache_size: None,
        write_iolog: None,
        predict: None,
    };
    let mut it = other.iter();
    while let Some(a) = it.next() {
        let body = a.trim_start_matches('-');
        let (k, v) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = || -> anyhow::Result<String> {
            match &v {
                Some(v) => Ok(v.clone()),
                None => it.next().cloned().with_context(|| format!("--{k} needs a value")),
            }
        };
        match k {
            "write-iolog" => f.write_iolog = Some(value()?.into()),
            "allow-destroy" => f.allow_destroy = true,
            "predict" => f.predict = Some(v.clone().unwrap_or_default()),
            "prefill" => f.prefill = true,
            "cache-size" => {
                let v = value()?;
                let b = iolab_core::units::parse_size(&v, iolab_core::units::KbBase::K1024)
                    .with_context(|| format!("--cache-size={v}: expected a size, e.g. 4g"))?;
                f.cache_size = Some(b);
            }
            "phase-time" => {
                let s = value()?;
                let secs: f64 =
                    s.trim_end_matches('s').parse().ok().filter(|v: &f64| *v > 0.0).with_context(
                        || format!("--phase-time={s}: expected seconds > 0, e.g. 3"),
                    )?;
                f.phase_time = Some(secs);
            }
            _ => bail!("unknown flag '{a}'"),
        }
    }
    for fmt in f.format.split(',').filter(|&f| f != "html") {
        f.g.exporter(fmt)?;
    }
    Ok(f)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    run_args(&args.rest, Personality::Iolab)
}

/// `iolab run` with `rest` as its arguments, speaking as `who`.
pub fn run_args(rest: &[String], who: Personality) -> anyhow::Result<ExitCode> {
    let fio = matches!(who, Personality::Fio { .. });
    let split = iolab_job::split_fio_args(rest, if fio { &[] } else { OWN_FLAGS });
    if let (true, Some(a)) = (fio, split.other.first()) {
        bail!("fio: unrecognized option '{a}'");
    }
    let g = super::fio::globals(&split.flags)?;
    if let Some(a) = &g.action {
        let argv0 = match &who {
            Personality::Fio { argv0 } => argv0.as_str(),
            Personality::Iolab => "iolab run",
        };
        print!("{}", super::fio::action_text(a, argv0)?);
        return Ok(ExitCode::SUCCESS);
    }
    if g.showcmd {
        print!("{}", super::fio::showcmd(&split.job_files)?);
        return Ok(ExitCode::SUCCESS);
    }
    if fio {
        unrecognized_options(&split.fio_options)?;
    }
    let flags = own_flags(&split.other, g)?;
    let has_job = !split.job_files.is_empty()
        || split.fio_options.iter().any(|o| o.starts_with("--name=") || o == "--name");
    if !has_job && fio {
        // fio with no job: its usage, exit 1 ("No job(s) defined").
        print!("{}", super::fio::usage("fio"));
        return Ok(ExitCode::from(1));
    }
    if !has_job && flags.predict.is_some() {
        bail!("--predict needs a job (job file or --name=…), not the quick profile");
    }
    if !has_job {
        if flags.write_iolog.is_some() {
            bail!("--write-iolog needs a job (job file or --name=…), not the quick profile");
        }
        if let Some(p) = &flags.output {
            iolab_report::output::check(p, &[])?;
        }
        return quick::run_quick(&split.fio_options, &flags_to_quick(&flags));
    }
    if flags.phase_time.is_some() {
        bail!("--phase-time applies to the quick profile (no job); use --runtime= in a job");
    }
    if flags.prefill && flags.allow_destroy {
        eprintln!(
            "iolab: --prefill with --allow-destroy: block devices will be written before reads"
        );
    }
    let opts = LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let parsed = iolab_job::load(&opts)?;
    for w in &parsed.warnings {
        if !fio || flags.g.warnings_fatal {
            eprintln!("iolab: {w}");
        }
    }
    if flags.g.warnings_fatal && !parsed.warnings.is_empty() {
        bail!("--warnings-fatal: {} job warning(s)", parsed.warnings.len());
    }
    if flags.g.readonly {
        if let Some(j) = parsed.jobs.iter().find(|j| j.rw.has_write() || j.rw.has_trim()) {
            bail!("fio: job <{}> has write or trim bit set, but fio is in read-only mode", j.name);
        }
    }
    let profile = flags.predict.as_deref().map(predict::load).transpose()?;
    if flags.g.parse_only {
        return Ok(ExitCode::SUCCESS);
    }
    // Nor the file a job reads or writes (fio's filename=): checked before any I/O.
    let targets: Vec<std::path::PathBuf> = parsed.jobs.iter().flat_map(job_paths).collect();
    let mut inputs: Vec<&Path> = opts.files.iter().map(|p| p.as_path()).collect();
    inputs.extend(targets.iter().map(|p| p.as_path()));
    for p in flags.output.iter().chain(&flags.write_iolog) {
        iolab_report::output::check(p, &inputs)?;
    }
    if let Some(p) = &flags.write_iolog {
        super::iolog_export::export(p, &parsed.jobs, super::iolog_export::Sizes::Existing)?;
    }
    // The device view and the advice evidence (crate iolab-advice): targets resolved to their
    // devices, /proc/diskstats sampled every interval, read completions sampled for zeros.
    let watch = iolab_advice::RunWatch::start(
        &parsed.jobs,
        parsed.jobs.iter().map(job_paths).collect(),
        iolab_advice::WatchConfig {
            interval: flags.status_interval.unwrap_or(Duration::from_secs(1)),
            prefill: flags.prefill,
            declared_cache_bytes: flags.cache_size,
            ..Default::default()
        },
    );
    let probes: Vec<_> = (0..parsed.jobs.len()).filter_map(|i| watch.zero_probe(i)).collect();
    let run_opts = RunOptions {
        allow_destroy: flags.allow_destroy,
        prefill: flags.prefill,
        read_probe: Some(ReadProbe {
            every: watch.zero_sample_every(),
            observe: Arc::new(move |job, buf| {
                if let Some(p) = probes.get(job) {
                    p.observe(buf);
                }
            }),
        }),
        ..RunOptions::default()
    };
    let progress = match flags.g.eta {
        super::fio::Eta::Never => Show::Off,
        super::fio::Eta::Always => Show::Every(
            flags.status_interval.or(flags.g.eta_interval).unwrap_or(Duration::from_secs(1)),
        ),
        super::fio::Eta::Auto if fio => match flags.status_interval {
            Some(t) => Show::Every(t),
            None => Show::Off,
        },
        super::fio::Eta::Auto => Show::Auto(flags.status_interval.or(flags.g.eta_interval)),
    };
    let (mut result, interrupted) =
        run_shown(&parsed.jobs, &run_opts, progress, Some(watch.live_devices()))?;
    let watched = watch.finish(&mut result);
    result.disk_series = watched.series.devices.clone();
    for n in watched.notes.iter().filter(|_| !fio) {
        eprintln!("iolab: {n}");
    }
    result.meta.command_line = std::env::args().collect();
    result.global_options = global_options(&parsed.jobs, &opts.cmdline);
    own_options(&mut result);
    result.meta.interrupted = interrupted;
    result.meta.start_unix_ms = start_unix_ms(&result);
    result.warnings.extend(parsed.warnings.iter().map(|w| w.to_string()));
    if !fio {
        for n in &result.notes {
            eprintln!("iolab: {n}");
        }
        for n in iolab_report::export::text::job_notes(&result) {
            eprintln!("iolab: {n}");
        }
    }
    let predicted = match &profile {
        Some(p) => Some((predict::predict(&parsed.jobs, p)?, p)),
        None => None,
    };
    let mut out = Vec::new();
    if fio && flags.format.split(',').any(|f| f == "normal") {
        out.extend(super::fio::normal_header(&parsed.jobs).as_bytes());
    }
    for fmt in flags.format.split(',') {
        if fmt == "html" {
            out.extend(super::report::run_page(&result)?);
            continue;
        }
        if fio && fmt == "normal" {
            // stat.c __show_run_stats starts the normal output with a blank line.
            out.push(b'\n');
        }
        let doc = flags.g.exporter(fmt)?.render(&result)?;
        match (&predicted, fmt.starts_with("json") && fmt != "jsonl") {
            (Some((pr, p)), true) => {
                let mut v: serde_json::Value = serde_json::from_slice(&doc)?;
                let pdoc: serde_json::Value =
                    serde_json::from_slice(&flags.g.exporter(fmt)?.render(pr)?)?;
                let rows = predict::rows(&result, pr);
                if let Some(o) = v.as_object_mut() {
                    o.insert("iolab_predict".into(), predict::json(&rows, p, pdoc));
                }
                out.extend(serde_json::to_vec_pretty(&v)?);
                out.push(b'\n');
            }
            _ => out.extend(doc),
        }
        if let (Some((pr, p)), "normal") = (&predicted, fmt) {
            out.extend(predict::text(&predict::rows(&result, pr), p).as_bytes());
        }
        if fmt == "normal" && !fio {
            // After the summary: the depth issued beside what each device saw, then advice.
            let view = iolab_advice::render_device_view(&result, &watched.evidence);
            out.extend(format!("\n{view}").as_bytes());
            out.extend(iolab_advice::render_text(&watched.advice).as_bytes());
        }
    }
    if !fio && !flags.format.split(',').any(|f| f == "normal") {
        // Machine formats carry the advice in the result; a person still sees it on stderr.
        eprint!("{}", iolab_advice::render_text(&watched.advice));
    }
    match &flags.output {
        Some(p) => iolab_report::write_atomic(p, &out)?,
        None => {
            let mut s = std::io::stdout().lock();
            s.write_all(&out).context("writing results to stdout")?;
            s.flush().context("writing results to stdout")?;
        }
    }
    for j in &result.jobs {
        if let Some(f) = j.verify.as_ref().and_then(|v| v.failures.first()) {
            let who = if fio { "fio" } else { "iolab" };
            eprintln!("{who}: job {}: {}: {}", j.name, f.file, f.message);
        }
    }
    // A verify failure is a failed run, as in fio (exit status 1 after "verify: bad magic").
    let failed = result
        .jobs
        .iter()
        .any(|j| j.error != 0 || j.verify.as_ref().is_some_and(|v| v.failed() > 0));
    Ok(if interrupted {
        eprintln!("iolab: interrupted; the results cover the time until the signal");
        ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// fio's "unrecognized option" for a `--key` that is neither a job option nor a flag
/// (init.c `parse_cmd_line`, `case '?'`, with `show_closest_option`).
fn unrecognized_options(cmdline: &[String]) -> anyhow::Result<()> {
    for a in cmdline {
        let key = a.trim_start_matches('-');
        let key = key.split_once('=').map_or(key, |(k, _)| k);
        if key != "name" && iolab_job::registry::lookup(key).is_none() {
            match iolab_job::registry::nearest(key) {
                Some(n) => bail!("fio: unrecognized option '{a}'\nDid you mean {n}?"),
                None => bail!("fio: unrecognized option '{a}'"),
            }
        }
    }
    Ok(())
}

/// fio's `global options`: what the job files' `[global]` sections and the command line
/// before the first `--name` set, as written.
fn global_options(
    jobs: &[iolab_job::Job],
    cmdline: &[String],
) -> std::collections::BTreeMap<String, String> {
    use iolab_job::Origin;
    let first_name = cmdline.iter().position(|a| a.starts_with("--name")).unwrap_or(usize::MAX);
    let mut out = std::collections::BTreeMap::new();
    for j in jobs {
        for (k, o) in &j.options {
            let global = match &o.origin {
                Origin::File { section, .. } => section.starts_with("global"),
                Origin::CommandLine { index } => (*index as usize) < first_name,
                Origin::Default => false,
            };
            if global {
                out.entry(k.clone()).or_insert_with(|| o.raw.clone());
            }
        }
    }
    out
}

/// fio's `job options`: the section's own options, without what the global section set
/// (an option is kept when its value differs from the global one, so the exporters' lookup
/// "job, then global" still finds each job's value).
fn own_options(result: &mut RunResult) {
    let globals = result.global_options.clone();
    for j in &mut result.jobs {
        j.options.retain(|k, v| globals.get(k) != Some(v));
    }
}

/// Every `ss_interval`, sum each steady-state job's live counters over its clones and feed its
/// tracker; when the criterion holds, stop that job's clones (and only those).
fn steady_loop(
    p: &Progress,
    done: &AtomicBool,
    mut trackers: Vec<(String, iolab_advice::SsTracker)>,
) -> Vec<(String, iolab_advice::SsTracker)> {
    let mut due: Vec<Option<std::time::Instant>> = vec![None; trackers.len()];
    let mut over = vec![false; trackers.len()];
    while !done.load(Ordering::SeqCst) && over.iter().any(|o| !o) {
        std::thread::sleep(Duration::from_millis(20));
        let Ok(clones) = p.clones.lock() else { break };
        for (k, (name, t)) in trackers.iter_mut().enumerate() {
            let mine: Vec<_> = clones.iter().filter(|c| &c.job == name).collect();
            let Some(started) = mine.iter().map(|c| c.started).min() else { continue };
            if over[k] {
                continue;
            }
            let interval = Duration::from(t.spec.interval);
            let now = std::time::Instant::now();
            let next = due[k].get_or_insert(started + interval);
            if now < *next {
                continue;
            }
            *next += interval;
            let mut sum = iolab_stats::LiveSnapshot::default();
            for c in &mine {
                if let Some(l) = c.live.lock().ok().and_then(|g| g.clone()) {
                    let s = l.snapshot();
                    for d in 0..4 {
                        sum.ios[d] += s.ios[d];
                        sum.bytes[d] += s.bytes[d];
                        sum.clat_sum_ns[d] += s.clat_sum_ns[d];
                    }
                }
            }
            if t.observe(iolab_core::Nanos::from(now - started), &sum) {
                mine.iter().for_each(|c| c.stop.store(true, Ordering::SeqCst));
                over[k] = true;
            } else if mine.iter().all(|c| c.done.load(Ordering::Relaxed)) {
                over[k] = true;
            }
        }
    }
    trackers
}

/// Every file a job's clones will use, each once.
pub(crate) fn job_paths(job: &iolab_job::Job) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for c in 0..job.numjobs.max(1) {
        for p in clone_files(job, c) {
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    v
}

fn flags_to_quick(f: &Flags) -> quick::QuickFlags {
    quick::QuickFlags {
        format: f.format.clone(),
        output: f.output.clone(),
        status_interval: f.status_interval,
        phase_time: f.phase_time.unwrap_or(3.0),
    }
}

fn start_unix_ms(_r: &RunResult) -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// When the live progress line shows (fio's `--eta`, `--eta-interval`, `--status-interval`).
#[derive(Clone, Copy, Debug)]
pub enum Show {
    /// On a terminal, or every interval when one is given.
    Auto(Option<Duration>),
    /// Every interval, terminal or not.
    Every(Duration),
    Off,
}

/// Run jobs with Ctrl-C handling and the live progress line; returns the result and whether
/// it was interrupted.
pub fn run_with_progress(
    jobs: &[iolab_job::Job],
    opts: &RunOptions,
    status_interval: Option<Duration>,
    devices: Option<Arc<std::sync::Mutex<Vec<iolab_stats::DiskUtil>>>>,
) -> anyhow::Result<(RunResult, bool)> {
    run_shown(jobs, opts, Show::Auto(status_interval), devices)
}

/// [`run_with_progress`] with the progress line as `show` says.
pub fn run_shown(
    jobs: &[iolab_job::Job],
    opts: &RunOptions,
    show: Show,
    devices: Option<Arc<std::sync::Mutex<Vec<iolab_stats::DiskUtil>>>>,
) -> anyhow::Result<(RunResult, bool)> {
    let (status_interval, show) = match show {
        Show::Auto(t) => (t, std::io::stderr().is_terminal() || t.is_some()),
        Show::Every(t) => (Some(t), true),
        Show::Off => (None, false),
    };
    let stop = Arc::new(AtomicBool::new(false));
    // SIGINT, SIGTERM and SIGHUP (crate::signals) stop every worker through this flag.
    let bridge = crate::signals::bridge(stop.clone());
    let progress = Arc::new(Progress::default());
    let done = Arc::new(AtomicBool::new(false));
    let ticker = show.then(|| {
        let progress = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            quick::progress_loop(&progress, &done, status_interval, devices.as_deref())
        })
    });
    // fio's steadystate: a monitor ends a job once its criterion holds over ss_dur.
    let mut trackers = Vec::new();
    for j in jobs {
        if let Some(spec) = iolab_advice::SsSpec::from_job(j)
            .with_context(|| format!("job {}: steadystate", j.name))?
        {
            trackers.push((j.name.clone(), iolab_advice::SsTracker::new(spec)));
        }
    }
    let ss_thread = (!trackers.is_empty()).then(|| {
        let progress = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || steady_loop(&progress, &done, trackers))
    });
    let r = run_jobs(jobs, opts, stop, Some(progress));
    drop(bridge);
    done.store(true, Ordering::SeqCst);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    let trackers = ss_thread.and_then(|t| t.join().ok()).unwrap_or_default();
    let interrupted = iolab_core::stop::requested();
    let out = match r {
        // Stopped before any result existed (layout, prefill): an empty result, marked.
        Err(e) if interrupted => {
            let mut result = RunResult::default();
            result.meta.iolab_version = env!("CARGO_PKG_VERSION").to_string();
            result.notes.push(format!("interrupted before the jobs ran: {e}"));
            return Ok((result, true));
        }
        r => r?,
    };
    let mut result = out.result;
    for (name, t) in &trackers {
        let Some(rep) = t.report() else {
            result.notes.push(format!(
                "job {name}: the steady-state window (ss_dur) never filled before the job ended"
            ));
            continue;
        };
        if rep.attained {
            result.notes.push(format!(
                "job {name}: steady state attained ({}, criterion {:.3}); job ended",
                rep.ss, rep.criterion
            ));
        }
        for j in result.jobs.iter_mut().filter(|j| &j.name == name) {
            j.steadystate = Some(rep.clone());
        }
    }
    for p in logs::write_logs(Path::new("."), &result, &out.logs)? {
        result.notes.push(format!("log written: {}", p.display()));
    }
    for f in &out.files {
        if out.files.iter().filter(|g| g.job == f.job && g.clone == f.clone).count() > 1 {
            result.notes.push(format!(
                "job {}.{}: {}: {} I/Os, {} bytes",
                f.job,
                f.clone,
                f.path.display(),
                f.ios,
                f.bytes
            ));
        }
    }
    Ok((result, interrupted || iolab_core::stop::requested()))
}
