//! Per-interval `/proc/diskstats` series for the devices under a run's targets, like
//! `iostat -x <interval>`: r/s, w/s, rMB/s, wMB/s, r_await, w_await, aqu-sz and %util per
//! device and interval, plus a whole-run summary and summaries over any time window (one per
//! `stonewall` phase, so "asked for 8, the device saw 1" can be shown phase by phase).
//!
//! Built on [`crate::diskstats`] (record layout, wrap-safe `counter_delta`, sysstat's formulas
//! in `delta`). Each [`DiskSeriesSampler::tick`] reads and parses the diskstats file once
//! (a few tens of µs for a few dozen devices) and keeps only the selected devices' counters,
//! so an interval thread can call it every second without measurable cost. The counters are
//! kept per tick, which is what allows exact window summaries later: a window's figures are
//! the sum of the wrap-safe deltas of every interval inside it, not an average of averages
//! and not one first-to-last delta (a 32-bit counter such as `time_in_queue` on an older
//! kernel can wrap several times over a long run; one delta would see at most one wrap).

use std::path::PathBuf;

use iolab_core::Nanos;
use serde::{Deserialize, Serialize};

use crate::diskstats::{
    counter_delta, delta, read, same_device, DiskCounters, DiskStatsError, NFIELDS,
};
use crate::result::{DiskUtil, IostatX, SampleStats};

/// One device over one interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskInterval {
    /// End of the interval, ns since the sampler started.
    pub end_ns: u64,
    pub dur_ns: u64,
    pub iostat: IostatX,
    /// Requests in flight at the end of the interval (diskstats field 9, a gauge).
    pub in_flight: u64,
}

/// One device over the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceSeries {
    pub name: String,
    pub points: Vec<DiskInterval>,
    /// First sample to last (fio `disk_util` plus iostat figures).
    pub summary: DiskUtil,
    /// Distribution of the interval aqu-sz values.
    pub aqu_sz: SampleStats,
}

/// All sampled devices.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskSeries {
    pub devices: Vec<DeviceSeries>,
}

impl DiskSeries {
    pub fn device(&self, name: &str) -> Option<&DeviceSeries> {
        self.devices.iter().find(|d| d.name == name)
    }
}

/// The per-interval samples of the selected devices: read at each [`tick`](Self::tick), or
/// handed in by [`crate::diskstats::DiskMonitor`] (which reads the file once for everything
/// it keeps) through [`push`](Self::push).
#[derive(Debug)]
pub struct DiskSeriesSampler {
    path: PathBuf,
    devices: Vec<String>,
    /// (time since start in ns, counters of the selected devices).
    snaps: Vec<(u64, Vec<DiskCounters>)>,
}

impl DiskSeriesSampler {
    /// Sample `devices` of `/proc/diskstats` (kernel names; empty means all).
    pub fn new(devices: Vec<String>) -> Self {
        Self::with_path("/proc/diskstats", devices)
    }

    pub fn with_path(path: impl Into<PathBuf>, devices: Vec<String>) -> Self {
        DiskSeriesSampler { path: path.into(), devices, snaps: Vec::new() }
    }

    /// Take a sample at `now` (ns since the run started; the first call is the start).
    /// Returns the interval just closed for each device (empty on the first call).
    pub fn tick(&mut self, now: Nanos) -> Result<Vec<DiskUtil>, DiskStatsError> {
        let cur = read(&self.path, &[])?;
        Ok(self.push(now, &cur))
    }

    /// Keep the selected devices of a sample read at `now`; returns the interval it closes
    /// for each device, as [`tick`](Self::tick) does.
    pub fn push(&mut self, now: Nanos, sample: &[DiskCounters]) -> Vec<DiskUtil> {
        let keep = |c: &&DiskCounters| self.devices.is_empty() || self.devices.contains(&c.name);
        let cur: Vec<DiskCounters> = sample.iter().filter(keep).cloned().collect();
        let out = match self.snaps.last() {
            Some((t, prev)) => pair(prev, &cur, now.0.saturating_sub(*t)),
            None => Vec::new(),
        };
        self.snaps.push((now.0, cur));
        out
    }

    /// Number of samples taken.
    pub fn samples(&self) -> usize {
        self.snaps.len()
    }

    /// Summary per device over `[start, end]` (ns since the sampler's first tick): the delta
    /// between the last sample at or before `start` and the first at or after `end`, so the
    /// window reported covers at least the one asked for.
    pub fn window(&self, start: Nanos, end: Nanos) -> Vec<DiskUtil> {
        if self.snaps.len() < 2 {
            return Vec::new();
        }
        let i = self.snaps.iter().rposition(|(t, _)| *t <= start.0).unwrap_or(0);
        let j = self
            .snaps
            .iter()
            .position(|(t, _)| *t >= end.0)
            .unwrap_or(self.snaps.len() - 1)
            .max(i + 1)
            .min(self.snaps.len() - 1);
        if j <= i {
            return Vec::new();
        }
        summed(&self.snaps[i..=j])
    }

    /// Summary per device for a phase `[start, end]`: the samples *inside* it when they span
    /// at least half of it, so a neighbouring phase does not leak into the figures (with 1 s
    /// samples, [`Self::window`] of a 3 s phase can take in most of a second of the next),
    /// else [`Self::window`].
    pub fn phase_window(&self, start: Nanos, end: Nanos) -> Vec<DiskUtil> {
        let i = self.snaps.iter().position(|(t, _)| *t >= start.0);
        let j = self.snaps.iter().rposition(|(t, _)| *t <= end.0);
        if let (Some(i), Some(j)) = (i, j) {
            let (t0, t1) = (self.snaps[i].0, self.snaps[j].0);
            if j > i && (t1 - t0) * 2 >= end.0.saturating_sub(start.0) {
                return summed(&self.snaps[i..=j]);
            }
        }
        self.window(start, end)
    }

    /// The series and summaries built from all samples taken so far.
    pub fn series(&self) -> DiskSeries {
        let mut devices: Vec<DeviceSeries> = Vec::new();
        for w in self.snaps.windows(2) {
            let ((t0, a), (t1, b)) = (&w[0], &w[1]);
            for u in pair(a, b, t1 - t0) {
                let in_flight =
                    b.iter().find(|c| c.name == u.name).map(|c| c.fields[8]).unwrap_or(0);
                let p = DiskInterval { end_ns: *t1, dur_ns: t1 - t0, iostat: u.iostat, in_flight };
                match devices.iter_mut().find(|d| d.name == u.name) {
                    Some(d) => d.points.push(p),
                    None => devices.push(DeviceSeries {
                        name: u.name.clone(),
                        points: vec![p],
                        ..Default::default()
                    }),
                }
            }
        }
        if self.snaps.len() >= 2 {
            for u in summed(&self.snaps) {
                if let Some(d) = devices.iter_mut().find(|d| d.name == u.name) {
                    let aq: Vec<f64> = d.points.iter().map(|p| p.iostat.aqu_sz).collect();
                    d.aqu_sz = SampleStats::from_samples(&aq);
                    d.summary = u;
                }
            }
        }
        DiskSeries { devices }
    }

    /// Take a last sample at `now` and return the series.
    pub fn finish(&mut self, now: Nanos) -> Result<DiskSeries, DiskStatsError> {
        self.tick(now)?;
        Ok(self.series())
    }
}

/// Deltas between two samples of the same devices, matched by major:minor and name; a device
/// that disappeared or appeared between them is left out for that interval.
fn pair(a: &[DiskCounters], b: &[DiskCounters], window_ns: u64) -> Vec<DiskUtil> {
    b.iter()
        .filter_map(|c| a.iter().find(|p| same_device(p, c)).map(|p| delta(p, c, window_ns)))
        .collect()
}

/// Summary per device over consecutive samples: each counter is the sum of its wrap-safe
/// per-interval deltas, so any number of 32-bit wraps over the span is counted (one
/// first-to-last delta would lose all but one). Devices present in the first and last
/// samples are reported; an interval a device is missing from adds nothing for it.
fn summed(snaps: &[(u64, Vec<DiskCounters>)]) -> Vec<DiskUtil> {
    let (Some((t0, first)), Some((t1, last))) = (snaps.first(), snaps.last()) else {
        return Vec::new();
    };
    let same = same_device;
    let mut acc: Vec<DiskCounters> = last
        .iter()
        .filter(|c| first.iter().any(|f| same(f, c)))
        .map(|c| DiskCounters { fields: [0; NFIELDS], ..c.clone() })
        .collect();
    for w in snaps.windows(2) {
        for a in acc.iter_mut() {
            let (Some(p), Some(c)) =
                (w[0].1.iter().find(|x| same(x, a)), w[1].1.iter().find(|x| same(x, a)))
            else {
                continue;
            };
            for k in 0..NFIELDS {
                a.fields[k] = a.fields[k].saturating_add(counter_delta(p.fields[k], c.fields[k]));
            }
        }
    }
    acc.iter()
        .map(|a| delta(&DiskCounters { fields: [0; NFIELDS], ..a.clone() }, a, t1 - t0))
        .collect()
}

/// One line per device in `iostat -x` column order (the status line and the text report).
pub fn iostat_line(u: &DiskUtil) -> String {
    let x = &u.iostat;
    format!(
        "{:<10} r/s={:.1} w/s={:.1} rMB/s={:.2} wMB/s={:.2} r_await={:.2}ms w_await={:.2}ms \
         aqu-sz={:.2} util={:.1}%",
        u.name, x.r_s, x.w_s, x.rmb_s, x.wmb_s, x.r_await, x.w_await, x.aqu_sz, x.util
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &std::path::Path, lines: &[&str]) {
        std::fs::write(path, lines.join("\n")).unwrap();
    }

    // Field order: reads rmerge rsect rticks writes wmerge wsect wticks inflight io_ticks
    // in_queue (+ discard 4, flush 2).
    #[test]
    fn series_window_and_wrap() {
        let dir = std::env::temp_dir().join(format!("iolab-diskseries-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("diskstats");
        let mut s = DiskSeriesSampler::with_path(&f, vec!["sdb".into()]);
        write(
            &f,
            &[
                "8 16 sdb 100 0 800 50 0 0 0 0 0 40 4294967000 0 0 0 0 0 0",
                "8 0 sda 1 0 8 1 0 0 0 0 0 1 1",
            ],
        );
        assert!(s.tick(Nanos(0)).unwrap().is_empty());
        // 1 s later: 1000 reads of 8 sectors (4 KiB), 500 ms of read time, in_queue wrapped
        // by 2000 ms (aqu-sz 2.0), 1000 ms busy.
        write(&f, &["8 16 sdb 1100 0 8800 550 0 0 0 0 3 1040 1704 0 0 0 0 0 0"]);
        let u = s.tick(Nanos::from_secs(1)).unwrap();
        assert_eq!(u.len(), 1);
        assert!((u[0].iostat.r_s - 1000.0).abs() < 1e-9);
        assert!((u[0].iostat.rmb_s - 1000.0 * 4096.0 / 1048576.0).abs() < 1e-9);
        assert!((u[0].iostat.r_await - 0.5).abs() < 1e-9);
        assert!((u[0].iostat.aqu_sz - 2.0).abs() < 1e-9);
        assert!((u[0].iostat.util - 100.0).abs() < 1e-9);
        // Second second idle.
        write(&f, &["8 16 sdb 1100 0 8800 550 0 0 0 0 0 1040 1704 0 0 0 0 0 0"]);
        s.tick(Nanos::from_secs(2)).unwrap();
        let ser = s.series();
        let d = ser.device("sdb").unwrap();
        assert_eq!(d.points.len(), 2);
        assert_eq!(d.points[0].in_flight, 3);
        assert_eq!(d.summary.read_ios, 1000);
        assert!((d.summary.iostat.aqu_sz - 1.0).abs() < 1e-9);
        assert!((d.aqu_sz.max - 2.0).abs() < 1e-9 && d.aqu_sz.min == 0.0);
        // Window over the first second only.
        let w = s.window(Nanos(0), Nanos::from_secs(1));
        assert!((w[0].iostat.aqu_sz - 2.0).abs() < 1e-9);
        let w = s.window(Nanos::from_millis(1500), Nanos::from_secs(2));
        assert_eq!(w[0].read_ios, 0);
        // A phase of [0.9 s, 2.0 s]: the outer window reaches back into the busy first second;
        // the inner one (1 s to 2 s covers 1 s of the 1.1 s phase) sees only the idle second.
        assert_eq!(s.window(Nanos::from_millis(900), Nanos::from_secs(2))[0].read_ios, 1000);
        assert_eq!(s.phase_window(Nanos::from_millis(900), Nanos::from_secs(2))[0].read_ios, 0);
        // A phase too short to hold two samples falls back to the outer window.
        let w = s.phase_window(Nanos::from_millis(200), Nanos::from_millis(800));
        assert_eq!(w[0].read_ios, 1000);
        assert!(iostat_line(&w[0]).starts_with("sdb"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
