//! `ioengine=io_uring` (fio engines/io_uring.c) on the `io-uring` crate.
//!
//! One ring per worker, sized to the depth. `queue` writes an SQE, `commit` is one
//! `io_uring_enter` for the batch, `reap` waits for `min` CQEs and drains the ring.
//! `registerfiles` addresses files by index (no fget/fput per I/O), `fixedbufs` registers the
//! worker's buffer pool once (no page pinning per I/O); COOP_TASKRUN and SINGLE_ISSUER are
//! asked for (fio does since 3.33: +28% IOPS at QD8) and dropped if the kernel refuses them.
//! Trim has no portable opcode before 6.x (discard via uring_cmd), so it runs synchronously
//! as in fio's io_uring engine without `cmd_type`.

use super::{
    trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;
use io_uring::{opcode, squeue, types, IoUring};

pub struct Uring {
    ring: IoUring,
    pool: BufPool,
    files: Vec<EngineFile>,
    fixed_files: bool,
    fixed_bufs: bool,
    /// Submitted and not yet reaped.
    in_flight: u32,
    /// Whether the ring got COOP_TASKRUN (reported in the run notes).
    pub coop_taskrun: bool,
    /// Most completions per reap (`iodepth_batch_complete_max`; u32::MAX: no limit).
    reap_max: u32,
}

/// Why io_uring cannot be used here, or `Ok` when a ring can be created: the
/// `kernel.io_uring_disabled` sysctl (6.6+), seccomp/container refusals (EPERM), old kernels
/// (ENOSYS).
pub fn probe() -> Result<(), String> {
    if let Ok(s) = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled") {
        // 1 only lets members of kernel.io_uring_group create rings: the setup below tells.
        if s.trim() == "2" {
            return Err("kernel.io_uring_disabled=2".to_string());
        }
    }
    match IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("io_uring_setup failed: {e}")),
    }
}

impl Uring {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Uring::new(cfg)?))
    }

    pub fn new(cfg: &EngineConfig) -> Result<Self, EngineError> {
        let entries = cfg.depth.max(1).next_power_of_two();
        let build = |coop: bool| {
            let mut b = IoUring::<squeue::Entry>::builder();
            b.setup_cqsize(entries * 2);
            if coop {
                b.setup_coop_taskrun().setup_single_issuer();
            }
            if cfg.sqthread_poll {
                b.setup_sqpoll(1000);
            }
            b.build(entries)
        };
        let (ring, coop) = match build(true) {
            Ok(r) => (r, true),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => match build(false) {
                Ok(r) => (r, false),
                Err(e) => return Err(EngineError::engine("io_uring", "io_uring_setup", e)),
            },
            Err(e) => return Err(EngineError::engine("io_uring", "io_uring_setup", e)),
        };
        let mut pool = BufPool::new(cfg.depth as usize, cfg.slot_size, 4096);
        if cfg.registerfiles && !cfg.files.is_empty() {
            let fds: Vec<i32> = cfg.files.iter().map(|f| f.fd).collect();
            ring.submitter()
                .register_files(&fds)
                .map_err(|e| EngineError::engine("io_uring", "register_files", e))?;
        }
        if cfg.fixedbufs {
            let iov = libc::iovec { iov_base: pool.base_ptr().cast(), iov_len: pool.total_len() };
            // SAFETY: the pool outlives the ring's use of it: the ring is dropped (fields drop
            // in declaration order, `ring` first) before `pool` is freed.
            unsafe { ring.submitter().register_buffers(&[iov]) }.map_err(|e| {
                EngineError::engine("io_uring", "register_buffers (fixedbufs; check ulimit -l)", e)
            })?;
        }
        Ok(Uring {
            ring,
            pool,
            files: cfg.files.clone(),
            fixed_files: cfg.registerfiles && !cfg.files.is_empty(),
            fixed_bufs: cfg.fixedbufs,
            in_flight: 0,
            coop_taskrun: coop,
            reap_max: if cfg.reap_max == 0 { u32::MAX } else { cfg.reap_max },
        })
    }

    fn sqe(&mut self, op: &IoOp, fd: i32) -> squeue::Entry {
        let ptr = self.pool.slot_ptr(op.slot as usize);
        let len = op.len.min(self.pool.slot_size() as u64) as u32;
        macro_rules! build {
            ($target:expr) => {{
                let t = $target;
                match (op.kind, self.fixed_bufs) {
                    (OpKind::Read, false) => {
                        opcode::Read::new(t, ptr, len).offset(op.offset).build()
                    }
                    (OpKind::Read, true) => {
                        opcode::ReadFixed::new(t, ptr, len, 0).offset(op.offset).build()
                    }
                    (OpKind::Write, false) => {
                        opcode::Write::new(t, ptr, len).offset(op.offset).build()
                    }
                    (OpKind::Write, true) => {
                        opcode::WriteFixed::new(t, ptr, len, 0).offset(op.offset).build()
                    }
                    (OpKind::Fdatasync, _) => {
                        opcode::Fsync::new(t).flags(types::FsyncFlags::DATASYNC).build()
                    }
                    _ => opcode::Fsync::new(t).build(),
                }
            }};
        }
        let e =
            if self.fixed_files { build!(types::Fixed(op.file)) } else { build!(types::Fd(fd)) };
        e.user_data(op.slot as u64)
    }

    /// Move up to `limit` completions from the CQ to `out`; the rest stay for the next reap.
    fn drain(&mut self, out: &mut Vec<Completion>, limit: u32) -> u32 {
        let mut n = 0;
        for cqe in self.ring.completion().take(limit as usize) {
            out.push(Completion { slot: cqe.user_data() as u32, res: cqe.result() as i64 });
            n += 1;
        }
        self.in_flight -= n;
        n
    }
}

impl IoEngine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn caps(&self) -> Caps {
        Caps { sync: false, no_io: false, trim: true, fsync: true, max_depth: 32768 }
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
        let fd = file.fd;
        let sqe = self.sqe(&op, fd);
        loop {
            // SAFETY: the SQE names a pool slot that stays allocated and untouched by the
            // worker until its CQE is reaped, and a file descriptor (or registered index)
            // that stays open for the life of the engine.
            let pushed = unsafe { self.ring.submission().push(&sqe) };
            if pushed.is_ok() {
                return Ok(Queued::Queued);
            }
            // SQ full: submit what is there first.
            self.commit()?;
        }
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        let pending = self.ring.submission().len();
        if pending == 0 {
            return Ok(0);
        }
        loop {
            match self.ring.submit() {
                Ok(n) => {
                    self.in_flight += n as u32;
                    if n < pending {
                        continue;
                    }
                    return Ok(pending);
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR)) => continue,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EBUSY | libc::EAGAIN)) => {
                    // CQ overflow or no resources: completions must be consumed first; they
                    // stay in the CQ for the next reap.
                    self.ring
                        .submit_and_wait(1)
                        .map_err(|e| EngineError::engine("io_uring", "io_uring_enter", e))?;
                }
                Err(e) => return Err(EngineError::engine("io_uring", "io_uring_enter", e)),
            }
        }
    }

    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let cap = self.reap_max;
        let mut got = self.drain(out, cap);
        let min = min.min(got + self.in_flight).min(cap);
        while got < min {
            match self.ring.submit_and_wait((min - got) as usize) {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)
                    ) => {}
                Err(e) => return Err(EngineError::engine("io_uring", "io_uring_enter", e)),
            }
            got += self.drain(out, cap - got);
        }
        if min == 0 && got == 0 && self.in_flight > 0 {
            // Polling: let the kernel run deferred task work (COOP_TASKRUN) once.
            let _ = self.ring.submit_and_wait(0);
            self.drain(out, cap);
        }
        Ok(())
    }
}
