//! iolab-job against fio 3.33 itself (skips without fio): groups, names, sizes, block sizes, accept
//! and reject.

use crate::common::*;
use iolab_job::*;
use std::path::Path;

// ---------------------------------------------------------------- differential against fio

/// fio's JSON for a run, or `None` (with the reason printed) when fio is not installed.
fn fio_json(dir: &Path, args: &[&str]) -> Option<serde_json::Value> {
    let out = match std::process::Command::new("fio").args(args).current_dir(dir).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: fio is not installed ({e})");
            return None;
        }
    };
    assert!(out.status.success(), "fio {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    // fio may print its job summary lines before the JSON document.
    let text = String::from_utf8_lossy(&out.stdout);
    let start = if text.starts_with('{') { 0 } else { text.find("\n{").unwrap() + 1 };
    Some(serde_json::from_str(&text[start..]).unwrap())
}

/// Group ids, job names (`name=` overrides the section), per-file `[global]`, the implicit
/// stonewall between files and `kb_base` order, as fio 3.x reports them with the null engine.
#[test]
fn groups_names_and_sizes_match_fio() {
    let dir = tempfile::tempdir().unwrap();
    let a = "[global]\nioengine=null\nsize=16k\nbs=4k\n[a1]\n[a2]\nnew_group\n[a3]\nname=renamed\n\
             [a4]\nstonewall\n";
    let b = "[global]\nioengine=null\nsize=16k\nbs=4k\n[b1]\n[b2]\nsize=8KiB\nkb_base=1000\n\
             [b3]\nkb_base=1000\nsize=8KiB\n";
    std::fs::write(dir.path().join("a.fio"), a).unwrap();
    std::fs::write(dir.path().join("b.fio"), b).unwrap();
    let Some(fio) = fio_json(dir.path(), &["a.fio", "b.fio", "--output-format=json"]) else {
        return;
    };
    let fio_jobs: Vec<(String, u64, u64)> = fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let name = j["jobname"].as_str().unwrap().to_string();
            (name, j["groupid"].as_u64().unwrap(), j["read"]["io_bytes"].as_u64().unwrap())
        })
        .collect();
    let files = vec![dir.path().join("a.fio"), dir.path().join("b.fio")];
    let ours = load_with(&LoadOptions { files, ..Default::default() }, &env()).unwrap();
    let ours: Vec<(String, u64, u64)> = ours
        .jobs
        .iter()
        .map(|j| {
            let Some(SizeSpec::Bytes(size)) = j.size else { panic!("{j:?}") };
            (j.name.clone(), u64::from(j.group_id), size)
        })
        .collect();
    assert_eq!(ours, fio_jobs);
    assert_eq!(ours[5], ("b2".to_string(), 3, 8192));
    assert_eq!(ours[6], ("b3".to_string(), 3, 8192));
}

/// The §1.4 suffix table, checked against the installed fio by the bytes it reads: one fio
/// run with a command-line job per (kb_base, size), parsed by both.
#[test]
fn size_suffixes_match_fio() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = ["--ioengine=null", "--bs=8"].map(String::from).to_vec();
    let mut expected = Vec::new();
    for kb in ["1024", "1000"] {
        for size in ["4k", "4kb", "4ki", "4KiB", "1m", "1mi", "1MB", "1MiB"] {
            args.push(format!("--name={size}@{kb}"));
            args.push(format!("--kb_base={kb}"));
            args.push(format!("--size={size}"));
            expected.push(format!("{size}@{kb}"));
        }
    }
    let mut fio_args: Vec<&str> = args.iter().map(String::as_str).collect();
    fio_args.push("--output-format=json");
    let Some(fio) = fio_json(dir.path(), &fio_args) else { return };
    let fio_bytes: Vec<(String, u64)> = fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (j["jobname"].as_str().unwrap().to_string(), j["read"]["io_bytes"].as_u64().unwrap())
        })
        .collect();
    let p = load_with(&LoadOptions { cmdline: args, ..Default::default() }, &env()).unwrap();
    let ours: Vec<(String, u64)> = p
        .jobs
        .iter()
        .map(|j| {
            let Some(SizeSpec::Bytes(b)) = j.size else { panic!("{j:?}") };
            (j.name.clone(), b)
        })
        .collect();
    assert_eq!(ours.len(), 16);
    assert_eq!(ours, fio_bytes);
    assert_eq!(ours[3], ("4KiB@1024".to_string(), 4000));
}

/// Per-direction block sizes (carry-over, trailing comma, reversed ranges, bssplit min/max) as
/// fio prints them in its job summary line, `name: (g=N): rw=…, bs=(R) a-b, (W) …, (T) …`.
#[test]
fn block_sizes_match_fio_summary_lines() {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "--ioengine=null",
        "--size=64k",
        "--name=a",
        "--bs=512,1024",
        "--name=b",
        "--bs=512,1024,",
        "--name=c",
        "--bsrange=2048-512,1024:2048",
        "--name=d",
        "--bssplit=512/50:1024/:2048/,4096",
        "--rw=randwrite",
        "--name=e",
        "--stonewall",
        "--bs=,2048",
        "--iodepth=4",
    ]
    .map(String::from)
    .to_vec();
    let out = match std::process::Command::new("fio")
        .args(&args)
        .arg("--output-format=normal")
        .current_dir(dir.path())
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: fio is not installed ({e})");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let bytes = |s: &str| s.trim().trim_end_matches('B').parse::<u64>().unwrap();
    let fio: Vec<String> = text
        .lines()
        .filter(|l| l.contains(": (g="))
        .map(|l| {
            let (name, rest) = l.split_once(": (g=").unwrap();
            let group = rest.split(')').next().unwrap();
            let rw = rest.split("rw=").nth(1).unwrap().split(',').next().unwrap();
            let bs = rest.split("bs=").nth(1).unwrap();
            let dirs: Vec<String> = ["(R) ", "(W) ", "(T) "]
                .iter()
                .map(|tag| {
                    let r = bs.split(tag).nth(1).unwrap().split(',').next().unwrap();
                    let (lo, hi) = r.split_once('-').unwrap();
                    format!("{}-{}", bytes(lo), bytes(hi))
                })
                .collect();
            let depth = rest.split("iodepth=").nth(1).unwrap().trim();
            format!("{name} g={group} rw={rw} {} qd={depth}", dirs.join(" "))
        })
        .collect();
    let p = load_with(&LoadOptions { cmdline: args, ..Default::default() }, &env()).unwrap();
    let ours: Vec<String> = p
        .jobs
        .iter()
        .map(|j| {
            let rw = serde_json::to_value(j.rw).unwrap();
            let b = &j.bs;
            format!(
                "{} g={} rw={} {}-{} {}-{} {}-{} qd={}",
                j.name,
                j.group_id,
                rw.as_str().unwrap(),
                b.read.min,
                b.read.max,
                b.write.min,
                b.write.max,
                b.trim.min,
                b.trim.max,
                j.iodepth
            )
        })
        .collect();
    assert_eq!(ours.len(), 5);
    assert_eq!(ours, fio);
}

/// Values fio refuses are refused here too, and well-formed ones fio takes are taken. (iolab is
/// stricter than fio on purpose where fio silently misreads: `bs=4q` and `size=1.5g`, which fio
/// reads as 4 and 1 bytes, `numjobs=0`, bssplit shares over 100 without blanks.)
#[test]
fn accept_and_reject_like_fio() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        "--random_distribution=zipf:1",
        "--random_distribution=zipf:1.2",
        "--random_distribution=pareto:1.5",
        "--random_distribution=pareto:0.3:0.5",
        "--random_distribution=normal:100",
        "--random_distribution=zoned:50/50:40/50",
        "--random_distribution=zoned:60/10:40/90",
        "--random_distribution=zoned_abs:60/1m:40/3m",
        "--iodepth=0",
        "--rw=randrw:4",
        "--rw=sideways",
        "--bsrange=4k-1k",
        "--bssplit=4k/50:1k/:32k/",
        "--file_service_type=random:4",
        "--file_service_type=zipf:1",
        "--kb_base=1001",
        "--filename=F\\:fiofile",
    ];
    for case in cases {
        let args = ["--parse-only", "--name=x", "--ioengine=null", "--size=4m", case];
        let fio_ok =
            match std::process::Command::new("fio").args(args).current_dir(dir.path()).output() {
                Ok(o) => o.status.success(),
                Err(e) => {
                    eprintln!("skipped: fio is not installed ({e})");
                    return;
                }
            };
        let cmdline = args[1..].iter().map(|s| s.to_string()).collect();
        let ours = load_with(&LoadOptions { cmdline, ..Default::default() }, &env());
        assert_eq!(ours.is_ok(), fio_ok, "{case}: fio ok={fio_ok}, iolab {:?}", ours.err());
    }
}
