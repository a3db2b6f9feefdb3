//! `ioengine=psync` (pread/pwrite) and `pvsync`/`vsync` (preadv/pwritev with one iovec):
//! fio's engines/sync.c `fio_psyncio_queue` and `fio_pvsyncio_queue`. Synchronous, depth 1.

use super::{
    sync_file, trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind,
    Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

pub struct Psync {
    pool: BufPool,
    files: Vec<EngineFile>,
    vectored: bool,
}

impl Psync {
    pub fn new(cfg: &EngineConfig, vectored: bool) -> Result<Self, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, "psync")?;
        Ok(Psync { pool, files: cfg.files.clone(), vectored })
    }

    pub fn boxed_psync(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Psync::new(cfg, false)?))
    }

    pub fn boxed_pvsync(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Psync::new(cfg, true)?))
    }
}

/// Positional read or write of `len` bytes at `ptr`; bytes or `-errno`.
pub(crate) fn pio(
    fd: i32,
    kind: OpKind,
    ptr: *mut u8,
    len: usize,
    off: u64,
    vectored: bool,
) -> i64 {
    let off = off as libc::off_t;
    // SAFETY: the caller passes a pointer to at least `len` bytes of a buffer it owns
    // exclusively for the duration of the call (a pool slot).
    let r = unsafe {
        match (kind, vectored) {
            (OpKind::Read, false) => libc::pread(fd, ptr.cast(), len, off),
            (OpKind::Write, false) => libc::pwrite(fd, ptr.cast(), len, off),
            (OpKind::Read, true) => {
                let iov = libc::iovec { iov_base: ptr.cast(), iov_len: len };
                libc::preadv(fd, &iov, 1, off)
            }
            (_, true) => {
                let iov = libc::iovec { iov_base: ptr.cast(), iov_len: len };
                libc::pwritev(fd, &iov, 1, off)
            }
            (_, false) => libc::pwrite(fd, ptr.cast(), len, off),
        }
    };
    if r < 0 {
        super::neg_errno()
    } else {
        r as i64
    }
}

impl IoEngine for Psync {
    fn name(&self) -> &'static str {
        if self.vectored {
            "pvsync"
        } else {
            "psync"
        }
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
        let res = match op.kind {
            OpKind::Read | OpKind::Write => {
                let ptr = self.pool.slot_ptr(0);
                let len = (op.len as usize).min(self.pool.slot_size());
                pio(file.raw(), op.kind, ptr, len, op.offset, self.vectored)
            }
            OpKind::Trim => trim_sync(file, op.offset, op.len),
            OpKind::Fsync => sync_file(file.raw(), false),
            OpKind::Fdatasync => sync_file(file.raw(), true),
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
