//! fio's per-job log files: `write_bw_log`, `write_iops_log`, `write_lat_log` (`_clat`,
//! `_slat`, `_lat`).
//!
//! Line format from fio iolog.c `flush_samples`: `time, value, ddir, bs[, offset], prio`
//! (`time` ms since the job's epoch, `value` KiB/s for bw, I/Os per second for iops, ns for
//! latencies; `ddir` 0 read, 1 write, 2 trim, 3 sync; `offset` only with `log_offset=1`; the
//! last column is fio's prio flag, 0 here). With `log_avg_msec` fio logs one averaged entry
//! per window and direction with `bs` 0; iolab builds exactly those from the job's interval
//! series (so the series interval should be `log_avg_msec`; fio-behaviour.md §3.4). Per-I/O
//! latency logs come from the engine as [`LogEntry`] lists and are written by [`write_log`].
//! File names: `<name>_<type>.<N>.log` with N = jobidx + 1 (fio's 1-based `thread_number`).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use iolab_core::IoDir;
use iolab_stats::{JobResult, DIRS};

use crate::{write_atomic, ReportError};

/// Which log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Bw,
    Iops,
    Clat,
    Slat,
    Lat,
}

impl LogKind {
    /// The `<type>` part of the file name.
    pub fn file_tag(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
            LogKind::Lat => "lat",
        }
    }
}

/// One log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub time_ms: u64,
    pub value: u64,
    /// fio ddir: 0 read, 1 write, 2 trim, 3 sync.
    pub ddir: u8,
    pub bs: u64,
    pub offset: Option<u64>,
    pub prio: u32,
}

/// A log line that does not parse, with its line number.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{path}:{line}: expected 'time, value, ddir, bs[, offset], prio' with unsigned integers, found '{text}'")]
pub struct LogParseError {
    pub path: String,
    pub line: usize,
    pub text: String,
}

/// Format entries as fio writes them.
pub fn format(entries: &[LogEntry]) -> String {
    let mut s = String::with_capacity(entries.len() * 24);
    for e in entries {
        let _ = write!(s, "{}, {}, {}, {}", e.time_ms, e.value, e.ddir, e.bs);
        if let Some(off) = e.offset {
            let _ = write!(s, ", {off}");
        }
        let _ = writeln!(s, ", {}", e.prio);
    }
    s
}

/// Parse a fio log (5 columns, or 6 with offsets). `path` is for messages only.
pub fn parse(text: &str, path: &str) -> Result<Vec<LogEntry>, LogParseError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = || LogParseError { path: path.into(), line: i + 1, text: line.into() };
        let cols: Result<Vec<u64>, _> = line.split(',').map(|c| c.trim().parse::<u64>()).collect();
        let cols = cols.map_err(|_| err())?;
        let e = match *cols.as_slice() {
            [t, v, d, bs, prio] => LogEntry {
                time_ms: t,
                value: v,
                ddir: d as u8,
                bs,
                offset: None,
                prio: prio as u32,
            },
            [t, v, d, bs, off, prio] => LogEntry {
                time_ms: t,
                value: v,
                ddir: d as u8,
                bs,
                offset: Some(off),
                prio: prio as u32,
            },
            _ => return Err(err()),
        };
        if e.ddir > 3 {
            return Err(err());
        }
        out.push(e);
    }
    Ok(out)
}

/// fio's `log_avg_msec` entries for one job from its interval series: for each interval and
/// each direction that completed I/O in it, the average bandwidth (KiB/s), IOPS or mean clat.
/// `Slat`/`Lat` need per-I/O samples and yield nothing here.
pub fn windowed_entries(job: &JobResult, kind: LogKind) -> Vec<LogEntry> {
    let mut out = Vec::new();
    let n = DIRS.iter().map(|&d| job.dir(d).series.len()).max().unwrap_or(0);
    for k in 0..n {
        for d in DIRS {
            let Some(p) = job.dir(d).series.get(k) else { continue };
            if p.ios == 0 || p.dur_ns == 0 {
                continue;
            }
            let value = match kind {
                LogKind::Bw => (p.bytes as u128 * 1_000_000_000 / p.dur_ns as u128 / 1024) as u64,
                LogKind::Iops => (p.ios as u128 * 1_000_000_000 / p.dur_ns as u128) as u64,
                LogKind::Clat => p.clat_mean_ns.round() as u64,
                LogKind::Slat | LogKind::Lat => continue,
            };
            out.push(LogEntry {
                time_ms: p.end_ns / 1_000_000,
                value,
                ddir: d.fio_ddir(),
                bs: 0,
                offset: None,
                prio: 0,
            });
        }
    }
    out
}

/// `<dir>/<name>_<type>.<jobidx+1>.log`.
pub fn log_path(dir: &Path, name: &str, kind: LogKind, jobidx: u32) -> PathBuf {
    dir.join(format!("{name}_{}.{}.log", kind.file_tag(), jobidx + 1))
}

/// Write one log atomically.
pub fn write_log(path: &Path, entries: &[LogEntry]) -> Result<(), ReportError> {
    write_atomic(path, format(entries).as_bytes())
}

/// Write the windowed bw, iops and clat logs of every job under `dir` with `prefix` as fio's
/// `write_*_log=<prefix>` (the job name when `None`). Returns the files written.
pub fn write_windowed_logs(
    jobs: &[JobResult],
    dir: &Path,
    prefix: Option<&str>,
    kinds: &[LogKind],
) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    for j in jobs {
        for &kind in kinds {
            if matches!(kind, LogKind::Slat | LogKind::Lat) {
                continue;
            }
            let p = log_path(dir, prefix.unwrap_or(&j.name), kind, j.jobidx);
            write_log(&p, &windowed_entries(j, kind))?;
            written.push(p);
        }
    }
    Ok(written)
}

/// The direction a log line belongs to.
pub fn entry_dir(e: &LogEntry) -> IoDir {
    match e.ddir {
        0 => IoDir::Read,
        1 => IoDir::Write,
        2 => IoDir::Trim,
        _ => IoDir::Sync,
    }
}
