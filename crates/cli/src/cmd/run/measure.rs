//! `iolab run`'s measurement: the outputs checked against the inputs, the iolog exported,
//! then the jobs run (`iolab_run::progress`) with the device view and the advice watching
//! (`iolab_advice::RunWatch`) and fio's periodic reports rendered as they come.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use iolab_job::{LoadOptions, Parsed};
use iolab_run::finish;
use iolab_run::status::reports::{Reports, Sink};

use super::{iolog, run_shown, Flags, ReadProbe, RunOptions, RunResult, Show, Sizes};

/// What a measurement gives the renderer.
pub struct Measured {
    pub result: RunResult,
    pub watched: iolab_advice::WatchReport,
    pub interrupted: bool,
    /// `--status-interval`'s reports, when they go to `--output` (else already printed).
    pub reported: Option<Vec<u8>>,
}

/// Check the outputs against the inputs, export the iolog, then run the jobs with the device
/// view and the advice watching; the result carries its global and job options.
pub fn measure(
    opts: &LoadOptions,
    parsed: &Parsed,
    flags: &Flags,
    started: &iolab_stats::RunMeta,
) -> anyhow::Result<Measured> {
    let inputs = finish::inputs(&opts.files, &parsed.jobs);
    let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
    let job_iologs: Vec<_> = parsed.jobs.iter().filter_map(|j| j.write_iolog()).collect();
    let outputs = flags.g.output.iter().chain(&flags.own.write_iolog).map(|p| p.as_path());
    for p in outputs.chain(job_iologs.iter().map(Path::new)) {
        iolab_report::output::check(p, &inputs)?;
    }
    let mut notes = Vec::new();
    if let Some(p) = &flags.own.write_iolog {
        notes.extend(iolog::export(p, &parsed.jobs, Sizes::Existing)?);
    }
    notes.extend(iolog::export_job_options(&parsed.jobs)?);
    // fio prints nothing about the iolog it writes: in fio mode the lines go to the result's
    // notes (the JSON's iolab keys) instead of stderr.
    if !flags.fio {
        notes.iter().for_each(|n| eprintln!("iolab: {n}"));
    }
    let (mut result, interrupted, reported, watch) = watched_run(&parsed.jobs, flags, false)?;
    if flags.fio {
        result.notes.extend(notes);
    }
    let watched = watch.finish(&mut result);
    // fio's disk_util=0 (any job): no disk utilisation in the report (the watch fills it).
    if !parsed.jobs.iter().all(iolab_job::Job::disk_util) {
        result.disk_util.clear();
    }
    result.disk_series = watched.series.devices.clone();
    finish::complete(&mut result, &parsed.jobs, &opts.cmdline, started, interrupted);
    result.warnings.extend(parsed.warnings.iter().map(|w| w.to_string()));
    if !flags.fio {
        // The text on stdout carries the run's notes: on stderr only when it does not, so a
        // person reads each once. A job's notes (its failure among them) always go to stderr.
        let text_shown = flags.normal() && flags.g.output.is_none();
        let job_notes = iolab_report::export::text::job_notes(&result);
        let run_notes = result.notes.iter().filter(|_| !text_shown);
        for n in watched.notes.iter().chain(run_notes).chain(&job_notes) {
            eprintln!("iolab: {n}");
        }
    }
    Ok(Measured { result, watched, interrupted, reported })
}

/// The result, whether a stop interrupted it, the periodic reports kept for `--output`, and
/// the watch to finish.
pub type Watched = (RunResult, bool, Option<Vec<u8>>, iolab_advice::RunWatch);

/// The jobs run with the device view and the zero-read probe (`iolab_advice::RunWatch`) and
/// fio's periodic reports; the watch is returned for the caller to finish. The `quick`
/// profile's phases last seconds: the devices are sampled every 500 ms, and its scratch file
/// takes no prefill, declared cache or read probe.
pub fn watched_run(jobs: &[iolab_job::Job], flags: &Flags, quick: bool) -> anyhow::Result<Watched> {
    let status = flags.g.status_interval;
    let none = iolab_run::flags::RunFlags::default();
    let own = if quick { &none } else { &flags.own };
    let every = Duration::from_millis(if quick { 500 } else { 1000 });
    let watch = iolab_advice::RunWatch::start(
        jobs,
        jobs.iter().map(finish::job_paths).collect(),
        iolab_advice::WatchConfig {
            interval: status.unwrap_or(every),
            prefill: own.prefill,
            declared_cache_bytes: own.cache_size,
            ..Default::default()
        },
    );
    let probes: Vec<_> = (0..jobs.len()).filter_map(|i| watch.zero_probe(i)).collect();
    let observe = Arc::new(move |job: usize, buf: &[u8]| {
        if let Some(p) = probes.get(job) {
            p.observe(buf);
        }
    });
    let probe = ReadProbe { every: watch.zero_sample_every(), observe };
    let run_opts = RunOptions {
        allow_destroy: own.allow_destroy,
        readonly: flags.g.readonly,
        prefill: own.prefill,
        disks: watch.disks(),
        read_probe: (!quick).then_some(probe),
        place: flags.place,
        stop: flags.stop.clone(),
        ..RunOptions::default()
    };
    let show = Show::from_eta(flags.g.eta, flags.g.eta_interval, status, flags.fio);
    // fio's --status-interval: full periodic reports instead of the progress line.
    let reports = status.filter(|_| flags.fio).map(|t| {
        let sink = flags.g.output.as_ref().map(|_| Sink::default());
        Reports::new(jobs, t, &flags.formats, flags.g.terse_version, sink)
    });
    if let Some(r) = reports.as_ref().filter(|_| flags.normal()) {
        // fio prints the job header lines before the run, so before any periodic report.
        r.put(super::super::fio::normal_header(jobs).into_bytes());
    }
    // Some when periodic reports were made: collected for --output, else already printed.
    let sink = reports.as_ref().map(|r| r.sink.clone());
    let own_periodic = flags.periodic.lock().ok().and_then(|mut g| g.take());
    let periodic = match own_periodic {
        Some(p) => Some((iolab_run::status::Periodic::new(jobs, p.every), p.emit)),
        None => reports.map(Reports::into_periodic),
    };
    let devices = Some(watch.live_devices());
    let (result, interrupted) = run_shown(jobs, &run_opts, show, devices, periodic)?;
    let kept = |s: Sink| s.lock().map(|g| g.clone()).unwrap_or_default();
    let reported = sink.map(|s| s.map(kept).unwrap_or_default());
    Ok((result, interrupted, reported, watch))
}
