//! `iolab run/sim --write-iolog FILE` and `iolab mrc --job`: the run's request streams
//! (`iolab_workload::streams`, interleaved there with their issue times) written as a fio
//! iolog v3 by `iolab_trace::write::iolog`, with the engine's file names and sizes.

use anyhow::Context;
use iolab_job::Job;
use iolab_trace::write::{iolog::IologWriter, TraceWriter};
use iolab_trace::TraceRecord;
pub use iolab_workload::streams::Streams;
use std::path::Path;

/// Which file sizes the workload is built against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// What exists on disk now, as `iolab run` sees it.
    Existing,
    /// No file exists (`iolab sim`): `size=`/`filesize=` define every file.
    Declared,
}

/// Build every clone's stream the way the engine would.
pub fn build(jobs: &[Job], sizes: Sizes) -> anyhow::Result<Streams> {
    let size_of =
        |p: &Path| if sizes == Sizes::Existing { iolab_core::input::existing_size(p) } else { 0 };
    Ok(iolab_workload::streams::build(jobs, iolab_engine::runner::clone_files, size_of)?)
}

/// Write the clones' requests, interleaved by [`Streams::merged`], to a fio iolog v3 at
/// `path`; returns the number of requests written. Timestamps are the pacing schedule or 0.
pub fn write_iolog(path: &Path, streams: Streams) -> anyhow::Result<u64> {
    // The one output writer: a temporary renamed into place when whole (no torn log on a
    // full filesystem), or written through for a device or FIFO.
    let mut f = iolab_report::output::OutputFile::create(path).context("--write-iolog")?;
    let name = path.display().to_string();
    let mut w = IologWriter::new(std::io::BufWriter::new(&mut f), &name, streams.files.clone());
    let mut rec = TraceRecord::default();
    let n = streams.merged(|job, req| {
        rec.req = *req;
        w.write(&rec).with_context(|| format!("job '{job}'"))
    })?;
    w.finish()?;
    drop(w);
    f.commit()?;
    Ok(n)
}

/// Build and write in one step, printing the notes; for `run` and `sim`.
pub fn export(path: &Path, jobs: &[Job], sizes: Sizes) -> anyhow::Result<u64> {
    let s = build(jobs, sizes)?;
    for n in &s.notes {
        eprintln!("iolab: --write-iolog: {n}");
    }
    let n = write_iolog(path, s)?;
    eprintln!("iolab: wrote {n} requests to {} (fio iolog v3)", path.display());
    Ok(n)
}

/// `write_iolog=FILE` set in jobs: each such job's clones (numbered as in the whole run)
/// written to its file before the run.
pub fn export_job_options(jobs: &[Job]) -> anyhow::Result<()> {
    for job in jobs {
        let Some(p) = job.write_iolog() else { continue };
        let mut s = build(jobs, Sizes::Existing)?;
        s.clones.retain(|c| c.job == job.name);
        let n = write_iolog(Path::new(&p), s)
            .with_context(|| format!("job '{}': write_iolog={p}", job.name))?;
        eprintln!("iolab: job '{}': wrote {n} requests to {p} (fio iolog v3)", job.name);
    }
    Ok(())
}
