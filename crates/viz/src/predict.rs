//! The predict-vs-measure section of `iolab run --predict` (iolab-calibrate's `versus::json`:
//! `iolab_predict.rows[]` of groupid, dir, `measured`/`predicted` {iops, bw_bytes, p50_us,
//! p99_us} and the relative `error` of each): per metric, side-by-side bars of measured and
//! predicted per group and direction (the compare section's bar chart), each category naming
//! the error in percent, and the table of all figures.

use crate::chart::{fmt_num, Axis, Chart, Corner, Series, Style};
use crate::input::{num, text};
use crate::model::{Section, Table};
use serde_json::Value;

/// `(key in measured/predicted, key in error, title, axis, divisor to the axis unit)`.
const METRICS: [(&str, &str, &str, &str, f64); 4] = [
    ("iops", "iops", "IOPS", "IOPS", 1.0),
    ("bw_bytes", "bw", "bandwidth", "bandwidth (MiB/s)", 1_048_576.0),
    ("p50_us", "p50", "p50 completion latency", "p50 (µs)", 1.0),
    ("p99_us", "p99", "p99 completion latency", "p99 (µs)", 1.0),
];

/// The section of run document `doc` when it carries `iolab_predict` rows.
pub fn section(doc: &Value, label: &str, n: usize) -> Option<Section> {
    let pred = doc.get("iolab_predict")?;
    let rows = pred["rows"].as_array().filter(|r| !r.is_empty())?;
    let profile = text(pred, "/profile").unwrap_or("?");
    let mut s = Section {
        title: format!("Predicted vs measured: {label} on profile {profile}"),
        kind: "predict".into(),
        ..Section::default()
    };
    s.tables.push(table(rows));
    s.charts.extend(METRICS.iter().enumerate().map(|(k, m)| bars(rows, n, k, m)));
    s.notes.push(
        "Error: (predicted - measured) / measured, in percent; each bar pair's label carries it."
            .into(),
    );
    Some(s)
}

fn category(r: &Value) -> String {
    let g = num(r, "/groupid").unwrap_or(0.0);
    format!("g{g} {}", text(r, "/dir").unwrap_or("?"))
}

fn pct(r: &Value, key: &str) -> String {
    num(r, &format!("/error/{key}")).map_or("-".into(), |e| format!("{:+.1} %", e * 100.0))
}

fn table(rows: &[Value]) -> Table {
    let mut head = vec!["group".to_string(), "dir".to_string()];
    for (_, _, title, ..) in METRICS {
        head.extend([format!("{title} measured"), "predicted".into(), "error".into()]);
    }
    let body = rows
        .iter()
        .map(|r| {
            let mut row = vec![
                num(r, "/groupid").map_or("-".into(), fmt_num),
                text(r, "/dir").unwrap_or("-").to_string(),
            ];
            for (key, err, ..) in METRICS {
                for side in ["measured", "predicted"] {
                    row.push(num(r, &format!("/{side}/{key}")).map_or("-".into(), fmt_num));
                }
                row.push(pct(r, err));
            }
            row
        })
        .collect();
    Table { caption: "Measured and predicted per group and direction".into(), head, rows: body }
}

fn bars(rows: &[Value], n: usize, k: usize, m: &(&str, &str, &str, &str, f64)) -> Chart {
    let (key, err, title, axis, div) = *m;
    let categories = rows.iter().map(|r| format!("{} ({})", category(r), pct(r, err))).collect();
    let series = ["measured", "predicted"]
        .iter()
        .map(|side| Series {
            name: (*side).to_string(),
            points: rows
                .iter()
                .enumerate()
                .filter_map(|(c, r)| Some((c as f64, num(r, &format!("/{side}/{key}"))? / div)))
                .collect(),
        })
        .collect();
    Chart {
        id: format!("i{n}-pred-{k}"),
        title: format!("{title}: measured and predicted (error in %)"),
        x: Axis::lin("group and direction"),
        y: Axis::lin(axis),
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::UpperRight,
        style: Style::Bars { categories, bands: vec![vec![]; 2] },
    }
}
