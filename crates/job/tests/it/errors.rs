//! iolab-job's errors, one per kind, naming file, line and option; arbitrary input never panics;
//! fio's job-table limit.

use crate::common::*;
use iolab_job::*;

// ---------------------------------------------------------------- errors, one per kind

#[test]
fn error_unknown_option_suggests() {
    let e = parse_err("[j]\niodepht=4\n");
    assert_eq!(e.to_string(), "t.fio:2: unknown option 'iodepht'; did you mean 'iodepth'?");
    let e = parse_err("[j]\nqqqqqqqqqqqqqqqq=4\n");
    assert_eq!(
        e.to_string(),
        "t.fio:2: unknown option 'qqqqqqqqqqqqqqqq'; expected an option listed by `iolab options`"
    );
}

type KindCheck = fn(&JobErrorKind) -> bool;

#[test]
fn error_kinds() {
    let cases: &[(&str, KindCheck)] = &[
        ("bs=4k\n", |k| matches!(k, JobErrorKind::OutsideSection { .. })),
        ("[j\n", |k| matches!(k, JobErrorKind::BadSection { .. })),
        ("[j]\nbs=4q\n", |k| matches!(k, JobErrorKind::Unit { .. })),
        ("[j]\nbs\n", |k| matches!(k, JobErrorKind::MissingValue { .. })),
        ("[j]\nrw=sideways\n", |k| matches!(k, JobErrorKind::BadValue { .. })),
        ("[j]\nwait_for=nobody\n", |k| matches!(k, JobErrorKind::WaitForUnknown { .. })),
        ("[x]\n[x]\n[j]\nwait_for=x\n", |k| {
            matches!(k, JobErrorKind::WaitForAmbiguous { count: 2, .. })
        }),
        ("[j]\nbssplit=4k/50:8k/60\n", |k| matches!(k, JobErrorKind::SplitOver100 { .. })),
        ("[global]\nbs=4k\n", |k| matches!(k, JobErrorKind::NoJobs)),
        ("[j]\nnumjobs=$ncpus/0\n", |k| matches!(k, JobErrorKind::Substitution { .. })),
        ("[j]\nsize=1.5g\n", |k| matches!(k, JobErrorKind::Unit { .. })),
        ("[j]\nnumjobs=0\n", |k| matches!(k, JobErrorKind::BadValue { .. })),
        ("[j]\ncmdprio_class=4\n", |k| matches!(k, JobErrorKind::OutOfRange { value: 4, .. })),
        ("[j]\nioengine=libaoi\n", |k| matches!(k, JobErrorKind::BadValue { .. })),
    ];
    for (text, pred) in cases {
        let e = parse_err(text);
        assert!(pred(&e.kind), "{text:?} gave {e}");
        assert!(!e.to_string().contains('\n'), "one line: {e}");
        assert!(e.to_string().starts_with("t.fio"), "{e}");
    }
    let e = parse_err("[j]\nwait_for=nobody\n");
    assert_eq!(e.location, Location::File { file: "t.fio".into(), line: 2 });
    let e = parse_err(&format!("[j]\nbssplit={}\n", vec!["4k/1"; 65].join(":")));
    assert!(matches!(e.kind, JobErrorKind::TooManySplits { count: 65, max: 64, .. }), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin.fio");
    std::fs::write(&bin, [0x5b, 0xff, 0xfe, 0x5d]).unwrap();
    let e = load_with(&LoadOptions { files: vec![bin], ..Default::default() }, &env());
    assert!(matches!(e.unwrap_err().kind, JobErrorKind::NotText));
    let missing = load_with(
        &LoadOptions { files: vec!["/nonexistent/x.fio".into()], ..Default::default() },
        &env(),
    );
    assert!(matches!(missing.unwrap_err().kind, JobErrorKind::Read { .. }));
    let bad_arg =
        load_with(&LoadOptions { cmdline: vec!["rw=read".into()], ..Default::default() }, &env());
    assert!(matches!(bad_arg.unwrap_err().kind, JobErrorKind::BadArgument { .. }));
    let no_section = load_with(
        &LoadOptions {
            cmdline: vec!["--name=a".into()],
            sections: vec!["zz".into()],
            ..Default::default()
        },
        &env(),
    );
    assert!(matches!(no_section.unwrap_err().kind, JobErrorKind::NoSuchSection { .. }));
}

#[test]
fn error_unsupported_option() {
    let Some(def) =
        registry::OPTIONS.iter().find(|o| matches!(o.status, registry::Status::Unsupported(_)))
    else {
        return;
    };
    let e = parse_err(&format!("[j]\n{}=1\n", def.name));
    assert!(matches!(e.kind, JobErrorKind::Unsupported { .. }), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, .. Default::default() })]
    #[test]
    fn arbitrary_input_never_panics(s in "(\\[[a-z]{0,4}\\]|[a-z_]{1,12}=[-0-9a-zA-Z:/,.%()*+^$]{0,16}|[;#]|\\$\\{[A-Z]{0,3}\\}|\n){0,12}") {
        let _ = parse_str_with("p.fio", &s, &env());
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
        let _ = parse_str_with("p.fio", &String::from_utf8_lossy(&b), &env());
    }
}

/// The reliability review: 100,000 one-line sections took 25-42 s and 4.1 GB. Past fio's 4096
/// job slots the file is refused at the first section over the limit, before any section is
/// resolved, naming its line.
#[test]
fn sections_past_fios_job_table_are_refused_before_resolving() {
    let mut text = String::from("[global]\nioengine=null\n");
    for i in 0..100_000 {
        text.push_str(&format!("[j{i}]\nrw=read\n"));
    }
    let started = std::time::Instant::now();
    let e = parse_str_with("big.fio", &text, &env()).unwrap_err().to_string();
    // [global] is lines 1-2, so section j4096 (the 4097th job) starts on line 3 + 2 * 4096.
    assert!(e.starts_with("big.fio:8195: maximum number of jobs reached: 100000 jobs"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    // 4096 sections are still one job each.
    let ok: String = (0..4096).map(|i| format!("[j{i}]\nrw=read\n")).collect();
    assert_eq!(parse_str_with("ok.fio", &ok, &env()).unwrap().jobs.len(), 4096);
}
