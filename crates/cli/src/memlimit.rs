//! Under an address-space limit (`ulimit -v`, RLIMIT_AS), glibc's malloc gives each new thread
//! its own arena, reserving 64 MiB of address space per arena (up to 8 per core), so a
//! limit is spent on reservations before memory is used: `ulimit -v 300000` and `numjobs=24`
//! aborted in "memory allocation of 806400 bytes failed" or failed to spawn a thread, half the
//! runs each (reliability review 2026-11-28 §6; fio segfaults there). With such a limit set,
//! malloc is held to two arenas (`mallopt(M_ARENA_MAX)`, the knob `MALLOC_ARENA_MAX` sets):
//! 24 jobs then run under 300 MB in every run. Without a limit nothing changes.

/// Holds glibc's malloc to two arenas when RLIMIT_AS is finite (see the module header).
pub fn hold_arenas_under_an_address_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct it is given; RLIMIT_AS is a valid resource.
        let got = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
        if got && lim.rlim_cur != libc::RLIM_INFINITY {
            // SAFETY: mallopt has no memory-safety preconditions; called before any thread
            // is spawned.
            unsafe { libc::mallopt(libc::M_ARENA_MAX, 2) };
        }
    }
}
