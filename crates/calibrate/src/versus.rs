//! `iolab run --predict[=PROFILE.toml]`: the jobs also predicted on a device profile
//! (`iolab calibrate`; default `iolab-profile.toml` in the current directory) through
//! [`crate::predict`], and the measurement and the prediction side by side per group and
//! direction: a text table after the summary, and in JSON an `iolab_predict` object with the
//! rows and their relative errors. Latency is judged where the caller waits: p50/p99 of the
//! total latency (fio's `lat`), and the medians of its two parts, submission (`slat`) and
//! completion (`clat`), each beside its prediction (the predicted result itself is added by the exporter, in
//! the measured document's format).

use std::path::Path;

use iolab_model::device::profile::DeviceProfile;
use iolab_model::ModelError;
use iolab_stats::RunResult;

use crate::metrics::{self, rel_error, Metrics};

/// The profile `--predict` reads when given no file.
pub const DEFAULT_PROFILE: &str = "iolab-profile.toml";

/// The profile named by `--predict` (empty: [`DEFAULT_PROFILE`]).
pub fn load(arg: &str) -> Result<DeviceProfile, ModelError> {
    DeviceProfile::load(Path::new(if arg.is_empty() { DEFAULT_PROFILE } else { arg }))
}

/// One row: group, direction, measured, predicted.
pub struct Row {
    pub group: u32,
    pub dir: iolab_core::IoDir,
    pub measured: Metrics,
    pub predicted: Metrics,
}

/// Every measured group and direction beside its prediction (zeros where none).
pub fn rows(measured: &RunResult, predicted: &RunResult) -> Vec<Row> {
    let p = metrics::all(predicted);
    metrics::all(measured)
        .into_iter()
        .map(|(group, dir, m)| Row {
            group,
            dir,
            measured: m,
            predicted: p
                .iter()
                .find(|(g, d, _)| *g == group && *d == dir)
                .map(|x| x.2)
                .unwrap_or_default(),
        })
        .collect()
}

/// The predicted result's notes about jobs outside the profile's calibrated range.
fn outside(predicted: &RunResult) -> impl Iterator<Item = &String> {
    predicted.notes.iter().filter(|n| n.starts_with(crate::range::PREFIX))
}

/// The text table, then a line per job and direction outside the calibrated range.
pub fn text(rows: &[Row], profile: &DeviceProfile, predicted: &RunResult) -> String {
    let mut s = format!("\npredicted on profile {} vs measured:\n", profile.name);
    s.push_str(
        "  group dir        IOPS meas/pred (err)          MiB/s meas/pred      p50 µs meas/pred (err)     p99 µs meas/pred (err)     slat p50 µs meas/pred (err)  clat p50 µs meas/pred (err)\n",
    );
    for r in rows {
        let (m, p) = (&r.measured, &r.predicted);
        s.push_str(&format!(
            "  {:<5} {:<5} {:>10.0} {:>10.0} ({:+5.1}%)  {:>8.1} {:>8.1}",
            r.group,
            r.dir.as_str(),
            m.iops,
            p.iops,
            rel_error(p.iops, m.iops) * 100.0,
            m.bw_bytes / 1048576.0,
            p.bw_bytes / 1048576.0,
        ));
        // Each latency column: measured, predicted and the error (the clat column sits two
        // spaces further right, under its wider heading).
        let lat = [
            (m.p50_us, p.p50_us, "  "),
            (m.p99_us, p.p99_us, "  "),
            (m.slat_p50_us, p.slat_p50_us, "  "),
            (m.clat_p50_us, p.clat_p50_us, "    "),
        ];
        for (mv, pv, gap) in lat {
            let e = rel_error(pv, mv) * 100.0;
            s.push_str(&format!("{gap}{mv:>9.1} {pv:>9.1} ({e:+5.1}%)"));
        }
        s.push('\n');
    }
    s.push_str(
        "  (p50/p99: total latency, submission to completion; slat + clat are its two parts)\n",
    );
    for n in outside(predicted) {
        s.push_str(&format!("  note: {n}\n"));
    }
    s
}

/// The JSON object put under `iolab_predict` (without its `result`); `outside_range` lists
/// the notes about jobs outside the calibrated range.
pub fn json(rows: &[Row], profile: &DeviceProfile, predicted: &RunResult) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let (m, p) = (&r.measured, &r.predicted);
            serde_json::json!({
                "groupid": r.group, "dir": r.dir.as_str(),
                "measured": figures(m),
                "predicted": figures(p),
                "error": {
                    "iops": rel_error(p.iops, m.iops), "bw": rel_error(p.bw_bytes, m.bw_bytes),
                    "p50": rel_error(p.p50_us, m.p50_us), "p99": rel_error(p.p99_us, m.p99_us),
                    "slat_p50": rel_error(p.slat_p50_us, m.slat_p50_us),
                    "clat_p50": rel_error(p.clat_p50_us, m.clat_p50_us),
                    "slat_p99": rel_error(p.slat_p99_us, m.slat_p99_us),
                    "clat_p99": rel_error(p.clat_p99_us, m.clat_p99_us),
                },
            })
        })
        .collect();
    let outside: Vec<&String> = outside(predicted).collect();
    serde_json::json!({ "profile": profile.name, "rows": rows, "outside_range": outside })
}

/// One side of a row in JSON: p50/p99 are the total latency, `slat_*`/`clat_*` its parts.
fn figures(m: &Metrics) -> serde_json::Value {
    serde_json::json!({
        "iops": m.iops, "bw_bytes": m.bw_bytes, "p50_us": m.p50_us, "p99_us": m.p99_us,
        "slat_p50_us": m.slat_p50_us, "slat_p99_us": m.slat_p99_us,
        "clat_p50_us": m.clat_p50_us, "clat_p99_us": m.clat_p99_us,
    })
}

/// The jobs' predicted result on `profile`.
pub fn predict(
    jobs: &[iolab_job::Job],
    profile: &DeviceProfile,
) -> Result<RunResult, crate::CalibrateError> {
    let device = iolab_model::device::DeviceSpec::Profile(Box::new(profile.clone()));
    crate::predict::predict(jobs, &device)
}
