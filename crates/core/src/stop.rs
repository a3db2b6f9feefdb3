//! The process-wide stop request: the signal (SIGINT, SIGTERM, SIGHUP) that asked iolab to
//! end, recorded once. Like fio's `exit_backend` flag (fio backend.c `sig_int`), long loops
//! anywhere in the workspace (layout, prefill, data generation, trace reading) poll
//! [`requested`] and end early; the `iolab` binary installs the handlers and turns the
//! signal into the exit status (128 + signal number, as shells report it).
//!
//! Only an atomic store happens in the signal handler (async-signal-safe); everything else
//! (writing results, removing temporary files) runs in ordinary threads.
//!
//! [`Stop`] is one run's or one clone's stop signal (fio's `td->terminate` per thread, with
//! `exit_backend` over all of them): a clone's stop is made from its run's with
//! [`Stop::child`] and reads as set when its own flag, any ancestor's or the process-wide
//! request is set. Nothing copies one flag into another, so no forwarding thread runs beside
//! the workers; a loop that is handed a plain flag polls it through [`StopCheck`].

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Record a stop request for `signal` (the first one wins). Async-signal-safe.
pub fn request(signal: i32) {
    let _ = SIGNAL.compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst);
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
        // Every run's stop reads the request: no thread has to copy it in.
        assert!(Stop::new().child().is_set());
    }
}
