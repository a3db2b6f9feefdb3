//! fio jobs as simulated workers: one [`WorkerSpec`] per job clone, each with the request
//! stream `iolab run` would issue (`iolab-workload`), started in fio's order (`stonewall`
//! waits for every earlier job, `wait_for=NAME` for that job's clones; fio backend.c
//! `run_threads`), with each distinct file given its own region on the backing device.
//!
//! Also the prediction as a `RunResult` (`mode: simulated`), so `iolab run`'s exporters print
//! it: [`run_result`].

use super::{RequestSource, SimReport, WorkerSpec};
use crate::SimError;
use iolab_core::IoRequest;
use iolab_job::Job;
use iolab_stats::{RunMeta, RunMode, RunResult};
use std::path::PathBuf;

/// One job clone's place in the result: its group and options (for `group_reporting`).
#[derive(Clone, Debug, Default)]
pub struct JobMeta {
    pub groupid: u32,
    pub options: iolab_stats::OptionList,
    pub report: iolab_stats::ReportOptions,
}

/// The workers of a set of jobs, their places in the result, and the warnings met.
#[derive(Default)]
pub struct JobWorkers {
    pub workers: Vec<WorkerSpec>,
    pub meta: Vec<JobMeta>,
    /// One line each, for stderr (`wait_for` naming no earlier job, workload warnings).
    pub warnings: Vec<String>,
}

/// One worker per job clone. `file_names(job, clone)` gives the clone's file names as
/// `iolab run` would use them (engine `clone_files`), so clones sharing a file share its
/// region on the backing device; `file_size(name)` the size an existing file or device has
/// (`iolab run` sizes them so; `iolab sim` predicts declared sizes and passes 0).
pub fn job_workers(
    jobs: &[Job],
    file_names: &dyn Fn(&Job, u32) -> Vec<PathBuf>,
    file_size: &dyn Fn(&std::path::Path) -> u64,
) -> Result<JobWorkers, SimError> {
    let mut out = JobWorkers::default();
    let mut thread_number = 0u32;
    let mut layout = BackingLayout::default();
    for job in jobs {
        let after = start_after(job, &out.workers);
        let depth = in_flight(job, &mut out.warnings);
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            let names = file_names(job, clone);
            let files: Vec<iolab_workload::FileLayout> = (0..job.nrfiles.max(1) as usize)
                .map(|i| iolab_workload::FileLayout {
                    size: names.get(i).map_or(0, |n| file_size(n)),
                })
                .collect();
            let input = iolab_workload::WorkerInput {
                job,
                clone_index: clone,
                // fio's pairing of clones and thread numbers (they scale the seeds).
                thread_number: iolab_workload::fio_thread_number(
                    thread_number - clone,
                    clone,
                    job.numjobs.max(1),
                ),
                files: &files,
            };
            let wl = iolab_workload::Workload::new(&input)?;
            out.warnings.extend(wl.warnings().iter().map(|w| format!("job '{}': {w}", job.name)));
            let stop = wl.stop();
            let bases = wl
                .regions()
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let name = names.get(i).cloned().unwrap_or_default();
                    layout.base(name, r.file_size.max(r.end))
                })
                .collect::<Result<Vec<u64>, SimError>>()?;
            let runtime = stop.runtime;
            let source = Box::new(WorkloadSource { wl, bases });
            let mut spec = WorkerSpec::new(job.name.clone(), source, depth);
            spec.after = after.clone();
            spec.runtime = runtime;
            spec.ramp = stop.ramp_time;
            // fsync=N / fdatasync=N (whichever comes first) and end_fsync, as the engine does.
            spec.sync_every = [job.fsync_every(), job.fdatasync_every()]
                .into_iter()
                .filter(|&n| n > 0)
                .min()
                .unwrap_or(0);
            spec.end_sync = job.end_fsync();
            out.workers.push(spec);
            out.meta.push(JobMeta {
                groupid: job.group_id,
                options: job
                    .options_in_order()
                    .map(|(k, v)| (k.to_string(), v.raw.clone()))
                    .collect(),
                report: job.report_options(),
            });
        }
    }
    Ok(out)
}

/// The depth `job` keeps in flight: 1 for a synchronous engine (the engine fact table's
/// SYNC flag: psync, sync, pvsync, mmap, ...), whatever `iodepth` asks, as `iolab run` caps
/// it (engine runner/config.rs); else `iodepth`. A capped depth is said in `warnings`.
fn in_flight(job: &Job, warnings: &mut Vec<String>) -> usize {
    use iolab_job::engines::{has, SYNC};
    if !has(&job.ioengine, SYNC) {
        return job.iodepth.max(1) as usize;
    }
    if job.iodepth > 1 {
        warnings.push(format!(
            "job '{}': ioengine={} is synchronous: depth 1 in flight, as iolab run caps it \
             (asked iodepth={})",
            job.name, job.ioengine, job.iodepth
        ));
    }
    1
}

/// fio's ordering: the workers `job` waits for (`stonewall`: every earlier one; `wait_for`:
/// that job's clones); the rest start together.
fn start_after(job: &Job, workers: &[WorkerSpec]) -> Vec<usize> {
    let mut after: Vec<usize> = Vec::new();
    if job.stonewall {
        after.extend(0..workers.len());
    }
    // The name was checked when the job file was read (job/resolve.rs `check_wait_for`:
    // exactly one earlier job).
    if let Some(name) = &job.wait_for {
        after.extend((0..workers.len()).filter(|&i| workers[i].name == *name));
    }
    after
}

/// The prediction as `iolab run`'s result: one job per worker with its group and options,
/// groups summed, `mode: simulated`, and a note saying it was predicted.
pub fn run_result(report: &mut SimReport, meta: &[JobMeta], run_meta: RunMeta) -> RunResult {
    let mut result = RunResult {
        meta: RunMeta { mode: RunMode::Simulated, ..run_meta },
        ..RunResult::default()
    };
    result.jobs = std::mem::take(&mut report.results);
    for (j, m) in result.jobs.iter_mut().zip(meta) {
        j.groupid = m.groupid;
        j.options = m.options.clone();
        j.report = m.report.clone();
    }
    result.groups = iolab_stats::groups(&result.jobs, &result.meta.percentile_list);
    let slat = result.jobs.iter().any(|j| j.read.slat.n + j.write.slat.n > 0);
    result.notes.push(if slat {
        "predicted by iolab sim (cache and device models), not measured; slat is the \
         profile's submit share of each command that started when it was issued"
            .to_string()
    } else {
        "predicted by iolab sim (cache and device models), not measured; slat is not modelled"
            .to_string()
    });
    result
}

struct WorkloadSource {
    wl: iolab_workload::Workload,
    /// Where each of the worker's files starts on the backing device.
    bases: Vec<u64>,
}

impl RequestSource for WorkloadSource {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        if !self.wl.next_into(req) {
            return false;
        }
        // In range by construction: `BackingLayout::base` checked base + size.
        req.offset += self.bases.get(req.file as usize).copied().unwrap_or(0);
        true
    }
}

/// The simulated jobs' files laid out one after another on the backing device, each distinct
/// file name once, 1 MiB aligned (as a filesystem would keep separate files apart).
#[derive(Default)]
struct BackingLayout {
    files: Vec<(PathBuf, u64, u64)>,
    next: u64,
}

impl BackingLayout {
    /// The start of `name`'s region, allocating `size` bytes for it on first sight (a later
    /// clone with a larger region grows nothing: fio sizes a shared file once).
    fn base(&mut self, name: PathBuf, size: u64) -> Result<u64, SimError> {
        if let Some((_, base, _)) = self.files.iter().find(|(n, _, _)| *n == name) {
            return Ok(*base);
        }
        let base = self.next;
        let end = base
            .checked_add(size)
            .and_then(|e| e.checked_next_multiple_of(1 << 20))
            .ok_or_else(|| SimError::Layout { file: name.display().to_string() })?;
        self.files.push((name, base, size));
        self.next = end;
        Ok(base)
    }
}
