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

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use iolab_engine::finish::{global_options, job_paths, own_options};
use iolab_engine::runner::{run_jobs, Progress, ReadProbe, RunOptions};
use iolab_job::LoadOptions;
use iolab_model::device::profile::DeviceProfile;
use iolab_stats::RunResult;

mod logs;
mod predict;
mod quick;
mod status;

#[derive(clap::Args)]
#[command(after_help = HELP)]
pub struct Args {
    #[command(flatten)]
    flags: OwnFlags,
    /// Job files and fio-style options (`--name=x --rw=randread --bs=4k`) with fio's global
    /// flags (--output-format=normal|json|json+|terse|jsonl|csv|html, --output=FILE,
    /// --status-interval=SECONDS, …), in any order with the flags above. No job: the quick
    /// profile (`--size=256m`, `--directory=DIR`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JOB|--OPTION=VALUE")]
    rest: Vec<String>,
}

const HELP: &str = "\
Examples:
  iolab run --size=64m --phase-time=0.5
  iolab run --name=x --rw=randread --bs=4k --size=16m --runtime=1 --filename=iolab.dat
  iolab run --name=x --rw=write --size=8m --filename=iolab.dat --output-format=json";

/// iolab's own flags; fio's global flags (`--output`, `--output-format`, `--status-interval`,
/// …) come from `iolab_job::cmdline::FIO_FLAGS` and are read by `super::fio::globals`.
#[derive(clap::Args, Default)]
pub struct OwnFlags {
    /// Write to block devices that carry a filesystem or partition table.
    #[arg(long)]
    allow_destroy: bool,
    /// Write every job's region once before it runs (reads of never-written blocks measure
    /// nothing).
    #[arg(long)]
    prefill: bool,
    /// Quick profile only: measured seconds per phase (default 3).
    #[arg(long, value_parser = seconds)]
    phase_time: Option<f64>,
    /// A cache in front of the media (controller, array, SLC), e.g. 4g, for the advice that
    /// compares it with the working set.
    #[arg(long, value_parser = size)]
    cache_size: Option<u64>,
    /// The jobs' request streams as a fio iolog v3 (fio `read_iolog`), written before the run.
    #[arg(long)]
    write_iolog: Option<PathBuf>,
    /// Seed every job as fio 3.33 (also 3.34) or current fio (>= 3.35, the default) seeds
    /// it, to reproduce that fio's random offsets (the job option `iolab_fio_seeds`).
    #[arg(long, value_name = "3.33|current", value_parser = fio_seeds)]
    fio_seeds: Option<iolab_workload::FioSeeds>,
    /// Also predict the jobs on a device profile (`iolab calibrate`; default
    /// iolab-profile.toml) and show the prediction beside the measurement.
    #[arg(long, value_name = "PROFILE.toml", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    predict: Option<String>,
}

fn fio_seeds(s: &str) -> Result<iolab_workload::FioSeeds, String> {
    iolab_workload::FioSeeds::parse(s)
        .ok_or_else(|| format!("--fio-seeds={s}: expected 3.33 (also 3.34) or current"))
}

/// What `render` prints beside the result: `--status-interval`'s reports made during the run,
/// and `--predict`'s prediction with its profile.
struct Shown<'a> {
    reported: Option<Vec<u8>>,
    predicted: Option<&'a (RunResult, &'a DeviceProfile)>,
}

fn seconds(s: &str) -> Result<f64, String> {
    let v = s.trim_end_matches('s').parse().ok().filter(|v: &f64| *v > 0.0);
    v.ok_or_else(|| format!("--phase-time={s}: expected seconds > 0, e.g. 3"))
}

fn size(s: &str) -> Result<u64, String> {
    iolab_core::units::parse_size(s, iolab_core::units::KbBase::K1024)
        .map_err(|_| format!("--cache-size={s}: expected a size, e.g. 4g"))
}

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
    output: Option<PathBuf>,
    status_interval: Option<Duration>,
    own: OwnFlags,
}

fn flags(own: OwnFlags, g: super::fio::Globals) -> anyhow::Result<Flags> {
    let f = Flags {
        format: g.ordered_formats().join(","),
        output: g.output.clone(),
        status_interval: g.status_interval,
        g,
        own,
    };
    for fmt in f.format.split(',').filter(|&f| f != "html") {
        super::fio::exporter(&f.g, fmt)?;
    }
    Ok(f)
}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    run_args(&super::raw_args()?, Personality::Iolab)
}

/// `iolab run` with `rest` as its arguments, speaking as `who`.
pub fn run_args(rest: &[String], who: Personality) -> anyhow::Result<ExitCode> {
    let fio = matches!(who, Personality::Fio { .. });
    let (split, own) = if fio {
        (iolab_job::split_fio_args(rest, &[]), OwnFlags::default())
    } else {
        super::split_own::<OwnFlags>("run", rest)?
    };
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
    let flags = flags(own, g)?;
    // The start time is now, before the jobs are laid out (fio's `timestamp`).
    let started = super::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    let has_job = !split.job_files.is_empty()
        || split.fio_options.iter().any(|o| o.starts_with("--name=") || o == "--name");
    if !has_job && fio {
        // fio with no job: its usage, exit 1 ("No job(s) defined").
        print!("{}", super::fio::usage("fio"));
        return Ok(ExitCode::from(1));
    }
    if !has_job && flags.own.predict.is_some() {
        bail!("--predict needs a job (job file or --name=…), not the quick profile");
    }
    if !has_job {
        if flags.own.write_iolog.is_some() {
            bail!("--write-iolog needs a job (job file or --name=…), not the quick profile");
        }
        if let Some(p) = &flags.output {
            iolab_report::output::check(p, &[])?;
        }
        return quick::run_quick(&split.fio_options, &flags_to_quick(&flags));
    }
    let Some((opts, parsed, profile)) = load_jobs(split, &flags, fio)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let (result, watched, interrupted, reported) = measure(&opts, &parsed, &flags, fio, &started)?;
    let predicted = match &profile {
        Some(p) => Some((predict::predict(&parsed.jobs, p)?, p)),
        None => None,
    };
    let shown = Shown { reported, predicted: predicted.as_ref() };
    let out = render(&result, &watched, &flags, fio, &parsed.jobs, shown)?;
    super::emit(&out, flags.output.as_deref())?;
    Ok(exit_code(&result, interrupted, fio))
}

/// The jobs as loaded, and the `--predict` profile.
type Loaded = (LoadOptions, iolab_job::Parsed, Option<DeviceProfile>);

/// The jobs, read and validated, and the `--predict` profile read; `None` when
/// `--parse-only` ends the run here.
fn load_jobs(
    split: iolab_job::SplitArgs,
    flags: &Flags,
    fio: bool,
) -> anyhow::Result<Option<Loaded>> {
    if flags.own.phase_time.is_some() {
        bail!("--phase-time applies to the quick profile (no job); use --runtime= in a job");
    }
    if flags.own.prefill && flags.own.allow_destroy {
        eprintln!(
            "iolab: --prefill with --allow-destroy: block devices will be written before reads"
        );
    }
    let opts = LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let mut parsed = iolab_job::load(&opts)?;
    if let Some(gen) = flags.own.fio_seeds {
        parsed.jobs.iter_mut().for_each(|j| gen.apply_to(j));
    }
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
    let profile = flags.own.predict.as_deref().map(predict::load).transpose()?;
    if flags.g.parse_only {
        return Ok(None);
    }
    Ok(Some((opts, parsed, profile)))
}

/// Check the outputs against the inputs, export the iolog, then run the jobs with the device
/// view and the advice watching; the result carries its global and job options.
#[allow(clippy::too_many_lines)] // thin-cli splits this (issue 11); temporary
fn measure(
    opts: &LoadOptions,
    parsed: &iolab_job::Parsed,
    flags: &Flags,
    fio: bool,
    started: &iolab_stats::RunMeta,
) -> anyhow::Result<(RunResult, iolab_advice::WatchReport, bool, Option<Vec<u8>>)> {
    // Nor the file a job reads or writes (fio's filename=): checked before any I/O.
    let targets: Vec<std::path::PathBuf> = parsed.jobs.iter().flat_map(job_paths).collect();
    let mut inputs: Vec<&Path> = opts.files.iter().map(|p| p.as_path()).collect();
    inputs.extend(targets.iter().map(|p| p.as_path()));
    let job_iologs: Vec<PathBuf> =
        parsed.jobs.iter().filter_map(|j| j.write_iolog()).map(Into::into).collect();
    for p in flags.output.iter().chain(&flags.own.write_iolog).chain(&job_iologs) {
        iolab_report::output::check(p, &inputs)?;
    }
    if let Some(p) = &flags.own.write_iolog {
        super::iolog_export::export(p, &parsed.jobs, super::iolog_export::Sizes::Existing)?;
    }
    super::iolog_export::export_job_options(&parsed.jobs)?;
    // The device view and the advice evidence (crate iolab-advice): targets resolved to their
    // devices, /proc/diskstats sampled every interval, read completions sampled for zeros.
    let watch = iolab_advice::RunWatch::start(
        &parsed.jobs,
        parsed.jobs.iter().map(job_paths).collect(),
        iolab_advice::WatchConfig {
            interval: flags.status_interval.unwrap_or(Duration::from_secs(1)),
            prefill: flags.own.prefill,
            declared_cache_bytes: flags.own.cache_size,
            ..Default::default()
        },
    );
    let probes: Vec<_> = (0..parsed.jobs.len()).filter_map(|i| watch.zero_probe(i)).collect();
    let run_opts = RunOptions {
        allow_destroy: flags.own.allow_destroy,
        prefill: flags.own.prefill,
        disks: watch.disks(),
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
    // fio's --status-interval: full periodic reports instead of the progress line.
    let periodic = flags.status_interval.filter(|_| fio).map(|t| {
        let mut p = status::Reports::new(&parsed.jobs, t, &flags.format, flags.g.terse_version);
        p.sink = flags.output.as_ref().map(|_| Arc::new(std::sync::Mutex::new(Vec::new())));
        p
    });
    let normal = fio && flags.format.split(',').any(|f| f == "normal");
    if let Some(p) = periodic.as_ref().filter(|_| normal) {
        // fio prints the job header lines before the run, so before any periodic report.
        let header = super::fio::normal_header(&parsed.jobs);
        match &p.sink {
            Some(s) => s.lock().map(|mut g| g.extend(header.as_bytes())).unwrap_or(()),
            None => print!("{header}"),
        }
    }
    let progress = if periodic.is_some() && flags.g.eta != super::fio::Eta::Always {
        Show::Off
    } else {
        progress
    };
    let (mut result, interrupted) = run_reporting(
        &parsed.jobs,
        &run_opts,
        progress,
        Some(watch.live_devices()),
        periodic.clone(),
    )?;
    let watched = watch.finish(&mut result);
    result.disk_series = watched.series.devices.clone();
    for n in watched.notes.iter().filter(|_| !fio) {
        eprintln!("iolab: {n}");
    }
    result.meta.command_line = std::env::args().collect();
    result.global_options = global_options(&parsed.jobs, &opts.cmdline);
    own_options(&mut result);
    result.meta.interrupted = interrupted;
    result.meta.start_unix_ms = started.start_unix_ms;
    result.warnings.extend(parsed.warnings.iter().map(|w| w.to_string()));
    if !fio {
        for n in &result.notes {
            eprintln!("iolab: {n}");
        }
        for n in iolab_report::export::text::job_notes(&result) {
            eprintln!("iolab: {n}");
        }
    }
    // The periodic reports made (collected when they go to --output, else already printed).
    let reported =
        periodic.map(|p| p.sink.and_then(|s| s.lock().ok().map(|g| g.clone())).unwrap_or_default());
    Ok((result, watched, interrupted, reported))
}

/// The output formats in fio's order; the device view and advice after iolab's text.
fn render(
    result: &RunResult,
    watched: &iolab_advice::WatchReport,
    flags: &Flags,
    fio: bool,
    jobs: &[iolab_job::Job],
    shown: Shown<'_>,
) -> anyhow::Result<Vec<u8>> {
    let Shown { reported, predicted } = shown;
    // After --status-interval's reports the job header was written before them.
    let header = reported.is_none();
    let mut out = reported.unwrap_or_default();
    if header && fio && flags.format.split(',').any(|f| f == "normal") {
        out.extend(super::fio::normal_header(jobs).as_bytes());
    }
    for fmt in flags.format.split(',') {
        if fmt == "html" {
            out.extend(super::report::run_page(result)?);
            continue;
        }
        if fio && fmt == "normal" {
            // stat.c __show_run_stats starts the normal output with a blank line.
            out.push(b'\n');
        }
        let doc = super::fio::exporter(&flags.g, fmt)?.render(result)?;
        match (predicted, fmt.starts_with("json") && fmt != "jsonl") {
            (Some((pr, p)), true) => {
                let mut v: serde_json::Value = serde_json::from_slice(&doc)?;
                let pdoc: serde_json::Value =
                    serde_json::from_slice(&super::fio::exporter(&flags.g, fmt)?.render(pr)?)?;
                let rows = predict::rows(result, pr);
                if let Some(o) = v.as_object_mut() {
                    o.insert("iolab_predict".into(), predict::json(&rows, p, pdoc));
                }
                out.extend(serde_json::to_vec_pretty(&v)?);
                out.push(b'\n');
            }
            _ => out.extend(doc),
        }
        if let (Some((pr, p)), "normal") = (predicted, fmt) {
            out.extend(predict::text(&predict::rows(result, pr), p).as_bytes());
        }
        if fmt == "normal" && !fio {
            // After the summary: the depth issued beside what each device saw, then advice.
            let view = iolab_advice::render_device_view(result, &watched.evidence);
            out.extend(format!("\n{view}").as_bytes());
            out.extend(iolab_advice::render_text(&watched.advice).as_bytes());
        }
    }
    if !fio && !flags.format.split(',').any(|f| f == "normal") {
        // Machine formats carry the advice in the result; a person still sees it on stderr.
        eprint!("{}", iolab_advice::render_text(&watched.advice));
    }
    Ok(out)
}

/// fio's exit status: 1 after an I/O error or a verify failure, 128 + N after a signal.
fn exit_code(result: &RunResult, interrupted: bool, fio: bool) -> ExitCode {
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
    if interrupted {
        eprintln!("iolab: interrupted; the results cover the time until the signal");
        ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
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

fn flags_to_quick(f: &Flags) -> quick::QuickFlags {
    quick::QuickFlags {
        format: f.format.clone(),
        output: f.output.clone(),
        status_interval: f.status_interval,
        phase_time: f.own.phase_time.unwrap_or(3.0),
    }
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
    run_reporting(jobs, opts, show, devices, None)
}

/// [`run_shown`], plus fio's periodic full reports when `periodic` is given.
fn run_reporting(
    jobs: &[iolab_job::Job],
    opts: &RunOptions,
    show: Show,
    devices: Option<Arc<std::sync::Mutex<Vec<iolab_stats::DiskUtil>>>>,
    periodic: Option<status::Reports>,
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
    let reporter = periodic.map(|cfg| {
        let progress = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || status::status_loop(&progress, &done, &cfg))
    });
    let r = run_jobs(jobs, opts, stop, Some(progress));
    drop(bridge);
    done.store(true, Ordering::SeqCst);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    if let Some(t) = reporter {
        let _ = t.join();
    }
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
    for p in logs::write_logs(Path::new("."), &result, &out.logs)? {
        result.notes.push(format!("log written: {}", p.display()));
    }
    result.notes.extend(iolab_engine::finish::file_notes(&out.files));
    Ok((result, interrupted || iolab_core::stop::requested()))
}
