//! `ioengine=io_uring` (fio engines/io_uring.c) on the `io-uring` crate.
//!
//! One ring per worker, created on the worker's thread and sized to the depth. `queue` writes
//! an SQE, `commit` is one `io_uring_enter(n, 0, GETEVENTS)` for the batch, `reap` drains the
//! CQ and enters the kernel only when fewer than `min` CQEs are there.
//!
//! Set-up follows fio 3.33 (engines/io_uring.c `fio_ioring_queue_init`): COOP_TASKRUN,
//! SINGLE_ISSUER and DEFER_TASKRUN, each dropped in that order when the kernel refuses it
//! (EINVAL), plus NO_SQARRAY (6.6+, as t/io_uring sets it; dropped first): SQEs are taken from
//! the ring in order, with no index array for the kernel to read per SQE. With DEFER_TASKRUN
//! completions are posted only when this thread enters with GETEVENTS, which is why the
//! commit passes it as fio's does. TASKRUN_FLAG (same kernels as COOP_TASKRUN) makes the
//! kernel say in the SQ flags when completions wait as task work, so `waiting` sees them
//! before they are posted (liburing's `io_uring_peek_cqe` checks the same flag). The ring fd
//! is registered (no fdget per enter) when the kernel allows; the registration and `io_uring_enter` are raw syscalls here because the
//! crate keeps a registered index in the `Submitter` that registered it, and
//! `IoUring::submitter()` hands out a fresh one each call (its `enter` would pass the plain fd).
//!
//! Registered files (no fget/fput per I/O) and registered buffers (no page pinning per
//! O_DIRECT I/O) are used unless the job sets `registerfiles=0`/`fixedbufs=0`, not only when
//! it sets them to 1 as fio needs: they change nothing in the I/O the device sees and save
//! CPU per I/O. When the job did not say and the kernel or `ulimit -l` refuses them, the
//! engine runs without them and [`Uring::fallbacks`] says so (a note in the result); when the
//! job asked for them, the refusal is an error as in fio.
//! Trim has no portable opcode before 6.x (discard via uring_cmd), so it runs synchronously
//! as in fio's io_uring engine without `cmd_type`.

use super::{
    trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::EngineError;
use io_uring::{opcode, squeue, types, IoUring};
use std::os::fd::AsRawFd;

/// include/uapi/linux/io_uring.h (the crate keeps its `sys` module private).
const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;

/// `struct io_uring_rsrc_update` (include/uapi/linux/io_uring.h).
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// `IORING_REGISTER_RING_FDS` for this thread's ring (Linux 5.18+): the index `enter` passes
/// with `IORING_ENTER_REGISTERED_RING`, or `None` when the kernel refuses.
fn register_ring_fd(ring: &IoUring) -> Option<u32> {
    let mut up = RsrcUpdate { offset: u32::MAX, resv: 0, data: ring.as_raw_fd() as u64 };
    // SAFETY: one `io_uring_rsrc_update` the kernel reads the fd from and writes the index to.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring.as_raw_fd(),
            IORING_REGISTER_RING_FDS,
            std::ptr::addr_of_mut!(up),
            1u32,
        )
    };
    (r == 1 && up.offset != u32::MAX).then_some(up.offset)
}

pub struct Uring {
    ring: IoUring,
    pool: BufPool,
    files: Vec<EngineFile>,
    fixed_files: bool,
    fixed_bufs: bool,
    /// Submitted and not yet reaped.
    in_flight: u32,
    /// DEFER_TASKRUN: completions are posted only on `enter(GETEVENTS)`.
    defer_taskrun: bool,
    /// TASKRUN_FLAG (with COOP or DEFER_TASKRUN): the SQ flags say when completions wait as
    /// task work, which [`IoEngine::waiting`] reports.
    taskrun_flag: bool,
    /// The ring's registered index (`IORING_REGISTER_RING_FDS`), when the kernel took it.
    ring_index: Option<u32>,
    /// Default optimisations the kernel refused (registered files/buffers), for the notes.
    fallbacks: Vec<String>,
    /// Most completions per reap (`iodepth_batch_complete_max`; u32::MAX: no limit).
    reap_max: u32,
    /// SQPOLL: SQEs pushed since the last commit. The kernel's SQ thread takes SQEs as soon as
    /// the tail moves, so the SQ's length at commit time says nothing about what was queued
    /// (counting it lost units, and `in_flight` wrapped below zero: the wait that hung).
    uncommitted: u32,
}

/// SQPOLL: the longest single wait for completions, ns. Each wait ends by this time and the
/// next one checks `IORING_SQ_NEED_WAKEUP` again, so a wake-up missed to a race never turns
/// into a wait forever.
const SQPOLL_WAIT_NS: u32 = 10_000_000;

/// Why io_uring cannot be used here ([`probe`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UringUnavailable {
    /// `kernel.io_uring_disabled=2`: no process may create a ring (Linux 6.6+).
    #[error("kernel.io_uring_disabled=2: io_uring is disabled for every process")]
    Disabled,
    /// `kernel.io_uring_disabled=1` and this process is not in `kernel.io_uring_group`.
    #[error(
        "kernel.io_uring_disabled=1 and this process is not in kernel.io_uring_group \
         (io_uring_setup: EPERM)"
    )]
    NotInGroup,
    /// EPERM without the sysctl: a seccomp filter or a container runtime's profile.
    #[error("io_uring_setup was refused (EPERM): a seccomp filter or container profile blocks it")]
    Refused,
    /// ENOSYS: the kernel has no io_uring (before 5.1, or built without CONFIG_IO_URING).
    #[error("io_uring_setup is not implemented by this kernel (ENOSYS: Linux < 5.1 or no CONFIG_IO_URING)")]
    NotImplemented,
    /// Any other setup failure, with its errno.
    #[error("io_uring_setup failed: {}", std::io::Error::from_raw_os_error(*.0))]
    Setup(i32),
}

/// Why io_uring cannot be used here, or `Ok` when a ring can be created: the
/// `kernel.io_uring_disabled` sysctl (6.6+), seccomp/container refusals (EPERM), old kernels
/// (ENOSYS).
pub fn probe() -> Result<(), UringUnavailable> {
    let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .ok()
        .map(|s| s.trim().to_string());
    // 1 only lets members of kernel.io_uring_group create rings: the setup below tells.
    if disabled.as_deref() == Some("2") {
        return Err(UringUnavailable::Disabled);
    }
    match IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => Err(classify(e.raw_os_error().unwrap_or(0), disabled.as_deref())),
    }
}

/// The typed reason for a failed `io_uring_setup` with `errno`, given the sysctl's value.
pub fn classify(errno: i32, io_uring_disabled: Option<&str>) -> UringUnavailable {
    match (errno, io_uring_disabled) {
        (libc::EPERM, Some("1")) => UringUnavailable::NotInGroup,
        (libc::EPERM, Some("2")) => UringUnavailable::Disabled,
        (libc::EPERM, _) => UringUnavailable::Refused,
        (libc::ENOSYS, _) => UringUnavailable::NotImplemented,
        (e, _) => UringUnavailable::Setup(e),
    }
}

/// io_uring's largest SQ ring (kernel io_uring/io_uring.c `IORING_MAX_ENTRIES`).
pub const MAX_ENTRIES: u32 = 32768;

/// A failed `io_uring_setup` with the hint that names its likely cause.
fn setup_error(e: std::io::Error, entries: u32) -> EngineError {
    let hint = match e.raw_os_error() {
        Some(libc::EINVAL) if entries > MAX_ENTRIES => format!(
            "; iodepth rounds up to {entries} ring entries, above the kernel's limit of \
             {MAX_ENTRIES} (IORING_MAX_ENTRIES): use iodepth <= {MAX_ENTRIES}"
        ),
        Some(libc::ENOMEM) => format!(
            "; the kernel could not allocate a ring of {entries} entries (locked-memory \
             limit, `ulimit -l`, on kernels before 5.12): use a smaller iodepth"
        ),
        Some(errno) => {
            let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").ok();
            format!("; {}", classify(errno, disabled.as_deref().map(str::trim)))
        }
        None => String::new(),
    };
    EngineError::Io { path: "ioengine=io_uring".into(), op: "io_uring_setup", source: e, hint }
}

impl Uring {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Ok(Box::new(Uring::new(cfg)?))
    }

    pub fn new(cfg: &EngineConfig) -> Result<Self, EngineError> {
        let entries = cfg.depth.max(1).next_power_of_two();
        // 0: NO_SQARRAY + COOP + SINGLE_ISSUER + DEFER, 1: COOP + SINGLE_ISSUER + DEFER,
        // 2: COOP, 3: none (fio's fallback order, after the SQ array iolab never needs).
        let build = |level: u8| {
            let mut b = IoUring::<squeue::Entry>::builder();
            b.setup_cqsize(entries * 2);
            if level == 0 {
                b.setup_no_sqarray();
            }
            if level <= 2 {
                b.setup_coop_taskrun().setup_taskrun_flag();
            }
            if level <= 1 && !cfg.sqthread_poll {
                b.setup_single_issuer().setup_defer_taskrun();
            }
            if cfg.sqthread_poll {
                b.setup_sqpoll(1000);
            }
            b.build(entries)
        };
        let mut level = 0u8;
        let ring = loop {
            match build(level) {
                Ok(r) => break r,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) && level < 3 => level += 1,
                Err(e) => return Err(setup_error(e, entries)),
            }
        };
        let defer_taskrun = level <= 1 && !cfg.sqthread_poll;
        let taskrun_flag = level <= 2;
        let ring_index = register_ring_fd(&ring);
        let mut fallbacks = Vec::new();
        let mut pool = BufPool::try_new(cfg.depth as usize, cfg.slot_size, 4096, "io_uring")?;
        let mut fixed_files = false;
        if !cfg.files.is_empty() && cfg.registerfiles != Some(false) {
            let fds: Vec<i32> = cfg.files.iter().map(|f| f.raw()).collect();
            match ring.submitter().register_files(&fds) {
                Ok(()) => fixed_files = true,
                Err(e) if cfg.registerfiles == Some(true) => {
                    return Err(EngineError::engine("io_uring", "register_files", e))
                }
                Err(e) => {
                    fallbacks.push(format!("registered files refused ({e}); using plain fds"))
                }
            }
        }
        let iov = libc::iovec { iov_base: pool.base_ptr().cast(), iov_len: pool.total_len() };
        let fixed_bufs = match cfg.fixedbufs {
            Some(false) => Ok(false),
            // SAFETY: the pool outlives the ring's use of it: the ring is dropped (fields drop
            // in declaration order, `ring` first) before `pool` is freed, and the pool never
            // moves its allocation.
            _ => unsafe { ring.submitter().register_buffers(&[iov]) }.map(|()| true),
        };
        let fixed_bufs = match fixed_bufs {
            Ok(b) => b,
            Err(e) if cfg.fixedbufs == Some(true) => {
                return Err(EngineError::engine(
                    "io_uring",
                    "register_buffers (fixedbufs; check ulimit -l)",
                    e,
                ))
            }
            Err(e) => {
                fallbacks.push(format!(
                    "registered buffers refused ({e}; ulimit -l?); each I/O pins its pages"
                ));
                false
            }
        };
        Ok(Uring {
            ring,
            pool,
            files: cfg.files.clone(),
            fixed_files,
            fixed_bufs,
            in_flight: 0,
            defer_taskrun,
            taskrun_flag,
            ring_index,
            fallbacks,
            reap_max: if cfg.reap_max == 0 { u32::MAX } else { cfg.reap_max },
            uncommitted: 0,
        })
    }

    /// `io_uring_enter(to_submit, min_complete, GETEVENTS)`: fio's commit and wait in one
    /// form. GETEVENTS with `min_complete == 0` does not block; it runs deferred task work
    /// so completions that are ready get posted.
    fn enter(&self, to_submit: u32, min_complete: u32) -> std::io::Result<usize> {
        let mut flags = IORING_ENTER_GETEVENTS;
        if !self.defer_taskrun && to_submit > 0 && min_complete == 0 {
            // Without DEFER_TASKRUN completions post themselves; skip the CQ flush work.
            flags = 0;
        }
        let (fd, flags) = match self.ring_index {
            Some(index) => (index as libc::c_int, flags | IORING_ENTER_REGISTERED_RING),
            None => (self.ring.as_raw_fd(), flags),
        };
        // SAFETY: no extended argument is passed; the SQEs being submitted satisfy `queue`'s
        // contract; a registered index names this ring (registered by this thread, the only
        // one entering it).
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                fd,
                to_submit,
                min_complete,
                flags,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(r as usize)
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

    fn sqpoll(&self) -> bool {
        self.ring.params().is_setup_sqpoll()
    }

    /// SQPOLL: wake the SQ thread if it sleeps (`IORING_SQ_NEED_WAKEUP` →
    /// `IORING_ENTER_SQ_WAKEUP`, the crate's `submit_with_args`) and wait for `want`
    /// completions for at most [`SQPOLL_WAIT_NS`] (EXT_ARG, 5.11+; older kernels wait
    /// unbounded, with the same wake-up).
    fn sqpoll_wait(&self, want: u32) -> std::io::Result<usize> {
        let ts = types::Timespec::new().nsec(SQPOLL_WAIT_NS);
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(want as usize, &args) {
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => Ok(0),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                self.ring.submit_and_wait(want as usize)
            }
            r => r,
        }
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

    fn ready(&mut self) -> u32 {
        self.ring.completion().len() as u32
    }

    /// Posted completions, or completions the kernel holds as task work (IORING_SQ_TASKRUN):
    /// with DEFER_TASKRUN nothing is posted until this thread enters with GETEVENTS, and that
    /// enter returns at once. Never true with nothing submitted, so a caller that holds a
    /// commit on it always has a completion coming.
    fn waiting(&mut self) -> bool {
        self.ready() > 0
            || (self.taskrun_flag && self.in_flight > 0 && self.ring.submission().taskrun())
    }

    fn notes(&self) -> Vec<String> {
        self.fallbacks.iter().map(|f| format!("io_uring: {f}")).collect()
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
        let sqe = self.sqe(&op, fd);
        loop {
            // SAFETY: the SQE names a pool slot that stays allocated and untouched by the
            // worker until its CQE is reaped, and a file descriptor (or registered index)
            // that stays open for the life of the engine.
            let pushed = unsafe { self.ring.submission().push(&sqe) };
            if pushed.is_ok() {
                if self.sqpoll() {
                    // In the kernel's hands from now on (its thread polls the tail).
                    self.in_flight += 1;
                    self.uncommitted += 1;
                }
                return Ok(Queued::Queued);
            }
            // SQ full: submit what is there first.
            self.commit()?;
        }
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        if self.sqpoll() {
            // The kernel thread submits (counted in `queue`); wake it when it sleeps.
            if self.uncommitted > 0 {
                self.ring
                    .submit()
                    .map_err(|e| EngineError::engine("io_uring", "io_uring_enter", e))?;
            }
            return Ok(std::mem::take(&mut self.uncommitted) as usize);
        }
        let total = self.ring.submission().len();
        if total == 0 {
            return Ok(0);
        }
        let mut pending = total;
        while pending > 0 {
            match self.enter(pending as u32, 0) {
                Ok(n) => {
                    self.in_flight += n as u32;
                    pending -= n.min(pending);
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR)) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EBUSY | libc::EAGAIN)) => {
                    // CQ overflow or no resources: wait for one completion; it stays in the
                    // CQ for the next reap.
                    self.enter(0, 1)
                        .map_err(|e| EngineError::engine("io_uring", "io_uring_enter", e))?;
                }
                Err(e) => return Err(EngineError::engine("io_uring", "io_uring_enter", e)),
            }
        }
        Ok(total)
    }

    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        // td_io_getevents: a max below the min asked for is raised to it.
        let cap = self.reap_max.max(min);
        let mut got = self.drain(out, cap);
        let min = min.min(got + self.in_flight).min(cap);
        while got < min {
            let r =
                if self.sqpoll() { self.sqpoll_wait(min - got) } else { self.enter(0, min - got) };
            match r {
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
            // Polling: let the kernel run deferred task work once, without blocking.
            let _ = self.enter(0, 0);
            self.drain(out, cap);
        }
        Ok(())
    }
}

/// Wait for every submitted unit before the ring and the buffer pool go, as libaio's
/// `io_destroy` does: the worker can return early (an error through `?`, a panic) with units
/// in flight, and closing the ring fd does not wait for them, so the kernel could otherwise
/// still write into the pool after it is freed. Units queued but never committed are not in
/// the kernel's hands and need no wait.
impl Drop for Uring {
    fn drop(&mut self) {
        let mut sink = Vec::with_capacity(self.in_flight as usize);
        while self.in_flight > 0 {
            let r = if self.sqpoll() { self.sqpoll_wait(1) } else { self.enter(0, 1) };
            match r {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)
                    ) => {}
                // The ring itself is broken: nothing more can be learnt from it.
                Err(_) => break,
            }
            sink.clear();
            self.drain(&mut sink, u32::MAX);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kernel_at_least(major: u32, minor: u32) -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        let mut it = release.trim().split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
        (it.next().unwrap_or(0), it.next().unwrap_or(0)) >= (major, minor)
    }

    /// A scratch directory beside the tests and the path `name` in it, or `None` (and why,
    /// printed) when io_uring is unavailable here.
    fn scratch(name: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
        if let Err(why) = probe() {
            println!("skipped: io_uring unavailable here ({why})");
            return None;
        }
        let dir = tempfile::tempdir_in(".").unwrap();
        let path = dir.path().join(name);
        Some((dir, path))
    }

    /// Write 8 KiB through slot 0, read it back through slot 1, with registration unset
    /// (used, or a note), forced off, and asked for.
    #[test]
    fn registration_tri_state_and_bytes_round_trip() {
        let Some((_dir, path)) = scratch("u") else { return };
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let file = EngineFile::dup(&f, false, &path).unwrap();
        for (setting, want_fixed) in [(None, None), (Some(false), Some(false)), (Some(true), None)]
        {
            let mut cfg = EngineConfig::new(2, 8192, vec![file.clone()]);
            cfg.fixedbufs = setting;
            cfg.registerfiles = setting;
            let mut u = match Uring::new(&cfg) {
                Ok(u) => u,
                // Asked for and refused (ulimit -l as non-root): an error, as in fio.
                Err(e) if setting == Some(true) => {
                    assert!(e.to_string().contains("register"), "{e}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            match want_fixed {
                Some(w) => assert_eq!((u.fixed_bufs, u.fixed_files), (w, w)),
                // Unset or asked: registered, or the refusal is in the notes.
                None => assert!(
                    (u.fixed_bufs && u.fixed_files) || !u.notes().is_empty(),
                    "{setting:?}: not registered and no note"
                ),
            }
            if setting == Some(false) {
                assert!(u.notes().is_empty(), "{:?}", u.notes());
            }
            // Registered ring fds are 5.18+; the round trip below enters by the index.
            if kernel_at_least(5, 18) {
                assert!(u.ring_index.is_some(), "ring fd not registered");
            }
            let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
            u.buf(0, 8192).copy_from_slice(&pattern);
            let w = IoOp { slot: 0, kind: OpKind::Write, file: 0, offset: 4096, len: 8192 };
            assert!(matches!(u.queue(w).unwrap(), Queued::Queued));
            assert_eq!(u.commit().unwrap(), 1);
            let mut out = Vec::new();
            u.reap(1, &mut out).unwrap();
            assert_eq!(out, vec![Completion { slot: 0, res: 8192 }]);
            u.buf(1, 8192).fill(0);
            let r = IoOp { slot: 1, kind: OpKind::Read, file: 0, offset: 4096, len: 8192 };
            assert!(matches!(u.queue(r).unwrap(), Queued::Queued));
            u.commit().unwrap();
            out.clear();
            u.reap(1, &mut out).unwrap();
            assert_eq!(out, vec![Completion { slot: 1, res: 8192 }]);
            assert!(u.buf(1, 8192) == &pattern[..], "{setting:?}: bytes differ");
        }
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096 + 8192);
    }

    /// With DEFER_TASKRUN an O_DIRECT read's completion waits as task work until this thread
    /// enters the kernel: nothing is posted (`ready` stays 0), yet `waiting` says a reap of
    /// one returns without waiting for the device, and that reap hands back the read.
    #[test]
    fn deferred_completions_are_seen_before_they_are_posted() {
        use std::os::unix::fs::OpenOptionsExt;
        let Some((_dir, path)) = scratch("d") else { return };
        std::fs::write(&path, vec![0x5au8; 64 << 10]).unwrap();
        std::fs::File::open(&path).unwrap().sync_all().unwrap();
        let f =
            match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(&path) {
                Ok(f) => f,
                Err(e) => return println!("skipped: O_DIRECT refused here ({e})"),
            };
        let file = EngineFile::dup(&f, false, &path).unwrap();
        let mut u = Uring::new(&EngineConfig::new(4, 4096, vec![file])).unwrap();
        if !u.defer_taskrun {
            return println!("skipped: the kernel refused DEFER_TASKRUN");
        }
        assert!(!u.waiting(), "nothing submitted, yet waiting");
        let mut out = Vec::new();
        for i in 0..16u64 {
            let op = IoOp { slot: 0, kind: OpKind::Read, file: 0, offset: i * 4096, len: 4096 };
            assert!(matches!(u.queue(op).unwrap(), Queued::Queued));
            assert_eq!(u.commit().unwrap(), 1);
            if u.ready() > 0 {
                // Completed within the submission: posted at once, nothing deferred.
                out.clear();
                u.reap(1, &mut out).unwrap();
                continue;
            }
            let t = std::time::Instant::now();
            while !u.waiting() && t.elapsed() < std::time::Duration::from_secs(5) {
                std::hint::spin_loop();
            }
            assert!(u.waiting(), "read {i}: no completion seen in 5 s");
            assert_eq!(u.ready(), 0, "read {i}: posted without an enter");
            out.clear();
            u.reap(1, &mut out).unwrap();
            assert_eq!(out, vec![Completion { slot: 0, res: 4096 }]);
            assert!(u.buf(0, 4096).iter().all(|&b| b == 0x5a));
            assert!(!u.waiting(), "read {i}: still waiting after its reap");
            return;
        }
        println!("skipped: every O_DIRECT read completed within its submission here");
    }
}
