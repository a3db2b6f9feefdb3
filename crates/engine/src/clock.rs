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
//! the kernel has checked it is synchronised across CPUs).
//!
//! **Calibration method** (once per process): [`CAL_WINDOWS`] windows of [`CAL_WINDOW_NS`]
//! each, back to back (fio gettime.c `calibrate_cpu_clock` takes ~50 × 1 ms and drops
//! outliers). Each window end is a *bracket*: a TSC read between two `CLOCK_MONOTONIC`
//! reads. The narrowest of [`BRACKET_TRIES`] brackets is kept, and a bracket wider than
//! [`BRACKET_MAX_NS`] means the thread was preempted or interrupted between the reads, so the
//! windows it ends or starts are rejected; so is a window whose error bound (below) exceeds
//! [`CAL_MAX_ERROR`]. The rate is the median of the surviving windows' ticks-per-ns. Fewer
//! than [`CAL_MIN_WINDOWS`] survivors and the windows are taken again, [`CAL_RETRY_WINDOW_NS`]
//! long (twice); then the TSC is not used (`clock_gettime` instead, with the reason). Between
//! window ends the thread sleeps, so preemption there costs nothing. One 20 ms window without
//! a preemption check, as before, reported 1000 ms of runtime from a 623 ms process under CPU
//! load.
//!
//! **Why 250 µs windows are enough.** The TSC is only used when the kernel's clocksource is
//! `tsc`, so `CLOCK_MONOTONIC` is itself the TSC scaled by the kernel (the vDSO reads it): the
//! two clocks cannot drift apart within a window, and the only error in a window end is where
//! the TSC read fell inside its bracket, at most half the bracket's width (plus 1 ns for each
//! read's truncation to whole ns). A window's rate is therefore off by at most
//! `(w_a / 2 + w_b / 2 + 2 ns) / length`, which [`calibrate_within`] computes from the two
//! brackets it has and refuses above [`CAL_MAX_ERROR`] (0.025 %, a quarter of the
//! cross-check's 0.1 %): with 250 µs windows a kept window's brackets average at most ~120 ns.
//! The narrowest of eight brackets reads ≤ 20 ns on this project's 2-core KVM guest, quiet or
//! with both cores busy (25,000 groups of eight each way; the single brackets that were
//! preempted are 2–40 ms wide, which both checks reject), so a window's bound is ~90 ppm and
//! its measured error ~30 ppm, the median's ~1 ppm (200 calibrations against a 300 ms window).
//! A host with slower clock reads fails the bound and retries with 2 ms windows, which keep
//! brackets up to ~1 µs. The span was 55 ms (11 ms windows), then 10 ms (2 ms windows: 4 % of
//! a 10 M-I/O null run's whole process); it is now ~1.5 ms (the sleeps overshoot by the
//! timer slack). The kernel's own TSC → ns factors (the perf_event mmap page's `time_mult`,
//! `time_shift`) would need no window, but a KVM guest whose `sched_clock` is kvm-clock
//! publishes `cap_user_time = 0` (this one does), and the first `perf_event_open` of a
//! process took 7–11 ms here in three of five tries.
//!
//! **End-of-job cross-check**: [`Clock::start`] ties its TSC base to a bracketed
//! `CLOCK_MONOTONIC` read, and [`Clock::cross_check`] compares the job's elapsed TSC time
//! with `CLOCK_MONOTONIC` at its end. Beyond [`CROSS_CHECK_TOLERANCE`] (0.1 %) the worker
//! rescales every time it recorded (runtime, so IOPS and bandwidth, and the latencies) by the
//! monotonic/TSC ratio and says so in the job's notes.

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
    pub fn resolve(asked: Option<iolab_job::ClockSource>) -> (ClockSource, Option<String>) {
        use iolab_job::ClockSource as Asked;
        match asked {
            Some(Asked::Gettimeofday) => (ClockSource::Gettimeofday, None),
            Some(Asked::ClockGettime) => (ClockSource::ClockGettime, None),
            Some(Asked::Cpu) if tsc().is_none() => (
                ClockSource::ClockGettime,
                Some(format!(
                    "clocksource=cpu: the TSC is not usable here ({}); using clock_gettime",
                    tsc_refusal()
                )),
            ),
            Some(Asked::Cpu) => (ClockSource::Cpu, None),
            None => (ClockSource::default_for_host(), None),
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
    /// `CLOCK_MONOTONIC` at `base` (for the end-of-job cross-check).
    mono_base: u64,
}

impl Clock {
    pub fn start(source: ClockSource) -> Clock {
        let (source, mult) = match (source, tsc()) {
            (ClockSource::Cpu, Some(t)) => (ClockSource::Cpu, t.mult),
            (ClockSource::Cpu, None) => (ClockSource::ClockGettime, 0),
            (s, _) => (s, 0),
        };
        let mut c = Clock { source, base: 0, mult, mono_base: 0 };
        match source {
            ClockSource::Cpu => {
                let b = narrowest_bracket(BRACKET_TRIES);
                (c.base, c.mono_base) = (b.tsc, b.mono_mid());
            }
            _ => {
                c.base = c.raw();
                c.mono_base = monotonic_ns();
            }
        }
        c
    }

    /// The job's elapsed time by this clock and by `CLOCK_MONOTONIC`, read now (for the TSC
    /// the two reads are bracketed, so they describe the same instant to within a few
    /// hundred ns). Pass the result to [`cross_check`].
    pub fn elapsed_pair(&self) -> ElapsedPair {
        let (ns, mono) = match self.source {
            ClockSource::Cpu => {
                let b = narrowest_bracket(BRACKET_TRIES);
                let d = b.tsc.saturating_sub(self.base);
                (((d as u128 * self.mult as u128) >> 32) as u64, b.mono_mid())
            }
            _ => (self.elapsed_ns(), monotonic_ns()),
        };
        ElapsedPair { clock_ns: ns, mono_ns: mono.saturating_sub(self.mono_base) }
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

/// A job's elapsed time read from its clock and from `CLOCK_MONOTONIC` at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElapsedPair {
    pub clock_ns: u64,
    pub mono_ns: u64,
}

/// Largest disagreement between the job's clock and `CLOCK_MONOTONIC` accepted as is.
pub const CROSS_CHECK_TOLERANCE: f64 = 1e-3;
/// Disagreement below this many ns is always accepted (the reads' own uncertainty on very
/// short jobs).
const CROSS_CHECK_SLACK_NS: u64 = 20_000;

/// The end-of-job check: `None` when the clock agreed with `CLOCK_MONOTONIC` to within 0.1 %
/// (plus 20 µs), else the factor (monotonic / clock) every recorded time must be multiplied
/// by.
pub fn cross_check(p: ElapsedPair) -> Option<f64> {
    let diff = p.clock_ns.abs_diff(p.mono_ns);
    if diff <= CROSS_CHECK_SLACK_NS || (diff as f64) <= p.mono_ns as f64 * CROSS_CHECK_TOLERANCE {
        return None;
    }
    if p.clock_ns == 0 {
        return None;
    }
    Some(p.mono_ns as f64 / p.clock_ns as f64)
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
    tsc_state().as_ref().ok().copied()
}

/// Why the TSC is not used here ("" when it is usable).
fn tsc_refusal() -> String {
    tsc_state().as_ref().err().cloned().unwrap_or_default()
}

/// The TSC, calibrated once per process, or why it is not used.
fn tsc_state() -> &'static Result<Tsc, String> {
    static CAL: OnceLock<Result<Tsc, String>> = OnceLock::new();
    CAL.get_or_init(|| {
        let why = host_refusal();
        if !why.is_empty() {
            return Err(why);
        }
        calibrate().ok_or_else(|| {
            format!(
                "calibration failed: fewer than {CAL_MIN_WINDOWS} of {CAL_WINDOWS} windows \
                 had narrow, unpreempted brackets in three tries (CPU too busy)"
            )
        })
    })
}

/// Why this host's TSC must not be used ("" when it may be).
fn host_refusal() -> String {
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

/// Windows the calibration takes (fio takes ~50; five medians out one preempted window or two).
pub const CAL_WINDOWS: usize = 5;
/// Each window's length on the first try (see the file's header for why it is enough).
pub const CAL_WINDOW_NS: u64 = 250_000;
/// Each window's length on the two retries, for hosts whose brackets are too wide for
/// [`CAL_WINDOW_NS`].
pub const CAL_RETRY_WINDOW_NS: u64 = 2_000_000;
/// Largest error bound a kept window may have (its brackets' half-widths plus the reads'
/// rounding, over its length): a quarter of [`CROSS_CHECK_TOLERANCE`].
pub const CAL_MAX_ERROR: f64 = 2.5e-4;
/// Fewest surviving windows the rate is taken from.
pub const CAL_MIN_WINDOWS: usize = 3;
/// A bracket (two `CLOCK_MONOTONIC` reads around one TSC read) wider than this was
/// preempted or interrupted: an uninterrupted one is well under 1 µs even on a KVM guest
/// (the narrowest of [`BRACKET_TRIES`] reads 20-30 ns on this project's 2-core KVM guest).
pub const BRACKET_MAX_NS: u64 = 2_000;
/// Brackets tried per window end; the narrowest is kept.
const BRACKET_TRIES: usize = 8;

/// One TSC read between two `CLOCK_MONOTONIC` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bracket {
    pub mono_before: u64,
    pub tsc: u64,
    pub mono_after: u64,
}

impl Bracket {
    fn width(&self) -> u64 {
        self.mono_after.saturating_sub(self.mono_before)
    }

    /// The monotonic time the TSC read stands for (the middle of the bracket).
    fn mono_mid(&self) -> u64 {
        self.mono_before + self.width() / 2
    }
}

fn read_bracket() -> Bracket {
    let mono_before = monotonic_ns();
    let tsc = rdtsc();
    let mono_after = monotonic_ns();
    Bracket { mono_before, tsc, mono_after }
}

fn narrowest_bracket(tries: usize) -> Bracket {
    let mut best = read_bracket();
    for _ in 1..tries {
        let b = read_bracket();
        if b.width() < best.width() {
            best = b;
        }
    }
    best
}

/// What a calibration made of its brackets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// TSC → ns multiplier: `(ticks * mult) >> 32`.
    pub mult: u64,
    /// Windows whose two ends were narrow brackets.
    pub used: usize,
    /// Windows rejected for a wide (preempted) bracket or a TSC that did not advance.
    pub rejected: usize,
}

/// The rate from consecutive window-end brackets: each pair is one window, kept only when
/// both its brackets are at most `max_width` ns wide and both clocks advanced; the median
/// of the kept windows' rates. `None` with fewer than [`CAL_MIN_WINDOWS`] kept. (The
/// calibration itself also bounds each window's error: [`calibrate_within`].)
pub fn calibrate_from(ends: &[Bracket], max_width: u64) -> Option<Calibration> {
    calibrate_within(ends, max_width, f64::INFINITY)
}

/// [`calibrate_from`], keeping a window only when its error bound,
/// `(w_a / 2 + w_b / 2 + 2 ns) / length`, is at most `max_error` too (see the file's header).
pub fn calibrate_within(ends: &[Bracket], max_width: u64, max_error: f64) -> Option<Calibration> {
    let mut rates: Vec<u64> = Vec::with_capacity(ends.len());
    let mut rejected = 0;
    for w in ends.windows(2) {
        let (a, b) = (w[0], w[1]);
        let narrow = a.width() <= max_width && b.width() <= max_width;
        let dc = b.tsc.checked_sub(a.tsc).filter(|&d| d > 0);
        let dt = b.mono_mid().checked_sub(a.mono_mid()).filter(|&d| d > 0);
        let dt = dt.filter(|&d| window_error_bound(a, b, d) <= max_error);
        match (narrow, dc, dt) {
            (true, Some(dc), Some(dt)) => match ((dt as u128) << 32).checked_div(dc as u128) {
                Some(m) if m <= u64::MAX as u128 => rates.push(m as u64),
                _ => rejected += 1,
            },
            _ => rejected += 1,
        }
    }
    if rates.len() < CAL_MIN_WINDOWS {
        return None;
    }
    rates.sort_unstable();
    let n = rates.len();
    let mult = if n % 2 == 1 { rates[n / 2] } else { rates[n / 2 - 1] / 2 + rates[n / 2] / 2 };
    Some(Calibration { mult, used: n, rejected })
}

/// The most a window's rate can be off, relative: where each TSC read fell inside its
/// bracket (half the width) plus 1 ns of truncation per `CLOCK_MONOTONIC` read, over the
/// window's length `dt` (see the file's header).
fn window_error_bound(a: Bracket, b: Bracket, dt: u64) -> f64 {
    (a.width() as f64 / 2.0 + b.width() as f64 / 2.0 + 2.0) / dt as f64
}

/// Calibrate against `CLOCK_MONOTONIC` (see the file's header); `None` when too many
/// windows were preempted or too uncertain on the first try and both retries.
fn calibrate() -> Option<Tsc> {
    for window in [CAL_WINDOW_NS, CAL_RETRY_WINDOW_NS, CAL_RETRY_WINDOW_NS] {
        let mut ends = Vec::with_capacity(CAL_WINDOWS + 1);
        ends.push(narrowest_bracket(BRACKET_TRIES));
        for _ in 0..CAL_WINDOWS {
            std::thread::sleep(std::time::Duration::from_nanos(window));
            ends.push(narrowest_bracket(BRACKET_TRIES));
        }
        if let Some(c) = calibrate_within(&ends, BRACKET_MAX_NS, CAL_MAX_ERROR) {
            return Some(Tsc { mult: c.mult });
        }
    }
    None
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
            // Every read is bracketed by CLOCK_MONOTONIC reads, so a preemption between two
            // reads (a loaded machine) widens the bracket instead of failing the test.
            let s0 = monotonic_ns();
            let c = Clock::start(src);
            let s1 = monotonic_ns();
            let mut prev = 0;
            while monotonic_ns() - s1 < 50_000_000 {
                let e = c.elapsed_ns();
                assert!(e >= prev, "{src:?} went back: {e} < {prev}");
                prev = e;
            }
            let before = monotonic_ns();
            let e = c.elapsed_ns();
            let after = monotonic_ns();
            let (lo, hi) = ((before - s1) as f64, (after - s0) as f64);
            let tol = hi * 1e-3 + 2_000.0;
            assert!(
                e as f64 >= lo - tol && e as f64 <= hi + tol,
                "{src:?} ({:?}): {e} outside [{lo}, {hi}] ± {tol}",
                c.source()
            );
        }
        if tsc().is_none() {
            println!("TSC not used here: {}", tsc_refusal());
        }
    }

    /// Synthetic window ends at a true rate of 3 ticks/ns, 10 ms apart.
    fn ends(widths: &[u64]) -> Vec<Bracket> {
        widths
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let mid = 1_000_000_000 + i as u64 * 10_000_000;
                Bracket { mono_before: mid - w / 2, tsc: 3 * mid, mono_after: mid + w - w / 2 }
            })
            .collect()
    }

    fn ns_per_tick(c: &Calibration) -> f64 {
        c.mult as f64 / (1u64 << 32) as f64
    }

    /// A preempted bracket (its monotonic pair 4 ms apart, its TSC read late by 3 ms) is
    /// rejected with both windows it bounds; the rate comes from the others, exact.
    #[test]
    fn calibration_rejects_windows_with_a_wide_bracket() {
        let mut e = ends(&[200, 300, 250, 180, 220, 260, 240]);
        e[3].mono_after += 4_000_000;
        e[3].tsc += 3 * 3_000_000;
        let c = calibrate_from(&e, BRACKET_MAX_NS).unwrap();
        assert_eq!((c.used, c.rejected), (4, 2));
        assert!((ns_per_tick(&c) - 1.0 / 3.0).abs() < 1e-6, "{}", ns_per_tick(&c));
        // Without the width check the two windows it bounds are kept (8 % and 14 % off).
        let naive = calibrate_from(&e, u64::MAX).unwrap();
        assert_eq!((naive.used, naive.rejected), (6, 0));
    }

    /// A window whose TSC reads moved by a preemption-free but wrong amount is outvoted by
    /// the median; too few narrow windows give no rate at all (clock_gettime is used).
    #[test]
    fn calibration_takes_the_median_and_needs_three_windows() {
        let mut e = ends(&[100; 6]);
        e[5].tsc += 3 * 5_000_000; // the last window looks 50 % longer
        let c = calibrate_from(&e, BRACKET_MAX_NS).unwrap();
        assert_eq!((c.used, c.rejected), (5, 0));
        assert!((ns_per_tick(&c) - 1.0 / 3.0).abs() < 1e-6);
        let mut few = ends(&[100, 100, 100, 9_000, 100]);
        few[3].tsc += 1;
        assert_eq!(calibrate_from(&few, BRACKET_MAX_NS), None);
        // A TSC that went backwards rejects its window (no negative rate); the median of the
        // rest is still exact.
        let mut back = ends(&[100; 5]);
        back[2].tsc = 0;
        let c = calibrate_from(&back, BRACKET_MAX_NS).unwrap();
        assert_eq!((c.used, c.rejected), (3, 1));
        assert!((ns_per_tick(&c) - 1.0 / 3.0).abs() < 1e-6);
    }

    /// Window ends `spacing` ns apart at 3 ticks/ns, each bracket `widths[i]` wide with its
    /// TSC read `late[i]` ns after the bracket's start (the middle when `None`).
    fn ends_at(spacing: u64, widths: &[u64], late: &[Option<u64>]) -> Vec<Bracket> {
        widths
            .iter()
            .zip(late)
            .enumerate()
            .map(|(i, (&w, &l))| {
                let start = 1_000_000_000 + i as u64 * spacing;
                let read = start + l.unwrap_or(w / 2);
                Bracket { mono_before: start, tsc: 3 * read, mono_after: start + w }
            })
            .collect()
    }

    /// On 250 µs windows an 800 ns bracket passes the preemption cap but not the error
    /// bound: with its TSC read at the bracket's start its two windows would be 0.16 % off,
    /// beyond the cross-check's tolerance. They are rejected and the rate is exact; the same
    /// bracket on 2 ms windows bounds them at 0.021 % and they are kept (the median is exact).
    #[test]
    fn short_windows_reject_brackets_their_length_cannot_absorb() {
        let widths = [20, 20, 20, 800, 20, 20];
        let late = [None, None, None, Some(0), None, None];
        let e = ends_at(CAL_WINDOW_NS, &widths, &late);
        let off = (e[3].mono_mid() - e[2].mono_mid()) as f64 / ((e[3].tsc - e[2].tsc) as f64 / 3.0);
        assert!(off - 1.0 > CROSS_CHECK_TOLERANCE, "the bad window is {off}");
        let c = calibrate_within(&e, BRACKET_MAX_NS, CAL_MAX_ERROR).unwrap();
        assert_eq!((c.used, c.rejected), (3, 2));
        assert!((ns_per_tick(&c) - 1.0 / 3.0).abs() < 1e-6, "{}", ns_per_tick(&c));
        // The width cap alone keeps them.
        assert_eq!(calibrate_from(&e, BRACKET_MAX_NS).map(|c| c.used), Some(5));
        let long = ends_at(CAL_RETRY_WINDOW_NS, &widths, &late);
        let c = calibrate_within(&long, BRACKET_MAX_NS, CAL_MAX_ERROR).unwrap();
        assert_eq!((c.used, c.rejected), (5, 0));
        assert!((ns_per_tick(&c) - 1.0 / 3.0).abs() < 1e-6, "{}", ns_per_tick(&c));
        // Brackets of 150 ns everywhere: every 250 µs window's bound is 0.06 %, no rate.
        let wide = ends_at(CAL_WINDOW_NS, &[150; 6], &[None; 6]);
        assert_eq!(calibrate_within(&wide, BRACKET_MAX_NS, CAL_MAX_ERROR), None);
        assert_eq!(calibrate_from(&wide, BRACKET_MAX_NS).map(|c| c.used), Some(5));
    }

    /// The live calibration (first try's short windows, retries' long ones) agrees with one
    /// 60 ms bracketed window to within its bound plus the reference's own.
    #[test]
    fn live_calibration_matches_a_long_window() {
        let why = host_refusal();
        if !why.is_empty() {
            println!("skip: the TSC is not used here ({why})");
            return;
        }
        let t = calibrate().expect("three tries of five windows all preempted");
        let a = narrowest_bracket(BRACKET_TRIES);
        std::thread::sleep(std::time::Duration::from_millis(60));
        let b = narrowest_bracket(BRACKET_TRIES);
        let dt = b.mono_mid() - a.mono_mid();
        let reference = dt as f64 / (b.tsc - a.tsc) as f64;
        let got = t.mult as f64 / (1u64 << 32) as f64;
        let err = (got / reference - 1.0).abs();
        let bound = CAL_MAX_ERROR + window_error_bound(a, b, dt);
        assert!(err <= bound, "calibrated {got} ns/tick, reference {reference}: {err} > {bound}");
    }

    /// The end-of-job check: 1000 ms by the clock for a job CLOCK_MONOTONIC saw last 623 ms
    /// (the reported case) is rescaled by 0.623; 0.05 % off is accepted; so is 15 µs on a
    /// 1 ms job.
    #[test]
    fn cross_check_rescales_beyond_a_tenth_of_a_percent() {
        let p = |c: u64, m: u64| ElapsedPair { clock_ns: c, mono_ns: m };
        let f = cross_check(p(1_000_000_000, 623_000_000)).unwrap();
        assert!((f - 0.623).abs() < 1e-12, "{f}");
        assert_eq!(cross_check(p(1_000_500_000, 1_000_000_000)), None);
        let f = cross_check(p(1_002_000_000, 1_000_000_000)).unwrap();
        assert!((f - 1.0 / 1.002).abs() < 1e-12);
        assert_eq!(cross_check(p(1_015_000, 1_000_000)), None);
        assert_eq!(cross_check(p(0, 0)), None);
        // The live clock agrees with itself over a short job.
        let c = Clock::start(ClockSource::default_for_host());
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(cross_check(c.elapsed_pair()), None, "{:?}", c.elapsed_pair());
    }

    #[test]
    fn resolve_names_the_fallback() {
        assert_eq!(
            ClockSource::resolve(Some(iolab_job::ClockSource::ClockGettime)).0,
            ClockSource::ClockGettime
        );
        assert_eq!(
            ClockSource::resolve(Some(iolab_job::ClockSource::Gettimeofday)).0,
            ClockSource::Gettimeofday
        );
        let (src, note) = ClockSource::resolve(Some(iolab_job::ClockSource::Cpu));
        match tsc() {
            Some(_) => assert_eq!((src, note), (ClockSource::Cpu, None)),
            None => {
                assert_eq!(src, ClockSource::ClockGettime);
                assert!(note.unwrap().contains("using clock_gettime"));
            }
        }
    }
}
