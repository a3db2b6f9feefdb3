//! Every clone's targets checked before the first clone of any job starts (issue 28, the
//! reliability review of 2026-11-28 §10: with `offset_increment` and `numjobs` past a
//! device's end, clones 0 and 1 wrote 412 KiB before clone 2 was refused; a blank device in
//! job `x` was written before job `y`'s mounted one was refused). fio sets up every job's
//! files before it starts any (backend.c `run_threads`, `create_serialize=1`); iolab lays
//! each clone's files out as the clone starts, so what can be known beforehand is checked
//! here, writing nothing: the gate's refusals (a missing name under /dev, however spelled; a
//! file or device in use), a node that is neither a file nor a block device, a written
//! device's signatures (`--allow-destroy`), and each clone's region against the size of the
//! block devices it addresses. Files are created and sized later, so their sizes are not
//! checked here. Each path is checked once per way it is used.

use super::clone::file_layouts;
use super::config::{self, JobPlan};
use super::options::RunOptions;
use crate::error::EngineError;
use crate::safety::WriteGrant;
use crate::target;
use iolab_job::Job;
use iolab_workload::{WorkerInput, Workload};
use std::collections::HashMap;
use std::path::PathBuf;

/// Each clone of a job: (clone, its number among every rank's clones, fio's thread number).
pub(super) type CloneNumbers = Vec<(u32, u32, u32)>;

/// Jobs that cannot open one of their files, by job index: (errno, message). fio sets such a
/// job's error during its set-up (filesetup.c, "err=21 ... error=Is a directory"), runs the
/// other jobs and reports this one with its error and no I/O.
pub(super) type Unopenable = HashMap<usize, (i32, String)>;

/// A file fio cannot open as a job's file: a directory (EISDIR).
fn unopenable(p: &std::path::Path) -> Option<(i32, String)> {
    std::fs::metadata(p)
        .is_ok_and(|m| m.is_dir())
        .then(|| (libc::EISDIR, format!("{}: open failed: Is a directory", p.display())))
}

/// Check every clone of every job (see the module notes).
pub(super) fn check_all(
    jobs: &[Job],
    plans: &[JobPlan],
    numbers: &[CloneNumbers],
    opts: &RunOptions,
) -> Result<Unopenable, EngineError> {
    let mut checked: HashMap<(PathBuf, bool), Option<u64>> = HashMap::new();
    let mut failed = Unopenable::new();
    for (ji, ((job, plan), clones)) in jobs.iter().zip(plans).zip(numbers).enumerate() {
        if iolab_job::engines::has(&plan.engine, iolab_job::engines::DISKLESS) {
            continue;
        }
        let bad = clones
            .iter()
            .flat_map(|&(_, number, _)| iolab_workload::clone_files(job, number))
            .find_map(|p| unopenable(&p));
        if let Some(e) = bad {
            failed.insert(ji, e);
            continue;
        }
        let writes = writes(job, plan, opts)?;
        let grant = WriteGrant {
            allow_destroy: opts.allow_destroy,
            allow_mounted_write: plan.allow_mounted_write,
        };
        for &(_, number, thread_number) in clones {
            let paths = iolab_workload::clone_files(job, number);
            let mut sizes = Vec::with_capacity(paths.len());
            for p in &paths {
                let key = (p.clone(), writes);
                let size = match checked.get(&key) {
                    Some(s) => *s,
                    None => *checked.entry(key).or_insert(target::check_target(p, writes, grant)?),
                };
                sizes.push(size);
            }
            // Devices do not change size before the job starts; files may be laid out by an
            // earlier job, so a clone with any file in it is sized when it starts.
            if sizes.iter().all(Option::is_some) {
                region_fits(job, plan, &paths, &sizes, number, thread_number)?;
            }
        }
    }
    Ok(failed)
}

/// Whether the job's clones write their targets, as `clone::open_targets` decides.
fn writes(job: &Job, plan: &JobPlan, opts: &RunOptions) -> Result<bool, EngineError> {
    let dcfg =
        job.data_config().map_err(|source| EngineError::Data { job: job.name.clone(), source })?;
    let vplan = config::verify_plan(job, &dcfg, &plan.wcfg)?;
    Ok(((job.rw.has_write() || job.rw.has_trim()) && !vplan.only) || opts.prefill)
}

/// Each block device's size against the end of the clone's region on it.
fn region_fits(
    job: &Job,
    plan: &JobPlan,
    paths: &[PathBuf],
    sizes: &[Option<u64>],
    number: u32,
    thread_number: u32,
) -> Result<(), EngineError> {
    let layouts = file_layouts(job, &plan.engine, paths);
    let input = WorkerInput { job, clone_index: number, thread_number, files: &layouts };
    let regions = Workload::regions_of(&input)
        .map_err(|source| EngineError::Workload { job: job.name.clone(), source })?;
    for ((p, size), r) in paths.iter().zip(sizes).zip(&regions) {
        let (Some(actual), needed) = (*size, r.file_size.max(r.end)) else { continue };
        if needed > actual {
            return Err(EngineError::TooSmall { path: p.clone(), actual, needed });
        }
    }
    Ok(())
}
