//! iolab-data: what write buffers contain, how compressible and dedupable data really is,
//! and verification of what was written.
//!
//! - [`DataConfig`] resolves a job's buffer options as fio does (`buffer_compress_percentage`,
//!   `buffer_compress_chunk`, `buffer_pattern`, `zero_buffers`, `refill_buffers`,
//!   `scramble_buffers`, `dedupe_*`, `verify`) and warns where fio's data mislead;
//! - [`DataGen`] fills a write buffer as a pure function of (seed, file, offset, generation);
//! - [`measure`] reports compression ratios (lz4, zstd, gzip), zero share and dedupe ratios;
//! - [`verify`] stamps and checks per-block headers that tell corruption, misplaced, stale
//!   and torn writes apart.
//!
//! ```
//! use iolab_data::{DataConfig, DataGen};
//! let cfg = DataConfig { compress_percentage: 50, refill_buffers: true, ..Default::default() };
//! let mut g = DataGen::new(&cfg, 42);
//! let mut buf = vec![0u8; 4096];
//! g.fill(&mut buf, 0, 8192, 0);
//! // fio layout: each 512-byte chunk is 256 random bytes then 256 zeros.
//! assert!(buf[256..512].iter().all(|b| *b == 0));
//! ```

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod config;
pub mod error;
pub mod gen;
pub mod genfile;
pub mod measure;
pub mod pattern;
pub mod verify;

pub use config::{CompressContent, DataConfig, DedupeMode};
pub use error::{DataError, OptionErrorKind, PatternErrorKind};
pub use gen::DataGen;
pub use verify::{check, stamp, FailureKind, VerifyCtx, VerifyFailure, VerifyKind, VerifyStats};
