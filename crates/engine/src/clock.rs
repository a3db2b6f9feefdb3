//! The clock every timestamp of the worker loop reads, chosen as fio's `clocksource` chooses
//! (gettime.c): `cpu` (the TSC) where it is reliable, else `clock_gettime(CLOCK_MONOTONIC)`,
//! or `gettimeofday` when the job asks for it.
//!
//! Written here rather than taken from a crate because it must be fio's three sources with
//! fio's selection rule, and because it is read once or more per I/O: on a KVM guest the
//! vDSO's `clock_gettime` costs ~25 ns (pvclock) against ~7 ns for `rdtsc` plus a multiply,
//! which is a third of the null engine's whole per-I/O cost.
//!
//! The TSC is used only when it is invariant (CPUID 0x80000007 EDX bit 8, what fio's
//! `arch_init` checks) *and* the kernel itself runs on it (`current_clocksource` is `tsc`, so
//! the kernel has checked it is synchronised across CPUs). It is calibrated once per process
//! against `CLOCK_MONOTONIC` over 20 ms, bracketing each monotonic read between two TSC
//! reads; the rate error is then a few ppm (fio calibrates over ~50 × 1 ms).

use std::sync::OnceLock;

/// fio's `clocksource` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The CPU's time-stamp counter.
    Cpu,
    /// `clock_gettime(CLOCK_MONOTONIC)`.
    ClockGettime,
    /// `gettimeofday`: microsecond resolution.
    Gettimeofday,
}

impl ClockSource {
    /// fio's default: `cpu` where the TSC is reliable, else `clock_gettime`.
    pub fn default_for_host() -> ClockSource {
        if tsc().is_some() {
            ClockSource::Cpu
        } else {
            ClockSource::ClockGettime
        }
    }

    /// The source for a job's `clocksource=` value (`None`: the default), and a note when the
    /// request cannot be honoured (`cpu` without a reliable TSC falls back to `clock_gettime`).
    pub fn resolve(asked: Option<&str>) -> (ClockSource, Option<String>) {
        match asked {
            Some("gettimeofday") => (ClockSource::Gettimeofday, None),
            Some("clock_gettime") => (ClockSource::ClockGettime, None),
            Some("cpu") if tsc().is_none() => (
                ClockSource::ClockGettime,
                Some(format!(
                    "clocksource=cpu: the TSC is not usable here ({}); using clock_gettime",
                    tsc_refusal()
                )),
            ),
            Some("cpu") => (ClockSource::Cpu, None),
            _ => (ClockSource::default_for_host(), None),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ClockSource::Cpu => "cpu",
            ClockSource::ClockGettime => "clock_gettime",
            ClockSource::Gettimeofday => "gettimeofday",
        }
    }
}

/// Nanoseconds since the clock was started, from the chosen source.
#[derive(Clone, Copy)]
pub struct Clock {
    source: ClockSource,
    base: u64,
    /// TSC → ns: `(ticks * mult) >> 32`.
    mult: u64,
}

impl Clock {
    pub fn start(source: ClockSource) -> Clock {
        let (source, mult) = match (source, tsc()) {
            (ClockSource::Cpu, Some(t)) => (ClockSource::Cpu, t.mult),
            (ClockSource::Cpu, None) => (ClockSource::ClockGettime, 0),
            (s, _) => (s, 0),
        };
        let mut c = Clock { source, base: 0, mult };
        c.base = c.raw();
        c
    }

    pub fn source(&self) -> ClockSource {
        self.source
    }

    #[inline(always)]
    fn raw(&self) -> u64 {
        match self.source {
            ClockSource::Cpu => rdtsc(),
            ClockSource::ClockGettime => monotonic_ns(),
            ClockSource::Gettimeofday => {
                let mut tv = libc::timeval { tv_sec: 0, tv_usec: 0 };
                // SAFETY: gettimeofday writes one timeval through a valid pointer; the
                // timezone argument may be null.
                unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
                (tv.tv_sec as u64).wrapping_mul(1_000_000_000) + tv.tv_usec as u64 * 1_000
            }
        }
    }

    /// Nanoseconds since `start` (never negative: a wall clock stepped back reads 0).
    #[inline(always)]
    pub fn elapsed_ns(&self) -> u64 {
        let d = self.raw().saturating_sub(self.base);
        match self.source {
            ClockSource::Cpu => ((d as u128 * self.mult as u128) >> 32) as u64,
            _ => d,
        }
    }
}

#[inline(always)]
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration, and CLOCK_MONOTONIC
    // exists on every Linux kernel, so the call only writes `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(ts.tv_nsec as u64)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC exists on every x86_64 CPU and only reads the counter.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rdtsc() -> u64 {
    monotonic_ns()
}

#[derive(Clone, Copy, Debug)]
struct Tsc {
    mult: u64,
}

/// The calibrated TSC, or `None` where it must not be used.
fn tsc() -> Option<Tsc> {
    static CAL: OnceLock<Option<Tsc>> = OnceLock::new();
    *CAL.get_or_init(|| if tsc_refusal().is_empty() { calibrate() } else { None })
}

/// Why the TSC is not used here ("" when it is usable).
fn tsc_refusal() -> String {
    if !cfg!(target_arch = "x86_64") {
        return "not x86_64".into();
    }
    if !invariant_tsc() {
        return "no invariant TSC (CPUID 0x80000007 EDX bit 8)".into();
    }
    let cs =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap_or_default();
    if cs.trim() != "tsc" {
        return format!("the kernel's clocksource is `{}`, not tsc", cs.trim());
    }
    String::new()
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 0x80000000 gives the highest extended
    // leaf, so 0x80000007 is only read where it exists.
    #[allow(unused_unsafe)]
    unsafe {
        __cpuid(0x8000_0000).eax >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}

/// Ticks per nanosecond against CLOCK_MONOTONIC over 20 ms.
fn calibrate() -> Option<Tsc> {
    let bracket = || {
        let a = rdtsc();
        let t = monotonic_ns();
        let b = rdtsc();
        (a / 2 + b / 2, t)
    };
    let (c0, t0) = bracket();
    let mut last = (c0, t0);
    while last.1.saturating_sub(t0) < 20_000_000 {
        last = bracket();
    }
    let (c1, t1) = last;
    let (dc, dt) = (c1.checked_sub(c0)?, t1 - t0);
    if dc == 0 {
        return None;
    }
    Some(Tsc { mult: ((dt as u128) << 32).checked_div(dc as u128)? as u64 })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every source agrees with CLOCK_MONOTONIC over 50 ms to within 0.1 % (gettimeofday to
    /// its microsecond), and never runs backwards.
    #[test]
    fn sources_agree_with_monotonic() {
        for src in [ClockSource::Cpu, ClockSource::ClockGettime, ClockSource::Gettimeofday] {
            let c = Clock::start(src);
            let m0 = monotonic_ns();
            let mut prev = 0;
            while monotonic_ns() - m0 < 50_000_000 {
                let e = c.elapsed_ns();
                assert!(e >= prev, "{src:?} went back: {e} < {prev}");
                prev = e;
            }
            let (e, m) = (c.elapsed_ns(), monotonic_ns() - m0);
            let err = (e as f64 - m as f64).abs();
            assert!(err < m as f64 * 1e-3 + 2_000.0, "{src:?} ({:?}): {e} vs {m}", c.source());
        }
        if tsc().is_none() {
            println!("TSC not used here: {}", tsc_refusal());
        }
    }

    #[test]
    fn resolve_names_the_fallback() {
        assert_eq!(ClockSource::resolve(Some("clock_gettime")).0, ClockSource::ClockGettime);
        assert_eq!(ClockSource::resolve(Some("gettimeofday")).0, ClockSource::Gettimeofday);
        let (src, note) = ClockSource::resolve(Some("cpu"));
        match tsc() {
            Some(_) => assert_eq!((src, note), (ClockSource::Cpu, None)),
            None => {
                assert_eq!(src, ClockSource::ClockGettime);
                assert!(note.unwrap().contains("using clock_gettime"));
            }
        }
    }
}
