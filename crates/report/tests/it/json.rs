//! iolab-report's fio JSON (stat.c show_thread_status_json): keys and nesting, units, steadystate
//! object, json+ bins.

use crate::common::*;
use iolab_report::fio_plat::{plat_idx_to_val, plat_val_to_idx};
use iolab_stats::*;
use std::collections::BTreeSet;

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
        rule: Some(SsCriterion {
            metric: SsMetric::Iops,
            slope: false,
            limit: 20.0,
            percent: true,
        }),
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
