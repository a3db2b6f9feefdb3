//! How much of a stretch of time runnable tasks waited for a CPU: the kernel's pressure stall
//! information (`/proc/pressure/cpu`, "some" line, `total` in µs; Linux 4.20+ with PSI on).
//!
//! A measurement of QD1 IOPS includes the submitting thread's time between commands, and on a
//! busy host that time is the scheduler's, not the device's: a 30 µs read measured 11k IOPS
//! beside a compile (PSI some ≈ 95 %) and 30k idle. Tests that compare such a figure with a
//! model ask [`CpuPressure::busy`] and check the scheduler-free figures (latency medians)
//! either way.

use std::time::Instant;

/// A start mark of the CPU pressure counter.
#[derive(Debug, Clone, Copy)]
pub struct CpuPressure {
    total_us: u64,
    at: Instant,
}

fn some_total_us() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace().find_map(|f| f.strip_prefix("total=")).and_then(|v| v.parse().ok())
}

impl CpuPressure {
    /// Starts the mark; `None` when the kernel has no PSI (then [`busy`](Self::busy) cannot
    /// be asked, and callers treat the host as busy: they cannot tell).
    pub fn start() -> Option<CpuPressure> {
        Some(CpuPressure { total_us: some_total_us()?, at: Instant::now() })
    }

    /// The share (0..1) of the time since [`start`](Self::start) in which at least one
    /// runnable task waited for a CPU.
    pub fn share(&self) -> f64 {
        let now = some_total_us().unwrap_or(self.total_us);
        let secs = self.at.elapsed().as_secs_f64().max(1e-3);
        (now.saturating_sub(self.total_us) as f64 / 1e6 / secs).clamp(0.0, 1.0)
    }

    /// `Some(reason)` when tasks waited for a CPU more than `limit` (0..1) of the time since
    /// the start: the reason names the share, for a `skip:` line.
    pub fn busy(&self, limit: f64) -> Option<String> {
        let s = self.share();
        (s > limit).then(|| {
            format!(
                "the host was busy: runnable tasks waited for a CPU {:.0} % of the time \
                 (/proc/pressure/cpu), above {:.0} %",
                s * 100.0,
                limit * 100.0
            )
        })
    }
}

/// CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): a single-threaded
/// computation's cost without the time other processes held the CPU, for budgets that must
/// hold on a busy machine.
pub fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spinning_second_thread_per_cpu_shows_as_pressure() {
        let Some(p) = CpuPressure::start() else {
            crate::skip("no /proc/pressure/cpu (PSI off)");
            return;
        };
        let n = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Two spinners per CPU for 300 ms: some task is always waiting.
        let hs: Vec<_> = (0..2 * n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert!(p.share() > 0.5, "share {}", p.share());
        assert!(p.busy(0.5).unwrap().contains("waited for a CPU"));
    }
}
