//! The process-wide stop request: the signal (SIGINT, SIGTERM, SIGHUP) that asked iolab to
//! end, recorded once. Like fio's `exit_backend` flag (fio backend.c `sig_int`), long loops
//! anywhere in the workspace (layout, prefill, data generation, trace reading) poll
//! [`requested`] and end early; the `iolab` binary installs the handlers and turns the
//! signal into the exit status (128 + signal number, as shells report it).
//!
//! Only atomic stores happen in the signal handler (async-signal-safe); everything else
//! (writing results, removing temporary files) runs in ordinary threads: a [`Bridge`] copies
//! the request into one run's own stop flag, and the [`spawn_watchdog`] thread is the
//! backstop that ends a command which does not stop by itself within its grace period (or
//! at a second signal).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Stop requests received (a second one ends the process at once).
static COUNT: AtomicU32 = AtomicU32::new(0);
/// Milliseconds the command may take to end by itself after the first request.
static GRACE_MS: AtomicU64 = AtomicU64::new(0);

/// Record a stop request for `signal` (the first one wins). Async-signal-safe.
pub fn request(signal: i32) {
    let _ = SIGNAL.compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst);
    COUNT.fetch_add(1, Ordering::SeqCst);
}

/// The command polls the stop and writes a partial result: give it `grace` to end by itself
/// before the watchdog ends it.
pub fn set_grace(grace: Duration) {
    GRACE_MS.store(u64::try_from(grace.as_millis()).unwrap_or(u64::MAX), Ordering::SeqCst);
}

/// Start the watchdog: once a stop is requested and the grace period (see [`set_grace`]) has
/// passed, or at a second request, it calls `expire` (which ends the process).
pub fn spawn_watchdog(expire: impl FnOnce() + Send + 'static) {
    let watch = move || {
        let mut since: Option<Instant> = None;
        loop {
            std::thread::sleep(Duration::from_millis(20));
            if !requested() {
                continue;
            }
            let t0 = *since.get_or_insert_with(Instant::now);
            let grace = Duration::from_millis(GRACE_MS.load(Ordering::SeqCst));
            if COUNT.load(Ordering::SeqCst) >= 2 || t0.elapsed() >= grace {
                expire();
                return;
            }
        }
    };
    let _ = std::thread::Builder::new().name("iolab-stop-watchdog".into()).spawn(watch);
}

/// Copies the process-wide stop request into one run's own stop flag (the engine's workers
/// poll that one) until dropped.
pub struct Bridge {
    over: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Start copying the stop request into `stop`.
pub fn bridge(stop: Arc<AtomicBool>) -> Bridge {
    let over = Arc::new(AtomicBool::new(false));
    let o = over.clone();
    let thread = std::thread::spawn(move || {
        while !o.load(Ordering::SeqCst) {
            if requested() {
                stop.store(true, Ordering::SeqCst);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    Bridge { over, thread: Some(thread) }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.over.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0
}

/// The signal that requested the stop.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The exit status a shell shows for the stop: 128 + the signal number (SIGINT 130,
/// SIGTERM 143, SIGHUP 129).
pub fn exit_status() -> Option<u8> {
    signal().map(|s| u8::try_from(128 + s.clamp(1, 127)).unwrap_or(255))
}

/// The signal's name for messages (`SIGINT`, `SIGTERM`, `SIGHUP`, `SIGPIPE`, else `signal N`).
pub fn signal_name() -> String {
    match signal() {
        Some(1) => "SIGHUP".into(),
        Some(2) => "SIGINT".into(),
        Some(13) => "SIGPIPE".into(),
        Some(15) => "SIGTERM".into(),
        Some(n) => format!("signal {n}"),
        None => "no signal".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_signal_wins_and_maps_to_shell_status() {
        assert!(!requested());
        request(15);
        request(2);
        assert_eq!((signal(), exit_status()), (Some(15), Some(143)));
        assert_eq!(signal_name(), "SIGTERM");
        // The bridge copies the (already made) request into a run's flag.
        let flag = Arc::new(AtomicBool::new(false));
        let b = bridge(flag.clone());
        std::thread::sleep(Duration::from_millis(50));
        drop(b);
        assert!(flag.load(Ordering::SeqCst));
    }
}
