//! A one-hour run's result (two jobs, read and write, 0.5 s intervals, two devices, json+
//! bins) stays a small page: every series is cut to `MAX_POINTS`, the file stays under 2 MB,
//! and the steady-state window fio reports (`steadystate.duration` when attained) is shaded
//! at the end of each job's series.
#![allow(clippy::unwrap_used)]

use iolab_viz::model::{build, MAX_POINTS};
use iolab_viz::Input;
use serde_json::json;

fn job(name: &str) -> serde_json::Value {
    // json+ bins: 1,000 plat buckets from 10 µs up.
    let bins: serde_json::Map<String, serde_json::Value> =
        (0..1000u64).map(|i| ((10_000 + i * 997).to_string(), json!(1 + i % 7))).collect();
    let dir = json!({"total_ios": 1_000_000, "iops": 277.7, "bw_bytes": 1_137_000,
        "clat_ns": {"mean": 50_000.0, "max": 9_000_000, "bins": bins,
            "percentile": {"50.000000": 40_000, "99.000000": 900_000}}});
    json!({"jobname": name, "error": 0, "job options": {"ioengine": "libaio", "rw": "randrw"},
        "read": dir, "write": dir,
        "steadystate": {"ss": "iops_slope:0.3%", "duration": 60, "attained": 1}})
}

fn hour() -> String {
    let intervals: Vec<serde_json::Value> = (1..=7200u64)
        .map(|i| {
            json!({"end_ms": i * 500, "dur_ms": 500, "r/s": (i % 97) as f64, "w/s": 10.0,
                "rMB/s": 1.0, "wMB/s": 1.0, "r_await": 0.5, "w_await": 0.7, "aqu-sz": 1.5,
                "util": 42.0, "in_flight": 1})
        })
        .collect();
    let doc = json!({
        "fio version": "iolab-0.1.0",
        "jobs": [job("a"), job("b")],
        "iolab_disk_series": [{"name": "sda", "intervals": intervals},
                              {"name": "sdb", "intervals": intervals}],
    });
    let mut text = doc.to_string();
    for i in 1..=7200u64 {
        for (idx, name) in ["a", "b"].iter().enumerate() {
            let d = json!({"io_bytes": 4096, "total_ios": 1, "bw_bytes": 8192.0 + i as f64,
                "iops": 2.0 + (i % 13) as f64, "clat_mean_ns": 1000.0});
            let line = json!({"time_ms": i * 500, "job": name, "jobidx": idx,
                "interval_ms": 500.0, "read": d, "write": d});
            text.push('\n');
            text.push_str(&line.to_string());
        }
    }
    text
}

#[test]
fn one_hour_run_is_a_small_page_with_every_part() {
    let input = Input::parse("hour.json", &hour()).unwrap();
    let report = build(std::slice::from_ref(&input)).unwrap();
    let charts: Vec<_> = report.sections.iter().flat_map(|s| &s.charts).collect();
    // Per job 3 interval charts, 2 latency charts, 4 per device.
    assert_eq!(charts.len(), 2 * 3 + 2 + 2 * 4);
    for c in &charts {
        for s in &c.series {
            assert!(s.points.len() <= MAX_POINTS, "{} {}: {}", c.id, s.name, s.points.len());
        }
    }
    let iops = charts.iter().find(|c| c.id == "i0-j0-iops").unwrap();
    assert_eq!(iops.band.as_ref().map(|b| (b.0, b.1)), Some((3540.0, 3600.0)));
    let page = iolab_viz::html(&[input]).unwrap();
    assert!(page.len() < 2 << 20, "{} bytes", page.len());
    assert!(!page.contains("http://") && !page.contains("https://"));
    eprintln!("one-hour page: {} bytes", page.len());
}
