//! iolab-run: a run as a user starts it, over the engine's I/O path
//! ([`iolab_engine::runner::run_jobs`]). `iolab run`'s flags ([`flags`]), the quick profile
//! ([`quick`]), the live line and the periodic `--status-interval` reports rendered above the
//! engine ([`progress`], [`status`]), fio's per-job log files ([`logs`]), the iolog of the
//! requests a run issues ([`iolog`]) and what a result records besides the numbers
//! ([`finish`]); several hosts under MPI ([`hosts`], the transport behind the `mpi` feature).
//! The binary, the Python binding or a server mode call a run through here.
//!
//! ```no_run
//! use iolab_engine::runner::RunOptions;
//! use iolab_run::progress::{run_shown, Show};
//! let jobs = iolab_job::load(&iolab_job::LoadOptions::default()).unwrap().jobs;
//! let (result, interrupted) = run_shown(&jobs, &RunOptions::default(), Show::Off, None, None).unwrap();
//! println!("{} jobs, interrupted: {interrupted}", result.jobs.len());
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod error;
pub mod finish;
pub mod flags;
pub mod hosts;
pub mod iolog;
pub mod logs;
pub mod progress;
pub mod quick;
pub mod status;

pub use error::RunError;
