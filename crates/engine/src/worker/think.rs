//! `thinktime`: a pause between I/Os, as fio 3.33 takes it (backend.c `handle_thinktime`,
//! called from `do_io` after every read, write or trim unit is submitted and, when the queue
//! was full, reaped).
//!
//! * A pause is due when `thinktime_blocks` units have completed (or, with
//!   `thinktime_blocks_type=issue`, been submitted) since the last one (`init_thinktime`:
//!   `io_blocks` or `io_issues`, summed over the directions), or, with `thinktime_iotime`,
//!   when that much time plus `thinktime` has passed since the last pause began; with
//!   `thinktime_iotime` and no `thinktime_blocks` written, only the time counts.
//! * The pause first waits for every unit in flight (`io_u_quiesce`), then spins
//!   `thinktime_spin` (`usec_spin`) and sleeps the rest of `thinktime` (`usec_sleep`).
//! * Nothing of the pause is in any unit's latency: the next unit starts after it. A paced
//!   job's schedule is not moved, so it catches up afterwards (fio's default), unless
//!   `rate_ignore_thinktime`: then the schedule of the direction that triggered the pause
//!   moves on by the pause.

use super::{wait_until, Worker};
use crate::engines::IoEngine;
use crate::error::EngineError;
use iolab_core::{Nanos, RequestSource};

/// The think settings of a job (`thinktime` > 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct ThinkSpec {
    /// `thinktime`.
    pub time: Nanos,
    /// `thinktime_spin`, at most `time` (fio init.c `fixup_options`).
    pub spin: Nanos,
    /// `thinktime_blocks` (at least 1).
    pub blocks: u64,
    /// `thinktime_blocks` was written (it counts beside `thinktime_iotime`).
    pub blocks_given: bool,
    /// `thinktime_blocks_type=issue`.
    pub by_issue: bool,
    /// `thinktime_iotime` (0: off).
    pub iotime: Nanos,
    /// `rate_ignore_thinktime`: a pause moves the paced direction's schedule on by its
    /// length instead of being caught up afterwards.
    pub ignore_rate: bool,
}

/// The think counters of one worker (fio's `thinktime_blocks_counter`,
/// `last_thinktime_blocks`, `last_thinktime`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ThinkState {
    /// Data units submitted (those completed are these less the ones in flight).
    pub issued: u64,
    /// The counter's value at the last pause.
    last_blocks: u64,
    /// When the last pause began (ns since the worker's start; fio starts it at the epoch).
    last_think: u64,
    /// The direction of the last data unit submitted (fio's `ddir` of `handle_thinktime`).
    pub last_dir: usize,
    /// Per direction, how far `rate_ignore_thinktime` has moved the schedule (ns).
    pub shift: [u64; 3],
}

impl<E, S> Worker<'_, '_, '_, E, S>
where
    E: IoEngine + ?Sized,
    S: RequestSource + ?Sized,
{
    /// fio `handle_thinktime`: pause when one is due. Called after a data unit was submitted
    /// and after every reap.
    #[cold]
    pub(super) fn think_check(&mut self) -> Result<(), EngineError> {
        let Some(spec) = self.cfg.think else { return Ok(()) };
        let st = self.think;
        let now = self.now();
        let mut stall = false;
        if spec.iotime.0 > 0 {
            if now.saturating_sub(st.last_think) >= spec.iotime.0.saturating_add(spec.time.0) {
                stall = true;
            } else if !spec.blocks_given {
                return Ok(());
            }
        }
        let b = self.think_count(spec);
        if b >= st.last_blocks.saturating_add(spec.blocks) {
            stall = true;
        }
        if !stall || self.stream_done {
            return Ok(());
        }
        self.quiesce()?;
        let paused = self.think_pause(spec);
        if spec.ignore_rate {
            // backend.c handle_thinktime with rate_ign_think: the bytes the pause would have
            // issued are counted as issued, so the schedule of the unit's direction moves on
            // by the pause (fio then starts the next unit at once; here it is due up to one
            // rate interval after the pause).
            let d = self.think.last_dir;
            self.think.shift[d] = self.think.shift[d].saturating_add(paused);
        }
        // fio keeps the count read before `io_u_quiesce`: the units the quiesce completed
        // count towards the next pause, which with `iodepth` above `thinktime_blocks` comes
        // after the next submission (fio 3.33, libaio QD8, blocks=4, 10 ms: 484 I/Os a
        // second; counting after the quiesce gave 770).
        self.think.last_blocks = b;
        if spec.iotime.0 > 0 {
            self.think.last_think = now;
        }
        Ok(())
    }

    /// fio's `thinktime_blocks_counter` summed over the directions: data units submitted, or
    /// completed (submitted less in flight; a sync unit in flight is not told apart, which
    /// at most delays a pause by one unit).
    fn think_count(&self, spec: ThinkSpec) -> u64 {
        if spec.by_issue {
            self.think.issued
        } else {
            self.think.issued.saturating_sub(u64::from(self.in_flight))
        }
    }

    /// fio `io_u_quiesce`: commit what is queued and reap until nothing is in flight.
    fn quiesce(&mut self) -> Result<(), EngineError> {
        if !self.uncommitted.is_empty() {
            self.commit()?;
        }
        while self.in_flight > 0 {
            self.reap(None)?;
        }
        Ok(())
    }

    /// Spin `thinktime_spin`, sleep the rest of `thinktime`; the runtime's end or a stop
    /// request cuts the pause short and ends the stream. Returns the pause's length in ns.
    fn think_pause(&mut self, spec: ThinkSpec) -> u64 {
        let start = self.now();
        let spin_end = start.saturating_add(spec.spin.0);
        while self.now() < spin_end.min(self.deadline) {
            // A spin of hours (thinktime_spin=99999999999) still ends at a signal.
            if self.stop.is_set() {
                self.stream_done = true;
                break;
            }
            std::hint::spin_loop();
        }
        let end = start.saturating_add(spec.time.0);
        if !wait_until(&self.t0, end, self.deadline, self.stop) {
            self.stream_done = true;
        }
        // The next unit starts after the pause, not at the last completion's clock read.
        self.reuse_t = None;
        self.now().saturating_sub(start)
    }
}
