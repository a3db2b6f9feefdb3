//! The byte range of each file a worker does I/O to, as fio's filesetup.c `setup_files` and
//! `get_start_offset` compute it:
//!
//! * start = `offset` (bytes, or a percentage of the real size) + `offset_increment` (bytes,
//!   or a percentage of the real size) × clone index (fio's `subjob_number`), rounded *up* to
//!   the minimum block size when either is a percentage;
//! * length = `size / nrfiles` (the remainder, in whole minimum blocks, goes to the first
//!   files) unless `filesize` is given (then `filesize − start`, a range drawn per file from
//!   the file-size Tausworthe state and rounded down to the minimum block size); with neither,
//!   the real size minus the start; `size=N%` takes that percentage of the file.

use crate::{FileLayout, WorkloadError};
use iolab_core::rand::FioRand;
use iolab_job::{Job, SizeSpec};

/// `[start, end)` of one file, plus the size the file has (or will have once laid out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub end: u64,
    /// The file's size during the run: its real size, or `end` if it must be extended.
    pub file_size: u64,
}

impl Region {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// `x` rounded up to a multiple of `a`; `None` when that passes 2^64.
fn align_up(x: u64, a: u64) -> Option<u64> {
    if a == 0 {
        Some(x)
    } else {
        x.div_ceil(a).checked_mul(a)
    }
}

/// The error for an offset or size whose sum or product passes 2^64 bytes.
fn overflow(job: &Job, option: &'static str, value: String) -> WorkloadError {
    WorkloadError::BadOption {
        job: job.name.clone(),
        option,
        value,
        expected: "a region that ends below 2^64 bytes (offset + size overflows)",
    }
}

/// fio's `get_start_offset` for one file: `offset` (bytes or % of `real`) plus
/// `offset_increment` × clone, aligned up to `min_bs` when either is a percentage.
fn start_offset(
    job: &Job,
    file: u32,
    clone: u64,
    real: u64,
    min_bs: u64,
) -> Result<u64, WorkloadError> {
    let no_size = || WorkloadError::NoSize { job: job.name.clone(), file };
    // filesetup.c get_start_offset: a percentage increment is of the real file size
    // (integer maths), and any percentage aligns the result up to the minimum block size.
    let incr = match job.offset_increment_percent {
        Some(p) => {
            if real == 0 && clone > 0 {
                return Err(no_size());
            }
            let step = (u128::from(p) * u128::from(real) / 100) as u64;
            step.checked_mul(clone)
        }
        None => job.offset_increment.checked_mul(clone),
    };
    let incr = incr.ok_or_else(|| {
        let v = match job.offset_increment_percent {
            Some(p) => format!("{p}% x clone {clone}"),
            None => format!("{} x clone {clone}", job.offset_increment),
        };
        overflow(job, "offset_increment", v)
    })?;
    let (base, aligned) = match job.offset {
        SizeSpec::Bytes(b) => (b, job.offset_increment_percent.is_some()),
        SizeSpec::Percent(p) => {
            if real == 0 {
                return Err(no_size());
            }
            ((real as f64 * p / 100.0) as u64, true)
        }
    };
    let sum = base
        .checked_add(incr)
        .ok_or_else(|| overflow(job, "offset", format!("{base} + offset_increment {incr}")))?;
    if aligned {
        align_up(sum, min_bs).ok_or_else(|| overflow(job, "offset", format!("{sum} aligned")))
    } else {
        Ok(sum)
    }
}

/// The region of file `file` when the job gives `filesize=lo[-hi]`: an existing file whose
/// size is in the range keeps it; otherwise the size is `lo`, or drawn from the range by the
/// file-size generator and rounded down to the smallest block (fio filesetup.c
/// `get_rand_file_size`). The region runs from `start` to that size.
fn filesize_region(
    job: &Job,
    file: u32,
    (lo, hi): (u64, u64),
    real: u64,
    start: u64,
    min_bs: u64,
    file_size_rng: &mut FioRand,
) -> Result<u64, WorkloadError> {
    if real >= lo && real <= hi && real > 0 {
        return Ok(real.saturating_sub(start));
    }
    let want = if lo == hi {
        lo
    } else {
        let r = file_size_rng.next_u64();
        let v = lo + ((hi - lo) as f64 * (r as f64 / (file_size_rng.max() as f64 + 1.0))) as u64;
        v - v % min_bs.max(1)
    };
    if start > want {
        return Err(WorkloadError::OffsetPastEnd {
            job: job.name.clone(),
            file,
            offset: start,
            size: want,
        });
    }
    Ok(want - start)
}

/// Each file's region (`offset`, `offset_increment`, `size` or `filesize`, split over the
/// files as fio filesetup.c `setup_files` does), checked to hold at least one block.
pub(crate) fn compute_regions(
    job: &Job,
    clone_index: u32,
    files: &[FileLayout],
    min_bs: u64,
    file_size_rng: &mut FioRand,
) -> Result<Vec<Region>, WorkloadError> {
    let nr = files.len() as u64;
    if nr == 0 {
        return Err(WorkloadError::NoFiles { job: job.name.clone() });
    }
    let clone = clone_index as u64;
    let (size_bytes, size_pct) = match job.size {
        Some(SizeSpec::Bytes(b)) => (b, None),
        Some(SizeSpec::Percent(p)) => (0, Some(p)),
        None => (0, None),
    };
    let fs = if job.filesize.is_none() { size_bytes / nr } else { 0 };
    let mut nr_fs_extra = if fs > 0 && min_bs > 0 { (size_bytes - fs * nr) / min_bs } else { 0 };
    let mut out = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let real = f.size;
        let start = start_offset(job, i as u32, clone, real, min_bs)?;
        let mut io_size = if let Some(range) = job.filesize {
            filesize_region(job, i as u32, range, real, start, min_bs, file_size_rng)?
        } else if fs > 0 {
            let mut s = fs;
            if nr_fs_extra > 0 {
                nr_fs_extra -= 1;
                s = s.saturating_add(min_bs);
            }
            s
        } else {
            if real == 0 {
                return Err(WorkloadError::NoSize { job: job.name.clone(), file: i as u32 });
            }
            if start > real {
                return Err(WorkloadError::OffsetPastEnd {
                    job: job.name.clone(),
                    file: i as u32,
                    offset: start,
                    size: real,
                });
            }
            real - start
        };
        if let Some(p) = size_pct {
            if p != 100.0 {
                let file_size = io_size.saturating_add(start);
                io_size = ((file_size as f64 * p / 100.0) as u64).min(file_size - start);
                io_size -= io_size % min_bs.max(1);
            }
        }
        if io_size < min_bs {
            return Err(WorkloadError::RegionTooSmall {
                job: job.name.clone(),
                file: i as u32,
                region: io_size,
                bs: min_bs,
            });
        }
        let end = start.checked_add(io_size).ok_or_else(|| {
            overflow(job, "offset", format!("{start} + size {io_size} (file {i})"))
        })?;
        out.push(Region { start, end, file_size: real.max(end) });
    }
    Ok(out)
}
