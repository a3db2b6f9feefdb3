//! Every path a command takes, with the intent it is declared under to the gate
//! (`iolab_core::gate`): the flags and positionals of every command whose values are paths,
//! walked from clap's command tree (so a new one cannot be missed: undeclared, it shows as
//! such and the docs test fails), and the job options that name files
//! (`iolab_job::registry::paths`). Printed by `iolab options --paths` and committed as
//! `docs/paths.md`; the cli's gate test walks the same rows, pointing each at a block device
//! or a missing `/dev` name.

use clap::{CommandFactory, ValueHint};
use iolab_core::gate::Intent;

/// The intent of each path argument: (command path, clap argument id, intent).
const DECLARED: &[(&str, &str, Intent)] = &[
    ("run", "write_iolog", Intent::Output),
    ("run", "predict", Intent::Input),
    ("run", "rest", Intent::Input),
    ("sim", "hierarchy", Intent::Input),
    ("sim", "trace", Intent::Input),
    ("sim", "output", Intent::Output),
    ("sim", "write_iolog", Intent::Output),
    ("sim", "rest", Intent::Input),
    ("calibrate", "target", Intent::Target),
    ("calibrate", "output", Intent::Output),
    ("calibrate", "html", Intent::Output),
    ("parse", "rest", Intent::Input),
    ("data gen", "output", Intent::Output),
    ("data measure", "path", Intent::Input),
    ("trace stat", "trace", Intent::Input),
    ("trace convert", "input", Intent::Input),
    ("trace convert", "output", Intent::Output),
    ("replay", "trace", Intent::Input),
    ("replay", "target", Intent::Target),
    ("replay", "output", Intent::Output),
    ("mrc", "trace", Intent::Input),
    ("mrc", "job", Intent::Input),
    ("compare", "files", Intent::Input),
    ("compare", "output", Intent::Output),
    ("report", "results", Intent::Input),
    ("report", "output", Intent::Output),
    ("plot", "results", Intent::Input),
    ("plot", "out_dir", Intent::Output),
    ("server", "secret_file", Intent::Input),
    // The private directory (0700, refused when others can enter it) where the server keeps
    // each job's intervals (O_EXCL 0600 files) until the client has the result.
    ("server", "state_dir", Intent::Output),
    // `run --secret-file` is in run's help (cmd/server's help-only flags); taken before clap.
    ("run", "secret_file", Intent::Input),
];

/// The intent of each fio global flag that takes a path (`run`, `sim`, `parse`, `fio`).
const FIO_FLAG_INTENTS: &[(&str, Intent)] = &[
    ("output", Intent::Output),
    ("latency-log", Intent::Output),
    ("daemonize", Intent::Output),
    ("remote-config", Intent::Input),
    ("trigger-file", Intent::Input),
    ("aux-path", Intent::Output),
];

/// The many-host flags `run` (and fio's personality) takes before clap sees its arguments
/// (`cmd/server/client.rs`): (command, syntax, intent).
const MANY_HOST_FLAGS: &[(&str, &str, Intent)] =
    &[("run", "--client=HOSTS_OR_HOSTFILE", Intent::Input)];

/// One path argument of one command.
#[derive(Debug)]
pub struct Row {
    pub command: String,
    /// clap's argument id (or the fio flag's name), the key of [`DECLARED`].
    #[allow(dead_code)]
    pub id: String,
    /// `--output=PATH`, `-o PATH` or `<INPUT>` (positional).
    pub syntax: String,
    pub intent: Option<Intent>,
}

fn takes_path(a: &clap::Arg) -> bool {
    let takes = a.get_action().takes_values();
    let hinted = matches!(
        a.get_value_hint(),
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath | ValueHint::ExecutablePath
    );
    let pathy = |n: &str| {
        ["JOB", ".toml", "PATH"].iter().any(|w| n.contains(w)) || ["FILE", "DIR"].contains(&n)
    };
    let named = a.get_value_names().is_some_and(|v| v.iter().any(|n| pathy(n)));
    takes && (hinted || named)
}

fn syntax(a: &clap::Arg) -> String {
    let value = a
        .get_value_names()
        .and_then(|v| v.first().map(|n| n.to_string()))
        .unwrap_or_else(|| a.get_id().as_str().to_uppercase());
    match (a.get_long(), a.get_short()) {
        (Some(l), _) => format!("--{l}={value}"),
        (None, Some(s)) => format!("-{s} {value}"),
        (None, None) => format!("<{value}>"),
    }
}

fn walk(cmd: &clap::Command, prefix: &str, rows: &mut Vec<Row>) {
    for a in cmd.get_arguments().filter(|a| takes_path(a)) {
        let id = a.get_id().as_str().to_string();
        let intent = DECLARED.iter().find(|(c, i, _)| *c == prefix && *i == id).map(|d| d.2);
        rows.push(Row { command: prefix.to_string(), id, syntax: syntax(a), intent });
    }
    for sub in cmd.get_subcommands() {
        walk(sub, format!("{prefix} {}", sub.get_name()).trim(), rows);
    }
}

/// The path arguments of every command, in command order.
pub fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut cli = super::Cli::command();
    cli.build();
    walk(&cli, "", &mut rows);
    let fio_paths = iolab_job::cmdline::FIO_FLAGS
        .iter()
        .filter(|f| matches!(f.value, "file" | "path" | "pidfile"));
    for f in fio_paths {
        let intent = FIO_FLAG_INTENTS.iter().find(|(n, _)| *n == f.name).map(|d| d.1);
        let syntax = format!("--{}={}", f.name, f.value.to_uppercase());
        rows.push(Row { command: "run".into(), id: f.name.into(), syntax, intent });
    }
    for &(command, syntax, intent) in MANY_HOST_FLAGS {
        let id = syntax.trim_start_matches("--").split('=').next().unwrap_or_default();
        rows.push(Row {
            command: command.into(),
            id: id.into(),
            syntax: syntax.into(),
            intent: Some(intent),
        });
    }
    rows
}

/// `docs/paths.md`.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Paths: every path-taking flag and option, and its intent\n\n\
         Generated by `iolab options --paths` from the command tree and the job option \
         registry; a test fails when this file is stale. Every path goes through one gate \
         (`crates/core/src/gate/`), which classifies it once (symlinks, `..`, \
         `/proc/self/root` and relative names resolved) and applies the rule of its \
         intent.\n\n## Intents\n\n| intent | rule |\n|---|---|\n",
    );
    for i in [Intent::Input, Intent::Output, Intent::Target, Intent::FileOp, Intent::Scratch] {
        s.push_str(&format!("| {} | {} |\n", i.name(), i.rule()));
    }
    s.push_str("\n## Command-line flags\n\n| command | argument | intent |\n|---|---|---|\n");
    for r in rows() {
        let intent = r.intent.map_or("UNDECLARED", Intent::name);
        s.push_str(&format!("| {} | `{}` | {intent} |\n", r.command, r.syntax));
    }
    s.push_str(
        "\n## Job options\n\nAlso accepted as `--NAME=VALUE` by `run`, `sim`, `parse` and \
         `fio`.\n\n| option | intent | what |\n|---|---|---|\n",
    );
    for o in iolab_job::registry::paths::PATH_OPTIONS {
        s.push_str(&format!("| `{}` | {} | {} |\n", o.name, o.intent.name(), o.what));
    }
    s.push_str(
        "\n## Files iolab makes for itself\n\n| file | intent |\n|---|---|\n\
         | quick profile: `DIR/.iolab-quick-PID.RANDOM/quick.dat` | scratch |\n\
         | calibrate DIR: `DIR/iolab-calibrate-PID.RANDOM/iolab-calibrate.dat` | scratch |\n\
         | calibrate NEW: `PARENT/.iolab-calibrate-PID.RANDOM/NEW` | scratch |\n\
         | every output: `.NAME.iolab-tmp.PID.N.RANDOM` beside it, renamed over it | scratch |\n",
    );
    s
}
