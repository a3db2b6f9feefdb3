//! The synchronous engines' shared scaffolding: fio's `FIO_SYNCIO` engines (engines/sync.c,
//! mmap.c, falloc.c, ftruncate.c) complete every unit inside `->queue` and have nothing to
//! commit or reap. [`SyncEngine`] provides that half of [`IoEngine`] (one buffer slot, the
//! file table, the EBADF check, queue → completed, empty commit/reap) once; each engine file
//! is only its operation, a [`SyncOp`].

use super::{
    sync_file, trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind,
    Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

/// One unit as a sync operation sees it: the file, the unit and slot 0 of the pool.
pub struct Unit<'a> {
    pub file: &'a EngineFile,
    /// Index of `file` in the engine's file table.
    pub index: usize,
    pub op: IoOp,
    /// The buffer: slot 0, at least `len` bytes, owned by the engine during the call.
    pub buf: *mut u8,
    /// Bytes to move: the unit's length clipped to the slot.
    pub len: usize,
}

/// What a synchronous engine does with one unit. `do_io` gets reads and writes; trim and
/// the syncs have fio's defaults (`os_trim`, fsync/fdatasync), which an engine overrides
/// where fio's does.
pub trait SyncOp: Send + 'static {
    fn name(&self) -> &'static str;

    /// A read or write; bytes moved or `-errno`. `Err` only for a failure that ends the run.
    fn do_io(&mut self, unit: &Unit<'_>) -> Result<i64, EngineError>;

    /// A trim; bytes or `-errno`.
    fn trim(&mut self, unit: &Unit<'_>) -> i64 {
        trim_sync(unit.file, unit.op.offset, unit.op.len)
    }

    /// fsync (`data_only` false) or fdatasync; 0 or `-errno`.
    fn sync(&mut self, unit: &Unit<'_>, data_only: bool) -> i64 {
        sync_file(unit.file.raw(), data_only)
    }

    /// Whether trim is a capability (the worker refuses trim jobs otherwise).
    fn can_trim(&self) -> bool {
        true
    }
}

/// A [`SyncOp`] behind [`IoEngine`]: depth 1, one buffer slot, completes in `queue`.
pub struct SyncEngine<O: SyncOp> {
    pool: BufPool,
    files: Vec<EngineFile>,
    op: O,
}

impl<O: SyncOp> SyncEngine<O> {
    pub fn new(cfg: &EngineConfig, op: O) -> Result<Self, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, op.name())?;
        Ok(SyncEngine { pool, files: cfg.files.clone(), op })
    }

    /// Boxed for the engine table.
    pub fn boxed(cfg: &EngineConfig, op: O) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Self::new(cfg, op)?))
    }

    /// The operation (its own state, e.g. mmap's mappings).
    pub fn op(&self) -> &O {
        &self.op
    }
}

impl<O: SyncOp> IoEngine for SyncEngine<O> {
    fn name(&self) -> &'static str {
        self.op.name()
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: false, trim: self.op.can_trim(), fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let index = op.file as usize;
        let Some(file) = self.files.get(index) else {
            return Ok(Queued::Completed(-(libc::EBADF as i64)));
        };
        let len = (op.len as usize).min(self.pool.slot_size());
        let unit = Unit { file, index, op, buf: self.pool.slot_ptr(0), len };
        let res = match op.kind {
            OpKind::Read | OpKind::Write => self.op.do_io(&unit)?,
            OpKind::Trim => self.op.trim(&unit),
            OpKind::Fsync => self.op.sync(&unit, false),
            OpKind::Fdatasync => self.op.sync(&unit, true),
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
