//! fio's global flags: the table (`cmdline::FIO_FLAGS`) against fio 3.33's `l_opts`, the
//! splitter's handling of each value form, and the staleness check of `docs/fio-flags.md`.

use std::path::Path;

use iolab_job::cmdline::{fio_flag, flags_markdown, FlagArg, FlagUse, FIO_FLAGS};
use iolab_job::split_fio_args;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Every long option of fio 3.33 init.c `l_opts` but `server-internal` (Windows only).
const FIO_333: &[&str] = &[
    "output",
    "latency-log",
    "bandwidth-log",
    "minimal",
    "output-format",
    "append-terse",
    "version",
    "help",
    "cmdhelp",
    "enghelp",
    "showcmd",
    "readonly",
    "eta",
    "eta-interval",
    "eta-newline",
    "debug",
    "parse-only",
    "section",
    "inflate-log",
    "alloc-size",
    "profile",
    "warnings-fatal",
    "max-jobs",
    "terse-version",
    "server",
    "daemonize",
    "client",
    "remote-config",
    "cpuclock-test",
    "crctest",
    "memcpytest",
    "idle-prof",
    "status-interval",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
    "merge-blktrace-only",
];

#[test]
fn table_has_every_fio_flag_once_and_refusals_give_a_reason() {
    assert_eq!(FIO_FLAGS.len(), FIO_333.len());
    for name in FIO_333 {
        let n = FIO_FLAGS.iter().filter(|f| f.name == *name).count();
        assert_eq!(n, 1, "--{name} in the table {n} times");
    }
    for f in FIO_FLAGS {
        if let FlagUse::Refused(r) = f.usage {
            assert!(r.len() > 10, "--{}: refusal without a reason", f.name);
        }
        assert!(!f.help.is_empty(), "--{} has no help", f.name);
    }
    // getopt's has_arg as in l_opts.
    assert_eq!(fio_flag("minimal").map(|f| f.arg), Some(FlagArg::No));
    assert_eq!(fio_flag("output").map(|f| f.arg), Some(FlagArg::Required));
    assert_eq!(fio_flag("cmdhelp").map(|f| f.arg), Some(FlagArg::Optional));
    // fio's client/server flags run iolab's authenticated server and client (issue 29).
    for f in ["client", "server"] {
        assert!(matches!(fio_flag(f).map(|f| f.usage), Some(FlagUse::Accepted(_))), "--{f}");
    }
}

#[test]
fn splitter_takes_values_as_getopt_does() {
    let s = split_fio_args(
        &args(&[
            "--output",
            "out.txt",
            "--minimal",
            "--cmdhelp",
            "job.fio",
            "--terse-version=4",
            "-eta=never",
            "--section",
            "a",
            "--name=x",
            "--rw",
            "write",
        ]),
        &[],
    );
    assert_eq!(
        s.flags,
        vec![
            ("output".to_string(), Some("out.txt".to_string())),
            ("minimal".to_string(), None),
            // optional_argument: never the next argument, which stays a job file.
            ("cmdhelp".to_string(), None),
            ("terse-version".to_string(), Some("4".to_string())),
            ("eta".to_string(), Some("never".to_string())),
        ]
    );
    assert_eq!(s.job_files, vec![std::path::PathBuf::from("job.fio")]);
    assert_eq!(s.sections, vec!["a".to_string()]);
    assert_eq!(s.fio_options, args(&["--name=x", "--rw=write"]));
    assert!(s.other.is_empty(), "{:?}", s.other);
}

#[test]
fn docs_fio_flags_md_is_current() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fio-flags.md");
    let committed = std::fs::read_to_string(&p).unwrap_or_default();
    let fresh = flags_markdown();
    assert!(
        committed == fresh,
        "docs/fio-flags.md is stale: run `cargo run -- options --fio-flags > docs/fio-flags.md`"
    );
    for f in FIO_FLAGS {
        assert!(fresh.contains(&format!("| `--{}` |", f.name)), "--{} missing", f.name);
    }
}

fn warnings_of(files: &[std::path::PathBuf], cmdline: &[&str]) -> Vec<String> {
    let opts = iolab_job::LoadOptions {
        files: files.to_vec(),
        cmdline: args(cmdline),
        sections: Vec::new(),
    };
    let parsed = iolab_job::load(&opts).expect("load");
    parsed.warnings.iter().map(|w| w.to_string()).collect()
}

#[test]
fn job_file_overriding_the_command_line_is_named_with_both_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("o.fio");
    std::fs::write(&f, "[global]\nbs=8k\n[a]\nioengine=null\nsize=64k\nrw=read\n").expect("write");
    let w = warnings_of(std::slice::from_ref(&f), &["--bs=4k", "--rw=read"]);
    let hit: Vec<_> = w.iter().filter(|m| m.contains("overrides")).collect();
    assert_eq!(hit.len(), 1, "{w:?}");
    assert!(hit[0].contains("bs=8k") && hit[0].contains("bs=4k") && hit[0].contains("o.fio:2"));
    // The same value twice is no override.
    let w = warnings_of(std::slice::from_ref(&f), &["--bs=8k"]);
    assert!(!w.iter().any(|m| m.contains("overrides")), "{w:?}");
}

#[test]
fn drive_letter_filename_warns_it_names_two_files_and_colons_split_as_fio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("d.fio");
    std::fs::write(&f, "[a]\nfilename=F:fiofile\nioengine=null\nsize=64k\n").expect("write");
    let w = warnings_of(std::slice::from_ref(&f), &[]);
    assert!(w.iter().any(|m| m.contains("'F' and 'fiofile' as two files")), "{w:?}");
    std::fs::write(&f, "[a]\nfilename=F\\:fiofile\nioengine=null\nsize=64k\n").expect("write");
    let w = warnings_of(std::slice::from_ref(&f), &[]);
    assert!(!w.iter().any(|m| m.contains("two files")), "escaped: {w:?}");
    // fio get_next_str skips the empty name: `a::b` is a and b.
    let opts = iolab_job::LoadOptions {
        files: Vec::new(),
        cmdline: args(&["--name=x", "--ioengine=null", "--size=8k", "--filename=a::b"]),
        sections: Vec::new(),
    };
    let parsed = iolab_job::load(&opts).expect("load");
    assert_eq!(parsed.jobs[0].filenames, ["a", "b"]);
}

#[test]
fn profile_options_are_accepted_in_any_job_as_fio_does() {
    let w = warnings_of(
        &[],
        &["--name=x", "--ioengine=null", "--size=4k", "--threads=1", "--prep", "--load=3"],
    );
    for (opt, profile) in [("threads", "tiobench"), ("prep", "act"), ("load", "act")] {
        assert!(
            w.iter().any(|m| m.contains(&format!("'{opt}'")) && m.contains(profile)),
            "{opt}: {w:?}"
        );
    }
}
