//! The request stream of a run without its I/O: for `iolab run/sim --write-iolog FILE` (a fio
//! iolog v3 that fio's `read_iolog` replays, written by `iolab_trace::write::iolog`) and for
//! `iolab mrc --job` (the stream's blocks into the miss-ratio-curve builders).
//!
//! Each job clone gets the `iolab_workload::Workload` that `iolab_engine::runner::run_jobs`
//! builds: the same `thread_number` sequence (fio's `td->thread_number`, 1-based across the
//! run, which seeds the generators), the same file names (`clone_files`, fio's `filename=` or
//! `<name>.<clone>.<n>`) and, for `run`, the same file sizes (what exists now). Clones that
//! share a file share its index, so a cache model sees one file.
//!
//! `time_based` jobs have no natural end (the workload wraps until `runtime`): unless they set
//! `number_ios`, the stream is cut at `io_size`, or one pass over the job's regions, and a note
//! says so. A `runtime` cap on a sized job is not applied (the stream has no clock); the run
//! may stop earlier than the exported stream.

use anyhow::Context;
use iolab_core::IoRequest;
use iolab_job::Job;
use iolab_trace::write::{iolog::IologWriter, TraceWriter};
use iolab_trace::TraceRecord;
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::collections::HashMap;
use std::path::Path;

/// Which file sizes the workload is built against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// What exists on disk now, as `iolab run` sees it.
    Existing,
    /// No file exists (`iolab sim`): `size=`/`filesize=` define every file.
    Declared,
}

/// One job clone's request stream, with file indices global to the whole export.
pub struct CloneStream {
    pub job: String,
    wl: Workload,
    /// Clone-local file index -> global index into [`Streams::files`].
    file_map: Vec<u32>,
    /// Bytes still allowed for a capped `time_based` clone.
    budget: Option<u64>,
}

impl CloneStream {
    /// The next request, its `file` rewritten to the global index; false at the end.
    pub fn next_into(&mut self, req: &mut IoRequest) -> bool {
        if self.budget == Some(0) {
            return false;
        }
        if !self.wl.next_into(req) {
            return false;
        }
        if let Some(b) = &mut self.budget {
            *b = b.saturating_sub(req.len);
        }
        req.file = self.file_map.get(req.file as usize).copied().unwrap_or(req.file);
        true
    }
}

pub struct Streams {
    /// Global file names, indexed by `IoRequest::file` after [`CloneStream::next_into`].
    pub files: Vec<String>,
    pub clones: Vec<CloneStream>,
    /// What the caller should print (caps, workload warnings).
    pub notes: Vec<String>,
}

/// Build every clone's stream the way the engine would.
pub fn build(jobs: &[Job], sizes: Sizes) -> anyhow::Result<Streams> {
    let mut files: Vec<String> = Vec::new();
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut clones = Vec::new();
    let mut notes = Vec::new();
    let mut thread_number = 0u32;
    for job in jobs {
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            let paths = iolab_engine::runner::clone_files(job, clone);
            let layouts: Vec<FileLayout> = paths
                .iter()
                .map(|p| FileLayout {
                    size: if sizes == Sizes::Existing { existing_size(p) } else { 0 },
                })
                .collect();
            let tn =
                iolab_workload::fio_thread_number(thread_number - clone, clone, job.numjobs.max(1));
            let input = WorkerInput { job, clone_index: clone, thread_number: tn, files: &layouts };
            let wl = Workload::new(&input)?;
            let file_map = paths
                .iter()
                .map(|p| {
                    let name = p.to_string_lossy().into_owned();
                    *index.entry(name.clone()).or_insert_with(|| {
                        files.push(name);
                        (files.len() - 1) as u32
                    })
                })
                .collect();
            let stop = wl.stop();
            let budget = if stop.time_based && stop.number_ios.is_none() {
                let cap = job.io_size.unwrap_or_else(|| wl.regions().iter().map(|r| r.len()).sum());
                if clone == 0 {
                    notes.push(format!(
                        "job '{}': time_based has no end without a clock: the stream is cut \
                         at {cap} bytes per clone ({}); set number_ios= or io_size= to choose",
                        job.name,
                        if job.io_size.is_some() { "io_size" } else { "one pass over size" }
                    ));
                }
                Some(cap)
            } else {
                None
            };
            if clone == 0 {
                notes.extend(wl.warnings().iter().map(|w| format!("job '{}': {w}", job.name)));
            }
            clones.push(CloneStream { job: job.name.clone(), wl, file_map, budget });
        }
    }
    Ok(Streams { files, clones, notes })
}

impl Streams {
    /// Every clone's requests interleaved as the clones would run side by side: in order of
    /// their pacing schedule (`rate`/`rate_iops`), and round-robin where unpaced (the same
    /// count issued by each before the next), so a cache shared by the clones sees them mixed.
    /// `f` gets the clone's job name and the request; an error from it stops the walk.
    pub fn merged<E>(self, mut f: impl FnMut(&str, &IoRequest) -> Result<(), E>) -> Result<u64, E> {
        use std::cmp::Reverse;
        let mut clones = self.clones;
        let mut heap = std::collections::BinaryHeap::new();
        let mut pending: Vec<IoRequest> = Vec::with_capacity(clones.len());
        for (i, c) in clones.iter_mut().enumerate() {
            let mut r = TraceRecord::default().req;
            if c.next_into(&mut r) {
                heap.push(Reverse((r.issue_at.map_or(0, |t| t.0), 0u64, i)));
            }
            pending.push(r);
        }
        let mut n = 0u64;
        while let Some(Reverse((_, k, i))) = heap.pop() {
            f(&clones[i].job, &pending[i])?;
            n += 1;
            if clones[i].next_into(&mut pending[i]) {
                heap.push(Reverse((pending[i].issue_at.map_or(0, |t| t.0), k + 1, i)));
            }
        }
        Ok(n)
    }
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

/// The size `iolab run` would see: a block device's capacity, a file's length, 0 if absent.
fn existing_size(p: &Path) -> u64 {
    use std::io::Seek;
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(p) {
        // Seeking to the end gives a block device's capacity without an ioctl.
        Ok(m) if m.file_type().is_block_device() => {
            std::fs::File::open(p).and_then(|mut f| f.seek(std::io::SeekFrom::End(0))).unwrap_or(0)
        }
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}
