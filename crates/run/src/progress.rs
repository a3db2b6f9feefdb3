//! A run as the `iolab` binary performs it: [`crate::runner::run_jobs`] with the
//! process-wide stop read by the run's `Stop`, the live progress line on stderr (fio's ETA line,
//! eta.c), fio's `--status-interval` periodic results ([`crate::status`]) handed to the
//! caller's renderer, then fio's per-job log files ([`crate::logs`]) and the file notes.
//!
//! The live line: per direction IOPS, bandwidth and completion-latency p50/p99 since the last
//! line, and, where the device
//! view samples the devices under the targets, each device's queue depth (`aqu-sz`), await
//! and utilisation over its last interval, so a depth that never reaches the device shows
//! while the run goes on. On a terminal it redraws one line (indicatif); with an interval it
//! prints one line per interval.

use iolab_stats::livehist::{fmt_latency, LivePercentiles, LiveWindow};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use iolab_job::cmdline::globals::Eta;
use iolab_job::Job;
use iolab_stats::{DiskUtil, RunResult};

use crate::status::Periodic;
use crate::RunError as EngineError;
use iolab_engine::runner::{run_jobs, Progress, RunOptions};

/// When the live progress line shows (fio's `--eta`, `--eta-interval`, `--status-interval`).
#[derive(Clone, Copy, Debug)]
pub enum Show {
    /// On a terminal, or every interval when one is given.
    Auto(Option<Duration>),
    /// Every interval, terminal or not.
    Every(Duration),
    Off,
}

impl Show {
    /// fio's choice: `--eta=never|always|auto` with `--eta-interval` and `--status-interval`;
    /// speaking as fio, `auto` shows only with a status interval, and periodic full reports
    /// replace the line unless `--eta=always`.
    pub fn from_eta(
        eta: Eta,
        eta_interval: Option<Duration>,
        status: Option<Duration>,
        fio: bool,
    ) -> Show {
        let second = Duration::from_secs(1);
        match eta {
            Eta::Never => Show::Off,
            Eta::Always => Show::Every(status.or(eta_interval).unwrap_or(second)),
            Eta::Auto if fio => Show::Off,
            Eta::Auto => Show::Auto(status.or(eta_interval)),
        }
    }
}

/// The devices the live line shows (the device view's latest sample).
pub type LiveDevices = Arc<Mutex<Vec<DiskUtil>>>;

/// fio's periodic results and what renders each one.
pub type PeriodicSink = (Periodic, Box<dyn FnMut(&RunResult) + Send>);

/// Run `jobs` (stopped by SIGINT, SIGTERM and SIGHUP), the live line as `show` says and the periodic results
/// when given; returns the result (with the log files written and the file notes) and
/// whether a stop request interrupted it.
pub fn run_shown(
    jobs: &[Job],
    opts: &RunOptions,
    show: Show,
    devices: Option<LiveDevices>,
    periodic: Option<PeriodicSink>,
) -> Result<(RunResult, bool), EngineError> {
    let (status_interval, show) = match show {
        Show::Auto(t) => (t, std::io::stderr().is_terminal() || t.is_some()),
        Show::Every(t) => (Some(t), true),
        Show::Off => (None, false),
    };
    // SIGINT, SIGTERM and SIGHUP stop every worker: a run's `Stop` reads the request. A
    // caller's own stop (MPI's stonewall across ranks) also ends it.
    let stop = opts.stop.clone().unwrap_or_default();
    let progress = Arc::new(Progress::default());
    let done = Arc::new(AtomicBool::new(false));
    let ticker = show.then(|| {
        let (progress, done) = (progress.clone(), done.clone());
        std::thread::spawn(move || {
            progress_loop(&progress, &done, status_interval, devices.as_deref())
        })
    });
    let reporter = periodic.map(|(cfg, mut emit)| {
        let (progress, done) = (progress.clone(), done.clone());
        std::thread::spawn(move || crate::status::status_loop(&progress, &done, &cfg, &mut emit))
    });
    let r = run_jobs(jobs, opts, stop, Some(progress));
    done.store(true, Ordering::SeqCst);
    ticker.map(|t| t.join());
    reporter.map(|t| t.join());
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
    for p in crate::logs::write_logs(Path::new("."), &result, &out.logs)? {
        result.notes.push(format!("log written: {}", p.display()));
    }
    result.notes.extend(crate::finish::file_notes(&out.files));
    Ok((result, interrupted || iolab_core::stop::requested()))
}

fn human_bw(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB/s", b / 1e9)
    } else {
        format!("{:.1} MB/s", b / 1e6)
    }
}

/// The live line on stderr until `done`, every `interval` (default 1 s).
pub fn progress_loop(
    p: &Progress,
    done: &AtomicBool,
    interval: Option<Duration>,
    devices: Option<&Mutex<Vec<DiskUtil>>>,
) {
    let tty = std::io::stderr().is_terminal();
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
    let mut window = LiveWindow::default();
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
        let mut parts = rates(&cur, &last, dt, &lat);
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

/// `r: N IOPS X MB/s p50 L p99 L` per direction that moved since `last`, over `dt` seconds,
/// with the completion-latency percentiles of the same interval where there are any.
fn rates(
    cur: &[[u64; 2]; 2],
    last: &[[u64; 2]; 2],
    dt: f64,
    lat: &[LivePercentiles; 2],
) -> Vec<String> {
    let mut parts = Vec::new();
    for (d, label) in [(0usize, "r"), (1, "w")] {
        let ios = cur[d][0].saturating_sub(last[d][0]);
        let bytes = cur[d][1].saturating_sub(last[d][1]);
        if ios > 0 {
            let bw = human_bw(bytes as f64 / dt);
            let pct = lat[d].map_or(String::new(), |(p50, p99)| {
                format!(" p50 {} p99 {}", fmt_latency(p50), fmt_latency(p99))
            });
            parts.push(format!("{label}: {:.0} IOPS {bw}{pct}", ios as f64 / dt));
        }
    }
    parts
}

/// p50/p99 of each direction's completion latency since the previous line, from the
/// workers' live histograms (`iolab_stats::livehist`; each worker writes only its own).
fn live_latency(p: &Progress, w: &mut LiveWindow) -> [LivePercentiles; 2] {
    let Ok(clones) = p.clones.lock() else { return [None, None] };
    let lives: Vec<_> = clones.iter().filter_map(|c| c.live.lock().ok()?.clone()).collect();
    drop(clones);
    w.step(lives.iter().map(|l| &**l))
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

/// One device on the live line: `vda aqu-sz 31.2 await 0.12ms util 98%`.
pub fn device_part(u: &DiskUtil) -> String {
    let x = &u.iostat;
    let ops = x.r_s + x.w_s;
    let wait = if ops > 0.0 { (x.r_await * x.r_s + x.w_await * x.w_s) / ops } else { 0.0 };
    format!("{} aqu-sz {:.1} await {:.2}ms util {:.0}%", u.name, x.aqu_sz, wait, x.util)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_choices_as_fio_makes_them() {
        let (s1, s2) = (Some(Duration::from_secs(1)), Some(Duration::from_secs(2)));
        assert!(matches!(Show::from_eta(Eta::Never, s1, s2, false), Show::Off));
        // always: the status interval first, then --eta-interval, else 1 s.
        assert!(
            matches!(Show::from_eta(Eta::Always, s1, s2, true), Show::Every(t) if t == s2.unwrap())
        );
        assert!(
            matches!(Show::from_eta(Eta::Always, None, None, true), Show::Every(t) if t.as_secs() == 1)
        );
        // fio's auto: no line (periodic reports replace it); iolab's: on a terminal.
        assert!(matches!(Show::from_eta(Eta::Auto, s1, s2, true), Show::Off));
        assert!(matches!(Show::from_eta(Eta::Auto, s1, None, false), Show::Auto(t) if t == s1));
    }

    #[test]
    fn rates_per_direction_since_the_last_line() {
        let (last, cur) = ([[10, 40960], [0, 0]], [[110, 450560], [0, 0]]);
        assert_eq!(rates(&cur, &last, 2.0, &[None, None]), vec!["r: 50 IOPS 0.2 MB/s".to_string()]);
        assert!(rates(&last, &last, 1.0, &[None, None]).is_empty());
    }
}
