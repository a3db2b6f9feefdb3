//! `iolab run/sim --write-iolog FILE`, the job option `write_iolog=FILE` and `iolab mrc --job`:
//! the run's request streams (`iolab_workload::streams`, interleaved there with their issue
//! times) written as a fio iolog v3 by `iolab_trace::write::iolog`, with the engine's file
//! names ([`iolab_engine::runner::clone_files`]) and sizes (fio iolog.c `log_io_piece` order).

use std::path::Path;

use iolab_job::Job;
use iolab_trace::write::{iolog::IologWriter, TraceWriter};
use iolab_trace::TraceRecord;
pub use iolab_workload::streams::Streams;

use crate::RunError as EngineError;

/// Which file sizes the workload is built against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// What exists on disk now, as `iolab run` sees it.
    Existing,
    /// No file exists (`iolab sim`): `size=`/`filesize=` define every file.
    Declared,
}

/// Every clone's stream built the way the engine builds it.
pub fn build(jobs: &[Job], sizes: Sizes) -> Result<Streams, EngineError> {
    let size_of =
        |p: &Path| if sizes == Sizes::Existing { iolab_core::input::existing_size(p) } else { 0 };
    iolab_workload::streams::build(jobs, iolab_engine::runner::clone_files, size_of)
        .map_err(EngineError::Streams)
}

/// Write the clones' requests, interleaved by [`Streams::merged`], to a fio iolog v3 at
/// `path`; returns the number of requests written. Timestamps are the pacing schedule or 0.
/// `what` names the output in errors (`--write-iolog`, `job 'x': write_iolog=F`).
pub fn write(path: &Path, streams: Streams, what: &str) -> Result<u64, EngineError> {
    let out = |source| EngineError::Output { what: what.to_string(), source };
    // The one output writer: a temporary renamed into place when whole (no torn log on a
    // full filesystem), or written through for a device or FIFO.
    let mut f = iolab_report::output::OutputFile::create(path).map_err(out)?;
    let name = path.display().to_string();
    let mut w = IologWriter::new(std::io::BufWriter::new(&mut f), &name, streams.files.clone());
    let mut rec = TraceRecord::default();
    let trace =
        |job: &str, source| EngineError::Trace { what: format!("{what}: job '{job}'"), source };
    let n = streams.merged(|job, req| {
        rec.req = *req;
        w.write(&rec).map_err(|e| trace(job, e))
    })?;
    w.finish().map_err(|e| trace("", e))?;
    drop(w);
    f.commit().map_err(out)?;
    Ok(n)
}

/// Build and write in one step for `run` and `sim`; returns the notes and what was written,
/// one line each, for stderr.
pub fn export(path: &Path, jobs: &[Job], sizes: Sizes) -> Result<Vec<String>, EngineError> {
    let s = build(jobs, sizes)?;
    let mut notes: Vec<String> = s.notes.iter().map(|n| format!("--write-iolog: {n}")).collect();
    let n = write(path, s, "--write-iolog")?;
    notes.push(format!("wrote {n} requests to {} (fio iolog v3)", path.display()));
    Ok(notes)
}

/// `write_iolog=FILE` set in jobs: each such job's clones (numbered as in the whole run)
/// written to its file before the run; returns one line per file written.
pub fn export_job_options(jobs: &[Job]) -> Result<Vec<String>, EngineError> {
    let mut notes = Vec::new();
    for job in jobs {
        let Some(p) = job.write_iolog() else { continue };
        let mut s = build(jobs, Sizes::Existing)?;
        s.clones.retain(|c| c.job == job.name);
        let n = write(Path::new(&p), s, &format!("job '{}': write_iolog={p}", job.name))?;
        notes.push(format!("job '{}': wrote {n} requests to {p} (fio iolog v3)", job.name));
    }
    Ok(notes)
}
