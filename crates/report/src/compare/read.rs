//! Reading fio's and iolab's JSON results into the few numbers a comparison needs, and lining
//! several results up into rows.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use super::{Better, CompareError, Row, Samples};

/// A result file larger than this is refused: a json+ of a long run with many jobs is a few
/// MiB; a bigger one is not a result.
pub(super) const MAX_BYTES: u64 = 256 << 20;

/// One direction of one job.
#[derive(Debug, Clone, Default)]
pub struct DirView {
    pub iops: f64,
    pub bw_bytes: f64,
    pub iops_samples: Option<Samples>,
    pub bw_samples: Option<Samples>,
    pub clat_mean_ns: Option<f64>,
    /// clat percentiles keyed by fio's names (`50.000000`, `99.000000`, `99.900000`).
    pub clat_pct_ns: BTreeMap<String, f64>,
    /// Per-I/O mean, standard deviation and count of submission, completion and total
    /// latency (fio's `slat_ns`, `clat_ns`, `lat_ns`), in µs.
    pub slat: Option<Samples>,
    pub clat: Option<Samples>,
    pub lat: Option<Samples>,
    pub total_ios: u64,
}

/// One job: its name and its directions that moved I/O.
#[derive(Debug, Clone, Default)]
pub struct JobView {
    pub name: String,
    pub dirs: Vec<(&'static str, DirView)>,
}

/// One device: aqu-sz and %util, with interval samples where iolab's series has them.
#[derive(Debug, Clone, Default)]
pub struct DeviceView {
    pub name: String,
    pub util: Option<f64>,
    pub util_samples: Option<Samples>,
    pub aqu: Option<f64>,
    pub aqu_samples: Option<Samples>,
}

/// What a comparison reads from one result file.
#[derive(Debug, Clone, Default)]
pub struct ResultView {
    pub file: String,
    pub source: String,
    pub jobs: Vec<JobView>,
    pub devices: Vec<DeviceView>,
}

/// Read a fio or iolab JSON result (`-` is stdin).
pub fn read_result(path: &Path) -> Result<ResultView, CompareError> {
    let io = |source| CompareError::Io { path: path.to_path_buf(), source };
    let fmt = |what: String| CompareError::Format { path: path.to_path_buf(), what };
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin().take(MAX_BYTES + 1).read_to_string(&mut text).map_err(io)?;
    } else {
        // Regular files only (a FIFO or /dev/zero is refused before any read), bounded.
        let bytes = iolab_core::input::read_bounded(path, "result", MAX_BYTES)
            .map_err(|e| fmt(e.reason()))?;
        text = String::from_utf8(bytes)
            .map_err(|_| fmt("not UTF-8 text: not a JSON result".into()))?;
    }
    if text.len() as u64 > MAX_BYTES {
        return Err(fmt(format!("larger than {} MiB: not a result file", MAX_BYTES >> 20)));
    }
    let doc = last_document(&text).map_err(fmt)?;
    iolab_viz::input::check_range(&doc).map_err(|w| fmt(format!("value{w}")))?;
    let mut view = parse(&doc).map_err(fmt)?;
    view.file = path.display().to_string();
    Ok(view)
}

/// fio prints "note:" lines before its JSON, and one document per `--status-interval`: take
/// the last complete document with `jobs` (iolab's `--output-format=json,jsonl` follows the
/// document with JSON Lines intervals), else the last one.
fn last_document(text: &str) -> Result<Value, String> {
    let start = text.find('{').ok_or("no JSON object in it: not a fio or iolab result")?;
    let mut last = None;
    for doc in serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>() {
        match doc {
            Ok(v) if v.get("time_ms").is_some() && last.as_ref().is_some_and(has_jobs) => {}
            Ok(v) => last = Some(v),
            Err(e) if last.is_some() && e.is_eof() => break,
            Err(e) => return Err(format!("not valid JSON ({e})")),
        }
    }
    last.ok_or_else(|| "no JSON object in it".into())
}

fn has_jobs(v: &Value) -> bool {
    job_array(v).is_some()
}

/// The job entries: fio's `jobs`, or `client_stats` in a client-mode (many hosts) document.
fn job_array(v: &Value) -> Option<&Vec<Value>> {
    v.get("jobs").or_else(|| v.get("client_stats")).and_then(Value::as_array)
}

fn parse(doc: &Value) -> Result<ResultView, String> {
    let jobs = job_array(doc)
        .ok_or("no \"jobs\" or \"client_stats\" array: not a fio or iolab JSON result")?;
    let mut version = doc.get("fio version").and_then(Value::as_str).unwrap_or("?").to_string();
    let mode = jobs.first().and_then(|j| j.pointer("/iolab/mode")).and_then(Value::as_str);
    if let Some(m) = mode {
        version = format!("{version} ({m})");
    }
    let mut out = ResultView { source: version, ..Default::default() };
    for (i, j) in jobs.iter().enumerate() {
        let mut name = j.get("jobname").and_then(Value::as_str).unwrap_or("").to_string();
        // A client-mode entry is one host's job: name it by its host (fio's `<host>`).
        match j.get("hostname").and_then(Value::as_str) {
            Some(host) if name != "All clients" => name = format!("<{host}> {name}"),
            _ => {}
        }
        let mut view = JobView { name, dirs: Vec::new() };
        for dir in ["read", "write", "trim"] {
            let Some(d) = j.get(dir) else { continue };
            let dv = dir_view(d).map_err(|what| format!("jobs[{i}].{dir}: {what}"))?;
            if dv.total_ios > 0 {
                view.dirs.push((dir, dv));
            }
        }
        out.jobs.push(view);
    }
    out.devices = devices(doc);
    Ok(out)
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64).filter(|x| x.is_finite())
}

fn samples(v: &Value, mean: &str, sd: &str, n: &str) -> Option<Samples> {
    let n = v.get(n).and_then(Value::as_u64)?;
    Some(Samples { mean: num(v, mean)?, sd: num(v, sd)?, n })
}

/// A latency block's per-I/O statistics in µs (`mean`, `stddev`, `N`); `None` when it has no
/// samples.
fn per_io(v: Option<&Value>) -> Option<Samples> {
    let s = samples(v?, "mean", "stddev", "N")?;
    (s.n > 0).then_some(Samples { mean: s.mean / 1e3, sd: s.sd / 1e3, n: s.n })
}

fn dir_view(d: &Value) -> Result<DirView, String> {
    let total_ios = d.get("total_ios").and_then(Value::as_u64).ok_or("no total_ios")?;
    let clat = d.get("clat_ns");
    let clat_pct_ns = clat
        .and_then(|c| c.get("percentile"))
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_f64()?))).collect())
        .unwrap_or_default();
    Ok(DirView {
        iops: num(d, "iops").ok_or("no iops")?,
        bw_bytes: num(d, "bw_bytes").ok_or("no bw_bytes")?,
        iops_samples: samples(d, "iops_mean", "iops_stddev", "iops_samples"),
        bw_samples: samples(d, "bw_mean", "bw_dev", "bw_samples"),
        clat_mean_ns: clat.and_then(|c| num(c, "mean")),
        clat_pct_ns,
        slat: per_io(d.get("slat_ns")),
        clat: per_io(clat),
        lat: per_io(d.get("lat_ns")),
        total_ios,
    })
}

/// Devices from iolab's per-interval series where present (aqu-sz and %util samples), else
/// from fio's `disk_util` (whole-run %util only).
fn devices(doc: &Value) -> Vec<DeviceView> {
    if let Some(series) = doc.get("iolab_disk_series").and_then(Value::as_array) {
        return series.iter().filter_map(series_device).collect();
    }
    let Some(du) = doc.get("disk_util").and_then(Value::as_array) else { return Vec::new() };
    du.iter()
        .filter_map(|d| {
            let name = d.get("name")?.as_str()?.to_string();
            Some(DeviceView { name, util: num(d, "util"), ..Default::default() })
        })
        .collect()
}

fn series_device(d: &Value) -> Option<DeviceView> {
    let name = d.get("name")?.as_str()?.to_string();
    let pts = d.get("intervals")?.as_array()?;
    let col = |k: &str| pts.iter().filter_map(|p| num(p, k)).collect::<Vec<f64>>();
    let summary = |xs: &[f64]| {
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(Samples { mean, sd: var.sqrt(), n: n as u64 })
    };
    let (util, aqu) = (summary(&col("util")), summary(&col("aqu-sz")));
    Some(DeviceView {
        name,
        util: util.map(|s| s.mean),
        util_samples: util,
        aqu: aqu.map(|s| s.mean),
        aqu_samples: aqu,
    })
}

/// Job keys in first-seen order across the results: the name, with `#N` for its Nth repeat.
fn job_keys(r: &ResultView) -> Vec<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    r.jobs
        .iter()
        .map(|j| {
            let n = seen.entry(&j.name).or_insert(0);
            *n += 1;
            if *n == 1 {
                j.name.clone()
            } else {
                format!("{}#{}", j.name, n)
            }
        })
        .collect()
}

/// One metric of a direction: its value, the samples its noise test uses, and a 95 %
/// confidence interval where the noise is judged by one instead (latency percentiles).
type Measure = (Option<f64>, Option<Samples>, Option<(f64, f64)>);
type Metric = (&'static str, &'static str, Better, fn(&DirView) -> Measure);

/// The metrics per direction: throughput with its interval samples, the latency means with
/// their per-I/O statistics, the completion-latency percentiles with their confidence
/// intervals.
const METRICS: &[Metric] = &[
    ("iops", "IO/s", Better::Higher, |d| (Some(d.iops), d.iops_samples, None)),
    ("bw", "MiB/s", Better::Higher, |d| {
        let mib = |s: Samples| Samples { mean: s.mean / 1024.0, sd: s.sd / 1024.0, n: s.n };
        (Some(d.bw_bytes / 1048576.0), d.bw_samples.map(mib), None)
    }),
    ("slat mean", "us", Better::Lower, |d| (d.slat.map(|s| s.mean), d.slat, None)),
    ("clat mean", "us", Better::Lower, |d| (d.clat_mean_ns.map(|x| x / 1e3), d.clat, None)),
    ("lat mean", "us", Better::Lower, |d| (d.lat.map(|s| s.mean), d.lat, None)),
    ("clat p50", "us", Better::Lower, |d| pct(d, 50.0)),
    ("clat p99", "us", Better::Lower, |d| pct(d, 99.0)),
    ("clat p99.9", "us", Better::Lower, |d| pct(d, 99.9)),
];

/// Percentile `p` of the completion latency (µs) and its 95 % confidence interval.
fn pct(d: &DirView, p: f64) -> Measure {
    let listed: Vec<(f64, f64)> =
        d.clat_pct_ns.iter().filter_map(|(k, v)| Some((k.parse::<f64>().ok()?, v / 1e3))).collect();
    let value = listed.iter().find(|(q, _)| (q - p).abs() < 1e-9).map(|(_, v)| *v);
    let n = d.clat.map_or(d.total_ios, |s| s.n);
    (value, None, value.and_then(|_| super::quantile::ci95(&listed, p, n)))
}

/// Every row: jobs by key and direction, then devices by name.
pub(super) fn rows(results: &[ResultView]) -> Vec<Row> {
    let keyed: Vec<Vec<(String, &JobView)>> =
        results.iter().map(|r| job_keys(r).into_iter().zip(r.jobs.iter()).collect()).collect();
    let mut order: Vec<(String, &'static str)> = Vec::new();
    for side in &keyed {
        for (key, job) in side {
            for (dir, _) in &job.dirs {
                if !order.iter().any(|(k, d)| k == key && d == dir) {
                    order.push((key.clone(), dir));
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (key, dir) in order {
        let per_side: Vec<Option<&DirView>> = keyed
            .iter()
            .map(|side| {
                let job = side.iter().find(|(k, _)| *k == key)?.1;
                job.dirs.iter().find(|(d, _)| *d == dir).map(|(_, v)| v)
            })
            .collect();
        for (metric, unit, better, get) in METRICS {
            let got: Vec<_> = per_side.iter().map(|d| d.map(get)).collect();
            rows.push(Row {
                subject: key.clone(),
                dir,
                metric,
                unit,
                better: *better,
                values: got.iter().map(|g| g.and_then(|g| g.0)).collect(),
                samples: got.iter().map(|g| g.and_then(|g| g.1)).collect(),
                cis: got.iter().map(|g| g.and_then(|g| g.2)).collect(),
            });
        }
    }
    rows.extend(device_rows(results));
    rows
}

fn device_rows(results: &[ResultView]) -> Vec<Row> {
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        for d in &r.devices {
            if !names.contains(&d.name.as_str()) {
                names.push(&d.name);
            }
        }
    }
    let mut rows = Vec::new();
    for name in names {
        let per: Vec<Option<&DeviceView>> =
            results.iter().map(|r| r.devices.iter().find(|d| d.name == name)).collect();
        let row = |metric, unit, v: fn(&DeviceView) -> (Option<f64>, Option<Samples>)| Row {
            subject: format!("device {name}"),
            dir: "device",
            metric,
            unit,
            better: Better::Neither,
            values: per.iter().map(|d| d.and_then(|d| v(d).0)).collect(),
            samples: per.iter().map(|d| d.and_then(|d| v(d).1)).collect(),
            cis: vec![None; per.len()],
        };
        rows.push(row("aqu-sz", "", |d| (d.aqu, d.aqu_samples)));
        rows.push(row("util", "%", |d| (d.util, d.util_samples)));
    }
    rows
}
