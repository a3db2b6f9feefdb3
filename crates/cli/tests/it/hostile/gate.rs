//! The gate's hostile families (issue 28; the reliability review of 2026-11-28 §1–4): outputs
//! into block devices, aliases of device names (`..`, dangling links, `/proc/self/root`),
//! file operations on device nodes, `rw=trim` on files, planted scratch names, and inputs
//! (includes, pattern files, profiles) named as outputs. Each family has variants beyond the
//! review's lines. Device probes need root and loop devices and skip otherwise; the mounted
//! ext4 test also needs mkfs.ext4 and fsck.ext4.
#![allow(clippy::unwrap_used)]

use super::runner::{self, After, Oracle, Prep, Probe, Verdict};
use iolab_test_support::{have, is_root, sink, LoopDev, Mount};
use std::path::{Path, PathBuf};
use std::process::Command;

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

/// Exit 0, or a clean error (a budget too short on a loaded machine): the checks after the
/// run are the test.
fn any() -> Oracle {
    Oracle::OkOrErr(Vec::new())
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

const MAIN_FIO: &str = "[global]\ninclude inc.fio\n[x]\nioengine=null\nsize=64k\nfilename=data\n";
const INC_FIO: &str = "bs=4k\ninclude inc2.fio\n";
const INC2_FIO: &str = "; nested include\n";

fn job_files(p: Probe) -> Probe {
    p.prep(Prep::File("main.fio", MAIN_FIO.into()))
        .prep(Prep::File("inc.fio", INC_FIO.into()))
        .prep(Prep::File("inc2.fio", INC2_FIO.into()))
        .after(After::Unchanged("inc.fio"))
        .after(After::Unchanged("inc2.fio"))
}

/// Inputs read on the way (includes, nested includes, pattern files, profiles) named as
/// outputs, directly and through aliases.
fn inputs_as_outputs() -> Vec<Probe> {
    let run = |name: &str, out: &str| {
        let args = ["run", "{W}/main.fio", out];
        job_files(Probe::new("gate-in", name, &args, err(&["input"])))
    };
    let mut v = vec![
        run("run --output=include", "--output={W}/inc.fio"),
        run("run --output=nested include", "--output={W}/inc2.fio"),
        run("run --write-iolog=include", "--write-iolog={W}/inc.fio"),
        run("run --output=include via ..", "--output={W}/sub/../inc.fio").prep(Prep::Dir("sub")),
        run("run --output=symlink to include", "--output={W}/alias")
            .prep(Prep::Symlink("alias", "inc2.fio")),
    ];
    let gen = |name: &str, out: &str| {
        let args = ["data", "gen", "--size", "64k", "--pattern", "'pat.txt'", "-o", out];
        Probe::new("gate-in", name, &args, err(&["input"]))
            .prep(Prep::File("pat.txt", b"abcdefgh".to_vec()))
            .after(After::Unchanged("pat.txt"))
    };
    v.push(gen("data gen -o pattern file", "pat.txt"));
    v.push(gen("data gen -o ./pattern file", "./pat.txt"));
    v.push(gen("data gen -o symlink to pattern", "lnk").prep(Prep::Symlink("lnk", "pat.txt")));
    let predict = [
        "run",
        "--predict={W}/pp.toml",
        "--name=x",
        "--ioengine=null",
        "--size=64k",
        "--filename={W}/d",
        "--output={W}/pp.toml",
    ];
    v.push(
        Probe::new("gate-in", "run --output=--predict profile", &predict, err(&["input"]))
            .prep(Prep::Copy(PathBuf::from("{F}/pp.toml"), "pp.toml"))
            .after(After::Unchanged("pp.toml")),
    );
    v
}

/// Missing names under /dev, however spelled: targets and outputs.
fn device_aliases() -> Vec<Probe> {
    let up = "/..".repeat(24);
    let mut v = Vec::new();
    let target = |name: &str, file: String, absent: &'static str, rw: &str| {
        let f = format!("--filename={file}");
        let rw = format!("--rw={rw}");
        let args = ["run", "--name=x", "--ioengine=psync", "--size=1m", rw.as_str(), f.as_str()];
        Probe::new("gate-dev", name, &args, err(&["no such device"])).after(After::Absent(absent))
    };
    let deep = format!("{{W}}{up}/dev/iolab-gate-97");
    v.push(target("write ../../dev/name", deep, "/dev/iolab-gate-97", "write"));
    let deep = format!("{{W}}{up}/dev/iolab-gate-93");
    v.push(target("read ../../dev/name", deep, "/dev/iolab-gate-93", "read"));
    v.push(
        target("dangling link to /dev", "{W}/dangl".into(), "/dev/iolab-gate-98", "write")
            .prep(Prep::Symlink("dangl", "/dev/iolab-gate-98")),
    );
    let proc_root = "/proc/self/root/dev/iolab-gate-99".to_string();
    v.push(target("/proc/self/root/dev/name", proc_root, "/dev/iolab-gate-99", "randwrite"));
    let out = |name: &str, args: &[&str], absent: &'static str| {
        Probe::new("gate-dev", name, args, err(&["no such device"])).after(After::Absent(absent))
    };
    let run_out = ["run", "--name=x", "--ioengine=null", "--size=64k", "--filename={W}/d"];
    let with = |extra: &str| -> Vec<&str> {
        let mut a = run_out.to_vec();
        a.push(leak(extra.to_string()));
        a
    };
    v.push(out(
        "run --output=/dev/name",
        &with("--output=/dev/iolab-gate-96"),
        "/dev/iolab-gate-96",
    ));
    v.push(out(
        "run --write-iolog=/dev/./name",
        &with("--write-iolog=/dev/./iolab-gate-94"),
        "/dev/iolab-gate-94",
    ));
    v.push(
        out(
            "data gen -o dangling link to /dev",
            &["data", "gen", "--size", "64k", "-o", "lnk"],
            "/dev/iolab-gate-95",
        )
        .prep(Prep::Symlink("lnk", "/dev/iolab-gate-95")),
    );
    v
}

/// File operations on nodes that are not files, and trims of regular files (fio 3.33: "only
/// files are supported"; err=25 with the file untouched).
fn destructive_ops() -> Vec<Probe> {
    let op = |name: &str, engine: &str, file: &str, needle: &str| {
        let e = format!("--ioengine={engine}");
        let f = format!("--filename={file}");
        let args = ["run", "--name=x", "--size=1m", "--rw=read", e.as_str(), f.as_str()];
        // Refused before the operation: by the target's opening (not a file or device) or,
        // for a block device, by the engine ("only files are supported").
        Probe::new("gate-ops", name, &args, err(&[needle]))
    };
    let mut v = vec![
        op("filedelete on a char device node", "filedelete", "{W}/node", "expected a regular file")
            .prep(Prep::CharDev("node", 1, 3))
            .after(After::StillCharDev("node")),
        op(
            "filedelete through a link to a node",
            "filedelete",
            "{W}/lnk",
            "expected a regular file",
        )
        .prep(Prep::CharDev("node", 1, 3))
        .prep(Prep::Symlink("lnk", "node"))
        .after(After::StillCharDev("node")),
        op("filedelete on a FIFO", "filedelete", "{W}/fifo", "expected a regular file")
            .prep(Prep::Fifo("fifo"))
            .after(After::StillFifo("fifo")),
        op(
            "filecreate on a char device node",
            "filecreate",
            "{W}/node",
            "only files are supported",
        )
        .prep(Prep::CharDev("node", 1, 3))
        .after(After::StillCharDev("node")),
        op("filestat on a FIFO", "filestat", "{W}/fifo", "expected a regular file")
            .prep(Prep::Fifo("fifo")),
    ];
    for rw in ["trim", "randtrim"] {
        let r = format!("--rw={rw}");
        let args =
            ["run", "--name=x", "--filename={W}/f1.img", r.as_str(), "--size=1m", "--offset=1m"];
        v.push(
            Probe::new("gate-ops", format!("rw={rw} on a regular file"), &args, err(&["25"]))
                .prep(Prep::File("f1.img", vec![0x5a; 3 << 20]))
                .after(After::Unchanged("f1.img")),
        );
    }
    v
}

/// Planted scratch names: links to a victim and stale files of dead processes.
fn temp_files() -> Vec<Probe> {
    let victim = || Prep::File("victim.dat", vec![0x77; 1 << 20]);
    let quick = ["run", "--size=4m", "--phase-time=0.1", "--directory={W}"];
    let cal = ["calibrate", "{W}", "--budget=5s", "--size=8m"];
    let cal_new = ["calibrate", "{W}/c.dat", "--budget=5s", "--size=8m"];
    vec![
        Probe::new(
            "gate-tmp",
            "quick profile, planted links and stale scratch",
            &quick,
            Oracle::Ok,
        )
        .prep(victim())
        .prep(Prep::Symlink(".iolab-quick-4194001.dat", "victim.dat"))
        .prep(Prep::Symlink(".iolab-quick-4194002.0123", "victim.dat"))
        .prep(Prep::File(".iolab-quick-4194003.dat", vec![1; 4096]))
        .after(After::Unchanged("victim.dat"))
        .after(After::NoLeftovers(vec![]))
        .limit(30.0),
        Probe::new("gate-tmp", "calibrate DIR, planted iolab-calibrate.dat link", &cal, any())
            .prep(victim())
            .prep(Prep::Symlink("iolab-calibrate.dat", "victim.dat"))
            .prep(Prep::Symlink("iolab-calibrate-4194004.0123", "victim.dat"))
            .after(After::Unchanged("victim.dat"))
            .after(After::NoLeftovers(vec![]))
            .limit(30.0),
        Probe::new("gate-tmp", "calibrate NEW after a killed run's scratch", &cal_new, any())
            .prep(Prep::Dir(".iolab-calibrate-4194005.0123"))
            .after(After::NoLeftovers(vec![]))
            .limit(30.0),
    ]
}

/// The output flag of every command, with `OUT` for the path (`{W}`/`{F}` as in the runner).
fn output_commands() -> Vec<(&'static str, Vec<&'static str>)> {
    let run = |extra: &'static str| {
        vec!["run", "--name=x", "--ioengine=null", "--size=64k", "--filename={W}/d", extra]
    };
    vec![
        ("run --output", run("--output=OUT")),
        ("run --write-iolog", run("--write-iolog=OUT")),
        ("run write_iolog=", run("--write_iolog=OUT")),
        ("run --output-format=json --output", {
            let mut a = run("--output=OUT");
            a.push("--output-format=json");
            a
        }),
        ("data gen -o", vec!["data", "gen", "--size", "64k", "-o", "OUT"]),
        ("trace convert", vec!["trace", "convert", "--to", "csv", "{F}/t.csv", "OUT"]),
        ("report -o", vec!["report", "{F}/r.json", "-o", "OUT"]),
        ("compare --output", vec!["compare", "{F}/r.json", "{F}/r.json", "--output=OUT"]),
        ("calibrate -o", vec!["calibrate", "--from-preset=nvme", "-o", "OUT"]),
        (
            "replay --output",
            vec!["replay", "{F}/t.csv", "--filename", "{W}/t", "--limit", "20", "--output", "OUT"],
        ),
    ]
}

fn substitute(args: &[&'static str], out: &str) -> Vec<&'static str> {
    args.iter().map(|a| if a.contains("OUT") { leak(a.replace("OUT", out)) } else { *a }).collect()
}

/// Fixtures beyond the harness's trace: a result and a device profile.
pub(super) fn more_fixtures(fix: &Path) -> bool {
    let bin = env!("CARGO_BIN_EXE_iolab");
    let r = fix.join("r.json").display().to_string();
    let pp = fix.join("pp.toml").display().to_string();
    let d = fix.join("d").display().to_string();
    let runs = [
        vec!["run", "--name=x", "--ioengine=null", "--size=64k", "--output-format=json"],
        vec!["calibrate", "--from-preset=nvme", "-o", pp.as_str()],
    ];
    let a = Command::new(bin)
        .args(&runs[0])
        .arg(format!("--filename={d}"))
        .arg(format!("--output={r}"))
        .status();
    let b = Command::new(bin).args(&runs[1]).status();
    matches!((a, b), (Ok(x), Ok(y)) if x.success() && y.success())
}

/// Every output flag pointed at a blank loop device, at a node of our own for it and at a
/// link to it: refused, the device's bytes unchanged.
fn outputs_into_devices(fix: &Path, loops: &mut Vec<LoopDev>) -> Vec<Probe> {
    if !is_root() {
        println!("skip: device output probes need root");
        return Vec::new();
    }
    let backing = fix.join("blank.img");
    std::fs::write(&backing, vec![0u8; 8 << 20]).unwrap();
    let Ok(mut lp) = LoopDev::over(&backing, false) else {
        println!("skip: losetup failed; no device output probes");
        return Vec::new();
    };
    let Ok(node) = lp.make_node(fix) else { return Vec::new() };
    let dev = lp.device().display().to_string();
    let snapshot = std::fs::read(&backing).unwrap();
    let mut v = Vec::new();
    for (cname, args) in output_commands() {
        for (how, out) in [
            ("device", dev.clone()),
            ("own node", node.display().to_string()),
            ("link", "{W}/lnk".into()),
        ] {
            let a = substitute(&args, &out);
            let p = Probe::new("gate-blk", format!("{cname} -> {how}"), &a, err(&["block device"]))
                .prep(Prep::File("before.img", snapshot.clone()))
                .prep(Prep::Symlink("lnk", leak(dev.clone())))
                .after(After::SameAs("before.img", backing.clone()));
            v.push(p);
        }
    }
    let f = format!("--filename={dev}");
    let del = ["run", "--name=x", "--size=1m", "--rw=read", "--ioengine=filedelete", f.as_str()];
    v.push(Probe::new(
        "gate-blk",
        "filedelete on a loop device",
        &del,
        err(&["only files are supported"]),
    ));
    loops.push(lp);
    v
}

fn print(verdicts: &[Verdict]) -> Vec<String> {
    for v in verdicts {
        println!("{:<9} {:<60} {:>6.2}  {}", v.family, v.name.escape_debug(), v.secs, v.verdict);
    }
    verdicts.iter().filter(|v| !v.passed()).map(|v| format!("{}: {}", v.name, v.verdict)).collect()
}

#[test]
fn gate_families() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fix = tmp.path().join("fixtures");
    std::fs::create_dir_all(&fix).unwrap();
    if !super::fixtures(&fix) || !more_fixtures(&fix) {
        println!("skip: fixtures (../shared trace, a result, a profile) could not be made");
        return;
    }
    let mut probes = inputs_as_outputs();
    probes.extend(device_aliases());
    probes.extend(destructive_ops());
    probes.extend(temp_files());
    let mut loops = Vec::new();
    probes.extend(outputs_into_devices(&fix, &mut loops));
    let verdicts = runner::run_all(&probes, 2, &tmp.path().join("scratch"), &fix);
    for l in &loops {
        assert!(l.device().exists(), "{} was unlinked", l.device().display());
    }
    drop(loops);
    let failed = print(&verdicts);
    assert!(failed.is_empty(), "{} probes failed:\n{}", failed.len(), failed.join("\n"));
}

/// Runs the binary in `dir`; true when it exited 0.
fn iolab_ok(dir: &Path, args: &[&str]) -> bool {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .current_dir(dir)
        .stdin(iolab_test_support::empty_stdin().unwrap())
        .stdout(sink().unwrap())
        .output()
        .unwrap();
    if o.status.success() {
        println!("NOT REFUSED: {}", args.join(" "));
    }
    o.status.success()
}

/// Review §1/§2 in one: a mounted ext4 on a loop device, a second loop device over the same
/// image and a third over a region of it (`losetup -o`), and the image file itself; every
/// output flag of every command and every write as a job target is pointed at each; after
/// the unmount, `fsck.ext4 -fn` finds the filesystem clean.
#[test]
fn mounted_ext4_survives_every_output_flag_and_alias() {
    if !is_root() || !have("mkfs.ext4") || !have("fsck.ext4") {
        println!("skip: needs root, mkfs.ext4 and fsck.ext4");
        return;
    }
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fix = tmp.path();
    if !super::fixtures(fix) || !more_fixtures(fix) {
        println!("skip: fixtures could not be made");
        return;
    }
    let img = fix.join("fs.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    let Ok(lo1) = LoopDev::over(&img, false) else { return println!("skip: losetup") };
    let mkfs = Command::new("mkfs.ext4").args(["-q", "-F"]).arg(lo1.device()).status().unwrap();
    assert!(mkfs.success());
    let mnt = fix.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Ok(mount) = Mount::new(lo1.device(), &mnt, &[]) else { return println!("skip: mount") };
    std::fs::write(mnt.join("keep.txt"), b"kept").unwrap();
    let lo2 = LoopDev::over(&img, false).unwrap();
    let lo3 = LoopDev::attach(&img, &["-o", "1048576"]).unwrap();
    let w = fix.join("w");
    std::fs::create_dir(&w).unwrap();
    let targets = [lo1.device(), lo2.device(), lo3.device(), img.as_path()];
    let rows: Vec<PathRow> = path_rows().into_iter().filter(|r| r.intent == "output").collect();
    assert!(rows.len() >= 10, "only {} output rows", rows.len());
    let mut accepted = 0;
    for t in targets {
        let t = t.display().to_string();
        for r in &rows {
            let Some(a) = invocation(r, &t) else { continue };
            let a = fill(&a, &w, fix);
            let ok = iolab_ok(&w, &a.iter().map(String::as_str).collect::<Vec<_>>());
            // A log prefix on the image file names new files beside it, not the image.
            let beside = r.what.contains("prefix") && !t.starts_with("/dev/");
            accepted += usize::from(ok && !beside);
        }
        for (_, args) in output_commands() {
            let a: Vec<String> = substitute(&args, &t)
                .iter()
                .map(|a| {
                    a.replace("{W}", &w.display().to_string())
                        .replace("{F}", &fix.display().to_string())
                })
                .collect();
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            accepted += usize::from(iolab_ok(&w, &a));
        }
        let f = format!("--filename={t}");
        for extra in [&[][..], &["--allow-destroy"][..], &["--rw=trim", "--allow-destroy"][..]] {
            let mut a =
                vec!["run", "--name=x", "--rw=write", "--size=1m", "--direct=1", f.as_str()];
            a.extend_from_slice(extra);
            accepted += usize::from(iolab_ok(&w, &a));
        }
    }
    assert_eq!(std::fs::read(mnt.join("keep.txt")).unwrap(), b"kept");
    drop((lo2, lo3));
    let um = Command::new("umount").arg(&mnt).status().unwrap();
    assert!(um.success());
    std::mem::forget(mount);
    let fsck = Command::new("fsck.ext4").arg("-fn").arg(lo1.device()).output().unwrap();
    println!("{}", String::from_utf8_lossy(&fsck.stdout));
    assert_eq!(accepted, 0, "some writes into the mounted filesystem were accepted");
    assert_eq!(fsck.status.code(), Some(0), "fsck -fn found errors");
}

/// A row of `docs/paths.md`: command (`run`, `trace convert`, or `job option` for the job
/// option table), the argument's syntax or option name, the intent, and what it is.
#[derive(Clone, Debug)]
struct PathRow {
    command: String,
    arg: String,
    intent: String,
    what: String,
}

/// The rows `iolab options --paths` prints: the source of `docs/paths.md`.
fn path_rows() -> Vec<PathRow> {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab")).args(["options", "--paths"]).output();
    let text = String::from_utf8(o.unwrap().stdout).unwrap();
    let section = |from: &str, to: &str| -> String {
        let s = text.split(from).nth(1).unwrap_or_default();
        s.split(to).next().unwrap_or_default().to_string()
    };
    let cells = |l: &str| -> Vec<String> {
        l.trim_matches('|').split(" | ").map(|c| c.trim().trim_matches('`').to_string()).collect()
    };
    let body = |s: &str| -> Vec<Vec<String>> {
        s.lines()
            .filter(|l| {
                l.starts_with("| ") && !l.starts_with("| command") && !l.starts_with("| option")
            })
            .map(cells)
            .collect()
    };
    let mut rows = Vec::new();
    for c in body(&section("## Command-line flags", "## Job options")) {
        rows.push(PathRow {
            command: c[0].clone(),
            arg: c[1].clone(),
            intent: c[2].clone(),
            what: String::new(),
        });
    }
    for c in body(&section("## Job options", "## Files iolab makes")) {
        rows.push(PathRow {
            command: "job option".into(),
            arg: c[0].clone(),
            intent: c[1].clone(),
            what: c[2].clone(),
        });
    }
    rows
}

/// Path slots (`<TRACE>`) and the harmless value each takes when it is not the one tested.
type Slots = Vec<(&'static str, &'static str)>;

/// A valid invocation of each command with its path arguments as slots (the syntax of the
/// row, `<TRACE>`), and the harmless value each slot takes when it is not the one tested.
fn template(command: &str) -> Option<(Vec<&'static str>, Slots)> {
    let null_run = vec!["--name=x", "--ioengine=null", "--size=64k", "--filename={W}/d"];
    let t = match command {
        "run" => ([vec!["run"], null_run].concat(), vec![]),
        "sim" => (vec!["sim", "--name=x", "--size=1m", "--rw=randread"], vec![]),
        "parse" => (vec!["parse", "--name=x", "--size=1m"], vec![]),
        "calibrate" => {
            (vec!["calibrate", "<TARGET>", "--budget=2s"], vec![("<TARGET>", "{W}/c.dat")])
        }
        "data gen" => (vec!["data", "gen", "--size", "64k", "--output={W}/g"], vec![]),
        "data measure" => (vec!["data", "measure", "<PATH>"], vec![("<PATH>", "{F}/t.csv")]),
        "trace stat" => (vec!["trace", "stat", "<TRACE>"], vec![("<TRACE>", "{F}/t.csv")]),
        "trace convert" => (
            vec!["trace", "convert", "--to", "csv", "<INPUT>", "<OUTPUT>"],
            vec![("<INPUT>", "{F}/t.csv"), ("<OUTPUT>", "{W}/o.csv")],
        ),
        "replay" => (
            vec!["replay", "<TRACE>", "--limit", "20", "--filename={W}/t"],
            vec![("<TRACE>", "{F}/t.csv")],
        ),
        "mrc" => (vec!["mrc", "<TRACE>"], vec![("<TRACE>", "{F}/t.csv")]),
        "fill" => (vec!["fill", "--cache=1g", "--device=nvme"], vec![]),
        "compare" => (vec!["compare", "<FILES>", "{F}/r.json"], vec![("<FILES>", "{F}/r.json")]),
        "report" => {
            (vec!["report", "<RESULTS>", "--output={W}/r.html"], vec![("<RESULTS>", "{F}/r.json")])
        }
        "plot" => (vec!["plot", "<RESULTS>", "--out-dir={W}/p"], vec![("<RESULTS>", "{F}/r.json")]),
        "server" => (vec!["server", "--listen=127.0.0.1:0"], vec![]),
        _ => return None,
    };
    Some(t)
}

/// The invocation of `row` with `hostile` as its path; `None` when no template knows it.
fn invocation(row: &PathRow, hostile: &str) -> Option<Vec<String>> {
    if row.command == "job option" {
        let keep_file = !matches!(row.arg.as_str(), "filename" | "directory" | "filename_format");
        let mut a = vec!["run", "--name=x", "--ioengine=null", "--size=64k", "--rw=write"];
        if keep_file {
            a.push("--filename={W}/d");
        }
        let v = if row.what.contains("quoted") { format!("'{hostile}'") } else { hostile.into() };
        let mut a: Vec<String> = a.into_iter().map(String::from).collect();
        a.push(format!("--{}={v}", row.arg));
        return Some(a);
    }
    let (args, defaults) = match (row.command.as_str(), row.arg.as_str()) {
        // The profile written without a sweep; the job stream instead of a trace.
        ("calibrate", a) if a.starts_with("--output") => {
            (vec!["calibrate", "--from-preset=nvme"], vec![])
        }
        ("mrc", a) if a.starts_with("--job") => (vec!["mrc"], vec![]),
        (c, _) => template(c)?,
    };
    let flag = row.arg.split(['=', ' ']).next().unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    let mut placed = false;
    for a in args {
        let slot = a == row.arg || (flag.starts_with("--") && a.starts_with(&format!("{flag}=")));
        if slot {
            placed = true;
            out.push(if a.starts_with('<') { hostile.into() } else { format!("{flag}={hostile}") });
        } else if let Some((_, d)) = defaults.iter().find(|(s, _)| *s == a) {
            out.push(d.to_string());
        } else {
            out.push(a.to_string());
        }
    }
    if !placed {
        match row.arg.split_once(['=', ' ']) {
            Some((flag, _)) if flag.starts_with("--") => out.push(format!("{flag}={hostile}")),
            Some((flag, _)) => out.extend([flag.to_string(), hostile.to_string()]),
            None => out.push(hostile.to_string()),
        }
    }
    Some(out)
}

fn fill(args: &[String], w: &Path, fix: &Path) -> Vec<String> {
    let (w, f) = (w.display().to_string(), fix.display().to_string());
    args.iter().map(|a| a.replace("{W}", &w).replace("{F}", &f)).collect()
}

/// Runs an invocation in `w`: exit code and stderr.
fn run_in(w: &Path, args: &[String]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .current_dir(w)
        .stdin(iolab_test_support::empty_stdin().unwrap())
        .output()
        .unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Names under /dev starting with `stem` (what a run must not have created there).
fn dev_entries(stem: &str) -> Vec<String> {
    let rd = std::fs::read_dir("/dev").unwrap();
    rd.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(stem))
        .collect()
}

/// The registry walk: every path-taking flag of every command and every path-taking job
/// option (the rows of `docs/paths.md`) goes through the gate. Outputs and inputs pointed at
/// a blank loop device (root) are refused and leave it unchanged, outputs never create a
/// name under /dev; targets named by a missing /dev name create nothing there.
#[test]
fn every_path_flag_and_option_goes_through_the_gate() {
    let rows = path_rows();
    assert!(rows.len() >= 30, "only {} rows in `iolab options --paths`", rows.len());
    let undeclared: Vec<String> = rows
        .iter()
        .filter(|r| r.intent == "UNDECLARED")
        .map(|r| format!("{} {}", r.command, r.arg))
        .collect();
    assert!(undeclared.is_empty(), "path arguments without a declared intent: {undeclared:?}");
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fix = tmp.path().join("fixtures");
    std::fs::create_dir_all(&fix).unwrap();
    if !super::fixtures(&fix) || !more_fixtures(&fix) {
        return println!("skip: fixtures could not be made");
    }
    let backing = fix.join("blank.img");
    std::fs::write(&backing, vec![0u8; 8 << 20]).unwrap();
    let lp = if is_root() { LoopDev::over(&backing, false).ok() } else { None };
    if lp.is_none() {
        println!("skip: no loop device (root); outputs and inputs probed with /dev names only");
    }
    let mut failures = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let w = tmp.path().join(format!("w{i}"));
        std::fs::create_dir_all(&w).unwrap();
        let missing = format!("/dev/iolab-walk-{}-{i}", std::process::id());
        let stem = missing.trim_start_matches("/dev/").to_string();
        let hostile = match (&lp, row.intent.as_str()) {
            (Some(l), "output" | "input") => l.device().display().to_string(),
            _ => missing.clone(),
        };
        let Some(args) = invocation(row, &hostile) else {
            failures.push(format!(
                "{} {}: no invocation template for the command",
                row.command, row.arg
            ));
            continue;
        };
        let args = fill(&args, &w, &fix);
        let (code, err) = run_in(&w, &args);
        let shown = format!(
            "{} {} [{}] -> {code}: {}",
            row.command,
            row.arg,
            row.intent,
            err.lines().last().unwrap_or("")
        );
        println!("{shown}");
        let created = dev_entries(&stem);
        let dev_created =
            lp.as_ref().map(|l| dev_entries(&format!("{}_", l.name()))).unwrap_or_default();
        if !created.is_empty() || !dev_created.is_empty() {
            failures.push(format!("{shown}: created /dev/{created:?}{dev_created:?}"));
            created
                .iter()
                .chain(&dev_created)
                .for_each(|n| drop(std::fs::remove_file(format!("/dev/{n}"))));
        }
        // The gate's refusal, or the flag refused whole (not implemented).
        let why = ["block device", "no such device", "not supported", "not a directory"];
        let refused = why.iter().any(|w| err.contains(w));
        if row.intent == "output" && (code == 0 || !refused) {
            failures.push(format!("{shown}: an output into {hostile} was not refused by the gate"));
        }
        if code != 0 && code != 1 {
            failures.push(format!("{shown}: exit {code} (crash?)"));
        }
        if std::fs::read(&backing).unwrap().iter().any(|&b| b != 0) {
            failures.push(format!("{shown}: the loop device was written"));
            std::fs::write(&backing, vec![0u8; 8 << 20]).unwrap();
        }
    }
    drop(lp);
    assert!(failures.is_empty(), "{} rows failed:\n{}", failures.len(), failures.join("\n"));
}

/// `docs/paths.md` is what `iolab options --paths` prints.
#[test]
fn docs_paths_md_is_current() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/paths.md");
    let o =
        Command::new(env!("CARGO_BIN_EXE_iolab")).args(["options", "--paths"]).output().unwrap();
    assert!(o.status.success());
    let committed = std::fs::read_to_string(&p).unwrap_or_default();
    assert!(
        committed == String::from_utf8_lossy(&o.stdout),
        "docs/paths.md is stale: run `cargo run -- options --paths > docs/paths.md`"
    );
}
