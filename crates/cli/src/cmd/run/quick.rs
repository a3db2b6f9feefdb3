//! The built-in quick profile of `iolab run` (no job given; the phases and the table are
//! `iolab_engine::quick`) and the live progress line.
//!
//! The profile runs on one temporary file in the current directory (or `--directory`), removed
//! afterwards; the device view and the brief advice go beside the table on stderr.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use iolab_engine::runner::{Progress, RunOptions};
use iolab_job::LoadOptions;

pub struct QuickFlags {
    pub format: String,
    pub output: Option<PathBuf>,
    pub status_interval: Option<Duration>,
    /// Measured seconds per phase (`--phase-time`, default 3).
    pub phase_time: f64,
}

pub fn run_quick(
    fio_options: &[String],
    flags: &QuickFlags,
) -> anyhow::Result<std::process::ExitCode> {
    let mut size = "256m".to_string();
    let mut dir = PathBuf::from(".");
    for o in fio_options {
        if let Some(v) = o.strip_prefix("--size=") {
            size = v.to_string();
        } else if let Some(v) = o.strip_prefix("--directory=") {
            dir = PathBuf::from(v);
        } else {
            bail!(
                "'{o}' without a job: define one with --name=NAME (fio style) or give a job file; \
                 the quick profile takes only --size and --directory"
            );
        }
    }
    if !dir.is_dir() {
        bail!("--directory={}: not a directory", dir.display());
    }
    let started = crate::cmd::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    let plan = iolab_engine::quick::plan(&dir, &size, flags.phase_time);
    let (file, direct, engine, notes) = (&plan.file, plan.direct, plan.engine, plan.notes);
    // Removed however the run ends: return, error, panic, or a signal (the registry).
    let _scratch = iolab_report::output::TempPath::register(file.clone());
    let opts = LoadOptions { files: vec![], cmdline: plan.args, sections: vec![] };
    let parsed = iolab_job::load(&opts).context("building the quick profile")?;
    for n in &notes {
        eprintln!("iolab: {n}");
    }
    eprintln!(
        "iolab: quick profile on {} ({size}, {engine}, {}): 6 phases of {:.1} s",
        file.display(),
        if direct { "direct" } else { "buffered" },
        flags.phase_time + (flags.phase_time / 6.0).min(0.5)
    );
    // The device view, as for any job: what each phase's depth became at the device.
    let watch = iolab_advice::RunWatch::start(
        &parsed.jobs,
        parsed.jobs.iter().map(iolab_engine::finish::job_paths).collect(),
        iolab_advice::WatchConfig {
            // Phases last a few seconds: sample often enough that each has its own window.
            interval: flags.status_interval.unwrap_or(Duration::from_millis(500)),
            ..Default::default()
        },
    );
    let (mut result, interrupted) = super::run_with_progress(
        &parsed.jobs,
        &RunOptions::default(),
        flags.status_interval,
        Some(watch.live_devices()),
    )?;
    let watched = watch.finish(&mut result);
    result.disk_series = watched.series.devices.clone();
    result.meta.interrupted = interrupted;
    result.meta.command_line = started.command_line;
    result.meta.start_unix_ms = started.start_unix_ms;
    result.notes.extend(notes);
    for n in iolab_report::export::text::job_notes(&result) {
        eprintln!("iolab: {n}");
    }
    let advice = iolab_advice::render_brief(&watched.advice);
    emit(&result, &advice, flags)?;
    Ok(if interrupted {
        std::process::ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// The table on stdout (or `--output`) with the device view's findings on stderr; in machine
/// formats the documents go out and the table and findings to stderr.
fn emit(result: &iolab_stats::RunResult, advice: &str, flags: &QuickFlags) -> anyhow::Result<()> {
    let table = iolab_engine::quick::table(result);
    if flags.format == "normal" {
        crate::cmd::emit(table.as_bytes(), flags.output.as_deref())?;
        eprint!("{advice}");
        return Ok(());
    }
    let mut out = Vec::new();
    for fmt in flags.format.split(',') {
        if fmt == "html" {
            out.extend(crate::cmd::report::run_page(result)?);
            continue;
        }
        out.extend(iolab_report::exporter(fmt)?.render(result)?);
    }
    crate::cmd::emit(&out, flags.output.as_deref())?;
    eprint!("{table}{advice}");
    Ok(())
}

fn human_bw(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB/s", b / 1e9)
    } else {
        format!("{:.1} MB/s", b / 1e6)
    }
}

/// ~1 Hz progress line on stderr: job, elapsed/ETA, per direction IOPS, bandwidth and
/// completion-latency p50/p99 since the previous line, and, where the device view samples the
/// devices under the targets, each device's queue depth (`aqu-sz`), await and utilisation over
/// its last interval, so a depth that never reaches the device shows while the run goes on. On
/// a terminal it redraws one line; with `--status-interval` it prints one line per interval.
pub fn progress_loop(
    p: &Progress,
    done: &AtomicBool,
    interval: Option<Duration>,
    devices: Option<&std::sync::Mutex<Vec<iolab_stats::DiskUtil>>>,
) {
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let period = interval.unwrap_or(Duration::from_secs(1));
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        if tty && interval.is_none() {
            indicatif::ProgressDrawTarget::stderr_with_hz(2)
        } else {
            indicatif::ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    let mut last = [[0u64; 2]; 2];
    let mut window = iolab_stats::livehist::LiveWindow::default();
    let mut last_t = Instant::now();
    while !done.load(Ordering::SeqCst) {
        let step = Duration::from_millis(100);
        let mut waited = Duration::ZERO;
        while waited < period && !done.load(Ordering::SeqCst) {
            std::thread::sleep(step);
            waited += step;
            bar.tick();
        }
        let Some((cur, name, eta)) = live_totals(p) else { return };
        let lat = live_latency(p, &mut window);
        let dt = last_t.elapsed().as_secs_f64().max(1e-3);
        last_t = Instant::now();
        let mut parts = Vec::new();
        for (d, label) in [(0usize, "r"), (1, "w")] {
            let ios = cur[d][0].saturating_sub(last[d][0]);
            let bytes = cur[d][1].saturating_sub(last[d][1]);
            if ios > 0 {
                parts.push(format!(
                    "{label}: {:.0} IOPS {}{}",
                    ios as f64 / dt,
                    human_bw(bytes as f64 / dt),
                    lat[d].map_or(String::new(), |(p50, p99)| format!(
                        " p50 {} p99 {}",
                        iolab_stats::livehist::fmt_latency(p50),
                        iolab_stats::livehist::fmt_latency(p99)
                    ))
                ));
            }
        }
        last = cur;
        if let Some(devs) = devices.and_then(|d| d.lock().ok()) {
            parts.extend(devs.iter().map(device_part));
        }
        let msg = format!("{name}{eta} {}", parts.join(", "));
        if tty && interval.is_none() {
            bar.set_message(msg);
        } else if !name.is_empty() {
            eprintln!("iolab: {msg}");
        }
    }
    bar.finish_and_clear();
}

/// The running clones' read and write (I/Os, bytes) totals, the last job's name and its ETA;
/// `None` when the progress table is poisoned.
fn live_totals(p: &Progress) -> Option<([[u64; 2]; 2], String, String)> {
    let clones = p.clones.lock().ok()?;
    let mut cur = [[0u64; 2]; 2];
    let mut name = String::new();
    let mut eta = String::new();
    for c in clones.iter().filter(|c| !c.done.load(Ordering::Relaxed)) {
        if let Some(s) = c.live.lock().ok().and_then(|g| g.as_ref().map(|l| l.snapshot())) {
            for (d, c) in cur.iter_mut().enumerate() {
                c[0] += s.ios[d];
                c[1] += s.bytes[d];
            }
        }
        name = c.job.clone();
        if let Some(exp) = c.expected {
            let total = Duration::from(exp);
            let left = total.saturating_sub(c.started.elapsed());
            let frac = 1.0 - left.as_secs_f64() / total.as_secs_f64().max(1e-9);
            let bar = iolab_report::progress_bar(frac, 20);
            eta = format!(" {bar} ETA {:.0}s", left.as_secs_f64());
        }
    }
    Some((cur, name, eta))
}

/// Read and write completion-latency p50/p99 since the previous line, from every clone's live
/// histogram (`iolab_stats::livehist`).
fn live_latency(
    p: &Progress,
    w: &mut iolab_stats::livehist::LiveWindow,
) -> [iolab_stats::livehist::LivePercentiles; 2] {
    let Ok(clones) = p.clones.lock() else { return [None, None] };
    let lives: Vec<_> = clones.iter().filter_map(|c| c.live.lock().ok()?.clone()).collect();
    drop(clones);
    w.step(lives.iter().map(|l| &**l))
}

/// One device on the live line: `vda aqu-sz 31.2 await 0.12ms util 98%`.
pub fn device_part(u: &iolab_stats::DiskUtil) -> String {
    let x = &u.iostat;
    let ops = x.r_s + x.w_s;
    let wait = if ops > 0.0 { (x.r_await * x.r_s + x.w_await * x.w_s) / ops } else { 0.0 };
    format!("{} aqu-sz {:.1} await {:.2}ms util {:.0}%", u.name, x.aqu_sz, wait, x.util)
}
