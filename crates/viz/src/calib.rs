//! The section of `iolab calibrate`: a device profile (iolab-model's `DeviceProfile`, as serde
//! writes it: `read`/`write` curves, `point[]` the sweep with the fit's prediction at each
//! point) as the profile's parameters, the fit table, per access pattern each sweep point's
//! IOPS and p99 latency, measured beside fitted (bars), and the fit's IOPS error per pattern.

use crate::chart::{fmt_num, Axis, Chart, Corner, Series, Style};
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
    let bars = |id: String, title: String, y: Axis, categories, series, bands| Chart {
        id: format!("i{n}-cal-{id}"),
        title,
        x: Axis::lin("sweep point (block size, queue depth)"),
        y,
        series,
        band: None,
        y_from_zero: true,
        legend: Corner::UpperRight,
        style: Style::Bars { categories, bands },
    };
    let pair = |pts: &[&Value], m: &str, f: &str| -> Vec<Series> {
        let one = |k: &str, name: &str| Series {
            name: name.into(),
            points: pts
                .iter()
                .enumerate()
                .filter_map(|(i, p)| Some((i as f64, num(p, k)?)))
                .collect(),
        };
        vec![one(m, "measured"), one(f, "fitted")]
    };
    // Per access pattern: each sweep point's IOPS and p99, measured beside fitted.
    let mut errors = (Vec::new(), Vec::new(), Vec::new());
    for (rw, pts) in by_pattern(points) {
        let labels = point_labels(&pts);
        s.charts.push(bars(
            format!("{rw}-iops"),
            format!("{rw}: IOPS, measured and fitted"),
            Axis::lin("IOPS"),
            labels.clone(),
            pair(&pts, "/measured_iops", "/predicted_iops"),
            Vec::new(),
        ));
        s.charts.push(bars(
            format!("{rw}-p99"),
            format!("{rw}: p99 completion latency, measured and fitted"),
            Axis::lin("p99 latency (µs)"),
            labels,
            pair(&pts, "/measured_p99_us", "/predicted_p99_us"),
            Vec::new(),
        ));
        let e: Vec<f64> =
            pts.iter().filter_map(|p| num(p, "/iops_error")).map(|e| 100.0 * e.abs()).collect();
        if !e.is_empty() {
            let k = errors.0.len() as f64;
            errors.1.push((k, e.iter().sum::<f64>() / e.len() as f64));
            errors.2.push((k, e.iter().copied().fold(0.0, f64::max)));
            errors.0.push(rw);
        }
    }
    let (categories, mean, max) = errors;
    s.charts.push(bars(
        "err".into(),
        "Fit error of IOPS per access pattern".into(),
        Axis::lin("|fitted − measured| / measured (%)"),
        categories,
        vec![
            Series { name: "mean over the sweep points".into(), points: mean },
            Series { name: "largest".into(), points: max },
        ],
        Vec::new(),
    ));
    if points.is_empty() {
        s.notes.push("A preset: no sweep was measured, so there is no fit to show.".into());
    }
    s
}

/// Sweep points per access pattern, in sweep order.
fn by_pattern(points: &[Value]) -> Vec<(String, Vec<&Value>)> {
    let mut out: Vec<(String, Vec<&Value>)> = Vec::new();
    for p in points {
        let rw = text(p, "/rw").unwrap_or("?");
        match out.iter_mut().find(|(r, _)| r == rw) {
            Some((_, v)) => v.push(p),
            None => out.push((rw.to_string(), vec![p])),
        }
    }
    out
}

/// Bytes in fio's spelling (`4k`, `1m`, `15.3m`).
fn fio_size(b: f64) -> String {
    let (v, unit) = match b {
        _ if b >= 1073741824.0 => (b / 1073741824.0, "g"),
        _ if b >= 1048576.0 => (b / 1048576.0, "m"),
        _ => (b / 1024.0, "k"),
    };
    format!("{}{unit}", fmt_num((v * 10.0).round() / 10.0))
}

/// A short name per sweep point, in fio's size spelling: `4k q1`, with the span where the
/// pattern swept several (`4k q1 @4m`).
fn point_labels(pts: &[&Value]) -> Vec<String> {
    let size = fio_size;
    let spans: Vec<Option<f64>> = pts.iter().map(|p| num(p, "/span")).collect();
    let several = spans.iter().any(|s| *s != spans[0]);
    pts.iter()
        .map(|p| {
            let bs = num(p, "/bs").map_or("?".into(), size);
            let qd = num(p, "/iodepth").map_or("?".into(), fmt_num);
            match num(p, "/span").filter(|_| several) {
                Some(s) => format!("{bs} q{qd} @{}", size(s)),
                None => format!("{bs} q{qd}"),
            }
        })
        .collect()
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
                num(p, "/bs").map_or("-".into(), fio_size),
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
