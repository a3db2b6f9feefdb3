//! The section of `iolab trace stat` (iolab-trace's `TraceStats` as serde writes it, with the
//! `notes` `trace stat --json` adds: the I/O blender verdict, the time-unit check): the mix and
//! footprint, how sequential the trace is per stream against in arrival order (bars), the
//! streams table, and the request-size, reuse-distance and reuse-time distributions (log2
//! buckets, `counts[i]` = values in `[2^i, 2^(i+1))`, `counts[0]` also holds 0).

use crate::chart::{fmt_num, Axis, Chart, Corner, Scale, Series, Style};
use crate::input::{num, text, Input};
use crate::model::{Section, Table};
use serde_json::Value;

/// The trace-statistics section of `input`.
pub fn section(input: &Input, n: usize) -> Section {
    let v = &input.values[0];
    let mut s = Section {
        title: format!("Trace statistics: {}", text(v, "/trace").unwrap_or(&input.label)),
        kind: "trace".into(),
        ..Section::default()
    };
    s.tables.push(summary(v));
    s.tables.push(streams(v));
    s.tables.push(top_streams(v));
    s.charts.push(sequentiality(v, &input.label, n));
    let hist = |key: &str, title: &str, x: &str, id: &str| Chart {
        id: format!("i{n}-trace-{id}"),
        title: title.into(),
        x: Axis { label: x.into(), scale: Scale::Log },
        y: Axis::lin("share (%)"),
        series: vec![Series { name: input.label.clone(), points: log2_shares(&v[key]) }],
        band: None,
        y_from_zero: true,
        legend: Corner::UpperLeft,
        style: Style::Lines,
    };
    s.charts.push(hist(
        "request_size",
        "Request sizes",
        "request size (bytes, log2 bucket)",
        "size",
    ));
    s.charts.push(hist(
        "reuse_distance",
        "Reuse distance",
        "distinct blocks between accesses (log2 bucket)",
        "reuse-distance",
    ));
    s.charts.push(hist(
        "reuse_time",
        "Reuse time",
        "block accesses between accesses (log2 bucket)",
        "reuse-time",
    ));
    for note in v["notes"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        s.notes.push(note.to_string());
    }
    s
}

/// Each non-empty bucket's share of the total (%) at its lower bound (1 for the first).
fn log2_shares(h: &Value) -> Vec<(f64, f64)> {
    let counts: Vec<f64> =
        h["counts"].as_array().into_iter().flatten().filter_map(Value::as_f64).collect();
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return Vec::new();
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0.0)
        .map(|(i, c)| (2f64.powi(i as i32), 100.0 * c / total))
        .collect()
}

fn summary(v: &Value) -> Table {
    let mut rows = Vec::new();
    let mut row = |k: &str, val: String| rows.push(vec![k.to_string(), val]);
    row("format", text(v, "/format").unwrap_or("-").into());
    let requests = num(v, "/requests").unwrap_or(0.0);
    row("requests", fmt_num(requests));
    if let Some(d) = num(v, "/duration_ns") {
        row("duration", format!("{:.3} s", d / 1e9));
    }
    for dir in ["read", "write", "trim"] {
        let r = num(v, &format!("/{dir}/requests")).unwrap_or(0.0);
        let b = num(v, &format!("/{dir}/bytes")).unwrap_or(0.0);
        let share = if requests > 0.0 { 100.0 * r / requests } else { 0.0 };
        row(dir, format!("{} requests ({share:.1} %), {:.1} MiB", fmt_num(r), b / 1048576.0));
    }
    let bs = num(v, "/block_size").unwrap_or(0.0);
    row(
        "footprint",
        format!(
            "{} blocks of {} KiB = {:.1} MiB",
            fmt_num(num(v, "/footprint_blocks").unwrap_or(0.0)),
            fmt_num(bs / 1024.0),
            num(v, "/footprint_bytes").unwrap_or(0.0) / 1048576.0
        ),
    );
    row(
        "block accesses",
        format!(
            "{} ({} cold)",
            fmt_num(num(v, "/block_accesses").unwrap_or(0.0)),
            fmt_num(num(v, "/cold_block_accesses").unwrap_or(0.0))
        ),
    );
    if let Some(k) = num(v, "/skipped_malformed").filter(|k| *k > 0.0) {
        row("skipped (malformed)", fmt_num(k));
    }
    Table { caption: "Trace".into(), head: vec!["".into(), "".into()], rows }
}

/// Share of requests (%) that continue a stream, and that continue the request just before.
fn seq_shares(v: &Value) -> (f64, f64) {
    let requests = num(v, "/requests").unwrap_or(0.0).max(1.0);
    let by_stream = 100.0 * num(v, "/streams/sequential_requests").unwrap_or(0.0) / requests;
    let arrival = 100.0 * num(v, "/streams/arrival_sequential").unwrap_or(0.0) / requests;
    (by_stream, arrival)
}

fn streams(v: &Value) -> Table {
    let st = &v["streams"];
    let (by_stream, arrival) = seq_shares(v);
    let f = |k: &str| num(st, k).map_or("-".into(), fmt_num);
    let rows = vec![
        vec!["sequential streams (≥ 2 requests)".into(), f("/streams")],
        vec!["requests continuing a stream".into(), format!("{by_stream:.1} %")],
        vec![
            "requests continuing the one before (arrival order)".into(),
            format!("{arrival:.1} %"),
        ],
        vec!["streams interleaved, max".into(), f("/max_concurrent")],
        vec![
            "streams interleaved, mean".into(),
            num(st, "/mean_concurrent").map_or("-".into(), |m| format!("{m:.2}")),
        ],
        vec![
            "longest stream".into(),
            format!(
                "{} requests, {:.1} MiB",
                f("/longest_requests"),
                num(st, "/longest_bytes").unwrap_or(0.0) / 1048576.0
            ),
        ],
    ];
    Table { caption: "Sequential streams".into(), head: vec!["".into(), "".into()], rows }
}

fn top_streams(v: &Value) -> Table {
    let rows = v["streams"]["top"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            ["/file", "/start", "/requests", "/bytes", "/first_request", "/last_request"]
                .iter()
                .map(|k| num(t, k).map_or("-".into(), |x| format!("{x:.0}")))
                .collect()
        })
        .collect();
    Table {
        caption: "Longest streams".into(),
        head: ["file", "start offset", "requests", "bytes", "first request", "last request"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// The blender at a glance: sequential by stream against in arrival order (bars).
fn sequentiality(v: &Value, label: &str, n: usize) -> Chart {
    let (by_stream, arrival) = seq_shares(v);
    Chart {
        id: format!("i{n}-trace-seq"),
        title: "Sequential requests: per stream vs. as they arrive".into(),
        x: Axis::lin("ordering"),
        y: Axis::lin("sequential requests (%)"),
        series: vec![Series { name: label.into(), points: vec![(0.0, by_stream), (1.0, arrival)] }],
        band: None,
        y_from_zero: true,
        legend: Corner::UpperRight,
        style: Style::Bars {
            categories: vec!["within streams".into(), "in arrival order".into()],
            bands: Vec::new(),
        },
    }
}
