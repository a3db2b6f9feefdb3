//! `iolab sim` end to end: its output is `iolab run`'s document (same keys, same units), with
//! the model's own sections beside it.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

const JOB: [&str; 6] =
    ["--name=rr", "--rw=randread", "--bs=4k", "--size=4m", "--iodepth=4", "--group_reporting"];

#[test]
fn sim_json_has_run_shape_plus_model_sections() {
    let d = tempfile::tempdir_in(".").unwrap();
    let (run_out, sim_out) = (d.path().join("run.json"), d.path().join("sim.json"));
    let st = iolab()
        .arg("run")
        .args(JOB)
        .args(["--ioengine=null", "--output-format=json", "--output"])
        .arg(&run_out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let st = iolab()
        .arg("sim")
        .args(JOB)
        .args(["--tier=ram:1MiB:lru", "--backing=hdd:7200", "--output-format=json"])
        // An async engine: sim, as run, keeps a sync engine (psync, the default) at depth 1.
        .arg("--ioengine=libaio")
        .arg(format!("--output={}", sim_out.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    assert!(st.stdout.is_empty(), "--output goes to the file, not stdout");
    let run: Value = serde_json::from_slice(&std::fs::read(&run_out).unwrap()).unwrap();
    let sim: Value = serde_json::from_slice(&std::fs::read(&sim_out).unwrap()).unwrap();

    // Same top level (plus iolab_sim; minus disk_util, iolab_disk_series and iolab_advice,
    // which appear only when a measured device moved or a check fired during the run), same
    // job keys, same per-direction keys.
    let mut want = keys(&run);
    for measured_only in ["disk_util", "iolab_disk_series", "iolab_advice"] {
        want.remove(measured_only);
    }
    want.insert("iolab_sim".into());
    assert_eq!(keys(&sim), want);
    let (rj, sj) = (&run["jobs"][0], &sim["jobs"][0]);
    assert_eq!(keys(sj), keys(rj));
    for dir in ["read", "write", "trim"] {
        assert_eq!(keys(&sj[dir]), keys(&rj[dir]), "{dir}");
    }
    assert_eq!(sj["iolab"]["mode"], "simulated");
    assert_eq!(rj["iolab"]["mode"], "measured");

    // The prediction itself: every 4 KiB block of 4 MiB read once, at depth 4 on the drive.
    let r = &sj["read"];
    assert_eq!(r["total_ios"], 1024);
    assert_eq!(r["io_bytes"], 4 << 20);
    assert!(sj["iodepth_level"]["4"].as_f64().unwrap() > 99.0, "{}", sj["iodepth_level"]);
    // No submission latency in a model: lat is clat, slat has no samples.
    assert_eq!(r["lat_ns"]["mean"], r["clat_ns"]["mean"]);
    assert_eq!(r["slat_ns"]["N"].as_u64().unwrap_or(0), 0);
    // A 7.2K drive at QD4 over 4 MiB: milliseconds per read, a few hundred IOPS.
    let mean_ms = r["clat_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert!((1.0..30.0).contains(&mean_ms), "mean clat {mean_ms} ms");
    let iops = r["iops"].as_f64().unwrap();
    let runtime_s = r["runtime"].as_f64().unwrap() / 1000.0;
    assert!((iops * runtime_s - 1024.0).abs() < 2.0, "iops {iops} x runtime {runtime_s}");
    assert!(r["bw_samples"].as_u64().unwrap() >= 1);

    // Model-only sections.
    let m = &sim["iolab_sim"];
    assert_eq!(m["tiers"][0]["policy"], "lru");
    assert_eq!(m["tiers"][0]["stats"]["read_misses"], 1024, "{}", m["tiers"][0]);
    assert!(m["devices"].as_array().unwrap().iter().any(|d| d["name"] == "hdd"));
    assert!(m.get("jobs").is_none(), "the jobs are in fio's shape above, not twice");
}

#[test]
fn sim_text_is_run_summary_then_tiers() {
    let st = iolab()
        .arg("sim")
        .args(JOB)
        .args(["--tier=ram:1MiB:lru", "--backing=hdd:7200"])
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let text = String::from_utf8(st.stdout).unwrap();
    assert!(text.contains("rr: (groupid=0, jobs=1)"), "{text}");
    assert!(text.contains("read: IOPS="), "{text}");
    assert!(text.contains("IO depths    : 1="), "{text}");
    assert!(text.contains("predicted by iolab sim"), "{text}");
    let tiers = text.find("tier ram0 (lru").expect("tier line");
    assert!(tiers > text.find("Run status group 0").unwrap(), "{text}");
    // The series: 4.6 s of simulated time at 1 s samples; the 1 MiB tier is full by the 2nd.
    assert!(text.contains("over time (read hit ratio / fill per tier"), "{text}");
    assert!(text.contains("/100.0%"), "{text}");
}

/// `iolab sim`'s JSON comes from the same fio printer as `iolab run`'s: the top-level keys in
/// fio's order (not serde's sorted order), `iolab_sim` after them, fio's `"key" : value`.
#[test]
fn sim_json_keys_follow_run_json_order() {
    let dir = tempfile::tempdir().unwrap();
    let job = ["--name=k", "--rw=read", "--bs=4k", "--size=1m"];
    let run = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(dir.path())
        .arg("run")
        .args(job)
        .args(["--filename=k.dat", "--output-format=json"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let sim = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .arg("sim")
        .args(job)
        .args(["--tier=ram:1MiB:lru", "--output-format=json"])
        .output()
        .unwrap();
    assert!(sim.status.success(), "{}", String::from_utf8_lossy(&sim.stderr));
    // Top-level keys in document order: lines indented by exactly two spaces.
    let keys = |b: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
            .filter_map(|l| l.trim_start().split('"').nth(1).map(String::from))
            .collect()
    };
    let (r, s) = (keys(&run.stdout), keys(&sim.stdout));
    assert_eq!(s.last().map(String::as_str), Some("iolab_sim"), "{s:?}");
    let common: Vec<&String> = s.iter().filter(|k| r.contains(k)).collect();
    let in_run: Vec<&String> = r.iter().filter(|k| s.contains(k)).collect();
    assert_eq!(common, in_run, "sim {s:?} vs run {r:?}");
    assert_eq!(&s[..3], &["fio version", "iolab_version", "timestamp"], "{s:?}");
    assert!(String::from_utf8_lossy(&sim.stdout).contains("\"jobs\" : ["));
    let v: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    assert!(v["timestamp_ms"].as_u64().unwrap() > 1_600_000_000_000, "real start time");
    assert_eq!(v["jobs"][0]["jobname"], "k");
}

/// `mrc` and `sim --object-level` read a trace on a second thread: a record truncated past the
/// first batches (10,000 whole records, then 10 bytes) still ends each with its one-line error
/// and exit 1, and `--lenient` skips it and counts the 10,000 records before it.
#[test]
fn mrc_and_object_sim_of_a_trace_truncated_past_the_first_batches() {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-sim-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let t = d.join("t.oracleGeneral.bin");
    let mut bytes = Vec::new();
    for i in 0..10_000u32 {
        // oracleGeneral: time, obj_id, size, next access (-1: never)
        let id = u64::from(i % 100).to_le_bytes();
        bytes.extend(
            [&i.to_le_bytes()[..], &id, &1u32.to_le_bytes(), &(-1i64).to_le_bytes()].concat(),
        );
    }
    bytes.extend_from_slice(&[1; 10]);
    std::fs::write(&t, bytes).unwrap();
    let ts = t.display().to_string();
    let what = format!("{ts}: record 10001 (byte 240000): truncated record: 10 of 24 bytes");
    let runs: [(&[&str], String); 3] = [
        // The trace error names the trace once (it used to be printed twice for mrc).
        (&["mrc", &ts, "--points", "3"], format!("iolab: {what}\n")),
        (&["mrc", &ts, "--shards", "0.5"], format!("iolab: {what}\n")),
        (
            &["sim", "--trace", &ts, "--object-level", "--cache-size", "10"],
            format!("iolab: {what}\n"),
        ),
    ];
    for (args, want) in runs {
        let out = iolab().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out =
        iolab().args(["mrc", &ts, "--lenient", "--sizes", "99,100", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((j["requests"].as_u64(), j["skipped_malformed"].as_u64()), (Some(10_000), Some(1)));
    let miss: Vec<f64> =
        j["points"].as_array().unwrap().iter().map(|p| p["miss_ratio"].as_f64().unwrap()).collect();
    assert_eq!(miss, [1.0, 0.01]);
    let _ = std::fs::remove_dir_all(&d);
}

/// `sim --backing=PROFILE` runs the profile's host stage as `run --predict` does and says so:
/// a thread that spends 100 µs of CPU per I/O completes at most 10,000 IOPS at any depth.
#[test]
fn sim_backing_profile_runs_its_host_stage_and_says_so() {
    let d = std::env::temp_dir().join(format!("iolab-sim-host-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let dir = "base_us=10\nseq_base_us=10\nxfer_bytes_per_sec=1e12\nservers=64\n\
               shape=[[0.0,1.0],[1.0,1.0]]\n";
    let head = "version = 1\nname = \"cpu\"\ncapacity = 1073741824\nservers = 64\n";
    let iops = |extra: &str| {
        let f = d.join(format!("p{}.toml", extra.len()));
        std::fs::write(&f, format!("{head}[read]\n{dir}{extra}[write]\n{dir}")).unwrap();
        let out = iolab()
            .arg("sim")
            .args(["--name=h", "--rw=randread", "--bs=4k", "--size=64m", "--iodepth=16"])
            .args(["--number_ios=20000", "--ioengine=libaio", "--output-format=json"])
            .arg(format!("--backing={}", f.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let host = v["iolab_sim"]["host"]["per_io_ns"][0].as_f64().unwrap_or(0.0);
        (v["jobs"][0]["read"]["iops"].as_f64().unwrap(), host)
    };
    let (free, none) = iops("");
    let (bound, host) = iops("host_us=100\nhost_parallel=1\n");
    assert_eq!((none, host), (0.0, 100_000.0), "the host stage is in the model section");
    assert!(free > 100_000.0, "10 µs at QD16 over 64 servers: {free}");
    assert!((bound / 10_000.0 - 1.0).abs() < 0.02, "one thread at 100 µs per I/O: {bound}");
    std::fs::remove_dir_all(d).unwrap();
}

/// Issue 32 (newcomer scenario 5): the text's read amplification is the real ratio. A
/// metadata-only 128 KiB-record cache makes the disk read a whole record for each 4 KiB read
/// of a file read once in random order: 32.0x (it printed 0.0x when the per-job results were
/// taken before the text was made).
#[test]
fn sim_text_prints_real_read_amplification() {
    let d = tempfile::tempdir_in(".").unwrap();
    let out = iolab()
        .arg("sim")
        .args(["--tier=ram:1GiB:lru:block=128KiB:metadata_only=true", "--backing=hdd:7200"])
        .args(["--name=r", "--rw=randread", "--bs=4k", "--size=4m"])
        .arg(format!("--filename={}", d.path().join("f").display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("derived: read amplification")).unwrap();
    assert!(line.ends_with("ram0 0.0x, hdd 32.0x"), "{line}");
}

/// Issue 32: a sync engine keeps one I/O in flight in `sim` as in `run`, whatever iodepth
/// asks, and stderr says so. psync at iodepth=32 showed 97 % of I/Os at depth 32 before.
#[test]
fn sim_sync_engine_runs_at_depth_one_as_run_does() {
    let d = tempfile::tempdir_in(".").unwrap();
    let depth_levels = |engine: &str| {
        let out = iolab()
            .args(["sim", "--backing=hdd:7200", "--output-format=json"])
            .args(["--name=r", "--rw=randread", "--bs=4k", "--size=4m", "--iodepth=32"])
            .arg(format!("--ioengine={engine}"))
            .arg(format!("--filename={}", d.path().join("f").display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let lv = v["jobs"][0]["iodepth_level"].clone();
        (lv, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (sync, note) = depth_levels("psync");
    assert_eq!(sync["1"].as_f64(), Some(100.0), "{sync}");
    assert_eq!(sync["32"].as_f64(), Some(0.0), "{sync}");
    assert!(note.contains("ioengine=psync is synchronous: depth 1 in flight"), "{note}");
    let (deep, note) = depth_levels("libaio");
    assert!(deep["32"].as_f64().unwrap() > 90.0, "{deep}");
    assert!(!note.contains("synchronous"), "{note}");
}

/// The newcomer review's "file 0 has no size" on a device job: `sim` sizes a job without
/// `size=` from the block device it names (a loop device of our own, 24 MiB: a sequential
/// read of 1 MiB blocks is 24 reads), and, where the named device does not exist here, from
/// the backing device's capacity (the 7.2K preset's 1 TB: 953,674 reads of 1 MiB, rounded
/// down to whole blocks).
#[test]
fn a_device_job_without_size_is_sized_by_the_device_or_the_backing() {
    use iolab_test_support::{or_skip, LoopDev};
    let read_ios = |file: &str| -> u64 {
        let o = iolab()
            .args(["sim", "--name=dev", "--rw=read", "--bs=1m", "--backing=hdd:7200"])
            .arg(format!("--filename={file}"))
            .arg("--output-format=json")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
    };
    let missing = format!("/dev/iolab-missing-{}", std::process::id());
    assert_eq!(read_ios(&missing), 1_000_000_000_000 >> 20);
    let Some(lo) = or_skip(LoopDev::new_sized(24 << 20)) else { return };
    assert_eq!(read_ios(&lo.device().display().to_string()), 24);
}

/// Issue 32 (newcomer scenario 5, RAID write-back): a write-only job's derived lines speak of
/// writes. 8 MiB written once through a 64 MiB volatile write-back tier (a RAID controller's
/// RAM) with end_fsync: every byte reaches the disk once (1.00x, nothing absorbed); without
/// end_fsync it all stays dirty in the tier (the disk wrote 0 %); no line talks about reads.
#[test]
fn sim_text_of_a_write_only_job_speaks_of_writes() {
    let d = tempfile::tempdir_in(".").unwrap();
    let text = |fsync: &str| {
        let out = iolab()
            .arg("sim")
            .args(["--tier=ram:64MiB:lru:writeback", "--backing=hdd:7200"])
            .args(["--name=w", "--rw=write", "--bs=64k", "--size=8m", fsync])
            .arg(format!("--filename={}", d.path().join("f").display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let synced = text("--end_fsync=1");
    assert!(!synced.contains("derived: read") && !synced.contains("reads served"), "{synced}");
    let amp = synced.lines().find(|l| l.starts_with("derived: write amplification")).unwrap();
    assert!(amp.ends_with("ram0 1.00x, hdd 1.00x"), "{amp}");
    assert!(synced.contains("the tiers absorbed 0.0% of the written bytes (hdd wrote 100.0%"));
    let dirty = text("--end_fsync=0");
    assert!(dirty.contains("the tiers absorbed 100.0% of the written bytes (hdd wrote 0.0%"));
    assert!(dirty.contains("derived: dirty data left at the end: 8388608 B"), "{dirty}");
}

/// Issue 32 item 5: the 7.2K SATA preset queues as SATA NCQ does (32 commands, reordered by
/// shortest positioning time), so random 4 KiB reads over the whole 1 TB drive grow with the
/// queue depth as published figures say (hdd.rs's header cites them): QD1 against
/// 1 / (8.5 ms seek + 4.17 ms half turn + 0.3 ms) = 77 IOPS, QD16 against the Seagate Exos
/// data sheets' "Random Read 4K QD16" 168-170 IOPS, each within 15 %; QD4 and QD32, for
/// which no published figure was found, between their neighbours. `ncq=1` turns it off:
/// flat whatever the depth (the newcomer review's "QD32 = QD1 = 78 IOPS"). The preset's
/// profile form queues the same within 10 %.
#[test]
fn hdd_preset_queueing_matches_published_figures() {
    let d = tempfile::tempdir_in(".").unwrap();
    let iops = |backing: &str, qd: u32| -> f64 {
        let o = iolab()
            .args(["sim", "--name=r", "--rw=randread", "--bs=4k", "--size=900g"])
            .args(["--ioengine=libaio", "--runtime=20", "--time_based", "--output-format=json"])
            .arg(format!("--iodepth={qd}"))
            .arg(format!("--backing={backing}"))
            .arg(format!("--filename={}", d.path().join("h").display()))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["jobs"][0]["read"]["iops"].as_f64().unwrap()
    };
    let flat = [iops("hdd:7200:ncq=1", 1), iops("hdd:7200:ncq=1", 32)];
    assert!((flat[1] / flat[0] - 1.0).abs() < 0.05, "no queueing with ncq=1: {flat:?}");
    let q: Vec<f64> = [1, 4, 16, 32].iter().map(|&qd| iops("hdd:7200", qd)).collect();
    println!("hdd:7200 random 4 KiB read IOPS at QD 1, 4, 16, 32: {q:?}");
    let within = |x: f64, published: f64| (x / published - 1.0).abs() <= 0.15;
    assert!(within(q[0], 77.0), "QD1 {q:?} against 77");
    assert!(within(q[2], 169.0), "QD16 {q:?} against the Exos data sheets' 168-170");
    assert!(q.windows(2).all(|w| w[1] > w[0] * 1.1), "grows with depth: {q:?}");
    assert!((q[0] - flat[0]).abs() < 1.0, "QD1 is the same with or without queueing");
    // The preset in profile form (`calibrate --from-preset`, `profile:`) queues alike.
    let prof: Vec<f64> = [1, 4, 16, 32].iter().map(|&qd| iops("profile:hdd-7200", qd)).collect();
    println!("profile:hdd-7200 at QD 1, 4, 16, 32: {prof:?}");
    for (p, d) in prof.iter().zip(&q) {
        assert!((p / d - 1.0).abs() <= 0.1, "profile {prof:?} against the preset {q:?}");
    }
}
