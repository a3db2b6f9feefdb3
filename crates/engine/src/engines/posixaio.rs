//! `ioengine=posixaio`: POSIX asynchronous I/O (`aio_read`/`aio_write`/`aio_fsync`, reaped with
//! `aio_error`/`aio_return` and waited for with `aio_suspend`), fio's engines/posixaio.c
//! (`fio_posixaio_queue`, `fio_posixaio_getevents`). On Linux these are glibc's, which runs
//! each request on a helper thread; the requests are issued in `queue`, so `commit` has
//! nothing to do, as in fio. Trim has no POSIX AIO call and is done synchronously
//! (`do_io_u_trim`), returning completed at once as fio does.

use super::{
    trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;

// glibc ≥ 2.34 exports these from libc itself; the libc crate does not declare them for gnu.
extern "C" {
    fn aio_read(cb: *mut libc::aiocb) -> libc::c_int;
    fn aio_write(cb: *mut libc::aiocb) -> libc::c_int;
    fn aio_fsync(op: libc::c_int, cb: *mut libc::aiocb) -> libc::c_int;
    fn aio_error(cb: *const libc::aiocb) -> libc::c_int;
    fn aio_return(cb: *mut libc::aiocb) -> libc::ssize_t;
    fn aio_suspend(
        list: *const *const libc::aiocb,
        n: libc::c_int,
        timeout: *const libc::timespec,
    ) -> libc::c_int;
}

pub struct PosixAio {
    pool: BufPool,
    files: Vec<EngineFile>,
    /// One control block per slot; boxed so addresses stay put while glibc holds them.
    cbs: Box<[libc::aiocb]>,
    in_flight: Vec<bool>,
    reap_max: usize,
}

// SAFETY: the control blocks' raw pointers point into this engine's own pool; one worker
// thread drives the engine at a time.
unsafe impl Send for PosixAio {}

impl PosixAio {
    pub fn new(cfg: &EngineConfig) -> Result<Self, EngineError> {
        let depth = cfg.depth.max(1) as usize;
        let pool = BufPool::try_new(depth, cfg.slot_size, 4096, "posixaio")?;
        // SAFETY: aiocb is a plain C struct for which all-zero bytes is the documented
        // initial state (fio memsets it too).
        let cbs = (0..depth).map(|_| unsafe { std::mem::zeroed::<libc::aiocb>() }).collect();
        Ok(PosixAio {
            pool,
            files: cfg.files.clone(),
            cbs,
            in_flight: vec![false; depth],
            reap_max: if cfg.reap_max == 0 { usize::MAX } else { cfg.reap_max as usize },
        })
    }

    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(PosixAio::new(cfg)?))
    }

    fn submit(&mut self, op: IoOp, fd: i32) -> Result<Queued, EngineError> {
        let s = op.slot as usize;
        if s >= self.cbs.len() || self.in_flight[s] {
            return Ok(Queued::Busy);
        }
        let len = (op.len as usize).min(self.pool.slot_size());
        let buf = self.pool.slot_ptr(s);
        let cb = &mut self.cbs[s];
        // SAFETY: see `new`; the block is not in flight, so glibc holds no reference to it.
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = fd;
        cb.aio_buf = buf.cast();
        cb.aio_nbytes = len;
        cb.aio_offset = op.offset as libc::off_t;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the block and the slot it points at stay valid and untouched until the
        // request is reaped (`in_flight` guards both; Drop waits for stragglers).
        let r = unsafe {
            match op.kind {
                OpKind::Read => aio_read(cb),
                OpKind::Write => aio_write(cb),
                OpKind::Fsync => aio_fsync(libc::O_SYNC, cb),
                _ => aio_fsync(libc::O_DSYNC, cb),
            }
        };
        if r < 0 {
            let e = crate::error::last_os_error();
            if e.raw_os_error() == Some(libc::EAGAIN) {
                return Ok(Queued::Busy);
            }
            return Ok(Queued::Completed(-(e.raw_os_error().unwrap_or(libc::EIO) as i64)));
        }
        self.in_flight[s] = true;
        Ok(Queued::Queued)
    }

    /// Move finished requests to `out`; returns how many.
    fn collect(&mut self, out: &mut Vec<Completion>, room: usize) -> usize {
        let mut n = 0;
        for s in 0..self.cbs.len() {
            if n >= room {
                break;
            }
            if !self.in_flight[s] {
                continue;
            }
            // SAFETY: the block was submitted and is still owned by this engine.
            let err = unsafe { aio_error(&self.cbs[s]) };
            if err == libc::EINPROGRESS {
                continue;
            }
            // SAFETY: the request finished (aio_error is not EINPROGRESS): aio_return is
            // called exactly once for it.
            let ret = unsafe { aio_return(&mut self.cbs[s]) };
            let res = if err != 0 { -(err as i64) } else { ret as i64 };
            self.in_flight[s] = false;
            out.push(Completion { slot: s as u32, res });
            n += 1;
        }
        n
    }

    fn wait_any(&self) {
        let list: Vec<*const libc::aiocb> = (0..self.cbs.len())
            .filter(|&s| self.in_flight[s])
            .map(|s| &self.cbs[s] as *const libc::aiocb)
            .collect();
        if list.is_empty() {
            return;
        }
        // SAFETY: every pointer is a submitted, live control block; a null timeout waits
        // until one finishes (EINTR just returns early and the caller polls again).
        unsafe { aio_suspend(list.as_ptr(), list.len() as libc::c_int, std::ptr::null()) };
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // glibc may still write into a slot: wait for every request before the pool goes.
        let mut sink = Vec::new();
        while self.in_flight.iter().any(|&f| f) {
            if self.collect(&mut sink, usize::MAX) == 0 {
                self.wait_any();
            }
        }
    }
}

impl IoEngine for PosixAio {
    fn name(&self) -> &'static str {
        "posixaio"
    }

    fn caps(&self) -> Caps {
        let depth = self.cbs.len() as u32;
        Caps { sync: false, no_io: false, trim: true, fsync: true, max_depth: depth }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let Some(file) = self.files.get(op.file as usize) else {
            return Ok(Queued::Completed(-(libc::EBADF as i64)));
        };
        if op.kind == OpKind::Trim {
            return Ok(Queued::Completed(trim_sync(file, op.offset, op.len)));
        }
        let fd = file.raw();
        self.submit(op, fd)
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        Ok(0)
    }

    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let in_flight = self.in_flight.iter().filter(|&&f| f).count();
        let want = (min as usize).min(in_flight).min(self.reap_max);
        let mut got = self.collect(out, self.reap_max);
        while got < want {
            self.wait_any();
            got += self.collect(out, self.reap_max - got);
        }
        Ok(())
    }

    fn ready(&mut self) -> u32 {
        let mut n = 0;
        for s in 0..self.cbs.len() {
            if !self.in_flight[s] {
                continue;
            }
            // SAFETY: only submitted, live blocks are asked.
            if unsafe { aio_error(&self.cbs[s]) } != libc::EINPROGRESS {
                n += 1;
            }
        }
        n
    }
}
