//! Workload presets end to end (issue 33): every preset's job file, as `iolab preset show`
//! prints it, is read by fio 3.33 (`fio --parse-only`), runs under `iolab run` at a small
//! size and simulates under `iolab sim`; the oltp preset reports its commit latency, the
//! backup preset shows the write-back cache's gain on an HDD model, and the vm-blender iolog
//! gives the blender verdict and the stream-table curve.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const PRESETS: [&str; 3] = ["oltp", "backup", "vm-blender"];

fn iolab(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .stdin(iolab_test_support::empty_stdin().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "iolab {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    o
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn dir_arg(d: &Path) -> String {
    format!("--directory={}", d.display())
}

/// The jobs of a result named `name` (numjobs clones share the name).
fn jobs<'a>(j: &'a Value, name: &str) -> Vec<&'a Value> {
    j["jobs"].as_array().unwrap().iter().filter(|x| x["jobname"] == name).collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

#[test]
fn every_preset_is_listed_and_fio_parses_its_job_file() {
    let list = String::from_utf8(iolab(&["preset", "list"]).stdout).unwrap();
    let names: Vec<&str> = list
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, PRESETS, "{list}");
    let fio = match iolab_test_support::fio() {
        Ok(f) => f,
        Err(e) => return iolab_test_support::skip(e),
    };
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for p in PRESETS {
        for extra in [&[][..], &["--size=64m"][..]] {
            let mut args = vec!["preset", "show", p];
            args.extend_from_slice(extra);
            let text = iolab(&args).stdout;
            let path = d.path().join(format!("{p}.fio"));
            std::fs::write(&path, &text).unwrap();
            let o = Command::new(&fio).arg("--parse-only").arg(&path).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success() && err.trim().is_empty(), "fio on {p} {extra:?}: {err}");
        }
    }
}

#[test]
fn oltp_reports_commit_latency_with_and_without_the_checkpoint() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let args = [
        "run",
        "--preset=oltp",
        "--size=16m",
        "--runtime=2",
        "--rate=1000",
        "--output-format=json",
    ];
    let o = iolab(&[&args[..], &[dir_arg(d.path()).as_str()]].concat());
    let j = json(&o);
    let c = &j["iolab_commit_latency"];
    for (key, job) in [("without_checkpoint", "log-quiet"), ("with_checkpoint", "log-checkpoint")] {
        let r = &c[key];
        assert_eq!(r["job"], job, "{c}");
        let log = jobs(&j, job)[0];
        // Every log write is followed by one fdatasync: the commits are the syncs (fio's
        // sync `total_ios` counts fsyncs only; its latencies count the fdatasyncs).
        let syncs = u(&log["sync"]["lat_ns"]["N"]);
        assert_eq!(u(&log["sync"]["total_ios"]), 0, "{r}");
        assert_eq!(u(&r["commits"]), syncs, "{r}");
        // (the runtime may end between the last write and its sync)
        let writes = u(&log["write"]["total_ios"]);
        assert!(syncs == writes || syncs + 1 == writes, "{syncs} syncs, {writes} writes");
        // At least one commit in each phase (the checkpoint phase is 0.4 s of this 2 s run,
        // and a loaded machine's fdatasync can take tens of ms: 18 commits were seen).
        assert!(u(&r["commits"]) >= 1, "{r}");
        let (p50, p99, p999) = (u(&r["p50_ns"]), u(&r["p99_ns"]), u(&r["p99_9_ns"]));
        assert!(0 < p50 && p50 <= p99 && p99 <= p999, "{r}");
    }
    // The data job: 70 % of its I/Os are reads, within 5 points.
    let data = jobs(&j, "data")[0];
    let (r, w) = (u(&data["read"]["total_ios"]), u(&data["write"]["total_ios"]));
    let share = r as f64 / (r + w) as f64;
    assert!((share - 0.70).abs() <= 0.05, "reads {r}, writes {w}");
    // The checkpoint ran only in the last fifth: 64 KiB writes.
    let ck = jobs(&j, "checkpoint")[0];
    assert_eq!(u(&ck["write"]["io_bytes"]) % 65536, 0);
    assert!(u(&ck["write"]["total_ios"]) > 0);
}

#[test]
fn oltp_text_prints_the_commit_latency_block() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let o = iolab(&["run", "--preset=oltp", "--size=8m", "--runtime=1", &dir_arg(d.path())]);
    let text = String::from_utf8(o.stdout).unwrap();
    let at = text.find("commit latency (the log's fdatasync):").expect(&text);
    let block: Vec<&str> = text[at..].lines().take(3).collect();
    assert!(block[1].contains("without checkpoint") && block[1].contains("(log-quiet)"), "{text}");
    assert!(block[2].contains("during checkpoint") && block[2].contains("(log-checkpoint)"));
    assert!(block[1].contains("p99.9"), "{text}");
}

#[test]
fn backup_and_vm_blender_run_at_a_small_size() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let dir = dir_arg(d.path());
    let args = ["run", "--preset=backup", "--size=16m", "--streams=4", "--output-format=json"];
    let j = json(&iolab(&[&args[..], &[dir.as_str()]].concat()));
    let streams = jobs(&j, "stream");
    assert_eq!(streams.len(), 4);
    for s in &streams {
        // Each stream writes its own quarter: 4 MiB in 1 MiB writes.
        assert_eq!((u(&s["write"]["io_bytes"]), u(&s["write"]["total_ios"])), (4 << 20, 4));
    }
    let f = d.path().join("iolab-backup.dat");
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 16 << 20);
    let args = ["run", "--preset=vm-blender", "--size=8m", "--streams=4", "--runtime=1"];
    let j =
        json(&iolab(&[&args[..], &["--rate=400", "--output-format=json", dir.as_str()]].concat()));
    let vms = jobs(&j, "vm");
    assert_eq!(vms.len(), 4);
    for v in vms {
        // 100 reads per second each for 1 s, give or take the Poisson draw.
        let n = u(&v["read"]["total_ios"]);
        assert!((60..=140).contains(&n), "{n}: {v}");
    }
}

/// The simulated bandwidth of a backup through `tiers`, MB/s: all streams' bytes over the
/// longest stream's time (the group line's figure).
fn backup_sim(tiers: &[&str]) -> f64 {
    let mut args = vec!["sim", "--preset=backup", "--size=16g", "--output-format=json"];
    args.extend_from_slice(tiers);
    let j = json(&iolab(&args));
    let jobs = j["jobs"].as_array().unwrap();
    let bytes: f64 = jobs.iter().map(|x| x["write"]["io_bytes"].as_f64().unwrap()).sum();
    let ms = jobs.iter().map(|x| x["write"]["runtime"].as_f64().unwrap()).fold(0.0, f64::max);
    bytes / ms / 1e3
}

#[test]
fn every_preset_simulates_and_a_write_back_cache_ends_the_backup_thrash() {
    for p in ["oltp", "vm-blender"] {
        let args = ["sim", "--preset", p, "--size=64m", "--runtime=2", "--backing=ssd"];
        let j = json(&iolab(&[&args[..], &["--output-format=json"]].concat()));
        assert!(j["jobs"].as_array().unwrap().len() >= 2, "{p}");
    }
    let cache = "--tier=ram:1GiB:lru:writeback";
    let bare = backup_sim(&["--backing=hdd:7200"]);
    let cached = backup_sim(&[cache, "--backing=hdd:7200"]);
    let unqueued = backup_sim(&["--backing=hdd:7200:ncq=1"]);
    eprintln!(
        "backup, 16 streams: bare HDD {bare:.1} MB/s (without NCQ {unqueued:.1}), write-back \
         cache {cached:.1} MB/s"
    );
    // 1 MiB writes, one per stream at a time: without NCQ a seek and half a turn per write
    // roughly halve the media rate (82 against 150 MB/s in the model); NCQ picks among the
    // 16 queued writes the one the head reaches first (115); the cache destages in address
    // order at about the outer media rate (148; examples/presets.md).
    assert!((75.0..90.0).contains(&unqueued), "{unqueued}");
    assert!(bare > 1.25 * unqueued && cached > 1.2 * bare, "{unqueued} / {bare} -> {cached}");
    assert!((140.0..=151.0).contains(&cached), "at most the 150 MB/s outer zone: {cached}");
}

#[test]
fn the_vm_blender_iolog_gets_the_blender_verdict_and_the_stream_table_curve() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let log = d.path().join("vm.iolog");
    let wl = format!("--write-iolog={}", log.display());
    let args = ["run", "--preset=vm-blender", "--size=64m", "--streams=8", "--runtime=2"];
    iolab(&[&args[..], &["--rate=800", wl.as_str(), dir_arg(d.path()).as_str()]].concat());
    let o = iolab(&["trace", "stat", log.to_str().unwrap()]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains(": blended:"), "{text}");
    let line = text.lines().find(|l| l.starts_with("stream table (LRU")).expect(&text);
    // Eight VMs interleaved at random: a table of 8 sees every continuation, 4 too few.
    assert!(line.contains("must follow 8 streams"), "{line}");
}
