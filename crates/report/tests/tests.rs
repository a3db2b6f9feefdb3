//! Integration tests for iolab-report: fio JSON key set and units against a real fio-3.33
//! document (typed in from fio-behaviour.md Appendix B), json+ bins, text lines, logs, JSON
//! Lines, CSV, group reporting.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;

use iolab_core::{IoDir, Nanos};
use iolab_report::export::fio_log::{self, LogColumns, LogEntry, LogKind};
use iolab_report::export::jsonl::status_line;
use iolab_report::exporter;
use iolab_report::fio_plat::{plat_idx_to_val, plat_val_to_idx};
use iolab_stats::*;
use serde_json::Value;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
}

/// A run shaped like Appendix B: psync 4k randread, 18474 I/Os in 2001 ms.
fn appendix_b_run() -> RunResult {
    let mut r = Recorder::new(Nanos::from_millis(500));
    let mut rng = Lcg(1);
    let ios = 18474u64;
    for i in 0..ios {
        let u = (rng.next() % 1_000_000) as f64 / 1e6;
        let clat = 30_828 + (60_000.0 * ((1.0 / (1.0 - u)).powf(0.7) - 1.0)) as u64;
        r.record_submit(IoDir::Read, 1);
        r.record_submit_batch(1);
        r.record_complete(IoDir::Read, 4096, None, Nanos(clat), Nanos(clat + 200));
        r.record_complete_batch(1);
        r.tick_interval(Nanos(i * 2_001_000_000 / ios));
    }
    r.finish_intervals(Nanos(2_001_000_000));
    let mut job = summarize(&r, Nanos(2_001_000_000), &DEFAULT_PERCENTILES);
    job.name = "t".into();
    job.elapsed_ns = 2_400_000_000;
    for (k, v) in [
        ("name", "t"),
        ("filename", "a scratch directory/f1"),
        ("size", "64m"),
        ("rw", "randread"),
        ("bs", "4k"),
        ("ioengine", "psync"),
        ("runtime", "2"),
    ] {
        job.options.insert(k.into(), v.into());
    }
    job.cpu = CpuUsage { usr_ns: 73_000_000, sys_ns: 653_000_000, ctx: 18511, majf: 0, minf: 11 };
    let g = group(0, &[(0, &job)], &DEFAULT_PERCENTILES);
    RunResult {
        meta: RunMeta {
            iolab_version: "0.1.0".into(),
            start_unix_ms: 1_795_220_898_146,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            ..Default::default()
        },
        jobs: vec![job],
        groups: vec![g],
        disk_util: vec![DiskUtil {
            name: "vda".into(),
            read_ios: 21634,
            write_ios: 2,
            read_ticks: 1709,
            in_queue: 1710,
            util: 69.69535,
            window_ns: 2_454_000_000,
            iostat: IostatX {
                r_s: 21634.0 / 2.454,
                r_await: 1709.0 / 21634.0,
                aqu_sz: 1710.0 / 2454.0,
                ..Default::default()
            },
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                // Percentile and bins keys depend on the list and the data, not the layout.
                if k != "percentile" && k != "bins" {
                    key_paths(x, &p, out);
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                key_paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn render_json(run: &RunResult, fmt: &str) -> Value {
    let bytes = exporter(fmt).unwrap().render(run).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn fixture() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio-3.33-psync-randread.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn fio_json_has_fios_keys_at_the_right_nesting() {
    let ours = render_json(&appendix_b_run(), "json");
    let (mut want, mut got) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&fixture(), "", &mut want);
    key_paths(&ours, "", &mut got);
    let missing: Vec<_> = want.difference(&got).collect();
    assert!(missing.is_empty(), "keys fio has and iolab lacks: {missing:?}");
    // Everything extra is either iolab's own objects (`iolab`, `iolab_*`) or fio HEAD's sector
    // counts.
    let extra: Vec<_> = got
        .difference(&want)
        .filter(|k| !k.starts_with("/jobs[]/iolab") && !k.starts_with("/iolab_"))
        .filter(|k| !k.ends_with("_sectors") && !k.contains("/percentile"))
        .collect();
    assert!(extra.is_empty(), "keys iolab adds outside its own object: {extra:?}");
}

#[test]
fn fio_json_units_match_fio() {
    let v = render_json(&appendix_b_run(), "json");
    assert_eq!(v["fio version"], "fio-3.33");
    assert_eq!(v["iolab_version"], "iolab-0.1.0");
    assert_eq!(v["timestamp"], 1_795_220_898u64);
    assert_eq!(v["timestamp_ms"], 1_795_220_898_146u64);
    assert_eq!(v["time"], "Sat Nov 21 00:28:18 2026");
    let j = &v["jobs"][0];
    let r = &j["read"];
    // The same numbers as fio's Appendix B document.
    assert_eq!(r["io_bytes"], 75_669_504u64);
    assert_eq!(r["io_kbytes"], 73_896u64);
    assert_eq!(r["bw_bytes"], 37_815_844u64);
    assert_eq!(r["bw"], 36_929u64);
    assert_eq!(r["runtime"], 2001u64);
    assert_eq!(r["total_ios"], 18_474u64);
    assert!((r["iops"].as_f64().unwrap() - 9232.383808).abs() < 1e-6);
    assert_eq!(r["slat_ns"]["N"], 0u64);
    assert!(r["slat_ns"].get("percentile").is_none());
    assert!(r["lat_ns"].get("percentile").is_none());
    let clat = &r["clat_ns"];
    assert_eq!(clat["N"], 18_474u64);
    let keys: Vec<&String> = clat["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 17);
    assert!(keys.iter().any(|k| *k == "99.990000") && keys.iter().any(|k| *k == "1.000000"));
    let max = clat["max"].as_u64().unwrap();
    assert!(clat["percentile"].as_object().unwrap().values().all(|x| x.as_u64().unwrap() <= max));
    assert_eq!(j["job_runtime"], 2001u64);
    assert_eq!(j["elapsed"], 3u64);
    assert!((j["sys_cpu"].as_f64().unwrap() - 32.633683).abs() < 1e-5);
    assert_eq!(j["iodepth_level"]["1"].as_f64().unwrap(), 100.0);
    assert_eq!(j["iodepth_submit"]["4"].as_f64().unwrap(), 100.0);
    let lat_total: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|m| j[m].as_object().unwrap().values().map(|x| x.as_f64().unwrap()))
        .sum();
    assert!((lat_total - 100.0).abs() < 1e-3, "{lat_total}");
    assert_eq!(r["bw_agg"].as_f64().unwrap().round(), 100.0);
    assert!(r["bw_samples"].as_u64().unwrap() >= 4);
    // iolab's extras: 99.999 with its (too few) samples.
    let extra = &j["iolab"]["read"]["clat_ns"];
    let p5 = extra.as_array().unwrap().iter().find(|p| p["pct"] == 99.999).unwrap();
    assert_eq!(p5["reliable"], false);
    assert_eq!(p5["tail_samples"], 0u64);
    assert_eq!(v["disk_util"][0]["util"].as_f64().unwrap(), 69.69535);
}

#[test]
fn steadystate_object_like_fio() {
    let mut run = appendix_b_run();
    run.jobs[0].steadystate = Some(SteadyStateReport {
        ss: "iops:20%".into(),
        duration_ns: 3_000_000_000,
        attained: true,
        criterion: 6.666667,
        max_deviation: 600.0,
        slope: -50.0,
        iops: vec![9000.0, 9600.0, 8400.0],
        bw: vec![36_864_000.0, 39_321_600.0, 34_406_400.0],
        lat: vec![],
    });
    let v = render_json(&run, "json");
    let ss = &v["jobs"][0]["steadystate"];
    assert_eq!(ss["ss"], "iops:20.000000%");
    assert_eq!(ss["duration"], 3u64);
    assert_eq!(ss["attained"], 1u64);
    assert_eq!(ss["criterion"], "6.666667%");
    assert_eq!(ss["data"]["iops_mean"], 9000u64);
    assert_eq!(ss["data"]["iops"], serde_json::json!([9000, 9600, 8400]));
    assert!(ss["data"].get("lat_ns").is_none());
}

#[test]
fn json_plus_bins_use_fios_bucket_layout() {
    let run = appendix_b_run();
    let v = render_json(&run, "json+");
    let bins = v["jobs"][0]["read"]["clat_ns"]["bins"].as_object().unwrap();
    let total: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(total, 18_474);
    for k in bins.keys() {
        let val: u64 = k.parse().unwrap();
        assert_eq!(plat_idx_to_val(plat_val_to_idx(val)), val, "{k} is not a fio bucket key");
    }
    // fio's median from the bins is within one fio bucket (≤ 1/64) of iolab's median.
    let mut cum = 0;
    let mut median = 0;
    for (k, c) in bins
        .iter()
        .map(|(k, c)| (k.parse::<u64>().unwrap(), c.as_u64().unwrap()))
        .collect::<std::collections::BTreeMap<_, _>>()
    {
        cum += c;
        if cum * 2 >= 18_474 {
            median = k;
            break;
        }
    }
    let ours = run.jobs[0].read.clat.percentile(50.0).value as f64;
    assert!((median as f64 - ours).abs() / ours < 1.0 / 64.0, "{median} vs {ours}");
}

#[test]
fn text_output_reads_like_fio() {
    let run = appendix_b_run();
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    assert!(t.starts_with("t: (groupid=0, jobs=1): err= 0: Sat Nov 21 00:28:18 2026\n"), "{t}");
    assert!(t.contains("  read: IOPS=9232, BW=36.1MiB/s (37.8MB/s)(72.2MiB/2001msec)\n"), "{t}");
    assert!(t.contains("    clat (usec): min=30, max="), "{t}");
    assert!(t.contains("    clat percentiles (usec):\n     |  1.00th=["), "{t}");
    assert!(t.contains(" 99.99th=["), "{t}");
    assert!(t.contains("     | iolab: 99.999th="), "{t}");
    assert!(t.contains("   bw (  KiB/s): min="), "{t}");
    assert!(
        t.contains("  cpu          : usr=3.65%, sys=32.63%, ctx=18511, majf=0, minf=11\n"),
        "{t}"
    );
    assert!(t.contains("  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%"), "{t}");
    assert!(
        t.contains("     issued rwts: total=18474,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n"),
        "{t}"
    );
    assert!(t.contains("\nRun status group 0 (all jobs):\n   READ: bw=36.1MiB/s (37.8MB/s), 36.1MiB/s-36.1MiB/s (37.8MB/s-37.8MB/s), io=72.2MiB (75.7MB), run=2001-2001msec\n"), "{t}");
    assert!(t.contains("  vda: ios=21634/2, sectors=0/0, merge=0/0, ticks=1709/0, in_queue=1710, util=69.70%\n"), "{t}");
    assert!(t.contains("    iolab: r/s=8815.8, w/s=0.0, rMB/s=0.00, wMB/s=0.00, r_await=0.079ms, w_await=0.000ms, aqu-sz=0.70\n"), "{t}");
    assert!(!t.contains("  write:"));
}

/// A job's notes (an engine fallback, a stop) reach the reader: in the text after the
/// summary, once per distinct line, and in the JSON under `jobs[i].iolab.notes`.
#[test]
fn job_notes_are_printed_and_exported() {
    let mut run = appendix_b_run();
    let note = "io_uring: registered buffers refused (ENOMEM); each I/O pins its pages";
    run.jobs[0].notes.push(note.to_string());
    let mut twin = run.jobs[0].clone();
    twin.jobidx = 1;
    run.jobs.push(twin);
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    let line = format!("note: job t: {note}\n");
    assert_eq!(t.matches(&line).count(), 1, "{t}");
    let v = render_json(&run, "json");
    assert_eq!(v["jobs"][0]["iolab"]["notes"][0], note);
    let none = render_json(&appendix_b_run(), "json");
    assert_eq!(none["jobs"][0]["iolab"]["notes"].as_array().map(Vec::len), Some(0));
}

#[test]
fn group_reporting_prints_one_entry_per_group() {
    let mut run = appendix_b_run();
    let mut second = run.jobs[0].clone();
    second.jobidx = 1;
    second.name = "t".into();
    run.jobs.push(second);
    run.global_options.insert("group_reporting".into(), "1".into());
    // The exporters act on the typed setting the runner puts into each job's result.
    run.jobs.iter_mut().for_each(|j| j.report.group_reporting = true);
    let refs: Vec<(usize, &JobResult)> = run.jobs.iter().enumerate().collect();
    run.groups = vec![group(0, &refs, &DEFAULT_PERCENTILES)];
    let v = render_json(&run, "json");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["read"]["total_ios"], 2 * 18_474u64);
    assert_eq!(jobs[0]["read"]["runtime"], 2001u64);
    assert_eq!(jobs[0]["read"]["clat_ns"]["N"], 2 * 18_474u64);
    assert_eq!(v["global options"]["group_reporting"], "1");
    let t = String::from_utf8(exporter("normal").unwrap().render(&run).unwrap()).unwrap();
    assert!(t.starts_with("t: (groupid=0, jobs=2)"));
}

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
