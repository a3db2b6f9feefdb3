//! A run's (or sim's) section: description, per-job summary, interval series, latency
//! distribution, device view, advice, and the sim's tiers.
//!
//! Field names and units are fio-3.33's JSON (stat.c `show_thread_status_json`,
//! `add_ddir_status_json`): `iops`, `bw_bytes` (B/s), latencies in ns under `clat_ns`/`lat_ns`,
//! json+ `bins` keyed by the bucket's value in ns (stat.c `add_lat_percentile_json`'s plat
//! layout); iolab's extensions as its report crate writes them.

use crate::chart::{downsample, fmt_num, Axis, Chart, Corner, Series, Style};
use crate::input::{num, text, Input};
use crate::model::{Advice, Section, Table, MAX_POINTS};
use serde_json::Value;

pub(crate) const DIRS: [&str; 3] = ["read", "write", "trim"];

/// The section of one run or sim document (plus JSON Lines after it in the same file).
pub fn section(input: &Input, n: usize) -> Section {
    let doc = input.doc();
    let sim = doc.get("iolab_sim").is_some();
    let mut s = Section {
        title: format!("{}: {}", if sim { "Simulation" } else { "Run" }, input.label),
        kind: if sim { "sim" } else { "run" }.into(),
        ..Section::default()
    };
    s.tables.push(describe(doc));
    s.tables.push(summary(doc));
    if let Some(t) = job_options(doc) {
        s.tables.push(t);
    }
    add_intervals(&mut s, input, n);
    s.charts.extend(crate::latency::charts(doc, n));
    s.charts.extend(devices(doc, n));
    if sim {
        crate::sim::add(&mut s, &doc["iolab_sim"], n);
    }
    s.advice = advice(doc);
    for job in jobs(doc) {
        for note in job.pointer("/iolab/notes").and_then(Value::as_array).into_iter().flatten() {
            if let Some(t) = note.as_str() {
                s.notes.push(t.to_string());
            }
        }
    }
    s
}

/// The job entries: fio's `jobs`, or `client_stats` in a client-mode (many hosts) document.
fn jobs(doc: &Value) -> &[Value] {
    doc.get("jobs")
        .or_else(|| doc.get("client_stats"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A job's name for tables and legends; a client-mode entry is led by its host, as fio's
/// client text is (`<host> name`); the aggregate keeps fio's `All clients`.
fn job_label(j: &Value) -> String {
    let name = text(j, "/jobname").unwrap_or("?");
    match text(j, "/hostname") {
        Some(host) if name != "All clients" => format!("<{host}> {name}"),
        _ => name.to_string(),
    }
}

fn describe(doc: &Value) -> Table {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = |k: &str, v: String| rows.push(vec![k.to_string(), v]);
    if let Some(v) = text(doc, "/fio version") {
        row("version", v.to_string());
    }
    if let Some(t) = text(doc, "/time") {
        row("started", t.to_string());
    }
    if let Some(m) = text(doc, "/jobs/0/iolab/mode") {
        row("mode", m.to_string());
    }
    for key in ["hostname", "kernel", "command_line"] {
        if let Some(v) = doc.pointer(&format!("/iolab_host/{key}")).and_then(Value::as_str) {
            row(key, v.to_string());
        }
    }
    row("engine", engine(doc));
    let targets = targets(doc);
    if !targets.is_empty() {
        row("target", targets.join(", "));
    }
    let disks: Vec<&str> = doc["disk_util"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| text(d, "/name"))
        .collect();
    if !disks.is_empty() {
        row("device", disks.join(", "));
    }
    if let Some(g) = doc["global options"].as_object() {
        let opts: Vec<String> = g.iter().map(|(k, v)| opt(k, v)).collect();
        row("global options", opts.join(" "));
    }
    Table { caption: "Description".into(), head: vec!["".into(), "".into()], rows }
}

/// The jobs' `ioengine`s (a sim has none: its I/O is modelled).
fn engine(doc: &Value) -> String {
    let mut engines: Vec<&str> =
        jobs(doc).iter().filter_map(|j| text(j, "/job options/ioengine")).collect();
    if let Some(g) = text(doc, "/global options/ioengine") {
        engines.push(g);
    }
    engines.dedup();
    if doc.get("iolab_sim").is_some() {
        "none: cache and device models (iolab sim)".to_string()
    } else if engines.is_empty() {
        "psync (fio default)".to_string()
    } else {
        engines.join(", ")
    }
}

/// Every `filename=`/`directory=` of the global section and the jobs, once each.
fn targets(doc: &Value) -> Vec<String> {
    let mut targets = Vec::new();
    let sections =
        std::iter::once(&doc["global options"]).chain(jobs(doc).iter().map(|j| &j["job options"]));
    for o in sections {
        for k in ["filename", "directory"] {
            if let Some(t) = o.get(k).and_then(Value::as_str) {
                if !targets.iter().any(|x: &String| x.ends_with(t)) {
                    targets.push(format!("{k}={t}"));
                }
            }
        }
    }
    targets
}

fn opt(k: &str, v: &Value) -> String {
    match v.as_str() {
        Some("") => k.to_string(),
        Some(s) => format!("{k}={s}"),
        None => format!("{k}={v}"),
    }
}

fn job_options(doc: &Value) -> Option<Table> {
    let rows: Vec<Vec<String>> = jobs(doc)
        .iter()
        .filter_map(|j| {
            let o = j["job options"].as_object()?;
            let opts: Vec<String> = o.iter().map(|(k, v)| opt(k, v)).collect();
            Some(vec![job_label(j), opts.join(" ")])
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        caption: "Job options".into(),
        head: vec!["job".into(), "options".into()],
        rows,
    })
}

fn us(ns: Option<f64>) -> String {
    ns.map_or("-".into(), |v| fmt_num(v / 1000.0))
}

/// A clat percentile from fio's `percentile` object (keys like `"99.900000"`).
fn pct(d: &Value, kind: &str, p: f64) -> Option<f64> {
    let m = d.pointer(&format!("/{kind}/percentile"))?.as_object()?;
    m.iter()
        .find(|(k, _)| k.parse::<f64>().is_ok_and(|x| (x - p).abs() < 1e-9))
        .and_then(|(_, v)| v.as_f64())
}

fn summary(doc: &Value) -> Table {
    let head = [
        "job",
        "dir",
        "IOPS",
        "bandwidth (MiB/s)",
        "I/Os",
        "clat mean (µs)",
        "p50 (µs)",
        "p99 (µs)",
        "p99.9 (µs)",
        "max (µs)",
        "errors",
    ];
    let mut rows = Vec::new();
    for j in jobs(doc) {
        let name = job_label(j);
        let err = num(j, "/error").unwrap_or(0.0);
        for dir in DIRS {
            let d = &j[dir];
            let ios = num(d, "/total_ios").unwrap_or(0.0);
            if ios <= 0.0 {
                continue;
            }
            let failed = num(j, &format!("/iolab/{dir}/failed_ios")).unwrap_or(0.0);
            let errors = match (err, failed) {
                (e, f) if e == 0.0 && f == 0.0 => "0".to_string(),
                (e, f) => format!("error {e}, {f} failed I/Os"),
            };
            rows.push(vec![
                name.to_string(),
                dir.to_string(),
                num(d, "/iops").map_or("-".into(), fmt_num),
                num(d, "/bw_bytes").map_or("-".into(), |b| format!("{:.1}", b / 1048576.0)),
                fmt_num(ios),
                us(num(d, "/clat_ns/mean")),
                us(pct(d, "clat_ns", 50.0)),
                us(pct(d, "clat_ns", 99.0)),
                us(pct(d, "clat_ns", 99.9)),
                us(num(d, "/clat_ns/max")),
                errors,
            ]);
        }
    }
    Table {
        caption: "Summary per job and direction".into(),
        head: head.map(String::from).to_vec(),
        rows,
    }
}

/// Interval series of one job from the JSON Lines objects.
#[derive(Default)]
pub(crate) struct JobSeries {
    pub(crate) name: String,
    /// Per direction: (time s, iops, MiB/s, clat mean µs).
    pub(crate) dirs: [Vec<(f64, f64, f64, f64)>; 3],
}

/// `input`'s intervals (its JSON Lines, else fio's status documents) per job clone.
pub(crate) fn group_intervals(input: &Input) -> Vec<JobSeries> {
    let mut by_job: Vec<JobSeries> = Vec::new();
    let mut lines: Vec<Value> = input.intervals().cloned().collect();
    if lines.is_empty() {
        lines = status_intervals(input);
    }
    for l in &lines {
        let name =
            format!("{} ({})", text(l, "/job").unwrap_or("?"), num(l, "/jobidx").unwrap_or(0.0));
        let idx = match by_job.iter().position(|j| j.name == name) {
            Some(i) => i,
            None => {
                by_job.push(JobSeries { name, ..JobSeries::default() });
                by_job.len() - 1
            }
        };
        let t = num(l, "/time_ms").unwrap_or(0.0) / 1000.0;
        for (k, dir) in DIRS.iter().enumerate() {
            let d = &l[*dir];
            if let Some(iops) = num(d, "/iops") {
                let bw = num(d, "/bw_bytes").unwrap_or(0.0) / 1048576.0;
                let lat = num(d, "/clat_mean_ns").unwrap_or(0.0) / 1000.0;
                by_job[idx].dirs[k].push((t, iops, bw, lat));
            }
        }
    }
    by_job
}

/// Per-job IOPS, bandwidth and latency charts from `input`'s JSON Lines.
pub fn add_intervals(s: &mut Section, input: &Input, n: usize) {
    let by_job = group_intervals(input);
    let band = steady_window(input.doc());
    for (j, js) in by_job.iter().enumerate() {
        let end = js.dirs.iter().flatten().map(|p| p.0).fold(0.0, f64::max);
        let band = band.map(|d| ((end - d).max(0.0), end, "steady-state window".to_string()));
        let pick = |f: fn(&(f64, f64, f64, f64)) -> f64| -> Vec<Series> {
            DIRS.iter()
                .zip(&js.dirs)
                .filter(|(_, v)| !v.is_empty())
                .map(|(d, v)| Series {
                    name: d.to_string(),
                    points: downsample(
                        &v.iter().map(|p| (p.0, f(p))).collect::<Vec<_>>(),
                        MAX_POINTS,
                    ),
                })
                .collect()
        };
        let mk = |id: &str, title: &str, y: &str, series| Chart {
            id: format!("i{n}-j{j}-{id}"),
            title: format!("{}: {title}", js.name),
            x: Axis::lin("time (s)"),
            y: Axis::lin(y),
            series,
            band: band.clone(),
            y_from_zero: true,
            legend: Corner::LowerRight,
            style: Style::Lines,
        };
        s.charts.push(mk("iops", "IOPS per interval", "IOPS", pick(|p| p.1)));
        s.charts.push(mk("bw", "bandwidth per interval", "bandwidth (MiB/s)", pick(|p| p.2)));
        s.charts.push(mk(
            "lat",
            "mean completion latency per interval",
            "clat mean (µs)",
            pick(|p| p.3),
        ));
    }
}

/// Intervals from fio's `--status-interval` JSON: a cumulative document per interval, so each
/// interval is the difference of two (`total_ios`, `io_bytes`, `clat_ns` mean × N) over the
/// difference of `job_runtime` (ms), in the JSON Lines shape [`add_intervals`] reads.
fn status_intervals(input: &Input) -> Vec<Value> {
    let docs: Vec<&Value> = input.values.iter().filter(|v| !jobs(v).is_empty()).collect();
    let mut out = Vec::new();
    for w in docs.windows(2) {
        for (k, (a, b)) in jobs(w[0]).iter().zip(jobs(w[1])).enumerate() {
            let dt = num(b, "/job_runtime").unwrap_or(0.0) - num(a, "/job_runtime").unwrap_or(0.0);
            if dt <= 0.0 {
                continue;
            }
            let mut line = serde_json::json!({
                "time_ms": num(b, "/job_runtime"),
                "job": job_label(b),
                "jobidx": k,
            });
            for dir in DIRS {
                let d = |f: &str| num(&b[dir], f).unwrap_or(0.0) - num(&a[dir], f).unwrap_or(0.0);
                let ios = d("/total_ios");
                if ios <= 0.0 {
                    continue;
                }
                let sum = |v: &Value| {
                    num(v, "/clat_ns/mean").unwrap_or(0.0) * num(v, "/total_ios").unwrap_or(0.0)
                };
                line[dir] = serde_json::json!({
                    "iops": ios * 1000.0 / dt,
                    "bw_bytes": d("/io_bytes") * 1000.0 / dt,
                    "clat_mean_ns": (sum(&b[dir]) - sum(&a[dir])) / ios,
                });
            }
            out.push(line);
        }
    }
    out
}

/// The steady-state window's length in seconds: fio's `steadystate.duration` when the job had
/// `steadystate=`, else iolab's steady_state advice ("over the last N intervals of X s").
fn steady_window(doc: &Value) -> Option<f64> {
    for j in jobs(doc) {
        if num(j, "/steadystate/attained").unwrap_or(0.0) > 0.0 {
            return num(j, "/steadystate/duration");
        }
    }
    let ev = doc["iolab_advice"].as_array()?.iter().find(|a| {
        text(a, "/id") == Some("steady_state")
            && text(a, "/evidence").is_some_and(|e| e.contains(": steady"))
    })?;
    let e = text(ev, "/evidence")?;
    let rest = e.split("last ").nth(1)?;
    let (count, rest) = rest.split_once(" intervals of ")?;
    let secs = rest.split_once(" s")?.0;
    Some(count.trim().parse::<f64>().ok()? * secs.trim().parse::<f64>().ok()?)
}

/// iolab's device view (`iolab_disk_series`): per device r/s and w/s, await, aqu-sz, %util.
fn devices(doc: &Value, n: usize) -> Vec<Chart> {
    let mut out = Vec::new();
    for (k, d) in doc["iolab_disk_series"].as_array().into_iter().flatten().enumerate() {
        let name = text(d, "/name").unwrap_or("?");
        let pts = d["intervals"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let series = |keys: &[(&str, &str)]| -> Vec<Series> {
            keys.iter()
                .map(|(key, label)| Series {
                    name: label.to_string(),
                    points: downsample(
                        &pts.iter()
                            .filter_map(|p| Some((num(p, "/end_ms")? / 1000.0, num(p, &ptr(key))?)))
                            .collect::<Vec<_>>(),
                        MAX_POINTS,
                    ),
                })
                .collect()
        };
        let mk = |id: &str, title: &str, y: &str, s| Chart {
            id: format!("i{n}-d{k}-{id}"),
            title: format!("{name}: {title}"),
            x: Axis::lin("time (s)"),
            y: Axis::lin(y),
            series: s,
            band: None,
            y_from_zero: true,
            legend: Corner::LowerRight,
            style: Style::Lines,
        };
        out.push(mk(
            "iops",
            "requests completed",
            "requests/s",
            series(&[("r/s", "r/s"), ("w/s", "w/s")]),
        ));
        out.push(mk(
            "await",
            "await",
            "await (ms)",
            series(&[("r_await", "r_await"), ("w_await", "w_await")]),
        ));
        out.push(mk(
            "aqu",
            "average queue size",
            "aqu-sz (requests)",
            series(&[("aqu-sz", "aqu-sz")]),
        ));
        out.push(mk("util", "utilisation", "%util", series(&[("util", "%util")])));
    }
    out
}

/// A JSON pointer to `key` (RFC 6901: `~` and `/` escaped, as in iostat's `r/s`).
fn ptr(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn advice(doc: &Value) -> Vec<Advice> {
    let t = |a: &Value, k: &str| text(a, &format!("/{k}")).unwrap_or("").to_string();
    doc["iolab_advice"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| Advice {
            severity: t(a, "severity"),
            id: t(a, "id"),
            subject: t(a, "subject"),
            title: t(a, "title"),
            evidence: t(a, "evidence"),
            why: t(a, "why"),
            what_to_do: t(a, "what_to_do"),
        })
        .collect()
}

/// Used by [`crate::latency`]: every job × direction with I/O, named for a legend.
pub fn job_dirs(doc: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for j in jobs(doc) {
        let name = job_label(j);
        for dir in DIRS {
            if num(&j[dir], "/total_ios").unwrap_or(0.0) > 0.0 {
                out.push((format!("{name} {dir}"), &j[dir]));
            }
        }
    }
    out
}
