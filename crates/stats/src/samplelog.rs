//! Per-I/O sample logs for fio's `write_lat_log` / `write_bw_log` / `write_iops_log`, with
//! `log_avg_msec` windows.
//!
//! fio (stat.c `add_log_sample`, `__add_stat_to_log`; iolog.c) keeps every sample in memory
//! and writes the log at the end (fio #588); with `log_avg_msec=N` it keeps one running
//! mean and max per direction and emits one entry per direction per window (bs 0), choosing
//! the mean, the max or both by `log_window_value=avg|max|both`. iolab aligns windows to a
//! grid of N ms from the job's epoch and stamps each entry with the window's end, so entries
//! are deterministic; the final partial window is flushed by [`SampleLog::finish`] (as fio
//! flushes at exit). The worker owns its log: no locks; the entry vector is reserved up front
//! and grows geometrically, as fio's log chunks do.

use iolab_core::{IoDir, Nanos};

/// fio `log_window_value`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowValue {
    #[default]
    Avg,
    Max,
    Both,
}

/// One log entry (fio's `struct io_sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogSample {
    /// ms since the job's epoch.
    pub time_ms: u64,
    /// The value (or the window mean, or its max under `WindowValue::Max`).
    pub value: u64,
    /// The window max when `WindowValue::Both`.
    pub max: Option<u64>,
    /// fio ddir: 0 read, 1 write, 2 trim, 3 sync.
    pub ddir: u8,
    /// Block size; 0 for window entries.
    pub bs: u64,
    /// Offset (only kept with `log_offset=1`).
    pub offset: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Window {
    sum: u128,
    n: u64,
    max: u64,
}

/// A per-worker sample log.
#[derive(Clone, Debug)]
pub struct SampleLog {
    avg_ns: u64,
    mode: WindowValue,
    log_offset: bool,
    win: [Window; 4],
    win_end: u64,
    entries: Vec<LogSample>,
}

impl SampleLog {
    /// `avg` is `log_avg_msec` (zero logs every sample); `log_offset` keeps offsets.
    pub fn new(avg: Nanos, mode: WindowValue, log_offset: bool) -> Self {
        SampleLog {
            avg_ns: avg.0,
            mode,
            log_offset,
            win: [Window::default(); 4],
            win_end: avg.0,
            entries: Vec::with_capacity(if avg.0 == 0 { 1 << 16 } else { 1 << 10 }),
        }
    }

    /// Log one sample at `now` (since the job's epoch): a latency in ns, a bandwidth in KiB/s
    /// or an IOPS value.
    #[inline]
    pub fn add(&mut self, now: Nanos, dir: IoDir, value: u64, bs: u64, offset: u64) {
        if self.avg_ns == 0 {
            self.entries.push(LogSample {
                time_ms: now.0 / 1_000_000,
                value,
                max: None,
                ddir: dir.fio_ddir(),
                bs,
                offset: self.log_offset.then_some(offset),
            });
            return;
        }
        if now.0 >= self.win_end {
            self.flush_windows(now.0);
        }
        let w = &mut self.win[dir.fio_ddir() as usize];
        w.sum += value as u128;
        w.n += 1;
        w.max = w.max.max(value);
    }

    #[cold]
    fn flush_windows(&mut self, now: u64) {
        self.emit(self.win_end);
        // Skip empty windows after a stall: the next window is the one containing `now`.
        self.win_end = (now / self.avg_ns + 1) * self.avg_ns;
    }

    fn emit(&mut self, end_ns: u64) {
        for (i, w) in self.win.iter_mut().enumerate() {
            if w.n == 0 {
                continue;
            }
            let mean = (w.sum / w.n as u128) as u64;
            let (value, max) = match self.mode {
                WindowValue::Avg => (mean, None),
                WindowValue::Max => (w.max, None),
                WindowValue::Both => (mean, Some(w.max)),
            };
            self.entries.push(LogSample {
                time_ms: end_ns / 1_000_000,
                value,
                max,
                ddir: i as u8,
                bs: 0,
                offset: self.log_offset.then_some(0),
            });
            *w = Window::default();
        }
    }

    /// Flush the last (partial) window at the job's end.
    pub fn finish(&mut self, now: Nanos) {
        if self.avg_ns > 0 {
            self.emit(now.0.min(self.win_end));
        }
    }

    pub fn entries(&self) -> &[LogSample] {
        &self.entries
    }

    /// Append another worker's entries, keeping time order.
    pub fn merge(&mut self, other: &SampleLog) {
        self.entries.extend_from_slice(&other.entries);
        self.entries.sort_by_key(|e| e.time_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_average_per_direction() {
        let mut l = SampleLog::new(Nanos::from_millis(100), WindowValue::Both, false);
        for (t_ms, dir, v) in [
            (10, IoDir::Read, 100),
            (20, IoDir::Read, 300),
            (30, IoDir::Write, 50),
            (150, IoDir::Read, 10),
            (420, IoDir::Read, 20),
        ] {
            l.add(Nanos::from_millis(t_ms), dir, v, 4096, 0);
        }
        l.finish(Nanos::from_millis(450));
        let e: Vec<(u64, u64, Option<u64>, u8)> =
            l.entries().iter().map(|s| (s.time_ms, s.value, s.max, s.ddir)).collect();
        assert_eq!(
            e,
            [
                (100, 200, Some(300), 0),
                (100, 50, Some(50), 1),
                (200, 10, Some(10), 0),
                (450, 20, Some(20), 0)
            ]
        );
    }

    #[test]
    fn every_sample_without_averaging() {
        let mut l = SampleLog::new(Nanos::ZERO, WindowValue::Avg, true);
        l.add(Nanos(1_500_000), IoDir::Write, 80_000, 4096, 8192);
        l.finish(Nanos(2_000_000));
        assert_eq!(
            l.entries(),
            &[LogSample {
                time_ms: 1,
                value: 80_000,
                max: None,
                ddir: 1,
                bs: 4096,
                offset: Some(8192)
            }]
        );
    }
}
