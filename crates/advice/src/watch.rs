//! [`RunWatch`]: what `iolab run` does around the engine to gather [`Evidence`]. Before the
//! run it resolves every target to its filesystem and devices (`iolab_stats::topology`),
//! notes whether target files are sparse, and starts the run's one diskstats sampler
//! (`iolab_stats::diskstats::DiskMonitor`: those devices every interval, all devices for the
//! runner's `disk_util`, whose handle [`RunWatch::disks`] gives to `RunOptions::disks`); it
//! hands out one [`ZeroProbe`] per job for the engine's read completions. After the run it builds the
//! evidence (device figures per reporting group's time window, zero-read samples, CPU per
//! worker, RAM, data facts from the job), runs the checks and fills `RunResult::advice` and,
//! when the engine left it empty, `disk_util`.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use iolab_core::Nanos;
use iolab_job::{Job, SizeSpec};
use iolab_stats::diskseries::{DiskSeries, DiskSeriesSampler};
use iolab_stats::diskstats::{DiskHandle, DiskMonitor, MonitorConfig};
use iolab_stats::topology::{resolve, Topology};
use iolab_stats::{DiskUtil, JobResult, RunResult};

use crate::{
    check, job_evidence, mem_total_bytes, Advice, Evidence, JobEvidence, PhaseEvidence, QueueLimit,
    WriteAlloc, ZeroProbe,
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
    /// The run's diskstats sampler (`None` only when its thread could not start).
    disks: Option<DiskMonitor>,
    cfg: WatchConfig,
    notes: Vec<String>,
}

impl std::fmt::Debug for RunWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunWatch").field("targets", &self.targets).finish_non_exhaustive()
    }
}

/// Resolve a target that may not exist yet (the engine creates files and their missing
/// directories): a block device by itself; a file by its directory, or the nearest existing
/// ancestor, which is on the same filesystem. Directories are resolved once each (`dirs`), so
/// `nrfiles=100000` costs one resolution per directory, not per file.
fn resolve_target(
    p: &Path,
    dirs: &mut HashMap<PathBuf, Result<Topology, String>>,
) -> Result<Topology, String> {
    match std::fs::metadata(p) {
        Ok(md) if !md.is_file() => return resolve(p).map_err(|e| e.to_string()),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("{}: {e}", p.display()))
        }
        _ => {}
    }
    let parent = p.parent().filter(|q| !q.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = parent.ancestors().find(|a| a.as_os_str().is_empty() || a.exists());
    let dir = dir.filter(|a| !a.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let found = dirs.entry(dir.to_path_buf()).or_insert_with(|| {
        resolve(dir).map_err(|e| format!("{} (the directory {} will hold it)", e, dir.display()))
    });
    found.clone().map(|mut t| {
        t.path = p.into();
        t
    })
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

/// Each job's targets resolved to their filesystems and devices (`null` jobs have none),
/// the devices under all of them, and why some could not be resolved.
fn resolve_targets(
    jobs: &[Job],
    paths: Vec<Vec<PathBuf>>,
    prefill: bool,
) -> (Vec<JobTargets>, Vec<String>, Vec<String>) {
    let (mut targets, mut devices, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    let mut dirs = HashMap::new();
    for (job, mut ps) in jobs.iter().zip(paths) {
        // fio's null engine opens no file: its "files" are names only.
        if job.ioengine == "null" {
            ps.clear();
        }
        let mut topologies = Vec::new();
        for p in &ps {
            match resolve_target(p, &mut dirs) {
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
        let write_alloc = write_alloc(&ps, prefill);
        targets.push(JobTargets { paths: ps, topologies, write_alloc });
    }
    (targets, devices, notes)
}

impl RunWatch {
    /// Resolve targets and start sampling. `paths[i]` are the files of `jobs[i]` (all clones).
    pub fn start(jobs: &[Job], paths: Vec<Vec<PathBuf>>, cfg: WatchConfig) -> RunWatch {
        let (targets, devices, mut notes) = resolve_targets(jobs, paths, cfg.prefill);
        let probes = jobs.iter().map(|_| Arc::new(ZeroProbe::new(1))).collect();
        let disks = match DiskMonitor::start(MonitorConfig::new(devices, cfg.interval)) {
            Ok(m) => Some(m),
            Err(e) => {
                notes.push(format!("device view: the sampling thread did not start: {e}"));
                None
            }
        };
        RunWatch { jobs: jobs.to_vec(), targets, probes, disks, cfg, notes }
    }

    /// The sampler's handle for the runner (`RunOptions::disks`), so one thread reads
    /// `/proc/diskstats` for the run's `disk_util` and for the device view.
    pub fn disks(&self) -> Option<DiskHandle> {
        self.disks.as_ref().map(DiskMonitor::handle)
    }

    /// The last closed interval of each device under the targets, updated every sampling
    /// interval while the run goes on (empty until the first interval closes).
    pub fn live_devices(&self) -> Arc<Mutex<Vec<DiskUtil>>> {
        self.disks.as_ref().map(DiskMonitor::latest).unwrap_or_default()
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
        let mut notes = std::mem::take(&mut self.notes);
        let sampler = self.disks.take().and_then(|m| {
            let rep = m.finish();
            notes.extend(rep.notes);
            rep.series
        });
        let series = sampler.as_ref().map(DiskSeriesSampler::series).unwrap_or_default();
        merge_disk_util(result, &series);
        let mut ev = Evidence {
            mem_total_bytes: mem_total_bytes(),
            declared_cache_bytes: self.cfg.declared_cache_bytes,
            ..Default::default()
        };
        if let Some(s) = &sampler {
            ev.phases = phase_evidence(result, s);
        }
        let mut probed = vec![false; self.jobs.len()];
        for j in &result.jobs {
            let Some(i) = self.jobs.iter().position(|s| s.name == j.name) else {
                ev.jobs.push(Default::default());
                continue;
            };
            let mut e = self.evidence_of(i, j);
            // One probe per job spec: its sample is reported once, on the first clone.
            if !std::mem::replace(&mut probed[i], true) {
                e.zero_reads = Some(self.probes[i].sample());
            }
            ev.jobs.push(e);
        }
        let advice = check(result, &ev);
        result.advice = crate::to_json(&advice);
        WatchReport { evidence: ev, advice, series, notes }
    }

    /// What one clone's result `j` of job `i` and its targets tell the checks.
    fn evidence_of(&self, i: usize, j: &JobResult) -> JobEvidence {
        let (spec, t) = (&self.jobs[i], &self.targets[i]);
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
                    e.loop_backing.extend(loop_backing(d));
                }
            }
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
        // iolab's worker never quiesces the queue to wait for the schedule and records each
        // paced I/O's latency from its intended issue time beside fio's `lat` (JSON
        // `iolab.<dir>.sched_lat_ns`), so the open-loop figure is in the result.
        e.latency_closed_loop = false;
        e.queue_limits = e.devices.iter().map(|d| QueueLimit::read(d)).collect();
        e.throttles = crate::throttle::read(&e.devices);
        e.write_alloc = t.write_alloc;
        e
    }
}

/// A loop device's backing file and the devices under it (`None` for other kinds).
fn loop_backing(d: &iolab_stats::topology::DevNode) -> Option<crate::evidence::LoopBacking> {
    let iolab_stats::topology::DevKind::Loop { backing_file } = &d.kind else { return None };
    let mut under = Vec::new();
    d.children.iter().for_each(|c| c.flatten_into(&mut under));
    Some(crate::evidence::LoopBacking { device: d.name.clone(), file: backing_file.clone(), under })
}

/// The devices' figures in `result.disk_util`: the series' summaries when the runner left it
/// empty, else the series' summary in place of each device's runner figure.
fn merge_disk_util(result: &mut RunResult, series: &DiskSeries) {
    if result.disk_util.is_empty() {
        result.disk_util = series.devices.iter().map(|d| d.summary.clone()).collect();
        return;
    }
    // The runner polls every 250 ms; the series' summary is the same wrap-safe sum over the
    // watch's whole window, and it is what the per-phase figures are read against.
    for u in result.disk_util.iter_mut() {
        if let Some(d) = series.device(&u.name).filter(|d| !d.points.is_empty()) {
            *u = d.summary.clone();
        }
    }
}

/// The devices' figures over each reporting group's measured window.
fn phase_evidence(result: &RunResult, s: &DiskSeriesSampler) -> Vec<PhaseEvidence> {
    let mut gids: Vec<u32> = result.jobs.iter().map(|j| j.groupid).collect();
    gids.sort_unstable();
    gids.dedup();
    let mut phases = Vec::new();
    for g in gids {
        let js = result.jobs.iter().filter(|j| j.groupid == g);
        // The measured part of each job: `start_ns` is after its ramp, and the runtime counts
        // from there (elapsed_ns also holds the ramp and the wait to be joined, which would
        // reach into the next phase).
        let start = js.clone().map(|j| j.start_ns).min().unwrap_or(0);
        let end = js.map(|j| j.start_ns + j.runtime_ns).max().unwrap_or(0);
        phases.push(PhaseEvidence {
            groupid: g,
            start_ns: start,
            end_ns: end,
            devices: s.window(Nanos(start), Nanos(end)),
            devices_inner: s.phase_window(Nanos(start), Nanos(end)),
        });
    }
    phases
}
