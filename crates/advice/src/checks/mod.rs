//! The check registry: one file per pitfall, one line per check in [`CHECKS`].

use iolab_stats::{JobResult, RunResult};

use crate::{Advice, Evidence};

pub mod coordinated_omission;
pub mod cpu_bound;
pub mod depth_not_reached;
pub mod device_outlier;
pub mod inline_completion;
pub mod page_cache;
pub mod rate_not_achieved;
pub mod repeat_data;
pub mod steady_state;
pub mod zero_compress;
pub mod zero_reads;

/// One registered check.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    pub id: &'static str,
    /// What it looks for, for `--help`-style listings.
    pub summary: &'static str,
    pub run: fn(&RunResult, &Evidence) -> Vec<Advice>,
}

/// Every check, in the order findings are reported.
pub const CHECKS: &[Check] = &[
    zero_reads::CHECK,
    zero_compress::CHECK,
    repeat_data::CHECK,
    page_cache::CHECK,
    depth_not_reached::CHECK,
    steady_state::CHECK,
    device_outlier::CHECK,
    rate_not_achieved::CHECK,
    cpu_bound::CHECK,
    coordinated_omission::CHECK,
    inline_completion::CHECK,
];

/// `job 'name'` (with the clone index when a name repeats, as numjobs makes it).
pub(crate) fn job_subject(j: &JobResult) -> String {
    format!("job '{}' ({})", j.name, j.jobidx)
}

/// Clones of each job (same name), in run order, with their evidence.
pub(crate) fn by_name<'a>(
    r: &'a RunResult,
    ev: &'a Evidence,
) -> Vec<(&'a str, Vec<(&'a JobResult, &'a crate::JobEvidence)>)> {
    let mut out: Vec<(&str, Vec<_>)> = Vec::new();
    for (j, e) in r.jobs.iter().zip(&ev.jobs) {
        match out.iter_mut().find(|(n, _)| *n == j.name) {
            Some((_, v)) => v.push((j, e)),
            None => out.push((&j.name, vec![(j, e)])),
        }
    }
    out
}

/// `job 'name'`, with the clone count when numjobs made several.
pub(crate) fn name_subject(name: &str, clones: usize) -> String {
    if clones > 1 {
        format!("job '{name}' ({clones} clones)")
    } else {
        format!("job '{name}'")
    }
}

pub(crate) fn mib(b: f64) -> String {
    format!("{:.1} MiB", b / 1048576.0)
}

#[cfg(test)]
pub(crate) mod testutil {
    use iolab_stats::{DiskUtil, IostatX, JobResult};

    pub fn job(name: &str, idx: u32, groupid: u32) -> JobResult {
        JobResult { name: name.into(), jobidx: idx, groupid, ..Default::default() }
    }

    /// A device over a 10 s window with `ios` reads of 4 KiB, `await_ms` each, and `aqu` depth.
    pub fn dev(name: &str, ios: u64, await_ms: f64, aqu: f64) -> DiskUtil {
        DiskUtil {
            name: name.into(),
            read_ios: ios,
            read_sectors: ios * 8,
            read_ticks: (ios as f64 * await_ms) as u64,
            in_queue: (aqu * 10_000.0) as u64,
            window_ns: 10_000_000_000,
            iostat: IostatX {
                r_s: ios as f64 / 10.0,
                r_await: await_ms,
                aqu_sz: aqu,
                ..Default::default()
            },
            ..Default::default()
        }
    }
}
