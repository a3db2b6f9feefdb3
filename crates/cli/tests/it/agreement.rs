//! `iolab parse` refuses what `iolab run` refuses (issue 35): each `steadystate=` value goes to
//! both on a job that runs in a moment (`ioengine=null`, `size=1m`), and their exit statuses
//! must agree; a refusal names the option and the value.

use iolab_test_support::empty_stdin;
use std::path::Path;
use std::process::{Command, Output};

fn iolab(cmd: &str, job: &Path) -> Output {
    let dir = job.parent().unwrap();
    Command::new(env!("CARGO_BIN_EXE_iolab"))
        .arg(cmd)
        .arg(job)
        .current_dir(dir)
        .stdin(empty_stdin().unwrap())
        .output()
        .unwrap()
}

#[test]
fn parse_and_run_agree_on_every_steadystate_value() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, bool)] = &[
        ("iops:20%", true),
        ("bw_slope:0.1%", true),
        ("bw:10m", true),
        ("lat:100us", true),
        ("bw:12x", false),
        ("iops", false),
        ("iops:", false),
        ("lat:abc", false),
        ("nosuch:1", false),
        ("iops:x%", false),
    ];
    for (ss, ok) in cases {
        let job = d.path().join("j.fio");
        let text = format!(
            "[j]\nrw=read\nsize=1m\nioengine=null\nfilename=j.dat\ntime_based\nruntime=200ms\n\
             steadystate={ss}\nss_dur=2\n"
        );
        std::fs::write(&job, text).unwrap();
        let (parse, run) = (iolab("parse", &job), iolab("run", &job));
        let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(parse.status.success(), *ok, "parse ss={ss}: {}", stderr(&parse));
        assert_eq!(run.status.success(), *ok, "run ss={ss}: {}", stderr(&run));
        if !ok {
            for o in [&parse, &run] {
                let e = stderr(o);
                assert!(e.contains("steadystate") && e.contains(ss), "ss={ss}: {e}");
            }
        }
    }
}
