//! One I/O request: the unit a workload generator yields, a trace reader fills, the engine
//! submits and the simulator consumes.

use crate::{IoDir, Nanos};
use serde::{Deserialize, Serialize};

/// One I/O. `file` indexes the job's file list (0 for a single-file job or a trace);
/// `issue_at` is the intended issue time from the start of the run when the workload is paced
/// (`rate`, `rate_iops`, `thinktime`) or the trace is timed, so the engine can issue open-loop
/// and report latency from the intended time (no coordinated omission).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoRequest {
    pub dir: IoDir,
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    pub issue_at: Option<Nanos>,
}

impl IoRequest {
    pub fn new(dir: IoDir, file: u32, offset: u64, len: u64) -> Self {
        IoRequest { dir, file, offset, len, issue_at: None }
    }

    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}
