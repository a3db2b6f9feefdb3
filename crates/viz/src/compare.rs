//! The section of `iolab compare` (iolab-report's `compare::render_json`: `files[]`, `rows[]`
//! of subject/dir/metric/unit and one side per file): per metric, side-by-side bars of every
//! file with the noise band of its per-interval samples (the 95 % confidence interval of their
//! mean, what Welch's t-test weighs), the differences table with each verdict, and, for the
//! compared results that carry intervals, their time series overlaid.

use crate::chart::{downsample, fmt_num, Axis, Chart, Corner, Series, Style};
use crate::input::{num, text, Input};
use crate::model::{Section, Table, MAX_POINTS};
use crate::run::{group_intervals, DIRS};
use serde_json::Value;

/// The compare section of document `v`, with the intervals of `runs` overlaid.
pub fn section(v: &Value, label: &str, runs: &[&Input], n: usize) -> Section {
    let files: Vec<String> = v["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| short(text(f, "/file").unwrap_or("?")))
        .collect();
    let rows = v["rows"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut s = Section {
        title: format!("Comparison: {label}"),
        kind: "compare".into(),
        ..Section::default()
    };
    s.tables.push(file_table(v));
    s.tables.push(diff_table(rows, &files));
    s.charts.extend(bars(rows, &files, n));
    s.charts.extend(overlays(runs, n));
    if let Some(t) = text(v, "/test") {
        s.notes.push(format!(
            "Noise: {t}, alpha {}; a difference beyond noise under {} % is negligible. Whiskers: \
             the 95 % confidence interval of the mean of each result's per-interval samples.",
            num(v, "/alpha").map_or("-".into(), |a| format!("{a}")),
            num(v, "/min_diff_pct").map_or("-".into(), |a| format!("{a}")),
        ));
    }
    s
}

/// The file name of a path, as the legends show it.
fn short(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

fn file_table(v: &Value) -> Table {
    let rows = v["files"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, f)| {
            let role = if i == 0 { "baseline".to_string() } else { format!("#{i}") };
            let file = text(f, "/file").unwrap_or("?").to_string();
            vec![role, file, text(f, "/source").unwrap_or("-").to_string()]
        })
        .collect();
    Table {
        caption: "Compared results".into(),
        head: vec!["".into(), "file".into(), "source".into()],
        rows,
    }
}

fn diff_table(rows: &[Value], files: &[String]) -> Table {
    let mut head: Vec<String> =
        ["job", "dir", "metric", "unit", "baseline"].map(String::from).to_vec();
    for i in 1..files.len() {
        head.extend([format!("#{i}"), format!("#{i} diff"), format!("#{i} verdict")]);
    }
    let body = rows
        .iter()
        .map(|r| {
            let sides = r["sides"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            let mut row: Vec<String> = ["/subject", "/dir", "/metric", "/unit"]
                .iter()
                .map(|k| text(r, k).unwrap_or("").to_string())
                .collect();
            for (i, side) in sides.iter().enumerate() {
                row.push(num(side, "/value").map_or("-".into(), fmt_num));
                if i > 0 {
                    row.push(num(side, "/diff_pct").map_or("-".into(), |d| format!("{d:+.1} %")));
                    let verdict = text(side, "/verdict").unwrap_or("-");
                    row.push(match num(side, "/p") {
                        Some(p) if p < 0.001 => format!("{verdict} (p<0.001)"),
                        Some(p) => format!("{verdict} (p={p:.3})"),
                        None => verdict.to_string(),
                    });
                }
            }
            row
        })
        .collect();
    Table { caption: "Differences against the baseline".into(), head, rows: body }
}

/// The 95 % confidence interval of a side's per-interval mean (normal approximation).
fn band(side: &Value) -> (f64, f64) {
    match (num(side, "/sample_mean"), num(side, "/sample_sd"), num(side, "/samples")) {
        (Some(m), Some(sd), Some(k)) if k >= 2.0 => {
            let h = 1.96 * sd / k.sqrt();
            (m - h, m + h)
        }
        _ => (f64::NAN, f64::NAN),
    }
}

/// One bar chart per metric: categories are the rows' job and direction, series the files.
fn bars(rows: &[Value], files: &[String], n: usize) -> Vec<Chart> {
    let mut metrics: Vec<(String, String)> = Vec::new();
    for r in rows {
        let m = (text(r, "/metric").unwrap_or("?").into(), text(r, "/unit").unwrap_or("").into());
        if !metrics.contains(&m) {
            metrics.push(m);
        }
    }
    metrics
        .iter()
        .enumerate()
        .map(|(k, (metric, unit))| {
            let mine: Vec<&Value> =
                rows.iter().filter(|r| text(r, "/metric") == Some(metric.as_str())).collect();
            let categories = mine
                .iter()
                .map(|r| match (text(r, "/subject").unwrap_or(""), text(r, "/dir")) {
                    // Device rows name the device in the subject already.
                    (s, None | Some("device")) => s.to_string(),
                    (s, Some(d)) => format!("{s} {d}").trim().to_string(),
                })
                .collect();
            let mut series = Vec::new();
            let mut bands = Vec::new();
            for (f, name) in files.iter().enumerate() {
                let side = |r: &&Value| r.pointer(&format!("/sides/{f}")).cloned();
                let sides: Vec<(usize, Value)> =
                    mine.iter().enumerate().filter_map(|(c, r)| Some((c, side(r)?))).collect();
                let points = sides
                    .iter()
                    .filter_map(|(c, s)| Some((*c as f64, num(s, "/value")?)))
                    .collect();
                bands.push(
                    sides
                        .iter()
                        .filter(|(_, s)| num(s, "/value").is_some())
                        .map(|(_, s)| band(s))
                        .collect(),
                );
                series.push(Series { name: name.clone(), points });
            }
            Chart {
                id: format!("i{n}-cmp-{k}"),
                title: format!("{metric}: each result side by side"),
                x: Axis::lin("job and direction, or device"),
                y: Axis::lin(if unit.is_empty() {
                    metric.clone()
                } else {
                    format!("{metric} ({unit})")
                }),
                series,
                band: None,
                y_from_zero: true,
                legend: Corner::UpperRight,
                style: Style::Bars { categories, bands },
            }
        })
        .collect()
}

/// IOPS, bandwidth and mean latency per interval of every compared result that has them,
/// overlaid (one line per result, job and direction).
fn overlays(runs: &[&Input], n: usize) -> Vec<Chart> {
    let mut by_metric: [Vec<Series>; 3] = Default::default();
    for input in runs {
        for js in group_intervals(input) {
            for (dir, pts) in DIRS.iter().zip(&js.dirs).filter(|(_, p)| !p.is_empty()) {
                let name = format!("{}: {} {dir}", input.label, js.name);
                let pick = |f: fn(&(f64, f64, f64, f64)) -> f64| Series {
                    name: name.clone(),
                    points: downsample(
                        &pts.iter().map(|p| (p.0, f(p))).collect::<Vec<_>>(),
                        MAX_POINTS,
                    ),
                };
                by_metric[0].push(pick(|p| p.1));
                by_metric[1].push(pick(|p| p.2));
                by_metric[2].push(pick(|p| p.3));
            }
        }
    }
    let meta = [
        ("iops", "IOPS per interval, overlaid", "IOPS"),
        ("bw", "bandwidth per interval, overlaid", "bandwidth (MiB/s)"),
        ("lat", "mean completion latency per interval, overlaid", "clat mean (µs)"),
    ];
    by_metric
        .into_iter()
        .zip(meta)
        .filter(|(s, _)| !s.is_empty())
        .map(|(series, (id, title, y))| Chart {
            id: format!("i{n}-cmp-ts-{id}"),
            title: title.into(),
            x: Axis::lin("time (s)"),
            y: Axis::lin(y),
            series,
            band: None,
            y_from_zero: true,
            legend: Corner::LowerRight,
            style: Style::Lines,
        })
        .collect()
}
