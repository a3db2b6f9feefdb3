//! Many hosts, one document: fio's client JSON (`client_stats`, `All clients`) and text from
//! several hosts' runs, merged exactly (counts and bins add, percentiles from the sum), and
//! the merge's speed at 64 hosts × 3,600 one-second intervals.

use std::time::Instant;

use iolab_core::{IoDir, Nanos};
use iolab_report::export::clients::{clients_text, render_clients_json};
use iolab_stats::hosts::{merge_intervals, HostRun, IntervalDelta};
use iolab_stats::*;
use serde_json::Value;

use crate::common::Lcg;

/// Completion latencies of one host: `base` ns plus a seeded spread; `slow_every`-th I/O
/// takes 20 ms (a host with a bad tail).
fn latencies(seed: u64, n: u64, base: u64, slow_every: u64) -> Vec<u64> {
    let mut rng = Lcg(seed);
    (0..n)
        .map(|i| {
            if slow_every > 0 && i % slow_every == 0 {
                20_000_000
            } else {
                base + rng.next() % base
            }
        })
        .collect()
}

fn record(r: &mut Recorder, lats: &[u64], runtime: u64) {
    let n = lats.len() as u64;
    for (i, &clat) in lats.iter().enumerate() {
        r.record_submit(IoDir::Read, 1);
        r.record_complete(IoDir::Read, 4096, None, Nanos(clat), Nanos(clat + 100));
        r.tick_interval(Nanos(i as u64 * runtime / n));
    }
}

fn run_of(name: &str, recs: &[&Recorder], runtime: u64) -> RunResult {
    let mut rec = Recorder::new(Nanos::from_millis(500));
    for r in recs {
        rec.merge(r);
    }
    rec.finish_intervals(Nanos(runtime));
    let mut job = summarize(&rec, Nanos(runtime), &DEFAULT_PERCENTILES);
    job.name = name.into();
    job.options.insert("rw".into(), "randread".into());
    let groups = groups(std::slice::from_ref(&job), &DEFAULT_PERCENTILES);
    RunResult {
        meta: RunMeta {
            iolab_version: "0.1.0".into(),
            start_unix_ms: 1_795_220_898_146,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            ..Default::default()
        },
        jobs: vec![job],
        groups,
        ..Default::default()
    }
}

/// Three hosts: fast, slow, and fast with a 1-in-50 20 ms tail.
fn three_hosts() -> (Vec<HostRun>, Vec<Vec<u64>>) {
    let runtime = 2_000_000_000;
    let lats = vec![
        latencies(1, 9000, 20_000, 0),
        latencies(2, 3000, 400_000, 0),
        latencies(3, 6000, 20_000, 50),
    ];
    let hosts = lats
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut r = Recorder::new(Nanos::from_millis(500));
            record(&mut r, l, runtime);
            HostRun {
                hostname: format!("node{i}"),
                port: 0,
                rank: i as u32,
                start_skew_ns: 1_000 * i as i64,
                clock_offset_ns: 0,
                result: run_of("n", &[&r], runtime),
                interval_file: None,
            }
        })
        .collect();
    (hosts, lats)
}

fn doc(hosts: &[HostRun]) -> Value {
    serde_json::from_slice(&render_clients_json(hosts, true)).unwrap()
}

#[test]
fn client_stats_has_each_host_then_all_clients() {
    let (hosts, _) = three_hosts();
    let v = doc(&hosts);
    assert!(v.get("jobs").is_none(), "fio's client JSON has client_stats, not jobs");
    let cs = v["client_stats"].as_array().unwrap();
    let names: Vec<(&str, &str)> = cs
        .iter()
        .map(|e| (e["jobname"].as_str().unwrap(), e["hostname"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [("n", "node0"), ("n", "node1"), ("n", "node2"), ("All clients", "node2")],
        "one entry per host's job, then All clients tagged with the last host (client.c)"
    );
    assert!(cs.iter().all(|e| e["port"].as_u64() == Some(0)));
    let ios: Vec<u64> = cs.iter().map(|e| e["read"]["total_ios"].as_u64().unwrap()).collect();
    assert_eq!(ios, [9000, 3000, 6000, 18000]);
    assert_eq!(v["global options"].as_array().unwrap().len(), 3);
    let skews: Vec<i64> = v["iolab_hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["start_skew_ns"].as_i64().unwrap())
        .collect();
    assert_eq!(skews, [0, 1000, 2000]);
}

#[test]
fn all_clients_bins_are_the_sum_of_the_hosts_bins() {
    let (hosts, _) = three_hosts();
    let v = doc(&hosts);
    let cs = v["client_stats"].as_array().unwrap();
    let mut sum = std::collections::BTreeMap::<String, u64>::new();
    for e in &cs[..3] {
        for (k, c) in e["read"]["clat_ns"]["bins"].as_object().unwrap() {
            *sum.entry(k.clone()).or_default() += c.as_u64().unwrap();
        }
    }
    let all: std::collections::BTreeMap<String, u64> = cs[3]["read"]["clat_ns"]["bins"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, c)| (k.clone(), c.as_u64().unwrap()))
        .collect();
    assert_eq!(all, sum);
    assert_eq!(all.values().sum::<u64>(), 18000);
}

#[test]
fn all_clients_percentiles_come_from_the_summed_histogram() {
    let (hosts, lats) = three_hosts();
    // The reference: one recorder fed every host's samples.
    let mut one = Recorder::new(Nanos::from_millis(500));
    for l in &lats {
        record(&mut one, l, 2_000_000_000);
    }
    let reference = run_of("ref", &[&one], 2_000_000_000);
    let want = &reference.jobs[0].read.clat;
    let v = doc(&hosts);
    let all = &v["client_stats"][3]["read"]["clat_ns"];
    for (key, pct) in [("50.000000", 50.0), ("99.000000", 99.0), ("99.990000", 99.99)] {
        assert_eq!(all["percentile"][key].as_u64().unwrap(), want.percentile(pct).value, "p{key}");
    }
    assert_eq!(all["max"].as_u64().unwrap(), 20_000_000);
    assert_eq!(all["N"].as_u64().unwrap(), 18000);
    // Averaging the hosts' p99 would be far off the true p99 (fio wrappers' mistake).
    let p99 = |i: usize| {
        v["client_stats"][i]["read"]["clat_ns"]["percentile"]["99.000000"].as_f64().unwrap()
    };
    let averaged = (p99(0) + p99(1) + p99(2)) / 3.0;
    assert!((averaged - want.percentile(99.0).value as f64).abs() > 1e6, "averaged {averaged}");
}

#[test]
fn one_host_one_job_has_no_all_clients_entry() {
    let (hosts, _) = three_hosts();
    let v = doc(&hosts[..1]);
    let cs = v["client_stats"].as_array().unwrap();
    assert_eq!(cs.len(), 1, "fio writes no aggregate for a single thread_stat");
    assert!(v["global options"].is_object());
}

#[test]
fn text_prefixes_each_host_and_ends_with_all_clients() {
    let (hosts, _) = three_hosts();
    let t = clients_text(&hosts);
    for h in ["node0", "node1", "node2"] {
        assert!(t.lines().any(|l| l.starts_with(&format!("<{h}> n: (groupid=0"))), "{h}:\n{t}");
    }
    let all = t.lines().position(|l| l.starts_with("All clients: (groupid=0")).unwrap();
    assert!(t.lines().skip(all).any(|l| l.contains("read: IOPS=")), "{t}");
    assert!(t.lines().skip(all).all(|l| !l.starts_with('<')));
}

/// 64 hosts × 3,600 one-second interval deltas (read and write counts, ~24 clat buckets
/// each) merged interval by interval: exact sums, and under a second (printed).
#[test]
fn merge_of_64_hosts_by_3600_intervals_is_exact_and_fast() {
    let mut rng = Lcg(29);
    let hosts: Vec<Vec<IntervalDelta>> = (0..64)
        .map(|_| {
            (0..3600u64)
                .map(|k| {
                    let mut clat: Vec<(u64, u64)> = (0..24)
                        .map(|_| (1000 + (rng.next() % 200) * 64, 1 + rng.next() % 9))
                        .collect();
                    clat.sort_unstable();
                    clat.dedup_by(|a, b| {
                        a.0 == b.0 && {
                            b.1 += a.1;
                            true
                        }
                    });
                    let n: u64 = clat.iter().map(|b| b.1).sum();
                    IntervalDelta {
                        end_ns: (k + 1) * 1_000_000_000,
                        dur_ns: 1_000_000_000,
                        ios: [n, 1, 0, 0],
                        bytes: [n * 4096, 4096, 0, 0],
                        clat,
                    }
                })
                .collect()
        })
        .collect();
    let refs: Vec<&[IntervalDelta]> = hosts.iter().map(|h| h.as_slice()).collect();
    let (t0, c0) = (Instant::now(), iolab_test_support::thread_cpu_time());
    let merged = merge_intervals(&refs);
    let (wall, took) = (t0.elapsed(), iolab_test_support::thread_cpu_time() - c0);
    // The budget is on the merging thread's CPU time, which another process's load does not
    // stretch (wall time is printed beside it).
    println!(
        "merge of 64 hosts x 3600 intervals: {:.3} s CPU, {:.3} s wall",
        took.as_secs_f64(),
        wall.as_secs_f64()
    );
    assert_eq!(merged.len(), 3600);
    for (k, m) in merged.iter().enumerate() {
        let want: u64 = hosts.iter().map(|h| h[k].ios[0]).sum();
        assert_eq!(m.ios[0], want, "interval {k}");
        assert_eq!(m.ios[1], 64);
        assert_eq!(m.clat.iter().map(|b| b.1).sum::<u64>(), want);
        assert!(m.clat.windows(2).all(|w| w[0].0 < w[1].0));
    }
    assert!(took.as_secs_f64() < 1.0, "merge took {took:?}");
}

/// `iolab compare` and `iolab report` read the client document: one entry per host's job
/// (named `<host> job`, as fio's client text leads its lines) and `All clients`.
#[test]
fn compare_and_report_read_the_client_document() {
    let (hosts, _) = three_hosts();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clients.json");
    let bytes = render_clients_json(&hosts, true);
    std::fs::write(&path, &bytes).unwrap();
    let view = iolab_report::compare::read_result(&path).unwrap();
    let names: Vec<&str> = view.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["<node0> n", "<node1> n", "<node2> n", "All clients"]);
    assert_eq!(view.jobs[3].dirs[0].1.total_ios, 18000);
    let page = iolab_viz::html_of("clients.json", &bytes, b"").unwrap();
    for label in ["&lt;node0&gt; n", "&lt;node2&gt; n", "All clients"] {
        assert!(page.contains(label), "{label} missing from the page");
    }
}

#[test]
fn render_hosts_gives_each_format_in_order_and_refuses_the_rest_by_name() {
    use iolab_report::export::clients::render_hosts;
    let (hosts, _) = three_hosts();
    let out = String::from_utf8(render_hosts(&hosts, "normal,json").unwrap()).unwrap();
    let json_at = out.find("{\n").expect("the JSON after the text");
    assert!(out[..json_at].contains("<node1> n: (groupid=0"), "{out}");
    let v: Value = serde_json::from_str(&out[json_at..]).unwrap();
    assert_eq!(v["client_stats"].as_array().unwrap().len(), 4);
    assert!(v["client_stats"][3]["read"]["clat_ns"].get("bins").is_none(), "json has no bins");
    let page = render_hosts(&hosts, "html").unwrap();
    assert!(page.starts_with(b"<!DOCTYPE html>"));
    let e = render_hosts(&hosts, "terse").unwrap_err().to_string();
    assert!(e.contains("terse (for several hosts)") && e.contains("json+"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}
