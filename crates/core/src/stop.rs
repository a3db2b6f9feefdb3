//! The process-wide stop request: the signal (SIGINT, SIGTERM, SIGHUP) that asked iolab to
//! end, recorded once. Like fio's `exit_backend` flag (fio backend.c `sig_int`), long loops
//! anywhere in the workspace (layout, prefill, data generation, trace reading) poll
//! [`requested`] and end early; the `iolab` binary installs the handlers and turns the
//! signal into the exit status (128 + signal number, as shells report it).
//!
//! Only atomic stores happen in the signal handler (async-signal-safe); everything else
//! (writing results, removing temporary files) runs in ordinary threads: a [`Bridge`] copies
//! the request into a plain run flag where a loop is handed one, and the [`spawn_watchdog`]
//! thread is the backstop that ends a command which does not stop by itself within its grace
//! period (or at a second signal).
//!
//! [`Stop`] is one run's or one clone's stop signal (fio's `td->terminate` per thread, with
//! `exit_backend` over all of them): a clone's stop is made from its run's with
//! [`Stop::child`] and reads as set when its own flag, any ancestor's or the process-wide
//! request is set. Nothing copies one flag into another, so no forwarding thread runs beside
//! the workers; a loop that is handed a plain flag polls it through [`StopCheck`].

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
            // Unparked by the drop: the run's end does not wait out the 10 ms.
            std::thread::park_timeout(Duration::from_millis(10));
        }
    });
    Bridge { over, thread: Some(thread) }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.over.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
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

/// What a long loop polls to know it should end.
pub trait StopCheck: Sync {
    /// Whether the loop should end now.
    fn is_set(&self) -> bool;
}

impl StopCheck for AtomicBool {
    fn is_set(&self) -> bool {
        self.load(Ordering::Relaxed)
    }
}

/// One run's or one clone's stop signal: set by its owner ([`Stop::set`]), by an ancestor
/// (a clone's parent is its run) or by the process-wide [`request`]. Cloning shares the flag.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    parent: Option<Arc<Stop>>,
}

impl Stop {
    /// A stop of its own (no parent), not set.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// A stop that ends with this one but can also be set alone (one clone of a run, whose
    /// job fio's `steadystate` may end while the others go on).
    pub fn child(&self) -> Stop {
        Stop { flag: Arc::default(), parent: Some(Arc::new(self.clone())) }
    }

    /// Set this stop (and so every child made from it).
    pub fn set(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Whether this stop, an ancestor or the process-wide request is set.
    pub fn is_set(&self) -> bool {
        self.flagged() || requested()
    }

    /// Whether this stop's own flag or an ancestor's is set.
    fn flagged(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.parent.as_ref().is_some_and(|p| p.flagged())
    }
}

/// A caller's own flag (set by it, e.g. on a signal of its own) as a run's stop.
impl From<Arc<AtomicBool>> for Stop {
    fn from(flag: Arc<AtomicBool>) -> Stop {
        Stop { flag, parent: None }
    }
}

impl StopCheck for Stop {
    fn is_set(&self) -> bool {
        Stop::is_set(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_stops_with_its_run_or_alone() {
        let flag = Arc::new(AtomicBool::new(false));
        let run = Stop::from(flag.clone());
        let (a, b) = (run.child(), run.child());
        let grandchild = a.child();
        a.set();
        let flagged = [&run, &a, &b, &grandchild].map(Stop::flagged);
        assert_eq!(flagged, [false, true, false, true]);
        flag.store(true, Ordering::SeqCst);
        assert!(run.flagged() && b.flagged() && StopCheck::is_set(&*flag));
    }

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
        // Every run's stop reads the request: no thread has to copy it in.
        assert!(Stop::new().child().is_set());
    }
}
