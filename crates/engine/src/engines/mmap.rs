//! `ioengine=mmap`: reads and writes are `memcpy` to and from a shared mapping of the file,
//! fio's engines/mmap.c (`fio_mmapio_queue`, `fio_mmapio_prep`). fio maps windows of
//! `mmap_map_size`; iolab maps each file once, whole, at its first use and remaps it when an
//! I/O reaches past the mapping (a write past the end of a regular file first extends it with
//! `ftruncate`, as fio's prep does, so the copy cannot raise SIGBUS). `fsync`/`fdatasync` are
//! `msync(MS_SYNC)` of the mapping, as fio's `fio_mmapio_queue` does for `DDIR_SYNC`; trim
//! punches the range like the other sync engines. Synchronous, depth 1.

use super::syncio::{SyncEngine, SyncOp, Unit};
use super::{EngineConfig, EngineFile, IoEngine, OpKind};
use crate::error::EngineError;

/// One file's mapping (null when not mapped yet).
struct Map {
    ptr: *mut u8,
    len: usize,
    writable: bool,
}

// SAFETY: the mapping is owned by this engine, which one worker thread drives at a time.
unsafe impl Send for Map {}

pub struct Mmap {
    maps: Vec<Map>,
}

impl Mmap {
    pub fn boxed(cfg: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
        let maps = cfg
            .files
            .iter()
            .map(|_| Map { ptr: std::ptr::null_mut(), len: 0, writable: false })
            .collect();
        SyncEngine::boxed(cfg, Mmap { maps })
    }

    /// Make sure file `i` is mapped over at least `[0, end)` (or its whole size when smaller,
    /// for reads). Returns the mapped length, or `-errno`.
    fn ensure(&mut self, f: &EngineFile, i: usize, end: u64, write: bool) -> Result<usize, i64> {
        let (fd, is_block) = (f.raw(), f.is_block);
        let map = &self.maps[i];
        if !map.ptr.is_null() && map.len as u64 >= end && (map.writable || !write) {
            return Ok(map.len);
        }
        // SAFETY: lseek on a valid fd; it only reports the size.
        let mut size = unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
        if size < 0 {
            return Err(super::neg_errno());
        }
        if write && (size as u64) < end && !is_block {
            // SAFETY: ftruncate on a valid fd with a non-negative length.
            if unsafe { libc::ftruncate(fd, end as libc::off_t) } < 0 {
                return Err(super::neg_errno());
            }
            size = end as libc::off_t;
        }
        if size == 0 {
            return Ok(0);
        }
        self.unmap(i);
        let len = size as usize;
        let mut writable = true;
        let mut p = map_file(fd, len, libc::PROT_READ | libc::PROT_WRITE);
        if p.is_null() && !write {
            // A read-only job's file is opened O_RDONLY: a writable shared map is refused.
            writable = false;
            p = map_file(fd, len, libc::PROT_READ);
        }
        if p.is_null() {
            return Err(super::neg_errno());
        }
        self.maps[i] = Map { ptr: p, len, writable };
        Ok(len)
    }

    fn unmap(&mut self, i: usize) {
        let m = &mut self.maps[i];
        if !m.ptr.is_null() {
            // SAFETY: ptr/len are exactly what mmap returned, and no reference into the
            // mapping outlives the copy that used it.
            unsafe { libc::munmap(m.ptr.cast(), m.len) };
            m.ptr = std::ptr::null_mut();
            m.len = 0;
        }
    }

    fn copy(&mut self, u: &Unit<'_>) -> i64 {
        let (i, len, off) = (u.index, u.len as u64, u.op.offset);
        let write = u.op.kind == OpKind::Write;
        let mapped = match self.ensure(u.file, i, off + len, write) {
            Ok(m) => m as u64,
            Err(e) => return e,
        };
        let n = len.min(mapped.saturating_sub(off)) as usize;
        if n == 0 {
            return 0;
        }
        // SAFETY: `offset + n <= mapped` and the slot holds at least `n` bytes; the mapping
        // and the slot never overlap (one is a file mapping, the other the pool).
        unsafe {
            let at = self.maps[i].ptr.add(off as usize);
            if write {
                std::ptr::copy_nonoverlapping(u.buf, at, n);
            } else {
                std::ptr::copy_nonoverlapping(at, u.buf, n);
            }
        }
        n as i64
    }
}

/// A shared mapping of `len` bytes of `fd` from offset 0; null on failure (errno set).
fn map_file(fd: i32, len: usize, prot: libc::c_int) -> *mut u8 {
    // SAFETY: a fresh mapping chosen by the kernel; nothing else is addressed.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0) };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        for i in 0..self.maps.len() {
            self.unmap(i);
        }
    }
}

impl SyncOp for Mmap {
    fn name(&self) -> &'static str {
        "mmap"
    }

    fn do_io(&mut self, u: &Unit<'_>) -> Result<i64, EngineError> {
        Ok(self.copy(u))
    }

    /// fio's `fio_mmapio_queue` for `DDIR_SYNC`/`DDIR_DATASYNC`: `msync(MS_SYNC)` of the
    /// mapping (fsync when nothing is mapped yet).
    fn sync(&mut self, u: &Unit<'_>, _data_only: bool) -> i64 {
        let m = &self.maps[u.index];
        if m.ptr.is_null() {
            return super::sync_file(u.file.raw(), false);
        }
        // SAFETY: the range is the live mapping returned by mmap.
        if unsafe { libc::msync(m.ptr.cast(), m.len, libc::MS_SYNC) } < 0 {
            return super::neg_errno();
        }
        0
    }
}
