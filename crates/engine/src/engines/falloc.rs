//! `ioengine=falloc`: each I/O is a `fallocate(2)` over its range, fio's engines/falloc.c
//! `fio_fallocate_queue`: a read is `FALLOC_FL_KEEP_SIZE` (reserve blocks, size unchanged), a
//! write mode 0 (allocate and extend), a trim `FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE`.
//! No data moves; a completed unit counts its length, as fio's does. Synchronous, depth 1.

use super::{
    sync_file, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct Falloc {
    pool: BufPool,
    files: Vec<EngineFile>,
}

impl Falloc {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "falloc")?;
        Ok(Box::new(Falloc { pool, files: cfg.files.clone() }))
    }
}

impl IoEngine for Falloc {
    fn name(&self) -> &'static str {
        "falloc"
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: false, trim: true, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let Some(file) = self.files.get(op.file as usize) else {
            return Ok(Queued::Completed(-(libc::EBADF as i64)));
        };
        let mode = match op.kind {
            OpKind::Read => libc::FALLOC_FL_KEEP_SIZE,
            OpKind::Write => 0,
            OpKind::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            OpKind::Fsync => return Ok(Queued::Completed(sync_file(file.raw(), false))),
            OpKind::Fdatasync => return Ok(Queued::Completed(sync_file(file.raw(), true))),
        };
        // SAFETY: fallocate takes a valid fd and plain integers.
        let r = unsafe {
            libc::fallocate(file.raw(), mode, op.offset as libc::off_t, op.len as libc::off_t)
        };
        Ok(Queued::Completed(if r < 0 { super::neg_errno() } else { op.len as i64 }))
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        Ok(0)
    }

    fn reap(&mut self, _min: u32, _out: &mut Vec<Completion>) -> Result<(), EngineError> {
        Ok(())
    }

    fn buf(&mut self, _slot: u32, len: usize) -> &mut [u8] {
        self.pool.slot_mut(0, len)
    }
}
