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
use iolab_stats::{JobResult, LogSample, DIRS};

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
    /// Window max, printed after `value` under `log_window_value=both`.
    pub max: Option<u64>,
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
    format_with(entries, false)
}

/// [`format`], with the prio column as `0x%04x` when `log_prio` (fio iolog.c
/// `flush_samples`).
pub fn format_with(entries: &[LogEntry], log_prio: bool) -> String {
    let mut s = String::with_capacity(entries.len() * 24);
    for e in entries {
        let _ = write!(s, "{}, {}", e.time_ms, e.value);
        if let Some(m) = e.max {
            let _ = write!(s, ", {m}");
        }
        let _ = write!(s, ", {}, {}", e.ddir, e.bs);
        if let Some(off) = e.offset {
            let _ = write!(s, ", {off}");
        }
        let _ =
            if log_prio { writeln!(s, ", 0x{:04x}", e.prio) } else { writeln!(s, ", {}", e.prio) };
    }
    s
}

/// Which optional columns a log has (fio decides them from `log_window_value=both` and
/// `log_offset`; the file itself does not say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogColumns {
    pub max: bool,
    pub offset: bool,
}

/// Parse a fio log with the given optional columns. `path` is for messages only.
pub fn parse(
    text: &str,
    path: &str,
    cols_spec: LogColumns,
) -> Result<Vec<LogEntry>, LogParseError> {
    let want = 5 + cols_spec.max as usize + cols_spec.offset as usize;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = || LogParseError { path: path.into(), line: i + 1, text: line.into() };
        let cols: Result<Vec<u64>, _> = line.split(',').map(|c| c.trim().parse::<u64>()).collect();
        let cols = cols.map_err(|_| err())?;
        if cols.len() != want {
            return Err(err());
        }
        let mut it = cols.into_iter();
        let mut next = || it.next().unwrap_or(0);
        let time_ms = next();
        let value = next();
        let max = cols_spec.max.then(&mut next);
        let ddir = next();
        let bs = next();
        let offset = cols_spec.offset.then(&mut next);
        let prio = next();
        if ddir > 3 || prio > u32::MAX as u64 {
            return Err(err());
        }
        out.push(LogEntry { time_ms, value, max, ddir: ddir as u8, bs, offset, prio: prio as u32 });
    }
    Ok(out)
}

impl From<&LogSample> for LogEntry {
    fn from(s: &LogSample) -> LogEntry {
        LogEntry {
            time_ms: s.time_ms,
            value: s.value,
            max: s.max,
            ddir: s.ddir,
            bs: s.bs,
            offset: s.offset,
            prio: 0,
        }
    }
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
                max: None,
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

/// Write a log as fio does under `log_prio` (hex prio column) and `log_store_compressed`
/// (`<path>.fz`, zlib streams of fio's binary samples: `iolab_stats::logfz`). Returns the
/// path written.
pub fn write_log_as(
    path: &Path,
    entries: &[LogEntry],
    log_prio: bool,
    compressed: bool,
) -> Result<PathBuf, ReportError> {
    if !compressed {
        write_atomic(path, format_with(entries, log_prio).as_bytes())?;
        return Ok(path.to_path_buf());
    }
    let mut p = path.as_os_str().to_owned();
    p.push(".fz");
    let p = PathBuf::from(p);
    let samples: Vec<iolab_stats::logfz::FzSample> = entries
        .iter()
        .map(|e| iolab_stats::logfz::FzSample {
            time_ms: e.time_ms,
            value: e.value,
            ddir: e.ddir,
            bs: e.bs,
            offset: e.offset,
            prio: e.prio as u16,
        })
        .collect();
    let offset = entries.first().is_some_and(|e| e.offset.is_some());
    let cols = iolab_stats::logfz::FzColumns { offset, log_prio };
    write_atomic(&p, &iolab_stats::logfz::encode(&samples, cols))?;
    Ok(p)
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
