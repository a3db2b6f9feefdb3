//! Page-aligned I/O buffers for `direct=1` (O_DIRECT needs the buffer, the offset and the
//! length aligned to the logical block size; 4096 covers every device in practice) and one
//! pool of `iodepth` slots per worker, the way fio allocates `td->orig_buffer` once and
//! carves io_u buffers out of it (backend.c `init_io_u`).
//!
//! No `unsafe`: a buffer is a `Vec` of 4096-byte-aligned [`Page`]s, viewed as bytes through
//! `zerocopy` (its derives prove the page has no padding, so the view is sound). A larger
//! alignment skips the pages before the first suitably aligned one.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Bytes in one [`Page`].
pub const PAGE_SIZE: usize = 4096;

/// One aligned page: the unit buffers are made of.
#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C, align(4096))]
pub struct Page([u8; PAGE_SIZE]);

const ZERO_PAGE: Page = Page([0; PAGE_SIZE]);

/// A heap buffer whose start is aligned to `align` bytes. Owned, `Send`, zero-initialised.
pub struct AlignedBuf {
    pages: Vec<Page>,
    /// Pages skipped so the start meets an alignment above [`PAGE_SIZE`].
    skip: usize,
    len: usize,
}

impl AlignedBuf {
    /// `len` bytes aligned to `align` (a power of two). A zero length allocates one alignment
    /// unit so the pointer is always valid. Aborts when memory runs out: buffers sized by the
    /// user go through [`AlignedBuf::try_new`].
    pub fn new(len: usize, align: usize) -> Self {
        match Self::try_new(len, align) {
            Ok(b) => b,
            Err(_) => std::alloc::handle_alloc_error(std::alloc::Layout::new::<Page>()),
        }
    }

    /// As [`AlignedBuf::new`], or `ENOMEM` when the size overflows or the allocator refuses
    /// (fio: `err=12`, "iomem allocation").
    pub fn try_new(len: usize, align: usize) -> std::io::Result<Self> {
        let enomem = || std::io::Error::from_raw_os_error(libc::ENOMEM);
        let align = align.max(1).checked_next_power_of_two().ok_or_else(enomem)?;
        let size = len.max(1).div_ceil(align).checked_mul(align).ok_or_else(enomem)?;
        let extra = align.saturating_sub(PAGE_SIZE) / PAGE_SIZE;
        let n = size.div_ceil(PAGE_SIZE).checked_add(extra).ok_or_else(enomem)?;
        let mut pages = Vec::new();
        pages.try_reserve_exact(n).map_err(|_| enomem())?;
        pages.resize(n, ZERO_PAGE);
        let addr = pages.as_ptr() as usize;
        let skip = (align - addr % align) % align / PAGE_SIZE;
        Ok(AlignedBuf { pages, skip, len: size })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.as_slice().as_ptr()
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.as_mut_slice().as_mut_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.pages[self.skip..].as_bytes()[..self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut self.pages[self.skip..].as_mut_bytes()[..len]
    }
}
/// `depth` buffers of `slot_size` bytes each in one aligned allocation. Slot `i` is the
/// buffer of in-flight unit `i`; the worker fills it before a write and reads it after a read,
/// the engine hands its address to the kernel in between.
pub struct BufPool {
    buf: AlignedBuf,
    slot_size: usize,
    depth: usize,
}

impl BufPool {
    pub fn new(depth: usize, slot_size: usize, align: usize) -> Self {
        match Self::try_new(depth, slot_size, align, "iolab") {
            Ok(p) => p,
            Err(_) => std::alloc::handle_alloc_error(std::alloc::Layout::new::<Page>()),
        }
    }

    /// As [`BufPool::new`], or an error naming the size when `depth × slot_size` bytes cannot
    /// be allocated: fio's `init_io_u` fails the job with `err=12` (ENOMEM) in that case.
    pub fn try_new(
        depth: usize,
        slot_size: usize,
        align: usize,
        engine: &'static str,
    ) -> Result<Self, crate::EngineError> {
        let align = align.max(4096);
        let fail = |source| crate::EngineError::Engine {
            engine,
            op: "allocating the I/O buffers (iodepth x bs; fio: err=12)",
            source,
        };
        let enomem = || std::io::Error::from_raw_os_error(libc::ENOMEM);
        let slot = slot_size.max(1).div_ceil(align).checked_mul(align).ok_or_else(enomem);
        let slot = slot.map_err(fail)?;
        let total = slot.checked_mul(depth.max(1)).ok_or_else(enomem).map_err(fail)?;
        let buf = AlignedBuf::try_new(total, align).map_err(|e| {
            fail(std::io::Error::new(
                e.kind(),
                format!("{e}: {depth} x {slot} bytes = {total} bytes"),
            ))
        })?;
        Ok(BufPool { buf, slot_size: slot, depth })
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    /// The whole backing allocation (io_uring registers it as one fixed buffer).
    pub fn base_ptr(&mut self) -> *mut u8 {
        self.buf.as_mut_ptr()
    }

    pub fn total_len(&self) -> usize {
        self.buf.len()
    }

    /// Slot `slot`'s first `len` bytes.
    pub fn slot_mut(&mut self, slot: usize, len: usize) -> &mut [u8] {
        let start = slot * self.slot_size;
        &mut self.buf.as_mut_slice()[start..start + len.min(self.slot_size)]
    }

    /// Raw pointer to slot `slot` for the kernel (the end of the pool past the last slot).
    pub fn slot_ptr(&mut self, slot: usize) -> *mut u8 {
        let bytes = self.buf.as_mut_slice();
        let start = slot.saturating_mul(self.slot_size).min(bytes.len());
        bytes[start..].as_mut_ptr()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn aligned_buf_is_aligned_and_zeroed() {
        for align in [512usize, 4096, 65536] {
            let b = AlignedBuf::new(10_000, align);
            assert_eq!(b.as_ptr() as usize % align, 0);
            assert!(b.len() >= 10_000);
            assert!(b.as_slice().iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn an_impossible_pool_is_enomem() {
        let e = BufPool::try_new(usize::MAX / 2, 1 << 20, 4096, "null").err().unwrap();
        assert!(e.to_string().contains("err=12"), "{e}");
        assert!(AlignedBuf::try_new(usize::MAX - 10, 4096).is_err());
    }

    #[test]
    fn pool_slots_do_not_overlap() {
        let mut p = BufPool::new(4, 6000, 4096);
        assert_eq!(p.slot_size(), 8192);
        for s in 0..4 {
            p.slot_mut(s, 6000).fill(s as u8 + 1);
        }
        for s in 0..4 {
            assert!(p.slot_mut(s, 6000).iter().all(|&x| x == s as u8 + 1));
            assert_eq!(p.slot_ptr(s) as usize % 4096, 0);
        }
    }
}
