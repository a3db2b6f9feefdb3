//! fio's own job warnings: the fix-ups of fio 3.33 init.c `fixup_options` that print a
//! warning and add `warnings_fatal` to the job's result, so that `--warnings-fatal` makes
//! exactly these fatal (and nothing iolab notes of its own, such as "a non-uniform
//! random_distribution forces norandommap=1": fio 3.33 runs that job with rc 0 under
//! `--warnings-fatal`). Each warning is fio's text, and where fio changes the job, so does
//! iolab:
//!
//! - `time_based` without `runtime`: "time_based requires a runtime/timeout setting", and
//!   time_based is turned off (the job ends at its size; it ran forever before);
//! - `blockalign` other than the block size, random map on: "Any use of blockalign= turns off
//!   randommap" (the workload turns the map off);
//! - `norandommap` with verify and variable block sizes: "norandommap given for variable
//!   block sizes, verify limited";
//! - verify with several writers on one file: "multiple writers may overwrite blocks that
//!   belong to other jobs. This can cause verification failures.";
//! - verify of a write-only time-based job: "verification read phase will never start
//!   because write phase uses all of runtime".
//!
//! fio's other `warnings_fatal` fix-ups concern platforms iolab does not run on (no
//! threads, no fdatasync), `read_iolog` (refused), or pipe engines with `pre_read`.

use crate::spec::Job;
use iolab_data::VerifyKind;

/// Apply fio's fix-ups to `job` and return fio's warnings, each with fio's text.
pub fn fio_fixups(job: &mut Job) -> Vec<String> {
    let mut w = Vec::new();
    if job.time_based && job.runtime.is_none_or(|r| r.0 == 0) {
        job.time_based = false;
        w.push("fio: time_based requires a runtime/timeout setting".to_string());
    }
    let random = job.rw.is_random();
    let bs = [&job.bs.read, &job.bs.write, &job.bs.trim];
    let ba = [job.blockalign.read, job.blockalign.write, job.blockalign.trim];
    let ba_differs = random && ba.iter().zip(bs).any(|(&a, b)| a != 0 && a != b.min);
    if ba_differs && !job.norandommap {
        w.push("fio: Any use of blockalign= turns off randommap".to_string());
    }
    let verify = verifies(job);
    let fixed = bs.iter().all(|b| b.min == b.max);
    if (job.norandommap || ba_differs) && verify && !fixed {
        w.push("fio: norandommap given for variable block sizes, verify limited".to_string());
    }
    let writes = job.rw.has_write();
    let do_verify = job.do_verify();
    if verify && writes && do_verify && job.numjobs > 1 && !unique_files(job) {
        w.push(
            "fio: multiple writers may overwrite blocks that belong to other jobs. This can \
             cause verification failures."
                .to_string(),
        );
    }
    let timed = job.time_based && job.runtime.is_some_and(|r| r.0 > 0);
    let backlog = job.verify_backlog() > 0;
    if verify && writes && do_verify && timed && !job.rw.has_read() && !backlog {
        w.push(
            "fio: verification read phase will never start because write phase uses all of \
             runtime"
                .to_string(),
        );
    }
    w
}

/// Whether the job verifies (`verify=` other than none).
fn verifies(job: &Job) -> bool {
    let raw = job.options.get("verify").map(|o| o.raw.as_str()).unwrap_or("0");
    VerifyKind::parse(raw).is_ok_and(|k| k != VerifyKind::None)
}

/// fio's test for clones that write files of their own: no `filename=`, and a
/// `filename_format` naming the job, its clone and the file (`unique_filename` on).
fn unique_files(job: &Job) -> bool {
    let fmt = job.filename_format.as_deref().unwrap_or("$jobname.$jobnum.$filenum");
    job.filenames.is_empty()
        && job.unique_filename()
        && ["$jobname", "$jobnum", "$filenum"].iter().all(|k| fmt.contains(k))
}
