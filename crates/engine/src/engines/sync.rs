//! `ioengine=sync`: lseek then read/write (fio engines/sync.c `fio_syncio_queue` with
//! `fio_syncio_prep` doing the lseek when the file position is not already there).
//! Synchronous, depth 1 (the queue/commit/reap half is [`super::syncio::SyncEngine`]).

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;

pub struct SyncIo {
    /// Where each file's position is after the last I/O, so a sequential stream skips the
    /// lseek as fio does (`f->last_pos`).
    pos: Vec<Option<u64>>,
}

impl SyncIo {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        SyncEngine::boxed(cfg, SyncIo { pos: vec![None; cfg.files.len()] })
    }
}

impl SyncOp for SyncIo {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        let (fd, i, offset) = (u.file.raw(), u.index, u.op.offset);
        if self.pos[i] != Some(offset) {
            // SAFETY: lseek on an fd with plain integers.
            let r = unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) };
            if r < 0 {
                self.pos[i] = None;
                return Ok(super::neg_errno());
            }
        }
        // SAFETY: u.buf points to a pool slot of at least `u.len` bytes that only this
        // engine touches during the call.
        let r = unsafe {
            if u.op.kind == OpKind::Read {
                libc::read(fd, u.buf.cast(), u.len)
            } else {
                libc::write(fd, u.buf.cast(), u.len)
            }
        };
        Ok(if r < 0 {
            self.pos[i] = None;
            super::neg_errno()
        } else {
            self.pos[i] = Some(offset + r as u64);
            r as i64
        })
    }
}
