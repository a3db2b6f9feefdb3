//! Helpers shared by the topic modules of iolab-report's integration tests.

use iolab_core::{IoDir, Nanos};
use iolab_report::exporter;
use iolab_stats::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

pub(crate) struct Lcg(pub(crate) u64);
impl Lcg {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
}

/// A run shaped like Appendix B: psync 4k randread, 18474 I/Os in 2001 ms.
pub(crate) fn appendix_b_run() -> RunResult {
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

pub(crate) fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
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

pub(crate) fn render_json(run: &RunResult, fmt: &str) -> Value {
    let bytes = exporter(fmt).unwrap().render(run).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

pub(crate) fn fixture() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio-3.33-psync-randread.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}
