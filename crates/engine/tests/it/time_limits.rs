//! `runtime` ends a job within about one I/O's latency whatever its pacing (fio backend.c
//! `thread_main`/`runtime_exceeded`, which fio checks around every I/O and every think-time
//! sleep): `rate_iops`, `thinktime` longer than the runtime, a think time of 2^64 ns, and the
//! stop flag (Ctrl-C) during a think-time sleep.
#![allow(clippy::unwrap_used)]

use iolab_engine::runner::{run_jobs, RunOptions};
use iolab_job::{Job, LoadOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn jobs(cmdline: &[&str], dir: &std::path::Path) -> Vec<Job> {
    let mut args: Vec<String> = vec!["--name=t".into(), format!("--directory={}", dir.display())];
    args.extend(cmdline.iter().map(|s| s.to_string()));
    let opts = LoadOptions { files: vec![], cmdline: args, sections: vec![] };
    iolab_job::load_with(&opts, &iolab_job::ini::Env::from_system()).unwrap().jobs
}

/// Run the job; (wall time, the result). `stop_after` sets the stop flag from another thread.
fn timed(cmdline: &[&str], stop_after: Option<Duration>) -> (Duration, iolab_stats::JobResult) {
    let d = tempfile::tempdir_in(".").unwrap();
    let jobs = jobs(cmdline, d.path());
    let stop = Arc::new(AtomicBool::new(false));
    if let Some(after) = stop_after {
        let s = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            s.store(true, Ordering::Relaxed);
        });
    }
    let t = Instant::now();
    let out = run_jobs(&jobs, &RunOptions::default(), stop, None).unwrap();
    (t.elapsed(), out.result.jobs.into_iter().next().unwrap())
}

const NULL: [&str; 3] = ["--ioengine=null", "--rw=read", "--size=1m"];

/// What a loaded machine may add to a wall time here: the tests check the work done (I/Os,
/// the runtime the job reports) and use the wall only to catch a job that slept out its think
/// time or hung, which takes 60 s to an hour. 2 s of the old bounds ran out under load 26.
const WALL_MARGIN: Duration = Duration::from_secs(10);

#[test]
fn rate_iops_one_ends_at_runtime_two_seconds() {
    let (wall, j) = timed(&[&NULL[..], &["--rate_iops=1", "--runtime=2"]].concat(), None);
    // The work done (two reads, the runtime reported) is the check; the wall bound only
    // catches a hang, with room for a loaded machine (see WALL_MARGIN).
    assert!(wall < Duration::from_secs(2) + WALL_MARGIN, "ran {wall:?} (fio: 2 s)");
    // Reads due at 0 s and 1 s; the one due at 2 s falls on the end of the runtime and is
    // not issued (fio also completes 2).
    assert_eq!(j.read.total_ios, 2);
    assert!(j.runtime_ns >= 1_990_000_000 && j.runtime_ns < 2_500_000_000, "{}", j.runtime_ns);
}

#[test]
fn thinktime_longer_than_runtime_ends_at_runtime() {
    // A think time far past the runtime, so that sleeping it out (60 s) is told apart from
    // ending at the runtime (2 s) by more than any load can add.
    let args = [&NULL[..], &["--thinktime=60s", "--runtime=2", "--time_based"]].concat();
    let (wall, j) = timed(&args, None);
    assert!(wall < Duration::from_secs(2) + WALL_MARGIN, "ran {wall:?} (fio: 2 s)");
    // The first read at 0, the second not before 60 s: exactly one.
    assert_eq!(j.read.total_ios, 1);
    assert!(j.runtime_ns >= 1_990_000_000, "{}", j.runtime_ns);
}

#[test]
fn think_time_of_two_to_the_64_ns_ends_at_runtime() {
    let args = [&NULL[..], &["--thinktime=18446744073709551615ns", "--runtime=1"]].concat();
    let (wall, j) = timed(&args, None);
    assert!(wall < Duration::from_secs(1) + WALL_MARGIN, "ran {wall:?}");
    assert_eq!(j.read.total_ios, 1);
    assert!(j.runtime_ns >= 990_000_000 && j.runtime_ns < 1_500_000_000, "{}", j.runtime_ns);
}

#[test]
fn stop_flag_interrupts_a_think_time_sleep() {
    // No runtime at all: only the stop flag (Ctrl-C) can end the hour-long pause.
    let (wall, j) =
        timed(&[&NULL[..], &["--thinktime=1h"]].concat(), Some(Duration::from_millis(300)));
    assert!(wall < Duration::from_millis(300) + WALL_MARGIN, "ran {wall:?}");
    assert_eq!(j.read.total_ios, 1);
}

#[test]
fn huge_bsrange_is_refused_naming_the_option() {
    let d = tempfile::tempdir_in(".").unwrap();
    let args = [&NULL[..], &["--bsrange=4k-18446744073709551615", "--runtime=1"]].concat();
    let jobs = jobs(&args, d.path());
    let t = Instant::now();
    let r = run_jobs(&jobs, &RunOptions::default(), Arc::new(AtomicBool::new(false)), None);
    assert!(t.elapsed() < WALL_MARGIN, "took {:?}", t.elapsed());
    let e = match r {
        Ok(_) => panic!("a block size of 2^64 - 1 was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("bs"), "{e}");
}
