//! `ioengine=ftruncate`: each write sets the file's size to the unit's offset with
//! `ftruncate(2)`, fio's engines/ftruncate.c `fio_ftruncate_queue`; any other direction fails
//! with EINVAL there, and so here. No data moves. Synchronous, depth 1.

use super::{
    sync_file, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct Ftruncate {
    pool: BufPool,
    files: Vec<EngineFile>,
}

impl Ftruncate {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "ftruncate")?;
        Ok(Box::new(Ftruncate { pool, files: cfg.files.clone() }))
    }
}

impl IoEngine for Ftruncate {
    fn name(&self) -> &'static str {
        "ftruncate"
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: false, trim: false, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let Some(file) = self.files.get(op.file as usize) else {
            return Ok(Queued::Completed(-(libc::EBADF as i64)));
        };
        let res = match op.kind {
            OpKind::Write => {
                // SAFETY: ftruncate takes a valid fd and a length.
                let r = unsafe { libc::ftruncate(file.raw(), op.offset as libc::off_t) };
                if r < 0 {
                    super::neg_errno()
                } else {
                    op.len as i64
                }
            }
            OpKind::Fsync => sync_file(file.raw(), false),
            OpKind::Fdatasync => sync_file(file.raw(), true),
            OpKind::Read | OpKind::Trim => -(libc::EINVAL as i64),
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
