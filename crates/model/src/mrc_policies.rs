//! What `iolab mrc TRACE --policy=P1,P2,…` reports: one miss-ratio curve per eviction policy
//! over the same cache sizes, from one read of the trace ([`crate::mrc::mini`]: full
//! simulations of every point when the trace fits the work budget or with `--exact`,
//! miniature simulations of a spatially sampled trace otherwise or with `--sample=R`), each
//! point with its method and stated error. JSON is one document per policy (`iolab mrc`'s
//! document with a `policy` key), an array of them when there are several.

use crate::mrc::mini::{self, MiniResult, Sample, SampleError};
use crate::mrc_report::MrcInputError;
use crate::policy::{self, PolicyInfo};
use iolab_trace::ahead::{ReadEnd, TracePath};
use iolab_trace::ObjectRequest;
use serde::Serialize;
use std::fmt::Write as _;

/// Replays of one request a run may spend by default, all (policy, size) pairs together:
/// the sample is cut to `WORK_BUDGET / pairs` requests (about a second of one core per 10^8 on
/// small caches). A trace within it gets full simulations.
pub const WORK_BUDGET: u64 = 100_000_000;
/// Fewest sampled requests the budget cuts a sample to, however many pairs.
const MIN_SAMPLE: usize = 1 << 16;
/// Smallest miniature cache measured: below `MIN_SCALED / R` entries a point is not reported.
pub const MIN_SCALED: f64 = 32.0;
/// Most policies one call takes (each name at most once, so the registry's size).
const MAX_POLICIES: usize = 64;

/// Why the curves could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PolicyCurveError {
    #[error("--policy: {0}")]
    Policy(String),
    #[error("--threads 0: expected at least 1 (default: every core)")]
    Threads,
    #[error(transparent)]
    Sample(#[from] SampleError),
    #[error(
        "--by-bytes: every request of the trace has size 0; byte miss ratios need the objects' \
         sizes (oracleGeneral's obj_size, a size column)"
    )]
    NoSizes,
    #[error(transparent)]
    Input(#[from] MrcInputError),
}

/// `--policy`'s list checked: known names (or aliases), no empty one, none twice.
pub fn parse_policies(list: &str) -> Result<Vec<&'static PolicyInfo>, PolicyCurveError> {
    let mut out: Vec<&'static PolicyInfo> = Vec::new();
    for (i, name) in list.split(',').map(str::trim).enumerate() {
        if name.is_empty() {
            let what = format!("name {} of the list is empty; expected e.g. lru,s3fifo,arc", i + 1);
            return Err(PolicyCurveError::Policy(what));
        }
        let p = policy::lookup(name).map_err(|e| PolicyCurveError::Policy(e.to_string()))?;
        if out.iter().any(|q| q.name == p.name) {
            return Err(PolicyCurveError::Policy(format!("`{}` is listed twice", p.name)));
        }
        if out.len() >= MAX_POLICIES {
            return Err(PolicyCurveError::Policy(format!("more than {MAX_POLICIES} names")));
        }
        out.push(p);
    }
    Ok(out)
}

/// How the points are computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Full simulations at rate 1 (`--exact`).
    Exact,
    /// Miniature simulations at this rate (`--sample=R`).
    Rate(f64),
    /// The rate that fits [`WORK_BUDGET`] (1 when the trace does).
    Auto,
}

/// The sample to fill for `pairs` (policy, size) replays.
pub fn new_sample(method: Method, pairs: usize) -> Result<Sample, PolicyCurveError> {
    Ok(match method {
        Method::Exact => Sample::fixed(1.0)?,
        Method::Rate(r) => Sample::fixed(r)?,
        Method::Auto => Sample::adaptive(budget(pairs)),
    })
}

fn budget(pairs: usize) -> usize {
    let b = WORK_BUDGET / pairs.max(1) as u64;
    (b as usize).clamp(MIN_SAMPLE, mini::MAX_SAMPLE)
}

/// Every object request of the trace at `src` into `s`, read once (decoded on a second thread,
/// [`iolab_trace::ahead`]). A stop request ends it early (the caller marks it interrupted).
pub fn sample_trace(src: TracePath<'_>, s: &mut Sample) -> Result<ReadEnd, PolicyCurveError> {
    let fill = |r: &mut dyn iolab_trace::TraceReader, objs: &mut Vec<ObjectRequest>| {
        objs.resize(4096, ObjectRequest::default());
        let k = r.read_objects(objs)?;
        objs.truncate(k);
        Ok::<(), MrcInputError>(())
    };
    let mut failed = None;
    let mut fed = 0u64;
    let end = iolab_trace::ahead::read_ahead(src, fill, |objs| {
        if iolab_core::stop::requested() {
            return false;
        }
        fed += objs.len() as u64;
        match objs.iter().try_for_each(|o| s.access(o.obj_id, o.size)) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok(ReadEnd { records: fed, ..end })
}

/// One row of a policy's table.
#[derive(Clone, Debug, Serialize)]
pub struct PolicyPoint {
    pub cache_entries: u64,
    /// Entries of the miniature cache simulated (`cache_entries` when exact).
    pub scaled_entries: u64,
    /// `exact` (a full simulation) or `miniature` (a sampled one).
    pub method: &'static str,
    /// False below the sample's resolution ([`MIN_SCALED`] scaled entries): ratios null.
    pub measured: bool,
    pub miss_ratio: Option<f64>,
    /// Stated absolute error of `miss_ratio` (0 when exact).
    pub expected_error: f64,
    /// With `--by-bytes`: missed bytes / requested bytes, and its stated error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_miss_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_expected_error: Option<f64>,
}

/// One policy's curve (`iolab mrc --policy=P --json`).
#[derive(Clone, Debug, Serialize)]
pub struct PolicyCurve {
    pub policy: &'static str,
    pub trace: String,
    pub format: String,
    pub interrupted: bool,
    /// `exact` or `miniature rate R`.
    pub method: String,
    pub sample_rate: f64,
    pub granularity: &'static str,
    pub requests: u64,
    pub sampled_requests: u64,
    pub sampled_keys: u64,
    /// Distinct objects (estimated from the sample when sampled).
    pub footprint_entries: f64,
    /// The smallest cache measured.
    pub resolution_entries: f64,
    /// The largest stated error of any point.
    pub expected_error: f64,
    pub skipped_malformed: u64,
    pub points: Vec<PolicyPoint>,
}

/// What was read, for [`curves`].
#[derive(Clone, Debug)]
pub struct Read {
    pub label: String,
    pub end: ReadEnd,
    pub interrupted: bool,
}

/// The cache sizes of the table: `sizes` as given, else `points` sizes spaced geometrically
/// from the sample's resolution to the footprint.
pub fn grid(s: &Sample, sizes: &[u64], points: usize) -> Vec<u64> {
    if !sizes.is_empty() {
        return sizes.to_vec();
    }
    let lo = resolution(s);
    let top = s.footprint().max(lo);
    let n = points.max(2);
    let mut out: Vec<u64> = (0..n)
        .map(|i| (lo * (top / lo).powf(i as f64 / (n - 1) as f64)).round().max(1.0) as u64)
        .collect();
    out.dedup();
    out
}

fn resolution(s: &Sample) -> f64 {
    if s.rate() >= 1.0 {
        1.0
    } else {
        (MIN_SCALED / s.rate()).ceil()
    }
}

/// Every policy's curve at `sizes`, on `threads` threads. With `by_bytes` the points carry
/// byte miss ratios too (refused when every request had size 0).
pub fn curves(
    s: &Sample,
    policies: &[&'static PolicyInfo],
    sizes: &[u64],
    threads: usize,
    by_bytes: bool,
    read: &Read,
) -> Result<Vec<PolicyCurve>, PolicyCurveError> {
    if by_bytes && s.max_size == 0 && s.requests > 0 {
        return Err(PolicyCurveError::NoSizes);
    }
    let res = mini::run(s, policies, sizes, threads);
    let per = sizes.len().max(1);
    Ok(policies
        .iter()
        .zip(res.chunks(per))
        .map(|(p, r)| curve(s, p.name, sizes, r, by_bytes, read))
        .collect())
}

fn curve(
    s: &Sample,
    policy: &'static str,
    sizes: &[u64],
    res: &[MiniResult],
    by_bytes: bool,
    read: &Read,
) -> PolicyCurve {
    let rate = s.rate();
    let (n, nb) = (s.requests as f64, s.total_bytes as f64);
    let ratio = |m: u64, total: f64| {
        if total > 0.0 {
            (m as f64 / (total * rate)).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let mr: Vec<f64> = res.iter().map(|r| ratio(r.misses, n)).collect();
    let bmr: Vec<f64> = res.iter().map(|r| ratio(r.miss_bytes, nb)).collect();
    let lo = resolution(s);
    let points: Vec<PolicyPoint> = (0..sizes.len())
        .map(|i| {
            let measured = sizes[i] as f64 >= lo;
            let err = mini::stated_error(res[i].sq_misses, n, rate, sizes[i], slope(sizes, &mr, i));
            let berr =
                mini::stated_error(res[i].sq_bytes, nb, rate, sizes[i], slope(sizes, &bmr, i));
            PolicyPoint {
                cache_entries: sizes[i],
                scaled_entries: res[i].scaled as u64,
                method: if rate >= 1.0 { "exact" } else { "miniature" },
                measured,
                miss_ratio: measured.then_some(mr[i]),
                expected_error: err,
                byte_miss_ratio: (by_bytes && measured).then_some(bmr[i]),
                byte_expected_error: by_bytes.then_some(berr),
            }
        })
        .collect();
    let method = if rate >= 1.0 { "exact".to_string() } else { format!("miniature rate {rate}") };
    PolicyCurve {
        policy,
        trace: read.label.clone(),
        format: read.end.format.to_string(),
        interrupted: read.interrupted,
        method,
        sample_rate: rate,
        granularity: "object",
        requests: s.requests,
        sampled_requests: s.len() as u64,
        sampled_keys: s.keys() as u64,
        footprint_entries: s.footprint(),
        resolution_entries: lo,
        expected_error: points
            .iter()
            .filter(|p| p.measured)
            .map(|p| p.expected_error)
            .fold(0.0, f64::max),
        skipped_malformed: read.end.skipped,
        points,
    }
}

/// The curve's change per unit of `ln(size)` around point `i`, from its neighbours (the
/// larger of the two sides', so a knee is not averaged away).
fn slope(sizes: &[u64], mr: &[f64], i: usize) -> f64 {
    let d = |a: usize, b: usize| {
        let (x, y) = ((sizes[a].max(1) as f64).ln(), (sizes[b].max(1) as f64).ln());
        if (y - x).abs() < 1e-12 {
            0.0
        } else {
            ((mr[b] - mr[a]) / (y - x)).abs()
        }
    };
    let left = if i > 0 { d(i - 1, i) } else { 0.0 };
    let right = if i + 1 < sizes.len() { d(i, i + 1) } else { 0.0 };
    left.max(right)
}

/// The tables one after the other, each with its commented header.
pub fn text(curves: &[PolicyCurve]) -> String {
    let mut o = String::new();
    for (i, c) in curves.iter().enumerate() {
        if i > 0 {
            o.push('\n');
        }
        one_text(&mut o, c);
    }
    o
}

fn one_text(o: &mut String, c: &PolicyCurve) {
    if c.interrupted {
        o.push_str("# interrupted: the curve covers the records read until the signal\n");
    }
    let _ = writeln!(
        o,
        "# {} ({}): {} requests, footprint {:.0} objects; {}, {}; objects (obj_id, size 1 each)",
        c.trace, c.format, c.requests, c.footprint_entries, c.policy, c.method
    );
    if c.skipped_malformed > 0 {
        let _ = writeln!(o, "# skipped malformed records: {}", c.skipped_malformed);
    }
    if c.sample_rate < 1.0 {
        let _ = writeln!(
            o,
            "# miniature simulations of {} sampled requests ({} keys) in caches scaled by {}; \
             caches below {:.0} entries are not measured (`-`); +- is the stated error ({} \
             standard errors)",
            c.sampled_requests,
            c.sampled_keys,
            c.sample_rate,
            c.resolution_entries,
            mini::ERROR_Z
        );
    }
    let bytes = c.points.iter().any(|p| p.byte_expected_error.is_some());
    let _ = write!(o, "{:>14} {:>10} {:>10}", "cache_entries", "miss", "+-");
    if bytes {
        let _ = write!(o, " {:>10} {:>10}", "byte_miss", "+-");
    }
    let _ = writeln!(o, "  method");
    for p in &c.points {
        let f = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"));
        let _ =
            write!(o, "{:>14} {:>10} {:>10.4}", p.cache_entries, f(p.miss_ratio), p.expected_error);
        if bytes {
            let be = p.byte_expected_error.unwrap_or(0.0);
            let _ = write!(o, " {:>10} {be:>10.4}", f(p.byte_miss_ratio));
        }
        let _ = writeln!(o, "  {}", p.method);
    }
}

/// `policy,cache_entries,miss_ratio,expected_error,byte_miss_ratio,byte_expected_error,method`
/// lines (empty cells where a ratio is not measured or not asked for).
pub fn csv(curves: &[PolicyCurve]) -> String {
    let mut o = String::from(
        "policy,cache_entries,miss_ratio,expected_error,byte_miss_ratio,byte_expected_error,method\n",
    );
    let f = |v: Option<f64>| v.map(|v| format!("{v:.6}")).unwrap_or_default();
    for c in curves {
        for p in &c.points {
            let _ = writeln!(
                o,
                "{},{},{},{:.6},{},{},{}",
                c.policy,
                p.cache_entries,
                f(p.miss_ratio),
                p.expected_error,
                f(p.byte_miss_ratio),
                f(p.byte_expected_error),
                p.method
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_lists() {
        let names =
            |l: &str| parse_policies(l).map(|v| v.iter().map(|p| p.name).collect::<Vec<_>>());
        assert_eq!(names("lru, S3-FIFO,arc").unwrap(), ["lru", "s3fifo", "arc"]);
        let e = |l: &str| names(l).unwrap_err().to_string();
        assert!(e("lru,,arc").starts_with("--policy: name 2 of the list is empty"));
        assert!(e("").starts_with("--policy: name 1"));
        assert_eq!(e("lru,LRU"), "--policy: `lru` is listed twice");
        assert_eq!(e("lru,fifo,lru"), "--policy: `lru` is listed twice");
        assert!(e("nope").starts_with("--policy: unknown cache policy `nope`"), "{}", e("nope"));
        assert_eq!(e(&vec!["lru"; 1000].join(",")), "--policy: `lru` is listed twice");
    }

    #[test]
    fn grid_from_the_resolution_to_the_footprint() {
        let mut s = Sample::fixed(1.0).unwrap();
        for k in 0..1000 {
            s.access(k, 1).unwrap();
        }
        let g = grid(&s, &[], 4);
        assert_eq!(g, [1, 10, 100, 1000]);
        assert_eq!(grid(&s, &[5, 7], 40), [5, 7]);
    }
}
