//! After parse-then-resolve, no crate outside `job` looks an option up by a string literal:
//! it reads [`iolab_job::Job`]'s typed fields and accessors (defaults from the registry), or
//! the typed values put into a result when it is built. This test scans every other crate's
//! `src/` (test modules after `#[cfg(test)]` excepted) for the look-up forms the review found
//! (`.options.get("…")`, `opt_u64(job, "…")`, `global_options.get("…")`, …) and fails naming
//! the file and line of each.

use std::path::{Path, PathBuf};

/// Calls that look an option up by name; each is followed by an optional receiver argument
/// and then the string literal.
const CALLS: &[&str] = &[
    "options.get(",
    "options.contains_key(",
    "options.get_key_value(",
    "options.remove(",
    "opt(",
    "opt_u64(",
    "opt_bool(",
    "opt_str(",
    "opt_on(",
    "opt_time(",
];

/// The look-ups on one line: the call as written.
fn lookups(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or(line);
    let mut found = Vec::new();
    for call in CALLS {
        let mut from = 0;
        while let Some(i) = code[from..].find(call) {
            let at = from + i;
            from = at + call.len();
            // `opt(` must be its own name, not the tail of `some_opt(`.
            let prev = code[..at].chars().next_back();
            if !call.contains('.') && prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let args = &code[from..];
            // `opt(&mut job, "x", …)` sets an option (cli `data gen`), it does not read one.
            if args.trim_start().starts_with("&mut ") {
                continue;
            }
            // The literal is the first argument, or the second after a receiver (`job, "x"`).
            let first = args.trim_start();
            let second = args.split_once(',').map(|(_, r)| r.trim_start());
            if first.starts_with('"') || second.is_some_and(|s| s.starts_with('"')) {
                found.push(format!("{call}{}", args.chars().take(40).collect::<String>()));
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_scanner_sees_each_form() {
    for l in [
        r#"let d = job.options.get("iodepth");"#,
        r#"opt_u64(job, "fsync").unwrap_or(0)"#,
        r#"run.global_options.get("group_reporting")"#,
        r#"job.opt_bool("end_fsync")"#,
        r#"if job.options.contains_key("write_bw_log") {"#,
    ] {
        assert_eq!(lookups(l).len(), 1, "{l}");
    }
    for l in
        [r#"job.iodepth_batch()"#, r#"map.get(k)"#, r#"// opt_u64(job, "x")"#, r#"parse_opt("x")"#]
    {
        assert!(lookups(l).is_empty(), "{l}");
    }
}

#[test]
fn no_option_lookup_by_name_outside_job() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let Ok(rd) = std::fs::read_dir(&crates) else { panic!("cannot list {}", crates.display()) };
    for e in rd.flatten() {
        if e.file_name() != "job" {
            rust_files(&e.path().join("src"), &mut files);
        }
    }
    files.sort();
    assert!(files.len() > 50, "only {} source files found under {}", files.len(), crates.display());
    let mut bad = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            for l in lookups(line) {
                let rel = f.strip_prefix(&crates).unwrap_or(f);
                bad.push(format!("crates/{}:{}: {l}", rel.display(), n + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "option looked up by name outside crates/job (read a typed field or accessor):\n{}",
        bad.join("\n")
    );
}
