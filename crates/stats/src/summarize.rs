//! Turning recorders into results: one job from its (merged) recorders, one group from its
//! jobs. Mirrors fio stat.c `sum_thread_stats` (counts and histograms summed, group runtime =
//! the longest job's, l.2359–2374) and `add_bw_samples`/`add_iops_samples` (interval samples
//! in KiB/s and IOPS; an interval in which a direction moved no data adds no sample, as fio's
//! `__add_samples` skips a zero delta).

use iolab_core::{IoDir, Nanos};

use crate::hist::LatStats;
use crate::recorder::{DirRecorder, RawInterval, Recorder, DIRS};
use crate::result::{
    DepthStats, DirStats, ErrnoCount, GroupDir, GroupResult, IntervalPoint, JobResult, SampleStats,
};

fn lat(h: &Option<Box<crate::hist::LatHist>>, pcts: &[f64]) -> LatStats {
    h.as_ref().map(|h| h.to_stats(pcts)).unwrap_or_default()
}

/// Per-direction series from the raw intervals.
pub fn dir_series(intervals: &[RawInterval], dir: IoDir) -> Vec<IntervalPoint> {
    let i = dir.fio_ddir() as usize;
    intervals
        .iter()
        .map(|iv| IntervalPoint {
            end_ns: iv.end_ns,
            dur_ns: iv.dur_ns,
            bytes: iv.bytes[i],
            ios: iv.ios[i],
            clat_mean_ns: if iv.ios[i] == 0 {
                0.0
            } else {
                iv.clat_sum_ns[i] as f64 / iv.ios[i] as f64
            },
        })
        .collect()
}

/// fio's bw (KiB/s) and iops sample summaries over a series: intervals at least half the
/// nominal length that moved data.
pub fn series_sample_stats(
    series: &[IntervalPoint],
    interval_ns: u64,
) -> (SampleStats, SampleStats) {
    let full = series.iter().filter(|p| p.dur_ns * 2 >= interval_ns && p.ios > 0);
    let bw: Vec<f64> = full.clone().map(|p| p.bw_bytes_per_sec() / 1024.0).collect();
    let iops: Vec<f64> = full.map(|p| p.iops()).collect();
    (SampleStats::from_samples(&bw), SampleStats::from_samples(&iops))
}

fn dir_stats(
    d: &DirRecorder,
    series: Vec<IntervalPoint>,
    runtime: Nanos,
    interval_ns: u64,
    pcts: &[f64],
) -> DirStats {
    let active = d.ios > 0 || d.issued > 0 || d.failed > 0;
    let (bw, iops) = series_sample_stats(&series, interval_ns);
    DirStats {
        io_bytes: d.bytes,
        total_ios: d.ios,
        issued_ios: d.issued,
        short_ios: d.short,
        drop_ios: d.dropped,
        failed_ios: d.failed,
        runtime_ns: if active { runtime.0 } else { 0 },
        slat: lat(&d.slat, pcts),
        clat: lat(&d.clat, pcts),
        lat: d.lat_hist().map(|h| h.to_stats(pcts)).unwrap_or_default(),
        sched_lat: lat(&d.sched, pcts),
        datasync_ios: d.datasync,
        bw,
        iops,
        series: if active { series } else { Vec::new() },
    }
}

/// The measured parts of a [`JobResult`] from a job's recorder (merge a job's worker
/// recorders first). Name, options, group, start/elapsed and CPU are the caller's to fill.
pub fn summarize(rec: &Recorder, runtime: Nanos, pcts: &[f64]) -> JobResult {
    let interval_ns = rec.interval().0;
    let mut j = JobResult { runtime_ns: runtime.0, interval_ns, ..Default::default() };
    for dir in DIRS {
        let series = dir_series(rec.intervals(), dir);
        *j.dir_mut(dir) = dir_stats(rec.dir(dir), series, runtime, interval_ns, pcts);
    }
    j.depth = DepthStats {
        level: rec.depth_map,
        submit: rec.submit_map,
        complete: rec.complete_map,
        exact: rec
            .depth_exact
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(d, &c)| (d as u32, c))
            .collect(),
    };
    j.errors = rec
        .errno_counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(e, &c)| ErrnoCount { errno: e as i32, count: c })
        .collect();
    j.error = rec.first_error.map(|(_, e)| e).unwrap_or(0);
    j
}

fn merge_series(a: &mut Vec<IntervalPoint>, b: &[IntervalPoint]) {
    for (k, p) in b.iter().enumerate() {
        match a.get_mut(k) {
            Some(q) => {
                let sum = q.clat_mean_ns * q.ios as f64 + p.clat_mean_ns * p.ios as f64;
                q.bytes += p.bytes;
                q.ios += p.ios;
                q.end_ns = q.end_ns.max(p.end_ns);
                q.dur_ns = q.dur_ns.max(p.dur_ns);
                q.clat_mean_ns = if q.ios == 0 { 0.0 } else { sum / q.ios as f64 };
            }
            None => a.push(p.clone()),
        }
    }
}

/// fio's `unified_rw_reporting` "mixed" direction (stat.c `sum_thread_stats` into one ddir):
/// read, write and trim summed, their latency histograms merged exactly, the interval series
/// added point by point and bw/iops samples recomputed from it (none when no input had any:
/// `disable_bw_measurement`).
pub fn mixed_dir(dirs: &[&DirStats], interval_ns: u64, pcts: &[f64]) -> DirStats {
    let mut m = DirStats::default();
    for d in dirs {
        m.io_bytes += d.io_bytes;
        m.total_ios += d.total_ios;
        m.issued_ios += d.issued_ios;
        m.short_ios += d.short_ios;
        m.drop_ios += d.drop_ios;
        m.failed_ios += d.failed_ios;
        m.runtime_ns = m.runtime_ns.max(d.runtime_ns);
        m.slat = m.slat.merged(&d.slat, pcts);
        m.clat = m.clat.merged(&d.clat, pcts);
        m.lat = m.lat.merged(&d.lat, pcts);
        merge_series(&mut m.series, &d.series);
    }
    if dirs.iter().any(|d| d.bw.samples > 0 || d.iops.samples > 0) {
        let (bw, iops) = series_sample_stats(&m.series, interval_ns);
        m.bw = bw;
        m.iops = iops;
    }
    m
}

/// Every reporting group of `jobs`, by ascending group id, each from its members.
pub fn groups(jobs: &[JobResult], pcts: &[f64]) -> Vec<GroupResult> {
    let mut gids: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
    gids.sort_unstable();
    gids.dedup();
    gids.into_iter()
        .map(|g| {
            let members: Vec<(usize, &JobResult)> =
                jobs.iter().enumerate().filter(|(_, j)| j.groupid == g).collect();
            group(g, &members, pcts)
        })
        .collect()
}

/// A reporting group from its jobs: counts and latency histograms merged exactly; runtime the
/// longest job's (fio) and the window from first start to last end (iolab).
pub fn group(groupid: u32, jobs: &[(usize, &JobResult)], pcts: &[f64]) -> GroupResult {
    let runtime_ns = jobs.iter().map(|(_, j)| j.runtime_ns).max().unwrap_or(0);
    let start = jobs.iter().map(|(_, j)| j.start_ns).min().unwrap_or(0);
    let end = jobs.iter().map(|(_, j)| j.start_ns + j.runtime_ns).max().unwrap_or(0);
    let window_ns = end.saturating_sub(start);
    let interval_ns = jobs.first().map(|(_, j)| j.interval_ns).unwrap_or(0);
    let mut g = GroupResult {
        groupid,
        jobs: jobs.iter().map(|(i, _)| *i).collect(),
        runtime_ns,
        window_ns,
        ..Default::default()
    };
    for (_, j) in jobs {
        g.depth.merge(&j.depth);
        g.cpu.add(&j.cpu);
    }
    for dir in DIRS {
        let mut s = DirStats::default();
        let (mut min_run, mut max_run) = (u64::MAX, 0u64);
        let (mut min_bw, mut max_bw) = (f64::INFINITY, 0f64);
        for (_, j) in jobs {
            let d = j.dir(dir);
            s.io_bytes += d.io_bytes;
            s.total_ios += d.total_ios;
            s.issued_ios += d.issued_ios;
            s.short_ios += d.short_ios;
            s.drop_ios += d.drop_ios;
            s.failed_ios += d.failed_ios;
            s.slat = s.slat.merged(&d.slat, pcts);
            s.clat = s.clat.merged(&d.clat, pcts);
            s.lat = s.lat.merged(&d.lat, pcts);
            s.sched_lat = s.sched_lat.merged(&d.sched_lat, pcts);
            s.datasync_ios += d.datasync_ios;
            merge_series(&mut s.series, &d.series);
            if d.runtime_ns > 0 {
                min_run = min_run.min(d.runtime_ns);
                max_run = max_run.max(d.runtime_ns);
                min_bw = min_bw.min(d.bw_bytes_per_sec());
                max_bw = max_bw.max(d.bw_bytes_per_sec());
            }
        }
        s.runtime_ns = max_run;
        let (bw, iops) = series_sample_stats(&s.series, interval_ns);
        s.bw = bw;
        s.iops = iops;
        let gd = GroupDir {
            agg_bw_bytes: s.bw_bytes_per_sec(),
            window_bw_bytes: if window_ns == 0 || max_run == 0 {
                0.0
            } else {
                s.io_bytes as f64 * 1e9 / window_ns as f64
            },
            min_run_ns: if max_run == 0 { 0 } else { min_run },
            max_run_ns: max_run,
            min_bw_bytes: if max_run == 0 { 0.0 } else { min_bw },
            max_bw_bytes: max_bw,
            stats: s,
        };
        match dir {
            IoDir::Read => g.read = gd,
            IoDir::Write => g.write = gd,
            IoDir::Trim => g.trim = gd,
            IoDir::Sync => g.sync = gd,
        }
    }
    g
}
