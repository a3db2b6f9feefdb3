//! The coordinator's side: the hosts named by `--client`, one session per host, the common
//! start and the results.
//!
//! Every host's frames are read by a thread of its own into a channel, so a host that stops
//! sending (dead, stopped, cut off) is noticed after `host_timeout` whatever its transport.
//! The clock is measured as NTP does (RFC 5905): over a few pings the one with the shortest
//! round trip gives `offset = ((t1 - t0) + (t2 - t3)) / 2`, the host's clock minus ours.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use iolab_stats::hosts::delta::{HostInterval, HostTotals};
use iolab_stats::hosts::HostRun;

use crate::auth::{client_handshake, unexpected, Secret};
use crate::proto::{now_ns, read_msg, write_msg, JobFile, Msg, DEFAULT_PORT, MAX_FRAME, MAX_HELLO};
use crate::RemoteError;

/// Pings per host for the clock.
const PINGS: usize = 5;
/// The largest hostfile.
const MAX_HOSTFILE: u64 = 1 << 20;

/// Where a host is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostSpec {
    Tcp {
        host: String,
        port: u16,
    },
    /// `ssh://[user@]host`: `iolab server --stdio` started over ssh.
    Ssh {
        target: String,
    },
}

impl HostSpec {
    /// The port (0 over ssh).
    pub fn port(&self) -> u16 {
        match self {
            HostSpec::Tcp { port, .. } => *port,
            HostSpec::Ssh { .. } => 0,
        }
    }

    /// The host's name as the result shows it.
    pub fn hostname(&self) -> &str {
        match self {
            HostSpec::Tcp { host, .. } => host,
            HostSpec::Ssh { target } => target.rsplit('@').next().unwrap_or(target),
        }
    }
}

impl std::fmt::Display for HostSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostSpec::Tcp { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            HostSpec::Tcp { host, port } => write!(f, "{host}:{port}"),
            HostSpec::Ssh { target } => write!(f, "ssh://{target}"),
        }
    }
}

impl FromStr for HostSpec {
    type Err = String;

    /// `host`, `host:port`, `[v6]:port`, `ssh://[user@]host`; ports 1-65535.
    fn from_str(s: &str) -> Result<HostSpec, String> {
        let bad = |why: &str| format!("'{}': {why}", s.escape_default());
        if let Some(t) = s.strip_prefix("ssh://") {
            let host = t.rsplit('@').next().unwrap_or_default();
            if host.is_empty() || t.contains(['/', ' ', ':']) || t.starts_with('-') {
                return Err(bad("expected ssh://[user@]host"));
            }
            return Ok(HostSpec::Ssh { target: t.to_string() });
        }
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, after) = rest.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
            (h, after.strip_prefix(':'))
        } else if s.matches(':').count() > 1 {
            (s, None)
        } else {
            match s.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (s, None),
            }
        };
        if host.is_empty() || host.starts_with('-') || host.contains(char::is_whitespace) {
            return Err(bad("expected HOST[:PORT]"));
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?,
        };
        Ok(HostSpec::Tcp { host: host.to_string(), port })
    }
}

/// One host and the options its hostfile line adds for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLine {
    pub spec: HostSpec,
    pub extra: Vec<String>,
}

/// `--client`'s value: an existing file is a hostfile (one `host[:port] [--option=value…]`
/// per line, `#` comments), anything else a comma-separated list of hosts.
pub fn parse_hosts(value: &str) -> Result<Vec<HostLine>, RemoteError> {
    let err = |why: String| RemoteError::Host { spec: "--client".into(), why };
    let path = Path::new(value);
    let lines = if !value.is_empty() && path.is_file() {
        hostfile(path)?
    } else {
        let mut v = Vec::new();
        for h in value.split(',') {
            v.push(HostLine { spec: h.parse().map_err(err)?, extra: Vec::new() });
        }
        v
    };
    if lines.is_empty() {
        return Err(err("names no host".into()));
    }
    Ok(lines)
}

fn hostfile(path: &Path) -> Result<Vec<HostLine>, RemoteError> {
    let at = |n: usize, why: String| RemoteError::Host {
        spec: format!("--client: hostfile {} line {n}", path.display()),
        why,
    };
    let f = std::fs::File::open(path).map_err(|e| at(0, e.to_string()))?;
    let mut text = String::new();
    f.take(MAX_HOSTFILE + 1).read_to_string(&mut text).map_err(|e| at(0, e.to_string()))?;
    if text.len() as u64 > MAX_HOSTFILE {
        return Err(at(0, format!("the hostfile is over {MAX_HOSTFILE} bytes")));
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let mut words = line.split_whitespace();
        let Some(host) = words.next() else { continue };
        let spec = host.parse().map_err(|e| at(i + 1, e))?;
        let extra: Vec<String> = words.map(str::to_string).collect();
        if let Some(w) = extra.iter().find(|w| !w.starts_with("--") || w.len() < 3) {
            return Err(at(i + 1, format!("'{}' is not an --option=value", w.escape_default())));
        }
        out.push(HostLine { spec, extra });
    }
    Ok(out)
}

/// The clock as measured against one host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// The host's clock minus ours, ns.
    pub offset_ns: i64,
    /// The shortest round trip, ns.
    pub rtt_ns: i64,
}

/// One host's open session.
pub struct Session {
    pub peer: String,
    w: Box<dyn Write + Send>,
    rx: Receiver<Result<Msg, RemoteError>>,
    timeout: Duration,
    child: Option<Child>,
    tcp: Option<TcpStream>,
    pub clock: Clock,
    /// How long the connection and proof took.
    pub handshake: Duration,
    /// The host's intervals added up so far (checked as they come).
    pub totals: HostTotals,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(t) = &self.tcp {
            let _ = t.shutdown(std::net::Shutdown::Both);
        }
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Session {
    /// A session over any pair of streams (a TCP connection, a child's stdio); frames are read
    /// by a thread of its own. The first two frames may be at most `MAX_HELLO` bytes.
    pub fn over(
        r: Box<dyn Read + Send>,
        w: Box<dyn Write + Send>,
        peer: &str,
        timeout: Duration,
    ) -> Session {
        let (tx, rx) = channel();
        let p = peer.to_string();
        std::thread::spawn(move || {
            let mut r = r;
            for n in 0.. {
                let max = if n < 2 { MAX_HELLO } else { MAX_FRAME };
                let m = read_msg(&mut r, max, &p, "reading");
                let end = m.is_err();
                if tx.send(m).is_err() || end {
                    return;
                }
            }
        });
        let (peer, clock) = (peer.to_string(), Clock::default());
        Session {
            peer,
            w,
            rx,
            timeout,
            child: None,
            tcp: None,
            clock,
            handshake: Duration::ZERO,
            totals: HostTotals::default(),
        }
    }

    /// Connect to `spec` (TCP, or ssh running `iolab server --stdio`).
    pub fn connect(
        spec: &HostSpec,
        secret_file: &Path,
        timeout: Duration,
    ) -> Result<Session, RemoteError> {
        let peer = spec.to_string();
        let io = |e: std::io::Error| RemoteError::Io { peer: peer.clone(), why: e.to_string() };
        match spec {
            HostSpec::Tcp { host, port } => {
                let addrs: Vec<_> = (host.as_str(), *port).to_socket_addrs().map_err(io)?.collect();
                let mut last = None;
                for a in addrs {
                    match TcpStream::connect_timeout(&a, timeout) {
                        Ok(s) => {
                            s.set_nodelay(true).map_err(io)?;
                            let r = Box::new(s.try_clone().map_err(io)?);
                            let w = Box::new(s.try_clone().map_err(io)?);
                            let mut session = Session::over(r, w, &peer, timeout);
                            session.tcp = Some(s);
                            return Ok(session);
                        }
                        Err(e) => last = Some(e),
                    }
                }
                Err(io(last.unwrap_or_else(|| std::io::Error::other("no address"))))
            }
            HostSpec::Ssh { target } => {
                let secret = format!("--secret-file={}", secret_file.display());
                let mut child = Command::new("ssh")
                    .args(["-o", "BatchMode=yes", "--", target, "iolab", "server", "--stdio"])
                    .arg(secret)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .map_err(|e| RemoteError::Io {
                        peer: peer.clone(),
                        why: format!("ssh: {e}"),
                    })?;
                let (Some(w), Some(r)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(io(std::io::Error::other("ssh without pipes")));
                };
                let mut session = Session::over(Box::new(r), Box::new(w), &peer, timeout);
                session.child = Some(child);
                Ok(session)
            }
        }
    }

    /// The next frame; `Queued` and `Beat` frames only keep the host alive.
    pub fn recv(&mut self, when: &str) -> Result<Msg, RemoteError> {
        loop {
            let m = match self.rx.recv_timeout(self.timeout) {
                Ok(m) => m?,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(RemoteError::Timeout {
                        peer: self.peer.clone(),
                        secs: self.timeout.as_secs_f64(),
                        when: when.into(),
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(RemoteError::Closed { peer: self.peer.clone(), when: when.into() })
                }
            };
            if !matches!(m, Msg::Queued | Msg::Beat) {
                return Ok(m);
            }
        }
    }

    pub fn send(&mut self, m: &Msg) -> Result<(), RemoteError> {
        write_msg(&mut self.w, m, &self.peer)
    }

    /// Prove the secret, then measure the clock.
    pub fn handshake(&mut self, secret: &Secret) -> Result<(), RemoteError> {
        let t = Instant::now();
        let (peer, rx, timeout) = (self.peer.clone(), &self.rx, self.timeout);
        let mut recv = |_max: u32, when: &str| match rx.recv_timeout(timeout) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => Err(RemoteError::Timeout {
                peer: peer.clone(),
                secs: timeout.as_secs_f64(),
                when: when.into(),
            }),
            Err(_) => Err(RemoteError::Closed { peer: peer.clone(), when: when.into() }),
        };
        client_handshake(&mut recv, &mut self.w, secret, &self.peer)?;
        self.handshake = t.elapsed();
        self.clock = self.measure_clock()?;
        Ok(())
    }

    fn measure_clock(&mut self) -> Result<Clock, RemoteError> {
        let mut best: Option<Clock> = None;
        for _ in 0..PINGS {
            let t0 = now_ns();
            self.send(&Msg::Ping { t0 })?;
            let (t1, t2) = match self.recv("awaiting a pong")? {
                Msg::Pong { t0: echo, t1, t2 } if echo == t0 => (t1, t2),
                m => return Err(unexpected(&self.peer, &m, "instead of a pong")),
            };
            let t3 = now_ns();
            let c = Clock { offset_ns: ((t1 - t0) + (t2 - t3)) / 2, rtt_ns: (t3 - t0) - (t2 - t1) };
            if best.is_none_or(|b| c.rtt_ns < b.rtt_ns) {
                best = Some(c);
            }
        }
        Ok(best.unwrap_or_default())
    }

    /// Send the job (with `--status-interval` in ns, 0 for none) and await `ready`.
    pub fn prepare(
        &mut self,
        args: &[String],
        files: &[JobFile],
        interval_ns: u64,
    ) -> Result<(), RemoteError> {
        self.send(&Msg::Job { args: args.to_vec(), files: files.to_vec(), interval_ns })?;
        match self.recv("awaiting ready")? {
            Msg::Ready => Ok(()),
            Msg::Failed { why } => Err(RemoteError::Refused { peer: self.peer.clone(), why }),
            m => Err(unexpected(&self.peer, &m, "instead of ready")),
        }
    }

    /// Start at `at_ns` of our clock (sent in the host's).
    pub fn start(&mut self, at_ns: i64) -> Result<(), RemoteError> {
        self.send(&Msg::Start { at_ns: at_ns + self.clock.offset_ns })
    }

    /// Await the result, handing each interval (checked: it must add up to the host's running
    /// totals) to `on_interval`; the result must equal the sum of the intervals. `received`
    /// then tells the host it may drop its own copy.
    pub fn finish(&mut self, on_interval: &dyn Fn(&HostInterval)) -> Result<Finished, RemoteError> {
        let pcts = &iolab_stats::DEFAULT_PERCENTILES;
        loop {
            match self.recv("awaiting the result")? {
                Msg::Interval { delta } => {
                    let bad = |e: iolab_stats::hosts::delta::DeltaError| RemoteError::Refused {
                        peer: self.peer.clone(),
                        why: format!("its intervals do not add up: {e}"),
                    };
                    self.totals.apply(&delta, pcts).map_err(bad)?;
                    on_interval(&delta);
                }
                Msg::Done { result, start_skew_ns, interval_file } => {
                    if self.totals.seq > 0 {
                        self.totals.check_final(&result).map_err(|e| RemoteError::Refused {
                            peer: self.peer.clone(),
                            why: e.to_string(),
                        })?;
                    }
                    self.send(&Msg::Received)?;
                    return Ok(Finished { result: *result, start_skew_ns, interval_file });
                }
                Msg::Failed { why } => {
                    return Err(RemoteError::Refused { peer: self.peer.clone(), why })
                }
                m => return Err(unexpected(&self.peer, &m, "instead of the result")),
            }
        }
    }
}

/// A host's result as it arrives.
#[derive(Debug)]
pub struct Finished {
    pub result: iolab_stats::RunResult,
    pub start_skew_ns: i64,
    /// Where the host kept its intervals (removed now that the result is here).
    pub interval_file: Option<String>,
}

/// What `--on-host-loss` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnLoss {
    /// The run ends non-zero (the other hosts' numbers are still written, marked partial).
    Fail,
    /// The run carries on and exits as the others did, still marked partial.
    Continue,
}

/// The job every host runs, its options for each host, and the limits.
#[derive(Clone, Debug)]
pub struct Plan {
    pub args: Vec<String>,
    pub files: Vec<JobFile>,
    pub secret_file: std::path::PathBuf,
    pub host_timeout: Duration,
    pub on_loss: OnLoss,
    /// `--status-interval`, ns; 0 for none.
    pub interval_ns: u64,
}

/// What the coordinator tells its caller while the hosts run (by the host's rank).
#[derive(Debug)]
pub enum Event<'a> {
    /// A host's interval, already checked to add up.
    Interval(u32, &'a HostInterval),
    /// A host has its result, or is lost: it sends no more intervals.
    Ended(u32),
}

/// A host that was lost, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Lost {
    pub hostname: String,
    pub port: u16,
    pub rank: u32,
    pub why: String,
}

/// Every host's run, those lost, and what the transport measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub hosts: Vec<HostRun>,
    pub lost: Vec<Lost>,
    /// The slowest host's handshake (connect, proof, clock).
    pub handshake: Duration,
}

#[cfg(test)]
mod tests;
