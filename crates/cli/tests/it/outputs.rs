//! The one output writer and safe inputs end to end (reliability review 2026-11 items 4–6,
//! "Hangs"): outputs to a private character device node and through a symlink to a FIFO are
//! written through and never replaced; concurrent `data gen` to one path never mixes; an
//! output that is the input is refused before anything is touched; FIFOs, character devices
//! and directories as inputs give one line within a second.
#![allow(clippy::unwrap_used)]

use iolab_test_support::or_skip;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn iolab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
}

fn cstr(p: &Path) -> std::ffi::CString {
    std::ffi::CString::new(p.to_str().unwrap()).unwrap()
}

/// A private character device node (`mknod p c major minor`); None without the privilege.
fn mknod_char(p: &Path, major: u32, minor: u32) -> Option<()> {
    or_skip(iolab_test_support::mknod_char(p, major, minor).map_err(|e| format!("mknod: {e}")))
}

fn mkfifo(p: &Path) {
    let c = cstr(p);
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn is_char(p: &Path) -> bool {
    std::fs::symlink_metadata(p).unwrap().file_type().is_char_device()
}

fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const JOB: &[&str] =
    &["run", "--name=w", "--rw=randread", "--bs=4k", "--size=1m", "--ioengine=psync"];

/// A two-record cloudphysics trace.
fn trace(d: &Path, name: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, "version,time,op,size,lbn\n1,0,28,4096,8\n1,10,2a,4096,16\n").unwrap();
    p
}

#[test]
fn outputs_to_a_char_device_node_are_written_through_and_the_node_stays() {
    let d = tempfile::tempdir_in(".").unwrap();
    let node = d.path().join("n");
    if mknod_char(&node, 1, 3).is_none() {
        return;
    }
    let o = iolab()
        .args(JOB)
        .arg(format!("--directory={}", d.path().display()))
        .args(["--output-format=json", "--output"])
        .arg(&node)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char(&node), "run --output replaced the device node");
    let o = iolab()
        .args(JOB)
        .arg(format!("--directory={}", d.path().display()))
        .arg(format!("--write-iolog={}", node.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char(&node), "--write-iolog replaced the device node");
    let o = iolab().args(["data", "gen", "--size", "1m", "-o"]).arg(&node).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char(&node), "data gen -o replaced the device node");
    let t = trace(d.path(), "t.csv");
    let o = iolab().args(["trace", "convert", "--to", "csv"]).arg(&t).arg(&node).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char(&node), "trace convert replaced the device node");
    let o = iolab()
        .arg("replay")
        .arg(&t)
        .arg("--filename")
        .arg(d.path().join("target"))
        .args(["--ioengine=psync", "--direct=0", "--output-format=json", "--output"])
        .arg(&node)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char(&node), "replay --output replaced the device node");
    let left: Vec<String> = names(d.path()).into_iter().filter(|n| n.contains("tmp")).collect();
    assert!(left.is_empty(), "temporaries left: {left:?}");
}

/// Runs `cmd` with its output given as a symlink to a FIFO that a thread drains; returns
/// what came through.
fn through_fifo(d: &Path, mut cmd: Command, out_arg: impl Fn(&Path) -> Vec<String>) -> Vec<u8> {
    let fifo = d.join("fifo");
    let _ = std::fs::remove_file(&fifo);
    mkfifo(&fifo);
    let link = d.join("out.link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("fifo", &link).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = cmd.args(out_arg(&link)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let got = reader.join().unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    got
}

#[test]
fn outputs_through_a_symlink_to_a_fifo_arrive_and_the_link_stays() {
    let d = tempfile::tempdir_in(".").unwrap();
    let mut run = iolab();
    run.args(JOB).arg(format!("--directory={}", d.path().display()));
    let got = through_fifo(d.path(), run, |l| {
        vec!["--output-format=json".into(), format!("--output={}", l.display())]
    });
    let v: serde_json::Value = serde_json::from_slice(&got).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
    let mut gen = iolab();
    gen.args(["data", "gen", "--size", "1m", "--seed", "7", "-o"]);
    let got = through_fifo(d.path(), gen, |l| vec![l.display().to_string()]);
    assert_eq!(got.len(), 1 << 20);
    let t = trace(d.path(), "t.csv");
    let mut conv = iolab();
    conv.args(["trace", "convert", "--to", "csv"]).arg(&t);
    let got = through_fifo(d.path(), conv, |l| vec![l.display().to_string()]);
    assert_eq!(String::from_utf8(got).unwrap().lines().count(), 3, "header and two records");
}

#[test]
fn concurrent_data_gen_to_one_path_leaves_one_whole_output() {
    let d = tempfile::tempdir_in(".").unwrap();
    let gen = |seed: &str, out: &Path| {
        iolab().args(["data", "gen", "--size", "24m", "--seed", seed, "-o"]).arg(out).spawn()
    };
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    for (s, p) in [("1", &a), ("2", &b)] {
        assert!(gen(s, p).unwrap().wait().unwrap().success());
    }
    let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert_ne!(a, b);
    let same = d.path().join("same");
    for _ in 0..3 {
        let (mut x, mut y) = (gen("1", &same).unwrap(), gen("2", &same).unwrap());
        assert!(x.wait().unwrap().success() && y.wait().unwrap().success());
        let got = std::fs::read(&same).unwrap();
        assert!(got == a || got == b, "the output mixes the two seeds");
    }
    assert_eq!(names(d.path()), ["a", "b", "same"], "no temporary left");
}

#[test]
fn trace_convert_onto_its_input_is_refused_and_the_input_kept() {
    let d = tempfile::tempdir_in(".").unwrap();
    let t = trace(d.path(), "in.csv");
    let before = std::fs::read(&t).unwrap();
    let o = iolab().args(["trace", "convert", "--to", "oracle"]).arg(&t).arg(&t).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("in.csv: is the input"), "{e}");
    assert_eq!(std::fs::read(&t).unwrap(), before);
    // A hard link to the input is the same file too.
    let h = d.path().join("h.csv");
    std::fs::hard_link(&t, &h).unwrap();
    let o = iolab().args(["trace", "convert", "--to", "oracle"]).arg(&t).arg(&h).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(&t).unwrap(), before);
    // The old fixed temporary name `OUT.iolab-tmp` was the input here, and was deleted.
    let tmpish = d.path().join("t.iolab-tmp");
    std::fs::copy(&t, &tmpish).unwrap();
    let out = d.path().join("t.bin");
    let o = iolab()
        .args(["trace", "convert", "--format", "cloudphysics", "--to", "oracle", "--lossy"])
        .arg(&tmpish)
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The trace holds a read and a write; oracleGeneral keeps no operation, and says so.
    let lost = "lost (--lossy): the operation of 1 of 2 records (1 write): oracleGeneral has no \
                operation field";
    assert!(stderr(&o).contains(lost), "{}", stderr(&o));
    assert_eq!(std::fs::read(&tmpish).unwrap(), before);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 2 * 24, "two oracleGeneral records");
}

#[test]
fn bad_output_paths_fail_before_the_run() {
    let d = tempfile::tempdir_in(".").unwrap();
    let long = ["--runtime=20", "--time_based"];
    for (out, want) in [
        (d.path().display().to_string(), "is a directory"),
        (String::new(), "requires an argument"),
        (d.path().join("no/such/x.json").display().to_string(), "No such file or directory"),
    ] {
        let t0 = Instant::now();
        let o = iolab()
            .args(JOB)
            .args(long)
            .arg(format!("--directory={}", d.path().display()))
            .arg(format!("--output={out}"))
            .output()
            .unwrap();
        // The run would take 20 s; failing first takes a process start (room for load).
        assert!(t0.elapsed() < Duration::from_secs(10), "the run went ahead for {out}");
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(e.contains(want) && e.lines().count() == 1, "{out}: {e}");
    }
    assert_eq!(names(d.path()), Vec::<String>::new(), "nothing created");
    // The job's own target, not yet laid out, is refused by name before any I/O.
    let o = iolab()
        .current_dir(d.path())
        .args(["run", "--name=x", "--rw=read", "--size=1m", "--filename=f", "--output=./f"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("output ./f: is the input f"), "{}", stderr(&o));
    assert_eq!(names(d.path()), Vec::<String>::new(), "nothing laid out");
}

/// A FIFO, a private zero device and a directory as each kind of input.
#[test]
fn fifos_devices_and_directories_as_inputs_are_one_line_errors_without_a_hang() {
    let d = tempfile::tempdir_in(".").unwrap();
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    let zero = d.path().join("zero");
    let mut bad = vec![(fifo.clone(), "is a FIFO"), (d.path().to_path_buf(), "is a directory")];
    if mknod_char(&zero, 1, 5).is_some() {
        bad.push((zero.clone(), "is a character device"));
    }
    let out = d.path().join("o").display().to_string();
    for (p, want) in &bad {
        let ps = p.display().to_string();
        let cases: Vec<Vec<String>> = vec![
            vec!["parse".into(), ps.clone()],
            vec!["run".into(), ps.clone()],
            vec!["trace".into(), "stat".into(), ps.clone()],
            vec!["mrc".into(), ps.clone()],
            vec!["data".into(), "measure".into(), ps.clone()],
            vec![
                "data".into(),
                "gen".into(),
                "--size=1m".into(),
                format!("--pattern='{ps}'"),
                "-o".into(),
                out.clone(),
            ],
            vec!["sim".into(), format!("--hierarchy={ps}"), "--name=x".into(), "--size=1m".into()],
        ];
        for args in cases {
            let t0 = Instant::now();
            let o = iolab().args(&args).output().unwrap();
            // A hang (a FIFO with no writer, a zero device read without end) never ends; a
            // refusal is one process start, which a loaded machine can stretch past a second.
            assert!(t0.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", t0.elapsed());
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let e = stderr(&o);
            assert!(e.lines().count() == 1 && e.contains(want), "{args:?}: {e}");
        }
    }
    assert!(!Path::new(&out).exists());
}

#[test]
fn empty_measure_input_and_bom_job_file() {
    let d = tempfile::tempdir_in(".").unwrap();
    let empty = d.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    let o = iolab().args(["data", "measure"]).arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to measure: the input is empty"), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "no verdict on 0 bytes");
    let job = d.path().join("bom.fio");
    std::fs::write(&job, "\u{feff}[global]\nbs=8k\n[j]\nrw=randread\nsize=1m\n").unwrap();
    let o = iolab().arg("parse").arg(&job).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\"j\"") && text.contains("8192"), "{text}");
}

/// Issue 17 part 4: the live line shows a progress bar when the job has a known end, and
/// `fill` shows entry counts beside the filled fractions.
#[test]
fn live_line_has_a_progress_bar_and_fill_counts_entries() {
    let d = tempfile::tempdir_in(".").unwrap();
    let o = iolab()
        .args(["run", "--name=a", "--ioengine=null", "--rw=randread", "--size=64m"])
        .args(["--time_based", "--runtime=2", "--status-interval=0.5", "--output-format=json"])
        .arg(format!("--output={}", d.path().join("o.json").display()))
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let bars: Vec<u32> = err
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("iolab: a [")?;
            let (cells, rest) = rest.split_once("] ")?;
            assert_eq!(cells.len(), 20, "{l}");
            rest.split_once('%')?.0.trim().parse().ok()
        })
        .collect();
    assert!(bars.len() >= 2, "{err}");
    assert!(bars.windows(2).all(|w| w[0] <= w[1]) && bars.iter().all(|&p| p <= 100), "{bars:?}");
    // 1000 entries, one pass of uniform reads: 1 - (1 - 1/1000)^1000 = 63.230 % = 632 entries.
    let o = iolab().args(["fill", "--entries", "1000"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("entries filled"), "{out}");
    let row: Vec<&str> = out.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(row[..5], ["1", "1000", "-", "63.230%", "632"], "{out}");
}

/// `mrc`, `fill` and `trace stat` take `--output-format` as `run` and `sim` do: the same bytes
/// as the shorthand flags, a format the result lacks refused in one line naming the known
/// ones, and a shorthand beside it refused by clap.
#[test]
fn output_format_on_mrc_fill_and_trace_stat_equals_the_shorthands() {
    let t = "../../../shared/traces/cloudPhysicsIO.csv";
    let t = Path::new(env!("CARGO_MANIFEST_DIR")).join(t);
    let t = t.to_str().unwrap();
    let run = |args: &[&str]| iolab().args(args).output().unwrap();
    for (a, b) in [
        (vec!["mrc", t, "--points", "5", "--csv"], "--output-format=csv"),
        (vec!["mrc", t, "--points", "5", "--json"], "--output-format=json"),
        (vec!["trace", "stat", t, "--json"], "--output-format=json"),
        (vec!["fill", "--entries", "10k", "--json"], "--output-format=json"),
        (vec!["fill", "--entries", "10k", "--html"], "--output-format=html"),
    ] {
        let short = run(&a);
        let mut long = a[..a.len() - 1].to_vec();
        long.push(b);
        let long = run(&long);
        assert!(short.status.success(), "{a:?}: {}", stderr(&short));
        assert!(short.stdout.len() > 100, "{a:?}");
        if b.ends_with("html") {
            // The page embeds nothing run-specific but its sizes; both are whole pages.
            assert!(long.stdout.starts_with(b"<!DOCTYPE html>"), "{b}");
        } else {
            assert_eq!(short.stdout, long.stdout, "{a:?} vs {b}");
        }
    }
    let bad = run(&["fill", "--entries", "10k", "--output-format=csv"]);
    assert_eq!(bad.status.code(), Some(1));
    let e = stderr(&bad);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("'csv'") && e.contains("normal, json, html"), "{e}");
    let both = run(&["trace", "stat", t, "--json", "--output-format=html"]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

/// The reliability review: `calibrate mnt/n.dat --size=1p` on a small filesystem laid the file
/// out until ENOSPC before failing. A layout that cannot fit is refused before the first
/// write, naming the bytes needed and free, for `run` (a new file, a read job laid out first)
/// and `calibrate` (a new file): a 16 MiB tmpfs of our own stays empty.
#[test]
fn a_layout_larger_than_the_free_space_is_refused_before_writing() {
    use iolab_test_support::Mount;
    let d = tempfile::tempdir_in(".").unwrap();
    let mnt = d.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_m) =
        or_skip(Mount::new(Path::new("tmpfs"), &mnt, &["-t", "tmpfs", "-o", "size=16m"]))
    else {
        return;
    };
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_iolab")).args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let file = format!("--filename={}", mnt.join("r.dat").display());
    let err = run(&["run", "--name=x", &file, "--size=64m", "--rw=read"]);
    assert!(err.contains("needs 67108864 more bytes") && err.contains("16777216 free"), "{err}");
    let new = mnt.join("n.dat").display().to_string();
    let err = run(&["calibrate", &new, "--size=1p", "--budget=5s"]);
    assert!(err.contains("a new 1125899906842624-byte file needs that much free space"), "{err}");
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "nothing was left on the tmpfs");
}

/// Review 2026-11-28 §10: a result that cannot be written at the end (ENOSPC on the output's
/// filesystem, or stdout redirected into it) is not lost: exit 1, one line naming the output
/// and the errno and where the result went (a new file in `$TMPDIR`), which holds it whole;
/// nothing is left on the full filesystem.
#[test]
fn a_result_that_cannot_be_written_is_saved_elsewhere() {
    use iolab_test_support::Mount;
    use std::io::Write;
    let d = tempfile::tempdir_in(".").unwrap();
    let (mnt, rescue) = (d.path().join("mnt"), d.path().join("rescue"));
    std::fs::create_dir(&mnt).unwrap();
    std::fs::create_dir(&rescue).unwrap();
    let Some(_m) =
        or_skip(Mount::new(Path::new("tmpfs"), &mnt, &["-t", "tmpfs", "-o", "size=64k"]))
    else {
        return;
    };
    // Filled to the brim.
    let mut fill = std::fs::File::create(mnt.join("fill")).unwrap();
    while fill.write_all(&[0x5a; 4096]).is_ok() {}
    drop(fill);
    let run = |args: &[String], stdout: Option<std::fs::File>| {
        let mut c = iolab();
        c.args(args).env("TMPDIR", &rescue);
        if let Some(f) = stdout {
            c.stdout(f);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let line = stderr(&o).lines().last().unwrap_or_default().to_string();
        assert!(line.contains("No space left on device (os error 28)"), "{line}");
        let saved = line.split("saved to ").nth(1).and_then(|s| s.strip_suffix(" instead"));
        let saved = PathBuf::from(saved.unwrap_or_else(|| panic!("not saved: {line}")));
        assert_eq!(saved.parent(), Some(rescue.as_path()), "{line}");
        (line, std::fs::read(&saved).unwrap())
    };
    let out = mnt.join("r.json").display().to_string();
    let job = ["run", "--name=x", "--ioengine=null", "--size=1m", "--output-format=json"];
    let with = |extra: &[String]| -> Vec<String> {
        job.iter().map(|s| s.to_string()).chain(extra.iter().cloned()).collect()
    };
    let (line, bytes) = run(&with(&[format!("--output={out}")]), None);
    assert!(line.contains(&out), "{line}");
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(doc["jobs"][0]["jobname"], "x");
    assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 1 << 20);
    // stdout redirected into the full filesystem.
    let f = std::fs::File::create(mnt.join("stdout.json")).unwrap();
    let (line, bytes) = run(&with(&[]), Some(f));
    assert!(line.contains("writing stdout"), "{line}");
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 256);
    // A report page: the HTML is kept too.
    let r = rescue.join("r.json").display().to_string();
    assert!(iolab().args(with(&[format!("--output={r}")])).status().unwrap().success());
    let page = mnt.join("p.html").display().to_string();
    let report = ["report", &r, "-o", &page].map(String::from);
    let (_, bytes) = run(&report, None);
    assert!(bytes.starts_with(b"<!DOCTYPE html>"));
    let left = names(&mnt);
    assert_eq!(left, ["fill", "stdout.json"], "temporaries left on the full filesystem");
}
