//! What a simulation reports, shaped like `iolab run` / fio's JSON where the two overlap
//! (`read`/`write` with `io_bytes`, `bw` in KiB/s, `iops`, `runtime` in ms, `clat_ns` with
//! `percentile` keys such as `"99.000000"`), plus what only a model knows: per-tier hit
//! ratios and counters, device busy time, and the fill / hit-ratio / IOPS series over time.

use crate::tier::{BackingStats, TierStats};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// fio's default `percentile_list`.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

#[derive(Clone, Debug, Default, Serialize)]
pub struct LatSummary {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub percentile: BTreeMap<String, u64>,
}

impl LatSummary {
    pub fn from_hist(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return LatSummary::default();
        }
        LatSummary {
            min: h.min(),
            max: h.max(),
            mean: h.mean(),
            stddev: h.stdev(),
            percentile: PERCENTILES
                .iter()
                .map(|p| (format!("{p:.6}"), h.value_at_quantile(p / 100.0)))
                .collect(),
        }
    }

    pub fn pct(&self, p: f64) -> u64 {
        self.percentile.get(&format!("{p:.6}")).copied().unwrap_or(0)
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DirReport {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    pub bw_bytes: f64,
    /// KiB/s, as fio.
    pub bw: f64,
    pub iops: f64,
    pub runtime: u64,
    pub total_ios: u64,
    pub clat_ns: LatSummary,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct JobReport {
    pub jobname: String,
    pub read: DirReport,
    pub write: DirReport,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct TierReport {
    pub name: String,
    pub policy: String,
    pub size: u64,
    pub block_size: u64,
    pub read_hit_ratio: f64,
    pub fill: f64,
    pub dirty_blocks: usize,
    pub stats: TierStats,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DevReport {
    pub name: String,
    pub ops: u64,
    pub background_ops: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub busy_ns: u64,
    pub utilization: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Sample {
    pub t_ns: u64,
    pub iops: f64,
    pub read_hit_ratio: Vec<f64>,
    pub fill: Vec<f64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SimReport {
    pub runtime_ns: u64,
    /// The jobs in the model's own summary (the JSON carries `results` in fio's shape instead).
    #[serde(skip)]
    pub jobs: Vec<JobReport>,
    /// One `iolab run`-shaped result per worker (same order as `jobs`), for the exporters.
    #[serde(skip)]
    pub results: Vec<iolab_stats::JobResult>,
    pub tiers: Vec<TierReport>,
    pub backing: BackingStats,
    pub devices: Vec<DevReport>,
    pub series: Vec<Sample>,
}

impl SimReport {
    /// Sum over jobs of one direction's bytes / the longest job runtime, in bytes/s.
    pub fn total_bw(&self, write: bool) -> f64 {
        let bytes: u64 =
            self.jobs.iter().map(|j| if write { j.write.io_bytes } else { j.read.io_bytes }).sum();
        if self.runtime_ns == 0 {
            0.0
        } else {
            bytes as f64 * 1e9 / self.runtime_ns as f64
        }
    }

    /// Human-readable summary in the shape of `iolab run`'s text output.
    pub fn to_text(&self) -> String {
        let mut s = self.jobs_text();
        s.push_str(&self.model_text());
        s
    }

    /// The jobs' predicted IOPS, bandwidth and latency, one block per job.
    pub fn jobs_text(&self) -> String {
        let mut s = String::new();
        for j in &self.jobs {
            s.push_str(&format!("{}: (predicted)\n", j.jobname));
            for (name, d) in [("read", &j.read), ("write", &j.write)] {
                if d.total_ios == 0 {
                    continue;
                }
                let c = &d.clat_ns;
                s.push_str(&format!(
                    "  {name}: IOPS={:.0}, BW={:.1}MiB/s ({:.1}MB/s)({} ios, {} ms)\n",
                    d.iops,
                    d.bw_bytes / 1048576.0,
                    d.bw_bytes / 1e6,
                    d.total_ios,
                    d.runtime
                ));
                s.push_str(&format!(
                    "    clat (usec): min={:.1}, max={:.1}, avg={:.1}, stdev={:.1}\n",
                    c.min as f64 / 1e3,
                    c.max as f64 / 1e3,
                    c.mean / 1e3,
                    c.stddev / 1e3
                ));
                s.push_str("    clat percentiles (usec): ");
                let ps: Vec<String> = [1.0, 50.0, 90.0, 99.0, 99.9, 99.99]
                    .iter()
                    .map(|&p| format!("{p}th={:.1}", c.pct(p) as f64 / 1e3))
                    .collect();
                s.push_str(&ps.join(", "));
                s.push('\n');
            }
        }
        s
    }

    /// What only a model knows: tiers, devices, never-written reads.
    pub fn model_text(&self) -> String {
        let mut s = String::new();
        for t in &self.tiers {
            s.push_str(&format!(
                "tier {} ({}, {} B, block {} B): read hit ratio {:.4}, fill {:.1}%, dirty {} blocks, \
                 promotions {}, evictions {}, write-backs {}\n",
                t.name,
                t.policy,
                t.size,
                t.block_size,
                t.read_hit_ratio,
                t.fill * 100.0,
                t.dirty_blocks,
                t.stats.promotions,
                t.stats.evictions,
                t.stats.dirty_writebacks + t.stats.flushed_blocks,
            ));
        }
        for d in &self.devices {
            s.push_str(&format!(
                "device {}: {} ops, read {} B, written {} B, utilization {:.1}%\n",
                d.name,
                d.ops,
                d.read_bytes,
                d.write_bytes,
                d.utilization * 100.0
            ));
        }
        if self.series.len() > 1 && !self.tiers.is_empty() {
            // Up to ten evenly spaced samples of the series: how the cache filled and warmed.
            s.push_str("over time (read hit ratio / fill per tier, top first):\n");
            let n = self.series.len();
            let step = n.div_ceil(10).max(1);
            let mut idx: Vec<usize> = (0..n).step_by(step).collect();
            if idx.last() != Some(&(n - 1)) {
                idx.push(n - 1);
            }
            for i in idx {
                let p = &self.series[i];
                let tiers: Vec<String> = p
                    .read_hit_ratio
                    .iter()
                    .zip(&p.fill)
                    .map(|(h, f)| format!("{h:.3}/{:.1}%", f * 100.0))
                    .collect();
                s.push_str(&format!(
                    "  t={:>9.3}s  IOPS={:>10.0}  {}\n",
                    p.t_ns as f64 / 1e9,
                    p.iops,
                    tiers.join("  ")
                ));
            }
        }
        if self.backing.zero_bytes > 0 {
            s.push_str(&format!(
                "backing: {} B read as never-written zeros without device I/O\n",
                self.backing.zero_bytes
            ));
        }
        s
    }
}
