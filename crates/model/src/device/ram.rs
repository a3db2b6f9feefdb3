//! Memory as a cache device (page cache, ARC, a controller's DRAM): a fixed software path cost
//! plus a copy at memory bandwidth. 0.2 µs and 10 GB/s per stream are single-core `memcpy`
//! figures for a current server; many streams proceed in parallel.

use super::{xfer, DevOp, Device};
use iolab_core::Nanos;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RamParams {
    pub capacity: u64,
    pub latency_ns: u64,
    pub copy_bytes_per_sec: f64,
    pub streams: usize,
}

impl Default for RamParams {
    fn default() -> Self {
        RamParams { capacity: 1 << 30, latency_ns: 200, copy_bytes_per_sec: 10e9, streams: 64 }
    }
}

pub struct Ram {
    name: String,
    p: RamParams,
}

impl Ram {
    pub fn new(name: &str, p: RamParams) -> Self {
        Ram { name: name.to_string(), p }
    }
}

impl Device for Ram {
    fn name(&self) -> &str {
        &self.name
    }
    fn capacity(&self) -> u64 {
        self.p.capacity
    }
    fn servers(&self) -> usize {
        self.p.streams.max(1)
    }
    fn service(&mut self, op: &DevOp, _now: Nanos, _busy: usize) -> Nanos {
        Nanos(self.p.latency_ns + xfer(op.len, self.p.copy_bytes_per_sec) as u64)
    }
}
