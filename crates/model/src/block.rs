//! Requests as a block cache sees them: a byte range split into cache blocks (records), runs
//! of missing blocks coalesced into one lower-level read, and the device work a request turns
//! into ([`Plan`]: stages that run one after another, each a set of device commands that run
//! together, plus background commands nobody waits for: write-backs, promotions, feeds).
//!
//! Record semantics follow ZFS (`shared/notes/caches-and-models.md` §6.1): a record is the
//! unit of checksum, so a miss reads the whole record (a 4 KiB read of an uncached 128 KiB
//! record reads 128 KiB), and a partial-record write to an uncached record must first read it
//! (read-modify-write) unless the record was never written.

use crate::device::DevOp;
use iolab_core::IoDir;

/// A device command and the device (index into the simulator's device table) it goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevReq {
    pub dev: usize,
    pub op: DevOp,
    /// Tier whose promotion (migration) this command completes, for dm-cache's throttle.
    pub migration_of: Option<usize>,
}

impl DevReq {
    pub fn new(dev: usize, dir: IoDir, offset: u64, len: u64) -> Self {
        DevReq { dev, op: DevOp { dir, offset, len }, migration_of: None }
    }
}

/// The device work of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub stages: Vec<Vec<DevReq>>,
    pub background: Vec<DevReq>,
}

impl Plan {
    pub fn single(r: DevReq) -> Self {
        Plan { stages: vec![vec![r]], background: Vec::new() }
    }

    /// Runs `other` alongside `self`: stage k of both run together.
    pub fn merge_parallel(&mut self, other: Plan) {
        for (k, st) in other.stages.into_iter().enumerate() {
            if k < self.stages.len() {
                self.stages[k].extend(st);
            } else {
                self.stages.push(st);
            }
        }
        self.background.extend(other.background);
    }

    /// Runs `other` after `self`.
    pub fn then(&mut self, other: Plan) {
        self.stages.extend(other.stages.into_iter().filter(|s| !s.is_empty()));
        self.background.extend(other.background);
    }

    /// Everything in `self` becomes background work (a write-back nobody waits for).
    pub fn into_background(self) -> Vec<DevReq> {
        let mut v: Vec<DevReq> = self.stages.into_iter().flatten().collect();
        v.extend(self.background);
        v
    }

    pub fn is_empty(&self) -> bool {
        self.stages.iter().all(|s| s.is_empty()) && self.background.is_empty()
    }

    /// Bytes this plan moves on device `dev` in direction `dir` (foreground and background).
    pub fn bytes_on(&self, dev: usize, dir: IoDir) -> u64 {
        self.stages
            .iter()
            .flatten()
            .chain(&self.background)
            .filter(|r| r.dev == dev && r.op.dir == dir)
            .map(|r| r.op.len)
            .sum()
    }
}

/// First and last block (inclusive) of `[offset, offset + len)` at block size `bs`.
#[inline]
pub fn block_span(offset: u64, len: u64, bs: u64) -> (u64, u64) {
    let first = offset / bs;
    let last = (offset + len.max(1) - 1) / bs;
    (first, last)
}

/// Coalesces sorted block ids into `(first, count)` runs of consecutive blocks.
pub fn runs(sorted: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &b in sorted {
        match out.last_mut() {
            Some((s, n)) if *s + *n == b => *n += 1,
            _ => out.push((b, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_and_runs() {
        assert_eq!(block_span(4096, 4096, 131072), (0, 0));
        assert_eq!(block_span(131072 - 4096, 8192, 131072), (0, 1));
        assert_eq!(runs(&[1, 2, 3, 7, 8, 10]), vec![(1, 3), (7, 2), (10, 1)]);
    }

    #[test]
    fn plans_compose() {
        let r = |d| DevReq::new(d, IoDir::Read, 0, 10);
        let mut a = Plan::single(r(0));
        let mut b = Plan::single(r(1));
        b.then(Plan::single(r(2)));
        a.merge_parallel(b);
        assert_eq!(a.stages.len(), 2);
        assert_eq!(a.stages[0].len(), 2);
        assert_eq!(a.bytes_on(2, IoDir::Read), 10);
    }
}
