//! Fitting a device profile to the sweep (see `iolab_model::device::profile` for the model).
//!
//! Per direction:
//! 1. **Service time vs size**: the QD1 full-span random points at 4 KiB, 64 KiB and 1 MiB give
//!    the mean time per command (1/IOPS at QD1, so host overhead between commands counts as
//!    the device's); ordinary least squares of t = a + len·k gives the fixed part a and the
//!    per-command transfer rate 1/k.
//! 2. **Seek distance**: the QD1 4 KiB random point over a small span against the full span:
//!    the difference over the difference of E[√d] ((8/15)·√(span/capacity) for uniform
//!    jumps) is the √ coefficient; the fixed part is what remains at d = 0.
//! 3. **Streaming**: the QD1 128 KiB sequential point minus its transfer time.
//! 4. **Parallelism (M/M/c-style)**: the c in 1..=1024 whose d / (t·(1 + (d − 1)/c)) best
//!    matches the QD 1/4/16/64 4 KiB IOPS in log space (grid search; ties go to the smaller c).
//! 5. **Bandwidth cap**: the deep 1 MiB sequential point's bandwidth, kept when the fitted
//!    servers would promise more than 1.1 times it.
//! 6. **Shape**: the QD1 4 KiB full-span latency percentiles divided by their mean.

use crate::error::CalibrateError;
use crate::metrics::{self, Metrics};
use crate::predict;
use crate::sweep::{small_span, Point};
use iolab_core::IoDir;
use iolab_model::device::profile::{DeviceProfile, DirProfile, FitPoint, PROFILE_VERSION};
use iolab_model::device::DeviceSpec;
use iolab_stats::RunResult;

/// One measured point.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub point: Point,
    pub span: u64,
    pub m: Metrics,
    /// Completion-latency quantiles / mean: `[q, x]`, q from 0 to 1.
    pub shape: Vec<[f64; 2]>,
    /// The job that ran (fio job file text).
    pub job: String,
}

/// Takes a point's figures out of its result; `span` is the bytes its job covered.
pub fn measured(
    point: Point,
    r: &RunResult,
    job: &str,
    span: u64,
) -> Result<Measured, CalibrateError> {
    let g = r.groups.first().ok_or_else(|| CalibrateError::Point {
        point: point.label(),
        why: "the run produced no result".into(),
    })?;
    let m = metrics::of_group(g, point.dir());
    if m.ios == 0 {
        return Err(CalibrateError::Point { point: point.label(), why: "no I/O completed".into() });
    }
    let lat = &g.dir(point.dir()).stats.clat;
    let mean = lat.mean.max(1.0);
    let mut shape = vec![[0.0, lat.min as f64 / mean]];
    for p in &lat.percentiles {
        if p.pct <= 99.99 {
            shape.push([p.pct / 100.0, p.value as f64 / mean]);
        }
    }
    let last = shape.last().map_or(1.0, |s| s[1]);
    shape.push([1.0, last]);
    for i in 1..shape.len() {
        shape[i][1] = shape[i][1].max(shape[i - 1][1]);
    }
    close_tail(&mut shape);
    Ok(Measured { point, span, m, shape, job: job.to_string() })
}

/// Puts the mass beyond the last percentile (stalls rarer than 1 in 10,000 that still move
/// the mean) into the last segment, so the quantile function's mean is 1: draws then keep
/// the measured p50/p99 and the measured mean at once.
fn close_tail(shape: &mut [[f64; 2]]) {
    let n = shape.len();
    if n < 3 {
        return;
    }
    let body: f64 =
        shape[..n - 1].windows(2).map(|w| (w[1][0] - w[0][0]) * (w[0][1] + w[1][1]) / 2.0).sum();
    let (qa, xa) = (shape[n - 2][0], shape[n - 2][1]);
    let width = 1.0 - qa;
    if width > 0.0 && body < 1.0 {
        shape[n - 1][1] = (2.0 * (1.0 - body) / width - xa).max(xa);
    }
}

fn find(ms: &[Measured], dir: IoDir, f: impl Fn(&Point) -> bool) -> Option<&Measured> {
    ms.iter().find(|m| m.point.dir() == dir && f(&m.point))
}

/// Mean seconds per command at QD1.
fn t_of(m: &Measured) -> f64 {
    1.0 / m.m.iops.max(1e-9)
}

/// Ordinary least squares y = a + b·x.
fn ols(xy: &[(f64, f64)]) -> (f64, f64) {
    let n = xy.len() as f64;
    let (sx, sy) = xy.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = xy.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xy.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

/// E[√d] for uniform random jumps within the first `span` of `cap` bytes.
fn mean_sqrt_jump(span: u64, cap: u64) -> f64 {
    8.0 / 15.0 * (span as f64 / cap.max(1) as f64).sqrt()
}

fn fit_dir(ms: &[Measured], dir: IoDir, cap: u64) -> Option<DirProfile> {
    let qd1 =
        |bs: u64| find(ms, dir, |p| p.random() && p.iodepth == 1 && p.full_span && p.bs == bs);
    let sizes: Vec<(f64, f64)> = [4096u64, 65536, 1 << 20]
        .iter()
        .filter_map(|&b| qd1(b).map(|m| (b as f64, t_of(m))))
        .collect();
    let (_, k) = ols(&sizes);
    let k = if k > 0.0 { k } else { 1e-12 };
    let rate = 1.0 / k;
    let full = qd1(4096)?;
    let small = find(ms, dir, |p| p.random() && p.iodepth == 1 && !p.full_span);
    let xfer4k = 4096.0 * k;
    let t_full = t_of(full) - xfer4k;
    let (e_full, e_small) = (mean_sqrt_jump(cap, cap), mean_sqrt_jump(small_span(cap), cap));
    let t_small = small.map_or(t_full, |m| t_of(m) - xfer4k);
    let seek = ((t_full - t_small) / (e_full - e_small)).max(0.0);
    let base = (t_full - seek * e_full).max(0.0);
    let seq = find(ms, dir, |p| !p.random() && p.iodepth == 1)
        .map_or(base, |m| (t_of(m) - m.point.bs as f64 * k).max(0.0));
    let t_rand = t_of(full);
    let depth_pts: Vec<(u32, f64)> = ms
        .iter()
        .filter(|m| {
            m.point.dir() == dir && m.point.random() && m.point.bs == 4096 && m.point.full_span
        })
        .map(|m| (m.point.iodepth, m.m.iops))
        .collect();
    let servers = fit_servers(&depth_pts, t_rand);
    let cap_bw = find(ms, dir, |p| !p.random() && p.iodepth > 1).and_then(|m| {
        let t1m = base + seek * e_full + (1 << 20) as f64 * k;
        let d = f64::from(m.point.iodepth);
        let promised = d / (1.0 + (d - 1.0) / f64::from(servers)) * (1 << 20) as f64 / t1m;
        (promised > 1.1 * m.m.bw_bytes).then_some(m.m.bw_bytes)
    });
    Some(DirProfile {
        base_us: base * 1e6,
        seq_base_us: seq * 1e6,
        seek_sqrt_us: seek * 1e6,
        seek_linear_us: 0.0,
        xfer_bytes_per_sec: rate.min(1e13),
        servers,
        max_bytes_per_sec: cap_bw.unwrap_or(0.0),
        max_iops: 0.0,
        shape: full.shape.clone(),
    })
}

/// Grid search of c in 1..=1024 over log IOPS = log(d / (t·(1 + (d − 1)/c))).
fn fit_servers(pts: &[(u32, f64)], t: f64) -> u32 {
    let err = |c: u32| -> f64 {
        pts.iter()
            .filter(|(_, iops)| *iops > 0.0)
            .map(|&(d, iops)| {
                let d = f64::from(d);
                let pred = d / (t * (1.0 + (d - 1.0) / f64::from(c)));
                (pred / iops).ln().powi(2)
            })
            .sum()
    };
    (1..=1024u32)
        .fold((1u32, f64::INFINITY), |(bc, be), c| {
            let e = err(c);
            if e < be - 1e-12 {
                (c, e)
            } else {
                (bc, be)
            }
        })
        .0
}

/// The profile of a sweep. Without write points (a read-only calibration) the write curves
/// are the read ones and `write_cache` says `not measured`.
pub fn fit(name: &str, cap: u64, ms: &[Measured], seed: u64, wrote: bool) -> DeviceProfile {
    let read = fit_dir(ms, IoDir::Read, cap).unwrap_or_else(fallback);
    let write = if wrote { fit_dir(ms, IoDir::Write, cap) } else { None };
    let write_cache = match &write {
        None => "not measured".to_string(),
        Some(w) if w.base_us < 0.5 * read.base_us => "write-back".into(),
        Some(_) => "write-through".into(),
    };
    let write = write.unwrap_or_else(|| read.clone());
    DeviceProfile {
        version: PROFILE_VERSION,
        name: name.to_string(),
        source: "calibrated".into(),
        capacity: cap,
        // No hard limit on commands in service: the stretch term models the sharing.
        servers: 4096,
        seed,
        write_cache,
        read,
        write,
        points: Vec::new(),
    }
}

fn fallback() -> DirProfile {
    DirProfile {
        base_us: 100.0,
        seq_base_us: 100.0,
        seek_sqrt_us: 0.0,
        seek_linear_us: 0.0,
        xfer_bytes_per_sec: 1e9,
        servers: 1,
        max_bytes_per_sec: 0.0,
        max_iops: 0.0,
        shape: vec![[0.0, 1.0], [1.0, 1.0]],
    }
}

/// The profile's prediction of every sweep point beside the measurement.
pub fn errors(profile: &DeviceProfile, ms: &[Measured]) -> Result<Vec<FitPoint>, CalibrateError> {
    let dev = DeviceSpec::Profile(Box::new(profile.clone()));
    let mut out = Vec::new();
    for m in ms {
        let parsed = iolab_job::parse_str("point", &m.job)?;
        let r = predict::predict(&parsed.jobs, &dev)?;
        let p = r.groups.first().map(|g| metrics::of_group(g, m.point.dir())).unwrap_or_default();
        out.push(FitPoint {
            rw: m.point.rw.to_string(),
            bs: m.point.bs,
            iodepth: m.point.iodepth,
            span: m.span,
            measured_iops: round(m.m.iops),
            predicted_iops: round(p.iops),
            measured_p50_us: round(m.m.p50_us),
            predicted_p50_us: round(p.p50_us),
            measured_p99_us: round(m.m.p99_us),
            predicted_p99_us: round(p.p99_us),
            iops_error: round(metrics::rel_error(p.iops, m.m.iops)),
        });
    }
    Ok(out)
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
