//! Hostile probes of the workload presets (issue 33): `--preset` names (unknown, empty,
//! missing, path-like, huge, given twice) on `run`, `sim` and `preset show`, and the preset
//! parameters' values (negative, NaN, infinite, zero, huge, long, with a `:`), each refused
//! before any I/O with a one-line error naming the flag.

use super::runner::{Oracle, Probe};

fn err(needles: &[&str]) -> Oracle {
    Oracle::Err(needles.iter().map(|s| s.to_string()).collect())
}

/// Hostile preset names: (label, argument, needles).
fn names() -> Vec<(&'static str, String, Vec<&'static str>)> {
    vec![
        ("unknown", "--preset=nope".into(), vec!["--preset", "unknown preset 'nope'"]),
        ("empty", "--preset=".into(), vec!["--preset", "empty name"]),
        ("missing value", "--preset".into(), vec!["--preset", "needs a preset name"]),
        ("path ../x", "--preset=../x".into(), vec!["--preset", "not a preset name"]),
        ("absolute path", "--preset=/etc/passwd".into(), vec!["--preset", "not a preset name"]),
        ("file name", "--preset=oltp.fio".into(), vec!["--preset", "not a preset name"]),
        ("control char", "--preset=ol\ttp".into(), vec!["--preset", "not a preset name"]),
        ("huge", format!("--preset={}", "x".repeat(100 * 1024)), vec!["not a preset name"]),
    ]
}

/// Hostile values of the numeric parameters: (label, value).
const VALUES: &[(&str, &str)] = &[
    ("negative", "-1"),
    ("nan", "nan"),
    ("NaN", "NaN"),
    ("inf", "inf"),
    ("zero", "0"),
    ("huge", "99999999999999999999999"),
    ("u64max", "18446744073709551615"),
    ("fraction", "1.5x"),
    ("empty", ""),
];

pub fn probes() -> Vec<Probe> {
    let mut v = Vec::new();
    for (label, arg, needles) in names() {
        for cmd in ["run", "sim"] {
            let args = [cmd, arg.as_str(), "--directory={W}"];
            v.push(Probe::new(
                "presets",
                format!("{cmd} preset name {label}"),
                &args,
                err(&needles),
            ));
        }
        let name = arg.strip_prefix("--preset").unwrap_or_default().trim_start_matches('=');
        if !name.is_empty() {
            let args = ["preset", "show", name];
            v.push(Probe::new("presets", format!("show {label}"), &args, err(&needles[1..])));
        }
    }
    let twice = ["run", "--preset=oltp", "--preset=backup", "--directory={W}"];
    v.push(Probe::new("presets", "preset twice", &twice, err(&["--preset", "given twice"])));
    for (param, preset) in
        [("size", "backup"), ("runtime", "oltp"), ("iodepth", "oltp"), ("streams", "vm-blender")]
    {
        for (label, value) in VALUES {
            let flag = format!("--{param}={value}");
            let name = format!("{param} {label}");
            let needle = format!("--{param}={value}:");
            for cmd in ["run", "sim"] {
                let pre = format!("--preset={preset}");
                let args = [cmd, pre.as_str(), flag.as_str(), "--directory={W}"];
                v.push(Probe::new("presets", format!("{cmd} {name}"), &args, err(&[&needle])));
            }
            let args = ["preset", "show", preset, flag.as_str()];
            v.push(Probe::new("presets", format!("show {name}"), &args, err(&[&needle])));
        }
    }
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("rate on backup", &["--preset=backup", "--rate=5"], &["--rate", "not a parameter"]),
        ("size too small", &["--preset=backup", "--size=31", "--streams=32"], &["--size=31"]),
        ("size past 1 PiB", &["--preset=backup", "--size=2p"], &["--size=2p", "out of range"]),
        ("runtime 400 days", &["--preset=oltp", "--runtime=400d"], &["--runtime", "out of range"]),
        ("colon in filename", &["--preset=oltp", "--filename=a:b"], &["--filename=a:b"]),
        ("empty directory", &["--preset=oltp", "--directory="], &["--directory="]),
        (
            "directory and filename",
            &["--preset=oltp", "--directory=/tmp", "--filename=/tmp/x"],
            &["--directory", "not both"],
        ),
        ("size twice", &["--preset=oltp", "--size=1m", "--size=2m"], &["--size", "twice"]),
        ("job option", &["--preset=oltp", "--bs=4k"], &["--bs=4k", "would change"]),
        ("job file", &["--preset=oltp", "x.fio"], &["x.fio", "would change"]),
        ("new job", &["--preset=oltp", "--name=x"], &["--name=x", "would change"]),
        ("size without value", &["--preset=oltp", "--size"], &["--size", "needs a value"]),
    ];
    for (name, args, needles) in cases {
        for cmd in ["run", "sim"] {
            let mut a = vec![cmd];
            a.extend_from_slice(args);
            v.push(Probe::new("presets", format!("{cmd} {name}"), &a, err(needles)));
        }
    }
    v
}
