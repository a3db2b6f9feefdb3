//! `ioengine=libaio`: Linux native AIO through the raw syscalls `io_setup`, `io_submit`,
//! `io_getevents`, `io_destroy` (fio engines/libaio.c, without linking libaio).
//!
//! The control block is written out here from the kernel's include/uapi/linux/aio_abi.h
//! (little-endian layout, 64 bytes): `aio_data`, `aio_key`, `aio_rw_flags`, `aio_lio_opcode`,
//! `aio_reqprio`, `aio_fildes`, `aio_buf`, `aio_nbytes`, `aio_offset`, `aio_reserved2`,
//! `aio_flags`, `aio_resfd`; `io_event` is `{data, obj, res, res2}` (32 bytes).
//! As in fio, trim has no AIO opcode and runs synchronously in `queue`. With buffered I/O
//! (direct=0) the kernel completes `io_submit` synchronously, so the achieved depth is ~1:
//! the IO depths histogram shows it.

use super::{
    trim_sync, Caps, Completion, EngineConfig, EngineFile, IoEngine, IoOp, OpKind, Queued,
};
use crate::buf::BufPool;
use crate::error::{last_os_error, EngineError};

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;

/// `struct iocb` from aio_abi.h (little-endian field order of `aio_key`/`aio_rw_flags`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event` from aio_abi.h.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

pub struct Libaio {
    ctx: libc::c_ulong,
    pool: BufPool,
    files: Vec<EngineFile>,
    /// One control block per slot; the kernel reads it during `io_submit`.
    iocbs: Vec<Iocb>,
    /// Slots queued since the last commit.
    pending: Vec<u32>,
    /// Completions fetched while `commit` had to wait for room (EAGAIN); `reap` returns them.
    stash: Vec<Completion>,
    events: Vec<IoEvent>,
    in_flight: u32,
}

/// A sysctl under /proc/sys/fs, for the hint.
fn fs_sysctl(name: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/sys/fs/{name}")).ok()?.trim().parse().ok()
}

/// A failed `io_setup(depth)` with the hint that names its cause (fs/aio.c `ioctx_alloc`:
/// EAGAIN when `aio-nr` + the request would pass `fs.aio-max-nr`, EINVAL for a depth the
/// kernel refuses outright).
pub fn setup_error(e: std::io::Error, depth: u32) -> EngineError {
    let (max, used) = (fs_sysctl("aio-max-nr"), fs_sysctl("aio-nr"));
    let show = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    let hint = match e.raw_os_error() {
        Some(libc::EAGAIN) => format!(
            "; the system-wide AIO limit is exhausted: iodepth={depth} needs {depth} events, \
             fs.aio-nr={} are in use of fs.aio-max-nr={} (raise it: sysctl -w \
             fs.aio-max-nr=N, or lower iodepth/numjobs)",
            show(used),
            show(max)
        ),
        Some(libc::EINVAL) => format!(
            "; io_setup refused iodepth={depth} (the kernel caps one context's events; \
             fs.aio-max-nr={}): use a smaller iodepth",
            show(max)
        ),
        _ => String::new(),
    };
    EngineError::Io { path: "ioengine=libaio".into(), op: "io_setup", source: e, hint }
}

impl Libaio {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the context id into `ctx`, a valid u64 initialised to 0 as
        // the syscall requires.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, cfg.depth as libc::c_long, &mut ctx) };
        if r < 0 {
            return Err(setup_error(last_os_error(), cfg.depth));
        }
        let depth = cfg.depth as usize;
        Ok(Box::new(Libaio {
            ctx,
            pool: BufPool::try_new(depth, cfg.slot_size, 4096, "libaio")?,
            files: cfg.files.clone(),
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            stash: Vec::new(),
            // io_getevents' max_nr is the events array: `iodepth_batch_complete_max` caps it.
            events: vec![
                IoEvent::default();
                if cfg.reap_max == 0 { depth } else { depth.min(cfg.reap_max as usize) }
            ],
            in_flight: 0,
        }))
    }

    /// io_getevents for between `min` and `depth` events, appended to `out`.
    fn getevents(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let min = min.min(self.in_flight).min(self.events.len() as u32);
        loop {
            let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            let timeout: *const libc::timespec = if min == 0 { &zero } else { std::ptr::null() };
            // SAFETY: `events` holds `events.len()` io_event slots the kernel may fill;
            // timeout is null (block) or points to a live timespec.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    self.events.len() as libc::c_long,
                    self.events.as_mut_ptr(),
                    timeout,
                )
            };
            if r < 0 {
                let e = last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(EngineError::engine("libaio", "io_getevents", e));
            }
            for ev in &self.events[..r as usize] {
                out.push(Completion { slot: ev.data as u32, res: ev.res });
            }
            self.in_flight -= r as u32;
            return Ok(());
        }
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        // SAFETY: destroys the context created in `boxed`; it cancels or waits for any
        // in-flight iocbs before returning, so no buffer is used after we free the pool.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

impl IoEngine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn caps(&self) -> Caps {
        Caps { sync: false, no_io: false, trim: true, fsync: true, max_depth: 65536 }
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
        let fd = file.raw() as u32;
        let buf = self.pool.slot_ptr(op.slot as usize) as u64;
        // The kernel's aio_fsync() rejects a sync iocb whose buf, offset or nbytes is set.
        let (opcode, nbytes, buf, offset) = match op.kind {
            OpKind::Read => (IOCB_CMD_PREAD, op.len, buf, op.offset as i64),
            OpKind::Write => (IOCB_CMD_PWRITE, op.len, buf, op.offset as i64),
            OpKind::Fsync => (IOCB_CMD_FSYNC, 0, 0, 0),
            _ => (IOCB_CMD_FDSYNC, 0, 0, 0),
        };
        self.iocbs[op.slot as usize] = Iocb {
            aio_data: op.slot as u64,
            aio_lio_opcode: opcode,
            aio_fildes: fd,
            aio_buf: buf,
            aio_nbytes: nbytes.min(self.pool.slot_size() as u64),
            aio_offset: offset,
            ..Iocb::default()
        };
        self.pending.push(op.slot);
        Ok(Queued::Queued)
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        let total = self.pending.len();
        let mut ptrs: Vec<*mut Iocb> =
            self.pending.iter().map(|&s| &mut self.iocbs[s as usize] as *mut Iocb).collect();
        let mut done = 0;
        while done < ptrs.len() {
            // SAFETY: each pointer addresses an Iocb in `self.iocbs`, which is neither moved
            // nor resized while the engine lives; the buffers they name are pool slots owned
            // by in-flight units.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    (ptrs.len() - done) as libc::c_long,
                    ptrs[done..].as_mut_ptr(),
                )
            };
            if r < 0 {
                let e = last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::EAGAIN) if self.in_flight > 0 => {
                        let mut got = std::mem::take(&mut self.stash);
                        self.getevents(1, &mut got)?;
                        self.stash = got;
                        continue;
                    }
                    _ => return Err(EngineError::engine("libaio", "io_submit", e)),
                }
            }
            done += r as usize;
            self.in_flight += r as u32;
        }
        self.pending.clear();
        Ok(total)
    }

    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let stashed = self.stash.len() as u32;
        out.append(&mut self.stash);
        if self.in_flight == 0 {
            return Ok(());
        }
        self.getevents(min.saturating_sub(stashed), out)
    }
}
