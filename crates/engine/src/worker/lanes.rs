//! The worker loop's two lanes: the general loop of `worker.rs` with only what a common job
//! needs, taken when nothing per I/O needs more than the recorder (no per-I/O logs, every
//! latency measured, no `fsync=N`, no file operations; the sync lane also runs a read check,
//! such as the advice's zero-read probe, the batch lane none). The sync lane runs a sync
//! engine's units one by one; the batch lane runs the null engine's rounds at
//! `iodepth_batch` = `iodepth`. Both make the same calls in the same order to the generator,
//! the buffer filler, the engine and the recorder as the general loop (a test compares them);
//! what they leave out is bookkeeping that cannot fire there. Under callgrind, null 4k
//! randread QD1 went from 491 to 305 instructions per I/O and QD32 batch 32 from 403 to 308.

use super::{count_file, latencies, op_kind, Slot, Worker};
use crate::engines::{IoEngine, IoOp, OpKind, Queued};
use crate::error::EngineError;
use iolab_core::{IoDir, IoRequest, Nanos, RequestSource};

impl<E, S> Worker<'_, '_, '_, E, S>
where
    E: IoEngine + ?Sized,
    S: RequestSource + ?Sized,
{
    /// A sync engine whose completions need only the recorder and the read check: no
    /// per-I/O logs, every latency measured, no `fsync=N`, no file operations.
    /// [`Worker::run_sync`] then runs the units one by one (the check, such as the advice's
    /// zero-read probe, sees the same reads as in the general loop); anything else goes
    /// round the general loop.
    pub(super) fn sync_lane(&self) -> bool {
        self.shape.sync && self.recorder_and_check()
    }

    /// Nothing per I/O needs more than the recorder: [`Worker::recorder_and_check`] and no
    /// read check (the batch lane).
    fn recorder_only(&self) -> bool {
        self.recorder_and_check() && self.check.is_none()
    }

    /// Nothing per I/O needs more than the recorder and the read check: no file operations,
    /// every latency measured, no per-I/O logs, no `fsync=N`/`fdatasync=N`, no `thinktime`.
    fn recorder_and_check(&self) -> bool {
        !self.file_ops
            && self.cfg.think.is_none()
            && self.meas.all()
            && self.lat_logs.is_none()
            && self.cfg.fsync_every == 0
            && self.cfg.fdatasync_every == 0
    }

    /// The general loop's sync-engine path with nothing it does not need: one unit in slot
    /// 0, queued and completed in `queue`, the previous completion's clock read as its start
    /// (see the module note), the time checks every 16 units. The same calls in the same
    /// order reach the generator, the buffer filler, the engine and the recorder, so the
    /// offsets, bytes and counts are the general loop's; it only skips the slot and free-list
    /// bookkeeping that a depth of one never needs. A paced request or an engine that does
    /// not complete in `queue` hands over to the general loop.
    pub(super) fn run_sync(&mut self) -> Result<(), EngineError> {
        // Two copies of the loop, so a job without a read check pays nothing per I/O for it.
        if self.check.is_some() {
            self.run_sync_as::<true>()
        } else {
            self.run_sync_as::<false>()
        }
    }

    /// [`Worker::run_sync`]'s loop; `CHECK`: the worker has a read check. Kept out of the
    /// general loop's function so the two loops do not share its register pressure.
    #[inline(never)]
    fn run_sync_as<const CHECK: bool>(&mut self) -> Result<(), EngineError> {
        let mut t_prev = match self.reuse_t.take() {
            Some(t) => t,
            None => self.now(),
        };
        let mut until_check = 0u32;
        loop {
            if until_check == 0 {
                until_check = 16;
                self.time_check();
            }
            until_check -= 1;
            if self.stream_done || self.error.is_some() {
                break;
            }
            if !self.src.next_into(&mut self.req) {
                self.stream_done = true;
                break;
            }
            let r = self.req;
            if r.issue_at.is_some() {
                self.pending = Some(r);
                break;
            }
            let kind = op_kind(r.dir);
            if kind == OpKind::Write {
                self.prepare_write(0, &r);
            }
            let op = IoOp { slot: 0, kind, file: r.file, offset: r.offset, len: r.len };
            let res = match self.engine.queue(op)? {
                Queued::Completed(res) => res,
                q => return self.hand_over(r, q, t_prev),
            };
            let t_done = self.now();
            if t_done >= self.deadline {
                self.stream_done = true;
            }
            count_file(&mut self.per_file, r.file, res, self.ramping);
            self.complete_sync::<CHECK>(&r, res, t_prev, t_done);
            t_prev = t_done;
        }
        self.reuse_t = Some(t_prev);
        Ok(())
    }

    /// `record_submit` and [`Worker::complete`] for a unit of the sync lane (no slat,
    /// `lat` = `clat`), the read check included when `CHECK`.
    #[inline(always)]
    fn complete_sync<const CHECK: bool>(
        &mut self,
        r: &IoRequest,
        res: i64,
        t_start: u64,
        t_done: u64,
    ) {
        let res = super::full_resid(r.dir, r.len, res, self.shape.coarse);
        if CHECK && self.done_hook {
            self.done(r.dir, r.file, r.offset, res >= 0);
        }
        if res < 0 {
            self.rec.record_submit(r.dir, 1);
            let s =
                Slot { dir: r.dir, file: r.file, offset: r.offset, len: r.len, ..Slot::default() };
            self.fail(&s, (-res) as i32, self.cfg.stops_on(s.dir));
            return;
        }
        let bytes = res as u64;
        let clat = Nanos(t_done.saturating_sub(t_start));
        self.rec.record_sync_io(r.dir, bytes, clat);
        if r.dir != IoDir::Sync && bytes < r.len && !self.shape.coarse {
            self.rec.record_short(r.dir);
        }
        if CHECK && r.dir == IoDir::Read {
            let s =
                Slot { dir: r.dir, file: r.file, offset: r.offset, len: r.len, ..Slot::default() };
            self.sample_read(&s, 0, bytes);
        }
    }

    /// The null engine queued and reaped a whole depth at a time (`iodepth_batch` =
    /// `iodepth`), with the sync lane's conditions: [`Worker::run_batch`].
    pub(super) fn batch_lane(&self) -> bool {
        self.shape.coarse
            && !self.shape.sync
            && self.shape.batch == self.shape.depth
            && self.recorder_only()
    }

    /// The general loop's rounds for the null engine with `iodepth_batch` = `iodepth`: a
    /// time check, a fill of the whole depth (committed as one batch), a reap of it. Each
    /// round is what the general loop does from an empty queue, with the same calls in the
    /// same order to the generator, the engine and the recorder; it only leaves out the
    /// checks that cannot fire (sync units, file operations, paced or put-back requests
    /// mid-fill hand over to the general loop, as does anything still in flight after a reap).
    pub(super) fn run_batch(&mut self) -> Result<(), EngineError> {
        while self.in_flight == 0 && self.pending.is_none() {
            self.ops_since_check = 0;
            self.time_check();
            if self.stream_done || self.error.is_some() {
                break;
            }
            self.fill_batch()?;
            let fresh_t = self.commit_pending()?;
            if self.in_flight > 0 {
                self.reap_batch(fresh_t)?;
            }
        }
        Ok(())
    }

    /// [`Worker::fill_queue`] for the batch lane.
    #[inline(always)]
    fn fill_batch(&mut self) -> Result<(), EngineError> {
        while let Some(&slot) = self.free.last() {
            if !self.src.next_into(&mut self.req) {
                self.stream_done = true;
                break;
            }
            if self.req.issue_at.is_some() {
                self.pending = Some(self.req);
                break;
            }
            let r = self.req;
            // The null engine's start: the pass's last clock read (`start_time`, coarse).
            let t_start = match self.reuse_t {
                Some(t) => t,
                None => {
                    let t = self.now();
                    self.reuse_t = Some(t);
                    t
                }
            };
            self.free.pop();
            let (dir, file, offset, len) = (r.dir, r.file, r.offset, r.len);
            self.slots[slot as usize] =
                Slot { dir, file, offset, len, start: t_start, intended: None, issue: t_start };
            let kind = op_kind(dir);
            if kind == OpKind::Write {
                self.prepare_write(slot, &r);
            }
            match self.engine.queue(IoOp { slot, kind, file, offset, len })? {
                Queued::Queued => {
                    self.in_flight += 1;
                    self.rec.record_submit(dir, self.in_flight);
                    self.uncommitted.push(slot);
                    if self.uncommitted.len() as u32 >= self.shape.batch {
                        let t = self.commit()?;
                        self.reuse_t = Some(t);
                    }
                }
                Queued::Completed(res) => self.complete_inline(slot, res),
                Queued::Busy => {
                    self.free.push(slot);
                    self.pending = Some(r);
                    break;
                }
            }
            if self.stream_done || self.error.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// [`Worker::reap`] for the batch lane: every completion of a round shares its clock
    /// reads, so runs of the same direction and size go to the recorder as one.
    #[inline(always)]
    fn reap_batch(&mut self, fresh_t: Option<u64>) -> Result<(), EngineError> {
        let want = self.cfg.complete_min.max(1).min(self.in_flight);
        let shared_t = fresh_t.filter(|_| self.engine.ready() >= want);
        let Some(comps) = self.reap_comps(want)? else { return Ok(()) };
        let t_done = shared_t.unwrap_or_else(|| self.now());
        self.reuse_t = Some(t_done);
        if t_done >= self.deadline {
            self.stream_done = true;
        }
        self.rec.record_complete_batch(comps.len() as u32);
        // The current run: completions of one direction, size and file, created and issued
        // at the same times (counted per file as a run too).
        let mut run: Option<LaneRun> = None;
        for c in &comps {
            let s = &self.slots[c.slot as usize];
            let x = LaneRun {
                dir: s.dir,
                file: s.file,
                len: s.len,
                start: s.start,
                issue: s.issue,
                n: 1,
            };
            self.in_flight -= 1;
            if x.dir != IoDir::Sync && c.res >= 0 && c.res as u64 == x.len {
                match &mut run {
                    Some(r) if r.same(&x) => r.n += 1,
                    _ => {
                        self.flush_lane_run(run.take(), t_done);
                        run = Some(x);
                    }
                }
            } else {
                self.flush_lane_run(run.take(), t_done);
                count_file(&mut self.per_file, x.file, c.res, self.ramping);
                let s = self.slots[c.slot as usize];
                let stop = self.cfg.stops_on(s.dir);
                self.complete_outlined(&s, c.slot, c.res, Some(s.issue), t_done, stop);
            }
            self.free.push(c.slot);
        }
        self.flush_lane_run(run, t_done);
        self.comps = comps;
        if self.error.is_some() {
            self.stream_done = true;
        }
        Ok(())
    }

    /// Count and record a batch-lane run, completed at `t_done`: what `n` calls of
    /// `count_file` and [`Worker::complete`] do.
    #[inline(always)]
    fn flush_lane_run(&mut self, run: Option<LaneRun>, t_done: u64) {
        let Some(r) = run else { return };
        if !self.ramping && r.len > 0 {
            let i = r.file as usize;
            if self.per_file.len() <= i {
                self.per_file.resize(i + 1, (0, 0));
            }
            self.per_file[i].0 += r.n;
            self.per_file[i].1 += r.len * r.n;
        }
        let s = Slot { start: r.start, issue: r.issue, ..Slot::default() };
        self.flush_run(Some((r.dir, r.len, latencies(&s, Some(r.issue), t_done), r.n)));
    }

    /// A sync-lane unit the engine did not complete in `queue`: book it in slot 0 as the
    /// general loop's fill pass does, and let that loop carry on.
    #[cold]
    fn hand_over(&mut self, r: IoRequest, q: Queued, t_start: u64) -> Result<(), EngineError> {
        // As `start_time` leaves it: the null engine keeps the start for the pass.
        self.reuse_t = self.shape.coarse.then_some(t_start);
        let Some(slot) = self.free.pop() else { return Ok(()) };
        let (dir, file, offset, len) = (r.dir, r.file, r.offset, r.len);
        self.slots[slot as usize] =
            Slot { dir, file, offset, len, start: t_start, intended: None, issue: t_start };
        match q {
            Queued::Queued => {
                self.in_flight += 1;
                self.rec.record_submit(dir, self.in_flight);
                self.uncommitted.push(slot);
                if self.shape.batch <= 1 {
                    let t = self.commit()?;
                    if self.shape.coarse {
                        self.reuse_t = Some(t);
                    }
                }
            }
            _ => {
                self.free.push(slot);
                self.pending = Some(r);
            }
        }
        Ok(())
    }
}

/// Completions of the batch lane that go to the recorder as one: the same direction, size
/// and file, created and issued at the same times, `n` of them.
#[derive(Clone, Copy)]
struct LaneRun {
    dir: IoDir,
    file: u32,
    len: u64,
    start: u64,
    issue: u64,
    n: u64,
}

impl LaneRun {
    #[inline(always)]
    fn same(&self, o: &LaneRun) -> bool {
        self.dir == o.dir
            && self.len == o.len
            && self.file == o.file
            && self.start == o.start
            && self.issue == o.issue
    }
}
