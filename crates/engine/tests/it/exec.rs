//! `ioengine=exec` (fio engines/exec.c): the program runs with fio's `%n`/`%r`
//! substitutions, its output lands in `NAME.stdout`/`NAME.stderr`, its exit status is
//! reported, and one that outlives the runtime gets SIGTERM.

use crate::common::{load, run};
use std::os::unix::fs::PermissionsExt;

#[test]
fn exec_runs_the_program_with_its_arguments_and_reports_its_exit_status() {
    let d = tempfile::tempdir_in(".").unwrap();
    let prog = d.path().join("prog.sh");
    std::fs::write(&prog, "#!/bin/sh\necho \"args: $*\"\necho oops >&2\nexit 3\n").unwrap();
    std::fs::set_permissions(&prog, PermissionsExt::from_mode(0o755)).unwrap();
    let name = d.path().join("job").display().to_string();
    let args = [
        format!("--name={name}"),
        "--ioengine=exec".into(),
        format!("--program={}", prog.display()),
        "--arguments=%n  %r x".into(),
        "--time_based".into(),
        "--runtime=1".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let j = run(&load(&[], &args, d.path())).jobs.remove(0);
    assert_eq!(j.error, 0);
    let out = std::fs::read_to_string(format!("{name}.stdout")).unwrap();
    assert_eq!(out, format!("args: {name} 1 x\n"), "%n and %r substituted, split on spaces");
    assert_eq!(std::fs::read_to_string(format!("{name}.stderr")).unwrap(), "oops\n");
    let note = format!("exec: {} exited with status 3", prog.display());
    assert!(j.notes.iter().any(|n| n.contains(&note)), "{:?}", j.notes);
    // Nothing else was laid out: the engine has no file (fio's FIO_DISKLESSIO).
    let mut left: Vec<_> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["job.stderr", "job.stdout", "prog.sh"]);
}

#[test]
fn a_program_outliving_the_runtime_is_terminated_and_no_program_is_refused() {
    let d = tempfile::tempdir_in(".").unwrap();
    let name = d.path().join("s").display().to_string();
    let args = [
        format!("--name={name}"),
        "--ioengine=exec".into(),
        "--program=sleep".into(),
        "--arguments=30".into(),
        "--time_based".into(),
        "--runtime=500ms".into(),
        "--grace_time=0".into(),
        "--std_redirect=0".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let t = std::time::Instant::now();
    let j = run(&load(&[], &args, d.path())).jobs.remove(0);
    assert!(t.elapsed() < std::time::Duration::from_secs(10), "{:?}", t.elapsed());
    assert!(
        j.notes.iter().any(|n| n.contains("exec: sleep was ended by signal 15")),
        "{:?}",
        j.notes
    );
    assert!(!std::path::Path::new(&format!("{name}.stdout")).exists(), "std_redirect=0");
    // Without a program the job is refused when it is read (`iolab parse` as well as `run`).
    let e = iolab_job::parse_str("x.fio", "[x]\nioengine=exec\ntime_based\nruntime=1\n")
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("program"), "{e}");
}
