//! Steady-state detection over an interval series, as pure functions.
//!
//! fio's criteria (steadystate.c `steadystate_deviation`, `steadystate_slope`; option parsing
//! in options.c `str_steadystate_cb`): over a window of `ss_dur/ss_interval` samples,
//! * deviation (`iops`, `bw`, `lat`): max |xᵢ − mean|, or `100·maxdev/mean` with `%`;
//! * slope (`iops_slope`, `bw_slope`, `lat_slope`): the least-squares slope with x = 0..n−1
//!   (equal spacing assumed, as fio does), or `100·slope/mean` with `%`;
//!
//! attained when the criterion's absolute value is strictly below the limit. The SNIA Solid
//! State Storage Performance Test Specification (PTS 2.0.2, §3 "Steady State") uses a
//! five-round window: the data excursion (max − min) ≤ 20 % of the mean, and the excursion of
//! the best-fit line across the window (|slope|·(n−1)) ≤ 10 % of the mean.

use iolab_core::units::{parse_size, parse_time, KbBase, TimeUnitDefault, UnitError};
use serde::{Deserialize, Serialize};

use crate::result::SteadyStateReport;

/// What the criterion looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SsMetric {
    Iops,
    Bw,
    Lat,
}

/// A parsed `ss=` value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsCriterion {
    pub metric: SsMetric,
    /// `_slope` variant: least-squares slope instead of maximum deviation.
    pub slope: bool,
    /// Limit: percent when `percent`, else IOPS, bytes/s (bw) or ns (lat).
    pub limit: f64,
    pub percent: bool,
}

/// Why an `ss=` value was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SsParseError {
    #[error("steadystate '{input}': unknown criterion '{name}'; expected iops, iops_slope, bw, bw_slope, lat or lat_slope")]
    UnknownCriterion { input: String, name: String },
    #[error("steadystate '{input}': a threshold must follow the criterion, e.g. iops:20%")]
    MissingLimit { input: String },
    #[error("steadystate '{input}': threshold '{limit}' is not a number")]
    BadLimit { input: String, limit: String },
    #[error("steadystate '{input}': {source}")]
    Unit {
        input: String,
        #[source]
        source: UnitError,
    },
}

impl SsCriterion {
    /// fio's default `ss=iops_slope:0.01%`.
    pub const FIO_DEFAULT: SsCriterion =
        SsCriterion { metric: SsMetric::Iops, slope: true, limit: 0.01, percent: true };

    /// Parse fio's `ss=` syntax: `iops:20%`, `bw_slope:0.1%`, `iops:500`, `bw:10m` (bytes/s,
    /// fio's size units), `lat:100us` (a time; bare numbers are µs as fio's
    /// `check_str_time`).
    pub fn parse(s: &str, kb_base: KbBase) -> Result<SsCriterion, SsParseError> {
        let (name, limit) = match s.split_once(':') {
            Some((n, l)) if !l.trim().is_empty() => (n.trim(), l.trim()),
            _ => return Err(SsParseError::MissingLimit { input: s.into() }),
        };
        let (metric, slope) = match name.to_ascii_lowercase().as_str() {
            "iops" => (SsMetric::Iops, false),
            "iops_slope" => (SsMetric::Iops, true),
            "bw" => (SsMetric::Bw, false),
            "bw_slope" => (SsMetric::Bw, true),
            "lat" => (SsMetric::Lat, false),
            "lat_slope" => (SsMetric::Lat, true),
            _ => return Err(SsParseError::UnknownCriterion { input: s.into(), name: name.into() }),
        };
        let bad = || SsParseError::BadLimit { input: s.into(), limit: limit.into() };
        let unit = |source| SsParseError::Unit { input: s.into(), source };
        if let Some(p) = limit.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| bad())?;
            return Ok(SsCriterion { metric, slope, limit: v, percent: true });
        }
        let limit = match metric {
            SsMetric::Iops => limit.parse::<f64>().map_err(|_| bad())?,
            SsMetric::Bw => parse_size(limit, kb_base).map_err(unit)? as f64,
            SsMetric::Lat => parse_time(limit, TimeUnitDefault::Micros).map_err(unit)?.0 as f64,
        };
        Ok(SsCriterion { metric, slope, limit, percent: false })
    }

    /// Evaluate the criterion on one full window.
    pub fn check(&self, window: &[f64]) -> SsCheck {
        let mean = mean(window);
        let max_deviation = max_deviation(window);
        let slope = slope(window);
        let raw = if self.slope { slope } else { max_deviation };
        let criterion = if self.percent {
            if mean == 0.0 {
                f64::INFINITY
            } else {
                100.0 * raw / mean
            }
        } else {
            raw
        };
        SsCheck { mean, max_deviation, slope, criterion, attained: criterion.abs() < self.limit }
    }

    /// Slide a window of `n` samples over `series`; the index of the last sample of the first
    /// window that attains the criterion (fio stops the job there).
    pub fn first_attained(&self, series: &[f64], n: usize) -> Option<usize> {
        if n == 0 || series.len() < n {
            return None;
        }
        (n..=series.len()).find(|&end| self.check(&series[end - n..end]).attained).map(|e| e - 1)
    }
}

/// fio's `steadystate{}` result for a finished job: slide a window of `n` samples over the
/// interval series (`iops`, `bw` in bytes/s, `lat` mean clat in ns, all the same length) and
/// report the first window that attains the criterion, or the last window if none does.
/// `ss_text` is the option as written; `interval_ns` the sample spacing (fio `ss_interval`).
pub fn steady_report(
    crit: &SsCriterion,
    ss_text: &str,
    n: usize,
    interval_ns: u64,
    iops: &[f64],
    bw: &[f64],
    lat: &[f64],
) -> SteadyStateReport {
    let series = match crit.metric {
        SsMetric::Iops => iops,
        SsMetric::Bw => bw,
        SsMetric::Lat => lat,
    };
    let len = series.len();
    let (end, attained) = match crit.first_attained(series, n) {
        Some(e) => (e + 1, true),
        None => (len, false),
    };
    let start = end.saturating_sub(n);
    let check = crit.check(&series[start..end]);
    let cut = |xs: &[f64]| xs.get(start..end.min(xs.len())).unwrap_or(&[]).to_vec();
    SteadyStateReport {
        ss: ss_text.to_string(),
        rule: Some(*crit),
        duration_ns: n as u64 * interval_ns,
        attained,
        criterion: check.criterion,
        max_deviation: check.max_deviation,
        slope: check.slope,
        iops: cut(iops),
        bw: cut(bw),
        lat: if crit.metric == SsMetric::Lat { cut(lat) } else { Vec::new() },
    }
}

/// The outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsCheck {
    pub mean: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// The number compared with the limit (percent or absolute).
    pub criterion: f64,
    pub attained: bool,
}

pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// max |xᵢ − mean|.
pub fn max_deviation(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m).abs()).fold(0.0, f64::max)
}

/// Least-squares slope per sample, x = 0..n−1 (0 for fewer than two samples).
pub fn slope(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    if xs.len() < 2 {
        return 0.0;
    }
    let (mut sx, mut sy, mut sxy, mut sxx) = (0.0, 0.0, 0.0, 0.0);
    for (i, &y) in xs.iter().enumerate() {
        let x = i as f64;
        sx += x;
        sy += y;
        sxy += x * y;
        sxx += x * x;
    }
    (sxy - sx * sy / n) / (sxx - sx * sx / n)
}

/// SNIA PTS steady state on one window: range ≤ 20 % of the mean and the best-fit line's
/// excursion across the window ≤ 10 % of the mean.
pub fn snia_pts(window: &[f64]) -> bool {
    if window.len() < 2 {
        return false;
    }
    let m = mean(window);
    if m <= 0.0 {
        return false;
    }
    let max = window.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = window.iter().copied().fold(f64::INFINITY, f64::min);
    let excursion = slope(window).abs() * (window.len() - 1) as f64;
    max - min <= 0.2 * m && excursion <= 0.1 * m
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        let k = KbBase::K1024;
        let c = SsCriterion::parse("iops:20%", k).unwrap();
        assert_eq!((c.metric, c.slope, c.limit, c.percent), (SsMetric::Iops, false, 20.0, true));
        let c = SsCriterion::parse("bw_slope:0.1%", k).unwrap();
        assert_eq!((c.metric, c.slope, c.limit, c.percent), (SsMetric::Bw, true, 0.1, true));
        assert_eq!(SsCriterion::parse("bw:10m", k).unwrap().limit, 10.0 * 1048576.0);
        assert_eq!(SsCriterion::parse("lat:100", k).unwrap().limit, 100_000.0);
        assert_eq!(SsCriterion::parse("lat_slope:2ms", k).unwrap().limit, 2e6);
        assert!(matches!(
            SsCriterion::parse("iopz:20%", k),
            Err(SsParseError::UnknownCriterion { .. })
        ));
        assert!(matches!(SsCriterion::parse("iops", k), Err(SsParseError::MissingLimit { .. })));
        assert!(matches!(SsCriterion::parse("iops:x%", k), Err(SsParseError::BadLimit { .. })));
    }

    #[test]
    fn report_of_first_attaining_window() {
        let iops = [100.0, 500.0, 1000.0, 1010.0, 990.0, 1000.0, 1005.0];
        let bw: Vec<f64> = iops.iter().map(|x| x * 4096.0).collect();
        let c = SsCriterion::parse("iops:5%", KbBase::K1024).unwrap();
        let r = steady_report(&c, "iops:5%", 3, 1_000_000_000, &iops, &bw, &[]);
        assert!(r.attained);
        assert_eq!(r.iops, [1000.0, 1010.0, 990.0]);
        assert_eq!(r.bw[0], 4_096_000.0);
        assert!((r.criterion - 1.0).abs() < 1e-9);
        assert_eq!(r.duration_ns, 3_000_000_000);
        let strict = SsCriterion::parse("iops:0.1%", KbBase::K1024).unwrap();
        let r = steady_report(&strict, "iops:0.1%", 3, 1_000_000_000, &iops, &bw, &[]);
        assert!(!r.attained);
        assert_eq!(r.iops, [990.0, 1000.0, 1005.0]);
        // A window longer than the series: nothing attained, empty data, no panic.
        let r = steady_report(&c, "iops:5%", 30, 1_000_000_000, &iops, &bw, &[]);
        assert!(!r.attained);
    }

    #[test]
    fn slope_of_a_line() {
        let xs: Vec<f64> = (0..10).map(|i| 3.0 + 2.5 * i as f64).collect();
        assert!((slope(&xs) - 2.5).abs() < 1e-12);
        assert_eq!(max_deviation(&[1.0, 2.0, 3.0]), 1.0);
    }
}
