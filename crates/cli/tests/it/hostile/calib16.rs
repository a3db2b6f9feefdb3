//! Probes for issue 32's calibration as a user expects it: `calibrate --html FILE` (a second
//! output, through the same gate and atomic writer as `-o`: refused before any I/O when it is
//! a directory, a missing name under /dev, the target or the `-o` file, or doubled by
//! `--output-format=html`; a refused run leaves an existing file as it was), `--quiet`, and
//! `iolab report PROFILE.toml` (a profile read as strictly as `sim --backing` reads it: a
//! wrong version, an unknown key, binary bytes or an empty file is a one-line error naming
//! the file).

use super::runner::{After, Oracle, Prep, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

fn cal(name: &str, extra: &[&str], o: Oracle) -> Probe {
    let mut args = vec!["calibrate"];
    args.extend(extra);
    Probe::new("calib16", format!("calibrate {name}"), &args, o).limit(15.0)
}

/// A profile's first lines (as `calibrate` writes them), and its two direction tables.
const PROFILE_HEAD: &[u8] = b"version = 1\nname = \"x\"\ncapacity = 1000\nservers = 1\n";
const PROFILE_DIRS: &[u8] = b"[read]\nbase_us = 100\nseq_base_us = 20\nxfer_bytes_per_sec = 2e9\n\
    servers = 4\nshape = [[0.0, 1.0], [1.0, 1.0]]\n[write]\nbase_us = 100\nseq_base_us = 20\n\
    xfer_bytes_per_sec = 2e9\nservers = 4\nshape = [[0.0, 1.0], [1.0, 1.0]]\n";

fn html_probes() -> Vec<Probe> {
    let preset = ["--from-preset=hdd-7200"];
    let with = |more: &[&'static str]| [&preset[..], more].concat();
    vec![
        cal("--html beside -o", &with(&["-o", "{W}/p.toml", "--html={W}/p.html"]), Oracle::Ok)
            .after(After::NoLeftovers(vec!["p.toml", "p.html"])),
        cal("--quiet --html", &with(&["-q", "-o", "{W}/p.toml", "--html={W}/p.html"]), Oracle::Ok)
            .after(After::NoLeftovers(vec!["p.toml", "p.html"])),
        cal("--html=''", &with(&["--html="]), err(&["--html", "a value is required"])),
        cal("--html a directory", &with(&["--html={W}/d"]), err(&["--html", "is a directory"]))
            .prep(Prep::Dir("d")),
        cal(
            "--html in a missing directory",
            &with(&["--html={W}/no/p.html"]),
            err(&["--html", "no/p.html"]),
        )
        .after(After::NoLeftovers(vec![])),
        cal(
            "--html a missing name under /dev",
            &with(&["--html=/dev/iolab-calib16-missing"]),
            err(&["--html", "/dev/iolab-calib16-missing"]),
        )
        .after(After::Absent("/dev/iolab-calib16-missing")),
        cal(
            "--html the -o file",
            &with(&["-o", "{W}/p.toml", "--html={W}/./p.toml"]),
            err(&["--html", "is the --output file too"]),
        )
        .after(After::NoLeftovers(vec![])),
        cal(
            "--html with --output-format=html",
            &with(&["--output-format=html", "--html={W}/p.html"]),
            err(&["--html", "--output-format=html"]),
        )
        .after(After::NoLeftovers(vec![])),
        // The target is an input: its page may not replace it, before any I/O.
        cal(
            "--html the target",
            &["{W}/t.dat", "--budget=5s", "--html={W}/t.dat"],
            err(&["--html", "is the input"]),
        )
        .prep(Prep::File("t.dat", vec![7u8; 4096]))
        .after(After::Unchanged("t.dat")),
        // A run refused for another flag leaves an existing page as it was.
        cal(
            "--html over a page, --budget=0",
            &["{W}/t.dat", "--budget=0", "--html={W}/keep.html"],
            err(&["--budget=0"]),
        )
        .prep(Prep::File("t.dat", vec![7u8; 4096]))
        .prep(Prep::File("keep.html", b"keep".to_vec()))
        .after(After::Unchanged("keep.html")),
    ]
}

fn report_probes() -> Vec<Probe> {
    let rep = |name: &str, body: Vec<u8>, o: Oracle| {
        Probe::new(
            "calib16",
            format!("report {name}"),
            &["report", "{W}/p.toml", "-o", "{W}/r.html"],
            o,
        )
        .prep(Prep::File("p.toml", body))
        .limit(15.0)
    };
    let version2 = [&b"version = 2\n"[..], &PROFILE_HEAD[12..], PROFILE_DIRS].concat();
    let unknown = [PROFILE_HEAD, b"turbo = true\n"].concat();
    let binary = [PROFILE_HEAD, b"\xff\xfe\x00\x01"].concat();
    let whole = [PROFILE_HEAD, PROFILE_DIRS].concat();
    vec![
        rep("a whole profile", whole, Oracle::Ok)
            .after(After::NoLeftovers(vec!["p.toml", "r.html"])),
        rep("a profile of another version", version2, err(&["p.toml", "version = 2"]))
            .after(After::NoLeftovers(vec!["p.toml"])),
        rep("a profile with an unknown key", unknown, err(&["p.toml", "turbo"]))
            .after(After::NoLeftovers(vec!["p.toml"])),
        rep("a profile without [read]", PROFILE_HEAD.to_vec(), err(&["p.toml", "read"]))
            .after(After::NoLeftovers(vec!["p.toml"])),
        rep("a profile with binary bytes", binary, err(&["device profile", "p.toml", "not UTF-8"]))
            .after(After::NoLeftovers(vec!["p.toml"])),
        rep("an empty file", Vec::new(), err(&["p.toml"]))
            .after(After::NoLeftovers(vec!["p.toml"])),
    ]
}

/// Every probe of this family.
pub fn probes() -> Vec<Probe> {
    let mut v = html_probes();
    v.extend(report_probes());
    v
}
