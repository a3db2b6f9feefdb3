//! Registry tests against fio's own list of option names (extracted once from fio f5344384
//! by `tools/fio_option_names.sh`, committed as `tests/data/fio_option_names.txt`) and the
//! staleness check for the generated `docs/options.md`.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use iolab_job::registry::{self, Category, OptionType, Status, TimeUnit};

fn fio_names() -> Vec<(String, String)> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio_option_names.txt");
    let text = std::fs::read_to_string(&p).unwrap();
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (name, files) = l.split_once('\t').unwrap();
            (name.to_string(), files.to_string())
        })
        .collect()
}

#[test]
fn every_fio_option_name_resolves() {
    let names = fio_names();
    // fio f5344384 has 400 distinct names and aliases across options.c and engines/.
    assert_eq!(names.len(), 400);
    let missing: Vec<_> =
        names.iter().filter(|(n, _)| registry::lookup(n).is_none()).map(|(n, _)| n).collect();
    assert!(missing.is_empty(), "fio options missing from the registry: {missing:?}");
}

#[test]
fn engine_options_name_their_engine() {
    for (name, files) in fio_names() {
        if files.split(',').all(|f| f.starts_with("engines/")) {
            let o = registry::lookup(&name).unwrap();
            assert_eq!(o.category, Category::Engine, "{name}");
            assert!(!o.engine.is_empty(), "{name} has no engine");
        }
    }
    assert_eq!(registry::lookup("userspace_reap").unwrap().engine, ["libaio"]);
    assert!(registry::lookup("hipri").unwrap().engine.contains(&"io_uring"));
    assert!(registry::lookup("cmdprio_percentage").unwrap().engine.contains(&"libaio"));
}

#[test]
fn every_entry_is_documented() {
    for o in registry::OPTIONS {
        assert!(!o.help.is_empty(), "{} has no help", o.name);
        assert!(!o.long_help.is_empty(), "{} has no long help", o.name);
        assert!(o.help.len() <= 110, "{}: one-line help too long", o.name);
        if let Some(r) = o.status.reason() {
            assert!(r.len() > 10, "{}: reason too thin", o.name);
        }
        if !o.default.is_empty() && !o.choices.is_empty() && o.ty != OptionType::Special {
            assert!(o.choices.contains(&o.default), "{}: default not a choice", o.name);
        }
    }
}

#[test]
fn aliases_resolve_to_their_canonical_entry() {
    for (alias, canon) in [
        ("readwrite", "rw"),
        ("blocksize", "bs"),
        ("blockalign", "ba"),
        ("blocksize_range", "bsrange"),
        ("io_limit", "io_size"),
        ("timeout", "runtime"),
        ("wait_for_previous", "stonewall"),
        ("allrandrepeat", "randrepeat"),
        ("iodepth_batch_submit", "iodepth_batch"),
        ("iodepth_batch_complete", "iodepth_batch_complete_min"),
        ("nr_files", "nrfiles"),
        ("ss", "steadystate"),
        ("ss_dur", "steadystate_duration"),
        ("ss_ramp", "steadystate_ramp_time"),
        ("ss_interval", "steadystate_check_interval"),
        ("disable_bw", "disable_bw_measurement"),
        ("fileoffset", "offset"),
        ("iomem", "mem"),
        ("log_max_value", "log_window_value"),
        ("proto", "protocol"),
    ] {
        assert_eq!(registry::lookup(alias).unwrap().name, canon, "{alias}");
    }
}

#[allow(clippy::too_many_lines)] // test: the policy table of every option status, listed in full
#[test]
fn status_policy_of_the_team() {
    let supported = [
        "name",
        "stonewall",
        "numjobs",
        "group_reporting",
        "include",
        "kb_base",
        "filename",
        "size",
        "io_size",
        "offset_increment",
        "time_based",
        "runtime",
        "ramp_time",
        "rw",
        "rwmixread",
        "percentage_random",
        "bs",
        "bssplit",
        "norandommap",
        "random_generator",
        "randseed",
        "random_distribution",
        "file_service_type",
        "rate",
        "rate_iops",
        "rate_process",
        "thinktime",
        "ioengine",
        "iodepth",
        "iodepth_batch_complete_max",
        "direct",
        "fsync",
        "end_fsync",
        "invalidate",
        "fallocate",
        "buffer_compress_percentage",
        "dedupe_mode",
        "verify",
        "write_lat_log",
        "write_hist_log",
        "log_hist_msec",
        "log_hist_coarseness",
        "log_avg_msec",
        "status_interval",
        "percentile_list",
        "steadystate",
        "ss_dur",
        "gtod_reduce",
        "disable_slat",
        "unified_rw_reporting",
        "fixedbufs",
        "registerfiles",
        "hipri",
        "sqthread_poll",
        "userspace_reap",
        "zipf_exact",
        "hot_set",
        "dedupe_spread",
        "compress_content",
        "zonemode",
        "zonesize",
        "zonerange",
        "zoneskip",
        "verify_interval",
    ];
    for n in supported {
        assert_eq!(registry::lookup(n).unwrap().status, Status::Supported, "{n}");
    }
    for n in ["description", "cpus_allowed", "nice", "prio", "ioscheduler", "exec_prerun"] {
        let s = registry::lookup(n).unwrap().status;
        assert!(matches!(s, Status::Ignored(_) | Status::Supported), "{n}: {s:?}");
    }
    for n in [
        "verify_async",
        "trim_percentage",
        "latency_target",
        "flow",
        "rate_min",
        "rbdname",
        "http_mode",
        "sg_write_mode",
        "zonecapacity",
    ] {
        let o = registry::lookup(n).unwrap();
        assert!(matches!(o.status, Status::Unsupported(_)), "{n}: {:?}", o.status);
    }
    // Reasons name what to do instead where there is something.
    let r = registry::lookup("lockmem").unwrap().status.reason().unwrap();
    assert!(r.contains("MemoryMax"), "{r}");
}

#[test]
fn types_follow_fio() {
    let ty = |n| registry::lookup(n).unwrap().ty;
    assert_eq!(ty("runtime"), OptionType::Time { unit: TimeUnit::Sec });
    assert_eq!(ty("thinktime"), OptionType::Time { unit: TimeUnit::Usec });
    assert_eq!(ty("latency_target"), OptionType::Time { unit: TimeUnit::Usec });
    assert_eq!(ty("size"), OptionType::SizeOrPercent);
    assert_eq!(ty("bs"), OptionType::SizeList);
    assert_eq!(ty("rate_iops"), OptionType::IntList);
    assert_eq!(ty("bsrange"), OptionType::Range);
    assert_eq!(ty("bssplit"), OptionType::Split);
    assert_eq!(ty("norandommap"), OptionType::Bool);
    assert_eq!(ty("iodepth"), OptionType::Int);
    assert_eq!(ty("rwmixcycle"), OptionType::Deprecated);
    let d = |n| registry::lookup(n).unwrap().default;
    assert_eq!(d("bs"), "4096");
    assert_eq!(d("randseed"), "0x89");
    assert_eq!(d("buffer_compress_chunk"), "512");
    assert_eq!(d("percentile_list"), "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99");
    assert_eq!(d("kb_base"), "1024");
    let b = |n| {
        let o = registry::lookup(n).unwrap();
        (o.min, o.max)
    };
    assert_eq!(b("iodepth"), (Some(1), None));
    assert_eq!(b("rwmixread"), (None, Some(100)));
    assert_eq!(b("buffer_compress_percentage"), (Some(0), Some(100)));
    assert_eq!(b("nice"), (Some(-20), Some(19)));
    assert_eq!(b("size"), (None, None));
    let rw = registry::lookup("rw").unwrap();
    assert_eq!(rw.choices.len(), 11);
    assert!(rw.choices.contains(&"randtrimwrite"));
    let eng = registry::lookup("ioengine").unwrap().choices;
    for e in ["io_uring", "libaio", "psync", "sync", "null", "windowsaio", "rbd", "http", "sg"] {
        assert!(eng.contains(&e), "{e}");
    }
}

#[test]
fn did_you_mean() {
    assert_eq!(registry::nearest("iodepht"), Some("iodepth"));
    assert_eq!(registry::nearest("ramptime"), Some("ramp_time"));
    assert_eq!(registry::nearest("random_distributon"), Some("random_distribution"));
    assert_eq!(registry::nearest("groupreporting"), Some("group_reporting"));
    assert_eq!(registry::nearest("xyzzy_plugh_frobnicate"), None);
}

#[test]
fn docs_options_md_is_current() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
    let committed = std::fs::read_to_string(&p).unwrap_or_default();
    let fresh = registry::markdown();
    assert!(
        committed == fresh,
        "docs/options.md is stale: run `cargo run -- options --markdown > docs/options.md`"
    );
    for o in registry::OPTIONS {
        assert!(fresh.contains(&format!("\n### {}\n", o.name)), "{} missing from docs", o.name);
    }
}

/// Every option whose name suggests a path declares its gate intent (`registry::paths`), or
/// says why it takes none; every declared one exists.
#[test]
fn every_path_like_option_declares_its_gate_intent() {
    use iolab_job::registry::paths::{NOT_PATHS, PATH_OPTIONS};
    use iolab_job::registry::{OptionType, OPTIONS};
    let pathy = ["file", "dir", "log", "path", "pattern", "include", "redirect"];
    let mut undeclared = Vec::new();
    for o in OPTIONS.iter().filter(|o| matches!(o.ty, OptionType::Str | OptionType::Special)) {
        let declared = PATH_OPTIONS.iter().any(|p| p.name == o.name)
            || NOT_PATHS.iter().any(|(n, _)| *n == o.name);
        if pathy.iter().any(|w| o.name.contains(w)) && !declared {
            undeclared.push(o.name);
        }
    }
    assert!(undeclared.is_empty(), "path-like options without a declared intent: {undeclared:?}");
    for p in PATH_OPTIONS {
        assert!(iolab_job::registry::lookup(p.name).is_some(), "{} is not an option", p.name);
    }
}
