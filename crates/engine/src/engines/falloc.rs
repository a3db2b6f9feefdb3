//! `ioengine=falloc`: each I/O is a `fallocate(2)` over its range, fio's engines/falloc.c
//! `fio_fallocate_queue`: a read is `FALLOC_FL_KEEP_SIZE` (reserve blocks, size unchanged), a
//! write mode 0 (allocate and extend), a trim `FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE`.
//! No data moves; a completed unit counts its length, as fio's does. Synchronous, depth 1.

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;

pub struct Falloc;

impl Falloc {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        SyncEngine::boxed(cfg, Falloc)
    }
}

/// fallocate over the unit's range with `mode`; its length or `-errno`.
fn fallocate(u: &Unit<'_>, mode: libc::c_int) -> i64 {
    // SAFETY: fallocate takes a valid fd and plain integers.
    let r = unsafe {
        libc::fallocate(u.file.raw(), mode, u.op.offset as libc::off_t, u.op.len as libc::off_t)
    };
    if r < 0 {
        super::neg_errno()
    } else {
        u.op.len as i64
    }
}

impl SyncOp for Falloc {
    fn name(&self) -> &'static str {
        "falloc"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        let mode = if u.op.kind == OpKind::Read { libc::FALLOC_FL_KEEP_SIZE } else { 0 };
        Ok(fallocate(u, mode))
    }

    fn trim(&mut self, u: &Unit<'_>) -> i64 {
        fallocate(u, libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
    }
}
