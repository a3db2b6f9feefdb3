//! [`Evidence`]: what the engine and the run command know beyond a `RunResult`, gathered for
//! the advice checks. Every field is something measured or configured, never a guess; where a
//! fact is unknown the type says so (`Option`, [`Capability::Unknown`], [`WriteAlloc::Unknown`]).
//!
//! `/proc/meminfo` layout: proc(5), `fs/proc/meminfo.c` (`MemTotal:` in kB = KiB).

use iolab_stats::{DiskUtil, JobResult, RunResult};
use serde::{Deserialize, Serialize};

/// Whether the target may do something to the data (compress, dedupe).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Capability {
    /// iolab cannot tell (an array, a cloud volume, an SSD controller): treated as "may".
    #[default]
    Unknown,
    Yes,
    No,
}

/// What the job's O_DIRECT writes did to the file's allocation, which decides whether ext4
/// takes i_rwsem shared or exclusively (fs/ext4/file.c `ext4_dio_write_checks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteAlloc {
    #[default]
    Unknown,
    /// Every write landed on allocated, written blocks.
    Overwrite,
    /// Some writes landed in holes or unwritten (fallocated) extents.
    HoleFilling,
    /// Some writes went past end of file.
    Extending,
}

/// Read completions whose blocks were checked for all-zero content.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZeroReadSample {
    pub sampled: u64,
    pub all_zero: u64,
}

/// Facts about the data a job wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DataFacts {
    /// Share (0..=1) of written bytes that are zero runs (fio's `buffer_compress_percentage`
    /// fills the compressible part of each chunk with zeros; `zero_buffers` makes it 1).
    pub zero_run_share: Option<f64>,
    /// The same bytes are written every run (`randrepeat=1`, fio's default, or a fixed
    /// `randseed`), so a deduplicating target sees them again.
    pub repeats_run_to_run: bool,
    /// Share (0..=1) of the written blocks that repeat an earlier block of the same run byte
    /// for byte (measured on the job's regenerated buffers: `dedupe_percentage`,
    /// `scramble_buffers=0`, a pattern or zeros make it high).
    #[serde(default)]
    pub repeat_block_share: Option<f64>,
    pub target_compresses: Capability,
    pub target_dedupes: Capability,
}

/// Per job (same index as `RunResult::jobs`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobEvidence {
    pub ioengine: String,
    pub direct: bool,
    pub iodepth: u32,
    /// Filesystem type of the job's targets (`ext4`, `xfs`); `None` for raw block devices.
    pub fs_type: Option<String>,
    /// The device serving each target (the top of its topology), kernel names.
    pub devices: Vec<String>,
    pub zero_reads: Option<ZeroReadSample>,
    pub data: DataFacts,
    /// Bytes of the region the job touches (size × files).
    pub working_set_bytes: u64,
    /// Requested rate per direction (read, write), bytes/s; 0 = none (fio `rate`).
    pub rate_bytes: [u64; 2],
    /// Requested IOPS per direction (read, write); 0 = none (fio `rate_iops`).
    pub rate_iops: [u64; 2],
    /// CPU% of each worker thread over its runtime (usr + sys).
    pub worker_cpu_pct: Vec<f64>,
    /// Latency was measured from the actual submission, not from the time the rate schedule
    /// meant the I/O to start (closed loop: a slow I/O delays the next one's clock).
    pub latency_closed_loop: bool,
    pub write_alloc: WriteAlloc,
    /// The engine the job asked for when the run fell back from it (io_uring disabled or
    /// refused); `ioengine` is then the engine that ran.
    #[serde(default)]
    pub engine_fallback_from: Option<String>,
    /// The request-queue limits of the devices serving the job (`/sys/block/DEV/queue/
    /// nr_requests`, and SCSI's `device/queue_depth`).
    #[serde(default)]
    pub queue_limits: Vec<QueueLimit>,
    /// The loop devices among `devices` and what backs each (the device view names the
    /// backing file and shows the device under it, which carries the loop device's I/O).
    #[serde(default)]
    pub loop_backing: Vec<LoopBacking>,
    /// The block I/O throttles (cgroup io.max / blkio.throttle) on `devices` that this run
    /// was under.
    #[serde(default)]
    pub throttles: Vec<crate::throttle::Throttle>,
}

/// A loop device serving a job, its backing file and the devices under that file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopBacking {
    pub device: String,
    /// `/sys/block/loopN/loop/backing_file`; `None` when the kernel did not say.
    pub file: Option<std::path::PathBuf>,
    /// Kernel names of the devices under the backing file (empty for tmpfs).
    pub under: Vec<String>,
}

/// A device's own queue limits (block layer and, for SCSI, the LUN's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueLimit {
    pub device: String,
    pub nr_requests: Option<u64>,
    pub queue_depth: Option<u64>,
}

impl QueueLimit {
    /// Read both limits of `device` (a kernel name) from sysfs.
    pub fn read(device: &str) -> QueueLimit {
        let num = |rel: &str| -> Option<u64> {
            std::fs::read_to_string(format!("/sys/block/{device}/{rel}")).ok()?.trim().parse().ok()
        };
        QueueLimit {
            device: device.to_string(),
            nr_requests: num("queue/nr_requests"),
            queue_depth: num("device/queue_depth"),
        }
    }

    /// The tighter of the two limits.
    pub fn limit(&self) -> Option<u64> {
        match (self.nr_requests, self.queue_depth) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// I/O the devices did beyond what the run's jobs issued in a phase (other processes,
/// filesystem metadata and journal, page-cache readahead and writeback), as rates over the
/// phase's inner window, so set-up I/O just before the phase (layout, `--prefill`) is not
/// counted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForeignIo {
    /// Device bytes/s beyond the jobs' bytes/s, read and written.
    pub extra_read: f64,
    pub extra_write: f64,
    /// The jobs' own bytes/s, read and written.
    pub app_read: f64,
    pub app_write: f64,
    /// Share of the devices' bytes that were not the jobs' (0..1).
    pub share: f64,
}

/// The devices' bytes/s beyond the jobs' own, when they are more than 5 % of the devices'
/// bytes and at least 256 KiB/s: `None` otherwise. `devs` are rates over the phase (iostat
/// rMB/s, wMB/s); the jobs' rates are their bytes over the longest runtime.
pub fn foreign_io(jobs: &[(&JobResult, &JobEvidence)], devs: &[&DiskUtil]) -> Option<ForeignIo> {
    let secs = jobs.iter().map(|(j, _)| j.runtime_ns).max().unwrap_or(0) as f64 / 1e9;
    if secs <= 0.0 {
        return None;
    }
    let app_read = jobs.iter().map(|(j, _)| j.read.io_bytes).sum::<u64>() as f64 / secs;
    let app_write =
        jobs.iter().map(|(j, _)| j.write.io_bytes + j.trim.io_bytes).sum::<u64>() as f64 / secs;
    let dev_read: f64 = devs.iter().map(|d| d.iostat.rmb_s * 1048576.0).sum();
    let dev_write: f64 = devs.iter().map(|d| d.iostat.wmb_s * 1048576.0).sum();
    let (extra_read, extra_write) =
        ((dev_read - app_read).max(0.0), (dev_write - app_write).max(0.0));
    let (total, extra) = (dev_read + dev_write, extra_read + extra_write);
    if total <= 0.0 || extra < 262144.0 || extra < 0.05 * total {
        return None;
    }
    Some(ForeignIo { extra_read, extra_write, app_read, app_write, share: extra / total })
}

impl ForeignIo {
    /// One sentence for the device view and the advice.
    pub fn describe(&self, buffered: bool) -> String {
        let mib = |b: f64| b / 1048576.0;
        format!(
            "the devices read {:.1} MiB/s and wrote {:.1} MiB/s beyond this run's {:.1} MiB/s \
             read and {:.1} MiB/s written ({:.0} % of their bytes were not this run's I/O: \
             other processes, filesystem metadata and journal{})",
            mib(self.extra_read),
            mib(self.extra_write),
            mib(self.app_read),
            mib(self.app_write),
            self.share * 100.0,
            if buffered { ", page-cache readahead and writeback" } else { "" }
        )
    }
}

/// Device figures over one phase (a reporting group between stonewalls).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseEvidence {
    pub groupid: u32,
    /// ns since the run started.
    pub start_ns: u64,
    pub end_ns: u64,
    /// From the last sample at or before the start to the first at or after the end: counts
    /// here cover at least the phase (what the app-vs-device byte comparison needs).
    pub devices: Vec<DiskUtil>,
    /// From the samples inside the phase when they span at least half of it, else as
    /// `devices`: rates here (aqu-sz, r/s, await) are the phase's own, not a neighbour's.
    #[serde(default)]
    pub devices_inner: Vec<DiskUtil>,
}

/// Everything the checks read besides the `RunResult`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub jobs: Vec<JobEvidence>,
    pub phases: Vec<PhaseEvidence>,
    /// `/proc/meminfo` MemTotal, bytes.
    pub mem_total_bytes: Option<u64>,
    /// A cache the user declared in front of the media (controller, array, SLC), bytes.
    pub declared_cache_bytes: Option<u64>,
}

impl Evidence {
    /// Device figures of a group's phase: the recorded phase, else the whole run's
    /// `disk_util` when the run has a single group.
    /// [`PhaseEvidence::devices_inner`] of a group (rates), falling back as
    /// [`Self::phase_devices`] does.
    pub fn phase_rates<'a>(&'a self, r: &'a RunResult, groupid: u32) -> Option<&'a [DiskUtil]> {
        match self.phases.iter().find(|p| p.groupid == groupid) {
            Some(p) if !p.devices_inner.is_empty() => Some(&p.devices_inner),
            _ => self.phase_devices(r, groupid),
        }
    }

    pub fn phase_devices<'a>(&'a self, r: &'a RunResult, groupid: u32) -> Option<&'a [DiskUtil]> {
        if let Some(p) = self.phases.iter().find(|p| p.groupid == groupid) {
            return Some(&p.devices);
        }
        let groups: std::collections::BTreeSet<u32> = r.jobs.iter().map(|j| j.groupid).collect();
        (groups.len() <= 1 && !r.disk_util.is_empty()).then_some(&r.disk_util[..])
    }

    /// Jobs of each group with their evidence: (groupid, [(job, evidence)]).
    pub fn groups<'a>(
        &'a self,
        r: &'a RunResult,
    ) -> Vec<(u32, Vec<(&'a JobResult, &'a JobEvidence)>)> {
        let mut out: Vec<(u32, Vec<(&JobResult, &JobEvidence)>)> = Vec::new();
        for (j, e) in r.jobs.iter().zip(&self.jobs) {
            match out.iter_mut().find(|(g, _)| *g == j.groupid) {
                Some((_, v)) => v.push((j, e)),
                None => out.push((j.groupid, vec![(j, e)])),
            }
        }
        out
    }
}

/// Mean in-flight depth at submission (the fio "IO depths" distribution, exact form).
pub fn mean_issued_depth(j: &JobResult) -> Option<f64> {
    let n: u64 = j.depth.exact.iter().map(|&(_, c)| c).sum();
    (n > 0).then(|| j.depth.exact.iter().map(|&(d, c)| d as f64 * c as f64).sum::<f64>() / n as f64)
}

/// `MemTotal` from `/proc/meminfo` text, in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut it = line["MemTotal:".len()..].split_whitespace();
    let v: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") | None => Some(v * 1024),
        Some(_) => None,
    }
}

/// `MemTotal` of this machine, bytes.
pub fn mem_total_bytes() -> Option<u64> {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo() {
        assert_eq!(
            parse_meminfo("MemTotal:       16316412 kB\nMemFree: 1 kB\n"),
            Some(16316412 * 1024)
        );
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), None);
        assert!(mem_total_bytes().is_some_and(|b| b > 64 << 20));
    }

    #[test]
    fn issued_depth_mean() {
        let mut j = JobResult::default();
        assert_eq!(mean_issued_depth(&j), None);
        j.depth.exact = vec![(1, 10), (8, 30)];
        assert!((mean_issued_depth(&j).unwrap() - 6.25).abs() < 1e-12);
    }
}
