//! Every scenario in `examples/*.md` runs as written (issue 35): a fenced ```` ```sh ```` block
//! right after a `<!-- check … -->` comment holds commands (`$ iolab …`, a trailing `\`
//! continues a line), run in order as one `sh -e` script (so a variable set by one is seen by
//! the next, as when pasted into one shell) in a scratch directory with the built `iolab`
//! first on PATH and the repository's `examples/` linked in (and `../shared` as `shared`, so `shared/jobs/x.fio` works
//! as it does from the repository's root); the ```` ```text ```` block after it is the
//! expected output, an excerpt. Each expected line must appear, in order, in what the
//! commands printed (stdout and stderr), its words exactly and each of its numbers within the
//! block's tolerance: `<!-- check tol=5% -->` (default 0: exact). `slow` marks a block left
//! out of the quick tier, `root` one that needs root (both print `skip:` when left out).
//! Every example must hold at least one such block, or say why it cannot in a
//! `<!-- no-check: reason -->` line (printed as a skip), and the README must link every
//! example.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// One checked block: its commands, the expected excerpt and the relative tolerance.
#[derive(Debug)]
struct Check {
    line: usize,
    commands: Vec<String>,
    expected: Vec<String>,
    tol: f64,
    /// Words of the marker: `slow`, `root`.
    flags: Vec<String>,
}

/// The `<!-- check -->` blocks of a Markdown file.
fn checks(md: &str) -> Vec<Check> {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        if !(l.starts_with("<!-- check") && l.ends_with("-->")) {
            i += 1;
            continue;
        }
        let tol = l
            .split_whitespace()
            .find_map(|w| w.strip_prefix("tol="))
            .map(|t| t.trim_end_matches('%').parse::<f64>().unwrap() / 100.0)
            .unwrap_or(0.0);
        let start = i + 1;
        let (commands, after) = fenced(&lines, start, "```sh");
        let (expected, next) = fenced(&lines, after, "```text");
        let commands = join_continuations(&commands)
            .into_iter()
            .filter_map(|c| c.strip_prefix("$ ").map(str::to_string))
            .collect();
        let expected = expected.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let flags = l.split_whitespace().filter(|w| matches!(*w, "slow" | "root"));
        let flags = flags.map(str::to_string).collect();
        out.push(Check { line: start, commands, expected: expected.collect(), tol, flags });
        i = next;
    }
    out
}

/// The lines of the fenced block opening at or after `from` (blank lines skipped before it)
/// with `fence`, and the index after its closing fence.
fn fenced(lines: &[&str], mut from: usize, fence: &str) -> (Vec<String>, usize) {
    while from < lines.len() && lines[from].trim().is_empty() {
        from += 1;
    }
    assert!(
        lines.get(from).is_some_and(|l| l.trim() == fence),
        "line {}: expected a {fence} block after the check comment",
        from + 1
    );
    let mut body = Vec::new();
    let mut k = from + 1;
    while k < lines.len() && lines[k].trim() != "```" {
        body.push(lines[k].to_string());
        k += 1;
    }
    (body, k + 1)
}

fn join_continuations(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for l in lines {
        if open {
            let last = out.last_mut().unwrap();
            last.truncate(last.trim_end().len());
            last.push(' ');
            last.push_str(l.trim());
        } else {
            out.push(l.clone());
        }
        let last = out.last_mut().unwrap();
        open = last.ends_with('\\');
        if open {
            last.pop();
        }
    }
    out
}

/// A line as text and numbers alternating, text first and last (either may be empty).
fn tokens(s: &str) -> (Vec<String>, Vec<f64>) {
    let b = s.as_bytes();
    let (mut texts, mut nums) = (vec![String::new()], Vec::new());
    let mut i = 0;
    while i < b.len() {
        let digit = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
        let sign = b[i] == b'-' && digit(i + 1) && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if digit(i) || sign {
            let st = i;
            i += 1;
            while digit(i) || (b[i..].first() == Some(&b'.') && digit(i + 1)) {
                i += 1;
            }
            nums.push(s[st..i].parse().unwrap());
            texts.push(String::new());
        } else {
            let ch = s[i..].chars().next().unwrap();
            texts.last_mut().unwrap().push(ch);
            i += ch.len_utf8();
        }
    }
    (texts, nums)
}

/// Where `want` occurs in `line` with its numbers replaced by the line's: the pairs
/// (expected, found), or `None` when its words do not occur.
fn matches(want: &str, line: &str) -> Option<Vec<(f64, f64)>> {
    let (et, en) = tokens(want);
    let (at, an) = tokens(line);
    if en.is_empty() {
        return line.contains(want).then(Vec::new);
    }
    let k = en.len();
    (0..an.len().saturating_sub(k - 1)).find_map(|j| {
        let ok = at[j].ends_with(&et[0])
            && (1..k).all(|m| at[j + m] == et[m])
            && at[j + k].starts_with(&et[k]);
        ok.then(|| en.iter().copied().zip(an[j..j + k].iter().copied()).collect())
    })
}

/// Every expected line in order in `out`, each number within `tol`; the first miss, if any.
fn compare(expected: &[String], out: &str, tol: f64) -> Result<(), String> {
    let lines: Vec<&str> = out.lines().collect();
    let mut at = 0;
    for want in expected {
        let found = lines[at..].iter().enumerate().find_map(|(k, l)| Some((k, matches(want, l)?)));
        let Some((k, pairs)) = found else {
            return Err(format!("no line like `{want}` (after line {at} of the output)"));
        };
        for (e, a) in pairs {
            if (a - e).abs() > tol * e.abs() + 1e-9 {
                let line = lines[at + k];
                return Err(format!("`{want}`: {a} against {e} (±{}%) in `{line}`", tol * 100.0));
            }
        }
        at += k + 1;
    }
    Ok(())
}

fn run_block(c: &Check, bin_dir: &Path) -> String {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::os::unix::fs::symlink(examples_dir().canonicalize().unwrap(), d.path().join("examples"))
        .unwrap();
    // The field job files stay outside the repository (../shared/jobs beside it); the
    // examples name them as `shared/jobs/x.fio`.
    let shared = examples_dir().join("../../shared");
    if let Ok(s) = shared.canonicalize() {
        std::os::unix::fs::symlink(s, d.path().join("shared")).unwrap();
    }
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let script = format!("set -e\n{}\n", c.commands.join("\n"));
    let o = Command::new("sh")
        .args(["-c", &format!("exec 2>&1\n{script}")])
        .current_dir(d.path())
        .env("PATH", &path)
        .stdin(iolab_test_support::empty_stdin().unwrap())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{script} failed ({}):\n{text}", o.status);
    text
}

/// Why block `c` of `name` does not run here, if it does not.
fn left_out(name: &str, c: &Check) -> Option<String> {
    let has = |f: &str| c.flags.iter().any(|x| x == f);
    if has("slow") {
        if let Err(why) = iolab_test_support::quick_tier("a slow example") {
            return Some(format!("{name}:{}: {why}", c.line));
        }
    }
    if has("root") && !iolab_test_support::is_root() {
        return Some(format!("{name}:{}: needs root (loop devices, mkfs, mount)", c.line));
    }
    None
}

#[test]
fn every_example_runs_as_written() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_iolab"));
    let bin_dir = bin.parent().unwrap();
    let readme = std::fs::read_to_string(examples_dir().join("../README.md")).unwrap();
    let mut failures = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(readme.contains(&format!("examples/{name}")), "the README does not link {name}");
        let text = std::fs::read_to_string(f).unwrap();
        let blocks = checks(&text);
        if let Some(why) = text.lines().find_map(|l| l.trim().strip_prefix("<!-- no-check:")) {
            println!("skip: examples/{name}: {}", why.trim_end_matches("-->").trim());
            continue;
        }
        assert!(!blocks.is_empty(), "{name} has no <!-- check --> block");
        for c in &blocks {
            if let Some(why) = left_out(&name, c) {
                println!("skip: examples/{why}");
                continue;
            }
            assert!(!c.commands.is_empty() && !c.expected.is_empty(), "{name}:{}: {c:?}", c.line);
            let t = std::time::Instant::now();
            let out = run_block(c, bin_dir);
            let verdict = compare(&c.expected, &out, c.tol);
            println!("{name}:{}: {} commands, {:.1} s: {verdict:?}", c.line, c.commands.len(), {
                t.elapsed().as_secs_f64()
            });
            if let Err(e) = verdict {
                failures.push(format!("{name}:{}: {e}\n--- output ---\n{out}", c.line));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn expected_lines_match_by_words_and_numbers_within_tolerance() {
    let out = "tier ram0 (lru): read hit ratio 0.2327, fill 100.0%\ndevice hdd: 16384 ops";
    let want = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(compare(&want(&["read hit ratio 0.23, fill 100.0%"]), out, 0.02), Ok(()));
    let e = compare(&want(&["read hit ratio 0.25"]), out, 0.02).unwrap_err();
    assert!(e.contains("0.2327 against 0.25"), "{e}");
    // Order matters, and words must match exactly.
    assert!(compare(&want(&["16384 ops", "hit ratio 0.2327"]), out, 0.0).is_err());
    assert!(compare(&want(&["read miss ratio 0.2327"]), out, 0.0).is_err());
    assert_eq!(compare(&want(&["ram0 (lru)", "hdd: 16384 ops"]), out, 0.0), Ok(()));
    assert_eq!(tokens("IOPS=-5 x-1").1, [-5.0, 1.0]);
    let md = "<!-- check tol=3% -->\n```sh\n$ iolab a \\\n  --b\n# note\n```\n```text\n x 1\n```\n";
    let c = &checks(md)[0];
    assert_eq!(
        (c.commands.clone(), c.expected.clone(), c.tol),
        (want(&["iolab a --b"]), want(&["x 1"]), 0.03)
    );
}

/// Issue 35: the README is a guide under 200 lines (the performance diary lives in
/// docs/performance.md); a merge that adds a section must move something out.
#[test]
fn the_readme_stays_under_200_lines() {
    let readme = std::fs::read_to_string(examples_dir().join("../README.md")).unwrap();
    let n = readme.lines().count();
    assert!(n < 200, "README.md has {n} lines: move detail to docs/ or examples/");
}
