//! The request streams of a whole run without its I/O, interleaved as the clones would run
//! side by side: for `--write-iolog` (a fio iolog v3 that fio's `read_iolog` replays at the
//! recorded pace), `sim`, and `mrc --job`.
//!
//! Each job clone gets the [`Workload`] the engine's runner builds: the same
//! `thread_number` pairing (fio's `td->thread_number`, [`fio_thread_number`]), the same file
//! names (the caller's `files_of`, the engine's `clone_files`) and the same file sizes. Clones
//! that share a file share its index, so a cache model sees one file. Paced clones
//! (`rate`/`rate_iops`) carry their issue times (`IoRequest::issue_at`, which the iolog
//! writes as v3 timestamps) and are merged in that order; unpaced ones round-robin.
//!
//! `time_based` jobs have no natural end (the workload wraps until `runtime`): unless they set
//! `number_ios`, the stream is cut at `io_size`, or one pass over the job's regions, and a note
//! says so. A `runtime` cap on a sized job is not applied (the stream has no clock).

use crate::{fio_thread_number, FileLayout, WorkerInput, Workload, WorkloadError};
use iolab_core::IoRequest;
use iolab_job::Job;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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

/// Build every clone's stream the way the engine would: `files_of(job, clone)` names a
/// clone's files (the engine's `clone_files`), `size_of` gives a file's current size (0 when
/// it does not exist, or to let `size=`/`filesize=` define every file).
pub fn build(
    jobs: &[Job],
    files_of: impl Fn(&Job, u32) -> Vec<PathBuf>,
    size_of: impl Fn(&Path) -> u64,
) -> Result<Streams, WorkloadError> {
    let mut files: Vec<String> = Vec::new();
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut clones = Vec::new();
    let mut notes = Vec::new();
    let mut thread_number = 0u32;
    for job in jobs {
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            let paths = files_of(job, clone);
            let layouts: Vec<FileLayout> =
                paths.iter().map(|p| FileLayout { size: size_of(p) }).collect();
            let tn = fio_thread_number(thread_number - clone, clone, job.numjobs.max(1));
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
            let mut r = IoRequest::default();
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
