//! iolab-job: the fio job-file reader and the option registry.
//!
//! Reading validates and never touches the disk: it turns job files and fio-style command
//! lines into [`Job`] specs plus warnings. Opening files and choosing engines happen later,
//! in the engine.

pub mod registry;
pub mod spec;

pub use spec::*;
