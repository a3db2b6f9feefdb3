//! iolab-job's reading rules as fio applies them (options.c, parse.c, init.c): suffixes, kb_base,
//! bs per direction, bssplit, rw postfixes, distributions, scoping, include, arithmetic, command-
//! line jobs.

use crate::common::*;
use iolab_core::Nanos;
use iolab_job::*;
use std::path::PathBuf;

// ---------------------------------------------------------------- rules

#[test]
fn kib_suffix_trap_parses_as_fio_and_warns() {
    let p = parse("[j]\nbs=4KiB\nsize=1MiB\n");
    assert_eq!(p.jobs[0].bs.read.min, 4000);
    assert_eq!(p.jobs[0].size, Some(SizeSpec::Bytes(1_000_000)));
    assert_eq!(p.warnings.len(), 2);
    assert!(p.warnings[0].location == "t.fio:2" && p.warnings[0].message.contains("4000 bytes"));
}

#[test]
fn kib_trap_warns_for_untyped_size_options_too() {
    let p = parse("[j]\nbsrange=1KiB-4KiB\n");
    assert_eq!(p.jobs[0].bs.read.min, 1000);
    assert!(p.warnings.iter().any(|w| w.message.contains("1000 bytes")), "{:?}", p.warnings);
}

#[test]
fn kb_base_scope_follows_fio() {
    // Inside one section fio sorts kb_base (prio 1) before the other options.
    let j = one("[j]\nsize=1MiB\nkb_base=1000\nbs=1MiB\nio_size=1m\n");
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(j.bs.read.min, 1 << 20);
    assert_eq!(j.io_size, Some(1_000_000));
    // A global kb_base reaches the jobs after it ...
    let j = one("[global]\nkb_base=1000\n[j]\nbs=4k\n");
    assert_eq!(j.bs.read.min, 4000);
    // ... but a job's kb_base does not re-read what [global] already parsed.
    let j = one("[global]\nsize=1MiB\n[j]\nkb_base=1000\nbs=4k\n");
    assert_eq!((j.size, j.bs.read.min), (Some(SizeSpec::Bytes(1_000_000)), 4000));
    // On the command line, order matters (fio #1740).
    let cmd = |args: &[&str]| {
        let cmdline = args.iter().map(|s| s.to_string()).collect();
        load_with(&LoadOptions { cmdline, ..Default::default() }, &env()).unwrap().jobs.remove(0)
    };
    let j = cmd(&["--name=j", "--size=1MiB", "--kb_base=1000"]);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1_000_000)));
    let j = cmd(&["--name=j", "--kb_base=1000", "--size=1MiB"]);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 20)));
}

#[test]
fn bs_per_direction_carry_over() {
    let j = one("[j]\nbs=8k,32k\n");
    assert_eq!((j.bs.read.min, j.bs.write.min, j.bs.trim.min), (8192, 32768, 32768));
    let j = one("[j]\nbs=8k,32k,\n");
    assert_eq!((j.bs.read.min, j.bs.write.min, j.bs.trim.min), (8192, 32768, 4096));
    let j = one("[j]\nbsrange=4k-1k,8k:16k\n");
    assert_eq!((j.bs.read.min, j.bs.read.max), (1024, 4096));
    assert_eq!((j.bs.write.min, j.bs.write.max, j.bs.trim.max), (8192, 16384, 16384));
}

#[test]
fn bssplit_blank_shares_and_sort() {
    let j = one("[j]\nbssplit=4k/50:1k/:32k/\n");
    let s = &j.bs.read.split;
    assert_eq!(
        s.iter().map(|e| (e.bs, e.perc)).collect::<Vec<_>>(),
        [(1024, 25), (32768, 25), (4096, 50)]
    );
    assert_eq!((j.bs.read.min, j.bs.read.max), (1024, 32768));
    assert_eq!(j.bs.trim.split, j.bs.read.split);
    let j = one("[j]\nbssplit=4k/10:64k/90,8k\n");
    assert_eq!(j.bs.write.split, [BsSplit { bs: 8192, perc: 100 }]);
    assert_eq!(j.bs.read.split.len(), 2);
    let e = parse_err("[j]\nbssplit=4k/60:8k/50\n");
    assert!(matches!(e.kind, JobErrorKind::SplitOver100 { total: 110, .. }), "{e}");
}

#[test]
fn rw_postfix_and_rwmix_last_wins() {
    let j = one("[j]\nrw=randread:8\n");
    assert_eq!((j.rw, j.ddir_seq_nr), (RwKind::RandRead, 8));
    let j = one("[j]\nrw=write:4k\n");
    assert_eq!((j.rw, j.ddir_seq_add), (RwKind::Write, 4096));
    let j = one("[j]\nrw=randrw\nrwmixread=70\nrwmixwrite=20\n");
    assert_eq!(j.rwmixread, 80);
    let j = one("[j]\nreadwrite=rw\nrwmixwrite=20\nrwmixread=70\n");
    assert_eq!((j.rw, j.rwmixread), (RwKind::ReadWrite, 70));
}

#[test]
fn random_distribution_forms() {
    let j = one("[j]\nrw=randread\nrandom_distribution=zipf:1.2\n");
    assert_eq!(j.random_distribution, Distribution::Zipf { theta: 1.2, center: None });
    assert!(j.norandommap, "non-uniform forces norandommap as in fio");
    let j = one("[j]\nrandom_distribution=zipf\n");
    assert_eq!(j.random_distribution, Distribution::Zipf { theta: 1.1, center: None });
    let j = one("[j]\nrandom_distribution=pareto:0.3:0.5\n");
    assert_eq!(j.random_distribution, Distribution::Pareto { h: 0.3, center: Some(0.5) });
    let j = one("[j]\nrandom_distribution=gauss:5\n");
    assert_eq!(j.random_distribution, Distribution::Normal { dev: 5.0, center: None });
    let j = one("[j]\nrandom_distribution=zoned:60/10:30/20:10/\n");
    let Distribution::Zoned(z) = &j.random_distribution else { panic!() };
    assert_eq!(
        z.read.iter().map(|z| (z.access_pct, z.size)).collect::<Vec<_>>(),
        [(60, 10.0), (30, 20.0), (10, 70.0)]
    );
    assert_eq!(z.write, z.read);
    let j = one("[j]\nrandom_distribution=zoned_abs:80/1g:20/10g,100/4g\n");
    let Distribution::ZonedAbs(z) = &j.random_distribution else { panic!() };
    assert_eq!(z.read[1].size, (10 * GB) as f64);
    assert_eq!(z.write.len(), 1);
    assert_eq!(z.trim, z.write);
    for bad in
        ["zipf:1", "pareto:1.5", "normal:100", "zoned:50/50:40/50", "zipf:1.2:2", "lognormal"]
    {
        let e = parse_err(&format!("[j]\nrandom_distribution={bad}\n"));
        assert!(matches!(e.kind, JobErrorKind::BadValue { .. }), "{bad}: {e}");
    }
}

#[test]
fn file_service_type_forms() {
    let j = one("[j]\nfile_service_type=random:4\n");
    assert_eq!(j.file_service, FileService { kind: FileServiceKind::Random, nr: 4 });
    let j = one("[j]\nfile_service_type=zipf:1.2\n");
    assert_eq!(j.file_service.kind, FileServiceKind::Zipf(1.2));
    let j = one("[j]\nfile_service_type=pareto\n");
    assert_eq!(j.file_service.kind, FileServiceKind::Pareto(0.2));
    let j = one("[j]\nfile_service_type=sequential\n");
    assert_eq!(j.file_service, FileService { kind: FileServiceKind::Sequential, nr: 1 });
}

#[test]
fn global_scoping_any_global_prefix_and_per_position() {
    let p = parse("[global]\nbs=8k\n[a]\n[globalfoo]\nbs=16k\n[b]\n");
    assert_eq!(p.jobs[0].bs.read.min, 8192);
    assert_eq!(p.jobs[1].bs.read.min, 16384);
}

#[test]
fn name_overrides_section_and_groups() {
    let p = parse("[a]\nname=x\n[b]\nnew_group\n[c]\n[d]\nstonewall\n[e]\nwait_for=x\n");
    assert_eq!(p.jobs[0].name, "x");
    assert_eq!(p.jobs.iter().map(|j| j.group_id).collect::<Vec<_>>(), [0, 1, 1, 2, 2]);
    assert_eq!(p.jobs[4].wait_for.as_deref(), Some("x"));
}

#[test]
fn implicit_stonewall_between_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.fio");
    let b = dir.path().join("b.fio");
    std::fs::write(&a, "[global]\nbs=8k\n[a1]\n[a2]\n").unwrap();
    std::fs::write(&b, "[b1]\n[b2]\n").unwrap();
    let opts = LoadOptions {
        files: vec![a, b],
        cmdline: vec!["--iodepth=4".into()],
        ..Default::default()
    };
    let p = load_with(&opts, &env()).unwrap();
    let s: Vec<_> =
        p.jobs.iter().map(|j| (j.name.as_str(), j.stonewall, j.group_id, j.file_index)).collect();
    assert_eq!(
        s,
        [("a1", false, 0, 0), ("a2", false, 0, 0), ("b1", true, 1, 1), ("b2", false, 1, 1)]
    );
    // [global] is per file, and fio resets command-line globals for later files.
    assert_eq!((p.jobs[0].bs.read.min, p.jobs[0].iodepth), (8192, 4));
    assert_eq!((p.jobs[2].bs.read.min, p.jobs[2].iodepth), (4096, 1));
    assert!(p.warnings.iter().any(|w| w.message.contains("do not apply to this file")));
}

#[test]
fn include_merges_into_section() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("common.inc"), "bs=16k\niodepth=4 ; tail comment\n").unwrap();
    std::fs::write(dir.path().join("main.fio"), "[j]\ninclude common.inc\nrw=randread\n").unwrap();
    std::fs::write(dir.path().join("bad.inc"), "[x]\n").unwrap();
    std::fs::write(dir.path().join("bad.fio"), "[j]\ninclude bad.inc\n").unwrap();
    std::fs::write(dir.path().join("loop.fio"), "[j]\ninclude loop.inc\n").unwrap();
    std::fs::write(dir.path().join("loop.inc"), "include loop.inc\n").unwrap();
    let load1 = |n: &str| {
        load_with(&LoadOptions { files: vec![dir.path().join(n)], ..Default::default() }, &env())
    };
    let j = &load1("main.fio").unwrap().jobs[0];
    assert_eq!((j.bs.read.min, j.iodepth, j.rw), (16384, 4, RwKind::RandRead));
    assert!(
        matches!(&j.options["iodepth"].origin, Origin::File { file, line: 2, .. } if file.ends_with("common.inc"))
    );
    assert!(matches!(load1("bad.fio").unwrap_err().kind, JobErrorKind::SectionInInclude { .. }));
    assert!(matches!(load1("loop.fio").unwrap_err().kind, JobErrorKind::IncludeDepth { .. }));
    // Our own zero device (1,5): the system's /dev/zero is not a fixture.
    let zero = dir.path().join("zero");
    let made = iolab_test_support::mknod_char(&zero, 1, 5).is_ok();
    if made {
        let text = format!("[j]\ninclude {}\n", zero.display());
        std::fs::write(dir.path().join("dev.fio"), text).unwrap();
        assert!(matches!(load1("dev.fio").unwrap_err().kind, JobErrorKind::Include { .. }));
    } else {
        eprintln!("skip: mknod failed (needs root); include of a character device not checked");
    }
    std::fs::write(dir.path().join("none.fio"), "[j]\ninclude nope.inc\n").unwrap();
    let e = load1("none.fio").unwrap_err();
    assert!(matches!(e.kind, JobErrorKind::Include { .. }), "{e}");
    assert!(e.to_string().contains("none.fio:2: cannot read included file"), "{e}");
}

#[test]
fn keywords_and_arithmetic() {
    let j =
        one("[j]\nnumjobs=$ncpus*2\nsize=(8*1024)\nbs=(2*2k)\nthinktime=(10+5)\nruntime=(1m)\n");
    assert_eq!(j.numjobs, 16);
    assert_eq!(j.size, Some(SizeSpec::Bytes(8192)));
    assert_eq!(j.bs.read.min, 4096);
    assert_eq!(j.thinktime, Nanos::from_micros(15));
    assert_eq!(j.runtime, Some(Nanos::from_secs(60)));
}

#[test]
fn times_and_booleans() {
    let j = one("[j]\nruntime=2m\nramp_time=500ms\nthinktime=3ms\nstartdelay=10-2\ntime_based=1\ndirect=true\nthread\n");
    assert_eq!(j.runtime, Some(Nanos::from_secs(120)));
    assert_eq!(j.ramp_time, Some(Nanos::from_millis(500)));
    assert_eq!(j.thinktime, Nanos::from_millis(3));
    assert_eq!(j.startdelay, (Nanos::from_secs(2), Nanos::from_secs(10)));
    assert!(j.time_based && j.direct && j.thread);
    let j = one("[j]\ndirect=1\nbuffered=1\n");
    assert!(!j.direct);
}

#[test]
fn zipf_clones_warn_about_separate_hot_sets() {
    let p = parse("[j]\nrw=randread\nnumjobs=4\nrandom_distribution=zipf:1.2\n");
    assert!(p.warnings.iter().any(|w| w.message.contains("4 clones gets its own hot set")));
    let p = parse("[j]\nrw=randread\nnumjobs=4\nhot_set=shared\nrandom_distribution=zipf\n");
    assert!(!p.warnings.iter().any(|w| w.message.contains("hot set")), "{:?}", p.warnings);
}

#[test]
fn sizes_percent_and_rates() {
    let j = one("[j]\nsize=50%\noffset=10%\nrate=1m,2m\nrate_iops=500\n");
    assert_eq!(j.size, Some(SizeSpec::Percent(50.0)));
    assert_eq!(j.offset, SizeSpec::Percent(10.0));
    assert_eq!((j.rate.read, j.rate.write, j.rate.trim), (MB, 2 * MB, 2 * MB));
    assert_eq!(j.rate_iops.write, 500);
}

#[test]
fn unescaped_drive_letter_warns() {
    let p = parse("[j]\nfilename=D:\\fio\\x\n");
    assert_eq!(p.jobs[0].filenames, ["D", "\\fio\\x"]);
    assert!(p.warnings[0].message.contains("D\\:\\fio\\x"), "{:?}", p.warnings);
    let p = parse("[j]\nfilename=D\\:\\fio\\x\n");
    assert_eq!(p.jobs[0].filenames, ["D:\\fio\\x"]);
    assert!(p.warnings.is_empty());
}

#[test]
fn filename_format_keywords() {
    let p = parse("[j]\nfilename_format=data.$jobnum.$filenum\n[k]\nfilename_format=x.$jobid\n");
    assert_eq!(p.jobs[0].filename_format.as_deref(), Some("data.$jobnum.$filenum"));
    assert!(p.warnings.iter().any(|w| w.message.contains("'$jobid' is not a keyword")));
}

#[test]
fn command_line_jobs() {
    let args: Vec<String> = ["--bs=8k", "--name=a", "--rw=randread", "--name=b", "--rw=write"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let p = load_with(&LoadOptions { cmdline: args, ..Default::default() }, &env()).unwrap();
    assert_eq!(p.jobs.len(), 2);
    assert_eq!(
        (p.jobs[0].name.as_str(), p.jobs[0].rw, p.jobs[0].bs.read.min),
        ("a", RwKind::RandRead, 8192)
    );
    assert_eq!(
        (p.jobs[1].name.as_str(), p.jobs[1].rw, p.jobs[1].bs.write.min),
        ("b", RwKind::Write, 8192)
    );
    assert_eq!(p.jobs[0].options["rw"].origin, Origin::CommandLine { index: 2 });
    let filtered = load_with(
        &LoadOptions {
            cmdline: vec!["--name=a".into(), "--name=b".into()],
            sections: vec!["b".into()],
            ..Default::default()
        },
        &env(),
    )
    .unwrap();
    assert_eq!(filtered.jobs.len(), 1);
    assert_eq!(filtered.jobs[0].name, "b");
}

#[test]
fn comment_characters_cut_values_with_a_warning() {
    let p = parse("[j]\nfilename=/data/run#1\nsize=1m ; a real comment\n");
    assert_eq!(p.jobs[0].filenames, ["/data/run"]);
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert_eq!(p.warnings[0].location, "t.fio:2");
    assert!(p.warnings[0].message.contains("reads 'filename=/data/run'"));
}

#[test]
fn split_fio_args_space_separated_values() {
    let args: Vec<String> = ["--name", "x", "--rw", "randread", "--time_based", "--bs=4k", "j.fio"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let s = split_fio_args(&args, &[]);
    assert_eq!(s.fio_options, ["--name=x", "--rw=randread", "--time_based", "--bs=4k"]);
    assert_eq!(s.job_files, [PathBuf::from("j.fio")]);
}

#[test]
fn split_fio_args_separates() {
    let args: Vec<String> =
        ["job.fio", "--rw=read", "--tier", "ram:1g", "--section=x", "--json", "-v", "b.fio"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let s = split_fio_args(&args, &["tier=", "json"]);
    assert_eq!(s.job_files, [PathBuf::from("job.fio"), PathBuf::from("b.fio")]);
    assert_eq!(s.fio_options, ["--rw=read"]);
    assert_eq!(s.sections, ["x"]);
    assert_eq!(s.other, ["--tier", "ram:1g", "--json", "-v"]);
}

#[test]
fn ignored_and_engine_options_warn() {
    let p = parse("[j]\nioengine=psync\nhipri\n");
    assert!(
        p.warnings.iter().any(|w| w.message.contains("'hipri' belongs to ioengine")),
        "{:?}",
        p.warnings
    );
    // Engine options are accepted before the engine is named (unlike fio #408).
    let p = parse("[j]\nhipri\nioengine=io_uring\n");
    assert!(!p.warnings.iter().any(|w| w.message.contains("hipri")), "{:?}", p.warnings);
}

/// The same warning from one line (an unset variable used three times) is reported once.
#[test]
fn repeated_warning_is_reported_once() {
    let env = Env::fixed(&[], 8, 16384, 4096);
    let text = "[j]\nrw=read\nsize=1m\nfilename=${NOPE_DIR}/a:${NOPE_DIR}/b:${NOPE_DIR}/c\n";
    let p = iolab_job::parse_str_with("t.fio", text, &env).unwrap();
    let unset: Vec<_> = p.warnings.iter().filter(|w| w.message.contains("NOPE_DIR")).collect();
    assert_eq!(unset.len(), 1, "{:?}", p.warnings);
    assert_eq!(unset[0].location, "t.fio:4");
}

#[test]
fn steadystate_is_typed_once_with_the_jobs_kb_base() {
    use iolab_stats::{SsCriterion, SsMetric};
    // bw:10m is 10 MiB/s, or 10 MB/s with kb_base=1000 (fio parses it with the job's base).
    let mib = one("[j]\nrw=read\nsize=1m\nss=bw:10m\n");
    assert_eq!((mib.ss_criterion.metric, mib.ss_criterion.limit), (SsMetric::Bw, 10_485_760.0));
    let mb = one("[j]\nkb_base=1000\nrw=read\nsize=1m\nss=bw:10m\n");
    assert_eq!(mb.ss_criterion.limit, 10_000_000.0);
    // Unset: fio's default, the registry's iops_slope:0.01%.
    let d = one("[j]\nrw=read\nsize=1m\n");
    assert_eq!(d.ss_criterion, SsCriterion::FIO_DEFAULT);
    let def = iolab_job::registry::lookup("steadystate").unwrap().default;
    assert_eq!(SsCriterion::parse(def, iolab_core::units::KbBase::K1024), Ok(d.ss_criterion));
    // Refused when the job is read, naming the option and the value.
    let e = parse_err("[j]\nrw=read\nsize=1m\nss=bw:12x\nss_dur=2\n").to_string();
    assert!(e.contains("steadystate") && e.contains("bw:12x"), "{e}");
}
