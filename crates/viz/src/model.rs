//! The report as sections of tables, charts and advice, built from result files. Runs, sims,
//! trace statistics, comparisons and device profiles get a section each; all miss-ratio curves
//! share one section (overlaid), as do fill curves.

use crate::chart::{Axis, Chart, Corner, Scale, Series, Style};
use crate::input::{num, text, Input, Kind};
use crate::VizError;
use serde_json::Value;

/// A table: caption, column heads, rows of cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub caption: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One advice finding (iolab's `iolab_advice` objects).
#[derive(Clone, Debug)]
pub struct Advice {
    pub severity: String,
    pub id: String,
    pub subject: String,
    pub title: String,
    pub evidence: String,
    pub why: String,
    pub what_to_do: String,
}

/// One part of the page.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub title: String,
    /// `run`, `sim`, `mrc`, `fill`, `trace`, `compare`, `predict` or `calibrate` (the page's
    /// `data-kind`).
    pub kind: String,
    pub tables: Vec<Table>,
    pub charts: Vec<Chart>,
    pub advice: Vec<Advice>,
    pub notes: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub title: String,
    pub sections: Vec<Section>,
}

/// Points kept per series (a one-hour run at 1 s intervals is 3,600).
pub const MAX_POINTS: usize = 800;

/// Build the report of `inputs`.
pub fn build(inputs: &[Input]) -> Result<Report, VizError> {
    let mut sections: Vec<Section> = Vec::new();
    let mut mrc = Vec::new();
    let mut fill = Vec::new();
    for (n, input) in inputs.iter().enumerate() {
        match input.kind()? {
            Kind::Run => {
                sections.push(crate::run::section(input, n));
                sections.extend(crate::predict::section(&input.values[0], &input.label, n));
            }
            Kind::Intervals => match sections.iter_mut().rev().find(|s| s.kind == "run") {
                // JSON Lines in a file of their own belong to the run named before them.
                Some(s) => crate::run::add_intervals(s, input, n),
                None => {
                    let mut s = Section {
                        title: format!("Intervals: {}", input.label),
                        kind: "run".into(),
                        ..Section::default()
                    };
                    crate::run::add_intervals(&mut s, input, n);
                    sections.push(s);
                }
            },
            Kind::Mrc => mrc.extend(mrc_series(input)),
            Kind::PolicyMrc => mrc.extend(policy_series(input)),
            Kind::Fill => fill.push(input),
            Kind::TraceStat => sections.push(crate::trace::section(input, n)),
            Kind::Profile => sections.push(crate::calib::section(input, n)),
            Kind::Compare => {
                // The compared results given beside it lend their intervals to its overlays.
                let runs: Vec<&Input> =
                    inputs.iter().filter(|i| matches!(i.kind(), Ok(Kind::Run))).collect();
                sections.push(crate::compare::section(&input.values[0], &input.label, &runs, n));
            }
        }
    }
    if !mrc.is_empty() {
        sections.push(mrc_section(mrc));
    }
    if !fill.is_empty() {
        sections.push(fill_section(&fill));
    }
    // A result without some data (no intervals of one direction, a device that saw no I/O
    // counters) gets no empty line or chart.
    for s in &mut sections {
        for c in &mut s.charts {
            c.series.retain(|s| !s.points.is_empty());
        }
        s.charts.retain(|c| c.point_count() > 0);
    }
    let names: Vec<&str> = inputs.iter().map(|i| i.label.as_str()).collect();
    Ok(Report { title: format!("iolab report: {}", names.join(", ")), sections })
}

/// Series name for a curve from file `label`: the file name, plus `what` when it adds to it.
fn curve_name(label: &str, what: &str) -> String {
    if what.is_empty() {
        label.to_string()
    } else {
        format!("{label} {what}")
    }
}

fn mrc_series(input: &Input) -> Vec<(Series, Series)> {
    let v = &input.values[0];
    // `iolab mrc --policy=A,B`: an array of curve documents, one per policy.
    let docs = v.as_array().map_or_else(|| vec![v], |a| a.iter().collect());
    docs.into_iter().map(|d| mrc_doc_series(&input.label, d)).collect()
}

fn mrc_doc_series(label: &str, v: &Value) -> (Series, Series) {
    let method = text(v, "/method").unwrap_or("");
    let policy = text(v, "/policy").unwrap_or("LRU");
    let pts = v["points"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let get = |key: &str| -> Vec<(f64, f64)> {
        pts.iter()
            .filter_map(|p| Some((num(p, "/cache_entries")?, num(p, &format!("/{key}"))?)))
            .collect()
    };
    let name = curve_name(label, &format!("{policy} {method}"));
    (
        Series { name: name.clone(), points: get("miss_ratio") },
        Series { name, points: get("byte_miss_ratio") },
    )
}

fn policy_series(input: &Input) -> Vec<(Series, Series)> {
    let mut by_policy: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for p in input.values[0].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let (Some(pol), Some(size), Some(mr)) =
            (text(p, "/policy"), num(p, "/cache_size"), num(p, "/miss_ratio"))
        else {
            continue;
        };
        match by_policy.iter_mut().find(|(n, _)| n == pol) {
            Some((_, pts)) => pts.push((size, mr)),
            None => by_policy.push((pol.to_string(), vec![(size, mr)])),
        }
    }
    by_policy
        .into_iter()
        .map(|(pol, mut pts)| {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let s = Series { name: curve_name(&input.label, &pol), points: pts };
            (s, Series { name: String::new(), points: Vec::new() })
        })
        .collect()
}

fn mrc_section(curves: Vec<(Series, Series)>) -> Section {
    let (obj, bytes): (Vec<Series>, Vec<Series>) = curves.into_iter().unzip();
    let bytes: Vec<Series> = bytes.into_iter().filter(|s| !s.points.is_empty()).collect();
    let mut table = Table {
        caption: "Miss ratio at selected cache sizes".into(),
        head: vec!["curve".into(), "points".into(), "smallest".into(), "largest".into()],
        rows: Vec::new(),
    };
    for s in &obj {
        let (Some(a), Some(b)) = (s.points.first(), s.points.last()) else { continue };
        table.rows.push(vec![
            s.name.clone(),
            s.points.len().to_string(),
            format!("{} entries: {:.4}", a.0, a.1),
            format!("{} entries: {:.4}", b.0, b.1),
        ]);
    }
    let chart = |id: &str, title: &str, y: &str, series: Vec<Series>| Chart {
        id: id.into(),
        title: title.into(),
        x: Axis { label: "cache size (entries)".into(), scale: Scale::Log },
        y: Axis::lin(y),
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::LowerLeft,
        style: Style::Lines,
    };
    let mut charts = vec![chart("mrc", "Miss-ratio curves", "miss ratio", obj)];
    if !bytes.is_empty() {
        charts.push(chart("mrc-bytes", "Byte miss-ratio curves", "byte miss ratio", bytes));
    }
    Section {
        title: "Miss-ratio curves".into(),
        kind: "mrc".into(),
        tables: vec![table],
        charts,
        ..Section::default()
    }
}

/// One fill result's table row: its mean and quantiles of passes.
fn fill_row(v: &Value, name: String) -> Vec<String> {
    let q = |want: f64| {
        v["quantiles_passes"].as_array().and_then(|a| {
            a.iter().find(|x| num(x, "/q") == Some(want)).and_then(|x| num(x, "/passes"))
        })
    };
    let f = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
    vec![
        name,
        num(v, "/entries").map_or("-".into(), crate::chart::fmt_num),
        text(v, "/pattern").unwrap_or("-").into(),
        f(num(v, "/expected_passes")),
        f(q(0.5)),
        f(q(0.99)),
        f(q(0.999)),
    ]
}

fn fill_section(inputs: &[&Input]) -> Section {
    let mut filled = Vec::new();
    let mut done = Vec::new();
    let mut table = Table {
        caption: "Reads to fill the cache".into(),
        head: ["result", "entries", "pattern", "mean passes", "p50", "p99", "p99.9"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for input in inputs {
        let v: &Value = &input.values[0];
        let rows = v["table"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let pts = |k: &str| -> Vec<(f64, f64)> {
            rows.iter().filter_map(|r| Some((num(r, "/passes")?, num(r, k)?))).collect()
        };
        let name = curve_name(&input.label, text(v, "/pattern").unwrap_or(""));
        filled.push(Series { name: name.clone(), points: pts("/filled_fraction") });
        done.push(Series { name: name.clone(), points: pts("/p_all_filled") });
        table.rows.push(fill_row(v, name));
    }
    let chart = |id: &str, title: &str, y: &str, series: Vec<Series>| Chart {
        id: id.into(),
        title: title.into(),
        x: Axis::lin("reads per entry (passes)"),
        y: Axis::lin(y),
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::LowerRight,
        style: Style::Lines,
    };
    Section {
        title: "Cache fill".into(),
        kind: "fill".into(),
        tables: vec![table],
        charts: vec![
            chart("fill", "Expected fraction of the cache filled", "filled fraction", filled),
            chart("fill-done", "Probability the cache is full", "P(all entries filled)", done),
        ],
        ..Section::default()
    }
}
