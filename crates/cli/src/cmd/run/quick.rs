//! The built-in quick profile of `iolab run` (no job given) and the live progress line.
//!
//! Six phases on one temporary file in the current directory (or `--directory`), run as fio
//! jobs separated by `stonewall`: sequential 1 MiB read and write at QD8, random 4 KiB read and
//! write at QD32 and QD1; each 0.5 s ramp + 3 s measured. Like CrystalDiskMark's default set,
//! it answers "what does this device do" in about 25 s; the file is removed afterwards.
//! O_DIRECT is used where the filesystem supports it (else buffered, with a note).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use iolab_engine::runner::{Progress, RunOptions};
use iolab_job::LoadOptions;
use iolab_stats::{LatStats, RunResult};

pub struct QuickFlags {
    pub format: String,
    pub output: Option<PathBuf>,
    pub status_interval: Option<Duration>,
    /// Measured seconds per phase (`--phase-time`, default 3).
    pub phase_time: f64,
}

/// (job name, rw, bs, iodepth, label)
const PHASES: &[(&str, &str, &str, u32, &str)] = &[
    ("seq-read-1m-qd8", "read", "1m", 8, "seq read 1 MiB QD8"),
    ("seq-write-1m-qd8", "write", "1m", 8, "seq write 1 MiB QD8"),
    ("rand-read-4k-qd32", "randread", "4k", 32, "rand read 4 KiB QD32"),
    ("rand-write-4k-qd32", "randwrite", "4k", 32, "rand write 4 KiB QD32"),
    ("rand-read-4k-qd1", "randread", "4k", 1, "rand read 4 KiB QD1"),
    ("rand-write-4k-qd1", "randwrite", "4k", 1, "rand write 4 KiB QD1"),
];

/// The fio-style arguments of the profile.
pub fn profile_args(file: &Path, size: &str, direct: bool, engine: &str, secs: f64) -> Vec<String> {
    let ms = (secs * 1000.0).round().max(1.0) as u64;
    let mut a = vec![
        format!("--filename={}", file.display()),
        format!("--size={size}"),
        format!("--ioengine={engine}"),
        format!("--direct={}", direct as u8),
        "--time_based".to_string(),
        format!("--runtime={ms}ms"),
        format!("--ramp_time={}ms", (ms / 6).min(500)),
        "--norandommap".to_string(),
        "--randrepeat=0".to_string(),
    ];
    for (i, (name, rw, bs, qd, _)) in PHASES.iter().enumerate() {
        a.push(format!("--name={name}"));
        if i > 0 {
            a.push("--stonewall".to_string());
        }
        a.push(format!("--rw={rw}"));
        a.push(format!("--bs={bs}"));
        a.push(format!("--iodepth={qd}"));
        if *qd > 1 {
            a.push(format!("--iodepth_batch={}", qd / 4));
        }
    }
    a
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
    let file = dir.join(format!(".iolab-quick-{}.dat", std::process::id()));
    // Removed however the run ends: return, error, panic, or a signal (the registry).
    let _scratch = iolab_report::output::TempPath::register(file.clone());
    let direct = iolab_engine::target::direct_supported(&dir);
    let engine = if iolab_engine::engines::uring::probe().is_ok() { "io_uring" } else { "psync" };
    let mut notes = Vec::new();
    if !direct {
        notes.push(format!(
            "{}: O_DIRECT is not supported here; running buffered, so reads may come from the \
             page cache",
            dir.display()
        ));
    }
    if engine == "psync" {
        notes.push(format!(
            "io_uring is not available ({}); using psync, so every queue depth is 1",
            iolab_engine::engines::uring::probe().err().map(|e| e.to_string()).unwrap_or_default()
        ));
    }
    let opts = LoadOptions {
        files: vec![],
        cmdline: profile_args(&file, &size, direct, engine, flags.phase_time),
        sections: vec![],
    };
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
        parsed.jobs.iter().map(super::job_paths).collect(),
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
    result.meta.command_line = std::env::args().collect();
    result.notes.extend(notes);
    for n in iolab_report::export::text::job_notes(&result) {
        eprintln!("iolab: {n}");
    }
    let advice = iolab_advice::render_brief(&watched.advice);
    let text = table(&result);
    if flags.format == "normal" {
        // The one table on stdout; what the device view found goes beside it on stderr.
        match &flags.output {
            Some(p) => iolab_report::write_atomic(p, text.as_bytes())?,
            None => print!("{text}"),
        }
        eprint!("{advice}");
    } else {
        let mut out = Vec::new();
        for fmt in flags.format.split(',') {
            if fmt == "html" {
                out.extend(crate::cmd::report::run_page(&result)?);
                continue;
            }
            out.extend(iolab_report::exporter(fmt)?.render(&result)?);
        }
        match &flags.output {
            Some(p) => iolab_report::write_atomic(p, &out)?,
            None => std::io::stdout().write_all(&out).context("writing results")?,
        }
        eprint!("{text}{advice}");
    }
    Ok(if interrupted {
        std::process::ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
    } else {
        std::process::ExitCode::SUCCESS
    })
}

fn pct(s: &LatStats, p: f64) -> Option<u64> {
    s.percentiles.iter().find(|x| (x.pct - p).abs() < 1e-9).map(|x| x.value)
}

fn fmt_ns(ns: Option<u64>) -> String {
    match ns {
        None => "-".to_string(),
        Some(n) if n < 10_000 => format!("{:.1} µs", n as f64 / 1e3),
        Some(n) if n < 10_000_000 => format!("{:.0} µs", n as f64 / 1e3),
        Some(n) => format!("{:.1} ms", n as f64 / 1e6),
    }
}

/// The one summary table: phase, IOPS, MB/s (10^6), p50 and p99 of completion latency.
pub fn table(r: &RunResult) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "{:<24} {:>10} {:>10} {:>10} {:>10}\n",
        "phase", "IOPS", "MB/s", "p50 lat", "p99 lat"
    ));
    for (name, _, _, _, label) in PHASES {
        let Some(j) = r.jobs.iter().find(|j| j.name == *name) else {
            o.push_str(&format!("{label:<24} {:>10}\n", "not run"));
            continue;
        };
        let d = if j.write.total_ios > 0 { &j.write } else { &j.read };
        let secs = d.runtime_ns.max(1) as f64 / 1e9;
        let iops = d.total_ios as f64 / secs;
        let mbs = d.io_bytes as f64 / secs / 1e6;
        o.push_str(&format!(
            "{label:<24} {iops:>10.0} {mbs:>10.1} {:>10} {:>10}\n",
            fmt_ns(pct(&d.lat, 50.0)),
            fmt_ns(pct(&d.lat, 99.0)),
        ));
    }
    for j in &r.jobs {
        if j.error != 0 {
            o.push_str(&format!(
                "{}: stopped by error {} ({})\n",
                j.name,
                j.error,
                std::io::Error::from_raw_os_error(j.error)
            ));
        }
    }
    o
}

fn human_bw(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB/s", b / 1e9)
    } else {
        format!("{:.1} MB/s", b / 1e6)
    }
}

/// ~1 Hz progress line on stderr: job, elapsed/ETA, IOPS and bandwidth per direction since the
/// previous tick. On a terminal it redraws one line; with `--status-interval` it prints one
/// line per interval.
/// The live line: per direction IOPS and bandwidth since the last line, and, where the
/// device view samples the devices under the targets, each device's queue depth (`aqu-sz`),
/// await and utilisation over its last interval, so a depth that never reaches the device
/// shows while the run goes on.
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
    let mut last_t = Instant::now();
    while !done.load(Ordering::SeqCst) {
        let step = Duration::from_millis(100);
        let mut waited = Duration::ZERO;
        while waited < period && !done.load(Ordering::SeqCst) {
            std::thread::sleep(step);
            waited += step;
            bar.tick();
        }
        let Ok(clones) = p.clones.lock() else { return };
        let mut cur = [[0u64; 2]; 2];
        let mut name = String::new();
        let mut eta = String::new();
        for c in clones.iter() {
            if c.done.load(Ordering::Relaxed) {
                continue;
            }
            if let Ok(g) = c.live.lock() {
                if let Some(l) = g.as_ref() {
                    let s = l.snapshot();
                    for (d, c) in cur.iter_mut().enumerate() {
                        c[0] += s.ios[d];
                        c[1] += s.bytes[d];
                    }
                }
            }
            name = c.job.clone();
            if let Some(exp) = c.expected {
                let total = Duration::from(exp);
                let left = total.saturating_sub(c.started.elapsed());
                let frac = 1.0 - left.as_secs_f64() / total.as_secs_f64().max(1e-9);
                eta = format!(
                    " {} ETA {:.0}s",
                    iolab_report::progress_bar(frac, 20),
                    left.as_secs_f64()
                );
            }
        }
        drop(clones);
        let dt = last_t.elapsed().as_secs_f64().max(1e-3);
        last_t = Instant::now();
        let mut parts = Vec::new();
        for (d, label) in [(0usize, "r"), (1, "w")] {
            let ios = cur[d][0].saturating_sub(last[d][0]);
            let bytes = cur[d][1].saturating_sub(last[d][1]);
            if ios > 0 {
                parts.push(format!(
                    "{label}: {:.0} IOPS {}",
                    ios as f64 / dt,
                    human_bw(bytes as f64 / dt)
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

/// One device on the live line: `vda aqu-sz 31.2 await 0.12ms util 98%`.
pub fn device_part(u: &iolab_stats::DiskUtil) -> String {
    let x = &u.iostat;
    let ops = x.r_s + x.w_s;
    let wait = if ops > 0.0 { (x.r_await * x.r_s + x.w_await * x.w_s) / ops } else { 0.0 };
    format!("{} aqu-sz {:.1} await {:.2}ms util {:.0}%", u.name, x.aqu_sz, wait, x.util)
}
