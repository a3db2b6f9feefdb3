//! [`RunWatch`]: what `iolab run` does around the engine to gather [`Evidence`]. Before the
//! run it resolves every target to its filesystem and devices (`iolab_stats::topology`),
//! notes whether target files are sparse, and starts a thread that samples `/proc/diskstats`
//! for those devices every interval (`iolab_stats::diskseries`); it hands out one
//! [`ZeroProbe`] per job for the engine's read completions. After the run it builds the
//! evidence (device figures per reporting group's time window, zero-read samples, CPU per
//! worker, RAM, data facts from the job), runs the checks and fills `RunResult::advice` and,
//! when the engine left it empty, `disk_util`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use iolab_core::Nanos;
use iolab_job::{Job, SizeSpec};
use iolab_stats::diskseries::{DiskSeries, DiskSeriesSampler};
use iolab_stats::topology::{resolve, Topology};
use iolab_stats::{DiskUtil, RunResult};

use crate::{
    check, job_evidence, mem_total_bytes, Advice, Evidence, PhaseEvidence, QueueLimit, WriteAlloc,
    ZeroProbe,
};

/// Knobs of the watch.
#[derive(Clone, Debug)]
pub struct WatchConfig {
    /// Diskstats sampling interval.
    pub interval: Duration,
    /// Look at one read completion in this many for all-zero blocks. The engine applies it
    /// per worker (a local counter), so the shared probe sees only the sampled completions
    /// and its atomics are not touched on every I/O.
    pub zero_sample_every: u64,
    /// `--prefill` was given: target regions are written before measuring.
    pub prefill: bool,
    /// A cache in front of the media the user declared, bytes.
    pub declared_cache_bytes: Option<u64>,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            interval: Duration::from_secs(1),
            zero_sample_every: 16,
            prefill: false,
            declared_cache_bytes: None,
        }
    }
}

/// Targets of one job as resolved before the run.
#[derive(Clone, Debug)]
pub struct JobTargets {
    pub paths: Vec<PathBuf>,
    pub topologies: Vec<Topology>,
    pub write_alloc: WriteAlloc,
}

/// Everything gathered, after the run.
#[derive(Debug)]
pub struct WatchReport {
    pub evidence: Evidence,
    pub advice: Vec<Advice>,
    pub series: DiskSeries,
    /// Why some part of the watch could not be done (unreadable diskstats, unresolvable
    /// targets); printed as notes so nothing is skipped silently.
    pub notes: Vec<String>,
}

/// The running watch.
pub struct RunWatch {
    jobs: Vec<Job>,
    targets: Vec<JobTargets>,
    probes: Vec<Arc<ZeroProbe>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(DiskSeriesSampler, Vec<String>)>>,
    start: Instant,
    cfg: WatchConfig,
    notes: Vec<String>,
    /// The interval the sampler closed last, per device (for the live status line).
    latest: Arc<Mutex<Vec<DiskUtil>>>,
}

impl std::fmt::Debug for RunWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunWatch").field("targets", &self.targets).finish_non_exhaustive()
    }
}

/// Resolve a target that may not exist yet (the engine creates files): its parent directory
/// is on the same filesystem.
fn resolve_target(p: &Path) -> Result<Topology, String> {
    match resolve(p) {
        Ok(t) => Ok(t),
        Err(e) => {
            let parent = p.parent().filter(|q| !q.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if p.exists() {
                return Err(e.to_string());
            }
            resolve(parent)
                .map(|mut t| {
                    t.path = p.into();
                    t
                })
                .map_err(|e2| format!("{e}; parent: {e2}"))
        }
    }
}

/// Whether O_DIRECT writes to these files would overwrite written blocks (decides ext4's
/// lock mode). A missing file is created sparse by the engine for a write job; a file with
/// fewer allocated bytes than its length has holes; a fully allocated one may still hold
/// unwritten (fallocated) extents, which only FIEMAP could tell, so it stays Unknown.
fn write_alloc(paths: &[PathBuf], prefill: bool) -> WriteAlloc {
    if prefill {
        return WriteAlloc::Overwrite;
    }
    for p in paths {
        match std::fs::metadata(p) {
            Err(_) => return WriteAlloc::HoleFilling,
            Ok(m) if m.is_file() && m.blocks() * 512 < m.len() => return WriteAlloc::HoleFilling,
            Ok(_) => {}
        }
    }
    WriteAlloc::Unknown
}

impl RunWatch {
    /// Resolve targets and start sampling. `paths[i]` are the files of `jobs[i]` (all clones).
    pub fn start(jobs: &[Job], paths: Vec<Vec<PathBuf>>, cfg: WatchConfig) -> RunWatch {
        let mut notes = Vec::new();
        let mut targets = Vec::new();
        let mut devices: Vec<String> = Vec::new();
        for (job, mut ps) in jobs.iter().zip(paths) {
            // fio's null engine opens no file: its "files" are names only.
            if job.ioengine == "null" {
                ps.clear();
            }
            let mut topologies = Vec::new();
            for p in &ps {
                match resolve_target(p) {
                    Ok(t) => {
                        for d in t.devices() {
                            if !devices.contains(&d) {
                                devices.push(d);
                            }
                        }
                        topologies.push(t);
                    }
                    Err(e) => notes.push(format!(
                        "job {}: device view unavailable for {}: {e}",
                        job.name,
                        p.display()
                    )),
                }
            }
            let write_alloc = write_alloc(&ps, cfg.prefill);
            targets.push(JobTargets { paths: ps, topologies, write_alloc });
        }
        let probes = jobs.iter().map(|_| Arc::new(ZeroProbe::new(1))).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let start = Instant::now();
        let latest = Arc::new(Mutex::new(Vec::new()));
        let thread = (!devices.is_empty()).then(|| {
            let stop = stop.clone();
            let latest = latest.clone();
            let interval = cfg.interval.max(Duration::from_millis(10));
            std::thread::spawn(move || sample_loop(devices, interval, start, &stop, &latest))
        });
        RunWatch { jobs: jobs.to_vec(), targets, probes, stop, thread, start, cfg, notes, latest }
    }

    /// The last closed interval of each device under the targets, updated every sampling
    /// interval while the run goes on (empty until the first interval closes).
    pub fn live_devices(&self) -> Arc<Mutex<Vec<DiskUtil>>> {
        self.latest.clone()
    }

    /// The zero probe of job `i` (shared by its clones); feed it one read completion in
    /// [`WatchConfig::zero_sample_every`].
    pub fn zero_probe(&self, i: usize) -> Option<Arc<ZeroProbe>> {
        self.probes.get(i).cloned()
    }

    pub fn zero_sample_every(&self) -> u64 {
        self.cfg.zero_sample_every.max(1)
    }

    /// Targets as resolved (for the text report).
    pub fn targets(&self) -> &[JobTargets] {
        &self.targets
    }

    /// Stop sampling, build the evidence, run the checks and store the advice in `result`.
    pub fn finish(mut self, result: &mut RunResult) -> WatchReport {
        self.stop.store(true, Ordering::SeqCst);
        let mut notes = std::mem::take(&mut self.notes);
        let sampler = match self.thread.take().map(|t| t.join()) {
            Some(Ok((mut s, n))) => {
                notes.extend(n);
                if let Err(e) = s.tick(Nanos(self.start.elapsed().as_nanos() as u64)) {
                    notes.push(format!("device view: {e}"));
                }
                Some(s)
            }
            Some(Err(_)) => {
                notes.push("device view: the sampling thread panicked".into());
                None
            }
            None => None,
        };
        let series = sampler.as_ref().map(|s| s.series()).unwrap_or_default();
        if result.disk_util.is_empty() {
            result.disk_util = series.devices.iter().map(|d| d.summary.clone()).collect();
        } else {
            // The runner's disk_util is one first-to-last delta, which loses all but one wrap
            // of a 32-bit counter; the series' summary adds every interval's delta.
            for u in result.disk_util.iter_mut() {
                if let Some(d) = series.device(&u.name).filter(|d| !d.points.is_empty()) {
                    *u = d.summary.clone();
                }
            }
        }
        let mut ev = Evidence {
            mem_total_bytes: mem_total_bytes(),
            declared_cache_bytes: self.cfg.declared_cache_bytes,
            ..Default::default()
        };
        if let Some(s) = &sampler {
            let mut gids: Vec<u32> = result.jobs.iter().map(|j| j.groupid).collect();
            gids.sort();
            gids.dedup();
            for g in gids {
                let js = result.jobs.iter().filter(|j| j.groupid == g);
                // The measured part of each job: `start_ns` is after its ramp, and the
                // runtime counts from there (elapsed_ns also holds the ramp and the wait to be
                // joined, which would reach into the next phase).
                let start = js.clone().map(|j| j.start_ns).min().unwrap_or(0);
                let end = js.map(|j| j.start_ns + j.runtime_ns).max().unwrap_or(0);
                ev.phases.push(PhaseEvidence {
                    groupid: g,
                    start_ns: start,
                    end_ns: end,
                    devices: s.window(Nanos(start), Nanos(end)),
                    devices_inner: s.phase_window(Nanos(start), Nanos(end)),
                });
            }
        }
        let mut probed = vec![false; self.jobs.len()];
        for j in &result.jobs {
            let Some(i) = self.jobs.iter().position(|s| s.name == j.name) else {
                ev.jobs.push(Default::default());
                continue;
            };
            let spec = &self.jobs[i];
            let t = &self.targets[i];
            let mut e = job_evidence(spec);
            // After a fallback the result names the engine that ran: judge that one.
            if let Some(ran) = j.report.engine_ran.as_ref().filter(|r| **r != spec.ioengine) {
                e.engine_fallback_from = Some(std::mem::replace(&mut e.ioengine, ran.clone()));
            }
            e.fs_type = t.topologies.iter().find_map(|t| t.fs.as_ref().map(|f| f.fs_type.clone()));
            for topo in &t.topologies {
                if let Some(d) = &topo.device {
                    if !e.devices.contains(&d.name) {
                        e.devices.push(d.name.clone());
                    }
                }
            }
            // One probe per job spec: its sample is reported once, on the first clone.
            if !probed[i] {
                probed[i] = true;
                e.zero_reads = Some(self.probes[i].sample());
            }
            e.working_set_bytes = match spec.size {
                Some(SizeSpec::Bytes(b)) => b,
                _ => t
                    .paths
                    .iter()
                    .filter_map(|p| std::fs::metadata(p).ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum(),
            };
            if j.runtime_ns > 0 {
                e.worker_cpu_pct = vec![j.cpu.usr_pct(j.runtime_ns) + j.cpu.sys_pct(j.runtime_ns)];
            }
            // iolab's worker times `lat` from the rate schedule's intended issue time (open
            // loop) and never quiesces the queue, so its latency is not closed-loop.
            e.latency_closed_loop = false;
            e.queue_limits = e.devices.iter().map(|d| QueueLimit::read(d)).collect();
            e.write_alloc = t.write_alloc;
            ev.jobs.push(e);
        }
        let advice = check(result, &ev);
        result.advice = crate::to_json(&advice);
        WatchReport { evidence: ev, advice, series, notes }
    }
}

fn sample_loop(
    devices: Vec<String>,
    interval: Duration,
    start: Instant,
    stop: &AtomicBool,
    latest: &Mutex<Vec<DiskUtil>>,
) -> (DiskSeriesSampler, Vec<String>) {
    let mut s = DiskSeriesSampler::new(devices);
    let mut notes = Vec::new();
    let now = || Nanos(start.elapsed().as_nanos() as u64);
    if let Err(e) = s.tick(now()) {
        notes.push(format!("device view: {e}"));
        return (s, notes);
    }
    let mut next = interval;
    while !stop.load(Ordering::SeqCst) {
        // Sleep in short steps so the end of the run is not delayed by a whole interval.
        std::thread::sleep(Duration::from_millis(20).min(interval));
        if start.elapsed() >= next {
            match s.tick(now()) {
                Ok(closed) => {
                    if let Ok(mut l) = latest.lock() {
                        *l = closed;
                    }
                }
                Err(e) => {
                    notes.push(format!("device view: {e}"));
                    break;
                }
            }
            next += interval;
        }
    }
    (s, notes)
}
