//! The `IoEngine` trait (fio's `struct ioengine_ops`: `queue`, `commit`, `getevents`/`event`
//! folded into `reap`) and the one table that maps `ioengine=` names to constructors
//! (fio's ioengines.c `load_ioengine`).
//!
//! Semantics follow fio's: `queue` either completes the unit at once (`FIO_Q_COMPLETED`, sync
//! engines), accepts it for a later `commit` (`FIO_Q_QUEUED`), or refuses it until completions
//! are reaped (`FIO_Q_BUSY`). Engines own the buffer pool so io_uring can register it
//! (`fixedbufs`) and the worker never hands raw pointers across the trait.

pub mod cpuio;
pub mod exec;
pub mod falloc;
pub mod fileops;
pub mod ftruncate;
pub mod libaio;
pub mod mmap;
pub mod null;
pub mod posixaio;
pub mod psync;
pub mod pvsync2;
pub mod splice;
pub mod sync;
pub mod syncio;
pub mod uring;

use crate::buf::BufPool;
use crate::error::EngineError;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

/// What one I/O unit does. `Fsync`/`Fdatasync` are separate units, as fio issues them for
/// `fsync=N`/`fdatasync=N` (io_u.c `get_rw_ddir`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Trim,
    Fsync,
    Fdatasync,
}

/// One I/O unit handed to an engine: buffer slot, target file (index into the engine's
/// file table), byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoOp {
    pub slot: u32,
    pub kind: OpKind,
    pub file: u32,
    pub offset: u64,
    pub len: u64,
}

/// A finished unit: its slot and the result (bytes transferred, or `-errno`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub res: i64,
}

/// What `queue` did with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    /// Done already (sync engines); the value is bytes or `-errno`.
    Completed(i64),
    /// Accepted; it will be submitted by `commit` and come back from `reap`.
    Queued,
    /// Not accepted: reap completions, then queue it again.
    Busy,
}

/// What an engine can do (fio's `FIO_SYNCIO`, `FIO_NOIO`, `FIO_MEMALIGN` flags and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Completes in `queue`; depth is capped at 1 (newer fio caps and warns).
    pub sync: bool,
    /// Transfers no data (`null`).
    pub no_io: bool,
    pub trim: bool,
    pub fsync: bool,
    /// Largest useful depth (1 for sync engines).
    pub max_depth: u32,
}

/// A file the engine may address: its descriptor, whether it is a block device (trim uses
/// BLKDISCARD there; a regular file answers ENOTTY, as in fio) and its path for error
/// messages.
///
/// The descriptor is owned (a `dup` of the caller's, shared by the engine's clones of this
/// value), so the file cannot close under an engine whatever the caller does with its own
/// handle: the kernel keeps the open file alive until the last engine holding it is dropped.
#[derive(Clone, Debug)]
pub struct EngineFile {
    pub fd: Arc<OwnedFd>,
    pub is_block: bool,
    pub path: std::path::PathBuf,
}

impl EngineFile {
    /// An engine's own descriptor for `file` (`dup(2)`, so the caller's handle may close).
    pub fn dup(
        file: &impl AsFd,
        is_block: bool,
        path: impl Into<std::path::PathBuf>,
    ) -> Result<Self, EngineError> {
        let path = path.into();
        let fd = file.as_fd().try_clone_to_owned().map_err(|e| EngineError::io(&path, "dup", e))?;
        Ok(EngineFile { fd: Arc::new(fd), is_block, path })
    }

    /// The descriptor for a syscall; valid as long as `self` is.
    #[inline]
    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Everything an engine needs at construction. Engine-specific fio options (`fixedbufs`,
/// `registerfiles`, `hipri`, `userspace_reap`) are plain fields here, resolved by the caller.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub depth: u32,
    /// Largest block size; each slot of the pool holds one.
    pub slot_size: usize,
    pub files: Vec<EngineFile>,
    /// io_uring: register the buffer pool and use READ_FIXED/WRITE_FIXED. `None` (the job did
    /// not say): try, and run without (with a note) if refused; `Some(true)`: refusal is an
    /// error (fio's behaviour); `Some(false)`: do not register.
    pub fixedbufs: Option<bool>,
    /// io_uring: register the files and address them by index (same three cases).
    pub registerfiles: Option<bool>,
    /// io_uring: IORING_SETUP_SQPOLL (kernel thread submits; costs a CPU).
    pub sqthread_poll: bool,
    /// `iodepth_batch_complete_max`: most completions one reap returns (0: no limit).
    pub reap_max: u32,
    /// pvsync2: `hipri` (RWF_HIPRI on every call).
    pub hipri: bool,
    /// pvsync2: `uncached` (RWF_DONTCACHE, fio's RWF_UNCACHED).
    pub uncached: bool,
    /// The job's file names, in file-index order (the file-operation engines work on names;
    /// the diskless ones have no [`EngineFile`]).
    pub paths: Vec<std::path::PathBuf>,
    /// filestat/dirstat: `stat_type`.
    pub stat_type: iolab_job::StatType,
    /// exec: the program and its options.
    pub exec: Option<exec::ExecConfig>,
    /// cpuio: `cpuload` (percent of a CPU), `cpuchunks` (µs), `cpumode=qsort`.
    pub cpuload: u32,
    pub cpuchunks: u64,
    pub cpu_qsort: bool,
    /// The job reads (fio's `td_read`): the file-operation engines record their samples as
    /// reads then, else as writes.
    pub reads: bool,
}

impl EngineConfig {
    pub fn new(depth: u32, slot_size: usize, files: Vec<EngineFile>) -> Self {
        EngineConfig {
            depth: depth.max(1),
            slot_size,
            files,
            fixedbufs: None,
            registerfiles: None,
            sqthread_poll: false,
            reap_max: 0,
            hipri: false,
            uncached: false,
            paths: Vec::new(),
            stat_type: iolab_job::StatType::Stat,
            reads: false,
            cpuload: 0,
            cpuchunks: 50_000,
            cpu_qsort: false,
            exec: None,
        }
    }
}

/// fio's engine operations. Implementations are driven by one worker thread.
pub trait IoEngine: Send {
    fn name(&self) -> &'static str;
    fn caps(&self) -> Caps;
    /// The buffer pool; slot `i` belongs to the unit with `slot == i` while it is in flight.
    fn pool(&mut self) -> &mut BufPool;
    /// Queue one unit (see [`Queued`]). The slot's buffer must not be touched until the unit
    /// completes.
    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError>;
    /// Submit everything queued since the last commit. Returns how many went to the kernel.
    fn commit(&mut self) -> Result<usize, EngineError>;
    /// Append at least `min` completions (fewer only when fewer are in flight) to `out`, and
    /// at most [`EngineConfig::reap_max`] when that is set (fio `iodepth_batch_complete_max`,
    /// io_getevents' `max_nr`); `min == 0` polls.
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError>;

    /// Completions that `reap` can hand back without entering the kernel (0 when unknown).
    fn ready(&mut self) -> u32 {
        0
    }

    /// Whether a `reap` of one would return without waiting for the device: completions are
    /// posted ([`IoEngine::ready`]) or the kernel holds some it posts on the next entry.
    fn waiting(&mut self) -> bool {
        self.ready() > 0
    }

    /// Set-up choices worth a note in the result (an optimisation the kernel refused).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the engine's work is a file operation in [`IoEngine::open_file`] (fio's
    /// `FIO_FAKEIO | FIO_NOSTATS` engines): its units then carry no latency of their own.
    fn file_ops(&self) -> bool {
        false
    }

    /// fio's `->open_file` hook, run when a pass over the files first addresses file `file`
    /// (each `loops` iteration opens every file again): the time the operation took, or the
    /// errno it failed with, and the direction whose latencies it joins. `None`: the engine
    /// has no such hook.
    fn open_file(
        &mut self,
        _file: u32,
    ) -> Option<Result<(iolab_core::IoDir, iolab_core::Nanos), i32>> {
        None
    }

    /// The slot's buffer, `len` bytes.
    fn buf(&mut self, slot: u32, len: usize) -> &mut [u8] {
        self.pool().slot_mut(slot as usize, len)
    }

    /// The null engine as its own type, so the worker loop can be monomorphised for it: its
    /// whole per-I/O cost is the loop's, and a call through the vtable per queue/commit/reap
    /// is a measurable share of it (`benches/null_engine.rs`, dyn vs concrete).
    fn as_null(&mut self) -> Option<&mut null::Null> {
        None
    }
}

/// One entry of the engine table.
pub struct EngineEntry {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub help: &'static str,
    pub ctor: fn(&EngineConfig) -> Result<Box<dyn IoEngine>, EngineError>,
}

/// The constructor table, keyed by name into the engine facts (`iolab_job::engines`: sync or
/// queued, diskless, dataless, file operations, refusals): adding an engine is one file, one
/// line here and its row there.
pub const ENGINES: &[EngineEntry] = &[
    EngineEntry {
        name: "io_uring",
        aliases: &[],
        help: "Linux io_uring (registered files and buffers by default, sqthread_poll; COOP/DEFER_TASKRUN as fio 3.33)",
        ctor: uring::Uring::boxed,
    },
    EngineEntry {
        name: "libaio",
        aliases: &[],
        help: "Linux native AIO (io_submit/io_getevents); async only with direct=1",
        ctor: libaio::Libaio::boxed,
    },
    EngineEntry {
        name: "psync",
        aliases: &[],
        help: "pread/pwrite, depth 1 (fio's default engine)",
        ctor: psync::Psync::boxed_psync,
    },
    EngineEntry {
        name: "pvsync",
        aliases: &["vsync"],
        help: "preadv/pwritev with one iovec, depth 1",
        ctor: psync::Psync::boxed_pvsync,
    },
    EngineEntry {
        name: "pvsync2",
        aliases: &[],
        help: "preadv2/pwritev2 with RWF_HIPRI (hipri) and RWF_DONTCACHE (uncached), depth 1",
        ctor: pvsync2::Pvsync2::boxed,
    },
    EngineEntry {
        name: "posixaio",
        aliases: &[],
        help: "POSIX AIO (glibc aio_read/aio_write, aio_suspend), async to iodepth",
        ctor: posixaio::PosixAio::boxed,
    },
    EngineEntry {
        name: "mmap",
        aliases: &[],
        help: "memcpy to and from a shared mapping of the file; msync for fsync, depth 1",
        ctor: mmap::Mmap::boxed,
    },
    EngineEntry {
        name: "falloc",
        aliases: &[],
        help: "fallocate() per I/O: read keeps the size, write allocates, trim punches; no data",
        ctor: falloc::Falloc::boxed,
    },
    EngineEntry {
        name: "ftruncate",
        aliases: &[],
        help: "ftruncate(offset) per write; other directions fail with EINVAL; no data",
        ctor: ftruncate::Ftruncate::boxed,
    },
    EngineEntry {
        name: "filecreate",
        aliases: &[],
        help: "open(O_CREAT) per file, timed as its latency; no data",
        ctor: fileops::FileOps::filecreate,
    },
    EngineEntry {
        name: "filestat",
        aliases: &[],
        help: "stat/lstat/statx (stat_type) per file, timed as its latency; no data",
        ctor: fileops::FileOps::filestat,
    },
    EngineEntry {
        name: "filedelete",
        aliases: &[],
        help: "unlink() per file, timed as its latency; no data",
        ctor: fileops::FileOps::filedelete,
    },
    EngineEntry {
        name: "dircreate",
        aliases: &[],
        help: "mkdir() per directory, timed as its latency; no data (fio 3.34)",
        ctor: fileops::FileOps::dircreate,
    },
    EngineEntry {
        name: "dirstat",
        aliases: &[],
        help: "stat/lstat/statx (stat_type) per directory, timed; no data (fio 3.34)",
        ctor: fileops::FileOps::dirstat,
    },
    EngineEntry {
        name: "dirdelete",
        aliases: &[],
        help: "rmdir() per directory, timed as its latency; no data (fio 3.34)",
        ctor: fileops::FileOps::dirdelete,
    },
    EngineEntry {
        name: "cpuio",
        aliases: &[],
        help: "burns cpuload % of a CPU in cpuchunks (noop spin or qsort); no I/O",
        ctor: cpuio::Cpuio::boxed,
    },
    EngineEntry {
        name: "exec",
        aliases: &[],
        help: "runs program (arguments with %r, %n) for the runtime; its exit status is a note",
        ctor: exec::Exec::boxed,
    },
    EngineEntry {
        name: "splice",
        aliases: &[],
        help: "splice()/vmsplice() through a pipe, as fio's splice engine, depth 1",
        ctor: splice::Splice::boxed,
    },
    EngineEntry {
        name: "sync",
        aliases: &[],
        help: "lseek + read/write, depth 1",
        ctor: sync::SyncIo::boxed,
    },
    EngineEntry {
        name: "null",
        aliases: &[],
        help: "transfers nothing and completes at once; measures iolab's own overhead",
        ctor: null::Null::boxed,
    },
];

/// The table entry for `ioengine=name` (or an alias); a refused engine names its reason.
pub fn lookup(name: &str) -> Result<&'static EngineEntry, EngineError> {
    if let Some(why) = iolab_job::engines::facts(name).and_then(|f| f.refused) {
        return Err(EngineError::RefusedEngine { name: name.to_string(), reason: why });
    }
    ENGINES.iter().find(|e| e.name == name || e.aliases.contains(&name)).ok_or_else(|| {
        EngineError::UnknownEngine {
            name: name.to_string(),
            known: ENGINES.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
        }
    })
}

/// The negated errno of the last failed libc call.
pub(crate) fn neg_errno() -> i64 {
    -(crate::error::last_os_error().raw_os_error().unwrap_or(libc::EIO) as i64)
}

/// Trim synchronously: what fio 3.33's `os_trim` does on Linux, the BLKDISCARD ioctl on the
/// file's descriptor. A block device discards the range; a regular file does not answer the
/// ioctl (ENOTTY, fio's err=25) and is left untouched (punching holes into a user's file is
/// the `falloc` engine's trim, not a plain `rw=trim`). Returns bytes trimmed or `-errno`.
pub(crate) fn trim_sync(file: &EngineFile, offset: u64, len: u64) -> i64 {
    if !file.is_block {
        return -i64::from(libc::ENOTTY);
    }
    let range: [u64; 2] = [offset, len];
    // SAFETY: BLKDISCARD reads a [u64; 2] {start, length} from the pointer, which is valid for
    // the duration of the call.
    let r = unsafe { libc::ioctl(file.raw(), crate::target::BLKDISCARD as _, range.as_ptr()) };
    if r < 0 {
        return neg_errno();
    }
    len as i64
}

/// fsync or fdatasync; 0 or `-errno`.
pub(crate) fn sync_file(fd: RawFd, data_only: bool) -> i64 {
    // SAFETY: plain syscalls on an fd.
    let r = unsafe {
        if data_only {
            libc::fdatasync(fd)
        } else {
            libc::fsync(fd)
        }
    };
    if r < 0 {
        neg_errno()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_job::engines as facts;

    #[test]
    fn every_engine_fact_has_a_constructor_or_its_refusal() {
        for f in facts::ENGINES {
            match (f.refused, lookup(f.name)) {
                (Some(why), Err(EngineError::RefusedEngine { reason, .. })) => {
                    assert_eq!(reason, why)
                }
                (None, Ok(e)) => assert!(e.name == f.name || e.aliases.contains(&f.name)),
                (why, got) => {
                    panic!("{}: refused {why:?}, lookup {:?}", f.name, got.map(|e| e.name))
                }
            }
        }
        for e in ENGINES {
            for name in std::iter::once(&e.name).chain(e.aliases) {
                let row = facts::facts(name);
                assert!(row.is_some_and(|r| r.refused.is_none()), "{name}: no runnable fact row");
            }
        }
    }
}
