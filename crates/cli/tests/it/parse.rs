//! `iolab parse` through the built binary: JSON on stdout, warnings on stderr, exit 1 with a
//! one-line `file:line:` error on bad input.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

fn shared_job(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/jobs").join(name)
}

#[test]
fn parse_prints_jobs_and_warnings() {
    let out = iolab()
        .arg("parse")
        .arg(shared_job("runnable-threads-vs-aio.fio"))
        .arg("--ramp_time=2")
        .env("TESTDIR", "/scratch")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["name"], "randwrite-threads");
    assert_eq!(jobs[0]["numjobs"], 8);
    assert_eq!(jobs[1]["group_id"], 1);
    assert_eq!(jobs[0]["filenames"][0], "/scratch/file1");
    let fname = &jobs[0]["options"]["filename"];
    assert_eq!(fname["raw"], "${TESTDIR}/file1");
    assert!(fname["origin"].as_str().unwrap().ends_with("runnable-threads-vs-aio.fio:9"));
    // A command-line global reaches the first file's jobs (fio's def_thread); the file's own
    // [global] still wins where it sets the same option.
    assert_eq!(jobs[0]["ramp_time"], 2_000_000_000u64);
    assert_eq!(jobs[0]["options"]["ramp_time"]["origin"], "command line (argument 1)");
    assert_eq!(jobs[0]["runtime"], 5_000_000_000u64);
}

/// `iolab run` refuses windowsaio, so `iolab parse` does too (issue 35), in one line.
#[test]
fn parse_refuses_a_windows_engine_as_run_does() {
    let out =
        iolab().arg("parse").arg(shared_job("seed-windows-physicaldrive.fio")).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("'ioengine': bad value 'windowsaio'"), "{stderr}");
    assert!(stderr.contains("libaio or io_uring on Linux"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn parse_bad_option_exits_1_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.fio");
    std::fs::write(&f, "[j]\nbsize=4k\n").unwrap();
    let out = iolab().arg("parse").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.fio:2: unknown option 'bsize'"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn parse_command_line_only_with_defaults() {
    let out = iolab()
        .args(["parse", "--name=a", "--rw=randread", "--bs=4k", "--defaults"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(j["rw"], "randread");
    assert_eq!(j["options"]["bs"]["origin"], "command line (argument 3)");
    assert_eq!(j["options"]["iodepth"]["origin"], "default");
}

#[test]
fn parse_without_input_is_an_error() {
    let out = iolab().arg("parse").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to parse"));
}

#[test]
fn parse_fio_style_space_separated_command_line() {
    let out = iolab()
        .args(["parse", "--name", "x", "--rw", "randwrite", "--bs", "16k"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["name"], "x");
    assert_eq!(v["jobs"][0]["rw"], "randwrite");
    assert_eq!(v["jobs"][0]["bs"]["write"]["min"], 16384);
}
