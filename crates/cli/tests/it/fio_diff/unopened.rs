//! A job whose file cannot be opened (issue 34, Deliver 3; the review's §5): fio 3.33 fails
//! that job's set-up with the errno (`filename=.`, a directory: error 21, EISDIR), still
//! prints its JSON with the error and no I/O, runs the other jobs, and exits 1. iolab
//! refused the whole run and printed no JSON.

use super::{both, jobs};

/// The job's JSON with its error, under both tools, alone and beside a job that runs.
#[test]
fn a_job_on_a_directory_reports_error_21_and_the_others_run() {
    let alone = ["--name=x", "--filename=.", "--size=64k", "--output-format=json"];
    let Some((f, i)) = both(&alone) else { return };
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!((f.status.code(), i.status.code()), (Some(1), Some(1)), "{}", err(&i));
    assert_eq!(jobs(&i), jobs(&f));
    assert_eq!(jobs(&i), [("x".to_string(), 21, 0, 0)]);
    let mut two = alone.to_vec();
    two.extend(["--name=y", "--filename=yf", "--size=64k", "--ioengine=psync"]);
    let Some((f, i)) = both(&two) else { return };
    assert_eq!((f.status.code(), i.status.code()), (Some(1), Some(1)), "{}", err(&i));
    assert_eq!(jobs(&i), jobs(&f));
    assert_eq!(jobs(&i)[1], ("y".to_string(), 0, 16, 0), "the other job ran");
}
