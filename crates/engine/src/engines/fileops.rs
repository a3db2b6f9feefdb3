//! The file- and directory-operation engines, fio's engines/fileoperations.c: `filecreate`
//! (`open(O_CREAT|O_RDWR, 0600)`), `filestat` (`stat`/`lstat`/`statx` by `stat_type`),
//! `filedelete` (`unlink`), and fio 3.34's `dircreate` (`mkdir(S_IFDIR)`, as fio's
//! `fio_mkdir` call leaves the directory with no permission bits), `dirstat` and `dirdelete`
//! (`rmdir`). The operation is fio's `->open_file` hook, timed per file and recorded as a
//! completion-latency sample of the job's direction (read when the job reads, else write);
//! the units themselves move nothing and complete at once with their length (`FIO_FAKEIO`),
//! so fio's `total_ios` is the job's I/O count while the latencies are the operations'
//! (`FIO_NOSTATS`). `dirstat` and `dirdelete` make their directories at set-up (fio's
//! `setup_dirs`), before the clock starts; `filecreate` and the directory engines open no
//! target (`FIO_DISKLESSIO`). The file engines work on files only, as fio's ("only files are
//! supported"), asked of the gate (`iolab_core::gate`, intent file operation).

use super::{Caps, Completion, EngineConfig, IoEngine, IoOp, OpKind, Queued};
use crate::buf::BufPool;
use crate::error::EngineError;
use iolab_core::{IoDir, Nanos};
use iolab_job::StatType;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Which operation the engine times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    CreateFile,
    Stat,
    DeleteFile,
    CreateDir,
    DeleteDir,
}

pub struct FileOps {
    name: &'static str,
    op: Op,
    stat_type: StatType,
    dir: IoDir,
    pool: BufPool,
    paths: Vec<PathBuf>,
}

impl FileOps {
    fn boxed(
        cfg: &EngineConfig,
        name: &'static str,
        op: Op,
        dirs: bool,
    ) -> Result<Box<dyn IoEngine>, EngineError> {
        let pool = BufPool::try_new(1, cfg.slot_size, 4096, name)?;
        if !dirs {
            cfg.paths.iter().try_for_each(|p| only_files(name, p))?;
        }
        if dirs && op != Op::CreateDir {
            for p in &cfg.paths {
                setup_dir(p)?;
            }
        }
        let paths = cfg.paths.clone();
        let dir = if cfg.reads { IoDir::Read } else { IoDir::Write };
        Ok(Box::new(FileOps { name, op, stat_type: cfg.stat_type, dir, pool, paths }))
    }

    pub fn filecreate(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "filecreate", Op::CreateFile, false)
    }

    pub fn filestat(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "filestat", Op::Stat, false)
    }

    pub fn filedelete(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "filedelete", Op::DeleteFile, false)
    }

    pub fn dircreate(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "dircreate", Op::CreateDir, true)
    }

    pub fn dirstat(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "dirstat", Op::Stat, true)
    }

    pub fn dirdelete(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        Self::boxed(cfg, "dirdelete", Op::DeleteDir, true)
    }

    /// The operation on `path`; 0 or an errno.
    fn run(&self, path: &CString) -> Result<(), i32> {
        let p = path.as_ptr();
        // SAFETY: `p` is a NUL-terminated path that lives for the call; the stat buffers are
        // plain structs the kernel fills.
        let r = unsafe {
            match (self.op, self.stat_type) {
                (Op::CreateFile, _) => {
                    let fd = libc::open(p, libc::O_CREAT | libc::O_RDWR | libc::O_CLOEXEC, 0o600);
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    fd
                }
                (Op::Stat, StatType::Stat) => libc::stat(p, &mut std::mem::zeroed()),
                (Op::Stat, StatType::Lstat) => libc::lstat(p, &mut std::mem::zeroed()),
                (Op::Stat, StatType::Statx) => {
                    let mut sx: libc::statx = std::mem::zeroed();
                    libc::statx(libc::AT_FDCWD, p, 0, libc::STATX_ALL, &mut sx)
                }
                (Op::DeleteFile, _) => libc::unlink(p),
                (Op::CreateDir, _) => libc::mkdir(p, libc::S_IFDIR),
                (Op::DeleteDir, _) => libc::rmdir(p),
            }
        };
        if r < 0 {
            Err(crate::error::last_os_error().raw_os_error().unwrap_or(libc::EIO))
        } else {
            Ok(())
        }
    }
}

/// fio's fileoperations.c refuses anything but a file (`filetype != FIO_TYPE_FILE`: "only
/// files are supported"), before the operation: `filedelete` on `/dev/loopN` would unlink the
/// node. The gate classifies the path (a missing one is a file to create, except under /dev).
fn only_files(engine: &'static str, p: &Path) -> Result<(), EngineError> {
    let refused = |e: iolab_core::gate::GateError| {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, e.reason());
        EngineError::io(p, engine, e)
    };
    iolab_core::gate::check(p, iolab_core::gate::Intent::FileOp).map(|_| ()).map_err(refused)
}

/// fio's `setup_dirs`: make the directory (0700), an existing one is fine.
fn setup_dir(p: &Path) -> Result<(), EngineError> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(p) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            Err(EngineError::io(p, "mkdir", e))
        }
        _ => Ok(()),
    }
}

impl IoEngine for FileOps {
    fn name(&self) -> &'static str {
        self.name
    }

    fn caps(&self) -> Caps {
        Caps { sync: true, no_io: true, trim: true, fsync: true, max_depth: 1 }
    }

    fn pool(&mut self) -> &mut BufPool {
        &mut self.pool
    }

    /// fio's `queue_io`: nothing is done; a data unit completes with its length.
    fn queue(&mut self, op: IoOp) -> Result<Queued, EngineError> {
        let res = match op.kind {
            OpKind::Fsync | OpKind::Fdatasync => 0,
            _ => op.len as i64,
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

    fn file_ops(&self) -> bool {
        true
    }

    fn open_file(&mut self, file: u32) -> Option<Result<(IoDir, Nanos), i32>> {
        let Some(path) = self.paths.get(file as usize) else {
            return Some(Err(libc::EBADF));
        };
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
            return Some(Err(libc::EINVAL));
        };
        let t = std::time::Instant::now();
        let r = self.run(&c);
        Some(r.map(|()| (self.dir, Nanos(t.elapsed().as_nanos() as u64))))
    }
}
