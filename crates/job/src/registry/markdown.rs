//! `docs/options.md`, generated from the registry so the reference cannot drift from the
//! table (the fio HOWTO and its option table drift; iolab's test fails when the committed
//! file is stale).

use std::fmt::Write;

use super::{by_category, OptionDef, OptionType, Status, TimeUnit, OPTIONS};

/// The whole option reference as Markdown.
pub fn markdown() -> String {
    let mut s = String::new();
    let (mut sup, mut ign, mut uns) = (0, 0, 0);
    for o in OPTIONS {
        match o.status {
            Status::Supported => sup += 1,
            Status::Ignored(_) => ign += 1,
            Status::Unsupported(_) => uns += 1,
        }
    }
    s.push_str("# iolab job options\n\n");
    s.push_str(
        "Generated from the option registry (`crates/job/src/registry/`); do not edit by \
         hand. Regenerate with `cargo run -- options --markdown > docs/options.md`.\n\n",
    );
    let _ = writeln!(
        s,
        "{} options: {sup} supported, {ign} ignored (accepted with a warning), \
         {uns} unsupported (rejected with an error). Every name in fio's option table and \
         its engine option tables (fio f5344384) is listed.\n",
        OPTIONS.len()
    );
    s.push_str("Status markers: `+` supported, `~` ignored, `-` unsupported.\n\n");
    s.push_str("## Contents\n\n");
    for (cat, opts) in by_category() {
        let _ = writeln!(s, "- [{}](#{}) ({})", cat.title(), anchor(cat.title()), opts.len());
    }
    for (cat, opts) in by_category() {
        let _ = writeln!(s, "\n## {}\n", cat.title());
        s.push_str("| option | | summary |\n|---|---|---|\n");
        for o in &opts {
            let _ = writeln!(
                s,
                "| [`{}`](#{}) | {} | {} |",
                o.name,
                o.name,
                o.status.marker(),
                cell(o.help)
            );
        }
        for o in opts {
            entry(&mut s, o);
        }
    }
    s
}

fn entry(s: &mut String, o: &OptionDef) {
    let _ = writeln!(s, "\n### {}\n", o.name);
    let _ = writeln!(s, "{}\n", o.help);
    let _ = writeln!(s, "- type: {}", type_name(o.ty));
    if !o.aliases.is_empty() {
        let _ = writeln!(s, "- aliases: {}", code_list(o.aliases));
    }
    if !o.default.is_empty() {
        let _ = writeln!(s, "- default: `{}`", o.default);
    }
    if !o.choices.is_empty() {
        let _ = writeln!(s, "- choices: {}", code_list(o.choices));
    }
    if let Some(r) = bounds(o) {
        let _ = writeln!(s, "- range: {r}");
    }
    if !o.engine.is_empty() {
        let _ = writeln!(s, "- engine: {}", code_list(o.engine));
    }
    match o.status.reason() {
        None => {
            let _ = writeln!(s, "- status: {}", o.status.word());
        }
        Some(r) => {
            let _ = writeln!(s, "- status: {}: {}", o.status.word(), r);
        }
    }
    if !o.long_help.is_empty() {
        let _ = writeln!(s, "\n{}", o.long_help);
    }
}

/// How a type reads in listings.
pub fn type_name(ty: OptionType) -> &'static str {
    match ty {
        OptionType::Bool => "bool",
        OptionType::Int => "int",
        OptionType::Size => "size",
        OptionType::SizeOrPercent => "size or percent",
        OptionType::Time { unit: TimeUnit::Sec } => "time (default unit s)",
        OptionType::Time { unit: TimeUnit::Msec } => "time (default unit ms)",
        OptionType::Time { unit: TimeUnit::Usec } => "time (default unit us)",
        OptionType::Float => "float",
        OptionType::Str => "string",
        OptionType::Range => "range",
        OptionType::SizeList => "size list (read,write,trim)",
        OptionType::IntList => "int list (read,write,trim)",
        OptionType::Split => "split (bs/perc:...)",
        OptionType::Special => "special",
        OptionType::Deprecated => "deprecated",
    }
}

/// `min..=max`, `min..` or `..=max`, as fio's `minval`/`maxval`.
pub fn bounds(o: &OptionDef) -> Option<String> {
    match (o.min, o.max) {
        (None, None) => None,
        (Some(a), Some(b)) => Some(format!("{a}..={b}")),
        (Some(a), None) => Some(format!("{a}..")),
        (None, Some(b)) => Some(format!("..={b}")),
    }
}

fn code_list(v: &[&str]) -> String {
    v.iter().map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ")
}

fn cell(t: &str) -> String {
    t.replace('|', "\\|")
}

fn anchor(title: &str) -> String {
    title
        .to_ascii_lowercase()
        .chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => Some(c),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}
