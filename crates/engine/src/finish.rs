//! What a run's result records about its jobs besides the numbers: fio's `global options`
//! and `job options` (stat.c `json_add_job_opts`), the files each job's clones use, and the
//! I/O spread over a clone's files.

use crate::runner::{clone_files, FileIo};
use iolab_job::{Job, Origin};
use iolab_stats::RunResult;
use std::path::PathBuf;

/// fio's `global options`: what the job files' `[global]` sections and the command line
/// before the first `--name` set, as written.
pub fn global_options(jobs: &[Job], cmdline: &[String]) -> iolab_stats::OptionList {
    let first_name = cmdline.iter().position(|a| a.starts_with("--name")).unwrap_or(usize::MAX);
    let mut out = iolab_stats::OptionList::new();
    for j in jobs {
        for (k, o) in j.options_in_order() {
            let global = match &o.origin {
                Origin::File { section, .. } => section.starts_with("global"),
                Origin::CommandLine { index } => (*index as usize) < first_name,
                Origin::Default => false,
            };
            if global {
                out.entry(k.to_string()).or_insert_with(|| o.raw.clone());
            }
        }
    }
    out
}

/// fio's `job options`: the section's own options, without what the global section set
/// (an option is kept when its value differs from the global one, so the exporters' lookup
/// "job, then global" still finds each job's value).
pub fn own_options(result: &mut RunResult) {
    let globals = result.global_options.clone();
    for j in &mut result.jobs {
        j.options.retain(|k, v| globals.get(k) != Some(v));
    }
}

/// Every file a job's clones will use, each once.
pub fn job_paths(job: &Job) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for c in 0..job.numjobs.max(1) {
        for p in clone_files(job, c) {
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    v
}

/// One note per file of a clone that used several (`nrfiles`): its I/Os and bytes, so the
/// spread over the files shows (fio reports it only in its per-file debug output).
pub fn file_notes(files: &[FileIo]) -> Vec<String> {
    files
        .iter()
        .filter(|f| files.iter().filter(|g| g.job == f.job && g.clone == f.clone).count() > 1)
        .map(|f| {
            let (job, clone, path) = (&f.job, f.clone, f.path.display());
            format!("job {job}.{clone}: {path}: {} I/Os, {} bytes", f.ios, f.bytes)
        })
        .collect()
}

/// The result as the command reports it: the command line and start time of the command
/// (`started`, taken before the jobs were laid out: fio's `timestamp`), fio's global and job
/// options, the job warnings, and whether a stop interrupted it.
pub fn complete(
    result: &mut RunResult,
    jobs: &[Job],
    cmdline: &[String],
    started: &iolab_stats::RunMeta,
    interrupted: bool,
) {
    result.meta.command_line = started.command_line.clone();
    result.meta.start_unix_ms = started.start_unix_ms;
    result.meta.interrupted = interrupted;
    result.global_options = global_options(jobs, cmdline);
    own_options(result);
}

/// Each job's first verify failure, as `job NAME: FILE: MESSAGE`.
pub fn verify_failures(result: &RunResult) -> Vec<String> {
    let first = |j: &iolab_stats::JobResult| {
        let f = j.verify.as_ref().and_then(|v| v.failures.first())?;
        Some(format!("job {}: {}: {}", j.name, f.file, f.message))
    };
    result.jobs.iter().filter_map(first).collect()
}

/// Whether the run failed as fio counts it (exit status 1): an I/O error or a verify
/// failure ("verify: bad magic").
pub fn failed(result: &RunResult) -> bool {
    result.jobs.iter().any(|j| j.error != 0 || j.verify.as_ref().is_some_and(|v| v.failed() > 0))
}

/// Every path an output of the run must not be: the job files and the files the jobs read or
/// write (fio's `filename=`), checked before any I/O.
pub fn inputs(job_files: &[PathBuf], jobs: &[Job]) -> Vec<PathBuf> {
    job_files.iter().cloned().chain(jobs.iter().flat_map(job_paths)).collect()
}
