//! The server's side: accept, prove, then serve one session's pings and job.
//!
//! Connections are accepted and authenticated concurrently (at most [`MAX_PEERS`] at once),
//! but jobs run one at a time: a session whose job arrives while another client's job is
//! prepared or running is told `queued` every [`BEAT`] until its turn, so two clients' I/O
//! never mix and each result holds only its own jobs. A peer that fails the proof is dropped
//! before any job frame is read, and the refusal is logged.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use iolab_stats::RunResult;

use crate::auth::{server_handshake, unexpected, Secret};
use crate::proto::{now_ns, read_msg, write_msg, JobFile, Msg, MAX_FRAME};
use crate::RemoteError;

/// How often a running (or queued) job says so.
pub const BEAT: Duration = Duration::from_millis(500);
/// Connections served at once; more are closed at once.
pub const MAX_PEERS: usize = 16;
/// The furthest ahead a start instant may be.
const MAX_LEAD_NS: i64 = 60_000_000_000;

/// A job checked and ready to start.
pub trait Prepared: Send {
    /// Run it; the error is one line.
    fn run(self: Box<Self>) -> Result<RunResult, String>;
}

/// What turns a client's job into a checked, ready job: the caller's local run.
pub trait Runner: Send + Sync {
    /// Read and check `args` (job files named in them are in `files`) as a local run would.
    fn prepare(&self, args: &[String], files: &[JobFile]) -> Result<Box<dyn Prepared>, String>;
}

/// The server's settings.
#[derive(Clone)]
pub struct ServerConfig {
    pub secret: Secret,
    /// Read timeout before the proof.
    pub handshake_timeout: Duration,
    /// Read timeout between frames after it.
    pub idle_timeout: Duration,
    /// Where log lines go (stderr in the CLI).
    pub log: Arc<dyn Fn(&str) + Send + Sync>,
    /// Polled between connections: stop listening when true (a signal).
    pub stop: Arc<dyn Fn() -> bool + Send + Sync>,
}

/// The writer a session and its beat thread share.
pub type SharedWriter = Arc<Mutex<Box<dyn Write + Send>>>;

/// Listen on `listener` until `cfg.stop`; each connection in its own thread.
pub fn listen(
    listener: TcpListener,
    cfg: &ServerConfig,
    runner: Arc<dyn Runner>,
) -> Result<(), RemoteError> {
    let here = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
    let io = |e: std::io::Error| RemoteError::Io { peer: here.clone(), why: e.to_string() };
    listener.set_nonblocking(true).map_err(io)?;
    let turn = Arc::new(Mutex::new(()));
    let active = Arc::new(AtomicUsize::new(0));
    while !(cfg.stop)() {
        let (stream, addr) = match listener.accept() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) => {
                (cfg.log)(&format!("accept: {e}"));
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if active.load(Ordering::SeqCst) >= MAX_PEERS {
            (cfg.log)(&format!("{addr}: closed: {MAX_PEERS} connections already open"));
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (cfg, runner, turn, active) =
            (cfg.clone(), runner.clone(), turn.clone(), active.clone());
        std::thread::spawn(move || {
            let peer = addr.to_string();
            if let Err(e) = serve_tcp(stream, &peer, &cfg, runner.as_ref(), &turn) {
                (cfg.log)(&format!("{e}"));
            }
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

fn serve_tcp(
    stream: TcpStream,
    peer: &str,
    cfg: &ServerConfig,
    runner: &dyn Runner,
    turn: &Mutex<()>,
) -> Result<(), RemoteError> {
    let io = |e: std::io::Error| RemoteError::Io { peer: peer.into(), why: e.to_string() };
    stream.set_nonblocking(false).map_err(io)?;
    stream.set_nodelay(true).map_err(io)?;
    stream.set_read_timeout(Some(cfg.handshake_timeout)).map_err(io)?;
    let mut r = stream.try_clone().map_err(io)?;
    let w: SharedWriter = Arc::new(Mutex::new(Box::new(stream.try_clone().map_err(io)?)));
    let timeout = cfg.idle_timeout;
    let after_proof = move || stream.set_read_timeout(Some(timeout)).map_err(io);
    serve(&mut r, &w, peer, cfg, runner, turn, &after_proof)
}

/// One session on any byte stream (a TCP connection, or stdin/stdout with `--stdio`).
pub fn serve(
    r: &mut dyn Read,
    w: &SharedWriter,
    peer: &str,
    cfg: &ServerConfig,
    runner: &dyn Runner,
    turn: &Mutex<()>,
    after_proof: &dyn Fn() -> Result<(), RemoteError>,
) -> Result<(), RemoteError> {
    let proved = {
        let mut g = lock(w);
        server_handshake(r, &mut *g, &cfg.secret, peer)
    };
    if let Err(e) = proved {
        (cfg.log)(&format!("{peer}: refused before any job: {e}"));
        return Ok(());
    }
    (cfg.log)(&format!("{peer}: authenticated"));
    after_proof()?;
    loop {
        let msg = match read_msg(r, MAX_FRAME, peer, "awaiting a ping or a job") {
            Err(RemoteError::Closed { .. }) => return Ok(()),
            m => m?,
        };
        match msg {
            Msg::Ping { t0 } => {
                let t1 = now_ns();
                send(w, &Msg::Pong { t0, t1, t2: now_ns() }, peer)?;
            }
            Msg::Job { args, files } => {
                let _turn = wait_turn(turn, w, peer, cfg)?;
                job(r, w, peer, cfg, runner, (&args, &files))?;
            }
            m => {
                let e = unexpected(peer, &m, "instead of a ping or a job");
                let _ = send(w, &Msg::Failed { why: e.to_string() }, peer);
                return Err(e);
            }
        }
    }
}

fn lock(w: &SharedWriter) -> MutexGuard<'_, Box<dyn Write + Send>> {
    w.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn send(w: &SharedWriter, m: &Msg, peer: &str) -> Result<(), RemoteError> {
    write_msg(&mut *lock(w), m, peer)
}

/// This session's turn to run a job: `queued` every beat while another holds it.
fn wait_turn<'a>(
    turn: &'a Mutex<()>,
    w: &SharedWriter,
    peer: &str,
    cfg: &ServerConfig,
) -> Result<MutexGuard<'a, ()>, RemoteError> {
    let mut told = false;
    loop {
        match turn.try_lock() {
            Ok(g) => return Ok(g),
            Err(TryLockError::Poisoned(p)) => return Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => {
                if !told {
                    (cfg.log)(&format!("{peer}: queued behind another client's job"));
                    told = true;
                }
                send(w, &Msg::Queued, peer)?;
                std::thread::sleep(BEAT);
            }
        }
    }
}

/// Prepare the job, await the start, run it at the instant with beats, send the result.
fn job(
    r: &mut dyn Read,
    w: &SharedWriter,
    peer: &str,
    cfg: &ServerConfig,
    runner: &dyn Runner,
    (args, files): (&[String], &[JobFile]),
) -> Result<(), RemoteError> {
    let prepared = match runner.prepare(args, files) {
        Ok(p) => p,
        Err(why) => {
            (cfg.log)(&format!("{peer}: job refused: {why}"));
            return send(w, &Msg::Failed { why }, peer);
        }
    };
    send(w, &Msg::Ready, peer)?;
    let at_ns = match read_msg(r, MAX_FRAME, peer, "awaiting the start")? {
        Msg::Start { at_ns } => at_ns,
        m => return Err(unexpected(peer, &m, "instead of the start")),
    };
    if at_ns.saturating_sub(now_ns()) > MAX_LEAD_NS {
        let why = format!("start instant {at_ns} is more than 60 s ahead of this host's clock");
        return send(w, &Msg::Failed { why }, peer);
    }
    wait_until(at_ns);
    let start_skew_ns = now_ns() - at_ns;
    (cfg.log)(&format!("{peer}: running, start skew {start_skew_ns} ns"));
    // The beat thread sleeps on a channel: dropping `stop` wakes it at once when the run ends.
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let beats = {
        let (w, peer) = (w.clone(), peer.to_string());
        std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(BEAT) {
                if send(&w, &Msg::Beat, &peer).is_err() {
                    return;
                }
            }
        })
    };
    let outcome = prepared.run();
    drop(stop);
    let _ = beats.join();
    let msg = match outcome {
        Ok(result) => Msg::Done { result: Box::new(result), start_skew_ns },
        Err(why) => Msg::Failed { why },
    };
    (cfg.log)(&format!("{peer}: job {}", msg.name()));
    send(w, &msg, peer)
}

/// Sleep until the realtime clock reaches `at_ns`, the last 2 ms spinning.
fn wait_until(at_ns: i64) {
    loop {
        let left = at_ns - now_ns();
        if left <= 0 {
            return;
        }
        if left > 2_000_000 {
            std::thread::sleep(Duration::from_nanos((left - 2_000_000) as u64).min(BEAT));
        } else {
            std::hint::spin_loop();
        }
    }
}
