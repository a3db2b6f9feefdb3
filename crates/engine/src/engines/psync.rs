//! `ioengine=psync` (pread/pwrite) and `pvsync`/`vsync` (preadv/pwritev with one iovec):
//! fio's engines/sync.c `fio_psyncio_queue` and `fio_pvsyncio_queue`. Synchronous, depth 1.

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;

/// pread/pwrite, or preadv/pwritev with one iovec when `vectored`.
pub struct Psync {
    vectored: bool,
}

impl Psync {
    pub fn boxed_psync(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        SyncEngine::boxed(cfg, Psync { vectored: false })
    }

    pub fn boxed_pvsync(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        SyncEngine::boxed(cfg, Psync { vectored: true })
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

impl SyncOp for Psync {
    fn name(&self) -> &'static str {
        if self.vectored {
            "pvsync"
        } else {
            "psync"
        }
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        Ok(pio(u.file.raw(), u.op.kind, u.buf, u.len, u.op.offset, self.vectored))
    }
}
