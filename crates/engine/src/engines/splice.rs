//! `ioengine=splice`: data moves through a pipe, fio's engines/splice.c. A read splices up
//! to 64 KiB (`SPLICE_DEF_SIZE`) of the file into the pipe at the unit's offset, then
//! vmsplices the pipe into the buffer (`fio_splice_read`); a kernel that refuses vmsplice to
//! user memory (EBADF) gets fio's older path, `read(2)` from the pipe (`fio_splice_read_old`),
//! for the rest of the job. A write vmsplices the buffer into the pipe and splices the pipe to
//! the file at the offset (`fio_splice_write`). Trim and the syncs are the sync engines'.
//! fio's optional trick of mapping anonymous memory over the buffer first
//! (`vmsplice_to_user_map`) is left out: the data and the syscalls per unit are the same.
//! Synchronous, depth 1 (the queue/commit/reap half is [`super::syncio::SyncEngine`]).

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, IoEngine, OpKind};
use crate::error::EngineError;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// fio's `SPLICE_DEF_SIZE`.
const SPLICE_DEF_SIZE: usize = 64 * 1024;

pub struct Splice {
    /// `[read end, write end]`.
    pipe: [OwnedFd; 2],
    /// vmsplice into user memory works (fio `vmsplice_to_user`).
    vmsplice_to_user: bool,
}

impl Splice {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            let e = crate::error::last_os_error();
            return Err(EngineError::Engine { engine: "splice", op: "pipe", source: e });
        }
        // SAFETY: both descriptors are fresh from pipe2 and owned by nothing else.
        let pipe = unsafe { [OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])] };
        SyncEngine::boxed(cfg, Splice { pipe, vmsplice_to_user: true })
    }

    /// `fio_splice_read` (or `_old`): bytes read, or `-errno`.
    fn read(&mut self, u: &Unit<'_>) -> i64 {
        let (rd, wr) = (self.pipe[0].as_raw_fd(), self.pipe[1].as_raw_fd());
        let mut off = u.op.offset as libc::loff_t;
        let mut done = 0usize;
        while done < u.len {
            let want = (u.len - done).min(SPLICE_DEF_SIZE);
            let flags = if u.len - done > SPLICE_DEF_SIZE { libc::SPLICE_F_MORE } else { 0 };
            // SAFETY: splice between two valid descriptors; `off` lives for the call.
            let n = unsafe {
                libc::splice(u.file.raw(), &mut off, wr, std::ptr::null_mut(), want, flags)
            };
            if n < 0 {
                let e = super::neg_errno();
                if e == -(libc::EAGAIN as i64) || e == -(libc::ENODATA as i64) {
                    continue;
                }
                return e;
            }
            if n == 0 {
                break; // end of file: a short read
            }
            if let Err(e) = self.drain(rd, u, done, n as usize) {
                return e;
            }
            done += n as usize;
        }
        done as i64
    }

    /// Move `n` bytes from the pipe into the buffer at `at`.
    fn drain(&mut self, rd: i32, u: &Unit<'_>, at: usize, n: usize) -> Result<(), i64> {
        let mut got = 0usize;
        while got < n {
            // SAFETY: `u.buf` holds `u.len >= at + n` bytes owned by the engine for the call.
            let p = unsafe { u.buf.add(at + got) };
            let r = if self.vmsplice_to_user {
                let iov = libc::iovec { iov_base: p.cast(), iov_len: n - got };
                // SAFETY: the iovec covers memory of the buffer (see above).
                unsafe { libc::vmsplice(rd, &iov, 1, libc::SPLICE_F_MOVE) }
            } else {
                // SAFETY: as above; read(2) into the buffer.
                unsafe { libc::read(rd, p.cast(), n - got) }
            };
            if r < 0 {
                let e = super::neg_errno();
                if e == -(libc::EBADF as i64) && self.vmsplice_to_user {
                    self.vmsplice_to_user = false;
                    continue;
                }
                return Err(e);
            }
            if r == 0 {
                return Err(-(libc::ENODATA as i64));
            }
            got += r as usize;
        }
        Ok(())
    }

    /// `fio_splice_write`: bytes written, or `-errno`.
    fn write(&mut self, u: &Unit<'_>) -> i64 {
        let (rd, wr) = (self.pipe[0].as_raw_fd(), self.pipe[1].as_raw_fd());
        let mut off = u.op.offset as libc::loff_t;
        let mut done = 0usize;
        while done < u.len {
            // SAFETY: `done < u.len`, so the pointer stays inside the buffer, whose bytes stay
            // untouched until the splice below has copied them out of the pipe.
            let at = unsafe { u.buf.add(done) };
            let iov = libc::iovec { iov_base: at.cast(), iov_len: u.len - done };
            // SAFETY: vmsplice reads the iovec; the pipe is ours.
            let n = unsafe { libc::vmsplice(wr, &iov, 1, 0) };
            if n < 0 {
                return super::neg_errno();
            }
            let mut left = n as usize;
            while left > 0 {
                // SAFETY: splice between two valid descriptors; `off` lives for the call.
                let m = unsafe {
                    libc::splice(rd, std::ptr::null_mut(), u.file.raw(), &mut off, left, 0)
                };
                if m <= 0 {
                    return if m < 0 { super::neg_errno() } else { -(libc::EIO as i64) };
                }
                left -= m as usize;
            }
            done += n as usize;
        }
        done as i64
    }
}

impl SyncOp for Splice {
    fn name(&self) -> &'static str {
        "splice"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        Ok(if u.op.kind == OpKind::Read { self.read(u) } else { self.write(u) })
    }
}
