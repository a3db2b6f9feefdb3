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
