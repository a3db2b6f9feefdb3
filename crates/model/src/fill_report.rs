//! What `iolab fill` reports: how many reads, and how long at a given IOPS, it takes to fill a
//! cache of N entries; the spread (coupon-collector percentiles, a seeded Monte-Carlo check)
//! and where an observation falls; with a larger working set, LRU's steady hit ratio. The
//! maths is [`crate::fill`] (notes/caches-and-models.md §5); this file gathers the figures
//! into one serialisable report and its text table.

use crate::fill::{Fill, FillError, Oversubscribed, Pattern};
use iolab_core::units::quote;
use serde::Serialize;
use std::fmt::Write as _;

/// Why the figures could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FillReportError {
    #[error("{flag}: count `{value}`: {why}")]
    Count { flag: &'static str, value: String, why: String },
    #[error("--pattern: {0}")]
    Pattern(String),
    #[error("--pattern: {0}")]
    Model(#[from] FillError),
    #[error("--iops {0:?}: expected 0.001 to 1e12 reads per second")]
    Iops(f64),
    #[error("--observed-passes {0:?}: expected a number of passes > 0 (at most 1e12)")]
    Observed(f64),
    #[error("--working-set {ws} is smaller than --entries {n}: the cache never fills")]
    WorkingSet { ws: u64, n: u64 },
    #[error("--monte-carlo {runs} over {n} entries needs {gib:.1} GiB of memory (at most {max:.0} GiB); expected fewer --entries, or no --monte-carlo (the model needs no simulation)")]
    McMemory { runs: usize, n: u64, gib: f64, max: f64 },
    #[error("--monte-carlo {runs} over {n} entries would draw about {draws:.1e} random numbers (at most {MC_MAX_DRAWS:.0e}); expected fewer runs or --entries")]
    McDraws { runs: usize, n: u64, draws: f64 },
}

/// What to compute; with the `clap` feature, also `iolab fill`'s flags (one type: no
/// flag-by-flag conversion in the binary).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct FillQuery {
    /// Cache entries (a count: 1M = 1,000,000; k, M, G are powers of 1000).
    #[cfg_attr(feature = "clap", arg(long))]
    pub entries: String,
    /// Reads per second, to turn reads into wall-clock time.
    #[cfg_attr(feature = "clap", arg(long))]
    pub iops: Option<f64>,
    /// An observed number of passes (reads / entries) until the cache was full.
    #[cfg_attr(feature = "clap", arg(long))]
    pub observed_passes: Option<f64>,
    /// uniform (independent draws, fio norandommap), randommap (fio default: each block once
    /// per pass) or zipf:S.
    #[cfg_attr(feature = "clap", arg(long, default_value = "uniform"))]
    pub pattern: String,
    /// Also simulate this many seeded fills and report their spread.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub monte_carlo: usize,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// A working set larger than the cache (same count syntax): LRU steady-state hit ratio and
    /// the time to reach it.
    #[cfg_attr(feature = "clap", arg(long))]
    pub working_set: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Quantile {
    pub q: f64,
    pub passes: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub passes: f64,
    pub reads: f64,
    pub seconds: Option<f64>,
    pub filled_fraction: f64,
    pub p_all_filled: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MonteCarlo {
    pub runs: usize,
    pub completed: usize,
    pub mean_passes: f64,
    pub passes: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Observed {
    pub passes: f64,
    pub percentile: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct WorkingSet {
    pub working_set: u64,
    pub steady_hit_ratio: f64,
    pub reads_to_full: f64,
    #[serde(rename = "reads_to_95pct_of_steady_hit_ratio")]
    pub reads_to_95pct: f64,
}

/// The figures `iolab fill` prints (its `--json` document).
#[derive(Clone, Debug, Serialize)]
pub struct FillReport {
    pub entries: u64,
    pub pattern: String,
    pub expected_reads: f64,
    pub expected_passes: f64,
    pub stddev_passes: f64,
    pub quantiles_passes: Vec<Quantile>,
    pub table: Vec<Row>,
    pub monte_carlo: Option<MonteCarlo>,
    pub observed: Option<Observed>,
    /// A signal ended the Monte Carlo runs early: it covers the runs finished until then.
    pub interrupted: bool,
    pub working_set: Option<WorkingSet>,
    #[serde(skip)]
    seed: u64,
    #[serde(skip)]
    iops: Option<f64>,
}

/// A count with decimal suffixes (k, M, G, T), 1 to 10^15.
pub fn parse_count(s: &str, flag: &'static str) -> Result<u64, FillReportError> {
    let err = |why: String| FillReportError::Count { flag, value: quote(s).to_string(), why };
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1e3,
                'm' => 1e6,
                'g' => 1e9,
                't' => 1e12,
                _ => return Err(err(format!("unknown suffix `{c}` (expected k, M, G or T)"))),
            };
            (&t[..i], m)
        }
        _ => (t, 1.0),
    };
    let v: f64 = num.parse().map_err(|_| err("expected a number".into()))?;
    let v = v * mult;
    if !(1.0..1e15).contains(&v) {
        return Err(err("must be between 1 and 10^15".into()));
    }
    Ok(v.round() as u64)
}

/// Most random draws `--monte-carlo` makes in total (about a minute on one core).
const MC_MAX_DRAWS: f64 = 4e9;
/// Most memory `--monte-carlo` holds (bitmap, and the CDF table for zipf).
const MC_MAX_BYTES: f64 = 2.0 * (1u64 << 30) as f64;

/// Refuses a Monte-Carlo check that would run for hours or exhaust memory, before it starts.
fn check_mc_cost(f: &Fill, runs: usize, cap: u64) -> Result<(), FillReportError> {
    let c = f.monte_carlo_cost(runs, cap);
    let gib = (1u64 << 30) as f64;
    if c.bytes > MC_MAX_BYTES {
        let (gib, max) = (c.bytes / gib, MC_MAX_BYTES / gib);
        return Err(FillReportError::McMemory { runs, n: f.n, gib, max });
    }
    if c.draws > MC_MAX_DRAWS {
        return Err(FillReportError::McDraws { runs, n: f.n, draws: c.draws });
    }
    Ok(())
}

/// The flags checked before any work.
fn check(q: &FillQuery) -> Result<(u64, Fill), FillReportError> {
    let n = parse_count(&q.entries, "--entries")?;
    let pattern: Pattern = q.pattern.parse().map_err(FillReportError::Pattern)?;
    if let Some(iops) = q.iops.filter(|i| !(1e-3..=1e12).contains(i)) {
        return Err(FillReportError::Iops(iops));
    }
    if let Some(o) = q.observed_passes.filter(|&o| !(o > 0.0 && o <= 1e12)) {
        return Err(FillReportError::Observed(o));
    }
    let f = Fill::try_new(n, pattern)?;
    if q.monte_carlo > 0 {
        check_mc_cost(&f, q.monte_carlo, 1e12 as u64)?;
    }
    Ok((n, f))
}

/// The passes the table lists: 1..=10, then coarser steps to past the p99.9.
fn table_passes(top: f64) -> Vec<f64> {
    let mut passes: Vec<f64> = (1..=10).map(|p| p as f64).collect();
    let mut p = 12.0;
    while p <= top.ceil() + 1.0 && passes.len() < 60 {
        passes.push(p);
        p += if p < 20.0 {
            2.0
        } else if p < 50.0 {
            5.0
        } else {
            (p / 5.0).round()
        };
    }
    passes
}

impl FillReport {
    /// Compute every figure `q` asks for.
    pub fn compute(q: &FillQuery) -> Result<FillReport, FillReportError> {
        let (n, f) = check(q)?;
        let nf = n as f64;
        let mean = f.expected_reads();
        let quant: Vec<Quantile> = [0.5, 0.9, 0.95, 0.99, 0.999]
            .iter()
            .map(|&q| Quantile { q, passes: f.quantile(q) / nf })
            .collect();
        let top = quant.last().map_or(mean / nf, |q| q.passes);
        let table = table_passes(top)
            .into_iter()
            .map(|p| Row {
                passes: p,
                reads: p * nf,
                seconds: q.iops.map(|i| p * nf / i),
                filled_fraction: f.filled_fraction(p * nf),
                p_all_filled: f.cdf(p * nf),
            })
            .collect();
        let monte_carlo = (q.monte_carlo > 0).then(|| {
            let cap = (mean * 20.0).min(1e12) as u64;
            let runs = f.monte_carlo(q.monte_carlo, q.seed, cap);
            let done: Vec<f64> = runs.iter().flatten().map(|&r| r as f64 / nf).collect();
            let mean_passes = done.iter().sum::<f64>() / done.len().max(1) as f64;
            MonteCarlo { runs: runs.len(), completed: done.len(), mean_passes, passes: done }
        });
        let observed = q
            .observed_passes
            .map(|o| Observed { passes: o, percentile: f.percentile_of(o * nf) * 100.0 });
        let working_set = match q.working_set.as_deref() {
            None => None,
            Some(w) => Some(working_set(parse_count(w, "--working-set")?, n)?),
        };
        Ok(FillReport {
            entries: n,
            pattern: q.pattern.clone(),
            expected_reads: mean,
            expected_passes: mean / nf,
            stddev_passes: f.stddev() / nf,
            quantiles_passes: quant,
            table,
            monte_carlo,
            observed,
            interrupted: iolab_core::stop::requested(),
            working_set,
            seed: q.seed,
            iops: q.iops,
        })
    }
}

fn working_set(ws: u64, n: u64) -> Result<WorkingSet, FillReportError> {
    if ws < n {
        return Err(FillReportError::WorkingSet { ws, n });
    }
    let o = Oversubscribed { cache: n, working_set: ws };
    Ok(WorkingSet {
        working_set: ws,
        steady_hit_ratio: o.steady_hit_ratio(),
        reads_to_full: o.reads_to_full(),
        reads_to_95pct: o.reads_to_hit_ratio(0.95),
    })
}

fn duration(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.1} s")
    } else if secs < 7200.0 {
        format!("{:.1} min", secs / 60.0)
    } else if secs < 172_800.0 {
        format!("{:.1} h", secs / 3600.0)
    } else {
        format!("{:.1} d", secs / 86400.0)
    }
}

/// `96th`, `1st`, `12th`, `22nd`.
pub fn ordinal(p: f64) -> String {
    let r = p.round() as u64;
    let suf = match (r % 10, r % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{r}{suf}")
}

impl FillReport {
    fn time(&self, reads: f64) -> Option<String> {
        self.iops.map(|i| duration(reads / i))
    }

    /// The text `iolab fill` prints.
    pub fn text(&self) -> String {
        let (n, nf) = (self.entries, self.entries as f64);
        let mut o = format!("cache of {n} entries, {} reads\n", self.pattern);
        let _ = writeln!(
            o,
            "{:>7} {:>14} {:>12} {:>10} {:>14} {:>14}",
            "passes", "reads", "time", "filled", "entries filled", "P(all filled)"
        );
        for r in &self.table {
            let _ = writeln!(
                o,
                "{:>7} {:>14.0} {:>12} {:>9.3}% {:>14.0} {:>13.3}%",
                r.passes,
                r.reads,
                self.time(r.reads).unwrap_or_else(|| "-".into()),
                100.0 * r.filled_fraction,
                r.filled_fraction * nf,
                100.0 * r.p_all_filled
            );
        }
        let mean = self.expected_reads;
        let _ = writeln!(
            o,
            "expected reads to fill: {:.0} ({:.2} passes{}), stddev {:.2} passes",
            mean,
            mean / nf,
            self.time(mean).map(|t| format!(", {t}")).unwrap_or_default(),
            self.stddev_passes
        );
        let qline: Vec<String> = self
            .quantiles_passes
            .iter()
            .map(|q| format!("p{} {:.2}", q.q * 100.0, q.passes))
            .collect();
        let _ = writeln!(o, "percentiles (passes): {}", qline.join(", "));
        self.text_tail(&mut o);
        if self.interrupted {
            o.push_str(
                "interrupted: the Monte Carlo check covers the runs finished before the signal\n",
            );
        }
        o
    }

    /// The Monte-Carlo, observation and working-set lines.
    fn text_tail(&self, o: &mut String) {
        let (n, nf) = (self.entries, self.entries as f64);
        if let Some(mc) = &self.monte_carlo {
            let done = &mc.passes;
            let m = mc.mean_passes;
            let s = (done.iter().map(|x| (x - m).powi(2)).sum::<f64>()
                / (done.len().max(2) - 1) as f64)
                .sqrt();
            let (lo, hi) = done.iter().fold((f64::MAX, 0f64), |(l, h), &x| (l.min(x), h.max(x)));
            let _ = writeln!(
                o,
                "monte carlo (seed {}): {} of {} runs filled; mean {m:.2} passes, stddev {s:.2}, min {lo:.2}, max {hi:.2}",
                self.seed,
                done.len(),
                mc.runs
            );
        }
        if let Some(ob) = &self.observed {
            let _ = writeln!(
                o,
                "{} passes is the {} percentile of the {} model",
                ob.passes,
                ordinal(ob.percentile),
                self.pattern
            );
        }
        if let Some(w) = &self.working_set {
            let _ = writeln!(
                o,
                "working set {} > cache {n}: LRU steady-state hit ratio {:.4}; cache full after {:.0} reads ({:.3} cache sizes{}); 95 % of the steady hit ratio after {:.0} reads",
                w.working_set,
                w.steady_hit_ratio,
                w.reads_to_full,
                w.reads_to_full / nf,
                self.time(w.reads_to_full).map(|t| format!(", {t}")).unwrap_or_default(),
                w.reads_to_95pct
            );
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ordinals() {
        assert_eq!(parse_count("1M", "--entries").unwrap(), 1_000_000);
        assert_eq!(parse_count("500k", "--entries").unwrap(), 500_000);
        assert_eq!(parse_count("2000000", "--entries").unwrap(), 2_000_000);
        assert!(parse_count("1Q", "--entries").is_err());
        assert!(parse_count("0", "--entries").is_err());
        assert_eq!(
            (ordinal(95.9), ordinal(1.0), ordinal(12.0), ordinal(22.0)),
            ("96th".into(), "1st".into(), "12th".into(), "22nd".into())
        );
    }
}
