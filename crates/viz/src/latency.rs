//! Latency distribution charts from fio's json+ `bins` (stat.c `add_lat_percentile_json`:
//! each key is a plat bucket's value in ns, each value its count): a histogram regrouped into
//! ten log-spaced bins per decade, and a percentile plot on a nines axis (log latency). Without
//! bins (plain `json`), the percentile plot uses fio's `percentile` list.

use crate::chart::{Axis, Chart, Corner, Scale, Series, Style};
use crate::run::job_dirs;
use serde_json::Value;

/// Log bins per decade in the histogram.
const PER_DECADE: f64 = 10.0;

/// The histogram and percentile charts of `doc`'s jobs, all jobs and directions overlaid.
pub fn charts(doc: &Value, n: usize) -> Vec<Chart> {
    let mut hist = Vec::new();
    let mut pct = Vec::new();
    for (name, d) in job_dirs(doc) {
        let kind = if d["clat_ns"].get("bins").is_some() { "clat_ns" } else { "lat_ns" };
        match bins(&d[kind]) {
            Some(b) if !b.is_empty() => {
                hist.push(Series { name: name.clone(), points: histogram(&b) });
                pct.push(Series { name, points: percentiles(&b) });
            }
            _ => {
                let p = listed(&d["clat_ns"]);
                if !p.is_empty() {
                    pct.push(Series { name, points: p });
                }
            }
        }
    }
    let mut out = Vec::new();
    if !hist.is_empty() {
        out.push(Chart {
            id: format!("i{n}-lat-hist"),
            title: "Completion latency histogram (json+ bins)".into(),
            x: Axis::log("completion latency (µs)"),
            y: Axis::lin("share of I/Os (%)"),
            series: hist,
            band: None,
            y_from_zero: true,
            legend: Corner::UpperRight,
            style: Style::Lines,
        });
    }
    if !pct.is_empty() {
        out.push(Chart {
            id: format!("i{n}-lat-pct"),
            title: "Completion latency by percentile".into(),
            x: Axis { label: "percentile (%)".into(), scale: Scale::Nines },
            y: Axis::log("completion latency (µs)"),
            series: pct,
            band: None,
            y_from_zero: false,
            legend: Corner::UpperLeft,
            style: Style::Lines,
        });
    }
    out
}

/// `(value ns, count)` sorted by value.
fn bins(lat: &Value) -> Option<Vec<(f64, f64)>> {
    let m = lat.get("bins")?.as_object()?;
    let mut b: Vec<(f64, f64)> = m
        .iter()
        .filter_map(|(k, v)| Some((k.parse::<f64>().ok()?, v.as_f64()?)))
        .filter(|&(_, c)| c > 0.0)
        .collect();
    b.sort_by(|x, y| x.0.total_cmp(&y.0));
    Some(b)
}

/// Share of I/Os (%) per log bin, as a step line over µs.
fn histogram(b: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let total: f64 = b.iter().map(|x| x.1).sum();
    let mut groups: Vec<(i64, f64)> = Vec::new();
    for &(v, c) in b {
        let k = (v.max(1.0).log10() * PER_DECADE).floor() as i64;
        match groups.last_mut() {
            Some(g) if g.0 == k => g.1 += c,
            _ => groups.push((k, c)),
        }
    }
    let edge = |k: i64| 10f64.powf(k as f64 / PER_DECADE) / 1000.0;
    let mut pts = Vec::new();
    let mut prev: Option<i64> = None;
    for (k, c) in groups {
        // Empty bins drop to zero rather than being bridged by a slanted line.
        if prev != Some(k) {
            if let Some(p) = prev {
                pts.push((edge(p), 0.0));
            }
            pts.push((edge(k), 0.0));
        }
        let share = 100.0 * c / total;
        pts.push((edge(k), share));
        pts.push((edge(k + 1), share));
        prev = Some(k + 1);
    }
    if let Some(p) = prev {
        pts.push((edge(p), 0.0));
    }
    pts
}

/// Latency (µs) at percentiles spaced evenly in nines, up to the last one with ≥ 1 I/O beyond.
fn percentiles(b: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let total: f64 = b.iter().map(|x| x.1).sum();
    let max_nines = total.log10();
    let mut pts = Vec::new();
    let mut i = 0usize;
    let mut cum = 0.0;
    let mut step = 0;
    loop {
        let nines = step as f64 * 0.05;
        if nines > max_nines {
            break;
        }
        let p = 100.0 * (1.0 - 10f64.powf(-nines));
        let want = p / 100.0 * total;
        while i < b.len() && cum + b[i].1 < want {
            cum += b[i].1;
            i += 1;
        }
        let Some(&(v, _)) = b.get(i).or(b.last()) else { break };
        pts.push((p, v / 1000.0));
        step += 1;
    }
    pts
}

/// fio's listed percentiles (`percentile: {"99.000000": ns}`) as (p, µs).
fn listed(lat: &Value) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = lat
        .get("percentile")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.parse::<f64>().ok()?, v.as_f64()? / 1000.0)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_two_valued_distribution() {
        // 990 I/Os at 100 ns, 10 at 1 ms: p99 is 0.1 µs, p99.5 is 1000 µs.
        let b = vec![(100.0, 990.0), (1_000_000.0, 10.0)];
        let p = percentiles(&b);
        let at = |q: f64| p.iter().find(|x| (x.0 - q).abs() < 1e-6).map(|x| x.1);
        assert_eq!(at(99.0), Some(0.1));
        assert_eq!(p.last().map(|x| x.1), Some(1000.0));
        assert!(p.len() >= 60 && p.len() <= 61, "{}", p.len());
    }

    #[test]
    fn histogram_shares_add_up_to_100() {
        let b = vec![(100.0, 1.0), (110.0, 1.0), (5000.0, 2.0)];
        let h = histogram(&b);
        // Each bin is a flat step: two points of the same share.
        let sum: f64 =
            h.windows(2).filter(|w| w[0].1 == w[1].1 && w[0].1 > 0.0).map(|w| w[0].1).sum();
        assert!((sum - 100.0).abs() < 1e-9, "{h:?}");
        // 100 and 110 ns share a bin; 5000 ns is far away: the line drops to 0 between them.
        assert_eq!(h.len(), 8, "{h:?}");
        assert_eq!(h.first().unwrap().1, 0.0);
        assert_eq!(h.last().unwrap().1, 0.0);
    }
}
