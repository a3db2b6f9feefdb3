//! `ioengine=pvsync2`: preadv2/pwritev2 with one iovec and per-call `RWF_*` flags, fio's
//! engines/sync.c `fio_pvsyncio2_queue`. `hipri` sets `RWF_HIPRI` (polled completion; the
//! kernel only polls O_DIRECT I/O on a queue with poll queues and otherwise treats it as a
//! plain call); `uncached` sets `RWF_DONTCACHE` (fio 3.33 calls it `RWF_UNCACHED`; Linux 6.14
//! merged it as `RWF_DONTCACHE`): on an older kernel the first call fails with EOPNOTSUPP and
//! the engine reports that by name instead of running cached. Synchronous, depth 1.

use super::{
    sync_file, trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind,
    Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct Pvsync2 {
    pool: BufPool,
    files: Vec<EngineFile>,
    flags: libc::c_int,
}

impl Pvsync2 {
    pub fn new(cfg: &EngineConfig) -> Result<Self, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "pvsync2")?;
        let mut flags = 0;
        if cfg.hipri {
            flags |= libc::RWF_HIPRI;
        }
        if cfg.uncached {
            flags |= libc::RWF_DONTCACHE;
        }
        Ok(Pvsync2 { pool, files: cfg.files.clone(), flags })
    }

    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Pvsync2::new(cfg)?))
    }

    fn rw(&mut self, fd: i32, kind: OpKind, len: u64, off: u64) -> Result<i64, EngineError> {
        let len = (len as usize).min(self.pool.slot_size());
        let iov = libc::iovec { iov_base: self.pool.slot_ptr(0).cast(), iov_len: len };
        let off = off as libc::off_t;
        // SAFETY: the iovec points at slot 0 of the pool, at least `len` bytes owned by this
        // engine and untouched by anyone else during the call.
        let r = unsafe {
            if kind == OpKind::Read {
                libc::preadv2(fd, &iov, 1, off, self.flags)
            } else {
                libc::pwritev2(fd, &iov, 1, off, self.flags)
            }
        };
        if r >= 0 {
            return Ok(r as i64);
        }
        let err = crate::error::last_os_error();
        if err.raw_os_error() == Some(libc::EOPNOTSUPP) && self.flags & libc::RWF_DONTCACHE != 0 {
            return Err(EngineError::Engine { engine: "pvsync2", op: "uncached=1", source: err });
        }
        Ok(-(err.raw_os_error().unwrap_or(libc::EIO) as i64))
    }
}

impl IoEngine for Pvsync2 {
    fn name(&self) -> &'static str {
        "pvsync2"
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
        let fd = file.raw();
        let res = match op.kind {
            OpKind::Read | OpKind::Write => self.rw(fd, op.kind, op.len, op.offset)?,
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
