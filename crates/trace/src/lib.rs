//! iolab-trace: block-trace readers and writers.
//!
//! Every format is one file under [`formats`] behind one trait, [`TraceReader`], whose
//! [`read_into`](TraceReader::read_into) fills a caller-owned [`TraceRecord`] (no allocation
//! per record, as libCacheSim's readers fill a caller-owned `request_t`). [`open`] sniffs
//! zstd/gzip by magic bytes and the format by extension and content, using the table in
//! [`registry`]. Writers for fio iolog v3, oracleGeneral and CSV are in [`write`].
//!
//! ```no_run
//! use iolab_trace::{open, ReaderConfig, TraceRecord};
//! let mut r = open("trace.csv.zst".as_ref(), None, &ReaderConfig::default())?;
//! let mut rec = TraceRecord::default();
//! let mut bytes = 0;
//! while r.read_into(&mut rec)? {
//!     bytes += rec.req.len;
//! }
//! # Ok::<(), iolab_trace::TraceError>(())
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod ahead;
pub mod error;
pub mod formats;
pub mod open;
pub mod ops;
pub mod reader;
pub mod registry;
pub mod stat;

pub(crate) mod text;
pub mod write;

pub use error::{TraceError, TraceErrorKind};
pub use open::{open, open_reader};
pub use reader::{ReaderConfig, TraceReader};
pub use registry::{FormatInfo, FORMATS};

use iolab_core::IoRequest;

/// One trace record. `req` is what a block device saw (byte offset and length, direction,
/// device/file index, `issue_at` = time since the trace's first record); `time_ns` is the
/// trace's own timestamp converted to nanoseconds; `obj_id` and `size` are the object view used
/// by object-level cache simulation (libCacheSim's `obj_id`/`obj_size`); `next_access` is the
/// oracleGeneral `next_access_vtime` (absolute index of the next request to the same object,
/// -1 if none or unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceRecord {
    pub req: IoRequest,
    pub time_ns: u64,
    pub obj_id: u64,
    pub size: u64,
    pub next_access: i64,
}

/// The part of a record an object-level cache simulation reads (libCacheSim's `request_t`
/// with `--ignore-obj-size`): filled by [`TraceReader::read_objects`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectRequest {
    pub obj_id: u64,
    /// oracleGeneral's `next_access_vtime`; -1 when the trace has none.
    pub next_access: i64,
    pub write: bool,
    /// The record's size in bytes (an MRC's byte-weighted ratio; a simulation ignores it).
    pub size: u64,
}

impl ObjectRequest {
    /// The object view of a whole record.
    #[inline]
    pub fn of(rec: &TraceRecord) -> Self {
        ObjectRequest {
            obj_id: rec.obj_id,
            next_access: rec.next_access,
            write: rec.req.dir == iolab_core::IoDir::Write,
            size: rec.size,
        }
    }
}

/// Bytes per sector in the block traces that count in sectors (blkparse, CloudPhysics, Tencent
/// CBS): 512 regardless of the device's logical block size.
pub const SECTOR: u64 = 512;

/// The object id of a byte-offset block request: its start sector, with the device/file index
/// in the top 16 bits so two devices never share ids. For a single-device trace this is the
/// LBN, the same key libCacheSim's block-trace conversions use.
pub fn block_obj_id(file: u32, offset: u64) -> u64 {
    ((file as u64) << 48) ^ (offset / SECTOR)
}
