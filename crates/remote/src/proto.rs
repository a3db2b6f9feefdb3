//! The wire format: frames of a u32 big-endian payload length followed by the payload, a
//! serde_json [`Msg`]. Lengths above the reader's maximum are refused before anything is
//! allocated: [`MAX_FRAME`] (16 MiB) after the proof, [`MAX_HELLO`] (4 KiB) before it, so an
//! unauthenticated peer cannot make the server allocate more than that.
//!
//! A session (the client speaks first):
//!
//! ```text
//! C: Hello{version, nonce_c}        S: Challenge{version, nonce_s, proof_s}
//! C: Proof{proof_c}                 S: Welcome | Refused
//! C: Ping{t0} …                     S: Pong{t0, t1, t2} …
//! C: Job{args, files, interval_ns}  S: Queued … then Ready | Failed
//! C: Start{at_ns}                   S: Beat … Interval{delta} … then Done{…} | Failed
//! C: Received
//! ```
//!
//! With `interval_ns` (`--status-interval`) the server sends each interval's deltas
//! ([`iolab_stats::hosts::delta`]) and, before `Done`, the remainder up to the final result;
//! once the first interval is out the intervals are the only frames while the job runs (the
//! coordinator's liveness signal). `Received` tells the server the coordinator holds the
//! result, so it may remove its local copy of the intervals.

use std::io::{ErrorKind, Read, Write};

use iolab_stats::hosts::delta::HostInterval;
use iolab_stats::RunResult;
use serde::{Deserialize, Serialize};

use crate::RemoteError;

/// The protocol's version: a peer with another one is refused in the hello.
pub const VERSION: u32 = 2;
/// The largest frame after the proof.
pub const MAX_FRAME: u32 = 16 << 20;
/// The largest frame before the proof (hello, proof).
pub const MAX_HELLO: u32 = 4 << 10;
/// fio's default server port (fio server.h `FIO_NET_PORT`).
pub const DEFAULT_PORT: u16 = 8765;

/// A job file as the client read it: the name its argument had, and its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobFile {
    pub name: String,
    pub text: String,
}

/// One protocol message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Msg {
    Hello {
        version: u32,
        nonce: String,
    },
    Challenge {
        version: u32,
        nonce: String,
        proof: String,
    },
    Proof {
        proof: String,
    },
    Welcome,
    Refused {
        why: String,
    },
    Ping {
        t0: i64,
    },
    Pong {
        t0: i64,
        t1: i64,
        t2: i64,
    },
    /// `iolab run` arguments (job files by name, their texts in `files`).
    Job {
        args: Vec<String>,
        files: Vec<JobFile>,
        /// `--status-interval` in ns; 0: no intervals, one result at the end.
        #[serde(default)]
        interval_ns: u64,
    },
    /// The server is busy with another client's job; this one waits its turn.
    Queued,
    /// The job was read and checked; the server waits for `Start`.
    Ready,
    /// Start at this instant of the server's clock (Unix ns).
    Start {
        at_ns: i64,
    },
    /// The job is running (sent every [`crate::server::BEAT`]).
    Beat,
    /// One interval's deltas (counts, latency sums, histogram buckets since the last).
    Interval {
        delta: Box<HostInterval>,
    },
    Done {
        result: Box<RunResult>,
        start_skew_ns: i64,
        /// Where the server keeps this job's intervals until `Received`.
        #[serde(default)]
        interval_file: Option<String>,
    },
    /// The coordinator holds the result.
    Received,
    Failed {
        why: String,
    },
}

impl Msg {
    /// The message's name, for errors.
    pub fn name(&self) -> &'static str {
        match self {
            Msg::Hello { .. } => "hello",
            Msg::Challenge { .. } => "challenge",
            Msg::Proof { .. } => "proof",
            Msg::Welcome => "welcome",
            Msg::Refused { .. } => "refused",
            Msg::Ping { .. } => "ping",
            Msg::Pong { .. } => "pong",
            Msg::Job { .. } => "job",
            Msg::Queued => "queued",
            Msg::Ready => "ready",
            Msg::Start { .. } => "start",
            Msg::Beat => "beat",
            Msg::Interval { .. } => "interval",
            Msg::Done { .. } => "done",
            Msg::Received => "received",
            Msg::Failed { .. } => "failed",
        }
    }
}

/// Write one frame.
pub fn write_msg(w: &mut dyn Write, msg: &Msg, peer: &str) -> Result<(), RemoteError> {
    let body = serde_json::to_vec(msg)
        .map_err(|e| RemoteError::Io { peer: peer.into(), why: format!("encoding: {e}") })?;
    let len = u32::try_from(body.len()).ok().filter(|&n| n <= MAX_FRAME).ok_or_else(|| {
        RemoteError::Oversized { peer: peer.into(), len: body.len() as u64, max: MAX_FRAME.into() }
    })?;
    let mut frame = Vec::with_capacity(body.len() + 4);
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(&body);
    w.write_all(&frame).and_then(|()| w.flush()).map_err(|e| io_error(peer, &e, "writing"))
}

/// Read one frame of at most `max` bytes; `when` says what was awaited, for errors.
pub fn read_msg(r: &mut dyn Read, max: u32, peer: &str, when: &str) -> Result<Msg, RemoteError> {
    let mut head = [0u8; 4];
    read_exact(r, &mut head, peer, when)?;
    let len = u32::from_be_bytes(head);
    if len > max {
        return Err(RemoteError::Oversized { peer: peer.into(), len: len.into(), max: max.into() });
    }
    let mut body = vec![0u8; len as usize];
    read_exact(r, &mut body, peer, when)?;
    serde_json::from_slice(&body).map_err(|e| RemoteError::Malformed {
        peer: peer.into(),
        why: format!("{len}-byte payload {when}: {e}"),
    })
}

fn read_exact(r: &mut dyn Read, buf: &mut [u8], peer: &str, when: &str) -> Result<(), RemoteError> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        ErrorKind::UnexpectedEof => RemoteError::Closed { peer: peer.into(), when: when.into() },
        _ => io_error(peer, &e, when),
    })
}

/// An I/O error as a [`RemoteError`]: a read timeout (`WouldBlock`/`TimedOut`) says so.
pub fn io_error(peer: &str, e: &std::io::Error, when: &str) -> RemoteError {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            RemoteError::Timeout { peer: peer.into(), secs: 0.0, when: when.into() }
        }
        _ => RemoteError::Io { peer: peer.into(), why: format!("{when}: {e}") },
    }
}

/// The realtime clock, Unix ns (the clock both sides compare).
pub fn now_ns() -> i64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_frame_round_trips_and_its_length_prefix_is_big_endian() {
        let mut buf = Vec::new();
        write_msg(&mut buf, &Msg::Ping { t0: 42 }, "t").unwrap();
        let body = br#"{"ping":{"t0":42}}"#;
        assert_eq!(&buf[..4], &(body.len() as u32).to_be_bytes());
        assert_eq!(&buf[4..], body);
        let back = read_msg(&mut buf.as_slice(), MAX_HELLO, "t", "x").unwrap();
        assert_eq!(back, Msg::Ping { t0: 42 });
    }

    #[test]
    fn an_oversized_length_is_refused_before_reading_the_body() {
        let mut r: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        let e = read_msg(&mut r, MAX_FRAME, "p", "x").unwrap_err();
        assert!(matches!(e, RemoteError::Oversized { len: 4_294_967_295, .. }), "{e}");
        let mut r: &[u8] = &(MAX_HELLO + 1).to_be_bytes();
        assert!(matches!(
            read_msg(&mut r, MAX_HELLO, "p", "x"),
            Err(RemoteError::Oversized { .. })
        ));
    }

    #[test]
    fn truncated_and_garbage_frames_are_errors_naming_the_peer() {
        let mut r: &[u8] = &[0, 0, 0, 10, b'{'];
        let e = read_msg(&mut r, MAX_FRAME, "h:1", "awaiting the hello").unwrap_err();
        assert_eq!(e.to_string(), "h:1: connection closed awaiting the hello");
        let mut r: &[u8] = &[0, 0, 0, 3, 0xde, 0xad, 0xbf];
        let e = read_msg(&mut r, MAX_FRAME, "h:1", "awaiting the hello").unwrap_err();
        assert!(e.to_string().starts_with("h:1: malformed frame: 3-byte payload"), "{e}");
        let mut r: &[u8] = &[0, 0];
        assert!(matches!(read_msg(&mut r, 9, "p", "x"), Err(RemoteError::Closed { .. })));
    }
}
