//! `ioengine=pvsync2`: preadv2/pwritev2 with one iovec and per-call `RWF_*` flags, fio's
//! engines/sync.c `fio_pvsyncio2_queue`. `hipri` sets `RWF_HIPRI` (polled completion; the
//! kernel only polls O_DIRECT I/O on a queue with poll queues and otherwise treats it as a
//! plain call); `uncached` sets `RWF_DONTCACHE` (fio 3.33 calls it `RWF_UNCACHED`; Linux 6.14
//! merged it as `RWF_DONTCACHE`): on an older kernel the first call fails with EOPNOTSUPP and
//! the engine reports that by name instead of running cached. Synchronous, depth 1.

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;

pub struct Pvsync2 {
    flags: libc::c_int,
}

impl Pvsync2 {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let mut flags = 0;
        if cfg.hipri {
            flags |= libc::RWF_HIPRI;
        }
        if cfg.uncached {
            flags |= libc::RWF_DONTCACHE;
        }
        SyncEngine::boxed(cfg, Pvsync2 { flags })
    }
}

impl SyncOp for Pvsync2 {
    fn name(&self) -> &'static str {
        "pvsync2"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        let iov = libc::iovec { iov_base: u.buf.cast(), iov_len: u.len };
        let (fd, off) = (u.file.raw(), u.op.offset as libc::off_t);
        // SAFETY: the iovec points at slot 0 of the pool, at least `len` bytes owned by this
        // engine and untouched by anyone else during the call.
        let r = unsafe {
            if u.op.kind == OpKind::Read {
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
