//! Integration tests of iolab-calibrate: calibration sweeps, fit and prediction on real
//! targets from iolab-test-support (tmpfs loop devices, zram, loop devices over a disk file,
//! a blkio-throttled loop device; probe and skip).
//!
//! One integration-test binary for the crate (ripgrep's layout): each topic is a module below;
//! add a test to the topic it belongs to, or a new `mod` line here.
#![allow(clippy::unwrap_used)]

mod queueing;
mod sweeps;
mod targets;

static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held by every test that measures real I/O (a calibration sweep, a job set beside its
/// prediction): the crate's tests share one process and run side by side, and two sweeps at
/// once on a 2-core machine measure each other, not the target (a QD1 point read 1,272 IOPS at
/// p50 678 µs beside another sweep, against ~15,000 alone). A test that panicked while
/// holding it does not poison the rest.
fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The calibration kept its budget where the budget governs: the sweep, which shares out 85 %
/// of it among the points as it goes (re-planning after each from the time left), ended within
/// the budget. The fit after the sweep is CPU work that a loaded machine stretches: the whole
/// took 11.7 s of a 10 s budget on 2 busy cores (newcomer review, 2026-11-28), so the total is
/// held to 1.5 × the budget, a bound on runaway work rather than on the machine's load.
fn within_budget(cal: &iolab_calibrate::Calibration, budget: f64) {
    println!(
        "calibration: sweep {:.2} s, fit {:.2} s, total {:.2} s for a {budget} s budget",
        cal.sweep_secs,
        cal.elapsed_secs - cal.sweep_secs,
        cal.elapsed_secs
    );
    assert!(cal.sweep_secs <= budget, "the sweep took {:.2} s of {budget} s", cal.sweep_secs);
    assert!(cal.elapsed_secs <= budget * 1.5, "took {:.2} s for {budget} s", cal.elapsed_secs);
}
