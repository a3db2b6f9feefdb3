//! `--write-iolog` on `iolab run` and `iolab sim` (the request stream as a fio iolog v3, checked
//! against the run's own counts and, where fio is installed, fio's `read_iolog` replay), and
//! `iolab mrc --job` (the miss-ratio curve of a job's stream: exact cold-miss arithmetic).
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

/// (dir, file, offset, len) of every request line of a fio iolog v3.
fn iolog_requests(p: &Path) -> Vec<(String, String, u64, u64)> {
    let text = std::fs::read_to_string(p).unwrap();
    assert_eq!(text.lines().next(), Some("fio version 3 iolog"));
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5).then(|| {
                (f[2].to_string(), f[1].to_string(), f[3].parse().unwrap(), f[4].parse().unwrap())
            })
        })
        .collect()
}

fn count(reqs: &[(String, String, u64, u64)], dir: &str) -> u64 {
    reqs.iter().filter(|r| r.0 == dir).count() as u64
}

/// fio's (read, write) total_ios replaying `log` on the null engine; None (with a printed
/// reason) when fio is not installed.
fn fio_replay(log: &Path) -> Option<(u64, u64)> {
    match Command::new("fio").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => {
            eprintln!("skipped the fio replay: `fio` is not installed (apt-get install fio)");
            return None;
        }
    }
    let out = Command::new("fio")
        .args(["--ioengine=null", "--name=x", "--replay_no_stall=1", "--output-format=json"])
        .arg(format!("--read_iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let j: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let job = &j["jobs"][0];
    Some((job["read"]["total_ios"].as_u64().unwrap(), job["write"]["total_ios"].as_u64().unwrap()))
}

const RANDREAD: [&str; 5] =
    ["--name=rr", "--rw=randread", "--bs=4k", "--size=1m", "--ioengine=psync"];

#[test]
fn run_write_iolog_is_the_runs_stream_and_fio_replays_it() {
    let d = tempfile::tempdir_in(".").unwrap();
    let (log, out) = (d.path().join("rr.iolog"), d.path().join("r.json"));
    let st = iolab()
        .arg("run")
        .args(RANDREAD)
        .arg(format!("--directory={}", d.path().display()))
        .arg(format!("--write-iolog={}", log.display()))
        .args(["--output-format=json", "--output"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let j: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run_reads = j["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    let reqs = iolog_requests(&log);
    assert_eq!(run_reads, 256);
    assert_eq!(count(&reqs, "read"), run_reads);
    assert_eq!(reqs.len() as u64, run_reads);
    // One random-map pass: every 4 KiB block of the 1 MiB file exactly once, in the file the
    // run used.
    let offsets: HashSet<u64> = reqs.iter().map(|r| r.2).collect();
    assert_eq!(offsets.len(), 256);
    assert!(reqs.iter().all(|r| r.2 % 4096 == 0 && r.2 < 1 << 20 && r.3 == 4096));
    let file = d.path().join("rr.0.0").display().to_string();
    assert!(reqs.iter().all(|r| r.1 == file), "{:?}", reqs[0]);
    if let Some(got) = fio_replay(&log) {
        assert_eq!(got, (run_reads, 0));
    }
}

#[test]
fn sim_write_iolog_equals_run_and_a_mixed_job_replays_with_equal_counts() {
    let d = tempfile::tempdir_in(".").unwrap();
    let dir = format!("--directory={}", d.path().display());
    let (run_log, sim_log) = (d.path().join("run.iolog"), d.path().join("sim.iolog"));
    let st = iolab()
        .arg("run")
        .args(RANDREAD)
        .arg(&dir)
        .arg(format!("--write-iolog={}", run_log.display()))
        .args(["--output-format=json", "--output"])
        .arg(d.path().join("r.json"))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    std::fs::remove_file(d.path().join("rr.0.0")).unwrap();
    let st = iolab()
        .arg("sim")
        .args(RANDREAD)
        .arg(&dir)
        .arg(format!("--write-iolog={}", sim_log.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    assert_eq!(std::fs::read(&run_log).unwrap(), std::fs::read(&sim_log).unwrap());

    // A 70/30 mix over two clones: both clones' files, per-direction counts fio agrees with.
    let mix = d.path().join("mix.iolog");
    let st = iolab()
        .args(["sim", "--name=m", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--size=512k"])
        .args(["--numjobs=2", &dir])
        .arg(format!("--write-iolog={}", mix.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let reqs = iolog_requests(&mix);
    let (r, w) = (count(&reqs, "read"), count(&reqs, "write"));
    assert_eq!(r + w, 2 * 128);
    assert!((60..120).contains(&(w as i64)), "writes {w} of 256 at rwmixread=70");
    let files: HashSet<&str> = reqs.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(files.len(), 2);
    // The clones run side by side: their requests alternate, as a shared cache would see them.
    assert!(reqs.chunks(2).all(|p| p[0].1.ends_with("m.0.0") && p[1].1.ends_with("m.1.0")));
    if let Some(got) = fio_replay(&mix) {
        assert_eq!(got, (r, w));
    }
}

fn mrc_json(job: &Path, fio: &[&str], sizes: &str) -> (Value, String) {
    let out = iolab()
        .args(["mrc", "--json", "--sizes", sizes, "--job"])
        .arg(job)
        .arg("--")
        .args(fio)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

fn miss_ratios(j: &Value) -> Vec<f64> {
    j["points"].as_array().unwrap().iter().map(|p| p["miss_ratio"].as_f64().unwrap()).collect()
}

#[test]
fn mrc_of_a_randread_job_counts_cold_misses_exactly() {
    let d = tempfile::tempdir_in(".").unwrap();
    let job = d.path().join("j.fio");
    std::fs::write(&job, "[rr]\nrw=randread\nbs=4k\nsize=1m\n").unwrap();
    let dir = format!("--directory={}", d.path().display());
    // One pass of the random map: 256 distinct blocks, every access a cold miss at any size.
    let (j, _) = mrc_json(&job, &[&dir], "1,255,256,1024");
    assert_eq!(j["requests"], 256);
    assert_eq!(j["footprint_entries"].as_f64().unwrap(), 256.0);
    assert_eq!(j["block_size"], 4096);
    assert_eq!(miss_ratios(&j), vec![1.0; 4]);
    // Two passes: a cache of the whole file misses only the first pass, exactly half.
    let (j, _) = mrc_json(&job, &[&dir, "--loops=2"], "256,1024");
    assert_eq!(j["requests"], 512);
    assert_eq!(miss_ratios(&j), vec![0.5, 0.5]);
    // A 2 KiB block splits each 4 KiB read into two blocks: twice the footprint.
    let (j, _) = mrc_json(&job, &[&dir, "--loops=2"], "512");
    assert_eq!(j["footprint_entries"].as_f64().unwrap(), 256.0);
    let out = iolab()
        .args(["mrc", "--json", "--block-size=2k", "--sizes=512", "--job"])
        .arg(&job)
        .args(["--", &dir, "--loops=2"])
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["footprint_entries"].as_f64().unwrap(), 512.0);
    assert_eq!(miss_ratios(&j), vec![0.5]);
    // time_based never ends on its own: cut at one pass over size, and said so.
    let (j, err) = mrc_json(&job, &[&dir, "--time_based", "--runtime=10"], "256");
    assert_eq!(j["requests"], 256);
    assert!(err.contains("time_based") && err.contains("1048576 bytes"), "{err}");
    // With number_ios the job says where it ends: 3 passes' worth of a 1 MiB file.
    let (j, _) = mrc_json(&job, &[&dir, "--time_based", "--runtime=10", "--number_ios=768"], "256");
    assert_eq!(j["requests"], 768);
    assert!((miss_ratios(&j)[0] - 1.0 / 3.0).abs() < 1e-9);
    // Two clones on one shared file are one key space: 512 reads, 256 cold misses.
    let (j, _) = mrc_json(&job, &[&dir, "--filename=shared", "--numjobs=2"], "256,1024");
    assert_eq!(j["requests"], 512);
    assert_eq!(j["footprint_entries"].as_f64().unwrap(), 256.0);
    assert_eq!(miss_ratios(&j), vec![0.5, 0.5]);
    // Trace-reading flags have nothing to read with --job: refused, not ignored.
    let out = iolab().args(["mrc", "--lenient", "--job"]).arg(&job).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lenient"));
}

/// Issue 13 item 5: a rate-limited job's iolog carries its issue times (v3 timestamps, µs),
/// one every 1/rate_iops, and fio's `read_iolog` replays it at that pace: 100 reads at
/// `rate_iops=200` take about 495 ms under fio as under iolab.
#[test]
fn rate_limited_iolog_has_the_pacing_and_fio_replays_it_as_long() {
    let d = tempfile::tempdir_in(".").unwrap();
    let log = d.path().join("paced.iolog");
    let out = d.path().join("r.json");
    let st = iolab()
        .current_dir(d.path())
        .args(["run", "--name=p", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=400k"])
        .args(["--rate_iops=200", "--output-format=json"])
        .arg(format!("--output={}", out.display()))
        .arg(format!("--write-iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    let ts: Vec<u64> = text
        .lines()
        .filter(|l| l.contains(" read "))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ts.len(), 100);
    let want: Vec<u64> = (0..100).map(|i| i * 5_000).collect();
    assert_eq!(ts, want, "one request every 5000 us");
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let ours_ms = ours["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!((480..=600).contains(&ours_ms), "iolab ran {ours_ms} ms");
    match Command::new("fio").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => {
            println!("skip: the fio replay: `fio` is not installed (apt-get install fio)");
            return;
        }
    }
    let fio_out = d.path().join("fio.json");
    let st = Command::new("fio")
        .current_dir(d.path())
        .args(["--name=replay", "--ioengine=null", "--output-format=json"])
        .arg(format!("--read_iolog={}", log.display()))
        .arg(format!("--output={}", fio_out.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let fio: Value = serde_json::from_str(&std::fs::read_to_string(&fio_out).unwrap()).unwrap();
    let r = &fio["jobs"][0]["read"];
    assert_eq!(r["total_ios"], 100);
    let fio_ms = r["runtime"].as_u64().unwrap();
    println!("paced 100 x 4k at 200 IOPS: iolab {ours_ms} ms, fio 3.33 replay {fio_ms} ms");
    assert!((480..=600).contains(&fio_ms), "fio replayed in {fio_ms} ms, not ~495");
}

/// `write_iolog=FILE` as a job option (fio's name): each job's own clones, numbered as in the
/// whole run, equal to what `--write-iolog` writes for that job.
#[test]
fn write_iolog_job_option_writes_each_jobs_stream() {
    let d = tempfile::tempdir_in(".").unwrap();
    let all = d.path().join("all.iolog");
    let b = d.path().join("b.iolog");
    let st = iolab()
        .current_dir(d.path())
        .args(["run", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=64k"])
        .args(["--name=a", "--name=b", "--numjobs=2"])
        .arg(format!("--write_iolog={}", b.display()))
        .arg(format!("--write-iolog={}", all.display()))
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let of_b: Vec<_> = iolog_requests(&all).into_iter().filter(|r| r.1.starts_with("b.")).collect();
    assert_eq!(of_b.len(), 32);
    assert_eq!(iolog_requests(&b), of_b);
}
