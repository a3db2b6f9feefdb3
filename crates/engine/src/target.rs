//! Opening what a job does I/O on (classified once by the gate, `iolab_core::gate`): regular
//! files (created and laid out like fio's
//! filesetup.c `extend_file`/`setup_files`) and block devices (size via BLKGETSIZE64,
//! [`safety::check_block_write`] before writes), and dropping their page cache (`file_invalidate_cache`,
//! filesetup.c l.572–645: posix_fadvise DONTNEED on files, BLKFLSBUF on devices, a warning
//! only when it fails).

use crate::error::EngineError;
use crate::safety;
use iolab_core::gate;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// `_IOR(0x12, 114, size_t)`: device size in bytes.
pub const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
/// `_IO(0x12, 97)`: flush the device's buffer cache (root only).
pub const BLKFLSBUF: libc::c_ulong = 0x1261;
/// `_IO(0x12, 119)`: discard a byte range.
pub const BLKDISCARD: libc::c_ulong = 0x1277;

/// What the job will do to one target.
#[derive(Clone, Debug)]
pub struct TargetSpec {
    pub path: PathBuf,
    /// Bytes the job addresses: `offset + size` of its region.
    pub needed: u64,
    pub reads: bool,
    pub writes: bool,
    pub direct: bool,
    /// `sync=sync|dsync`: O_SYNC / O_DSYNC.
    pub sync_flags: i32,
    /// Writes to a device carrying data are allowed (`--allow-destroy`).
    pub allow_destroy: bool,
    /// Writes to a device in use (mounted, swap, held, claimed) are allowed: fio's
    /// `allow_mounted_write=1`, and nothing else.
    pub allow_mounted_write: bool,
    /// Lay out (write) a new or short file before the job, as fio does before reads.
    pub layout: bool,
    /// An earlier clone of the job created this file in this run: a reading clone extends
    /// it as fio does (`numjobs` with `offset_increment` on a new file), where a file the
    /// user had is never extended by a read-only job.
    pub grow_own: bool,
}

/// An open target.
#[derive(Debug)]
pub struct Target {
    pub file: File,
    pub path: PathBuf,
    pub is_block: bool,
    /// Size in bytes after setup (file length or device capacity).
    pub size: u64,
    /// iolab created this file (so it may be removed with `unlink=1`).
    pub created: bool,
    /// Notes for the run report (fallbacks, invalidation failures).
    pub notes: Vec<String>,
}

/// The filesystem holding `path`, for error messages: ` (tmpfs)`, or the raw `f_type`.
/// The magic table is iolab-stats' (`topology::fs_name`), shared with the topology report.
fn fs_name(path: &Path) -> String {
    use iolab_stats::topology;
    let dir = if path.is_dir() { path } else { path.parent().unwrap_or(Path::new(".")) };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    match topology::statfs_magic(dir) {
        None => String::new(),
        Some(m) => match topology::fs_name(m) {
            Some(name) => format!(" ({name})"),
            None => format!(" (statfs f_type {m:#x})"),
        },
    }
}

/// Whether `dir` supports O_DIRECT: open a scratch file there with O_DIRECT and read one
/// aligned block (tmpfs fails the open with EINVAL; some FUSE filesystems fail the read).
pub fn direct_supported(dir: &Path) -> bool {
    let Ok(tmp) = tempfile::Builder::new().prefix(".iolab-odirect").tempfile_in(dir) else {
        return false;
    };
    if tmp.as_file().set_len(4096).is_err() {
        return false;
    }
    let f = OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(tmp.path());
    let Ok(f) = f else { return false };
    let mut b = crate::buf::AlignedBuf::new(4096, 4096);
    std::os::unix::fs::FileExt::read_at(&f, b.as_mut_slice(), 0).is_ok()
}

/// Open (and if needed create and lay out) one target. `fill` writes the job's data pattern
/// for the layout: `fill(buf, offset)`.
pub fn open_target(
    spec: &TargetSpec,
    fill: &mut dyn FnMut(&mut [u8], u64),
) -> Result<Target, EngineError> {
    let path = &spec.path;
    let c = gate::classify(path).map_err(|e| gate_error(path, e))?;
    if c.kind == gate::Kind::Block {
        return open_block(spec);
    }
    let intent = match spec.writes {
        true => gate::Intent::TargetWrite { allow_mounted_write: spec.allow_mounted_write },
        false => gate::Intent::TargetRead,
    };
    gate::check_classified(&c, intent).map_err(|e| gate_error(path, e))?;
    let meta = std::fs::metadata(path).ok();
    if c.kind != gate::Kind::Regular && c.kind != gate::Kind::Missing {
        let why = format!("is a {}; expected a regular file or block device", c.kind.name());
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
        return Err(EngineError::io(path, "open", e));
    }
    let cur = meta.as_ref().map(|m| m.len()).unwrap_or(0);
    let mut notes = Vec::new();
    let created = cur < spec.needed && extend_file(spec, meta.is_some(), cur, fill, &mut notes)?;
    let file = open_with(path, spec, true)?;
    let size = file.metadata().map_err(|e| EngineError::io(path, "stat", e))?.len();
    Ok(Target { file, path: path.clone(), is_block: false, size, created, notes })
}

/// The checks of [`open_target`] that write nothing, for a run's check of every clone's
/// targets before the first clone starts: the gate's refusals (a missing name under /dev, a
/// file or device in use), a node that is neither a file nor a block device, and for a
/// written block device the in-use and signature checks (`safety.rs`). Returns the device's
/// size in bytes for a block device, `None` for a file (created or extended later).
pub fn check_target(
    path: &Path,
    writes: bool,
    grant: safety::WriteGrant,
) -> Result<Option<u64>, EngineError> {
    let c = gate::classify(path).map_err(|e| gate_error(path, e))?;
    if c.kind == gate::Kind::Block {
        if writes {
            safety::check_block_write(path, grant)?;
        }
        let f = File::open(path).map_err(|e| EngineError::io(path, "open", e))?;
        return block_size(&f, path).map(Some);
    }
    let intent = match writes {
        true => gate::Intent::TargetWrite { allow_mounted_write: grant.allow_mounted_write },
        false => gate::Intent::TargetRead,
    };
    gate::check_classified(&c, intent).map_err(|e| gate_error(path, e))?;
    if c.kind != gate::Kind::Regular && c.kind != gate::Kind::Missing {
        let why = format!("is a {}; expected a regular file or block device", c.kind.name());
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
        return Err(EngineError::io(path, "open", e));
    }
    Ok(None)
}

/// The gate's refusal as the engine's error: a missing device name (a typo would otherwise
/// become a RAM-backed file in devtmpfs and a benchmark of memory), a file or device in use.
fn gate_error(path: &Path, e: gate::GateError) -> EngineError {
    match e {
        gate::GateError::MissingDevice { .. } => {
            EngineError::MissingDevice { path: path.to_path_buf() }
        }
        gate::GateError::InUse { reason, .. } => {
            EngineError::InUse { path: path.to_path_buf(), reason }
        }
        gate::GateError::Io { source, .. } => EngineError::io(path, "resolve", source),
        e => EngineError::io(
            path,
            "open",
            std::io::Error::new(std::io::ErrorKind::InvalidInput, e.reason()),
        ),
    }
}

/// A block device target: the write checks of `safety.rs` first, then its size against the
/// job's region.
fn open_block(spec: &TargetSpec) -> Result<Target, EngineError> {
    let path = &spec.path;
    let mut notes = Vec::new();
    if spec.writes {
        let grant = safety::WriteGrant {
            allow_destroy: spec.allow_destroy,
            allow_mounted_write: spec.allow_mounted_write,
        };
        notes.extend(safety::check_block_write(path, grant)?);
    }
    let file = open_with(path, spec, false)?;
    let size = block_size(&file, path)?;
    if spec.needed > size {
        return Err(EngineError::TooSmall {
            path: path.clone(),
            actual: size,
            needed: spec.needed,
        });
    }
    Ok(Target { file, path: path.clone(), is_block: true, size, created: false, notes })
}

/// Grow a regular file of `cur` bytes (or create it) to the job's region (fio filesetup.c
/// `extend_file`): laid out with the job's data when `spec.layout`, else truncated up.
/// Returns whether the file was created.
fn extend_file(
    spec: &TargetSpec,
    exists: bool,
    cur: u64,
    fill: &mut dyn FnMut(&mut [u8], u64),
    notes: &mut Vec<String>,
) -> Result<bool, EngineError> {
    let path = &spec.path;
    if spec.needed > i64::MAX as u64 {
        return Err(EngineError::io(
            path,
            "size",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the job's region ends at byte {} (offset+size), past the largest file \
                     Linux allows (2^63 - 1 bytes)",
                    spec.needed
                ),
            ),
        ));
    }
    if exists && !spec.writes && !spec.grow_own {
        // A read-only job never extends a file it did not create.
        return Err(EngineError::TooSmall { path: path.clone(), actual: cur, needed: spec.needed });
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.exists() {
            std::fs::create_dir_all(parent).map_err(|e| EngineError::io(parent, "mkdir", e))?;
        }
    }
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| EngineError::io(path, "create", e))?;
    if spec.layout {
        if let Err(e) = room_for(path, spec.needed - cur) {
            if !exists {
                // The empty file this call created goes with the refusal.
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
        lay_out(&f, path, cur, spec.needed, fill)?;
        notes.push(format!("{}: laid out {} bytes", path.display(), spec.needed - cur));
    } else {
        f.set_len(spec.needed).map_err(|e| EngineError::io(path, "ftruncate", e))?;
    }
    Ok(!exists)
}

/// Opens the target with the job's flags and `O_NOATIME`. fio adds `O_NOATIME` only for
/// devices (filesetup.c:745, `filetype != FIO_TYPE_FILE`); iolab adds it for regular files
/// too, as t/io_uring opens its file: the job's reads then leave the file's access time alone,
/// neither dirtying the inode nor paying the kernel's atime check per read (~70 ns an I/O).
/// The kernel allows it only to the file's owner or CAP_FOWNER; anyone else (EPERM) gets the
/// target opened without it, as fio retries.
fn open_with(path: &Path, spec: &TargetSpec, regular: bool) -> Result<File, EngineError> {
    let mut flags = spec.sync_flags;
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    let open =
        |flags| OpenOptions::new().read(true).write(spec.writes).custom_flags(flags).open(path);
    let mut r = open(flags | libc::O_NOATIME);
    if matches!(&r, Err(e) if e.raw_os_error() == Some(libc::EPERM)) {
        r = open(flags);
    }
    match r {
        Ok(f) => Ok(f),
        Err(e) if spec.direct && e.raw_os_error() == Some(libc::EINVAL) && regular => {
            Err(EngineError::DirectUnsupported { path: path.to_path_buf(), fs: fs_name(path) })
        }
        Err(e) => Err(EngineError::io(path, "open", e)),
    }
}

fn block_size(file: &File, path: &Path) -> Result<u64, EngineError> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size) };
    if r < 0 {
        return Err(EngineError::io(path, "ioctl(BLKGETSIZE64)", crate::error::last_os_error()));
    }
    Ok(size)
}

/// Refuses a layout of `bytes` more than the file's filesystem has free for this user
/// (`iolab_core::gate::scratch::free_bytes`), before the first write: a `size=1p` job on a
/// small filesystem would otherwise fill it until ENOSPC and then fail. fio does not check;
/// it fails at ENOSPC with the filesystem full.
fn room_for(path: &Path, bytes: u64) -> Result<(), EngineError> {
    let Some(free) = iolab_core::gate::scratch::free_bytes(path) else {
        return Ok(()); // No answer (some FUSE filesystems): the writes will tell.
    };
    if bytes <= free {
        return Ok(());
    }
    let why = format!(
        "laying out the job's region needs {bytes} more bytes, and the filesystem has {free} \
         free: nothing was written (lower size= or filesize=, or free space)"
    );
    Err(EngineError::io(path, "layout", std::io::Error::other(why)))
}

/// Write `[from, to)` with the job's data in 1 MiB chunks, then fsync (fio's `create_fsync`
/// default), like filesetup.c `extend_file`.
fn lay_out(
    f: &File,
    path: &Path,
    from: u64,
    to: u64,
    fill: &mut dyn FnMut(&mut [u8], u64),
) -> Result<(), EngineError> {
    use std::os::unix::fs::FileExt;
    const CHUNK: u64 = 1 << 20;
    let mut buf = vec![0u8; CHUNK as usize];
    let mut off = from;
    while off < to {
        if iolab_core::stop::requested() {
            let e = std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped by a signal");
            return Err(EngineError::io(path, "layout", e));
        }
        let n = (to - off).min(CHUNK) as usize;
        fill(&mut buf[..n], off);
        f.write_all_at(&buf[..n], off).map_err(|e| EngineError::io(path, "layout write", e))?;
        off += n as u64;
    }
    f.sync_all().map_err(|e| EngineError::io(path, "fsync after layout", e))
}

/// `iolab run --prefill`: write `[from, to)` of an opened target once, sequentially, in 1 MiB
/// chunks of the job's data, then fsync, so that the measured reads find written blocks
/// (never-written, thin-provisioned or trimmed regions read back as zeros at memory speed: fio
/// #719). A separate buffered handle is used because the target may be open with O_DIRECT.
pub fn prefill(
    t: &Target,
    from: u64,
    to: u64,
    fill: &mut dyn FnMut(&mut [u8], u64),
) -> Result<(), EngineError> {
    let f = OpenOptions::new()
        .write(true)
        .open(&t.path)
        .map_err(|e| EngineError::io(&t.path, "open for prefill", e))?;
    lay_out(&f, &t.path, from, to, fill)
}

/// `iolab replay`'s target: a file or device that the trace's requests (ending at byte
/// `max_end`) go to. A new regular file is created sparse (laying out a real trace's whole
/// address range is not what a user asked for) and the notes say so; an existing file or
/// device is used as it is, with the same safety checks as `iolab run` before writes
/// (there is no job, so no `allow_mounted_write`). `reads`: the trace has reads (the sparse
/// note concerns them).
pub fn open_replay_target(
    path: &Path,
    max_end: u64,
    reads: bool,
    writes: bool,
    direct: bool,
    allow_destroy: bool,
) -> Result<(Target, Vec<String>), EngineError> {
    let meta = std::fs::metadata(path).ok();
    let is_block = meta.as_ref().is_some_and(|m| m.file_type().is_block_device());
    let existing = match &meta {
        Some(_) if is_block => {
            let f = File::open(path).map_err(|e| EngineError::io(path, "open", e))?;
            block_size(&f, path)?
        }
        Some(m) => m.len(),
        None => 0,
    };
    let spec = TargetSpec {
        path: path.to_path_buf(),
        needed: if existing > 0 { existing.min(max_end).max(4096) } else { max_end },
        reads: true,
        writes,
        direct,
        sync_flags: 0,
        allow_destroy,
        allow_mounted_write: false,
        layout: false,
        grow_own: false,
    };
    let target = open_target(&spec, &mut |_, _| {})?;
    let mut notes = Vec::new();
    if target.created && reads {
        notes.push(format!(
            "{} was created sparse: reads of blocks the trace has not written return zeros \
             without device I/O; replay onto a written file or device for read latencies",
            path.display()
        ));
    }
    Ok((target, notes))
}

/// Drop the target's cached pages (fio `invalidate=1`). Returns a warning when the kernel
/// refuses; the run continues, as in fio.
pub fn invalidate(t: &Target) -> Option<String> {
    let fd = t.file.as_raw_fd();
    if t.is_block {
        // SAFETY: BLKFLSBUF takes no argument beyond the fd.
        let r = unsafe { libc::ioctl(fd, BLKFLSBUF as _, 0) };
        if r < 0 {
            return Some(format!(
                "{}: cache not flushed (BLKFLSBUF: {}); only root may flush block devices",
                t.path.display(),
                crate::error::last_os_error()
            ));
        }
        return None;
    }
    // SAFETY: posix_fadvise takes plain integers and an open fd.
    let r = unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Some(format!(
            "{}: page cache not dropped (posix_fadvise DONTNEED: {})",
            t.path.display(),
            std::io::Error::from_raw_os_error(r)
        ));
    }
    None
}

/// Descriptors kept free for what a clone opens beside its files (an io_uring ring or aio
/// context, a transient /proc or libblkid read); logs and results are written after the job
/// files are closed. It was 64, so no file job ran below `ulimit -n` 74 (reliability review
/// §7); at 4, psync, libaio and io_uring with logs and json+ ran under `ulimit -n` 14-32
/// wherever the check let them (no EMFILE in 27 combinations of limit, engine and numjobs).
const FD_SPARE: u64 = 4;

/// Makes room for `extra` more open descriptors: the soft `RLIMIT_NOFILE` is raised toward
/// the hard one when that is enough (as Go's runtime does at start-up); otherwise a one-line
/// error names the job, the count and both limits, before any file is created.
pub fn ensure_open_files(job: &str, extra: usize) -> Result<(), EngineError> {
    let open = std::fs::read_dir("/proc/self/fd").map(Iterator::count).unwrap_or(0) as u64;
    let need = open.saturating_add(extra as u64).saturating_add(FD_SPARE);
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 || need <= lim.rlim_cur {
        return Ok(());
    }
    if need <= lim.rlim_max {
        let raised = libc::rlimit { rlim_cur: need, rlim_max: lim.rlim_max };
        // SAFETY: setrlimit reads one rlimit; raising the soft limit up to the hard one needs
        // no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return Ok(());
        }
    }
    Err(EngineError::Job {
        job: job.to_string(),
        what: format!(
            "its files need {extra} open descriptors (each file is held open twice while the \
             job runs) beside {open} already open, above the open-file limit (soft {}, hard \
             {}; `ulimit -n`): use fewer files (nrfiles) or raise the limit",
            lim.rlim_cur, lim.rlim_max
        ),
    })
}

/// Kernel names of the block device a target lives on (its partition and the whole disk),
/// as fio's `disk_util` names them, through the one `/sys/dev/block` resolver.
pub fn disk_names(t: &Target) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = t.file.metadata() else { return Vec::new() };
    let dev = if t.is_block { m.rdev() } else { m.dev() };
    let (maj, min) = (iolab_stats::topology::dev_major(dev), iolab_stats::topology::dev_minor(dev));
    let Ok(node) = iolab_stats::topology::Resolver::default().device(maj, min) else {
        return Vec::new();
    };
    let mut names = vec![node.name.clone()];
    if node.kind == iolab_stats::topology::DevKind::Partition {
        names.extend(node.children.iter().map(|c| c.name.clone()));
    }
    names
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn spec(path: PathBuf, needed: u64, reads: bool, writes: bool) -> TargetSpec {
        TargetSpec {
            path,
            needed,
            reads,
            writes,
            direct: false,
            sync_flags: 0,
            allow_destroy: false,
            allow_mounted_write: false,
            layout: reads,
            grow_own: false,
        }
    }

    #[test]
    fn read_job_lays_out_new_file_with_job_data() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/f");
        let t = open_target(&spec(p.clone(), 3 << 20, true, false), &mut |b, off| {
            b.fill((off >> 20) as u8 + 1)
        })
        .unwrap();
        assert!(t.created);
        assert_eq!(t.size, 3 << 20);
        let data = std::fs::read(&p).unwrap();
        assert_eq!(data[0], 1);
        assert_eq!(data[(1 << 20) + 5], 2);
        assert_eq!(data[(3 << 20) - 1], 3);
    }

    #[test]
    fn write_job_extends_sparse_without_layout() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("w");
        let t = open_target(&spec(p.clone(), 1 << 20, false, true), &mut |_, _| panic!()).unwrap();
        assert_eq!(t.size, 1 << 20);
    }

    #[test]
    fn read_job_refuses_to_extend_existing_short_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("short");
        std::fs::write(&p, vec![7u8; 4096]).unwrap();
        let e = open_target(&spec(p.clone(), 8192, true, false), &mut |_, _| {}).unwrap_err();
        assert!(matches!(e, EngineError::TooSmall { actual: 4096, needed: 8192, .. }), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), vec![7u8; 4096]);
    }

    /// Sets the file's atime two days back (relatime updates an atime older than a day).
    fn age_atime(p: &Path) -> i64 {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        let old = libc::timespec { tv_sec: 1_700_000_000, tv_nsec: 0 };
        let keep_mtime = libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_OMIT };
        let times = [old, keep_mtime];
        // SAFETY: a valid C string and two timespecs.
        let r = unsafe { libc::utimensat(libc::AT_FDCWD, c.as_ptr(), times.as_ptr(), 0) };
        assert_eq!(r, 0);
        old.tv_sec
    }

    fn atime(p: &Path) -> i64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).unwrap().atime()
    }

    #[test]
    fn reads_of_an_opened_target_leave_its_atime_alone() {
        use std::os::unix::fs::FileExt;
        let d = tempfile::tempdir_in(".").unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![5u8; 8192]).unwrap();
        // Whether this filesystem updates atimes at all (a noatime mount does not).
        let old = age_atime(&p);
        std::fs::read(&p).unwrap();
        if atime(&p) == old {
            eprintln!("skipped: {} does not update access times", d.path().display());
            return;
        }
        let old = age_atime(&p);
        let t = open_target(&spec(p.clone(), 8192, true, false), &mut |_, _| {}).unwrap();
        let mut buf = [0u8; 4096];
        assert_eq!(t.file.read_at(&mut buf, 4096).unwrap(), 4096);
        assert_eq!(buf[4095], 5);
        assert_eq!(atime(&p), old, "the read through the target updated the atime");
    }

    #[test]
    fn missing_device_name_is_an_error_not_a_new_file() {
        let p = PathBuf::from("/dev/iolab-no-such-device");
        for (reads, writes) in [(true, false), (false, true)] {
            let e =
                open_target(&spec(p.clone(), 1 << 20, reads, writes), &mut |_, _| {}).unwrap_err();
            assert!(matches!(e, EngineError::MissingDevice { .. }), "{e}");
            assert!(e.to_string().starts_with("/dev/iolab-no-such-device: no such device"));
            assert!(!p.exists(), "created {}", p.display());
        }
    }

    #[test]
    fn direct_on_tmpfs_is_a_clear_error() {
        let shm = Path::new("/dev/shm");
        if !shm.is_dir() || direct_supported(shm) {
            eprintln!("skipped: /dev/shm missing or supports O_DIRECT");
            return;
        }
        let d = tempfile::tempdir_in(shm).unwrap();
        let mut s = spec(d.path().join("x"), 4096, true, false);
        s.direct = true;
        let e = open_target(&s, &mut |_, _| {}).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("O_DIRECT") && msg.contains("tmpfs"), "{msg}");
    }
}
