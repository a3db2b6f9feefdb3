//! Prediction of jobs on a device: each job clone becomes a simulated worker fed by the same
//! `iolab_workload::Workload` stream `iolab run` would issue (fio's decision order and seeds),
//! its files laid out one after another on the device (1 MiB aligned, shared `filename=`
//! once), run through `iolab_model::sim` over the device with no cache tier. The result is a
//! `RunResult` in `mode: simulated`, grouped as `iolab run` groups. Same layout rules as
//! `iolab sim` (`crates/cli/src/cmd/sim.rs`).

use crate::error::CalibrateError;
use iolab_core::IoRequest;
use iolab_job::Job;
use iolab_model::device::DeviceSpec;
use iolab_model::sim::{self, RequestSource, SimOptions, WorkerSpec};
use iolab_model::tier::{BackingSpec, Hierarchy};
use iolab_stats::{RunMeta, RunMode, RunResult};
use std::path::PathBuf;

/// The jobs as `device` would serve them.
pub fn predict(jobs: &[Job], device: &DeviceSpec) -> Result<RunResult, CalibrateError> {
    let backing = BackingSpec { name: "device".into(), device: device.clone(), sparse: false };
    let mut h = Hierarchy::new(Vec::new(), backing)?;
    let mut workers: Vec<WorkerSpec> = Vec::new();
    let mut groupids = Vec::new();
    let mut thread_number = 0u32;
    let mut layout = Layout::default();
    for job in jobs {
        let mut after: Vec<usize> = Vec::new();
        if job.stonewall {
            after.extend(0..workers.len());
        }
        if let Some(name) = &job.wait_for {
            after.extend((0..workers.len()).filter(|&i| workers[i].name == *name));
        }
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            let names = iolab_engine::runner::clone_files(job, clone);
            // Sized as `iolab run` sizes them: an existing file or device has its size.
            let files: Vec<iolab_workload::FileLayout> = (0..job.nrfiles.max(1) as usize)
                .map(|i| iolab_workload::FileLayout {
                    size: names.get(i).map_or(0, |n| existing_size(n)),
                })
                .collect();
            let input = iolab_workload::WorkerInput {
                job,
                clone_index: clone,
                thread_number,
                files: &files,
            };
            let wl = iolab_workload::Workload::new(&input)?;
            let stop = wl.stop();
            let mut bases = Vec::new();
            for (i, r) in wl.regions().iter().enumerate() {
                let name = names.get(i).cloned().unwrap_or_default();
                bases.push(layout.base(name, r.file_size.max(r.end), &job.name)?);
            }
            let mut spec = WorkerSpec::new(
                job.name.clone(),
                Box::new(Source { wl, bases }),
                job.iodepth.max(1) as usize,
            );
            spec.after = after.clone();
            spec.runtime = stop.runtime;
            spec.ramp = stop.ramp_time;
            workers.push(spec);
            groupids.push(job.group_id);
        }
    }
    let report = sim::run(&mut h, workers, SimOptions::default());
    Ok(to_result(report.results, &groupids))
}

/// Size of an existing regular file or block device (0 when absent or anything else; a
/// FIFO is never opened).
fn existing_size(path: &std::path::Path) -> u64 {
    use std::io::Seek;
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        Ok(m) if m.file_type().is_block_device() => std::fs::File::open(path)
            .and_then(|mut f| f.seek(std::io::SeekFrom::End(0)))
            .unwrap_or(0),
        _ => 0,
    }
}

fn to_result(mut jobs: Vec<iolab_stats::JobResult>, groupids: &[u32]) -> RunResult {
    let pcts = SimOptions::default().percentiles;
    for (j, g) in jobs.iter_mut().zip(groupids) {
        j.groupid = *g;
    }
    let groups = iolab_stats::groups(&jobs, &pcts);
    RunResult {
        meta: RunMeta {
            iolab_version: env!("CARGO_PKG_VERSION").to_string(),
            mode: RunMode::Simulated,
            percentile_list: pcts,
            ..RunMeta::default()
        },
        jobs,
        groups,
        notes: vec!["predicted from a device profile, not measured".into()],
        ..RunResult::default()
    }
}

struct Source {
    wl: iolab_workload::Workload,
    bases: Vec<u64>,
}

impl RequestSource for Source {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        if !self.wl.next_into(req) {
            return false;
        }
        req.offset += self.bases.get(req.file as usize).copied().unwrap_or(0);
        true
    }
}

/// Distinct files one after another, 1 MiB aligned.
#[derive(Default)]
struct Layout {
    files: Vec<(PathBuf, u64)>,
    next: u64,
}

impl Layout {
    fn base(&mut self, name: PathBuf, size: u64, job: &str) -> Result<u64, CalibrateError> {
        if let Some((_, b)) = self.files.iter().find(|(n, _)| *n == name) {
            return Ok(*b);
        }
        let base = self.next;
        self.next = base
            .checked_add(size)
            .and_then(|e| e.checked_next_multiple_of(1 << 20))
            .ok_or_else(|| CalibrateError::Point {
                point: job.to_string(),
                why: format!("file {}: the files do not fit in 2^64 bytes", name.display()),
            })?;
        self.files.push((name, base));
        Ok(base)
    }
}
