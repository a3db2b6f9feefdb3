//! Helpers shared by the topic modules of iolab-workload's integration tests.

use iolab_job::{Job, RwKind, SizeSpec};
use iolab_workload::{FileLayout, JobSeeds, WorkerInput, Workload};

pub(crate) fn input<'a>(job: &'a Job, files: &'a [FileLayout]) -> WorkerInput<'a> {
    WorkerInput { job, clone_index: 0, thread_number: 1, files }
}

pub(crate) fn wl(job: &Job) -> Workload {
    let files = vec![FileLayout { size: 0 }; job.nrfiles.max(1) as usize];
    Workload::new(&input(job, &files)).unwrap()
}

pub(crate) fn job(rw: RwKind, size: u64) -> Job {
    let mut j = Job::with_defaults("x");
    j.rw = rw;
    j.size = Some(SizeSpec::Bytes(size));
    j
}

pub(crate) fn fio33(j: &Job, files: &[FileLayout]) -> Workload {
    Workload::with_seeds(&input(j, files), &JobSeeds::fio_3_33(j.randseed, 1, true)).unwrap()
}

pub(crate) fn blocks(w: Workload, n: usize) -> Vec<u64> {
    w.take(n).map(|r| r.offset / 4096).collect()
}
