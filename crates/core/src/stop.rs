//! The process-wide stop request: the signal (SIGINT, SIGTERM, SIGHUP) that asked iolab to
//! end, recorded once. Like fio's `exit_backend` flag (fio backend.c `sig_int`), long loops
//! anywhere in the workspace (layout, prefill, data generation, trace reading) poll
//! [`requested`] and end early; the `iolab` binary installs the handlers and turns the
//! signal into the exit status (128 + signal number, as shells report it).
//!
//! Only atomic stores and one `write(2)` happen in the signal handler (async-signal-safe);
//! everything else (writing results, removing temporary files) runs in ordinary threads. The
//! [`spawn_watchdog`] thread is the backstop that ends a command which does not stop by
//! itself within its grace period (or at a second signal); it sleeps in `poll(2)` on a pipe
//! the handler writes a byte to, so it costs nothing until a signal comes (it woke every
//! 20 ms before, beside a run's workers on the same cores).
//!
//! [`Stop`] is one run's or one clone's stop signal (fio's `td->terminate` per thread, with
//! `exit_backend` over all of them): a clone's stop is made from its run's with
//! [`Stop::child`] and reads as set when its own flag, any ancestor's or the process-wide
//! request is set. Nothing copies one flag into another, so no forwarding thread runs beside
//! the workers; a loop that is handed a plain flag polls it through [`StopCheck`] and
//! [`requested`] beside it.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Stop requests received (a second one ends the process at once).
static COUNT: AtomicU32 = AtomicU32::new(0);
/// Milliseconds the command may take to end by itself after the first request.
static GRACE_MS: AtomicU64 = AtomicU64::new(0);
/// The write end of the watchdog's wake-up pipe (-1 until the watchdog runs).
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// Record a stop request for `signal` (the first one wins) and wake the watchdog.
/// Async-signal-safe: atomics and one `write(2)`, with `errno` kept as the interrupted code
/// left it.
pub fn request(signal: i32) {
    let _ = SIGNAL.compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst);
    COUNT.fetch_add(1, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: `__errno_location` is this thread's errno; the write reads one byte from
        // the stack into a non-blocking pipe (a full pipe already holds a wake-up).
        unsafe {
            let errno = libc::__errno_location();
            let saved = *errno;
            libc::write(fd, [1u8].as_ptr().cast(), 1);
            *errno = saved;
        }
    }
}

/// The command polls the stop and writes a partial result: give it `grace` to end by itself
/// before the watchdog ends it.
pub fn set_grace(grace: Duration) {
    GRACE_MS.store(u64::try_from(grace.as_millis()).unwrap_or(u64::MAX), Ordering::SeqCst);
}

/// Start the watchdog: once a stop is requested and the grace period (see [`set_grace`]) has
/// passed, or at a second request, it calls `expire` (which ends the process). Asleep in
/// `poll(2)` until a request writes to its pipe, then until the grace runs out or another
/// request comes; without a pipe (`pipe2` refused) it looks every 20 ms.
pub fn spawn_watchdog(expire: impl FnOnce() + Send + 'static) {
    let mut fds = [-1; 2];
    // SAFETY: `fds` has room for the two descriptors `pipe2` writes.
    let piped = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } == 0;
    if piped {
        WAKE_FD.store(fds[1], Ordering::SeqCst);
    }
    let watch = move || {
        let mut since: Option<Instant> = None;
        loop {
            // The grace left once a stop was requested; `None` before.
            let left = requested().then(|| {
                let t0 = *since.get_or_insert_with(Instant::now);
                Duration::from_millis(GRACE_MS.load(Ordering::SeqCst)).saturating_sub(t0.elapsed())
            });
            if left.is_some_and(|l| l.is_zero()) || COUNT.load(Ordering::SeqCst) >= 2 {
                expire();
                return;
            }
            if piped {
                wait_readable(fds[0], left);
            } else {
                std::thread::sleep(left.unwrap_or(Duration::MAX).min(Duration::from_millis(20)));
            }
        }
    };
    let _ = std::thread::Builder::new().name("iolab-stop-watchdog".into()).spawn(watch);
}

/// Sleep until `fd` is readable or `left` has passed (`None`: no limit), then empty it.
fn wait_readable(fd: i32, left: Option<Duration>) {
    let ms = left.map_or(-1, |d| i32::try_from(d.as_millis().max(1)).unwrap_or(i32::MAX));
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid `pollfd`; `buf` has room for the bytes `read` is allowed.
    unsafe {
        libc::poll(&mut p, 1, ms);
        let mut buf = [0u8; 64];
        while libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) > 0 {}
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
        // Every run's stop reads the request: no thread has to copy it in.
        assert!(Stop::new().child().is_set());
    }
}
