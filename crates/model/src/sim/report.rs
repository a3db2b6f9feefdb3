//! What a simulation reports: one `iolab run`-shaped `JobResult` per worker (printed by the
//! report crate's exporters), plus what only a model knows: per-tier hit ratios and counters,
//! device busy time, and the fill / hit-ratio / IOPS series over time. [`SimReport::derived`]
//! adds what an engineer otherwise works out by hand from those: read amplification per
//! device, the share of reads each level served, the time each tier took to warm up, and the
//! dirty data left (issue 17, "the text says what the pictures show").

use crate::tier::{BackingStats, TierStats};
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct TierReport {
    pub name: String,
    pub policy: String,
    pub size: u64,
    pub block_size: u64,
    pub read_hit_ratio: f64,
    pub fill: f64,
    pub dirty_blocks: usize,
    /// Dirty data still in this tier when the simulation ended (no fsync wrote it down).
    pub dirty_bytes: u64,
    /// How long writing it to the backing device would take at the rate that device wrote
    /// during the run (its write bytes per busy second); 0 when nothing is dirty.
    pub dirty_flush_s: f64,
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
    /// One `iolab run`-shaped result per worker, in the order given to `sim::run`; the
    /// exporters print them (the JSON carries them in fio's shape, not here).
    #[serde(skip)]
    pub results: Vec<iolab_stats::JobResult>,
    pub tiers: Vec<TierReport>,
    pub backing: BackingStats,
    pub devices: Vec<DevReport>,
    pub series: Vec<Sample>,
    /// A stop request (SIGINT/SIGTERM) ended the simulation before its sources did.
    pub interrupted: bool,
    /// The host stage the simulation ran before the devices (from the backing profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<super::HostCpu>,
}

/// Figures derived from a report: what the text says under "derived".
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Derived {
    /// Per device (tiers then backing): bytes it read per byte the workload was returned.
    pub read_amplification: Vec<(String, f64)>,
    /// Per level (tiers then backing): the share of read lookups it answered, from the
    /// tiers' hit ratios, `h_i × Π_{j<i} (1 − h_j)` and the rest for the backing store.
    pub read_served: Vec<(String, f64)>,
    /// Per tier: seconds until its interval hit ratio first reached `warm_fraction` of its
    /// final one (`None`: no reads hit, or no series).
    pub warm_s: Vec<(String, Option<f64>)>,
    pub warm_fraction: f64,
    /// Bytes left dirty in all tiers at the end.
    pub dirty_bytes: u64,
    /// Per device (tiers then backing): bytes it wrote per byte the workload wrote.
    pub write_amplification: Vec<(String, f64)>,
    /// Bytes the workload wrote and read (the sums over jobs).
    pub written_bytes: u64,
    pub returned_bytes: u64,
}

impl SimReport {
    /// The derived figures; `warm_fraction` is the share of the final hit ratio that counts
    /// as warm (0.9 in the text).
    pub fn derived(&self, warm_fraction: f64) -> Derived {
        let returned: u64 = self.results.iter().map(|j| j.read.io_bytes).sum();
        let written: u64 = self.results.iter().map(|j| j.write.io_bytes).sum();
        let per = |of: u64, bytes: &dyn Fn(&DevReport) -> u64| -> Vec<(String, f64)> {
            let ratio = |d: &DevReport| if of == 0 { 0.0 } else { bytes(d) as f64 / of as f64 };
            self.devices.iter().map(|d| (d.name.clone(), ratio(d))).collect()
        };
        let read_amplification = per(returned, &|d| d.read_bytes);
        let write_amplification = per(written, &|d| d.write_bytes);
        let mut left = 1.0;
        let mut read_served = Vec::new();
        for t in &self.tiers {
            read_served.push((t.name.clone(), left * t.read_hit_ratio));
            left *= 1.0 - t.read_hit_ratio;
        }
        let backing = self.devices.last().map_or_else(|| "backing".to_string(), |d| d.name.clone());
        read_served.push((backing, left));
        let warm_s = self
            .tiers
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), self.warm_time(i, warm_fraction)))
            .collect();
        Derived {
            read_amplification,
            read_served,
            warm_s,
            warm_fraction,
            dirty_bytes: self.tiers.iter().map(|t| t.dirty_bytes).sum(),
            write_amplification,
            written_bytes: written,
            returned_bytes: returned,
        }
    }

    /// Seconds until tier `i`'s interval hit ratio first reached `frac` of its last one.
    fn warm_time(&self, i: usize, frac: f64) -> Option<f64> {
        let last = self.series.iter().rev().find_map(|p| p.read_hit_ratio.get(i).copied())?;
        if last <= 0.0 {
            return None;
        }
        self.series
            .iter()
            .find(|p| p.read_hit_ratio.get(i).is_some_and(|&h| h >= frac * last))
            .map(|p| p.t_ns as f64 / 1e9)
    }

    fn derived_text(&self, s: &mut String) {
        let d = self.derived(0.9);
        if d.returned_bytes > 0 {
            Self::read_text(&d, s);
        }
        if d.written_bytes > 0 {
            let amp: Vec<String> =
                d.write_amplification.iter().map(|(n, a)| format!("{n} {a:.2}x")).collect();
            s.push_str(&format!(
                "derived: write amplification (device bytes written per byte written): {}\n",
                amp.join(", ")
            ));
            if let (Some((name, a)), false) = (d.write_amplification.last(), self.tiers.is_empty())
            {
                s.push_str(&format!(
                    "derived: the tiers absorbed {:.1}% of the written bytes ({name} wrote {:.1}% \
                     of them by the end: the rest was overwritten in a tier or is still dirty)\n",
                    (1.0 - a).max(0.0) * 100.0,
                    a * 100.0
                ));
            }
        }
        if d.returned_bytes == 0 && d.written_bytes == 0 {
            s.push_str("derived: no data was read or written\n");
        }
        s.push_str(&format!("derived: dirty data left at the end: {} B\n", d.dirty_bytes));
    }

    /// The read side of the derived figures (only when the workload read).
    fn read_text(d: &Derived, s: &mut String) {
        let amp: Vec<String> =
            d.read_amplification.iter().map(|(n, a)| format!("{n} {a:.1}x")).collect();
        s.push_str(&format!(
            "derived: read amplification (device bytes read per byte returned): {}\n",
            amp.join(", ")
        ));
        let served: Vec<String> =
            d.read_served.iter().map(|(n, f)| format!("{n} {:.1}%", f * 100.0)).collect();
        s.push_str(&format!("derived: reads served by: {}\n", served.join(", ")));
        for (n, w) in &d.warm_s {
            s.push_str(&match w {
                Some(t) => format!(
                    "derived: tier {n} reached {:.0}% of its final hit ratio at t={t:.3}s\n",
                    d.warm_fraction * 100.0
                ),
                None => format!("derived: tier {n} never hit on reads (no warm-up time)\n"),
            });
        }
    }

    /// Sum over jobs of one direction's bytes / the simulation's length, in bytes/s.
    pub fn total_bw(&self, write: bool) -> f64 {
        let bytes: u64 = self
            .results
            .iter()
            .map(|j| if write { j.write.io_bytes } else { j.read.io_bytes })
            .sum();
        if self.runtime_ns == 0 {
            0.0
        } else {
            bytes as f64 * 1e9 / self.runtime_ns as f64
        }
    }

    /// What only a model knows: tiers, devices, never-written reads.
    /// The host stage's line (the backing profile's submitting thread), if one ran.
    fn host_text(&self, s: &mut String) {
        if let Some(h) = &self.host {
            s.push_str(&format!(
                "host stage (the backing profile's submitting thread, as run --predict): CPU \
             per I/O read {:.1} µs / write {:.1} µs, {:.2} threads' overlap; QD1 round \
             trip read {:.1} µs / write {:.1} µs\n",
                h.per_io_ns[0] / 1e3,
                h.per_io_ns[1] / 1e3,
                h.parallel,
                h.idle_ns[0] / 1e3,
                h.idle_ns[1] / 1e3
            ));
        }
    }

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
        for t in self.tiers.iter().filter(|t| t.dirty_bytes > 0) {
            s.push_str(&format!(
                "dirty at the end: tier {} still holds {} B ({} blocks) not on the backing \
                 device; writing them down would take {} (end_fsync=1 or fsync=N in the job \
                 puts that in the prediction)\n",
                t.name,
                t.dirty_bytes,
                t.dirty_blocks,
                if t.dirty_flush_s > 0.0 {
                    format!("about {:.2} s more", t.dirty_flush_s)
                } else {
                    "an unknown time (the backing device wrote nothing to time it by)".into()
                }
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
        self.host_text(&mut s);
        if self.backing.zero_bytes > 0 {
            s.push_str(&format!(
                "backing: {} B read as never-written zeros without device I/O\n",
                self.backing.zero_bytes
            ));
        }
        self.derived_text(&mut s);
        s
    }
}
