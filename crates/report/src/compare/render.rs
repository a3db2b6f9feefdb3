//! The comparison as text (a table per job and direction), JSON (ordered, fio's layout), HTML and
//! CSV (one line per row and side).

use std::fmt::Write;

use std::path::PathBuf;

use super::{Better, CompareError, Comparison, Diff, Row};
use crate::json::J;

const TEST_NAME: &str = "Welch's t-test, two-sided: on per-interval samples for IOPS and \
                         bandwidth, on per-I/O mean, stddev and N for latency means; latency \
                         percentiles: 95 % confidence intervals from order statistics, apart \
                         or not";

/// Four significant digits with an SI suffix, as fio's text does for rates.
fn short(x: f64) -> String {
    let (v, s) = match x.abs() {
        a if a >= 1e9 => (x / 1e9, "G"),
        a if a >= 1e6 => (x / 1e6, "M"),
        a if a >= 1e4 => (x / 1e3, "k"),
        _ => (x, ""),
    };
    let digits = match v.abs() {
        a if a >= 100.0 => 1,
        a if a >= 10.0 => 2,
        _ => 3,
    };
    format!("{v:.digits$}{s}")
}

fn pct(p: Option<f64>) -> String {
    p.map_or_else(|| "-".into(), |p| format!("{p:+.1}%"))
}

fn verdict_text(d: &Diff, c: &Comparison) -> String {
    match (d.verdict(c.alpha, c.min_pct), &d.test) {
        (v, Some(t)) if t.p < 0.001 => format!("{v} (p<0.001)"),
        (v, Some(t)) => format!("{v} (p={:.3})", t.p),
        (v, None) if d.apart == Some(true) => format!("{v} (CIs apart)"),
        (v, None) if d.apart == Some(false) => format!("{v} (CIs overlap)"),
        (v, _) => v.to_string(),
    }
}

/// Is side `i` better, worse or neither on this row, when the difference is significant?
fn direction(row: &Row, d: &Diff, c: &Comparison) -> &'static str {
    match (d.verdict(c.alpha, c.min_pct), d.pct, row.better) {
        ("significant", Some(p), Better::Higher) if p > 0.0 => "better",
        ("significant", Some(p), Better::Lower) if p < 0.0 => "better",
        ("significant", Some(_), Better::Neither) => "changed",
        ("significant", Some(_), _) => "worse",
        _ => "",
    }
}

/// The text report.
pub fn render_text(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "baseline: {} ({})", c.files[0], c.sources[0]);
    for (f, src) in c.files.iter().zip(&c.sources).skip(1) {
        let _ = writeln!(s, "compared: {f} ({src})");
    }
    let _ = writeln!(
        s,
        "noise: {TEST_NAME}, alpha {}; beyond noise but under {}% (or, for latency, under \
         {} µs) is negligible",
        c.alpha,
        c.min_pct,
        super::LAT_FLOOR_US
    );
    let mut last = (String::new(), "");
    for row in &c.rows {
        if (row.subject.as_str(), row.dir) != (last.0.as_str(), last.1) {
            let _ = writeln!(s, "\n{} ({})", row.subject, row.dir);
            let mut head = format!("  {:<14} {:>10}", "metric", "baseline");
            for i in 1..c.files.len() {
                let _ = write!(head, " {:>10} {:>8}  {:<24}", format!("#{i}"), "diff", "verdict");
            }
            let _ = writeln!(s, "{}", head.trim_end());
            last = (row.subject.clone(), row.dir);
        }
        let base = row.values[0].map_or_else(|| "-".into(), short);
        let mut line = format!("  {:<14} {:>10}", format!("{} {}", row.metric, row.unit), base);
        for i in 1..c.files.len() {
            let d = c.diff(row, i);
            let v = row.values[i].map_or_else(|| "-".into(), short);
            let _ = write!(line, " {:>10} {:>8}  {:<24}", v, pct(d.pct), verdict_text(&d, c));
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
    let _ = writeln!(s);
    for i in 1..c.files.len() {
        let _ = writeln!(s, "{}", summary(c, i));
    }
    let _ = writeln!(
        s,
        "(a latency percentile's noise: the order statistics of ranks n·q ± 1.96·√(n·q·(1−q)), \
         widened to the listed percentiles around them, on each side; no samples: too few \
         I/Os for the interval)"
    );
    s
}

/// One line per compared file: within noise, or which rows differ and which way.
fn summary(c: &Comparison, i: usize) -> String {
    let sig: Vec<String> = c
        .rows
        .iter()
        .filter_map(|r| {
            let d = c.diff(r, i);
            let way = direction(r, &d, c);
            (!way.is_empty())
                .then(|| format!("{} {} {} {} {}", r.subject, r.dir, r.metric, pct(d.pct), way))
        })
        .collect();
    let missing: Vec<String> =
        c.unmatched(i).into_iter().map(|(k, side)| format!("{k} {side}")).collect();
    let mut parts = Vec::new();
    if !sig.is_empty() {
        parts.push(format!("significant: {}", sig.join("; ")));
    }
    if !missing.is_empty() {
        parts.push(format!("not comparable: {}", missing.join("; ")));
    }
    if c.rows.is_empty() {
        parts.push("nothing to compare: neither file has a job with I/O".to_string());
    }
    if parts.is_empty() {
        format!("#{i} {} vs baseline: within noise on every tested metric", c.files[i])
    } else {
        format!("#{i} {} vs baseline: {}", c.files[i], parts.join("; "))
    }
}

/// JSON: the files, the test, and per row the value on each side with the difference.
pub fn render_json(c: &Comparison) -> String {
    let mut root = J::obj();
    let files = c
        .files
        .iter()
        .zip(&c.sources)
        .map(|(f, s)| {
            let mut o = J::obj();
            o.put("file", f.as_str()).put("source", s.as_str());
            o
        })
        .collect();
    root.put("files", J::Arr(files)).put("test", TEST_NAME).put("alpha", c.alpha);
    root.put("min_diff_pct", c.min_pct).put("latency_floor_us", super::LAT_FLOOR_US);
    let rows = c.rows.iter().map(|r| row_json(c, r)).collect();
    root.put("rows", J::Arr(rows));
    let within = (1..c.files.len()).map(|i| J::Bool(c.within_noise(i))).collect();
    root.put("within_noise", J::Arr(within));
    let mut s = root.to_fio_string();
    s.push('\n');
    s
}

fn row_json(c: &Comparison, r: &Row) -> J {
    let mut o = J::obj();
    o.put("subject", r.subject.as_str())
        .put("dir", r.dir)
        .put("metric", r.metric)
        .put("unit", r.unit);
    let sides = (0..c.files.len())
        .map(|i| {
            let mut s = J::obj();
            if let Some(v) = r.values[i] {
                s.put("value", v);
            }
            if let Some(x) = r.samples[i] {
                s.put("samples", x.n).put("sample_mean", x.mean).put("sample_sd", x.sd);
            }
            if let Some((lo, hi)) = r.cis.get(i).copied().flatten() {
                s.put("value_ci95_low", lo).put("value_ci95_high", hi);
            }
            if i > 0 {
                let d = c.diff(r, i);
                if let Some(p) = d.pct {
                    s.put("diff_pct", p);
                }
                if let Some(t) = d.test {
                    s.put("t", t.t).put("df", t.df).put("p", t.p);
                    s.put("ci95_low", t.ci95.0).put("ci95_high", t.ci95.1);
                }
                if let Some(a) = d.apart {
                    s.put("cis_apart", a);
                }
                s.put("verdict", d.verdict(c.alpha, c.min_pct));
            }
            s
        })
        .collect();
    o.put("sides", J::Arr(sides));
    o
}

/// HTML (`--output-format=html`, crate iolab-viz): per metric the results' bars side by side
/// with their noise bands, the differences table, and the intervals of the `files` that carry
/// them (`--output-format=json,jsonl` or fio's `--status-interval` documents) overlaid. A
/// file read from stdin (`-`) has no intervals to lend.
pub fn render_html(c: &Comparison, files: &[PathBuf]) -> Result<String, CompareError> {
    let mut runs = Vec::new();
    for f in files.iter().filter(|f| f.as_os_str() != "-") {
        let bytes = iolab_core::input::read_bounded(f, "result", super::read::MAX_BYTES)
            .map_err(|e| CompareError::Format { path: f.clone(), what: e.reason() })?;
        runs.push(iolab_viz::Input::from_bytes(f, &bytes)?);
    }
    Ok(iolab_viz::compare_html(render_json(c).as_bytes(), &runs)?)
}

/// CSV: `subject,dir,metric,unit,file,value,diff_pct,p,verdict`, one line per row and side.
pub fn render_csv(c: &Comparison) -> String {
    let mut s = String::from("subject,dir,metric,unit,file,value,diff_pct,p,verdict\n");
    let q = |x: &str| {
        if x.contains([',', '"', '\n']) {
            format!("\"{}\"", x.replace('"', "\"\""))
        } else {
            x.to_string()
        }
    };
    let opt = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v}"));
    for r in &c.rows {
        for (i, file) in c.files.iter().enumerate() {
            let d = (i > 0).then(|| c.diff(r, i));
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                q(&r.subject),
                r.dir,
                r.metric,
                r.unit,
                q(file),
                opt(r.values[i]),
                opt(d.as_ref().and_then(|d| d.pct)),
                opt(d.as_ref().and_then(|d| d.test.map(|t| t.p))),
                d.as_ref().map_or("baseline", |d| d.verdict(c.alpha, c.min_pct)),
            );
        }
    }
    s
}
