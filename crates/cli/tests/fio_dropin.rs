//! iolab in fio's place: terse output (versions 2–5) compared field by field with fio 3.33
//! on the same deterministic null-engine jobs, fio's global flags, and the fio personality
//! (`iolab fio …`, argv[0] = `fio`). Tests needing fio print `skip:` when it is absent.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iolab");

fn have_fio() -> bool {
    Command::new("fio").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn iolab(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run iolab")
}

fn fio(args: &[&str]) -> Output {
    Command::new("fio").args(args).output().expect("run fio")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The terse lines of an output (fio prints other text after them with --append-terse).
fn terse_lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.matches(';').count() > 100)
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

/// Fields per direction and directions per line for a terse version (no unified_rw).
fn layout(ver: u8) -> (usize, usize, usize) {
    let header = if ver == 2 { 4 } else { 5 };
    let per_dir = if ver == 5 { 47 } else { 41 };
    let dirs = if ver == 3 { 2 } else { 3 };
    (header, per_dir, dirs)
}

/// Compare the deterministic fields of two terse lines: count, header, KiB per direction,
/// the percentile labels, and the iodepth distribution.
fn compare(ver: u8, a: &[String], b: &[String]) {
    assert_eq!(a.len(), b.len(), "v{ver} field count: iolab {} fio {}", a.len(), b.len());
    let (header, per_dir, dirs) = layout(ver);
    assert_eq!(a[..header], b[..header], "v{ver} header");
    for d in 0..dirs {
        let base = header + d * per_dir;
        assert_eq!(a[base], b[base], "v{ver} direction {d}: KiB");
        for p in 0..20 {
            let i = base + 12 + p;
            let label = |s: &String| s.split('=').next().map(str::to_string);
            assert_eq!(label(&a[i]), label(&b[i]), "v{ver} direction {d}: percentile slot {p}");
        }
    }
    let depth = header + dirs * per_dir + 5;
    assert_eq!(a[depth..depth + 7], b[depth..depth + 7], "v{ver} iodepth distribution");
}

const JOB: &[&str] = &["--name=t", "--ioengine=null", "--size=1m", "--bs=4k"];

fn terse_both(ver: u8, extra: &[&str]) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let v = format!("--terse-version={ver}");
    let mut args: Vec<&str> = vec!["--minimal", &v];
    args.extend_from_slice(JOB);
    args.extend_from_slice(extra);
    let mine = iolab(&[&["run"], args.as_slice()].concat());
    assert!(mine.status.success(), "iolab: {}", String::from_utf8_lossy(&mine.stderr));
    let theirs = fio(&args);
    assert!(theirs.status.success(), "fio: {}", String::from_utf8_lossy(&theirs.stderr));
    (terse_lines(&stdout(&mine)), terse_lines(&stdout(&theirs)))
}

#[test]
fn terse_versions_match_fio_field_for_field() {
    if !have_fio() {
        println!("skip: fio not installed");
        return;
    }
    for ver in 2..=5u8 {
        for rw in ["--rw=read", "--rw=write"] {
            let (mine, theirs) = terse_both(ver, &[rw]);
            assert_eq!(mine.len(), 1, "v{ver} {rw}: one line");
            assert_eq!(theirs.len(), 1);
            compare(ver, &mine[0], &theirs[0]);
            // 1 MiB moved in the job's direction.
            let (header, per_dir, _) = layout(ver);
            let dir = usize::from(rw == "--rw=write");
            assert_eq!(mine[0][header + dir * per_dir], "1024", "v{ver} {rw}");
        }
    }
}

#[test]
fn terse_group_reporting_and_several_jobs_match_fio() {
    if !have_fio() {
        println!("skip: fio not installed");
        return;
    }
    let (mine, theirs) = terse_both(3, &["--rw=read", "--numjobs=3", "--group_reporting"]);
    assert_eq!((mine.len(), theirs.len()), (1, 1), "one line for the group");
    compare(3, &mine[0], &theirs[0]);
    assert_eq!(mine[0][5], "3072", "three jobs' KiB summed");
    let (mine, theirs) = terse_both(3, &["--rw=read", "--numjobs=2"]);
    assert_eq!((mine.len(), theirs.len()), (2, 2), "one line per job");
    for (a, b) in mine.iter().zip(&theirs) {
        compare(3, a, b);
    }
}

#[test]
fn append_terse_puts_the_terse_line_before_the_report_as_fio() {
    let mut args = vec!["fio", "--append-terse", "--rw=read"];
    args.extend_from_slice(JOB);
    let out = iolab(&args);
    assert!(out.status.success());
    let text = stdout(&out);
    // fio: its header lines (init.c add_job, backend.c), the terse line, a blank line, the
    // normal report.
    let header = "t: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
                  ioengine=null, iodepth=1\nfio-3.33\nStarting 1 process\n3;fio-3.33;t;0;0;1024;";
    assert!(text.starts_with(header), "{text}");
    assert!(text.contains("\n\nt: (groupid=0, jobs=1): err= 0:"), "{text}");
    assert!(text.contains("READ: bw="), "the normal report follows:\n{text}");
    assert!(out.stderr.is_empty(), "fio personality prints nothing on stderr");
}

#[test]
fn bad_terse_version_is_refused_like_fio() {
    let out = iolab(&["fio", "--terse-version=7", "--name=x", "--ioengine=null", "--size=4k"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad terse version"), "{err}");
}

#[test]
fn argv0_fio_speaks_fio_version_and_refuses_like_fio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("fio");
    std::os::unix::fs::symlink(BIN, &link).expect("symlink");
    let out = Command::new(&link).arg("--version").output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let v = stdout(&out);
    assert!(v.starts_with("fio-3.33 (iolab "), "{v}");
    assert!(out.stderr.is_empty());
    // An unknown flag: fio's message and exit 1, no usage on stdout.
    let out = Command::new(&link).args(["--bogus", "--name=x"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("fio: unrecognized option '--bogus'"));
    // Multi-host flags are refused by name.
    let out = Command::new(&link).args(["--client=h", "j.fio"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--client: not supported"));
    // --readonly refuses a writing job before any I/O, with fio's words.
    let out = Command::new(&link)
        .args(["--readonly", "--name=w", "--rw=write", "--ioengine=null", "--size=4k"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("job <w> has write or trim bit set, but fio is in read-only mode"));
}

#[test]
fn showcmd_parse_only_and_max_jobs_as_fio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("j.fio");
    std::fs::write(&f, "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\nbs=4k\n").expect("write");
    let p = f.to_string_lossy().into_owned();
    let out = iolab(&["fio", "--showcmd", &p]);
    assert_eq!(stdout(&out), "fio --ioengine=null --size=1m --name=a --rw=read --bs=4k \n");
    let out = iolab(&["fio", "--parse-only", "--max-jobs=8", &p]);
    assert_eq!((out.status.code(), out.stdout.len(), out.stderr.len()), (Some(0), 0, 0));
}

#[test]
fn json_says_fio_version_iodepth_and_global_options() {
    let out = iolab(&[
        "fio",
        "--output-format=json",
        "--iodepth=4",
        "--ioengine=null",
        "--size=64k",
        "--group_reporting",
        "--name=z",
        "--rw=read",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["fio version"], "fio-3.33");
    assert!(v["iolab_version"].as_str().is_some_and(|s| s.starts_with("iolab-")));
    assert_eq!(v["global options"]["iodepth"], "4");
    assert_eq!(v["jobs"][0]["latency_depth"], 4);
    // fio 3.33 after a run shorter than 3 s: no estimate, INT_MAX.
    assert_eq!(v["jobs"][0]["eta"], 2_147_483_647u64);
    // fio: global options and the section's own options apart; bare flags have no value and
    // are left out of both.
    let globals = v["global options"].as_object().expect("global options");
    assert_eq!(globals.keys().collect::<Vec<_>>(), ["iodepth", "ioengine", "size"]);
    let own = v["jobs"][0]["job options"].as_object().expect("job options");
    assert_eq!(own.keys().collect::<Vec<_>>(), ["name", "rw"]);
    assert!(out.stderr.is_empty(), "nothing on stderr");
}
