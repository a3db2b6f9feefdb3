//! iolab-workload: deterministic I/O request streams from fio jobs.
//!
//! For one worker (one clone of a job), [`Workload`] yields the [`IoRequest`]s fio would issue:
//! directions (`rw`, `rwmixread`), offsets (sequential, random with fio's random map,
//! `random_distribution`), sizes (`bs`, `bsrange`, `bssplit`), files (`file_service_type`) and,
//! when the job is paced, the intended issue time of each request. The same job, clone and
//! seed always give the same stream, whether it is run, simulated or written as a trace.
//!
//! ```
//! use iolab_job::{Job, RwKind};
//! use iolab_workload::{FileLayout, WorkerInput, Workload};
//! let mut job = Job::with_defaults("x");
//! job.rw = RwKind::RandRead;
//! job.size = Some(iolab_job::SizeSpec::Bytes(1 << 20));
//! let files = [FileLayout { size: 0 }];
//! let w = Workload::new(&WorkerInput { job: &job, clone_index: 0, thread_number: 1, files: &files })
//!     .unwrap();
//! let reqs: Vec<_> = w.collect();
//! assert_eq!(reqs.len(), 256); // each 4 KiB block of 1 MiB exactly once
//! ```
//!
//! Fidelity: with fio 3.33's seeds ([`FioSeeds::V3_33`], the job option
//! `iolab_fio_seeds=3.33`) the streams match the installed fio 3.33's `write_iolog` record
//! for record (`tests/fio_diff`: randread, randwrite, randrw, zipf/pareto/normal/zoned,
//! `bsrange`, `bssplit`, `numjobs`, default seeds and `randseed`), and golden sequences cover
//! norandommap, `randread:N`, `rw_sequencer=identical`, `percentage_random`,
//! `file_service_type=random`, `filesize` ranges and `random_generator=lfsr`
//! (`tests/it/bit_exact.rs`). By default [`Workload::new`] seeds as fio ≥ 3.35 does, which differs
//! from 3.33 in the block-offset and distribution seeds only.
//!
//! Sources: fio's io_u.c (`get_next_offset`, `get_next_block`, `get_next_buflen`,
//! `get_rw_ddir`), filesetup.c (`setup_files`, `get_start_offset`), init.c (seeds), lib/zipf.c,
//! lib/gauss.c, lib/axmap.c, backend.c (`usec_for_io`). See each module's header.

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bs;
pub mod dist;
pub mod files;
mod generator;
pub mod pacing;
pub mod randmap;
pub mod region;
pub mod seeds;
pub mod streams;
mod strided;

pub use files::clone_files;
pub use generator::Workload;
pub use region::Region;
pub use seeds::{FioSeeds, JobSeeds};

use iolab_core::{IoRequest, Nanos};
use iolab_job::Job;

/// One file or device the worker does I/O to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileLayout {
    /// The real size of the file or device in bytes; 0 for a file that does not exist yet
    /// (the job's `size`/`filesize` then define it, and the engine lays it out up to
    /// [`Region::end`]).
    pub size: u64,
}

/// What one worker needs to build its stream.
#[derive(Clone, Copy, Debug)]
pub struct WorkerInput<'a> {
    pub job: &'a Job,
    /// 0-based clone index within the job (`numjobs`); fio's `subjob_number`, which scales
    /// `offset_increment`.
    pub clone_index: u32,
    /// fio's 1-based `td->thread_number` across the whole run; it scales the seeds.
    pub thread_number: u32,
    pub files: &'a [FileLayout],
}

/// fio's `td->thread_number` of clone `clone` of a job with `numjobs` clones whose first
/// clone is thread `first`. fio adds the clones after the first in descending
/// `subjob_number` (init.c `add_job`: `while (--numjobs)`), so with `numjobs=3` the files
/// `x.2.0` and `x.1.0` belong to threads `first + 1` and `first + 2`. The thread number
/// scales the seeds, so this pairing decides each clone's offsets.
pub fn fio_thread_number(first: u32, clone: u32, numjobs: u32) -> u32 {
    if clone == 0 || clone >= numjobs {
        first + clone
    } else {
        first + (numjobs - clone)
    }
}

/// When the worker stops, beyond the end of its request stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StopConditions {
    /// `runtime`: a cap, or with `time_based` the run length.
    pub runtime: Option<Nanos>,
    pub time_based: bool,
    /// `ramp_time`: statistics are reset when it ends (fio's `reset_all_stats`).
    pub ramp_time: Option<Nanos>,
    /// Total bytes this worker issues (`io_size`, or `size`, times `loops`); `None` when
    /// `time_based`.
    pub bytes: Option<u64>,
    /// `number_ios`.
    pub number_ios: Option<u64>,
}

/// Why a job cannot produce a stream.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkloadError {
    #[error("job '{job}': no files to do I/O to")]
    NoFiles { job: String },
    #[error(
        "job '{job}': file {file} has no size: give size=, filesize=, or an existing file/device"
    )]
    NoSize { job: String, file: u32 },
    #[error(
        "job '{job}': file {file}: offset {offset} is past the end of the file ({size} bytes)"
    )]
    OffsetPastEnd { job: String, file: u32, offset: u64, size: u64 },
    #[error(
        "job '{job}': file {file}: region of {region} bytes is smaller than the block size {bs}"
    )]
    RegionTooSmall { job: String, file: u32, region: u64, bs: u64 },
    #[error("job '{job}': {option}={value} is invalid: {expected}")]
    BadOption { job: String, option: &'static str, value: String, expected: &'static str },
    #[error("job '{job}': file {file}: {source}")]
    RandMap { job: String, file: u32, source: crate::randmap::RandMapAllocError },
    #[error("job '{job}': {option} is not supported by iolab's workload generator: {why}")]
    Unsupported { job: String, option: &'static str, why: &'static str },
}

impl Iterator for Workload {
    type Item = IoRequest;

    #[inline]
    fn next(&mut self) -> Option<IoRequest> {
        let mut r = IoRequest::default();
        if self.next_into(&mut r) {
            Some(r)
        } else {
            None
        }
    }
}
