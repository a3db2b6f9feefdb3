//! `--help` is the contract a user pastes from: every subcommand's help lists real flags (no
//! catch-all `rest` hiding them), `iolab sim --help` spells the tier grammar and the names
//! `--list` prints, and every example in every help text runs as pasted (those naming result
//! files get them made first).
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

const SUBCOMMANDS: &[&str] = &[
    "run", "sim", "parse", "options", "data", "trace", "replay", "mrc", "fill", "compare",
    "report", "plot", "preset",
];

fn iolab(dir: &Path, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iolab")).current_dir(dir).args(args).output().unwrap()
}

fn help(sub: &str) -> String {
    let o = iolab(Path::new("."), &[sub.to_string(), "--help".to_string()]);
    assert!(o.status.success(), "iolab {sub} --help: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The example command lines of a help text: lines starting with `iolab ` after an
/// `Example:`/`Examples:` heading, with `\` continuations joined.
fn examples(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut in_examples = false;
    let mut pending = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Example") && t.ends_with(':') {
            in_examples = true;
            continue;
        }
        if !in_examples {
            continue;
        }
        if !pending.is_empty() || t.starts_with("iolab ") {
            pending.push_str(t.trim_end_matches('\\'));
            pending.push(' ');
            if !t.ends_with('\\') {
                out.push(pending.split_whitespace().skip(1).map(String::from).collect());
                pending.clear();
            }
        } else if t.is_empty() || !line.starts_with(' ') {
            in_examples = false;
        } else {
            // A line clap wrapped: pasted, it would run as two commands.
            panic!("example line without `iolab` or a `\\` before it: {line:?}");
        }
    }
    out
}

#[test]
fn every_flag_is_listed_and_every_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    // Result files the compare example names.
    let mk = ["run", "--name=x", "--rw=read", "--size=1m", "--filename=r.dat"];
    let mut mk: Vec<String> = mk.iter().map(|s| s.to_string()).collect();
    mk.push("--output-format=json".into());
    for f in ["before.json", "after.json", "fio.json", "iolab.json"] {
        let o = iolab(dir.path(), &mk);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::write(dir.path().join(f), o.stdout).unwrap();
    }
    let mut ran = 0;
    for sub in SUBCOMMANDS {
        let text = help(sub);
        assert!(!text.contains("[REST]"), "iolab {sub} --help hides its flags:\n{text}");
        for ex in examples(&text) {
            let o = iolab(dir.path(), &ex);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "example `iolab {}` failed: {err}", ex.join(" "));
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} examples found");
}

#[test]
fn run_and_sim_list_their_own_flags() {
    let run = help("run");
    for f in ["--allow-destroy", "--prefill", "--phase-time", "--cache-size", "--write-iolog"] {
        assert!(run.contains(f), "iolab run --help lacks {f}:\n{run}");
    }
    let sim = help("sim");
    for f in ["--tier", "--backing", "--hierarchy", "--trace", "--object-level", "--list"] {
        assert!(sim.contains(f), "iolab sim --help lacks {f}:\n{sim}");
    }
    assert!(help("parse").contains("--defaults"));
}

#[test]
fn sim_help_spells_the_tier_grammar_and_the_listed_names() {
    let text = help("sim");
    assert!(text.contains("KIND:SIZE[:POLICY[:WRITE]][:key=value...]"), "{text}");
    assert!(text.contains("1GiB = 1G = 1073741824"), "{text}");
    // The tier keys a newcomer could not find (issue 35), each with what it sets.
    for k in ["battery", "dirty_ratio", "metadata_only", "flush_rate", "sequential_cutoff"] {
        assert!(text.lines().any(|l| l.trim_start().starts_with(k)), "{k} not in:\n{text}");
    }
    let o = iolab(Path::new("."), &["sim".to_string(), "--list".to_string()]);
    let list = String::from_utf8(o.stdout).unwrap();
    let names: Vec<&str> = list
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.len() >= 10, "{list}");
    for n in names {
        assert!(text.contains(n), "`{n}` from --list is not in iolab sim --help");
    }
}
