//! Memory hints for the simulator's large random-access tables: cache-line prefetch and
//! transparent huge pages.
//!
//! A replay touches its key table and node slab at random, one or two cache lines per request;
//! with 4 KiB pages a table of a few MB spans more pages than the TLB holds, so most lookups
//! also walk the page table. libCacheSim asks for huge pages (`USE_HUGEPAGE`, `madvise`);
//! [`huge_vec`] does the same for a `Vec`'s spare capacity before its first touch.
//!
//! `unsafe` here (two blocks): the `prefetcht0` instruction, and `madvise(MADV_HUGEPAGE)` on
//! pages inside a `Vec`'s own allocation. Neither reads or writes memory the program can
//! observe: a prefetch never faults, and the advice changes only the page size backing the
//! range (its contents stay what they are, zero-filled or written).

/// Asks the CPU to load the cache line holding `p` (x86-64 `prefetcht0`; nothing elsewhere).
#[inline(always)]
pub(crate) fn prefetch_line(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and has no effect the program can observe besides
    // timing, whatever the address; callers pass pointers derived from live references.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Tables below this size gain nothing from huge pages (they span few 4 KiB pages).
const HUGE_MIN: usize = 4 << 20;

/// A `Vec` with room for `n` elements whose allocation is advised to use transparent huge
/// pages (Linux `MADV_HUGEPAGE`) before anything is written to it, so its pages fault in as
/// 2 MiB pages where the kernel has them. A hint: the vector is an ordinary `Vec`, and where
/// the advice is refused or unsupported nothing changes but speed.
pub(crate) fn huge_vec<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise_huge(v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
    v
}

/// `huge_vec(n)` filled with `n` copies of `x`.
pub(crate) fn huge_filled<T: Clone>(n: usize, x: T) -> Vec<T> {
    let mut v = huge_vec(n);
    v.resize(n, x);
    v
}

fn advise_huge(addr: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        if bytes < HUGE_MIN {
            return;
        }
        let start = addr.next_multiple_of(PAGE);
        let end = (addr + bytes) / PAGE * PAGE;
        if end <= start {
            return;
        }
        // SAFETY: [start, end) is whole pages inside the vector's own allocation (rounded
        // inward), so the call affects no other object; MADV_HUGEPAGE changes only which page
        // size backs the range, never its contents, and its result is a hint we may ignore.
        let _ =
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (addr, bytes);
}
