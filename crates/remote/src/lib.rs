//! iolab's own transport for many hosts where there is no MPI: `iolab server` on each host,
//! `iolab run JOB --client=HOST,…` on the coordinator (fio's `--server`/`--client` spelling).
//!
//! - [`proto`]: versioned, length-prefixed frames (u32 big-endian length, a hard maximum, a
//!   JSON payload) and the messages.
//! - [`auth`]: the shared secret file (a regular file readable by its owner only) and the
//!   mutual challenge–response proof, HMAC-SHA256 over fresh nonces from both sides; the
//!   secret never travels.
//! - [`server`]: one connection's life: proof first (a peer that fails it is dropped before
//!   any job frame is read), clock pings, the job prepared (checked as a local run) and
//!   started at the instant the client gives; jobs from several clients run one at a time.
//! - [`client`]: the coordinator's side of one host: connect (TCP or a child's stdio, as
//!   `ssh host iolab server --stdio`), prove, measure the clock offset and round trip
//!   (NTP-style), prepare, start, collect the result; `--host-timeout` without a frame loses
//!   the host.
//!
//! What runs a job is the caller's ([`server::Runner`]): the CLI parses the client's job text
//! on the server exactly as a local `iolab run` would.
//!
//! ```no_run
//! use iolab_remote::{auth::Secret, client::HostSpec};
//! let secret = Secret::from_file("secret".as_ref()).unwrap();
//! let host: HostSpec = "127.0.0.2:8765".parse().unwrap();
//! assert_eq!(host.port(), 8765);
//! # let _ = secret;
//! ```

pub mod auth;
pub mod client;
pub mod coordinator;
pub mod proto;
pub mod server;

/// What went wrong on the wire or with the secret; each names its peer, file or field.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("secret file {path}: {why}")]
    Secret { path: String, why: String },
    #[error("{peer}: frame of {len} bytes is over the limit of {max}")]
    Oversized { peer: String, len: u64, max: u64 },
    #[error("{peer}: malformed frame: {why}")]
    Malformed { peer: String, why: String },
    #[error("{peer}: connection closed {when}")]
    Closed { peer: String, when: String },
    #[error("{peer}: no frame for {secs:.1} s {when}")]
    Timeout { peer: String, secs: f64, when: String },
    #[error("{peer}: {why}")]
    Io { peer: String, why: String },
    #[error("{peer}: authentication failed: {why}")]
    Auth { peer: String, why: String },
    #[error("{peer}: protocol version {theirs}, this iolab speaks {ours}")]
    Version { peer: String, theirs: u32, ours: u32 },
    #[error("{peer}: unexpected {got} {when}")]
    Unexpected { peer: String, got: String, when: String },
    #[error("{peer}: refused: {why}")]
    Refused { peer: String, why: String },
    #[error("{spec}: {why}")]
    Host { spec: String, why: String },
}
