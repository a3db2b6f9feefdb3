//! `ioengine=ftruncate`: each write sets the file's size to the unit's offset with
//! `ftruncate(2)`, fio's engines/ftruncate.c `fio_ftruncate_queue`; any other direction fails
//! with EINVAL there, and so here. No data moves. Synchronous, depth 1.

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;

pub struct Ftruncate;

impl Ftruncate {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        SyncEngine::boxed(cfg, Ftruncate)
    }
}

impl SyncOp for Ftruncate {
    fn name(&self) -> &'static str {
        "ftruncate"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        if u.op.kind != OpKind::Write {
            return Ok(-(libc::EINVAL as i64));
        }
        // SAFETY: ftruncate takes a valid fd and a length.
        let r = unsafe { libc::ftruncate(u.file.raw(), u.op.offset as libc::off_t) };
        Ok(if r < 0 { super::neg_errno() } else { u.op.len as i64 })
    }

    fn trim(&mut self, _u: &Unit<'_>) -> i64 {
        -(libc::EINVAL as i64)
    }

    fn can_trim(&self) -> bool {
        false
    }
}
