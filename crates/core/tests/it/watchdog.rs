//! The stop watchdog sleeps until a request comes (no wake-ups while a run goes on), then
//! ends the command once its grace period has passed.

use iolab_core::stop;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Voluntary context switches of this process's thread named `name` (`/proc/self/task`).
fn switches(name: &str) -> Option<u64> {
    for t in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let status = std::fs::read_to_string(t.path().join("status")).ok()?;
            let line = status.lines().find(|l| l.starts_with("voluntary_ctxt_switches:"))?;
            return line.split_whitespace().nth(1)?.parse().ok();
        }
    }
    None
}

#[test]
fn the_watchdog_sleeps_until_a_request_then_waits_out_the_grace() {
    let (tx, rx) = mpsc::channel();
    stop::set_grace(Duration::from_millis(300));
    stop::spawn_watchdog(move || {
        let _ = tx.send(Instant::now());
    });
    // The thread's name as /proc shows it (15 bytes).
    let name = "iolab-stop-watc";
    std::thread::sleep(Duration::from_millis(50));
    let before = switches(name).expect("the watchdog thread runs");
    assert!(rx.recv_timeout(Duration::from_millis(400)).is_err(), "expired with no request");
    let after = switches(name).expect("the watchdog thread still runs");
    // Polling every 20 ms would have woken it about 20 times in those 400 ms.
    assert!(after - before <= 1, "the watchdog woke {} times with no request", after - before);
    let t0 = Instant::now();
    stop::request(libc::SIGTERM);
    let at = rx.recv_timeout(Duration::from_secs(5)).expect("the watchdog ends the command");
    let waited = at.duration_since(t0);
    assert!(waited >= Duration::from_millis(290), "expired after {waited:?}, before the grace");
    // The grace is 300 ms; a watchdog that polled or ignored the request would show as the
    // 5 s receive timeout above. 2 s of scheduling delay is room for a loaded machine.
    assert!(waited < Duration::from_millis(2300), "expired {waited:?} after the request");
    assert_eq!(stop::exit_status(), Some(143));
}
