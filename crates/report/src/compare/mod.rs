//! `iolab compare A B [C…]`: line up result files (fio's JSON or iolab's, measured or
//! predicted) per job and direction, give each metric's difference from the first file, and
//! say whether it is beyond run-to-run noise.
//!
//! Noise comes from the per-interval samples a result already carries: fio's JSON keeps, per
//! job and direction, the mean, standard deviation and count of its interval IOPS and
//! bandwidth samples (`iops_mean`/`iops_stddev`/`iops_samples`, `bw_mean`/`bw_dev`/
//! `bw_samples`; fio's stat.c `add_ddir_status_json`), and iolab's device series keeps aqu-sz
//! and %util per interval. Two sides are compared with **Welch's unequal-variance t-test**
//! (two-sided, Welch–Satterthwaite degrees of freedom; [`welch`]), which needs only those three
//! numbers per side; the latency means use each side's per-I/O mean, deviation and count.
//! Latency percentiles have no per-interval samples in either format: each side's
//! distribution-free 95 % confidence interval ([`quantile::ci95`]) judges them instead, two
//! intervals apart being beyond noise.
//!
//! Reading is lenient where fio's own output is: text before the first `{` (fio's "note:"
//! lines) is skipped, and of several JSON documents (`--status-interval` with json) the last
//! one is used.

mod flags;
mod quantile;
mod read;
mod render;
mod welch;

pub use flags::{parse_alpha, parse_min_diff, renderer, CompareFlags, Renderer};
pub use read::{read_result, DeviceView, DirView, JobView, ResultView};
pub use render::{render_csv, render_html, render_json, render_text};
pub use welch::{welch, Samples, Welch};

use std::path::PathBuf;

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {what}")]
    Format { path: PathBuf, what: String },
    #[error("compare needs at least two result files, got {0}")]
    TooFew(usize),
    #[error("--alpha must be a number in (0, 0.5], got '{0}'")]
    Alpha(String),
    #[error("--min-diff must be a percentage in [0, 1000], got '{0}'")]
    MinDiff(String),
    #[error("--output-format: unknown format '{0}'; expected text, json, csv or html")]
    UnknownFormat(String),
    #[error("html page: {0}")]
    Page(#[from] iolab_viz::VizError),
    #[error("compare: stdin ('-') can be given once")]
    StdinTwice,
}

/// How a metric is read and which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    /// Neither direction is better (a device's queue depth).
    Neither,
}

/// One metric of one job and direction (or one device) on every side.
#[derive(Debug, Clone)]
pub struct Row {
    /// `job` name (with `#N` when a name repeats), or `device sda`.
    pub subject: String,
    /// `read`, `write`, `trim`, or `device`.
    pub dir: &'static str,
    pub metric: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// The value on each side, in file order; `None` where that side lacks it.
    pub values: Vec<Option<f64>>,
    /// The samples of each side's noise test, where the format keeps them.
    pub samples: Vec<Option<Samples>>,
    /// Each side's 95 % confidence interval, where the noise is judged by one (latency
    /// percentiles: [`quantile::ci95`]).
    pub cis: Vec<Option<(f64, f64)>>,
}

/// The verdict of one side against the baseline for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// (side − baseline) / baseline, in percent; `None` when either is missing or the
    /// baseline is zero.
    pub pct: Option<f64>,
    /// Welch's test, when both sides have at least two samples.
    pub test: Option<Welch>,
    /// For a percentile: whether the two sides' 95 % confidence intervals are apart.
    pub apart: Option<bool>,
    /// A latency difference under [`LAT_FLOOR_US`]: never significant, whatever its percent.
    pub small: bool,
}

/// Latency differences under this many µs are `negligible` at most: a timer read, a
/// context switch and a cache miss are of that order, and a null engine's or a RAM disk's
/// sub-µs latencies differ by 50 % from run to run for those reasons alone.
pub const LAT_FLOOR_US: f64 = 1.0;

impl Diff {
    /// `within noise`, `significant`, `negligible` (beyond noise but smaller than `min_pct`
    /// percent), or why there is no verdict.
    pub fn verdict(&self, alpha: f64, min_pct: f64) -> &'static str {
        let beyond = match (&self.test, self.apart) {
            (Some(t), _) => t.p < alpha,
            (None, Some(apart)) => apart,
            (None, None) => return if self.pct.is_none() { "n/a" } else { "no samples" },
        };
        match self.pct {
            None => "n/a",
            Some(p) if beyond && p.abs() >= min_pct && !self.small => "significant",
            Some(_) if beyond => "negligible",
            Some(_) => "within noise",
        }
    }
}

/// The whole comparison: the files, every row, and each side's differences from the first.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub files: Vec<String>,
    /// `fio-3.33`, `iolab-0.1.0 (simulated)`, … per file.
    pub sources: Vec<String>,
    pub alpha: f64,
    /// A difference beyond noise but smaller than this many percent is `negligible`.
    pub min_pct: f64,
    pub rows: Vec<Row>,
}

impl Comparison {
    /// Line the results up. The first is the baseline.
    pub fn new(results: &[ResultView], alpha: f64, min_pct: f64) -> Result<Self, CompareError> {
        if results.len() < 2 {
            return Err(CompareError::TooFew(results.len()));
        }
        if !(alpha > 0.0 && alpha <= 0.5) {
            return Err(CompareError::Alpha(alpha.to_string()));
        }
        if !(0.0..=1000.0).contains(&min_pct) {
            return Err(CompareError::MinDiff(min_pct.to_string()));
        }
        Ok(Comparison {
            files: results.iter().map(|r| r.file.clone()).collect(),
            sources: results.iter().map(|r| r.source.clone()).collect(),
            alpha,
            min_pct,
            rows: read::rows(results),
        })
    }

    /// Side `i`'s difference from the baseline on `row`.
    pub fn diff(&self, row: &Row, i: usize) -> Diff {
        let (a, b) = (row.values[0], row.values.get(i).copied().flatten());
        let pct = match (a, b) {
            (Some(a), Some(b)) if a != 0.0 && a.is_finite() && b.is_finite() => {
                Some((b - a) / a * 100.0)
            }
            (Some(a), Some(b)) if a == 0.0 && b == 0.0 => Some(0.0),
            _ => None,
        };
        let test = match (row.samples[0], row.samples.get(i).copied().flatten()) {
            (Some(x), Some(y)) => welch(x, y),
            _ => None,
        };
        let apart = match (row.cis.first().copied().flatten(), row.cis.get(i).copied().flatten()) {
            (Some(a), Some(b)) => Some(a.1 < b.0 || b.1 < a.0),
            _ => None,
        };
        let small = row.unit == "us"
            && matches!((a, b), (Some(a), Some(b)) if (b - a).abs() < LAT_FLOOR_US);
        Diff { pct, test, apart, small }
    }

    /// True when side `i` has every row the baseline has (and no other) and none differs
    /// significantly: a side missing a job or a direction is not "within noise", and
    /// neither is a comparison with nothing in it.
    pub fn within_noise(&self, i: usize) -> bool {
        !self.rows.is_empty()
            && self.unmatched(i).is_empty()
            && self
                .rows
                .iter()
                .all(|r| self.diff(r, i).verdict(self.alpha, self.min_pct) != "significant")
    }

    /// The `subject (dir)` blocks that side `i` or the baseline lacks, each once, with the
    /// side that has it: `("x (read)", "only in the baseline")`.
    pub fn unmatched(&self, i: usize) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = Vec::new();
        // A block is present on a side when any of its metrics is (a side without `slat_ns`
        // still has the job).
        let has = |r: &Row, side: usize| {
            self.rows.iter().any(|o| {
                o.subject == r.subject
                    && o.dir == r.dir
                    && o.values.get(side).copied().flatten().is_some()
            })
        };
        for r in &self.rows {
            let (a, b) = (has(r, 0), has(r, i));
            let side = match (a, b) {
                (true, false) => "only in the baseline",
                (false, true) => "not in the baseline",
                _ => continue,
            };
            let key = format!("{} ({})", r.subject, r.dir);
            if !out.iter().any(|(k, _)| *k == key) {
                out.push((key, side));
            }
        }
        out
    }
}
