//! Workload presets: the field's workloads (a database with its commit log, a backup window,
//! a host full of VMs) as fio job files kept in `crates/job/presets/*.fio`, one file each,
//! embedded here and listed in [`PRESETS`]. Adding a preset is one file and one table line.
//!
//! A preset file is an fio job file whose values may hold `{NAME}` or `{NAME*K/M…}`
//! placeholders over the preset's parameters ([`Param`]): `size` (bytes), `runtime` (ms),
//! `iodepth`, `streams`, `rate` (counts) and `filename` (text). [`expand`] fills them from the
//! preset's defaults (its [`Preset::defaults`]) and the user's overrides, so `iolab preset show NAME --size=64m` prints exactly the job file that
//! `iolab run --preset=NAME --size=64m` runs, and fio reads it as it is. Arithmetic is integer
//! and checked: a zero or overflowing value is an error naming the parameter.

use iolab_core::units::{self, KbBase, TimeUnitDefault};
use thiserror::Error;

/// One preset: its name, a line saying what it is, and its job file.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    /// The parameters it takes and their defaults, e.g. `size=1g runtime=60s`.
    pub defaults: &'static str,
    /// The template (`crates/job/presets/NAME.fio`).
    pub text: &'static str,
    /// The jobs whose `sync` latency is the commit latency: (without, with) a checkpoint.
    pub commit_jobs: Option<(&'static str, &'static str)>,
}

/// The presets, in `iolab preset list` order.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "oltp",
        summary: "TPC-C-like database: 8 KiB random 70/30 data, an fdatasync'd log, a checkpoint \
                  burst; headline: commit latency",
        defaults: "size=1g runtime=60s iodepth=16 rate=2000 filename=iolab-oltp.dat",
        text: include_str!("../presets/oltp.fio"),
        commit_jobs: Some(("log-quiet", "log-checkpoint")),
    },
    Preset {
        name: "backup",
        summary: "N sequential 1 MiB writer streams to one target (default 16): the field's \
                  HDD-only backup",
        defaults: "size=1g streams=16 iodepth=1 filename=iolab-backup.dat",
        text: include_str!("../presets/backup.fio"),
        commit_jobs: None,
    },
    Preset {
        name: "vm-blender",
        summary: "N sequential 64 KiB readers (VMs) interleaved at random: the I/O blender",
        defaults: "size=1g streams=16 rate=1600 runtime=10s filename=iolab-vm-blender.dat",
        text: include_str!("../presets/vm-blender.fio"),
        commit_jobs: None,
    },
];

/// The parameters a preset may take (`--NAME=VALUE` on `run`, `sim` and `preset show`).
pub const PARAMS: &[&str] = &["size", "runtime", "iodepth", "streams", "rate", "filename"];

/// `--directory=DIR` is also accepted: it places the default file name in DIR.
pub const DIRECTORY: &str = "directory";

/// Largest accepted values: beyond them the job could not be run anyway.
const MAX_SIZE: u64 = 1 << 50;
const MAX_RUNTIME_MS: u64 = 366 * 24 * 3600 * 1000;
const MAX_COUNT: u64 = 1 << 20;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum PresetError {
    #[error("--preset: unknown preset '{name}' (presets: {known})")]
    Unknown { name: String, known: String },
    #[error("--preset: {0}")]
    Name(String),
    #[error("--{param}={value}: {why}")]
    Value { param: String, value: String, why: String },
    #[error("--{0}: not a parameter of preset '{1}' (it takes: {2})")]
    NotTaken(String, &'static str, String),
    #[error("preset {preset}: {why}")]
    Template { preset: &'static str, why: String },
}

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bytes(u64),
    Millis(u64),
    Count(u64),
    Text(String),
}

impl Value {
    fn number(&self) -> Option<u64> {
        match self {
            Value::Bytes(n) | Value::Millis(n) | Value::Count(n) => Some(*n),
            Value::Text(_) => None,
        }
    }
    fn with(&self, n: u64) -> Value {
        match self {
            Value::Bytes(_) => Value::Bytes(n),
            Value::Millis(_) => Value::Millis(n),
            _ => Value::Count(n),
        }
    }
    /// As written into the job file: sizes with fio's 1024-based `k`/`m`/`g` when exact,
    /// times in `s` or `ms`.
    fn render(&self) -> String {
        match self {
            Value::Bytes(n) => {
                let units = [(1u64 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")];
                match units.iter().find(|(u, _)| n % u == 0) {
                    Some((u, s)) => format!("{}{s}", n / u),
                    None => n.to_string(),
                }
            }
            Value::Millis(ms) if ms % 1000 == 0 => format!("{}s", ms / 1000),
            Value::Millis(ms) => format!("{ms}ms"),
            Value::Count(n) => n.to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

/// The preset named `name`, or an error listing the presets.
pub fn find(name: &str) -> Result<&'static Preset, PresetError> {
    if name.is_empty() {
        return Err(PresetError::Name("empty name (see `iolab preset list`)".into()));
    }
    if name.len() > 64 || name.contains(['/', '\\', '.']) || name.chars().any(char::is_control) {
        let shown: String = name.chars().take(64).flat_map(char::escape_default).collect();
        return Err(PresetError::Name(format!(
            "'{shown}' is not a preset name: presets are built in, not paths (see `iolab \
             preset list`)"
        )));
    }
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| PresetError::Unknown {
        name: name.to_string(),
        known: PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
    })
}

/// One parameter's value parsed from the command line.
pub fn parse_param(param: &str, value: &str) -> Result<Value, PresetError> {
    let bad = |why: &str| PresetError::Value {
        param: param.to_string(),
        value: value.chars().take(64).collect(),
        why: why.to_string(),
    };
    let range = |n: u64, max: u64, what: Value| {
        if n == 0 || n > max {
            Err(bad(&format!("out of range: 1 to {max}")))
        } else {
            Ok(what)
        }
    };
    match param {
        "size" => {
            let n = units::parse_size(value, KbBase::K1024)
                .map_err(|e| bad(&format!("expected a size such as 64m or 2g ({e})")))?;
            range(n, MAX_SIZE, Value::Bytes(n))
        }
        "runtime" => {
            let ns = units::parse_time(value, TimeUnitDefault::Seconds)
                .map_err(|e| bad(&format!("expected a time such as 10 or 500ms ({e})")))?;
            let ms = ns.0 / 1_000_000;
            range(ms, MAX_RUNTIME_MS, Value::Millis(ms))
        }
        "iodepth" | "streams" | "rate" => {
            let n: u64 = value.parse().map_err(|_| bad("expected a whole number"))?;
            range(n, MAX_COUNT, Value::Count(n))
        }
        "filename" | DIRECTORY => {
            if value.is_empty() || value.contains(':') || value.chars().any(char::is_control) {
                Err(bad("expected a non-empty path without ':' or control characters"))
            } else {
                Ok(Value::Text(value.to_string()))
            }
        }
        _ => Err(bad(&format!("not a preset parameter (parameters: {})", PARAMS.join(", ")))),
    }
}

/// The preset's parameters: its defaults with `overrides` applied (`directory` places the
/// default file name in a directory; `filename` replaces it).
pub fn params(
    p: &'static Preset,
    overrides: &[(String, Value)],
) -> Result<Vec<(String, Value)>, PresetError> {
    let mut out = Vec::new();
    for kv in p.defaults.split_whitespace() {
        let (k, v) = kv.split_once('=').ok_or_else(|| template(p, &format!("default '{kv}'")))?;
        out.push((k.to_string(), parse_param(k, v).map_err(|e| template(p, &e.to_string()))?));
    }
    let mut dir = None;
    for (k, v) in overrides {
        if k == DIRECTORY {
            dir = Some(v.clone());
            continue;
        }
        match out.iter_mut().find(|(name, _)| name == k) {
            Some(slot) => slot.1 = v.clone(),
            None => {
                let taken = out.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ");
                return Err(PresetError::NotTaken(k.clone(), p.name, taken));
            }
        }
    }
    if let Some(Value::Text(d)) = dir {
        let explicit = overrides.iter().any(|(k, _)| k == "filename");
        if let Some((_, Value::Text(f))) = out.iter_mut().find(|(k, _)| k == "filename") {
            if explicit {
                return Err(PresetError::Value {
                    param: DIRECTORY.into(),
                    value: d,
                    why: "give --directory or --filename, not both".into(),
                });
            }
            *f = format!("{}/{f}", d.trim_end_matches('/'));
        }
    }
    Ok(out)
}

/// The preset's job file with every placeholder filled.
pub fn expand(p: &'static Preset, overrides: &[(String, Value)]) -> Result<String, PresetError> {
    let params = params(p, overrides)?;
    let mut out = String::with_capacity(p.text.len());
    let mut rest = p.text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').ok_or_else(|| template(p, "a '{' without its '}'"))?;
        out.push_str(&eval(p, &rest[open + 1..open + close], &params)?.render());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `NAME`, `NAME*K`, `NAME/M`, `NAME*K/M/NAME2`…: left to right, integers, checked.
fn eval(p: &'static Preset, expr: &str, params: &[(String, Value)]) -> Result<Value, PresetError> {
    let operand = |t: &str| -> Result<Value, PresetError> {
        match params.iter().find(|(k, _)| k == t.trim()) {
            Some((_, v)) => Ok(v.clone()),
            None => t.trim().parse().map(Value::Count).map_err(|_| {
                template(p, &format!("'{{{expr}}}': '{t}' is neither a parameter nor a number"))
            }),
        }
    };
    let mut parts = expr.split_inclusive(['*', '/']);
    let first = parts.next().unwrap_or_default();
    let (mut tok, mut op) = split_op(first);
    let mut acc = operand(tok)?;
    for part in parts {
        let n = acc.number().ok_or_else(|| template(p, &format!("'{{{expr}}}' on text")))?;
        (tok, _) = split_op(part);
        let rhs = operand(tok)?.number().ok_or_else(|| template(p, expr))?;
        let next = match op {
            Some('*') => n.checked_mul(rhs),
            _ => n.checked_div(rhs),
        };
        acc = acc.with(next.ok_or_else(|| overflow(expr, params))?);
        op = split_op(part).1;
    }
    match acc.number() {
        Some(0) => Err(overflow(expr, params)),
        _ => Ok(acc),
    }
}

/// A token and the operator after it (`size*` → (`size`, `*`)).
fn split_op(part: &str) -> (&str, Option<char>) {
    match part.chars().last() {
        Some(c @ ('*' | '/')) => (&part[..part.len() - 1], Some(c)),
        _ => (part, None),
    }
}

fn template(p: &'static Preset, why: &str) -> PresetError {
    PresetError::Template { preset: p.name, why: why.to_string() }
}

/// A placeholder that came out zero or overflowed: the parameters are too small or too large.
fn overflow(expr: &str, params: &[(String, Value)]) -> PresetError {
    let name = expr.split(['*', '/']).next().unwrap_or_default().trim();
    let value = params.iter().find(|(k, _)| k == name).map(|(_, v)| v.render());
    PresetError::Value {
        param: name.to_string(),
        value: value.unwrap_or_default(),
        why: format!(
            "the preset's '{expr}' comes out as zero or overflows with it (with streams and \
             rate: more per stream, e.g. size at least streams x the block size)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ov(k: &str, v: &str) -> (String, Value) {
        (k.to_string(), parse_param(k, v).unwrap())
    }

    #[test]
    fn every_preset_expands_with_its_defaults_and_parses() {
        for p in PRESETS {
            let text = expand(p, &[]).unwrap();
            assert!(!text.contains('{') && !text.contains('}'), "{}: {text}", p.name);
            let parsed = crate::parse_str(p.name, &text).unwrap();
            assert!(!parsed.jobs.is_empty(), "{}", p.name);
        }
    }

    #[test]
    fn overrides_scale_every_job() {
        let p = find("oltp").unwrap();
        let o = [ov("size", "64m"), ov("runtime", "10"), ov("iodepth", "4"), ov("rate", "1000")];
        let text = expand(p, &o).unwrap();
        // Data area 64 MiB, the log after it, 1/16 of it; 8 s quiet and 2 s burst.
        for want in ["size=64m", "offset=64m", "size=4m", "runtime=8s", "startdelay=8s"] {
            assert!(text.contains(&format!("\n{want}\n")), "{want}: {text}");
        }
        assert!(text.contains("\nrate_iops=700,300\n") && text.contains("\nrate_iops=,300\n"));
        assert!(text.contains("\niodepth=4\n") && text.contains("\nruntime=2s\n"));
        let b = expand(find("backup").unwrap(), &[ov("size", "16g"), ov("streams", "8")]).unwrap();
        assert!(b.contains("\nnumjobs=8\n") && b.contains("\noffset_increment=2g\n"), "{b}");
        let d = expand(find("backup").unwrap(), &[ov("directory", "/mnt/x/")]).unwrap();
        assert!(d.contains("\nfilename=/mnt/x/iolab-backup.dat\n"), "{d}");
        let f = expand(find("backup").unwrap(), &[ov("filename", "/dev/loop9")]).unwrap();
        assert!(f.contains("\nfilename=/dev/loop9\n"), "{f}");
    }

    #[test]
    fn bad_names_and_values_are_refused_with_the_reason() {
        let e = find("nope").unwrap_err().to_string();
        assert!(e.contains("unknown preset 'nope'") && e.contains("oltp, backup, vm-blender"));
        for n in ["", "../x", "oltp.fio", "a/b", &"x".repeat(10_000)] {
            assert!(matches!(find(n), Err(PresetError::Name(_))), "{n:?}");
        }
        for (k, v) in
            [("size", "-1"), ("size", "0"), ("size", "nan"), ("size", "9e"), ("runtime", "-5")]
        {
            let e = parse_param(k, v).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--{k}={v}: ")), "{e}");
        }
        for v in ["NaN", "-3", "0", "1.5", "99999999999999999999", "2000000"] {
            assert!(parse_param("iodepth", v).is_err(), "{v}");
        }
        assert!(parse_param("filename", "a:b").is_err());
        // 16 streams of 1 MiB need 16 MiB: 1 MiB over 32 streams is 32 KiB, still > 0, but
        // 31 bytes over 32 streams is zero.
        let e = expand(find("backup").unwrap(), &[ov("size", "31"), ov("streams", "32")]);
        assert!(matches!(e, Err(PresetError::Value { ref param, .. }) if param == "size"), "{e:?}");
        let e = expand(find("backup").unwrap(), &[ov("rate", "5")]).unwrap_err().to_string();
        assert!(e.contains("not a parameter of preset 'backup'"), "{e}");
        let both = [ov("directory", "/tmp"), ov("filename", "/tmp/x")];
        assert!(expand(find("oltp").unwrap(), &both).is_err());
    }
}
