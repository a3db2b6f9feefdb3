//! `ioengine=null`: completes every unit without touching a device (fio engines/null.c).
//!
//! At depth 1 it is a sync engine: `queue` returns completed at once. At depth > 1 it batches
//! like fio's: `queue` collects units (and answers busy while earlier completions are still
//! unreaped), `commit` marks the batch done, `reap` hands it back. It measures the cost of
//! iolab's own loop: workload generation, clock reads and statistics.

use super::{Caps, Completion, EngineConfig, IoEngine, IoOp, Queued};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct Null {
    pool: BufPool,
    depth: u32,
    /// Queued since the last commit.
    queued: Vec<Completion>,
    /// Committed, not yet reaped.
    done: Vec<Completion>,
    /// `iodepth_batch_complete_max` (usize::MAX: no limit).
    reap_max: usize,
}

impl Null {
    pub fn new(cfg: &EngineConfig) -> Result<Self, EngineError> {
        // Buffers are still handed out (writes fill them), but no alignment is needed.
        Ok(Null {
            pool: BufPool::try_new(cfg.depth as usize, cfg.slot_size, 4096, "null")?,
            depth: cfg.depth,
            queued: Vec::with_capacity(cfg.depth as usize),
            done: Vec::with_capacity(cfg.depth as usize),
            reap_max: if cfg.reap_max == 0 { usize::MAX } else { cfg.reap_max as usize },
        })
    }

    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Null::new(cfg)?))
    }
}

impl IoEngine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn caps(&self) -> Caps {
        Caps { sync: self.depth == 1, no_io: true, trim: true, fsync: true, max_depth: u32::MAX }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    #[inline]
    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let res = match op.kind {
            super::OpKind::Fsync | super::OpKind::Fdatasync => 0,
            _ => op.len as i64,
        };
        if self.depth == 1 {
            return Ok(Queued::Completed(res));
        }
        if !self.done.is_empty() {
            return Ok(Queued::Busy);
        }
        self.queued.push(Completion { slot: op.slot, res });
        Ok(Queued::Queued)
    }

    #[inline]
    fn commit(&mut self) -> Result<usize, EngineError> {
        let n = self.queued.len();
        if self.done.is_empty() {
            // Both keep their capacity: a swap instead of a copy.
            std::mem::swap(&mut self.done, &mut self.queued);
        } else {
            self.done.append(&mut self.queued);
        }
        Ok(n)
    }

    fn as_null(&mut self) -> Option<&mut Null> {
        Some(self)
    }

    #[inline]
    fn reap(&mut self, _min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        if self.done.len() <= self.reap_max && out.is_empty() {
            std::mem::swap(out, &mut self.done);
        } else if self.done.len() <= self.reap_max {
            out.append(&mut self.done);
        } else {
            out.extend(self.done.drain(..self.reap_max));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engines::OpKind;

    fn op(slot: u32) -> IoOp {
        IoOp { slot, kind: OpKind::Read, file: 0, offset: 0, len: 4096 }
    }

    #[test]
    fn depth_one_completes_in_queue() {
        let mut e = Null::new(&EngineConfig::new(1, 4096, vec![])).unwrap();
        assert!(e.caps().sync);
        assert_eq!(e.queue(op(0)).unwrap(), Queued::Completed(4096));
    }

    #[test]
    fn deep_queue_batches_and_answers_busy_until_reaped() {
        let mut e = Null::new(&EngineConfig::new(4, 4096, vec![])).unwrap();
        for s in 0..4 {
            assert_eq!(e.queue(op(s)).unwrap(), Queued::Queued);
        }
        assert_eq!(e.commit().unwrap(), 4);
        assert_eq!(e.queue(op(0)).unwrap(), Queued::Busy);
        let mut out = Vec::new();
        e.reap(1, &mut out).unwrap();
        assert_eq!(out.iter().map(|c| c.slot).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(e.queue(op(0)).unwrap(), Queued::Queued);
    }
}
