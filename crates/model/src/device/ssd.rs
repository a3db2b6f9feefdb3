//! Flash device timing: a per-command latency (reads slower than buffered writes, as on
//! real TLC drives) that includes the first 4 KiB, plus the rest of the transfer at the
//! device bandwidth shared with the commands already in service (processor sharing, fixed at
//! the start of the command); up to `channels` commands are in service at once (internal
//! parallelism). So QD1 4 KiB reads take the datasheet latency, a deep queue of small reads
//! reaches channels / latency IOPS, and large transfers saturate the bandwidth. An optional write
//! cliff: once `cliff_after_bytes` have been written (fresh-out-of-box → steady state, about
//! twice the capacity), writes take `cliff_factor` × longer, as garbage collection competes.
//!
//! Presets: Intel DC P4500 product guide (NVMe TLC: 4K random read 645K IOPS, write 62.5K,
//! read latency 85 µs random, write 20 µs; 3.2 / 1.8 GB/s) and SATA enterprise TLC at the
//! 6 Gb/s link (550 / 500 MB/s, ~90K IOPS at QD32, ~85 µs QD1 read). Sources in
//! `shared/notes/peers-and-pitfalls.md` §6.

use super::{xfer, DevOp, Device};
use iolab_core::{IoDir, Nanos};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SsdParams {
    pub capacity: u64,
    pub read_latency_us: f64,
    pub write_latency_us: f64,
    pub read_bytes_per_sec: f64,
    pub write_bytes_per_sec: f64,
    pub channels: usize,
    /// Bytes written before the write cliff (None: never).
    pub cliff_after_bytes: Option<u64>,
    pub cliff_factor: f64,
}

impl Default for SsdParams {
    fn default() -> Self {
        SsdParams::nvme()
    }
}

impl SsdParams {
    pub fn nvme() -> Self {
        SsdParams {
            capacity: 4_000_000_000_000,
            read_latency_us: 85.0,
            write_latency_us: 20.0,
            read_bytes_per_sec: 3.2e9,
            write_bytes_per_sec: 1.8e9,
            // 645K IOPS × 85 µs ≈ 55 commands in flight at the read limit.
            channels: 56,
            cliff_after_bytes: None,
            cliff_factor: 4.0,
        }
    }

    pub fn sata() -> Self {
        SsdParams {
            capacity: 960_000_000_000,
            read_latency_us: 85.0,
            write_latency_us: 40.0,
            read_bytes_per_sec: 550e6,
            write_bytes_per_sec: 500e6,
            // 90K IOPS × 85 µs ≈ 8 in flight.
            channels: 8,
            cliff_after_bytes: None,
            cliff_factor: 4.0,
        }
    }
}

pub struct Ssd {
    name: String,
    p: SsdParams,
    written: u64,
}

impl Ssd {
    pub fn new(name: &str, p: SsdParams) -> Self {
        Ssd { name: name.to_string(), p, written: 0 }
    }

    pub fn past_cliff(&self) -> bool {
        self.p.cliff_after_bytes.is_some_and(|c| self.written >= c)
    }
}

impl Device for Ssd {
    fn name(&self) -> &str {
        &self.name
    }
    fn capacity(&self) -> u64 {
        self.p.capacity
    }
    fn servers(&self) -> usize {
        self.p.channels.max(1)
    }
    fn reorder_depth(&self) -> usize {
        self.p.channels.max(1)
    }
    fn service(&mut self, op: &DevOp, _now: Nanos, busy: usize) -> Nanos {
        let share = (busy + 1).min(self.p.channels.max(1)) as f64;
        let extra = op.len.saturating_sub(4096);
        let ns = match op.dir {
            IoDir::Write => {
                let f = if self.past_cliff() { self.p.cliff_factor } else { 1.0 };
                self.written += op.len;
                f * (self.p.write_latency_us * 1e3
                    + xfer(extra, self.p.write_bytes_per_sec / share))
            }
            IoDir::Trim | IoDir::Sync => self.p.write_latency_us * 1e3,
            IoDir::Read => {
                self.p.read_latency_us * 1e3 + xfer(extra, self.p.read_bytes_per_sec / share)
            }
        };
        Nanos(ns as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qd1_read_and_cliff() {
        let p = SsdParams { cliff_after_bytes: Some(1 << 20), ..SsdParams::nvme() };
        let mut d = Ssd::new("nvme", p);
        let r = DevOp { dir: IoDir::Read, offset: 0, len: 4096 };
        let t = d.service(&r, Nanos::ZERO, 0).0;
        assert_eq!(t, 85_000);
        // 1 MiB alone: 85 µs + 1 MiB at 3.2 GB/s ≈ 0.41 ms; with 3 others in flight, 4× the transfer.
        let big = DevOp { dir: IoDir::Read, offset: 0, len: 1 << 20 };
        let alone = d.service(&big, Nanos::ZERO, 0).0 as f64 - 85e3;
        let shared = d.service(&big, Nanos::ZERO, 3).0 as f64 - 85e3;
        assert!((shared / alone - 4.0).abs() < 1e-3);
        let w = DevOp { dir: IoDir::Write, offset: 0, len: 1 << 20 };
        let before = d.service(&w, Nanos::ZERO, 0).0;
        let after = d.service(&w, Nanos::ZERO, 0).0;
        assert!((after as f64 / before as f64 - 4.0).abs() < 1e-3, "{before} {after}");
    }
}
