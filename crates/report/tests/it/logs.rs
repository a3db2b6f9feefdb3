//! iolab-report's logs and line exports: fio's log files (iolog.c) round trip, JSON lines per
//! interval, CSV rows.

use crate::common::*;
use iolab_core::{IoDir, Nanos};
use iolab_report::export::fio_log::{self, LogColumns, LogEntry, LogKind};
use iolab_report::export::jsonl::status_line;
use iolab_report::exporter;
use iolab_stats::*;
use serde_json::Value;

#[test]
fn fio_logs_round_trip_and_are_named_like_fio() {
    let entries = vec![
        LogEntry {
            time_ms: 500,
            value: 36929,
            max: None,
            ddir: 0,
            bs: 4096,
            offset: Some(0),
            prio: 0,
        },
        LogEntry {
            time_ms: 1000,
            value: 105394,
            max: None,
            ddir: 1,
            bs: 4096,
            offset: Some(8192),
            prio: 0,
        },
    ];
    let text = fio_log::format(&entries);
    assert_eq!(text, "500, 36929, 0, 4096, 0, 0\n1000, 105394, 1, 4096, 8192, 0\n");
    let with_offset = LogColumns { max: false, offset: true };
    assert_eq!(fio_log::parse(&text, "x.log", with_offset).unwrap(), entries);

    // Per-I/O latency log from the engine's SampleLog, log_avg_msec=100, log_window_value=both.
    let mut sl = SampleLog::new(Nanos::from_millis(100), WindowValue::Both, false);
    for k in 0..30u64 {
        sl.add(Nanos::from_millis(10 * k), IoDir::Read, 1000 + k, 4096, 4096 * k);
    }
    sl.finish(Nanos::from_millis(300));
    let lat: Vec<LogEntry> = sl.entries().iter().map(LogEntry::from).collect();
    let text = fio_log::format(&lat);
    assert_eq!(text.lines().next().unwrap(), "100, 1004, 1009, 0, 0, 0");
    let both = LogColumns { max: true, offset: false };
    assert_eq!(fio_log::parse(&text, "t_clat.1.log", both).unwrap(), lat);
    assert_eq!(lat.len(), 3);

    let e = fio_log::parse("1, 2, 0\n", "t_bw.1.log", LogColumns::default()).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.to_string().starts_with("t_bw.1.log:1: expected"));

    let run = appendix_b_run();
    let dir = tempfile::tempdir().unwrap();
    let files = fio_log::write_windowed_logs(
        &run.jobs,
        dir.path(),
        None,
        &[LogKind::Bw, LogKind::Iops, LogKind::Clat],
    )
    .unwrap();
    let names: Vec<String> =
        files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["t_bw.1.log", "t_iops.1.log", "t_clat.1.log"]);
    let plain = LogColumns::default();
    let iops = fio_log::parse(&std::fs::read_to_string(&files[1]).unwrap(), "iops", plain).unwrap();
    assert_eq!(iops.len(), run.jobs[0].read.series.len());
    assert_eq!(iops[0].time_ms, 500);
    // Each 500 ms window holds about a quarter of the 18474 I/Os: ~9232 IOPS.
    assert!(iops.iter().take(3).all(|e| (e.value as f64 - 9232.0).abs() < 50.0), "{iops:?}");
    let bw = fio_log::parse(&std::fs::read_to_string(&files[0]).unwrap(), "bw", plain).unwrap();
    assert!((bw[0].value as f64 - 36_929.0).abs() < 250.0, "{:?}", bw[0]);
}

#[test]
fn jsonl_lines_are_per_interval() {
    let run = appendix_b_run();
    let out = String::from_utf8(exporter("jsonl").unwrap().render(&run).unwrap()).unwrap();
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), run.jobs[0].read.series.len());
    let sum: u64 = lines.iter().map(|l| l["read"]["total_ios"].as_u64().unwrap()).sum();
    assert_eq!(sum, 18_474, "per-interval counts add up to the total (not cumulative)");
    assert_eq!(lines[0]["time_ms"], 500u64);

    let prev = LiveSnapshot::default();
    let mut cur = LiveSnapshot::default();
    cur.ios[1] = 10;
    cur.bytes[1] = 40960;
    cur.clat_sum_ns[1] = 10_000;
    let l: Value =
        serde_json::from_str(&status_line("w", 0, 1_000_000_000, 1_000_000_000, &prev, &cur))
            .unwrap();
    assert_eq!(l["write"]["iops"].as_f64().unwrap(), 10.0);
    assert_eq!(l["write"]["clat_mean_ns"].as_f64().unwrap(), 1000.0);
    assert!(l.get("read").is_none());
}

#[test]
fn csv_has_one_row_per_active_direction() {
    let mut run = appendix_b_run();
    run.jobs[0].name = "a,b".into();
    let out = String::from_utf8(exporter("csv").unwrap().render(&run).unwrap()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains(",clat_p99_999_ns,"));
    assert!(lines[1].starts_with("\"a,b\",0,0,read,75669504,18474,"));
    assert_eq!(lines[0].split(',').count() + 1, lines[1].split(',').count());
}
