//! Issue 28's families "bombs", "numbers" and "html" (points 4–5), and the memory bound
//! they must keep.
//!
//! * bombs: an endless "line" (zstd and gzip decompression bombs, plain text, after good
//!   records, `\r`-only line ends) through every command that reads a trace; each must stop
//!   at the line cap with a one-line error naming the record, and `--lenient` must skip it.
//! * numbers: results (JSON, JSON Lines) with magnitudes no measurement has, given to
//!   `report`, `plot` and `compare`; device profiles with out-of-range, tiny and unknown
//!   values given to `sim --backing` and `run --predict`: errors naming the value's place.
//! * html: job names that would end a script or open a comment in the page, quotes, bidi
//!   overrides, through `run --output-format=html` and `report`.
//!
//! [`bombs_stay_under_256_mb`] runs the review's bombs (a 2 GiB line through zstd, a 3 GiB
//! sparse file, a zstd of valid records larger than 256 MB decoded) through `trace stat`,
//! `trace convert`, `replay`, `mrc` and `sim`, and checks the child's peak RSS (`wait4`).

use super::runner::{After, Oracle, Prep, Probe};
use iolab_test_support::{empty_stdin, sink};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The trace readers' line cap (`iolab_trace`'s `MAX_LINE`).
const LINE_CAP: &str = "longer than 1048576 bytes";
const HEADER: &[u8] = b"version,time,op,size,lbn\n";

/// `n` bytes of `fill` (no line end) after `head`, zstd-compressed as a stream: the decoded
/// bytes are never held.
fn zstd_of(head: &[u8], fill: u8, n: u64) -> Vec<u8> {
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
    enc.write_all(head).unwrap();
    let chunk = vec![fill; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
    enc.finish().unwrap()
}

/// The same as a gzip stream.
fn gzip_of(head: &[u8], fill: u8, n: u64) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(head).unwrap();
    let chunk = vec![fill; 1 << 20];
    for _ in 0..n >> 20 {
        enc.write_all(&chunk).unwrap();
    }
    enc.finish().unwrap()
}

/// The review's bomb: 2 GiB of zeros in one zstd frame (about 70 KB), made once.
fn zstd_bomb() -> &'static [u8] {
    static B: OnceLock<Vec<u8>> = OnceLock::new();
    B.get_or_init(|| zstd_of(b"", 0, 2 << 30))
}

/// Every command that reads a trace, with `{T}` for the trace and its format flag.
fn trace_commands() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("trace stat", vec!["trace", "stat", "--format", "cloudphysics", "{T}"]),
        (
            "trace convert",
            vec!["trace", "convert", "--format", "cloudphysics", "--to", "oracle", "{T}", "{W}/o"],
        ),
        ("mrc", vec!["mrc", "--format", "cloudphysics", "{T}"]),
        ("replay", vec!["replay", "{T}", "--format", "cloudphysics", "--filename", "{W}/target"]),
        (
            "sim --trace",
            vec!["sim", "--trace", "{T}", "--trace-format", "cloudphysics", "--backing=ssd"],
        ),
    ]
}

fn bomb_probe(name: String, file: &'static str, bytes: Vec<u8>, args: &[&str], o: Oracle) -> Probe {
    let t = format!("{{W}}/{file}");
    let args: Vec<String> = args.iter().map(|a| a.replace("{T}", &t)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Probe::new("bombs", name, &args, o).prep(Prep::File(file, bytes)).limit(30.0)
}

fn bomb_probes() -> Vec<Probe> {
    let good = [HEADER, b"1,100,28,4096,8\n1,200,2a,4096,16\n"].concat();
    let cr: Vec<u8> = b"1,100,28,4096,8\r".repeat(100_000);
    // (name, file, bytes, the record the error names)
    let inputs: Vec<(&str, &'static str, Vec<u8>, &str)> = vec![
        ("zstd 2 GiB line", "b.csv.zst", zstd_bomb().to_vec(), "record 1 "),
        ("gzip 256 MiB line", "b.csv.gz", gzip_of(b"", b'7', 256 << 20), "record 1 "),
        ("plain 3 MiB digits", "b.csv", vec![b'1'; 3 << 20], "record 1 "),
        ("zstd line after good records", "g.csv.zst", zstd_of(&good, b',', 64 << 20), "record 4 "),
        ("CR-only line ends", "cr.csv", cr, "record 1 "),
    ];
    let mut v = Vec::new();
    for (what, file, bytes, rec) in &inputs {
        for (cmd, args) in trace_commands() {
            let o = Oracle::Err(vec![file.to_string(), rec.to_string(), LINE_CAP.into()]);
            let p = bomb_probe(format!("{cmd}: {what}"), file, bytes.clone(), &args, o);
            v.push(p.after(After::NoLeftovers(vec!["target"])));
        }
    }
    // Lenient: the line is skipped (and counted), the good records are read.
    let g = zstd_of(&good, b',', 64 << 20);
    let args = ["trace", "stat", "--lenient", "--format", "cloudphysics", "{T}"];
    v.push(bomb_probe(
        "trace stat --lenient skips the line".into(),
        "g.csv.zst",
        g,
        &args,
        Oracle::Ok,
    ));
    v
}

/// A JSON Lines result of two intervals whose read IOPS are `a` and `b`.
fn intervals(a: &str, b: &str) -> Vec<u8> {
    format!(
        "{{\"time_ms\":500,\"job\":\"x\",\"jobidx\":0,\"read\":{{\"iops\":{a},\"bw_bytes\":4096}}}}\n\
         {{\"time_ms\":1000,\"job\":\"x\",\"jobidx\":0,\"read\":{{\"iops\":{b},\"bw_bytes\":4096}}}}\n"
    )
    .into_bytes()
}

/// A one-job fio-layout result with `field` of the read direction set to `value`.
fn result_with(field: &str, value: &str) -> Vec<u8> {
    let read = format!(
        "{{\"io_bytes\":4096,\"bw_bytes\":4096,\"iops\":1.0,\"total_ios\":1,\
         \"clat_ns\":{{\"mean\":1000.0,\"percentile\":{{\"50.000000\":1000}}}},\"{field}\":{value}}}"
    );
    format!("{{\"fio version\":\"fio-3.33\",\"jobs\":[{{\"jobname\":\"x\",\"read\":{read}}}]}}\n")
        .into_bytes()
}

fn result_probes() -> Vec<Probe> {
    let cases: Vec<(&str, &'static str, Vec<u8>, &str)> = vec![
        ("jsonl iops -1e308 and 1e308", "i.jsonl", intervals("-1e308", "1e308"), "1e308"),
        ("jsonl iops 1e308 alone", "i.jsonl", intervals("1", "1e308"), "1e308"),
        ("jsonl iops -1e300", "i.jsonl", intervals("-1e300", "5"), "1e300"),
        ("json lat_ns 1e300", "r.json", result_with("lat_ns", "{\"mean\":1e300}"), "lat_ns"),
        ("json iodepth 1e30", "r.json", result_with("iodepth", "1e30"), "iodepth"),
        ("json bw as string 1e300", "r.json", result_with("bw", "\"1e300\""), "/read/bw"),
        ("json number 1e999", "r.json", result_with("bw", "1e999"), "r.json"),
    ];
    let mut v = Vec::new();
    for (what, file, bytes, needle) in cases {
        let t = format!("{{W}}/{file}");
        let runs: [(&str, Vec<&str>); 2] = [
            ("report", vec!["report", &t, "-o", "{W}/r.html"]),
            ("plot", vec!["plot", &t, "--out-dir", "{W}/plots"]),
        ];
        for (cmd, args) in runs {
            let o = Oracle::Err(vec![file.into(), needle.into()]);
            v.push(
                Probe::new("numbers", format!("{cmd}: {what}"), &args, o)
                    .prep(Prep::File(file, bytes.clone()))
                    .after(After::NoLeftovers(vec![]))
                    .limit(10.0),
            );
        }
        if file == "r.json" {
            let args = ["compare", "{W}/a.json", &t];
            let o = Oracle::Err(vec![file.into(), needle.into()]);
            v.push(
                Probe::new("numbers", format!("compare: {what}"), &args, o)
                    .prep(Prep::File("a.json", result_with("bw", "4")))
                    .prep(Prep::File(file, bytes.clone()))
                    .limit(10.0),
            );
        }
    }
    v
}

/// The sata-ssd preset as a profile file with `key`'s first occurrence set to `value`.
fn profile_with(key: &str, value: &str) -> Vec<u8> {
    let text = iolab_model::device::preset_profile("ssd").unwrap().to_toml().unwrap();
    let mut done = false;
    let mut out = String::new();
    for l in text.lines() {
        if !done && l.split('=').next().is_some_and(|k| k.trim() == key) {
            out.push_str(&format!("{key} = {value}\n"));
            done = true;
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    assert!(done, "{key} is not in the preset's profile");
    out.into_bytes()
}

fn profile_probes() -> Vec<Probe> {
    let depth = {
        let mut t = String::from_utf8(profile_with("base_us", "85")).unwrap();
        t.push_str(
            "\n[[read.depth_shape]]\ndepth = 4294967296\nshape = [[0.0, 1.0], [1.0, 1.0]]\n",
        );
        t.into_bytes()
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("base_us 1e300", profile_with("base_us", "1e300"), "base_us"),
        ("max_iops 1e-300", profile_with("max_iops", "1e-300"), "max_iops"),
        ("write_cache bogus", profile_with("write_cache", "\"bogus\""), "write_cache"),
        ("xfer_bytes_per_sec 1e-300", profile_with("xfer_bytes_per_sec", "1e-300"), "xfer_bytes"),
        ("seq_base_us inf", profile_with("seq_base_us", "inf"), "seq_base_us"),
        ("seek_sqrt_us nan", profile_with("seek_sqrt_us", "nan"), "seek_sqrt_us"),
        ("cap_window_us 1e300", profile_with("cap_window_us", "1e300"), "cap_window_us"),
        ("max_bytes_per_sec 1e-9", profile_with("max_bytes_per_sec", "1e-9"), "max_bytes"),
        ("host_parallel 1e300", profile_with("host_parallel", "1e300"), "host_parallel"),
        ("depth_shape depth 2^32", depth, "line"),
    ];
    let mut v = Vec::new();
    for (what, bytes, needle) in cases {
        let runs: [(&str, &[&str]); 2] = [
            ("sim --backing", &["sim", "--backing={W}/p.toml", "--name=x", "--size=1m"]),
            (
                "run --predict",
                &["run", "--name=x", "--ioengine=null", "--size=1m", "--predict={W}/p.toml"],
            ),
        ];
        for (cmd, args) in runs {
            let o = Oracle::Err(vec!["p.toml".into(), needle.into()]);
            v.push(
                Probe::new("numbers", format!("{cmd}: profile {what}"), args, o)
                    .prep(Prep::File("p.toml", bytes.clone()))
                    .limit(10.0),
            );
        }
    }
    v
}

/// Names that end a script, open a comment, close an attribute or reverse a line.
pub const HOSTILE_NAMES: [&str; 6] = [
    "<!--<script> j2",
    "</script><script>document.title='x'</script>",
    "\"'><img src=x onerror=alert(1)>",
    "<!-- a",
    "rtl\u{202E}lmth.exe",
    "</style></title><!--",
];

fn html_probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for (i, n) in HOSTILE_NAMES.iter().enumerate() {
        let name = format!("--name={n}");
        let args = [
            "run",
            &name,
            "--ioengine=null",
            "--size=1m",
            "--output-format=html",
            "--output={W}/r.html",
        ];
        v.push(
            Probe::new("html", format!("run --output-format=html: name {i}"), &args, Oracle::Ok)
                .after(After::NoLeftovers(vec!["r.html"]))
                .limit(15.0),
        );
        let doc = result_with("bw", "4");
        let doc = String::from_utf8(doc).unwrap().replace("\"jobname\":\"x\"", &{
            format!("\"jobname\":{}", serde_json::to_string(&format!("{n}\u{0}")).unwrap())
        });
        v.push(
            Probe::new(
                "html",
                format!("report: name {i} with NUL"),
                &["report", "{W}/r.json", "-o", "{W}/r.html"],
                Oracle::Ok,
            )
            .prep(Prep::File("r.json", doc.into_bytes()))
            .after(After::NoLeftovers(vec!["r.html"]))
            .limit(15.0),
        );
    }
    v
}

/// Every probe of these families.
/// `--backing=hdd:...:ncq=N`: out-of-range, negative, NaN, overflowing and binary values,
/// and the key on a device that does not queue; each a one-line error naming `ncq`.
fn ncq_probes() -> Vec<Probe> {
    let values = ["0", "257", "-1", "nan", "1e3", "18446744073709551616", "\u{1}\u{ff}", ""];
    let mut v: Vec<Probe> = values
        .iter()
        .map(|n| {
            let arg = format!("--backing=hdd:7200:ncq={n}");
            let o = Oracle::Err(vec!["ncq".into(), "1 (no reordering) to 256".into()]);
            Probe::new(
                "numbers",
                format!("sim --backing ncq={n:?}"),
                &["sim", &arg, "--name=x", "--size=1m"],
                o,
            )
            .limit(10.0)
        })
        .collect();
    let o = Oracle::Err(vec!["ncq".into(), "hdd backings".into()]);
    v.push(
        Probe::new(
            "numbers",
            "sim --backing ssd:ncq=32",
            &["sim", "--backing=ssd:ncq=32", "--name=x", "--size=1m"],
            o,
        )
        .limit(10.0),
    );
    v
}

pub fn probes() -> Vec<Probe> {
    let mut v = bomb_probes();
    v.extend(ncq_probes());
    v.extend(result_probes());
    v.extend(profile_probes());
    v.extend(html_probes());
    v
}

/// Runs `iolab args` with stderr to a file; returns the exit status, stderr and the child's
/// peak RSS in bytes (`wait4`'s `ru_maxrss`).
// The child is reaped by wait4 (which also gives its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn measured(args: &[&str], err: &Path) -> (i32, String, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .stdin(empty_stdin().unwrap())
        .stdout(sink().unwrap())
        .stderr(std::fs::File::create(err).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 writes the child's status and usage into them.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for (`child` is never waited on).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (code, std::fs::read_to_string(err).unwrap(), ru.ru_maxrss as u64 * 1024)
}

/// A zstd of `records` valid CloudPhysics reads of 4 KiB over 256 blocks (about 17 bytes a
/// record decoded), streamed.
fn valid_zstd(records: u64) -> Vec<u8> {
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    enc.write_all(HEADER).unwrap();
    let mut line = String::new();
    for i in 0..records {
        line.clear();
        line.push_str(&format!("1,{},28,4096,{}\n", 1000 + i, (i * 8) % 2048));
        enc.write_all(line.as_bytes()).unwrap();
    }
    enc.finish().unwrap()
}

#[test]
fn bombs_stay_under_256_mb() {
    const LIMIT: u64 = 256 << 20;
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let at = |n: &str| d.path().join(n).display().to_string();
    std::fs::write(at("bomb.csv.zst"), zstd_bomb()).unwrap();
    // 3 GiB of holes: zeros, no line end, no block on disk.
    std::fs::File::create(at("sparse.csv")).unwrap().set_len(3 << 30).unwrap();
    // 12 M valid records, 290 MB decoded: replay once held them all (32+ bytes each).
    std::fs::write(at("valid.csv.zst"), valid_zstd(12_000_000)).unwrap();
    let mut rows = Vec::new();
    for (t, err) in [
        ("bomb.csv.zst", Some("record 1 ")),
        ("sparse.csv", Some("record 1 ")),
        ("valid.csv.zst", None),
    ] {
        let tp = at(t);
        let out = at("out.bin");
        let target = at("target");
        let mut cases: Vec<(&str, Vec<&str>)> = vec![
            ("trace stat", vec!["trace", "stat", "--format", "cloudphysics", &tp]),
            ("mrc", vec!["mrc", "--format", "cloudphysics", &tp]),
            (
                "replay",
                vec![
                    "replay",
                    &tp,
                    "--format",
                    "cloudphysics",
                    "--filename",
                    &target,
                    "--ioengine=null",
                    "--direct=0",
                ],
            ),
        ];
        if err.is_some() {
            // The valid trace's 12 M records are for the streaming readers; a whole
            // conversion or simulation of them adds time and no memory question.
            cases.push((
                "trace convert",
                vec!["trace", "convert", "--format", "cloudphysics", "--to", "oracle", &tp, &out],
            ));
            cases.push((
                "sim",
                vec!["sim", "--trace", &tp, "--trace-format", "cloudphysics", "--backing=ssd"],
            ));
        }
        for (cmd, args) in cases {
            let (code, stderr, rss) = measured(&args, &d.path().join("err"));
            rows.push(format!("{cmd:14} {t:14} rc {code} peak RSS {:6.1} MB", rss as f64 / 1e6));
            match err {
                Some(rec) => {
                    assert_eq!(code, 1, "{cmd} {t}: {stderr}");
                    let last = stderr.lines().last().unwrap_or("");
                    assert!(last.contains(rec) && last.contains(LINE_CAP), "{cmd} {t}: {stderr}");
                }
                None => assert_eq!(code, 0, "{cmd} {t}: {stderr}"),
            }
            assert!(rss < LIMIT, "{cmd} {t}: peak RSS {rss} bytes");
            let _ = std::fs::remove_file(&target);
        }
    }
    println!("{}", rows.join("\n"));
}

/// `html` with the text of every `<script>` element removed (what the parser made code or
/// data, so markup swallowed into a script is not counted as shown).
fn without_scripts(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(k) = rest.find("<script") {
        out.push_str(&rest[..k]);
        match rest[k..].find("</script>") {
            Some(e) => rest = &rest[k + e + "</script>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn chrome_dom(chrome: &Path, page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .stdin(empty_stdin().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "chromium: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// (charts, advice findings) shown: figures and articles outside any script element.
fn shown(html: &str) -> (usize, usize) {
    let h = without_scripts(html);
    (h.matches("<figure class=\"chart\"").count(), h.matches("<article class=\"finding").count())
}

#[test]
fn hostile_job_names_hide_nothing_in_the_page() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let chrome = iolab_test_support::chromium().ok();
    if chrome.is_none() {
        println!("skip: chromium not installed (static checks only)");
    }
    let page_of = |i: usize, name: &str| {
        let page = d.path().join(format!("p{i}.html"));
        // Two jobs, the hostile name first: whatever it swallowed would be the second's.
        let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .args([
                "run",
                &format!("--name={name}"),
                "--ioengine=null",
                "--size=4m",
                "--rw=randread",
            ])
            .args(["--name=after", "--ioengine=null", "--size=4m", "--rw=write", "--bs=64k"])
            .args(["--output-format=html", &format!("--output={}", page.display())])
            .stdin(empty_stdin().unwrap())
            .output()
            .unwrap();
        assert!(o.status.success(), "{name:?}: {}", String::from_utf8_lossy(&o.stderr));
        page
    };
    let plain = std::fs::read_to_string(page_of(0, "plain")).unwrap();
    let want = shown(&plain);
    assert!(want.0 > 0, "no charts in the plain page");
    for (i, name) in HOSTILE_NAMES.iter().enumerate() {
        let page = page_of(i + 1, name);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(!html.contains("<!--"), "{name:?}: a comment opens in the page");
        assert!(!html.contains('\u{202E}'), "{name:?}: a bidi override reached the page");
        assert_eq!(html.matches("<script").count(), html.matches("</script>").count(), "{name:?}");
        assert_eq!(shown(&html), want, "{name:?}: charts and findings in the file");
        let Some(chrome) = &chrome else { continue };
        let dom = chrome_dom(chrome, &page);
        assert!(dom.contains("data-script=\"ok\""), "{name:?}: the page's script did not run");
        assert!(!dom.contains("data-errors"), "{name:?}: script errors");
        assert_eq!(shown(&dom), want, "{name:?}: charts and findings in Chromium's DOM");
        let charts = format!("data-hover-charts=\"{}\"", want.0);
        assert!(dom.contains(&charts), "{name:?}: the script saw other charts");
        assert!(!dom.contains("<title>x</title>"), "{name:?}: injected script ran");
    }
}

/// `ulimit -v 300000` and `numjobs=24` (the reliability review's §6 case): half the runs
/// aborted in a 800 KB allocation or failed to spawn a thread, because glibc reserved 64 MiB
/// of address space per thread's malloc arena. Ten runs of 24 and 48 jobs under 300 MB of
/// address space all end with their I/O counted.
#[test]
fn many_jobs_run_under_an_address_space_limit() {
    use std::os::unix::process::CommandExt;
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for (i, jobs) in [24, 48].iter().cycle().take(10).enumerate() {
        let out = d.path().join(format!("r{i}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_iolab"));
        cmd.args(["run", "--name=x", "--ioengine=null", "--size=1m", "--output-format=json"])
            .arg(format!("--numjobs={jobs}"))
            .arg(format!("--output={}", out.display()))
            .stdin(empty_stdin().unwrap())
            .stdout(sink().unwrap());
        // SAFETY: setrlimit is async-signal-safe; the closure touches no shared state.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit { rlim_cur: 300_000 << 10, rlim_max: 300_000 << 10 };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "run {i}, numjobs={jobs}: {err}");
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let jobs_out = j["jobs"].as_array().unwrap();
        assert_eq!(jobs_out.len(), *jobs);
        assert!(jobs_out.iter().all(|x| x["read"]["total_ios"] == 256), "run {i}");
    }
}

/// A record whose size or end does not fit (size 2^64 − 1 after a 4 KiB record, 2^41, an
/// LBN whose byte offset plus size passes 2^64): every command that reads a trace ends with
/// one line naming the record and the field, never a panic (`sim --trace` and `mrc` panicked
/// on an add overflow; a release build printed `(4095B/8msec)`). `mrc` keys on the LBN and
/// takes the last file whole.
#[test]
fn oversized_trace_records_are_one_line_errors() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let at = |n: &str| d.path().join(n).display().to_string();
    let files = [
        ("max.csv", "4096,10\n1,200,28,18446744073709551615,20\n", "field `size`"),
        ("tib2.csv", "4096,10\n1,200,28,2199023255552,20\n", "field `size`"),
        ("end.csv", "4096,10\n1,200,28,4096,36028797018963967\n", "offset + size"),
    ];
    for (name, body, want) in files {
        std::fs::write(at(name), format!("version,time,op,size,lbn\n1,100,28,{body}")).unwrap();
        let tp = at(name);
        let target = at("target");
        let out = at("out.bin");
        let cases: Vec<Vec<&str>> = vec![
            vec!["trace", "stat", "--format", "cloudphysics", &tp],
            vec!["mrc", "--format", "cloudphysics", &tp],
            vec!["sim", "--trace", &tp, "--trace-format", "cloudphysics", "--backing=ssd"],
            vec![
                "replay",
                &tp,
                "--format",
                "cloudphysics",
                "--filename",
                &target,
                "--ioengine=null",
            ],
            vec!["trace", "convert", "--format", "cloudphysics", "--to", "oracle", &tp, &out],
        ];
        for args in cases {
            let (code, stderr, _) = measured(&args, &d.path().join("err"));
            if args[0] == "mrc" && name == "end.csv" {
                assert_eq!(code, 0, "{args:?}: {stderr}");
                continue;
            }
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            let last = stderr.trim_end().lines().last().unwrap_or("");
            assert!(last.contains("record 3") && last.contains(want), "{args:?}: {stderr}");
        }
    }
}
