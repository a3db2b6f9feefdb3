//! iolab in fio's place: terse output (versions 2–5) compared field by field with fio 3.33
//! on the same deterministic null-engine jobs, fio's global flags, and the fio personality
//! (`iolab fio …`, argv[0] = `fio`). Tests needing fio print `skip:` when it is absent.

use std::process::{Command, Output};

use iolab_test_support::{have, LoopDev};

const BIN: &str = env!("CARGO_BIN_EXE_iolab");

fn have_fio() -> bool {
    iolab_test_support::fio().is_ok()
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
    // --client talks to iolab's authenticated servers only: without a secret it is refused.
    let out = Command::new(&link).args(["--client=h", "j.fio"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--client: needs --secret-file"));
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

/// The option names a `--cmdhelp`/`--enghelp` listing prints (`name : help`, sub-options
/// indented).
fn listed_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once(':').map(|(n, _)| n.trim()))
        .filter(|n| !n.is_empty() && !n.contains(' '))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_option_fio_knows_is_in_the_registry() {
    if !have_fio() {
        println!("skip: fio not installed");
        return;
    }
    // fio's general options, every engine's own options, and the options the tiobench and
    // act profiles add (fio accepts those in jobs once the profile is loaded).
    let mut names = listed_names(&stdout(&fio(&["--cmdhelp=all"])));
    let general = names.len();
    let engines = stdout(&fio(&["--enghelp"]));
    let engines: Vec<&str> = engines.lines().skip(1).map(str::trim).collect();
    for e in &engines {
        names.extend(listed_names(&stdout(&fio(&[&format!("--enghelp={e}")]))));
    }
    for p in ["tiobench", "act"] {
        names.extend(listed_names(&stdout(&fio(&[&format!("--profile={p}"), "--cmdhelp=all"]))));
    }
    names.sort();
    names.dedup();
    assert!(general > 200, "fio 3.33 lists 217 general options, parsed {general}");
    assert!(engines.contains(&"libaio") && names.contains(&"userspace_reap".to_string()));
    let missing: Vec<&String> =
        names.iter().filter(|n| iolab_job::registry::lookup(n).is_none()).collect();
    assert!(missing.is_empty(), "fio options iolab does not know: {missing:?}");
    println!("{} option names from fio 3.33 all known", names.len());
}

/// A loop device of our own over a temporary file, detached on drop, and a block node for it
/// made with mknod in a temporary directory (the system's /dev entries are not relied on).
struct OwnLoop {
    node: std::path::PathBuf,
    name: String,
    _lo: LoopDev,
    _dir: tempfile::TempDir,
}

fn own_loop(size: u64) -> Result<OwnLoop, String> {
    let dir = tempfile::tempdir_in(".").map_err(|e| e.to_string())?;
    let mut lo = LoopDev::new_in(dir.path(), size, false).map_err(|e| e.to_string())?;
    let node = lo.make_node(dir.path()).map_err(|e| e.to_string())?;
    Ok(OwnLoop { node, name: lo.name().to_string(), _lo: lo, _dir: dir })
}

/// /proc/diskstats fields 15 and 17, counting major, minor and name as 1–3 (discards
/// completed, sectors discarded) of `name`.
fn discards(name: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/diskstats").ok()?;
    let f: Vec<&str> = text.lines().map(str::split_whitespace).find_map(|mut w| {
        let v: Vec<&str> = w.by_ref().collect();
        (v.get(2) == Some(&name)).then_some(v)
    })?;
    Some((f.get(14)?.parse().ok()?, f.get(16)?.parse().ok()?))
}

#[test]
fn trim_on_a_loop_device_reads_back_zeros_and_shows_in_diskstats() {
    if not_root() {
        println!("skip: needs root for losetup and mknod");
        return;
    }
    let l = match own_loop(32 << 20) {
        Ok(l) => l,
        Err(e) => {
            println!("skip: no loop device: {e}");
            return;
        }
    };
    let node = l.node.to_str().unwrap_or_default().to_string();
    // Fill the first 16 MiB with non-zero data, then trim [4 MiB, 12 MiB) in 1 MiB units.
    let w = iolab(&[
        "run",
        "--name=fill",
        &format!("--filename={node}"),
        "--rw=write",
        "--bs=1M",
        "--size=16M",
        "--direct=1",
        "--allow-destroy",
        "--output-format=json",
    ]);
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    let Some(before) = discards(&l.name) else {
        println!("skip: /proc/diskstats has no discard fields for {}", l.name);
        return;
    };
    let t = iolab(&[
        "run",
        "--name=t",
        &format!("--filename={node}"),
        "--rw=trim",
        "--bs=1M",
        "--offset=4M",
        "--size=8M",
        "--allow-destroy",
        "--output-format=json",
    ]);
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let v: serde_json::Value = serde_json::from_slice(&t.stdout).expect("json");
    assert_eq!(v["jobs"][0]["trim"]["total_ios"], 8, "8 trims of 1 MiB");
    assert_eq!(v["jobs"][0]["trim"]["io_bytes"], 8 << 20);
    let after = discards(&l.name).expect("diskstats");
    assert_eq!(after.0 - before.0, 8, "discards completed (field 15)");
    assert_eq!(after.1 - before.1, 16384, "sectors discarded (field 17): 8 MiB");
    let data = std::fs::read(&l.node).expect("read the device back");
    assert!(data[4 << 20..12 << 20].iter().all(|&b| b == 0), "trimmed range reads zeros");
    assert!(data[12 << 20..13 << 20].iter().any(|&b| b != 0), "data after the range is kept");
    assert!(data[..1 << 20].iter().any(|&b| b != 0), "data before the range is kept");
}

fn not_root() -> bool {
    !iolab_test_support::is_root()
}

/// The JSON documents of a `--status-interval` run, back to back on stdout.
fn json_docs(bytes: &[u8]) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_slice(bytes)
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .expect("JSON documents")
}

const STATUS_JOB: &[&str] = &[
    "--name=n",
    "--ioengine=null",
    "--size=1g",
    "--rw=read",
    "--bs=4k",
    "--time_based",
    "--runtime=2500ms",
    "--status-interval=1",
];

#[test]
fn status_interval_prints_full_cumulative_reports_like_fio() {
    // stat.c __show_running_run_stats every second of a 2.5 s job: reports at ~1 s and ~2 s,
    // then the final one: three in every format, counts cumulative.
    let mut args = vec!["fio", "--output-format=json"];
    args.extend(STATUS_JOB);
    let out = iolab(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = json_docs(&out.stdout);
    assert_eq!(docs.len(), 3, "two periodic reports and the final one");
    let ios: Vec<u64> =
        docs.iter().map(|d| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap_or(0)).collect();
    let rt: Vec<u64> =
        docs.iter().map(|d| d["jobs"][0]["read"]["runtime"].as_u64().unwrap_or(0)).collect();
    assert!(ios[0] > 0 && ios[0] < ios[1] && ios[1] < ios[2], "cumulative: {ios:?}");
    assert!((600..=1400).contains(&rt[0]), "first report near 1 s: {rt:?}");
    assert!((1600..=2400).contains(&rt[1]), "second near 2 s: {rt:?}");
    assert!((2400..=2700).contains(&rt[2]), "final at the runtime: {rt:?}");
    for d in &docs {
        assert_eq!(d["fio version"], "fio-3.33");
        assert_eq!(d["jobs"][0]["jobname"], "n");
        let bytes = d["jobs"][0]["read"]["io_bytes"].as_u64().unwrap_or(0);
        assert_eq!(bytes, 4096 * d["jobs"][0]["read"]["total_ios"].as_u64().unwrap_or(1));
    }

    let mut args = vec!["fio", "--output-format=terse"];
    args.extend(STATUS_JOB);
    let lines = terse_lines(&stdout(&iolab(&args)));
    assert_eq!(lines.len(), 3, "one terse line per job per report");
    let kb: Vec<u64> = lines.iter().map(|l| l[5].parse().unwrap_or(0)).collect();
    assert!(kb[0] < kb[1] && kb[1] < kb[2], "cumulative read KiB: {kb:?}");

    let mut args = vec!["fio"];
    args.extend(STATUS_JOB);
    let text = stdout(&iolab(&args));
    assert_eq!(text.matches("Run status group 0").count(), 3, "{text}");
    assert_eq!(text.matches("n: (g=0)").count(), 1, "the job header once, first");
    assert!(text.starts_with("n: (g=0)"));

    if !have_fio() {
        println!("skip: fio not installed (iolab's report count checked alone)");
        return;
    }
    let mut args = vec!["--output-format=json"];
    args.extend(STATUS_JOB);
    assert_eq!(json_docs(&fio(&args).stdout).len(), docs.len(), "as many reports as fio 3.33");
}

/// A temporary directory with `fio` in it: a symlink to iolab (argv[0] `fio` picks the fio
/// personality), and the PATH that puts it first.
fn iolab_as_fio() -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir_in(".").expect("tempdir");
    std::os::unix::fs::symlink(BIN, d.path().join("fio")).expect("symlink");
    let path = format!("{}:{}", d.path().display(), std::env::var("PATH").unwrap_or_default());
    (d, path)
}

/// Run the same job under fio and under iolab-as-fio in directories `f` and `i`.
fn both_in(
    dir: &std::path::Path,
    args: &[&str],
) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    if !have_fio() {
        return None;
    }
    let (bin, path) = iolab_as_fio();
    let (f, i) = (dir.join("f"), dir.join("i"));
    for (d, p) in [(&f, std::env::var("PATH").unwrap_or_default()), (&i, path)] {
        std::fs::create_dir_all(d).expect("mkdir");
        let o = Command::new("fio").args(args).current_dir(d).env("PATH", p).output().expect("fio");
        assert!(o.status.success(), "{}: {}", d.display(), String::from_utf8_lossy(&o.stderr));
    }
    drop(bin);
    Some((f, i))
}

const LOG_JOB: &[&str] = &[
    "--name=j",
    "--ioengine=null",
    "--size=64m",
    "--bs=4k",
    "--rw=read",
    "--rate_iops=2000",
    "--time_based",
    "--runtime=2s",
    "--log_avg_msec=500",
    "--write_bw_log=x",
    "--write_lat_log=x",
    "--write_iops_log=x",
];

fn names_in(d: &std::path::Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()))
        .into_iter()
        .flatten()
        .filter(|n| n.ends_with(ext))
        .collect();
    v.sort();
    v
}

#[test]
fn fio_jsonplus_clat2csv_reads_iolab_json_plus_as_fio_s() {
    if !have("fio_jsonplus_clat2csv") || !have_fio() {
        println!("skip: fio_jsonplus_clat2csv or fio not installed (Debian package fio)");
        return;
    }
    let d = tempfile::tempdir_in(".").expect("tempdir");
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=4m",
        "--bs=4k",
        "--rw=randread",
        "--output-format=json+",
        "--output=out.json",
    ];
    let (f, i) = both_in(d.path(), &job).expect("fio present");
    let mut csvs = Vec::new();
    for dir in [&f, &i] {
        let o = Command::new("fio_jsonplus_clat2csv")
            .args(["out.json", "out.csv"])
            .current_dir(dir)
            .output()
            .expect("run fio_jsonplus_clat2csv");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        csvs.push(std::fs::read_to_string(dir.join("out_job0.csv")).expect("out_job0.csv"));
    }
    // Same header, same columns per row; the cumulative clat count ends at the 1024 reads.
    let (fh, ih) = (csvs[0].lines().next(), csvs[1].lines().next());
    assert_eq!(fh, ih, "header");
    let width = fh.unwrap_or_default().split(',').count();
    for c in &csvs {
        assert!(c.lines().all(|l| l.split(',').count() == width));
        let last: Vec<&str> = c.lines().last().unwrap_or_default().split(", ").collect();
        assert_eq!(last[5].trim(), "1024", "read_clat_ns_cumulative of the last row");
        assert_eq!(last[6].trim(), "1.0");
    }
}

#[test]
fn fio_generate_plots_and_fio2gnuplot_draw_iolab_logs_as_fio_s() {
    if !have("gnuplot") || !have("fio_generate_plots") || !have_fio() {
        println!("skip: gnuplot, fio_generate_plots or fio not installed");
        return;
    }
    let d = tempfile::tempdir_in(".").expect("tempdir");
    let (f, i) = both_in(d.path(), LOG_JOB).expect("fio present");
    assert_eq!(names_in(&f, ".log").len(), 5, "bw, iops, lat, clat, slat logs");
    assert_eq!(
        names_in(&f, ".log").iter().map(|n| n.replace('x', "")).collect::<Vec<_>>(),
        names_in(&i, ".log").iter().map(|n| n.replace('x', "")).collect::<Vec<_>>()
    );
    for dir in [&f, &i] {
        let o = Command::new("fio_generate_plots").arg("t").current_dir(dir).output().expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let svgs = names_in(&f, ".svg");
    assert_eq!(svgs, ["t-bw.svg", "t-clat.svg", "t-iops.svg", "t-lat.svg", "t-slat.svg"]);
    assert_eq!(names_in(&i, ".svg"), svgs);
    // A line wherever fio's log gives one (a sync engine's slat log is empty in both).
    for s in &svgs {
        let lines = |d: &std::path::Path| {
            let text = std::fs::read_to_string(d.join(s)).expect("svg");
            (text.contains("<svg"), text.contains("<path"))
        };
        assert_eq!(lines(&i), lines(&f), "{s}: iolab's plot draws a line where fio's does");
    }
    assert!(std::fs::read_to_string(i.join("t-bw.svg")).is_ok_and(|t| t.contains("<path")));
    if !have("fio2gnuplot") {
        println!("skip: fio2gnuplot not installed");
        return;
    }
    for dir in [&f, &i] {
        let o = Command::new("fio2gnuplot")
            .args(["-p", "*_bw.1.log", "-g"])
            .current_dir(dir)
            .output()
            .expect("run fio2gnuplot");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let pngs = names_in(&f, ".png");
    assert_eq!(pngs.len(), 7, "{pngs:?}");
    assert_eq!(names_in(&i, ".png"), pngs);
}

#[test]
fn fiologparser_treats_iolab_logs_as_fio_s() {
    let src = std::path::Path::new("/usr/share/doc/fio/fiologparser.py.gz");
    if !src.exists() || !have("python3") || !have("zcat") || !have_fio() {
        println!("skip: fiologparser.py (Debian fio docs), python3, zcat or fio missing");
        return;
    }
    let d = tempfile::tempdir_in(".").expect("tempdir");
    let script = Command::new("zcat").arg(src).output().expect("zcat");
    std::fs::write(d.path().join("fiologparser.py"), &script.stdout).expect("write script");
    let (f, i) = both_in(d.path(), LOG_JOB).expect("fio present");
    let run = |dir: &std::path::Path| {
        Command::new("python3")
            .arg(d.path().join("fiologparser.py"))
            .arg("x_bw.1.log")
            .current_dir(dir)
            .output()
            .expect("python3")
    };
    let (of, oi) = (run(&f), run(&i));
    // fiologparser.py predates fio 3's fifth log column (offset... block size): it fails on
    // fio 3.33's own log with the same error, and so must on iolab's.
    assert_eq!(of.status.code(), oi.status.code());
    let last = |o: &Output| String::from_utf8_lossy(&o.stderr).lines().last().map(str::to_string);
    assert_eq!(last(&of), last(&oi));
    assert_eq!(stdout(&of).lines().count(), stdout(&oi).lines().count());
}

/// Files under `d`, relative, sorted.
fn tree(d: &std::path::Path) -> Vec<String> {
    fn walk(base: &std::path::Path, d: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(r) = p.strip_prefix(base) {
                out.push(r.display().to_string());
            }
        }
    }
    let mut v = Vec::new();
    walk(d, d, &mut v);
    v.sort();
    v
}

#[test]
fn bench_fio_and_fio_plot_run_on_iolab_as_fio() {
    if !have("bench-fio") || !have("fio-plot") || !have_fio() {
        println!("skip: bench-fio/fio-plot (PyPI fio-plot) or fio not installed");
        return;
    }
    let d = tempfile::tempdir_in(".").expect("tempdir");
    std::fs::File::create(d.path().join("tgt")).and_then(|f| f.set_len(64 << 20)).expect("tgt");
    let (bin, iolab_path) = iolab_as_fio();
    // Four benchmarks: randread and read at iodepth 1 and 4, 1 s each, logs every 250 ms.
    let bench = |out: &str, path: &str| {
        let o = Command::new("bench-fio")
            .args(["-d", "./tgt", "-t", "file", "-s", "64M", "-o", out, "-b", "4k"])
            .args(["-m", "randread", "read", "--iodepth", "1", "4", "--numjobs", "1"])
            .args(["--runtime", "1", "--time-based", "--loginterval", "250"])
            .args(["-e", "libaio", "--direct", "0", "--quiet"])
            .current_dir(d.path())
            .env("PATH", path)
            .output()
            .expect("run bench-fio");
        assert!(o.status.success(), "bench-fio: {}", String::from_utf8_lossy(&o.stderr));
        d.path().join(out).join("tgt/4k")
    };
    let i = bench("iolab", &iolab_path);
    let f = bench("fio", &std::env::var("PATH").unwrap_or_default());
    drop(bin);
    // The same files as fio leaves: 4 JSON results and 5 logs per benchmark.
    let files = tree(&i);
    assert_eq!(files, tree(&f));
    assert_eq!(files.iter().filter(|n| n.ends_with(".json")).count(), 4, "{files:?}");
    assert_eq!(files.iter().filter(|n| n.ends_with(".log")).count(), 20, "{files:?}");
    for depth in [1, 4] {
        let j = std::fs::read(i.join(format!("randread-{depth}-1.json"))).expect("json");
        let v: serde_json::Value = serde_json::from_slice(&j).expect("bench-fio's JSON");
        assert_eq!(v["fio version"], "fio-3.33");
        assert_eq!(v["jobs"][0]["job options"]["iodepth"], depth.to_string());
        assert!(v["jobs"][0]["read"]["iops"].as_f64().is_some_and(|x| x > 0.0));
        let log = i.join(format!("randread-iodepth-{depth}-numjobs-1_bw.1.log"));
        let lines = std::fs::read_to_string(log).expect("bw log").lines().count();
        // A bw sample every 250 ms of 1 s: 4, one more for the closing partial window, one
        // fewer when a busy machine held the worker past a window's end (fio then writes one
        // sample for the longer window, stat.c `add_bw_samples`, as iolab does).
        assert!((2..=5).contains(&lines), "a bw sample every 250 ms of 1 s: {lines}");
    }
    // fio-plot draws each graph kind from iolab's results as from fio's.
    for (kind, extra) in [
        ("-g", &["-t", "iops", "lat", "-d", "1", "4", "-n", "1"][..]),
        ("-l", &[][..]),
        ("-L", &["-t", "bw", "iops", "-d", "1", "4", "-n", "1"][..]),
    ] {
        for dir in [&i, &f] {
            let png = dir.join(format!("plot{kind}.png"));
            let o = Command::new("fio-plot")
                .arg("-i")
                .arg(dir)
                .args(["-T", "iolab", kind, "-r", "randread"])
                .args(extra)
                .arg("-o")
                .arg(&png)
                .output()
                .expect("run fio-plot");
            assert!(o.status.success(), "fio-plot {kind}: {}", String::from_utf8_lossy(&o.stderr));
            let bytes = std::fs::read(&png).unwrap_or_default();
            assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000, "fio-plot {kind}");
        }
    }
}

/// A script from Debian's fio docs (`/usr/share/doc/fio/NAME.gz`) unpacked into `dir`.
fn doc_script(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    let src = std::path::Path::new("/usr/share/doc/fio").join(format!("{name}.gz"));
    if !src.exists() || !have("zcat") {
        return None;
    }
    let o = Command::new("zcat").arg(&src).output().ok()?;
    let p = dir.join(name);
    std::fs::write(&p, o.stdout).ok()?;
    Some(p)
}

/// The lines of a histogram log as (time, ddir, bs, number of bucket sums, samples).
fn hist_lines(p: &std::path::Path) -> Vec<(u64, u64, u64, usize, u64)> {
    let text = std::fs::read_to_string(p).expect("hist log");
    text.lines()
        .map(|l| {
            let f: Vec<u64> = l.split(", ").map(|x| x.parse().unwrap_or(u64::MAX)).collect();
            (f[0], f[1], f[2], f.len() - 3, f[3..].iter().sum())
        })
        .collect()
}

#[test]
fn hist_logs_have_fio_s_layout_and_fio_s_parsers_read_them() {
    let py_ok = Command::new("python3")
        .args(["-c", "import numpy, pandas"])
        .output()
        .is_ok_and(|o| o.status.success());
    let d = tempfile::tempdir_in(".").expect("tempdir");
    let parser = doc_script(d.path(), "fiologparser_hist.py");
    let pctiles = doc_script(d.path(), "fio-histo-log-pctiles.py");
    let (Some(parser), Some(pctiles), true, true) = (parser, pctiles, have_fio(), py_ok) else {
        println!("skip: fio, python3 with numpy/pandas, or fio's hist scripts missing");
        return;
    };
    // 2000 reads/s and 2000 writes/s for 2 s, a histogram every 500 ms, buckets summed by 4.
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=64m",
        "--bs=4k",
        "--rw=randrw",
        "--rate_iops=2000",
        "--time_based",
        "--runtime=2s",
        "--write_hist_log=x",
        "--log_hist_msec=500",
        "--log_hist_coarseness=2",
    ];
    let (f, i) = both_in(d.path(), &job).expect("fio present");
    let (hf, hi) =
        (hist_lines(&f.join("x_clat_hist.1.log")), hist_lines(&i.join("x_clat_hist.1.log")));
    // fio: three windows close per direction in 2 s (the last one is still open at the end).
    assert_eq!(hf.len(), 6, "{hf:?}");
    assert_eq!(hi.len(), hf.len());
    // Per direction in time order (the two directions' lines interleave by timing).
    let by_dir = |v: &[(u64, u64, u64, usize, u64)]| {
        let mut v = v.to_vec();
        v.sort_by_key(|x| (x.1, x.0));
        v
    };
    for (a, b) in by_dir(&hi).iter().zip(&by_dir(&hf)) {
        assert_eq!((a.1, a.2, a.3), (b.1, b.2, b.3), "ddir, bs, 1856/4 = 464 sums");
        assert!(a.0.abs_diff(b.0) < 150, "times {} vs fio {}", a.0, b.0);
        assert!((850..=1150).contains(&a.4), "~1000 completions per 500 ms window: {}", a.4);
    }
    let run = |script: &std::path::Path, dir: &std::path::Path, log: &str| {
        let o = Command::new("python3").arg(script).arg(log).current_dir(dir).output();
        let o = o.expect("python3");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stdout(&o)
    };
    let shape = |s: &str| s.lines().map(|l| l.split(',').count()).collect::<Vec<_>>();
    let (pf, pi) = (run(&parser, &f, "x_clat_hist.1.log"), run(&parser, &i, "x_clat_hist.1.log"));
    assert_eq!(pi.lines().next(), pf.lines().next(), "fiologparser_hist header");
    assert_eq!(shape(&pi), shape(&pf), "{pi}\n{pf}");
    // fio-histo-log-pctiles.py wants full resolution (coarseness 0).
    let job0: Vec<&str> = job.iter().copied().filter(|a| !a.starts_with("--log_hist_c")).collect();
    let (f0, i0) = both_in(&d.path().join("c0"), &job0).expect("fio present");
    let (qf, qi) =
        (run(&pctiles, &f0, "x_clat_hist.1.log"), run(&pctiles, &i0, "x_clat_hist.1.log"));
    assert_eq!(shape(&qi), shape(&qf), "{qi}\n{qf}");
    assert!(qi.contains("msec-since-start, samples, min, median"));
}

/// `log_store_compressed=1` with `log_prio`/`prioclass`/`log_offset`: iolab's `.fz` files
/// inflate with fio 3.33's `--inflate-log` to what iolab's own `--inflate-log` prints, and
/// fio's inflate with iolab's to what fio prints (fio iolog.c `iolog_file_inflate`).
#[test]
fn compressed_logs_inflate_both_ways_with_fio() {
    let d = tempfile::tempdir_in(".").expect("tempdir");
    let job = [
        "--name=j",
        "--ioengine=psync",
        "--filename=data",
        "--size=256k",
        "--bs=4k",
        "--rw=write",
        "--write_lat_log=x",
        "--log_store_compressed=1",
        "--log_offset=1",
        "--log_prio=1",
        "--prioclass=2",
        "--prio=4",
    ];
    let Some((f, i)) = both_in(d.path(), &job) else {
        println!("skip: fio is not installed; .fz logs not compared with fio's");
        return;
    };
    for (dir, who) in [(&f, "fio"), (&i, "iolab")] {
        let fz = dir.join("x_clat.1.log.fz");
        let bytes = std::fs::read(&fz).expect(".fz written");
        assert_eq!(&bytes[..2], b"\x78\x9c", "{who}: a zlib stream");
        let fz = fz.to_str().expect("utf-8 path");
        let by_fio = stdout(&fio(&["--inflate-log", fz]));
        let by_iolab = stdout(&iolab(&["fio", &format!("--inflate-log={fz}")]));
        assert_eq!(by_iolab, by_fio, "{who}'s .fz inflated by both");
        let lines: Vec<&str> = by_fio.lines().collect();
        assert_eq!(lines.len(), 64, "{who}: one clat line per 4k write");
        for (n, l) in lines.iter().enumerate() {
            let c: Vec<&str> = l.split(", ").collect();
            // time, clat, ddir 1, bs, offset, the ioprio value (class 2 << 13 | 4).
            assert_eq!(&c[2..], ["1", "4096", &(n * 4096).to_string(), "0x4004"], "{who}: {l}");
        }
        // No slat with a sync engine: an empty file, as fio leaves it.
        assert_eq!(std::fs::metadata(dir.join("x_slat.1.log.fz")).expect("slat").len(), 0);
    }
    // Something that is not a compressed log is named, not printed.
    let o = iolab(&["fio", "--inflate-log=/proc/self/status"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("/proc/self/status") && e.contains("not a zlib stream"), "{e}");
}
