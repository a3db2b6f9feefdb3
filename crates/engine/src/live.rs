//! The live view of a run (fio's `thread_data` as its ETA and status threads read it): one
//! slot per running clone with its live counters, filled by the runner; a caller's progress
//! line, periodic reports or the steady-state monitor read it while the run goes on.

use iolab_core::stop::Stop;
use iolab_core::Nanos;
use iolab_stats::LiveCounters;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Live view for a progress display: one slot per clone, filled once the clone runs.
#[derive(Default)]
pub struct Progress {
    pub clones: Mutex<Vec<ProgressSlot>>,
}

/// One running clone as the progress display sees it.
pub struct ProgressSlot {
    pub job: String,
    pub started: Instant,
    /// Expected measured length (runtime + ramp) when time bound.
    pub expected: Option<Nanos>,
    pub live: Arc<Mutex<Option<Arc<LiveCounters>>>>,
    pub done: Arc<AtomicBool>,
    /// Ends this clone alone (fio's steadystate ends a job when attained); a child of the
    /// run's stop, so it also reads as set when the run stops.
    pub stop: Stop,
}
