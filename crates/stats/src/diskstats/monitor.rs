//! [`DiskMonitor`]: the one thread that reads `/proc/diskstats` while a run goes on. Each read
//! serves both users: the runner's `disk_util` (all devices, wrap-safe [`DiskTotals`] polled
//! every 250 ms as fio diskutil.c `update_io_ticks` is) and the advice's device view (the
//! devices under the targets, one [`DiskSeriesSampler`] sample per interval, the last closed
//! interval published for the live status line).
//!
//! The watch (`iolab_advice::RunWatch`) starts it before the run and hands a [`DiskHandle`]
//! to the runner (`RunOptions::disks`); a runner given none starts its own for its
//! `disk_util`. The thread only samples: stopping workers is no business of it (a clone's
//! stop derives from its run's, `iolab_core::stop::Stop`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use iolab_core::Nanos;

use super::{read, DiskCounters, DiskTotals};
use crate::diskseries::DiskSeriesSampler;
use crate::result::DiskUtil;

/// How often the totals are polled: fio diskutil.c's 250 ms, so 32-bit counters that wrap
/// during a long run are summed interval by interval.
const POLL: Duration = Duration::from_millis(250);

/// What to sample.
#[derive(Clone, Debug)]
pub struct MonitorConfig {
    /// The diskstats file.
    pub path: PathBuf,
    /// Devices whose per-interval series is kept (kernel names); empty keeps no series.
    pub series_devices: Vec<String>,
    /// The series' interval (at least 10 ms).
    pub interval: Duration,
}

impl MonitorConfig {
    /// `/proc/diskstats`, with a series of `devices` every `interval`.
    pub fn new(series_devices: Vec<String>, interval: Duration) -> Self {
        MonitorConfig { path: "/proc/diskstats".into(), series_devices, interval }
    }

    /// `/proc/diskstats`, totals only (a run's `disk_util`).
    pub fn totals_only() -> Self {
        Self::new(Vec::new(), Duration::from_secs(1))
    }
}

/// What the sampling gathered, when the monitor is finished.
#[derive(Debug, Default)]
pub struct MonitorReport {
    /// The per-interval samples (`None` when no series was asked for).
    pub series: Option<DiskSeriesSampler>,
    /// Why part of the series could not be taken (an unreadable or malformed file).
    pub notes: Vec<String>,
}

struct State {
    totals: Option<DiskTotals>,
    series: Option<DiskSeriesSampler>,
    /// An interval sample failed: no more are taken (the note says why).
    series_failed: bool,
    notes: Vec<String>,
}

struct Shared {
    path: PathBuf,
    start: Instant,
    over: AtomicBool,
    state: Mutex<State>,
    /// The interval the series closed last, per device.
    latest: Arc<Mutex<Vec<DiskUtil>>>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // The thread never panics while holding the lock; if it did, the data stays usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now(&self) -> Nanos {
        Nanos(u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// Read the file once; add it to the totals, and to the series when `series_due`. A
    /// failed read leaves the totals as they were (the next poll covers the gap). The read
    /// happens under the lock: a sample applied after a newer one (the thread's and a
    /// `mark`'s crossing) would look like a 32-bit counter wrap and add almost 2³².
    fn sample(&self, series_due: bool) {
        let mut st = self.state();
        let st = &mut *st;
        let now = self.now();
        let got = read(&self.path, &[]);
        match got {
            Ok(cur) => {
                if series_due && !st.series_failed {
                    if let Some(s) = st.series.as_mut() {
                        let closed = s.push(now, &cur);
                        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = closed;
                    }
                }
                if let Some(t) = st.totals.as_mut() {
                    t.add(cur);
                }
            }
            Err(e) if series_due && st.series.is_some() && !st.series_failed => {
                st.notes.push(format!("device view: {e}"));
                st.series_failed = true;
            }
            Err(_) => {}
        }
    }
}

/// The sampling thread and what it keeps; dropping it ends the thread.
pub struct DiskMonitor {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// A running monitor as the runner sees it: marks and totals, no control of the thread.
#[derive(Clone)]
pub struct DiskHandle {
    shared: Arc<Shared>,
}

/// The totals at one instant (see [`DiskHandle::mark`]).
#[derive(Clone, Debug)]
pub struct DiskMark {
    at: Instant,
    sums: Vec<DiskCounters>,
}

impl std::fmt::Debug for DiskMonitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskMonitor").field("path", &self.shared.path).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for DiskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskHandle").field("path", &self.shared.path).finish_non_exhaustive()
    }
}

impl DiskMonitor {
    /// Take the first sample now and start the thread. An unreadable file is not an error
    /// here: the totals are then empty and the series notes why; only a failed thread spawn
    /// is.
    pub fn start(cfg: MonitorConfig) -> std::io::Result<DiskMonitor> {
        let first = read(&cfg.path, &[]);
        let mut state = State { totals: None, series: None, series_failed: false, notes: vec![] };
        if !cfg.series_devices.is_empty() {
            let mut s = DiskSeriesSampler::with_path(&cfg.path, cfg.series_devices);
            match &first {
                Ok(cur) => {
                    s.push(Nanos::ZERO, cur);
                }
                Err(e) => {
                    state.notes.push(format!("device view: {e}"));
                    state.series_failed = true;
                }
            }
            state.series = Some(s);
        }
        state.totals = first.ok().map(DiskTotals::new);
        let shared = Arc::new(Shared {
            path: cfg.path,
            start: Instant::now(),
            over: AtomicBool::new(false),
            state: Mutex::new(state),
            latest: Arc::default(),
        });
        let interval = cfg.interval.max(Duration::from_millis(10));
        let sh = shared.clone();
        let thread = std::thread::Builder::new()
            .name("iolab-diskstats".into())
            .spawn(move || sample_loop(&sh, interval))?;
        Ok(DiskMonitor { shared, thread: Some(thread) })
    }

    /// A handle for the runner.
    pub fn handle(&self) -> DiskHandle {
        DiskHandle { shared: self.shared.clone() }
    }

    /// The last closed interval of each series device (empty until one closes).
    pub fn latest(&self) -> Arc<Mutex<Vec<DiskUtil>>> {
        self.shared.latest.clone()
    }

    /// The time base of the series: ns since the monitor started.
    pub fn started(&self) -> Instant {
        self.shared.start
    }

    /// End the thread, take a last series sample and hand over what was gathered.
    pub fn finish(mut self) -> MonitorReport {
        self.end_thread();
        let now = self.shared.now();
        let mut st = self.shared.state();
        let mut notes = std::mem::take(&mut st.notes);
        let mut series = st.series.take();
        if let Some(s) = series.as_mut() {
            if let Err(e) = s.tick(now) {
                notes.push(format!("device view: {e}"));
            }
        }
        MonitorReport { series, notes }
    }

    fn end_thread(&mut self) {
        self.shared.over.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            // Wake it from its sleep: the run's end is not delayed until the next sample is due.
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Drop for DiskMonitor {
    fn drop(&mut self) {
        self.end_thread();
    }
}

impl DiskHandle {
    /// Sample now and keep the totals (`None` when the file could not be read at the start).
    pub fn mark(&self) -> Option<DiskMark> {
        self.shared.sample(false);
        let st = self.shared.state();
        st.totals.as_ref().map(|t| DiskMark { at: Instant::now(), sums: t.sums().to_vec() })
    }

    /// Sample now; fio's `disk_util` of each device present at the start, from `mark` to now.
    pub fn since(&self, mark: &DiskMark) -> Vec<DiskUtil> {
        let window = u64::try_from(mark.at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.shared.sample(false);
        let st = self.shared.state();
        st.totals.as_ref().map(|t| t.since(&mark.sums, window)).unwrap_or_default()
    }
}

/// Poll the totals every [`POLL`] and take a series sample every `interval` (one read when
/// both are due) until the monitor ends.
fn sample_loop(sh: &Shared, interval: Duration) {
    let (mut next_poll, mut next_series) = (POLL, interval);
    while !sh.over.load(Ordering::SeqCst) {
        // Asleep until the next sample is due (4 wake-ups a second for the totals, one per
        // interval for a series) rather than in short steps: every wake-up of an idle thread
        // is CPU the run's workers share. `end_thread` unparks the thread, so the end of the
        // run waits for none; a spurious wake-up only re-checks.
        let t = sh.start.elapsed();
        let due = next_poll.min(next_series);
        if t < due {
            std::thread::park_timeout(due - t);
            continue;
        }
        let series_due = t >= next_series;
        if series_due {
            next_series += interval;
        }
        next_poll = t + POLL;
        sh.sample(series_due);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// One thread serves both users: the runner's mark-to-end totals count every wrap of a
    /// 32-bit counter the file shows between polls, and the series has its interval samples.
    #[test]
    fn one_thread_gives_totals_and_series() {
        let dir = std::env::temp_dir().join(format!("iolab-monitor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("diskstats");
        let at = |k: u64| {
            let q = (k * 3_000_000_000) % (1 << 32);
            format!("7 0 loop0 {q} 0 0 0 0 0 0 0 0 {} {q}\n8 0 sda 1 0 8 1 0 0 0 0 0 1 1\n", k * 10)
        };
        // Replaced whole, as the kernel's file never shows a torn line.
        let put = |k: u64| {
            std::fs::write(dir.join("next"), at(k)).unwrap();
            std::fs::rename(dir.join("next"), &f).unwrap();
        };
        put(0);
        let cfg = MonitorConfig {
            path: f.clone(),
            series_devices: vec!["loop0".into()],
            interval: Duration::from_millis(100),
        };
        let m = DiskMonitor::start(cfg).unwrap();
        let m_started = m.started();
        let h = m.handle();
        let mark = h.mark().unwrap();
        for k in 1..=3 {
            // Longer than the poll period, so each value is seen.
            std::thread::sleep(Duration::from_millis(320));
            put(k);
        }
        std::thread::sleep(Duration::from_millis(320));
        let u = h.since(&mark);
        let loop0 = u.iter().find(|d| d.name == "loop0").unwrap();
        assert_eq!((loop0.read_ios, loop0.io_ticks), (9_000_000_000, 30));
        assert_eq!(u.iter().find(|d| d.name == "sda").unwrap().read_ios, 0);
        assert!(m.latest().lock().unwrap().iter().all(|d| d.name == "loop0"));
        let rep = m.finish();
        let s = rep.series.unwrap();
        assert!(rep.notes.is_empty(), "{:?}", rep.notes);
        // One sample per 100 ms that passed, plus the first and the last (a late wake-up
        // can skip one).
        let due = (m_started.elapsed().as_millis() / 100) as usize + 2;
        assert!((due - 2..=due).contains(&s.samples()), "{} of {due}", s.samples());
        assert_eq!(s.series().device("loop0").unwrap().summary.read_ios, 9_000_000_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Marks taken from several threads while the sampling thread polls never make a
    /// counter go back (which the wrap-safe delta would count as a 32-bit wrap): the total
    /// is exactly what the file's counter moved.
    #[test]
    fn concurrent_marks_never_count_a_false_wrap() {
        let dir = std::env::temp_dir().join(format!("iolab-monitor-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("diskstats");
        let put = |k: u64| {
            std::fs::write(dir.join("next"), format!("7 0 loop0 {k} 0 0 0 0 0 0 0 0 0 0\n"))
                .unwrap();
            std::fs::rename(dir.join("next"), &f).unwrap();
        };
        put(0);
        let cfg = MonitorConfig { path: f.clone(), ..MonitorConfig::totals_only() };
        let m = DiskMonitor::start(cfg).unwrap();
        let h = m.handle();
        let first = h.mark().unwrap();
        let markers: Vec<_> = (0..3)
            .map(|_| {
                let h = h.clone();
                std::thread::spawn(move || (0..400).for_each(|_| drop(h.mark())))
            })
            .collect();
        for k in 1..=300 {
            put(k * 1000);
        }
        markers.into_iter().for_each(|t| t.join().unwrap());
        let u = h.since(&first);
        assert_eq!(u[0].read_ios, 300_000);
        drop(m);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unreadable_file_is_a_note_not_an_error() {
        let cfg = MonitorConfig::new(vec!["sda".into()], Duration::from_millis(50));
        let cfg = MonitorConfig { path: "/nonexistent/diskstats".into(), ..cfg };
        let m = DiskMonitor::start(cfg).unwrap();
        assert!(m.handle().mark().is_none());
        let rep = m.finish();
        assert!(rep.notes[0].starts_with("device view: reading /nonexistent/diskstats"));
    }
}
