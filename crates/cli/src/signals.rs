//! Signal wiring for the `iolab` binary: SIGINT, SIGTERM and SIGHUP request a stop
//! (`iolab_core::stop`, polled by the long loops like fio's `exit_backend`, fio backend.c
//! `sig_int`); the command then writes what it gathered, marked interrupted, removes its
//! temporary files and exits with 128 + the signal number (130, 143, 129).
//!
//! `iolab_core::stop`'s watchdog is the backstop: when the command does not poll the stop (a
//! phase with no partial result, such as a blocked open of a FIFO), when it has not ended
//! within the grace period, or on a second signal, it removes the registered temporary files
//! (`iolab_report::output`) and ends the process here. A broken pipe on stdout (SIGPIPE
//! ignored, EPIPE seen) ends quietly with the same clean-up and status 141.

extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomic stores: async-signal-safe.
    iolab_core::stop::request(sig);
}

/// Install the handlers, ignore SIGPIPE (a write then fails with EPIPE, handled in
/// [`broken_pipe_exit`]) and start the watchdog. Call first thing in `main`.
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
    iolab_core::stop::spawn_watchdog(expire);
}

/// The watchdog's end: temporaries removed, one line, 128 + the signal.
fn expire() {
    let removed = iolab_report::output::remove_temporaries();
    let what = match removed {
        0 => String::new(),
        n => format!("; removed {n} temporary file(s)"),
    };
    eprintln!("iolab: {}: stopped{what}", iolab_core::stop::signal_name());
    std::process::exit(i32::from(iolab_core::stop::exit_status().unwrap_or(130)));
}

/// stdout's reader went away: remove temporaries and end quietly, killed by SIGPIPE as fio
/// is (a shell shows 141; a parent's `wait` sees the signal). SIGPIPE's default action is
/// restored and the signal raised; should it not end the process, the status is 141.
pub fn broken_pipe_exit() -> ! {
    iolab_report::output::remove_temporaries();
    // SAFETY: SIG_DFL installs no handler code; raise(3) sends the signal to this thread,
    // whose default action ends the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
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
