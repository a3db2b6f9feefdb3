//! One exporter per file (hyperfine's `src/export/` layout), plus the per-job view they share.

pub mod clients;
pub mod csv;
pub mod fio_json;
pub mod fio_log;
pub mod html;
pub mod jsonl;
pub mod terse;
pub mod text;

use iolab_core::IoDir;
use iolab_stats::{
    CpuUsage, DepthStats, DirStats, JobResult, LatencyTarget, OptionList, ReportOptions, RunResult,
};

/// What fio reports as one "job": a job, or a whole group under `group_reporting` (stat.c
/// `show_run_stats` sums the group's thread_stats into one and takes name and options from
/// the first job).
pub struct JobView<'a> {
    pub name: &'a str,
    pub jobidx: u32,
    pub groupid: u32,
    pub njobs: usize,
    pub error: i32,
    pub elapsed_ns: u64,
    pub runtime_ns: u64,
    /// fio's `total_run_time` in whole ms: the job's, or under `group_reporting` the sum of
    /// its jobs' (stat.c `sum_thread_stats`), which `job_runtime` and the CPU shares use.
    pub job_runtime_ms: u64,
    pub options: &'a OptionList,
    pub dirs: [&'a DirStats; 4],
    pub cpu: CpuUsage,
    pub depth: &'a DepthStats,
    pub latency_target: &'a LatencyTarget,
    pub first: &'a JobResult,
}

impl<'a> JobView<'a> {
    /// The typed settings the exporters act on (a group's come from its first job, as fio
    /// takes them).
    pub fn report(&self) -> &'a ReportOptions {
        &self.first.report
    }
}

impl JobView<'_> {
    pub fn dir(&self, d: IoDir) -> &DirStats {
        self.dirs[d.fio_ddir() as usize]
    }
}

/// fio's `latency_depth` (the text's `depth=`): the job's iodepth (fio `td->latency_qd`
/// starts there), or what the `latency_target` search settled on when one was set.
pub fn latency_depth(v: &JobView<'_>, _run: &RunResult) -> u64 {
    if v.latency_target.target_ns > 0 {
        return u64::from(v.latency_target.depth);
    }
    u64::from(v.report().iodepth.max(1))
}

/// fio `unified_rw_reporting`: 0 none, 1 mixed (one "mixed" direction instead of read,
/// write and trim), 2 both (the three and "mixed").
pub fn unified_rw(v: &JobView<'_>, _run: &RunResult) -> u8 {
    v.report().unified_rw
}

/// The summed "mixed" direction of a job view and its share of the group's aggregate.
pub fn mixed_view(v: &JobView<'_>, run: &RunResult, pcts: &[f64]) -> (DirStats, f64) {
    let dirs: Vec<&DirStats> = IoDir::DATA.iter().map(|&d| v.dir(d)).collect();
    let m = iolab_stats::mixed_dir(&dirs, v.first.interval_ns, pcts);
    let agg = run
        .groups
        .iter()
        .find(|g| g.groupid == v.groupid)
        .map(|g| IoDir::DATA.iter().map(|&d| g.dir(d).agg_bw_bytes).sum())
        .unwrap_or(0.0);
    (m, agg)
}

/// Whether a job asked for `group_reporting` (in its own section or the global one).
pub fn group_reporting(_run: &RunResult, j: &JobResult) -> bool {
    j.report.group_reporting
}

/// The entries fio would print: one per job, or one per group where `group_reporting` is set.
pub fn job_views(run: &RunResult) -> Vec<JobView<'_>> {
    let mut out = Vec::new();
    let mut done_groups = Vec::new();
    for j in &run.jobs {
        let group = run.groups.iter().find(|g| g.groupid == j.groupid);
        match group {
            Some(g) if group_reporting(run, j) => {
                if done_groups.contains(&g.groupid) {
                    continue;
                }
                done_groups.push(g.groupid);
                let members: Vec<&JobResult> =
                    g.jobs.iter().filter_map(|&i| run.jobs.get(i)).collect();
                out.push(JobView {
                    name: &j.name,
                    jobidx: j.jobidx,
                    groupid: g.groupid,
                    njobs: members.len().max(1),
                    error: members.iter().map(|m| m.error).find(|&e| e != 0).unwrap_or(0),
                    elapsed_ns: members.iter().map(|m| m.elapsed_ns).max().unwrap_or(0),
                    runtime_ns: g.runtime_ns,
                    job_runtime_ms: members.iter().map(|m| m.runtime_ns / 1_000_000).sum(),
                    options: &j.options,
                    dirs: [&g.read.stats, &g.write.stats, &g.trim.stats, &g.sync.stats],
                    cpu: g.cpu,
                    depth: &g.depth,
                    latency_target: &j.latency_target,
                    first: j,
                });
            }
            _ => out.push(JobView {
                name: &j.name,
                jobidx: j.jobidx,
                groupid: j.groupid,
                njobs: 1,
                error: j.error,
                elapsed_ns: j.elapsed_ns,
                runtime_ns: j.runtime_ns,
                job_runtime_ms: j.runtime_ns / 1_000_000,
                options: &j.options,
                dirs: [&j.read, &j.write, &j.trim, &j.sync],
                cpu: j.cpu,
                depth: &j.depth,
                latency_target: &j.latency_target,
                first: j,
            }),
        }
    }
    out
}

/// The percentile list to show in fio-compatible output: fio's default list when the run used
/// iolab's default (whose extra 99.999 goes to the `iolab` extras), else the run's own list,
/// at most 20 entries as fio allows (stat.h `FIO_IO_U_LIST_MAX_LEN`).
pub fn fio_percentiles(run: &RunResult) -> Vec<f64> {
    let list = &run.meta.percentile_list;
    if list.is_empty() || list.as_slice() == iolab_stats::DEFAULT_PERCENTILES.as_slice() {
        iolab_stats::FIO_DEFAULT_PERCENTILES.to_vec()
    } else {
        list.iter().copied().take(20).collect()
    }
}
