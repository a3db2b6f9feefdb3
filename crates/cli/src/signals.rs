//! Signals for the `iolab` binary. SIGINT, SIGTERM and SIGHUP request a stop
//! (`iolab_core::stop`, polled by the long loops like fio's `exit_backend`, fio backend.c
//! `sig_int`); the command then writes what it gathered, marked interrupted, removes its
//! temporary files and exits with 128 + the signal number (130, 143, 129).
//!
//! A watcher thread is the backstop: when the command does not poll the stop (a phase with no
//! partial result, such as a simulation or a blocked open of a FIFO), when it has not ended
//! within the grace period, or on a second signal, the watcher removes the registered
//! temporary files (`iolab_report::output`) and ends the process itself. A broken pipe on
//! stdout (SIGPIPE ignored, EPIPE seen) ends quietly with the same clean-up and status 141.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Signals received (a second one ends the process at once).
static COUNT: AtomicU32 = AtomicU32::new(0);
/// Milliseconds the command may take to end by itself after the first signal.
static GRACE_MS: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomic stores: async-signal-safe.
    iolab_core::stop::request(sig);
    COUNT.fetch_add(1, Ordering::SeqCst);
}

/// Install the handlers, ignore SIGPIPE (a write then fails with EPIPE, handled in
/// [`broken_pipe_exit`]) and start the watcher. Call first thing in `main`.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the handler only does
        // atomic stores, which are async-signal-safe; `sa` outlives the call.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    // SAFETY: SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // `println!` to a closed pipe panics with "failed printing to stdout: Broken pipe".
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            broken_pipe_exit();
        }
        default_hook(info);
    }));
    let _ = std::thread::Builder::new().name("iolab-signals".into()).spawn(watch);
}

/// The command polls the stop and writes a partial result: give it `grace` to end by itself.
pub fn polled(grace: Duration) {
    GRACE_MS.store(grace.as_millis() as u64, Ordering::SeqCst);
}

fn watch() {
    let mut since: Option<Instant> = None;
    loop {
        std::thread::sleep(Duration::from_millis(20));
        if !iolab_core::stop::requested() {
            continue;
        }
        let t0 = *since.get_or_insert_with(Instant::now);
        let grace = Duration::from_millis(GRACE_MS.load(Ordering::SeqCst));
        if COUNT.load(Ordering::SeqCst) >= 2 || t0.elapsed() >= grace {
            let removed = iolab_report::output::remove_temporaries();
            eprintln!(
                "iolab: {}: stopped{}",
                iolab_core::stop::signal_name(),
                if removed > 0 {
                    format!("; removed {removed} temporary file(s)")
                } else {
                    "".into()
                }
            );
            std::process::exit(i32::from(iolab_core::stop::exit_status().unwrap_or(130)));
        }
    }
}

/// stdout's reader went away: remove temporaries and end quietly (128 + SIGPIPE).
pub fn broken_pipe_exit() -> ! {
    iolab_report::output::remove_temporaries();
    std::process::exit(128 + libc::SIGPIPE)
}

/// Whether `e` is (caused by) a broken pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.to_string().contains("Broken pipe")
    })
}

/// Copies the process-wide stop into a run's own stop flag (the engine's workers poll that
/// one) until dropped.
pub struct Bridge {
    over: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Start copying the stop request into `stop`.
pub fn bridge(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Bridge {
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let o = over.clone();
    let thread = std::thread::spawn(move || {
        while !o.load(Ordering::SeqCst) {
            if iolab_core::stop::requested() {
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
