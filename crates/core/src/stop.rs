//! The process-wide stop request: the signal (SIGINT, SIGTERM, SIGHUP) that asked iolab to
//! end, recorded once. Like fio's `exit_backend` flag (fio backend.c `sig_int`), long loops
//! anywhere in the workspace (layout, prefill, data generation, trace reading) poll
//! [`requested`] and end early; the `iolab` binary installs the handlers and turns the
//! signal into the exit status (128 + signal number, as shells report it).
//!
//! Only an atomic store happens in the signal handler (async-signal-safe); everything else
//! (writing results, removing temporary files) runs in ordinary threads.

use std::sync::atomic::{AtomicI32, Ordering};

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
    }
}
