//! `ioengine=sync`: lseek then read/write (fio engines/sync.c `fio_syncio_queue` with
//! `fio_syncio_prep` doing the lseek when the file position is not already there).
//! Synchronous, depth 1.

use super::{
    sync_file, trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind,
    Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct SyncIo {
    pool: BufPool,
    files: Vec<EngineFile>,
    /// Where each file's position is after the last I/O, so a sequential stream skips the
    /// lseek as fio does (`f->last_pos`).
    pos: Vec<Option<u64>>,
}

impl SyncIo {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(SyncIo {
            pool: BufPool::try_new(1, cfg.slot_size, 4096, "sync")?,
            files: cfg.files.clone(),
            pos: vec![None; cfg.files.len()],
        }))
    }
}

impl IoEngine for SyncIo {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: false, trim: true, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let i = op.file as usize;
        let Some(file) = self.files.get(i) else {
            return Ok(Queued::Completed(-(libc::EBADF as i64)));
        };
        let fd = file.raw();
        let res = match op.kind {
            OpKind::Read | OpKind::Write => {
                if self.pos[i] != Some(op.offset) {
                    // SAFETY: lseek on an fd with plain integers.
                    let r = unsafe { libc::lseek(fd, op.offset as libc::off_t, libc::SEEK_SET) };
                    if r < 0 {
                        self.pos[i] = None;
                        return Ok(Queued::Completed(super::neg_errno()));
                    }
                }
                let len = (op.len as usize).min(self.pool.slot_size());
                let ptr = self.pool.slot_ptr(0);
                // SAFETY: ptr points to a pool slot of at least `len` bytes that only this
                // engine touches during the call.
                let r = unsafe {
                    if op.kind == OpKind::Read {
                        libc::read(fd, ptr.cast(), len)
                    } else {
                        libc::write(fd, ptr.cast(), len)
                    }
                };
                if r < 0 {
                    self.pos[i] = None;
                    super::neg_errno()
                } else {
                    self.pos[i] = Some(op.offset + r as u64);
                    r as i64
                }
            }
            OpKind::Trim => trim_sync(file, op.offset, op.len),
            OpKind::Fsync => sync_file(fd, false),
            OpKind::Fdatasync => sync_file(fd, true),
        };
        Ok(Queued::Completed(res))
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
