//! iolab-engine: real I/O. Engines (io_uring, libaio, psync/pvsync, sync, null) behind one
//! [`IoEngine`](engines::IoEngine) trait with fio's queue / commit / reap semantics, aligned
//! buffers, file and block-device setup with safety checks, and the worker loop that drives a
//! workload through an engine and records latencies. This crate is the I/O path only: a run as
//! the binary performs it (flags, the quick profile, the live line, periodic reports, fio's log
//! files, the iolog) is `iolab-run`, above this crate, reading the live view ([`live`]) and the
//! [`runner::RunOutput`] the runner hands back.
//!
//! ```no_run
//! use iolab_engine::engines::{lookup, EngineConfig, IoOp, OpKind, Queued};
//! let mut e = (lookup("null").unwrap().ctor)(&EngineConfig::new(1, 4096, vec![])).unwrap();
//! let q = e.queue(IoOp { slot: 0, kind: OpKind::Read, file: 0, offset: 0, len: 4096 }).unwrap();
//! assert_eq!(q, Queued::Completed(4096));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod backlog;
pub mod blkid;
pub mod buf;
pub mod clock;
pub mod engines;
pub mod error;
pub mod live;
pub mod replay;
pub mod runner;
pub mod safety;
pub mod steady;
pub mod target;
pub mod verify;
pub mod worker;

pub use buf::{AlignedBuf, BufPool};
pub use error::EngineError;
