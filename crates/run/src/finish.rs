//! What a run's result records about its jobs besides the numbers: fio's `global options`
//! and `job options` (stat.c `json_add_job_opts`), the files each job's clones use, and the
//! I/O spread over a clone's files.

use iolab_engine::runner::{clone_files, FileIo, FILE_NOTES_MAX};
use iolab_job::{Job, Origin};
use iolab_stats::RunResult;
use std::collections::{HashMap, HashSet};
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

/// Every file a job's clones will use, each once, in first-use order (a set beside the list:
/// `nrfiles=100000` must not compare every path with every other).
pub fn job_paths(job: &Job) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let mut v = Vec::new();
    for c in 0..job.numjobs.max(1) {
        for p in clone_files(job, c) {
            if seen.insert(p.clone()) {
                v.push(p);
            }
        }
    }
    v
}

/// Notes on the I/O spread over the files of each clone that used several (`nrfiles`), so the
/// spread shows (fio reports it only in its per-file debug output): up to [`FILE_NOTES_MAX`]
/// files, one note per file with its I/Os and bytes; more, one note with the totals, the
/// least/median/most I/Os per file and how many files got none.
pub fn file_notes(files: &[FileIo]) -> Vec<String> {
    let mut index: HashMap<(&str, u32), usize> = HashMap::new();
    let mut groups: Vec<Vec<&FileIo>> = Vec::new();
    for f in files {
        let i = *index.entry((f.job.as_str(), f.clone)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push(f);
    }
    let mut notes = Vec::new();
    for g in groups.iter().filter(|g| g.len() > 1) {
        let (job, clone) = (&g[0].job, g[0].clone);
        if g.len() <= FILE_NOTES_MAX {
            notes.extend(g.iter().map(|f| {
                format!(
                    "job {job}.{clone}: {}: {} I/Os, {} bytes",
                    f.path.display(),
                    f.ios,
                    f.bytes
                )
            }));
            continue;
        }
        let mut ios: Vec<u64> = g.iter().map(|f| f.ios).collect();
        ios.sort_unstable();
        let bytes: u64 = g.iter().map(|f| f.bytes).fold(0, u64::saturating_add);
        let total: u64 = ios.iter().copied().fold(0, u64::saturating_add);
        let idle = ios.iter().take_while(|&&n| n == 0).count();
        notes.push(format!(
            "job {job}.{clone}: {} files: {total} I/Os, {bytes} bytes; I/Os per file least {} / \
             median {} / most {}; {idle} files got none",
            g.len(),
            ios[0],
            ios[ios.len() / 2],
            ios[ios.len() - 1],
        ));
    }
    notes
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

#[cfg(test)]
mod tests {
    use super::*;

    fn files(job: &str, clone: u32, ios: &[u64]) -> Vec<FileIo> {
        let f = |(i, &n): (usize, &u64)| FileIo {
            job: job.into(),
            clone,
            path: PathBuf::from(format!("/d/{job}.{clone}.{i}")),
            ios: n,
            bytes: n * 4096,
        };
        ios.iter().enumerate().map(f).collect()
    }

    #[test]
    fn a_few_files_get_a_note_each_and_a_single_file_none() {
        let mut all = files("a", 0, &[3, 1]);
        all.extend(files("b", 0, &[7]));
        assert_eq!(
            file_notes(&all),
            ["job a.0: /d/a.0.0: 3 I/Os, 12288 bytes", "job a.0: /d/a.0.1: 1 I/Os, 4096 bytes"]
        );
    }

    #[test]
    fn many_files_get_one_summary_per_clone() {
        // 100,000 files, 256 of them with one I/O each (size=1m, bs=4k, filesize=4k).
        let ios: Vec<u64> = (0..100_000).map(|i| u64::from(i < 256)).collect();
        let mut all = files("j", 0, &ios);
        all.extend(files("j", 1, &[2; 17]));
        assert_eq!(
            file_notes(&all),
            [
                "job j.0: 100000 files: 256 I/Os, 1048576 bytes; I/Os per file least 0 / \
                 median 0 / most 1; 99744 files got none",
                "job j.1: 17 files: 34 I/Os, 139264 bytes; I/Os per file least 2 / median 2 / \
                 most 2; 0 files got none",
            ]
        );
    }
}
