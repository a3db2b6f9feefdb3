//! The server's side: accept, prove, then serve one session's pings and job.
//!
//! Connections are accepted and authenticated concurrently (at most [`MAX_PEERS`] at once),
//! but jobs run one at a time: a session whose job arrives while another client's job is
//! prepared or running is told `queued` every [`BEAT`] until its turn, so two clients' I/O
//! never mix and each result holds only its own jobs. A peer that fails the proof is dropped
//! before any job frame is read, and the refusal is logged.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use iolab_stats::hosts::delta::DeltaTracker;
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

pub mod state;
use state::IntervalLog;

/// The shortest and longest `--status-interval` a server takes.
pub const INTERVAL_NS: std::ops::RangeInclusive<u64> = 1_000_000..=86_400_000_000_000;

/// What a running job hands each periodic snapshot to (cumulative, as fio's
/// `--status-interval` builds it), and how often.
pub struct Periodic {
    pub every: Duration,
    pub emit: Box<dyn FnMut(&RunResult) + Send>,
}

/// A job checked and ready to start.
pub trait Prepared: Send {
    /// Run it, giving `periodic` a snapshot every period; the error is one line.
    fn run(self: Box<Self>, periodic: Option<Periodic>) -> Result<RunResult, String>;
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
    /// The private directory of the jobs' interval files ([`state`]); `None`: intervals
    /// are refused.
    pub state_dir: Option<std::path::PathBuf>,
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
            Msg::Job { args, files, interval_ns } => {
                let kept = {
                    let _turn = wait_turn(turn, w, peer, cfg)?;
                    job(r, w, peer, cfg, runner, (&args, &files, interval_ns))?
                };
                if let Some(log) = kept {
                    await_received(r, peer, cfg, log);
                }
            }
            // A result without intervals needs no receipt.
            Msg::Received => {}
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

/// The client's job, its files, and its interval (ns, 0 for none).
type JobArgs<'a> = (&'a [String], &'a [JobFile], u64);

/// Prepare the job, await the start, run it at the instant with beats (or intervals), send
/// the result; the interval file to remove once the client has it.
fn job(
    r: &mut dyn Read,
    w: &SharedWriter,
    peer: &str,
    cfg: &ServerConfig,
    runner: &dyn Runner,
    (args, files, interval_ns): JobArgs<'_>,
) -> Result<Option<IntervalLog>, RemoteError> {
    let prepared = match check_interval(interval_ns, cfg).and_then(|()| runner.prepare(args, files))
    {
        Ok(p) => p,
        Err(why) => {
            (cfg.log)(&format!("{peer}: job refused: {why}"));
            return send(w, &Msg::Failed { why }, peer).map(|()| None);
        }
    };
    send(w, &Msg::Ready, peer)?;
    let at_ns = match read_msg(r, MAX_FRAME, peer, "awaiting the start")? {
        Msg::Start { at_ns } => at_ns,
        m => return Err(unexpected(peer, &m, "instead of the start")),
    };
    if at_ns.saturating_sub(now_ns()) > MAX_LEAD_NS {
        let why = format!("start instant {at_ns} is more than 60 s ahead of this host's clock");
        return send(w, &Msg::Failed { why }, peer).map(|()| None);
    }
    let stream = match open_stream(interval_ns, at_ns, w, peer, cfg) {
        Ok(s) => s,
        Err(why) => return send(w, &Msg::Failed { why }, peer).map(|()| None),
    };
    wait_until(at_ns);
    let start_skew_ns = now_ns() - at_ns;
    (cfg.log)(&format!("{peer}: running, start skew {start_skew_ns} ns"));
    let flowing = stream.as_ref().map(|s| s.flowing.clone()).unwrap_or_default();
    let beats = beat_thread(w, peer, flowing);
    let outcome = prepared.run(stream.as_ref().map(|s| s.periodic(interval_ns)));
    drop(beats);
    let log = stream.and_then(|s| s.finish(outcome.as_ref().ok()));
    let msg = match outcome {
        Ok(result) => Msg::Done {
            result: Box::new(result),
            start_skew_ns,
            interval_file: log.as_ref().map(|l| l.path.display().to_string()),
        },
        Err(why) => Msg::Failed { why },
    };
    (cfg.log)(&format!("{peer}: job {}", msg.name()));
    if let Err(e) = send(w, &msg, peer) {
        if let Some(l) = &log {
            (cfg.log)(&format!(
                "{peer}: coordinator lost; its intervals are kept in {}",
                l.path.display()
            ));
        }
        return Err(e);
    }
    Ok(log)
}

/// A client's interval: within [`INTERVAL_NS`], and only with a state directory.
fn check_interval(interval_ns: u64, cfg: &ServerConfig) -> Result<(), String> {
    if interval_ns == 0 {
        return Ok(());
    }
    if !INTERVAL_NS.contains(&interval_ns) {
        return Err(format!("--status-interval of {interval_ns} ns: expected 1 ms to 1 day"));
    }
    match &cfg.state_dir {
        Some(d) => state::check_dir(d),
        None => Err(
            "--status-interval: this server has no state directory for its intervals (--state-dir)"
                .into(),
        ),
    }
}

/// Beats every [`BEAT`] until the returned sender is dropped, or until intervals flow.
fn beat_thread(w: &SharedWriter, peer: &str, flowing: Arc<AtomicBool>) -> BeatGuard {
    // The beat thread sleeps on a channel: dropping `stop` wakes it at once when the run ends.
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let (w, peer) = (w.clone(), peer.to_string());
    let handle = std::thread::spawn(move || {
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(BEAT) {
            if flowing.load(Ordering::SeqCst) {
                continue;
            }
            if send(&w, &Msg::Beat, &peer).is_err() {
                return;
            }
        }
    });
    BeatGuard { stop: Some(stop), handle: Some(handle) }
}

/// Stops and joins the beat thread when dropped.
struct BeatGuard {
    stop: Option<std::sync::mpsc::Sender<()>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Drop for BeatGuard {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A job's interval stream: the tracker, the local file, the client's writer.
struct Stream {
    shared: Arc<Mutex<(DeltaTracker, Option<IntervalLog>)>>,
    w: SharedWriter,
    peer: String,
    at_ns: i64,
    flowing: Arc<AtomicBool>,
    log: Arc<dyn Fn(&str) + Send + Sync>,
}

fn open_stream(
    interval_ns: u64,
    at_ns: i64,
    w: &SharedWriter,
    peer: &str,
    cfg: &ServerConfig,
) -> Result<Option<Stream>, String> {
    if interval_ns == 0 {
        return Ok(None);
    }
    let dir = cfg.state_dir.as_deref().ok_or("--status-interval: no --state-dir")?;
    let file = IntervalLog::create(dir, at_ns)?;
    (cfg.log)(&format!(
        "{peer}: intervals kept in {} until the client has the result",
        file.path.display()
    ));
    Ok(Some(Stream {
        shared: Arc::new(Mutex::new((DeltaTracker::default(), Some(file)))),
        w: w.clone(),
        peer: peer.to_string(),
        at_ns,
        flowing: Arc::new(AtomicBool::new(false)),
        log: cfg.log.clone(),
    }))
}

impl Stream {
    /// One interval out: its deltas appended to the file, then sent.
    fn put(&self, snapshot: &RunResult, last: bool) {
        let end_ns = u64::try_from(now_ns().saturating_sub(self.at_ns)).unwrap_or(0);
        let mut g = self.shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let delta = g.0.next(snapshot, end_ns, last);
        if let Some(f) = g.1.as_mut() {
            if let Err(e) = f.append(&delta) {
                (self.log)(&format!("{}: {e}; the intervals are no longer kept", self.peer));
                g.1 = None;
            }
        }
        drop(g);
        // A client gone mid-run: the job goes on and the file keeps the intervals.
        let _ = send(&self.w, &Msg::Interval { delta: Box::new(delta) }, &self.peer);
        self.flowing.store(true, Ordering::SeqCst);
    }

    fn periodic(&self, interval_ns: u64) -> Periodic {
        let me = Stream {
            shared: self.shared.clone(),
            w: self.w.clone(),
            peer: self.peer.clone(),
            at_ns: self.at_ns,
            flowing: self.flowing.clone(),
            log: self.log.clone(),
        };
        Periodic {
            every: Duration::from_nanos(interval_ns),
            emit: Box::new(move |r| me.put(r, false)),
        }
    }

    /// The remainder up to the final result; the file, for removal once the client has it.
    fn finish(self, result: Option<&RunResult>) -> Option<IntervalLog> {
        if let Some(r) = result {
            self.put(r, true);
        }
        let mut g = self.shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        g.1.take()
    }
}

/// After `done`: the client's `received` removes the job's interval file; anything else (the
/// client gone, a timeout) keeps it, named in the log.
fn await_received(r: &mut dyn Read, peer: &str, cfg: &ServerConfig, log: IntervalLog) {
    match read_msg(r, MAX_FRAME, peer, "awaiting received") {
        Ok(Msg::Received) => {
            let shown = log.path.display().to_string();
            match log.remove() {
                Ok(()) => (cfg.log)(&format!("{peer}: the client has the result; {shown} removed")),
                Err(e) => (cfg.log)(&format!("{peer}: {e}")),
            }
        }
        Ok(m) => (cfg.log)(&format!(
            "{peer}: {} instead of received; its intervals are kept in {}",
            m.name(),
            log.path.display()
        )),
        Err(e) => (cfg.log)(&format!(
            "{peer}: coordinator lost ({e}); its intervals are kept in {}",
            log.path.display()
        )),
    }
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
