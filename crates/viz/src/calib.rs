//! The section of `iolab calibrate`: a device profile (iolab-model's `DeviceProfile`, as serde
//! writes it: `read`/`write` curves, `point[]` the sweep with the fit's prediction at each
//! point) as the profile's parameters, the fit table, and per sweep group (direction pattern
//! and block size) IOPS and p99 latency against queue depth, measured beside fitted, and the
//! fit's IOPS error.

use crate::chart::{fmt_num, Axis, Chart, Corner, Scale, Series, Style};
use crate::input::{num, text, Input};
use crate::model::{Section, Table};
use serde_json::Value;

/// The calibration section of `input`.
pub fn section(input: &Input, n: usize) -> Section {
    let v = &input.values[0];
    let points = v["point"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut s = Section {
        title: format!("Device profile: {}", text(v, "/name").unwrap_or(&input.label)),
        kind: "calibrate".into(),
        ..Section::default()
    };
    s.tables.push(profile(v));
    s.tables.push(fit_table(points));
    let groups = groups(points);
    let chart = |id: &str, title: &str, y: Axis, series: Vec<Series>| Chart {
        id: format!("i{n}-cal-{id}"),
        title: title.into(),
        x: Axis { label: "queue depth (iodepth)".into(), scale: Scale::Log },
        y,
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::UpperLeft,
        style: Style::Lines,
    };
    let pair = |m: &str, f: &str| -> Vec<Series> {
        groups
            .iter()
            .flat_map(|(g, pts)| {
                let line = |k: &str, what: &str| Series {
                    name: format!("{g} {what}"),
                    points: pts
                        .iter()
                        .filter_map(|p| Some((num(p, "/iodepth")?, num(p, k)?)))
                        .collect(),
                };
                [line(m, "measured"), line(f, "fitted")]
            })
            .collect()
    };
    s.charts.push(chart(
        "iops",
        "IOPS by queue depth: measured and fitted",
        Axis::lin("IOPS"),
        pair("/measured_iops", "/predicted_iops"),
    ));
    s.charts.push(chart(
        "p99",
        "p99 completion latency by queue depth: measured and fitted",
        Axis::log("p99 latency (µs)"),
        pair("/measured_p99_us", "/predicted_p99_us"),
    ));
    let errors = groups
        .iter()
        .map(|(g, pts)| Series {
            name: g.clone(),
            points: pts
                .iter()
                .filter_map(|p| Some((num(p, "/iodepth")?, 100.0 * num(p, "/iops_error")?)))
                .collect(),
        })
        .collect();
    s.charts.push(chart(
        "err",
        "Fit error of IOPS",
        Axis::lin("(fitted − measured) / measured (%)"),
        errors,
    ));
    if points.is_empty() {
        s.notes.push("A preset: no sweep was measured, so there is no fit to show.".into());
    }
    s
}

/// Sweep points grouped by pattern and block size, in sweep order.
fn groups(points: &[Value]) -> Vec<(String, Vec<&Value>)> {
    let mut out: Vec<(String, Vec<&Value>)> = Vec::new();
    for p in points {
        let g = format!(
            "{} {}",
            text(p, "/rw").unwrap_or("?"),
            num(p, "/bs").map_or("?".into(), |b| format!("{}KiB", fmt_num(b / 1024.0)))
        );
        match out.iter_mut().find(|(n, _)| *n == g) {
            Some((_, v)) => v.push(p),
            None => out.push((g, vec![p])),
        }
    }
    for (_, v) in &mut out {
        v.sort_by(|a, b| {
            num(a, "/iodepth").unwrap_or(0.0).total_cmp(&num(b, "/iodepth").unwrap_or(0.0))
        });
    }
    out
}

fn profile(v: &Value) -> Table {
    let mut rows = Vec::new();
    for k in ["name", "source", "write_cache"] {
        rows.push(vec![k.to_string(), text(v, &format!("/{k}")).unwrap_or("-").to_string()]);
    }
    rows.push(vec![
        "capacity".into(),
        num(v, "/capacity").map_or("-".into(), |c| format!("{} GiB", fmt_num(c / 1073741824.0))),
    ]);
    rows.push(vec!["servers".into(), num(v, "/servers").map_or("-".into(), fmt_num)]);
    for dir in ["read", "write"] {
        let d = &v[dir];
        let f = |k: &str| num(d, k).map_or("-".into(), fmt_num);
        rows.push(vec![
            dir.to_string(),
            format!(
                "base {} µs, sequential base {} µs, seek √ {} µs, transfer {} MB/s, {} servers, \
                 caps {} IOPS / {} MB/s",
                f("/base_us"),
                f("/seq_base_us"),
                f("/seek_sqrt_us"),
                num(d, "/xfer_bytes_per_sec").map_or("-".into(), |b| fmt_num(b / 1e6)),
                f("/servers"),
                f("/max_iops"),
                num(d, "/max_bytes_per_sec").map_or("-".into(), |b| fmt_num(b / 1e6)),
            ),
        ]);
    }
    Table { caption: "Profile".into(), head: vec!["".into(), "".into()], rows }
}

fn fit_table(points: &[Value]) -> Table {
    let f = |p: &Value, k: &str| num(p, k).map_or("-".into(), fmt_num);
    let rows = points
        .iter()
        .map(|p| {
            vec![
                text(p, "/rw").unwrap_or("?").to_string(),
                f(p, "/bs"),
                f(p, "/iodepth"),
                f(p, "/measured_iops"),
                f(p, "/predicted_iops"),
                num(p, "/iops_error").map_or("-".into(), |e| format!("{:+.1} %", e * 100.0)),
                f(p, "/measured_p50_us"),
                f(p, "/predicted_p50_us"),
                f(p, "/measured_p99_us"),
                f(p, "/predicted_p99_us"),
            ]
        })
        .collect();
    Table {
        caption: "Sweep: measured against fitted".into(),
        head: [
            "rw",
            "bs",
            "iodepth",
            "IOPS measured",
            "IOPS fitted",
            "IOPS error",
            "p50 measured (µs)",
            "p50 fitted (µs)",
            "p99 measured (µs)",
            "p99 fitted (µs)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}
