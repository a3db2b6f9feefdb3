//! `/proc/diskstats` sampling and `iostat -x`-style figures.
//!
//! Record layout: kernel `Documentation/admin-guide/iostats.rst` and `block/genhd.c`
//! (`diskstats_show`): `major minor name` followed by 11 fields (kernel < 4.18, 14 columns),
//! 15 (4.18+, discard fields 12–15, 18 columns) or 17 (5.5+, flush fields 16–17, 20 columns).
//! Fields: 1 reads, 2 reads merged, 3 sectors read, 4 ms reading, 5 writes, 6 writes merged,
//! 7 sectors written, 8 ms writing, 9 in flight, 10 ms doing I/O (io_ticks), 11 weighted ms
//! (time_in_queue), 12–15 discards/merged/sectors/ms, 16–17 flushes/ms.
//!
//! Some of these counters are 32-bit on 32-bit kernels and on older 64-bit ones (`unsigned
//! int` io_ticks/time_in_queue before 5.0), so deltas are wrap-safe: when the earlier value
//! fits in 32 bits and the later one is smaller, the delta is taken modulo 2³². A larger earlier
//! value that goes down means the counter restarted (device removed and re-added): the delta is
//! the new value. Derived figures follow sysstat's `iostat -x` (rd_sec → rkB/s = sectors/2,
//! r_await = Δms reading / Δreads, aqu-sz = Δtime_in_queue / Δt, %util = Δio_ticks / Δt) and
//! fio's `disk_util` (diskutil.c: ios, merges, ticks, in_queue, util = io_ticks / elapsed).
//!
//! [`DiskTotals`] keeps a run's wrap-safe sums; [`monitor::DiskMonitor`] is the one thread
//! that reads the file during a run, for the runner's `disk_util` and the advice's
//! per-interval series alike.

use std::path::{Path, PathBuf};

use crate::result::{DiskUtil, IostatX};

pub mod monitor;
pub use monitor::{DiskHandle, DiskMark, DiskMonitor, MonitorConfig, MonitorReport};

/// Number of counter fields after `major minor name` in the newest layout.
pub const NFIELDS: usize = 17;

/// One device's counters at one instant; fields a kernel does not report are 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskCounters {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    /// Fields 1..=17 at indices 0..=16.
    pub fields: [u64; NFIELDS],
    /// How many fields the line had (11, 15 or 17).
    pub nfields: usize,
}

/// A parse failure, naming the line.
#[derive(Debug, thiserror::Error)]
pub enum DiskStatsError {
    #[error("{path}:{line}: expected 14, 18 or 20 columns (major minor name + 11/15/17 counters), found {found}")]
    Columns { path: PathBuf, line: usize, found: usize },
    #[error("{path}:{line}: column {column} '{value}' is not an unsigned integer")]
    Number { path: PathBuf, line: usize, column: usize, value: String },
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Parse the whole text of a diskstats file. `path` is used only in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Vec<DiskCounters>, DiskStatsError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty() {
            continue;
        }
        let lineno = i + 1;
        if !matches!(cols.len(), 14 | 18 | 20) {
            return Err(DiskStatsError::Columns {
                path: path.into(),
                line: lineno,
                found: cols.len(),
            });
        }
        let num = |c: usize| {
            cols[c].parse::<u64>().map_err(|_| DiskStatsError::Number {
                path: path.into(),
                line: lineno,
                column: c + 1,
                value: cols[c].into(),
            })
        };
        let mut fields = [0u64; NFIELDS];
        for (k, f) in fields.iter_mut().enumerate().take(cols.len() - 3) {
            *f = num(k + 3)?;
        }
        out.push(DiskCounters {
            major: num(0)? as u32,
            minor: num(1)? as u32,
            name: cols[2].to_string(),
            fields,
            nfields: cols.len() - 3,
        });
    }
    Ok(out)
}

/// Wrap-safe counter delta (see the module note).
pub fn counter_delta(prev: u64, cur: u64) -> u64 {
    if cur >= prev {
        cur - prev
    } else if prev <= u32::MAX as u64 {
        (cur + (1u64 << 32) - prev) & 0xffff_ffff
    } else {
        cur
    }
}

/// fio `disk_util` entry plus `iostat -x` figures for one device over `window_ns`.
pub fn delta(prev: &DiskCounters, cur: &DiskCounters, window_ns: u64) -> DiskUtil {
    let d = |k: usize| counter_delta(prev.fields[k], cur.fields[k]);
    let (reads, rmerge, rsect, rticks) = (d(0), d(1), d(2), d(3));
    let (writes, wmerge, wsect, wticks) = (d(4), d(5), d(6), d(7));
    let (io_ticks, in_queue) = (d(9), d(10));
    let secs = window_ns as f64 / 1e9;
    let ms = window_ns as f64 / 1e6;
    let per_s = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
    let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
    let util = if ms > 0.0 { (io_ticks as f64 * 100.0 / ms).min(100.0) } else { 0.0 };
    DiskUtil {
        name: cur.name.clone(),
        read_ios: reads,
        write_ios: writes,
        read_merges: rmerge,
        write_merges: wmerge,
        read_sectors: rsect,
        write_sectors: wsect,
        read_ticks: rticks,
        write_ticks: wticks,
        in_queue,
        io_ticks,
        window_ns,
        util,
        iostat: IostatX {
            r_s: per_s(reads),
            w_s: per_s(writes),
            rrqm_s: per_s(rmerge),
            wrqm_s: per_s(wmerge),
            rmb_s: per_s(rsect) / 2048.0,
            wmb_s: per_s(wsect) / 2048.0,
            r_await: ratio(rticks, reads),
            w_await: ratio(wticks, writes),
            aqu_sz: if ms > 0.0 { in_queue as f64 / ms } else { 0.0 },
            util,
        },
    }
}

/// Read and parse a diskstats file now, keeping only `devices` (kernel names such as
/// `nvme0n1`, `sda`, `dm-0`; empty keeps all).
pub fn read(path: &Path, devices: &[String]) -> Result<Vec<DiskCounters>, DiskStatsError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| DiskStatsError::Io { path: path.into(), source })?;
    let mut v = parse(&text, path)?;
    if !devices.is_empty() {
        v.retain(|c| devices.contains(&c.name));
    }
    Ok(v)
}

/// The same device in two samples (major:minor and name).
pub(crate) fn same_device(a: &DiskCounters, b: &DiskCounters) -> bool {
    a.major == b.major && a.minor == b.minor && a.name == b.name
}

/// Running totals since a first sample: each [`add`](Self::add)ed sample contributes its
/// wrap-safe delta from the one before, so a 32-bit counter that wraps several times over a
/// run is still counted exactly when samples come often enough (fio diskutil.c samples every
/// 250 ms; [`monitor::DiskMonitor`] does the sampling).
#[derive(Clone, Debug)]
pub struct DiskTotals {
    /// The last sample added, and the deltas summed since the first (same devices).
    last: Vec<DiskCounters>,
    sums: Vec<DiskCounters>,
}

impl DiskTotals {
    /// Totals of zero for each device in the first sample.
    pub fn new(first: Vec<DiskCounters>) -> Self {
        let sums = first.iter().map(zeroed).collect();
        DiskTotals { last: first, sums }
    }

    /// Add the deltas from the previous sample to `cur`. A device that went away keeps its
    /// totals; one that came back counts from here.
    pub fn add(&mut self, cur: Vec<DiskCounters>) {
        for s in self.sums.iter_mut() {
            let prev = self.last.iter().find(|p| same_device(p, s));
            let now = cur.iter().find(|c| same_device(c, s));
            if let (Some(p), Some(c)) = (prev, now) {
                for k in 0..NFIELDS {
                    s.fields[k] =
                        s.fields[k].saturating_add(counter_delta(p.fields[k], c.fields[k]));
                }
            }
        }
        for c in cur {
            match self.last.iter_mut().find(|p| same_device(p, &c)) {
                Some(p) => *p = c,
                None => self.last.push(c),
            }
        }
    }

    /// The summed deltas so far, one entry per device of the first sample.
    pub fn sums(&self) -> &[DiskCounters] {
        &self.sums
    }

    /// fio's `disk_util` for each device from `earlier` sums (of this same totals) to now,
    /// over `window_ns`.
    pub fn since(&self, earlier: &[DiskCounters], window_ns: u64) -> Vec<DiskUtil> {
        earlier
            .iter()
            .filter_map(|e| self.sums.iter().find(|s| same_device(s, e)).map(|s| (e, s)))
            .map(|(e, s)| {
                let mut d = zeroed(s);
                for k in 0..NFIELDS {
                    d.fields[k] = s.fields[k].saturating_sub(e.fields[k]);
                }
                delta(&zeroed(s), &d, window_ns)
            })
            .collect()
    }
}

/// A device's counters with every field 0.
fn zeroed(c: &DiskCounters) -> DiskCounters {
    DiskCounters { fields: [0; NFIELDS], ..c.clone() }
}

/// Deltas between two samples, matched by major:minor and name.
pub fn deltas(before: &[DiskCounters], after: &[DiskCounters], window_ns: u64) -> Vec<DiskUtil> {
    after
        .iter()
        .filter_map(|a| before.iter().find(|b| same_device(b, a)).map(|b| delta(b, a, window_ns)))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_reset() {
        assert_eq!(counter_delta(10, 25), 15);
        assert_eq!(counter_delta(u32::MAX as u64 - 5, 10), 16);
        assert_eq!(counter_delta(1 << 40, 7), 7);
    }

    /// Added often enough, a 32-bit counter that wraps three times over the run is counted
    /// exactly; one first-to-last delta would have seen 3·10⁹ mod 2³² of 9·10⁹.
    #[test]
    fn polled_totals_survive_several_wraps() {
        let at = |k: u64| {
            let q = (k * 3_000_000_000) % (1 << 32);
            let line = format!("7 0 loop0 {q} 0 0 0 0 0 0 0 0 {} {q}\n", k * 100);
            parse(&line, Path::new("diskstats")).unwrap()
        };
        let mut s = DiskTotals::new(at(0));
        let start = s.sums().to_vec();
        for k in 1..=3 {
            s.add(at(k));
        }
        let u = s.since(&start, 1_000_000_000);
        assert_eq!(u.len(), 1);
        assert_eq!(
            (u[0].read_ios, u[0].in_queue, u[0].io_ticks),
            (9_000_000_000, 9_000_000_000, 300)
        );
    }

    #[test]
    fn reads_proc_if_present() {
        match read(Path::new("/proc/diskstats"), &[]) {
            Ok(v) => assert!(v.iter().all(|c| matches!(c.nfields, 11 | 15 | 17))),
            Err(e) => eprintln!("skipped: /proc/diskstats unreadable here: {e}"),
        }
    }
}
