//! `iolab report`, `--output-format=html` and `iolab plot` end to end (crate iolab-viz): real
//! results (a 10 s null-engine run, a file-engine run, a 3-tier sim, the bundled trace's
//! miss-ratio curves for 6 policies, a fill of 1M entries) made into pages that a headless
//! Chromium opens from disk. The tests count in the DOM after the page's script ran what the
//! page wrote into `data-` attributes, screenshot it and check the PNG is not blank, and
//! check the file names no URL to fetch. Without chromium they print `skip: chromium not
//! installed` and check the static page only.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn iolab(args: &[&str]) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab")).args(args).output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "iolab {args:?} failed:\n{out}\n{err}");
    (out, err)
}

fn scratch(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-report-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn p(d: &Path, name: &str) -> String {
    d.join(name).display().to_string()
}

/// Debian's `chromium` on PATH.
fn chromium() -> Option<PathBuf> {
    iolab_test_support::chromium().ok()
}

fn headless(chrome: &Path, page: &Path, hash: &str, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}{hash}", page.canonicalize().unwrap().display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "chromium: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every value of `attr="…"` in `html`, in order.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let key = format!(" {attr}=\"");
    html.split(key.as_str()).skip(1).filter_map(|s| s.split('"').next()).collect()
}

fn attr_sum(html: &str, attr: &str) -> usize {
    attrs(html, attr).iter().map(|v| v.parse::<usize>().unwrap()).sum()
}

/// The `<body …>` tag's attribute `attr`.
fn body_attr<'a>(dom: &'a str, attr: &str) -> Option<&'a str> {
    let tag = dom.split("<body").nth(1)?.split('>').next()?;
    attrs(tag, attr).first().copied()
}

/// The charts on a page: `(data-chart, data-series, data-points)` in order.
fn charts(html: &str) -> Vec<(String, usize, usize)> {
    html.split("<figure class=\"chart\"")
        .skip(1)
        .map(|f| {
            let tag = f.split('>').next().unwrap();
            let n = |a: &str| attrs(tag, a)[0].parse().unwrap();
            (attrs(tag, "data-chart")[0].to_string(), n("data-series"), n("data-points"))
        })
        .collect()
}

/// Distinct colours of a PNG file, and its size.
fn png_colours(path: &Path) -> (usize, (u32, u32)) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let set: HashSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    (set.len(), (info.width, info.height))
}

/// Static checks on the file, then (with chromium) the DOM after scripts and a screenshot.
/// Returns the charts.
fn check_page(page: &Path, max_bytes: u64) -> Vec<(String, usize, usize)> {
    let html = std::fs::read_to_string(page).unwrap();
    let size = html.len() as u64;
    eprintln!("{}: {size} bytes", page.display());
    assert!(size <= max_bytes, "{}: {size} bytes > {max_bytes}", page.display());
    for url in ["http://", "https://", "src=\"//", "@import", "url("] {
        assert!(!html.contains(url), "{} names `{url}`", page.display());
    }
    let list = charts(&html);
    assert!(!list.is_empty(), "no charts in {}", page.display());
    for c in &list {
        assert!(c.1 > 0 && c.2 > 0, "{}: chart without data: {c:?}", page.display());
    }
    assert_eq!(body_attr(&html, "data-charts"), Some(list.len().to_string().as_str()));
    let chrome = match iolab_test_support::chromium() {
        Ok(c) => c,
        Err(why) => {
            println!("skip: {why}");
            return list;
        }
    };
    let dom = headless(&chrome, page, "#selftest", &["--dump-dom".into()]);
    assert_eq!(body_attr(&dom, "data-script"), Some("ok"), "the page's script did not run");
    assert_eq!(body_attr(&dom, "data-errors"), None, "script errors: {dom}");
    let n = |a: &str| body_attr(&dom, a).unwrap().parse::<usize>().unwrap();
    assert_eq!(n("data-hover-charts"), list.len());
    assert_eq!(n("data-hover-test"), list.len(), "a tooltip with values over every chart");
    assert_eq!(n("data-hover-series"), attr_sum(&html, "data-series"));
    assert_eq!(n("data-hover-points"), attr_sum(&html, "data-points"));
    assert_eq!(dom.matches("<svg").count(), list.len(), "one inline SVG per chart");
    // No legend covers a line, point or bar (its box against every series' vertices and
    // segments, and the bars' boxes, as the browser laid them out).
    println!("{}: {} legends", page.display(), n("data-legends"));
    assert_eq!(
        n("data-legend-overlaps"),
        0,
        "legends over data in {:?}",
        body_attr(&dom, "data-legend-overlap-charts")
    );
    let shot = page.with_extension("png");
    headless(
        &chrome,
        page,
        "",
        &[format!("--screenshot={}", shot.display()), "--window-size=1200,2000".into()],
    );
    let (colours, dims) = png_colours(&shot);
    assert_eq!(dims, (1200, 2000));
    assert!(colours > 50, "screenshot of {} is nearly blank: {colours} colours", page.display());
    list
}

fn find<'a>(list: &'a [(String, usize, usize)], suffix: &str) -> &'a (String, usize, usize) {
    list.iter().find(|c| c.0.ends_with(suffix)).unwrap_or_else(|| panic!("no {suffix}: {list:?}"))
}

#[test]
fn ten_second_null_run_as_html() {
    let d = scratch("null");
    let page = d.join("run.html");
    iolab(&[
        "run",
        "--name=a",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
        "--time_based",
        "--runtime=10",
        "--status-interval=0.5",
        "--output-format=html",
        &format!("--output={}", page.display()),
    ]);
    let list = check_page(&page, 2 << 20);
    // 10 s at 0.5 s intervals: 20 points per direction, read and write.
    for id in ["iops", "bw", "lat"] {
        let c = find(&list, &format!("j0-{id}"));
        assert_eq!(c.1, 2, "{c:?}");
        assert!((38..=42).contains(&c.2), "{c:?}");
    }
    assert_eq!(find(&list, "lat-hist").1, 2);
    assert_eq!(find(&list, "lat-pct").1, 2);
    if let Some(chrome) = chromium() {
        // It prints (`@media print`): a PDF with the charts in it.
        let pdf = d.join("run.pdf");
        headless(&chrome, &page, "", &[format!("--print-to-pdf={}", pdf.display())]);
        let bytes = std::fs::read(&pdf).unwrap();
        assert!(bytes.starts_with(b"%PDF") && bytes.len() > 20_000, "{} bytes", bytes.len());
    }
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th>engine</th><td>null</td>"), "description names the engine");
    assert!(html.contains("<th>kernel</th>"));
}

#[test]
fn quick_profile_as_html() {
    let d = scratch("quick");
    let page = d.join("quick.html");
    iolab(&[
        "run",
        "--size=8m",
        &format!("--directory={}", d.display()),
        "--phase-time=0.5",
        "--output-format=html",
        &format!("--output={}", page.display()),
    ]);
    let list = check_page(&page, 2 << 20);
    // Six phases, each its own job with IOPS, bandwidth and latency over time.
    assert_eq!(list.iter().filter(|c| c.0.ends_with("-iops") && c.0.contains("-j")).count(), 6);
}

#[test]
fn file_engine_run_json_plus_jsonl_to_report() {
    let d = scratch("file");
    let json = p(&d, "run.json");
    iolab(&[
        "run",
        "--name=f",
        "--ioengine=psync",
        &format!("--filename={}", p(&d, "data")),
        "--rw=randrw",
        "--bs=4k",
        "--size=8m",
        "--time_based",
        "--runtime=3",
        "--status-interval=0.5",
        "--output-format=json+,jsonl",
        &format!("--output={json}"),
    ]);
    let page = d.join("report.html");
    let (_, err) = iolab(&["report", &json, "-o", &page.display().to_string()]);
    assert!(err.contains("report.html"), "{err}");
    let list = check_page(&page, 2 << 20);
    let c = find(&list, "j0-iops");
    assert!((10..=14).contains(&c.2), "3 s at 0.5 s, two directions: {c:?}");
    // The device view: four charts per device the run's JSON names.
    let text = std::fs::read_to_string(&json).unwrap();
    let doc: serde_json::Value =
        serde_json::Deserializer::from_str(&text).into_iter().next().unwrap().unwrap();
    let devs = doc["iolab_disk_series"].as_array().map_or(0, Vec::len);
    assert_eq!(list.iter().filter(|c| c.0.contains("-d")).count(), 4 * devs);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th>engine</th><td>psync</td>"));
    assert!(html.contains("class=\"finding"), "the advice is on the page");
}

#[test]
fn steady_state_window_is_shaded() {
    let d = scratch("ss");
    let json = p(&d, "ss.json");
    iolab(&[
        "run",
        "--name=s",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        "--time_based",
        "--runtime=20",
        "--ss=iops:90%",
        "--ss_dur=2",
        "--status-interval=0.5",
        "--output-format=json+,jsonl",
        &format!("--output={json}"),
    ]);
    let page = d.join("ss.html");
    iolab(&["report", &json, "-o", &page.display().to_string()]);
    let html = std::fs::read_to_string(&page).unwrap();
    let tag = html.split("data-chart=\"i0-j0-iops\"").nth(1).unwrap().split('>').next().unwrap();
    let band: Vec<f64> =
        attrs(tag, "data-band")[0].split(',').map(|v| v.parse().unwrap()).collect();
    // fio's `ss_dur=2`: the last 2 s of the job's intervals, which stop when it is attained.
    assert!((band[1] - band[0] - 2.0).abs() < 1e-9, "{band:?}");
    assert!(band[1] < 20.0, "the job stopped once steady: {band:?}");
    check_page(&page, 1 << 20);
}

#[test]
fn three_tier_sim_report() {
    let d = scratch("sim");
    let json = p(&d, "sim.json");
    iolab(&[
        "sim",
        "--name=s",
        "--rw=randread",
        "--bs=4k",
        "--size=2g",
        "--iodepth=8",
        "--runtime=60",
        "--time_based",
        "--random_distribution=zipf:0.9",
        "--tier=ram:64MiB:lru",
        "--tier=ssd:256MiB:arc",
        "--tier=ssd:1GiB:lru",
        "--backing=hdd:7200",
        "--output-format=json+",
        &format!("--output={json}"),
    ]);
    let page = d.join("sim.html");
    iolab(&["report", &json, "-o", &page.display().to_string()]);
    let list = check_page(&page, 1 << 20);
    // 60 s of simulated time at 1 s: 60 or 61 points for each of the three tiers.
    for id in ["sim-hit", "sim-fill"] {
        let c = find(&list, id);
        assert_eq!(c.1, 3, "{c:?}");
        assert!((180..=183).contains(&c.2), "{c:?}");
    }
    assert_eq!(find(&list, "sim-iops").1, 1);
    let html = std::fs::read_to_string(&page).unwrap();
    for t in ["ram0", "ssd1", "ssd2"] {
        assert!(html.contains(&format!("<tr><td>{t}</td>")), "tier {t} in the table");
    }
    // The same page straight from the sim.
    let direct = d.join("direct.html");
    iolab(&[
        "sim",
        "--name=s",
        "--rw=randread",
        "--size=1g",
        "--runtime=5",
        "--time_based",
        "--tier=ram:64MiB:lru",
        "--output-format=html",
        &format!("--output={}", direct.display()),
    ]);
    assert!(find(&charts(&std::fs::read_to_string(&direct).unwrap()), "sim-hit").1 == 1);
}

const POLICIES: &str = "lru,fifo,clock,s3fifo,arc,sieve";

#[test]
fn mrc_of_the_bundled_trace_for_six_policies() {
    let trace = shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    if !trace.exists() {
        println!("skip: {} not found", trace.display());
        return;
    }
    let d = scratch("mrc");
    let sizes = "50,100,200,500,1000,2000,3000,5000,7500,10000,15000,20000,30000,40000,48974";
    let (ol, _) = iolab(&[
        "sim",
        &format!("--trace={}", trace.display()),
        "--object-level",
        &format!("--policy={POLICIES}"),
        &format!("--cache-size={sizes}"),
        "--output-format=json",
    ]);
    std::fs::write(d.join("policies.json"), ol).unwrap();
    let (exact, _) = iolab(&["mrc", &trace.display().to_string(), "--json"]);
    std::fs::write(d.join("lru.json"), exact).unwrap();
    let page = d.join("mrc.html");
    iolab(&["report", &p(&d, "policies.json"), &p(&d, "lru.json"), "-o", &p(&d, "mrc.html")]);
    let list = check_page(&page, 1 << 20);
    let c = find(&list, "mrc");
    assert_eq!(c.1, 7, "six policies and the exact LRU curve: {c:?}");
    assert_eq!(c.2, 6 * 15 + 40 - 2, "15 sizes per policy, the exact curve's 38 points");
    let html = std::fs::read_to_string(&page).unwrap();
    for pol in POLICIES.split(',') {
        assert!(html.contains(&format!("policies.json {pol}")), "legend names {pol}");
    }
    // `iolab mrc --html`: the exact curve's page (miss and byte miss ratio).
    let (direct, _) = iolab(&["mrc", &trace.display().to_string(), "--html"]);
    let list = charts(&direct);
    assert_eq!(list.iter().map(|c| (c.1, c.2)).collect::<Vec<_>>(), [(1, 38), (1, 38)]);
}

#[test]
fn fill_of_a_million_entries() {
    let d = scratch("fill");
    let (out, _) = iolab(&["fill", "--entries", "1M", "--iops", "20000", "--json"]);
    std::fs::write(d.join("fill.json"), &out).unwrap();
    let rows =
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["table"].as_array().unwrap().len();
    let page = d.join("fill.html");
    iolab(&["report", &p(&d, "fill.json"), "-o", &page.display().to_string()]);
    let list = check_page(&page, 256 << 10);
    assert_eq!(list.len(), 2);
    assert_eq!(find(&list, "fill").2, rows);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<td>1M</td><td>uniform</td><td>14.39</td>"), "the fill table");
    // The same page straight from `iolab fill --html`.
    let (direct, _) = iolab(&["fill", "--entries", "1M", "--iops", "20000", "--html"]);
    assert_eq!(charts(&direct).len(), 2);
    assert!(direct.contains("<td>1M</td><td>uniform</td><td>14.39</td>"));
}

#[test]
fn plot_writes_svg_and_png_per_chart() {
    let d = scratch("plot");
    let json = p(&d, "sim.json");
    iolab(&[
        "sim",
        "--name=s",
        "--rw=randread",
        "--size=1g",
        "--runtime=20",
        "--time_based",
        "--tier=ram:64MiB:lru",
        "--tier=ssd:256MiB:lru",
        "--output-format=json+",
        &format!("--output={json}"),
    ]);
    let (fill, _) = iolab(&["fill", "--entries", "10k", "--json"]);
    std::fs::write(d.join("fill.json"), fill).unwrap();
    let out = d.join("plots");
    let (listed, _) =
        iolab(&["plot", &json, &p(&d, "fill.json"), "--out-dir", &out.display().to_string()]);
    // sim: latency histogram and percentiles, hit ratio, fill, IOPS; fill: two curves.
    check_plot_files(&listed, 7);
}

/// `iolab plot`'s listing: `charts` SVG and PNG pairs, each SVG a drawing of some size with
/// lines or bars in it, each PNG 760x340 with more than 20 colours (not blank, has text).
fn check_plot_files(listed: &str, charts: usize) {
    let files: Vec<&str> = listed.lines().collect();
    assert_eq!(files.len(), 2 * charts, "{listed}");
    for f in files {
        let path = Path::new(f);
        let len = std::fs::metadata(path).unwrap().len();
        eprintln!("{f}: {len} bytes");
        if f.ends_with(".svg") {
            let s = std::fs::read_to_string(path).unwrap();
            let marks = s.matches("<polyline").count() + s.matches("<rect").count();
            assert!(s.starts_with("<svg") && marks > 2, "{f}: {marks} lines or bars");
            assert!(len > 2000, "{f}: {len} bytes");
        } else {
            assert!(f.ends_with(".png"), "{f}");
            let (colours, dims) = png_colours(path);
            assert_eq!(dims, (760, 340), "{f}");
            assert!(colours > 20, "{f}: only {colours} colours: blank or no text");
        }
    }
}

/// `iolab plot` of `results` into `d/dir`: as many SVG and PNG pairs as `iolab report` draws
/// charts for the same results (the same chart code); returns the chart count.
fn plot_as_report(d: &Path, dir: &str, results: &[&str]) -> usize {
    let page = d.join(format!("{dir}.html"));
    let mut args = vec!["report"];
    args.extend(results);
    let page_arg = page.display().to_string();
    args.extend(["-o", &page_arg]);
    iolab(&args);
    let n = charts(&std::fs::read_to_string(&page).unwrap()).len();
    let out = d.join(dir).display().to_string();
    let mut args = vec!["plot"];
    args.extend(results);
    args.extend(["--out-dir", &out]);
    let (listed, _) = iolab(&args);
    check_plot_files(&listed, n);
    n
}

#[test]
fn plot_of_a_run_an_mrc_and_a_compare() {
    let d = scratch("plot-more");
    // A run with json+ latency bins and its intervals (JSON Lines after the document).
    let run = p(&d, "run.json");
    iolab(&[
        "run",
        "--name=a",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
        "--time_based",
        "--runtime=2",
        "--status-interval=0.5",
        "--output-format=json+,jsonl",
        &format!("--output={run}"),
    ]);
    // IOPS, bandwidth and latency over time; latency histogram and percentiles.
    assert_eq!(plot_as_report(&d, "run", &[&run]), 5);
    // A comparison alone: eight metrics as side-by-side bars (no intervals to overlay).
    let (a, b) = two_runs(&d);
    let (cmp, _) = iolab(&["compare", &a, &b, "--output-format=json"]);
    std::fs::write(d.join("cmp.json"), cmp).unwrap();
    assert_eq!(plot_as_report(&d, "cmp", &[&p(&d, "cmp.json")]), 8);
    let trace = shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    if !trace.exists() {
        println!("skip: {} not found", trace.display());
        return;
    }
    // The bundled trace's miss-ratio curves: six policies and the exact LRU curve overlaid.
    let (ol, _) = iolab(&[
        "sim",
        &format!("--trace={}", trace.display()),
        "--object-level",
        &format!("--policy={POLICIES}"),
        "--cache-size=100,1000,5000,10000,20000,48974",
        "--output-format=json",
    ]);
    std::fs::write(d.join("policies.json"), ol).unwrap();
    let (exact, _) = iolab(&["mrc", &trace.display().to_string(), "--json"]);
    std::fs::write(d.join("lru.json"), exact).unwrap();
    let n = plot_as_report(&d, "mrc", &[&p(&d, "policies.json"), &p(&d, "lru.json")]);
    // The miss ratio of all seven curves overlaid; the byte miss ratio of the exact curve.
    assert_eq!(n, 2);
    let svg = std::fs::read_to_string(d.join("mrc/mrc-miss-ratio.svg")).unwrap();
    // The legend: one text line per curve.
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    for pol in POLICIES.split(',') {
        assert!(texts.contains(&format!("policies.json {pol}").as_str()), "{pol} in the legend");
    }
    assert!(texts.contains(&"lru.json LRU exact"), "the exact curve in the legend");
}

#[test]
fn fio_json_plus_report() {
    if Command::new("fio").arg("--version").output().is_err() {
        println!("skip: fio not installed");
        return;
    }
    let d = scratch("fio");
    let json = p(&d, "fio.json");
    let o = Command::new("fio")
        .args([
            "--name=f",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=64m",
            "--time_based",
            "--runtime=1",
            "--output-format=json+",
            &format!("--output={json}"),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = d.join("fio.html");
    iolab(&["report", &json, "-o", &page.display().to_string()]);
    let list = check_page(&page, 256 << 10);
    // fio's JSON has no interval series: the json+ latency charts, read and write overlaid.
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(find(&list, "lat-hist").1, 2);
    // With --status-interval fio prints a cumulative document per interval: their
    // differences are the interval series (3 s at 1 s: 3 or 4 documents, 2 or 3 intervals).
    let st = p(&d, "status.json");
    let o = Command::new("fio")
        .args([
            "--name=f",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=64m",
            "--time_based",
            "--runtime=3",
            "--status-interval=1",
            "--output-format=json",
            &format!("--output={st}"),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = d.join("status.html");
    iolab(&["report", &st, "-o", &page.display().to_string()]);
    let list = check_page(&page, 256 << 10);
    let c = find(&list, "j0-iops");
    assert_eq!(c.1, 2, "read and write: {c:?}");
    assert!((4..=6).contains(&c.2), "{c:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th>version</th><td>fio-"), "fio's version in the description");
}

#[test]
fn bad_input_is_one_line_naming_the_file() {
    let d = scratch("bad");
    std::fs::write(d.join("x.json"), "{\"foo\": 1}").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(["report", &p(&d, "x.json"), "-o", &p(&d, "x.html")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("x.json: not a result iolab can draw (keys: foo)"), "{err}");
    assert!(!d.join("x.html").exists(), "no page written on bad input");
    // A FIFO is refused before any read (it would block), and so is writing over an input.
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (args, want) in [
        (vec![fifo.display().to_string()], "expected a regular file"),
        (vec![p(&d, "x.json"), "-o".into(), p(&d, "x.json")], "is the input"),
    ] {
        let o =
            Command::new(env!("CARGO_BIN_EXE_iolab")).arg("report").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(want) && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn trace_stat_of_the_bundled_trace_as_html() {
    let trace = shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    if !trace.exists() {
        println!("skip: {} not found", trace.display());
        return;
    }
    let d = scratch("trace");
    let (json, _) = iolab(&["trace", "stat", &trace.display().to_string(), "--json"]);
    std::fs::write(d.join("stat.json"), &json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let nonzero = |k: &str| {
        v[k]["counts"].as_array().unwrap().iter().filter(|c| c.as_u64() > Some(0)).count()
    };
    let page = d.join("trace.html");
    iolab(&["report", &p(&d, "stat.json"), "-o", &page.display().to_string()]);
    let list = check_page(&page, 256 << 10);
    // Sequential per stream and in arrival order as two bars; one point per non-empty bucket.
    assert_eq!(list.len(), 4, "{list:?}");
    let seq = find(&list, "trace-seq");
    assert_eq!((seq.1, seq.2), (1, 2));
    assert_eq!(find(&list, "trace-size").2, nonzero("request_size"));
    assert_eq!(find(&list, "trace-reuse-distance").2, nonzero("reuse_distance"));
    assert_eq!(find(&list, "trace-reuse-time").2, nonzero("reuse_time"));
    let html = std::fs::read_to_string(&page).unwrap();
    // The blender verdict and the stream figures of `trace stat`'s text (113,872 requests,
    // 65,601 continuing one of 8,711 streams: 57.6 %; 28,699 in arrival order: 25.2 %).
    assert!(
        html.contains("<li>I/O blender: 57.6 % of requests continue a stream, 25.2 %"),
        "verdict"
    );
    assert!(html.contains("<td>57.6 %</td>") && html.contains("<td>25.2 %</td>"));
    assert!(html.contains("<td>8711</td>"), "stream count");
    // The same page straight from `iolab trace stat --html`.
    let (direct, _) = iolab(&["trace", "stat", &trace.display().to_string(), "--html"]);
    assert_eq!(charts(&direct), charts(&html));
}

/// Two 2-second null-engine runs (QD1 and QD2) with JSON Lines intervals.
fn two_runs(d: &Path) -> (String, String) {
    let run = |name: &str, depth: &str| {
        let out = p(d, name);
        iolab(&[
            "run",
            "--name=a",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=64m",
            "--time_based",
            "--runtime=2",
            &format!("--iodepth={depth}"),
            "--output-format=json,jsonl",
            &format!("--output={out}"),
        ]);
        out
    };
    (run("qd1.json", "1"), run("qd2.json", "2"))
}

#[test]
fn compare_as_html() {
    let d = scratch("compare");
    let (a, b) = two_runs(&d);
    let page = d.join("compare.html");
    iolab(&["compare", &a, &b, "--output-format=html", &format!("--output={}", page.display())]);
    let list = check_page(&page, 256 << 10);
    // Bars: iops, bw, slat mean, clat mean, lat mean, p50, p99, p99.9, each for read and
    // write (2 categories) of both files (2 series): 4 bars; slat only where the null engine
    // reported a submission (chart 2). Overlays: read and write of both files, 2 s at 0.5 s.
    let bars: Vec<_> = list.iter().filter(|c| !c.0.contains("-ts-")).collect();
    assert_eq!(bars.len(), 8, "{list:?}");
    assert!(bars.iter().filter(|c| c.0 != "i0-cmp-2").all(|c| (c.1, c.2) == (2, 4)), "{bars:?}");
    for id in ["cmp-ts-iops", "cmp-ts-bw", "cmp-ts-lat"] {
        let c = find(&list, id);
        assert_eq!(c.1, 4, "{c:?}");
        assert!((14..=18).contains(&c.2), "{c:?}");
    }
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("/qd1.json</td>") && html.contains("/qd2.json</td>"), "the files");
    // Significant or within noise depends on the machine's load; either carries its p-value
    // (on an idle machine p<0.001, escaped in the page).
    assert!(html.contains(" (p=") || html.contains(" (p&lt;0.001)"), "a verdict with its p-value");
    // The noise band: whiskers (three strokes each) over the bars of the metrics with
    // per-interval samples (iops, bw: 2 files x 2 directions each).
    let iops_svg =
        html.split("data-chart=\"i0-cmp-0\"").nth(1).unwrap().split("</svg>").next().unwrap();
    let whisker = "stroke=\"#000000\" stroke-width=\"2\"";
    assert_eq!(iops_svg.matches(whisker).count(), 3 * 4, "whiskers of the iops bars");
    // `iolab report` on the saved comparison and the runs: the same bars, the overlays, and
    // each run's own section.
    let (json, _) = iolab(&["compare", &a, &b, "--output-format=json"]);
    std::fs::write(d.join("cmp.json"), json).unwrap();
    let page = d.join("report.html");
    iolab(&["report", &p(&d, "cmp.json"), &a, &b, "-o", &page.display().to_string()]);
    let all = check_page(&page, 512 << 10);
    for c in &list {
        assert!(all.contains(c), "{c:?} in the report of the saved comparison");
    }
    assert!(all.iter().any(|c| c.0 == "i2-j0-iops"), "the second run's own section");
}

#[test]
fn replay_of_the_bundled_trace_as_html() {
    let trace = shared().join("traces/cloudPhysicsIO.oracleGeneral.bin");
    if !trace.exists() {
        println!("skip: {} not found", trace.display());
        return;
    }
    let d = scratch("replay");
    let page = d.join("replay.html");
    iolab(&[
        "replay",
        &trace.display().to_string(),
        &format!("--filename={}", p(&d, "target")),
        "--ioengine=psync",
        "--direct=0",
        "--iodepth=1",
        "--limit=3000",
        "--output-format=html",
        &format!("--output={}", page.display()),
    ]);
    let list = check_page(&page, 256 << 10);
    // The trace is all reads: one series in the latency charts.
    assert_eq!(find(&list, "lat-hist").1, 1, "{list:?}");
    assert_eq!(find(&list, "lat-pct").1, 1, "{list:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<td>read</td>") && html.contains("<td>3000</td>"), "3,000 reads");
    assert!(html.contains("<th>engine</th><td>psync</td>"), "the engine used");
}

#[test]
fn calibrate_sweep_as_html() {
    let d = scratch("calibrate");
    let page = d.join("cal.html");
    let (_, err) = iolab(&[
        "calibrate",
        &p(&d, "target.dat"),
        // Each sweep point gets a share of the budget; on a loaded machine a short one can
        // end a 1 MiB write point before any I/O completed (calibrate then fails).
        "--budget=20s",
        "--size=16MiB",
        "--max-depth=4",
        "--output-format=html",
        "-o",
        &page.display().to_string(),
    ]);
    // stderr prints one line per sweep point: `  randread   bs=4096 qd=1 IOPS …`.
    let points: Vec<&str> =
        err.lines().filter(|l| l.contains(" bs=") && l.contains(" qd=")).collect();
    assert!(!points.is_empty(), "{err}");
    let list = check_page(&page, 256 << 10);
    let bars: Vec<_> = list.iter().filter(|c| !c.0.ends_with("cal-err")).collect();
    // Each pattern: IOPS and p99, measured and fitted, one bar pair per sweep point.
    let total: usize = bars.iter().filter(|c| c.0.ends_with("-iops")).map(|c| c.2).sum();
    assert_eq!(total, 2 * points.len(), "{list:?}");
    assert!(bars.iter().all(|c| c.1 == 2), "{bars:?}");
    let patterns = bars.len() / 2;
    let e = find(&list, "cal-err");
    assert_eq!((e.1, e.2), (2, 2 * patterns));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("<tr><td>rand").count()
            + html.matches("<tr><td>read").count()
            + html.matches("<tr><td>write").count(),
        points.len(),
        "one fit-table row per point"
    );
}

/// Issue 32 item 6: `iolab report PROFILE.toml` draws the page `calibrate --html` wrote in
/// the same run (the newcomer review: "`report` can't read a calibration profile, so seeing
/// the sweep means calibrating again"). A preset's profile: no I/O.
#[test]
fn report_draws_a_profile_toml_as_calibrate_html_does() {
    let d = scratch("profile-toml");
    let (toml, page) = (p(&d, "p.toml"), p(&d, "cal.html"));
    let args = ["calibrate", "--from-preset=hdd-7200", "-o", &toml, "--html", &page];
    let (_, err) = iolab(&args);
    assert!(err.contains("wrote the profile's page to"), "{err}");
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(text.contains("version = 1") && text.contains("name = \"hdd-7200\""), "{text}");
    let (_, err) = iolab(&["report", &toml, "-o", &p(&d, "rep.html")]);
    assert!(err.contains("rep.html"), "{err}");
    let cal = std::fs::read_to_string(d.join("cal.html")).unwrap();
    let rep = std::fs::read_to_string(d.join("rep.html")).unwrap();
    assert!(cal.contains("Device profile: hdd-7200"), "the profile's section");
    // The same page but for the input's label in the title ("calibrate" against the file).
    assert_eq!(rep.replace("p.toml", "calibrate"), cal);
}

/// Issue 32 item 6: one calibration writes the profile and its page, and stderr shows the
/// sweep as it goes: a line per run (stderr is a pipe here) with the runs done of planned,
/// the point, its IOPS and the time left of the budget, counting up to the plan.
#[test]
fn calibrate_shows_progress_and_writes_profile_and_page_in_one_run() {
    let d = scratch("calibrate-ux");
    let (toml, page) = (p(&d, "p.toml"), p(&d, "cal.html"));
    let (_, err) = iolab(&[
        "calibrate",
        &p(&d, "target.dat"),
        "--budget=20s",
        "--size=16MiB",
        "--max-depth=4",
        "-o",
        &toml,
        "--html",
        &page,
    ]);
    let runs: Vec<(usize, usize)> = err
        .lines()
        .filter_map(|l| l.strip_prefix("iolab: calibrate: run "))
        .map(|l| {
            assert!(l.contains(" IOPS; ") && l.contains(" s of the 20.0 s budget, "), "{l}");
            let (k, rest) = l.split_once('/').unwrap();
            (k.parse().unwrap(), rest.split_once(':').unwrap().0.parse().unwrap())
        })
        .collect();
    assert!(err.contains("iolab: calibrate: laid out the file; "), "{err}");
    let (last, total) = *runs.last().unwrap();
    assert_eq!(last, total, "the last run is the plan's last: {runs:?}");
    assert!(runs.windows(2).all(|w| w[1].0 == w[0].0 + 1), "one line per run: {runs:?}");
    // Every point measured at least once: 21 points (11 read, 9 write, the 50/50 one).
    assert!(total >= 21, "{runs:?}");
    let profile = std::fs::read_to_string(&toml).unwrap();
    assert_eq!(profile.lines().filter(|l| *l == "[[point]]").count(), 21, "{profile}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Device profile: ") && html.contains("target.dat"), "its page");
    let (_, err) = iolab(&["report", &toml, "-o", &p(&d, "rep.html")]);
    assert!(err.contains("rep.html"), "{err}");
    let rep = std::fs::read_to_string(d.join("rep.html")).unwrap();
    assert_eq!(rep.replace("p.toml", "calibrate"), html);
}

/// A device profile (iolab-calibrate's TOML, version 1) for `--predict`: 100 µs random and
/// 20 µs sequential service, 2 GB/s, 4 servers, a flat latency shape.
fn profile(d: &Path) -> String {
    let dir = "base_us=100\nseq_base_us=20\nxfer_bytes_per_sec=2e9\nservers=4\n\
               shape=[[0.0,1.0],[1.0,1.0]]\n";
    let head = "version = 1\nname = \"test-ssd\"\ncapacity = 1073741824\nservers = 4\n";
    let text = format!("{head}[read]\n{dir}[write]\n{dir}");
    std::fs::write(d.join("p.toml"), text).unwrap();
    p(d, "p.toml")
}

/// The predict-vs-measure charts of a page: IOPS, bandwidth, p50 and p99, each measured and
/// predicted (2 series) for read and write of the one group (2 points per series).
fn check_predict(list: &[(String, usize, usize)], html: &str, doc: Option<&serde_json::Value>) {
    let pred: Vec<_> = list.iter().filter(|c| c.0.contains("-pred-")).collect();
    assert_eq!(pred.len(), 4, "{list:?}");
    assert!(pred.iter().all(|c| (c.1, c.2) == (2, 4)), "{pred:?}");
    assert!(find(list, "j0-iops").2 > 0, "the run's own charts beside them");
    assert!(html.contains("Predicted vs measured") && html.contains("test-ssd"));
    assert!(html.contains("<td>read</td>") && html.contains("<td>write</td>"), "table rows");
    if let Some(doc) = doc {
        // Each category names the error of its metric in percent, as the JSON has it.
        for (i, dir) in ["read", "write"].iter().enumerate() {
            let row = &doc["iolab_predict"]["rows"][i];
            assert_eq!(row["dir"], *dir);
            for key in ["iops", "bw", "p50", "p99"] {
                let e = row["error"][key].as_f64().unwrap() * 100.0;
                let label = format!("g0 {dir} ({e:+.1} %)");
                assert!(html.contains(&label), "{label} on the page");
            }
        }
    }
}

#[test]
fn predict_vs_measure_as_html() {
    let d = scratch("predict");
    let prof = profile(&d);
    let run = |fmt: &str, out: &str| {
        iolab(&[
            "run",
            "--name=a",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=64m",
            "--time_based",
            "--runtime=2",
            "--status-interval=0.5",
            &format!("--predict={prof}"),
            &format!("--output-format={fmt}"),
            &format!("--output={out}"),
        ])
    };
    let page = d.join("run.html");
    run("html", &page.display().to_string());
    let list = check_page(&page, 1 << 20);
    check_predict(&list, &std::fs::read_to_string(&page).unwrap(), None);
    // `iolab report` on the saved JSON: the same charts, and the errors read back.
    let json = p(&d, "run.json");
    run("json,jsonl", &json);
    let text = std::fs::read_to_string(&json).unwrap();
    let doc: serde_json::Value =
        serde_json::Deserializer::from_str(&text).into_iter().next().unwrap().unwrap();
    let page = d.join("report.html");
    iolab(&["report", &json, "-o", &page.display().to_string()]);
    let list = check_page(&page, 1 << 20);
    check_predict(&list, &std::fs::read_to_string(&page).unwrap(), Some(&doc));
}
