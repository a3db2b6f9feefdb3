//! The worker loop: one OS thread drives one job clone's request stream through an engine and
//! records every I/O into its own [`Recorder`] (fio backend.c `do_io`, with the accounting of
//! io_u.c `io_u_mark_depth`/`io_completed`).
//!
//! Shape of the loop, as in fio: fill the queue up to `iodepth` (committing every
//! `iodepth_batch_submit` units), then reap at least `iodepth_batch_complete_min` (at least one
//! when the queue is full or the stream has ended), refill once the depth has fallen to
//! `iodepth_low`. Clocks: one read when a unit is created, one per commit (its units' issue
//! time), one per reap (its completions' time). Reads are shared where no syscall separates
//! two events, so the error is the few hundred nanoseconds of our own bookkeeping between them:
//! the completion read doubles as the creation time of the next unit (sync and async engines
//! alike), and a reap that finds its completions already in the ring (io_uring after a commit
//! with GETEVENTS) takes the commit's read. At fio's default of one completion per reap that
//! is one clock read per I/O instead of three. Paced requests (`issue_at`) wait for their time;
//! their `lat` counts from their creation after the wait, as fio's, and their latency from
//! the intended time (a late issue shows up there: no coordinated omission) is recorded apart
//! as iolab's `sched_lat`. The loop never quiesces the queue to wait (fio's `io_u_quiesce`
//! does, which makes rate-limited runs closed-loop).

use crate::engines::{Completion, IoEngine, IoOp, OpKind, Queued};
use crate::error::EngineError;
use iolab_core::stop::StopCheck;
use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_data::VerifyFailure;
use iolab_stats::recorder::LatTriple;
use iolab_stats::Recorder;

/// The sync and batch lanes (`lanes.rs`): this loop without what a common job never needs.
mod lanes;
/// `thinktime`: fio's pause between I/Os.
mod think;
pub use think::ThinkSpec;

/// Where the requests come from: the one trait in `core`, shared with the simulator.
pub use iolab_core::RequestSource;

/// What goes into a write buffer: `fill(buf, file, offset)` (the data crate's generator).
pub trait BufFill: Send {
    fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64);
}

impl<F: FnMut(&mut [u8], u32, u64) + Send> BufFill for F {
    fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        self(buf, file, offset)
    }
}

/// What a read buffer is checked against after completion (`verify`); `Err` is the data
/// crate's typed failure (which block, what was expected, what was found).
pub trait ReadCheck: Send {
    fn check(&mut self, buf: &[u8], file: u32, offset: u64) -> Result<(), Box<VerifyFailure>>;

    /// One read completion in how many the check looks at: the worker calls [`check`] for
    /// its first read completion (result ≥ 0) and then every `every()`-th, and skips the
    /// others without fetching their buffers (the advice's zero-read probe samples one in
    /// 16; a verify check needs every read: 1, the default).
    ///
    /// [`check`]: ReadCheck::check
    fn every(&self) -> u64 {
        1
    }

    /// Whether [`ReadCheck::done`] wants every completion (fio's `verify_backlog`, which
    /// needs each write's completion and the last direction done); default no, so a plain
    /// check costs nothing more per I/O.
    fn wants_done(&self) -> bool {
        false
    }

    /// A unit of `dir` at (`file`, `offset`) completed (`ok`) or failed, after its
    /// accounting (fio io_u.c `io_completed`: the write's log entry is marked done, or
    /// dropped when it failed; `td->last_ddir` is set).
    fn done(&mut self, _dir: IoDir, _file: u32, _offset: u64, _ok: bool) {}
}

/// The loop's knobs, resolved from the job.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    pub depth: u32,
    /// `iodepth_batch_submit` (0 means `iodepth`).
    pub batch_submit: u32,
    /// `iodepth_batch_complete_min` (0 polls).
    pub complete_min: u32,
    /// `iodepth_low`: refill when in-flight falls to this (default: `iodepth`).
    pub depth_low: u32,
    /// `fsync=N`/`fdatasync=N`: a sync unit after every N writes (0: never).
    pub fsync_every: u64,
    pub fdatasync_every: u64,
    /// `end_fsync`: fsync every written file when the stream ends.
    pub end_fsync: bool,
    /// `runtime` (a cap; with `time_based` the stream is expected to be endless).
    pub runtime: Option<Nanos>,
    /// `ramp_time`: statistics are reset when it ends.
    pub ramp: Option<Nanos>,
    /// Stats interval (fio `bwavgtime`).
    pub interval: Nanos,
    /// Stop on the first I/O error (fio `continue_on_error=none`), except in the directions
    /// of `continue_dirs`.
    pub stop_on_error: bool,
    /// fio's `continue_on_error=read|write|io`: errors of reads (bit 0) or of writes, trims
    /// and syncs (bit 1, fio `td_error_type`) are counted and the job goes on.
    pub continue_dirs: u8,
    /// Latencies not measured (fio `disable_slat`, `disable_clat`, `disable_lat`;
    /// `gtod_reduce` sets all three). With all three off no clock is read per I/O, only the
    /// periodic runtime checks (fio io_u.c `gtod_reduce()`).
    pub no_slat: bool,
    pub no_clat: bool,
    pub no_lat: bool,
    /// Per-I/O logs: `write_lat_log` (clat, slat, lat samples per I/O or per `log_avg_msec`
    /// window), and `write_bw_log`/`write_iops_log` when they log every I/O (no
    /// `log_avg_msec`; fio `per_unit_log`).
    pub lat_log: Option<LatLogSpec>,
    /// fio `clocksource`: where every timestamp of the loop comes from.
    pub clock: crate::clock::ClockSource,
    /// `thinktime` (`None`: no pause between I/Os).
    pub think: Option<ThinkSpec>,
}

/// How `write_lat_log` samples (fio `log_avg_msec`, `log_window_value`, `log_offset`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LatLogSpec {
    pub avg: Nanos,
    pub window: iolab_stats::WindowValue,
    pub offset: bool,
    /// `write_lat_log` is set (clat, slat, lat).
    pub lat: bool,
    /// A per-I/O bandwidth sample per data I/O: bytes·10⁶/clat_ns (fio stat.c
    /// `add_bw_sample`), unless `disable_bw_measurement`.
    pub unit_bw: bool,
    /// A per-I/O IOPS sample of 1 per data I/O (fio `add_iops_sample`).
    pub unit_iops: bool,
    /// `write_hist_log` with its `log_hist_msec` (0: the log stays empty, as in fio).
    pub hist_msec: Option<u64>,
}

/// A worker's latency logs, times in ms since its measurement started.
#[derive(Clone, Debug)]
pub struct LatLogs {
    pub clat: iolab_stats::SampleLog,
    pub slat: iolab_stats::SampleLog,
    pub lat: iolab_stats::SampleLog,
    pub bw: Option<iolab_stats::SampleLog>,
    pub iops: Option<iolab_stats::SampleLog>,
    /// `write_hist_log`: clat histogram copies every `log_hist_msec`.
    pub hist: Option<iolab_stats::HistLog>,
    lat_on: bool,
}

impl LatLogs {
    fn new(s: &LatLogSpec) -> Self {
        let l = || iolab_stats::SampleLog::new(s.avg, s.window, s.offset);
        let unit = || iolab_stats::SampleLog::new(Nanos::ZERO, s.window, s.offset);
        LatLogs {
            clat: l(),
            slat: l(),
            lat: l(),
            bw: s.unit_bw.then(unit),
            iops: s.unit_iops.then(unit),
            hist: s.hist_msec.map(iolab_stats::HistLog::new),
            lat_on: s.lat,
        }
    }

    fn finish(&mut self, end: Nanos) {
        for log in [&mut self.clat, &mut self.slat, &mut self.lat] {
            log.finish(end);
        }
        for log in [self.bw.as_mut(), self.iops.as_mut()].into_iter().flatten() {
            log.finish(end);
        }
    }
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            depth: 1,
            batch_submit: 1,
            complete_min: 1,
            depth_low: 1,
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            runtime: None,
            ramp: None,
            interval: iolab_stats::DEFAULT_INTERVAL,
            stop_on_error: true,
            continue_dirs: 0,
            no_slat: false,
            no_clat: false,
            no_lat: false,
            lat_log: None,
            clock: crate::clock::ClockSource::default_for_host(),
            think: None,
        }
    }
}

impl WorkerConfig {
    /// Whether an I/O error in `dir` ends the job (fio io_u.c `td_non_fatal_error`).
    #[inline]
    pub fn stops_on(&self, dir: IoDir) -> bool {
        let bit = if dir == IoDir::Read { 1 } else { 2 };
        self.stop_on_error && self.continue_dirs & bit == 0
    }
}

/// What a worker produced.
#[derive(Debug)]
pub struct WorkerOutcome {
    pub rec: Recorder,
    /// Measured time (after ramp).
    pub runtime: Nanos,
    /// When measurement started, relative to the worker's start (the ramp length, or 0).
    pub measure_start: Nanos,
    /// Worker's thread CPU over the measured window.
    pub cpu: iolab_stats::CpuUsage,
    /// The error that stopped the worker, if any (I/O errors are also in the recorder).
    pub error: Option<String>,
    pub verify_failures: u64,
    /// Completed I/Os and bytes per file index (how the shared depth pool was spread).
    pub per_file: Vec<(u64, u64)>,
    /// The verify phase or in-line read checks (filled by the runner).
    pub verify: Option<iolab_stats::VerifyResult>,
    /// `write_lat_log` samples, closed at the end of the run.
    pub lat_logs: Option<LatLogs>,
    /// What the engine chose differently from the job's defaults (filled by the runner).
    pub notes: Vec<String>,
}

/// Which latencies are measured, and the log they go to.
#[derive(Clone, Copy)]
struct Measure {
    slat: bool,
    clat: bool,
    lat: bool,
    /// Log times count from here (the end of the ramp).
    epoch: u64,
}

/// Per-slot bookkeeping of an in-flight unit.
#[derive(Clone, Copy, Default)]
struct Slot {
    dir: IoDir,
    file: u32,
    offset: u64,
    len: u64,
    /// Creation (or intended issue) time, ns since worker start.
    start: u64,
    /// Intended issue time (paced), for `lat` from the schedule.
    intended: Option<u64>,
    issue: u64,
}

fn op_kind(dir: IoDir) -> OpKind {
    match dir {
        IoDir::Read => OpKind::Read,
        IoDir::Write => OpKind::Write,
        IoDir::Trim => OpKind::Trim,
        IoDir::Sync => OpKind::Fsync,
    }
}

/// Most units a commit is held back for while completions wait in the ring (see
/// [`Worker::commit_pending`]).
const LAZY_COMMIT_MAX: u32 = 4;

/// Where a worker publishes its live counters for a progress display (set at the start and
/// again when the ramp ends and the recorder restarts).
pub type LiveSlot = std::sync::Mutex<Option<std::sync::Arc<iolab_stats::LiveCounters>>>;

/// Run the loop until the stream ends, `runtime` expires or `stop` is set.
///
/// Generic over the engine and the source so a caller holding concrete types gets the
/// per-I/O calls inlined; `&mut dyn IoEngine` and `&mut dyn RequestSource` work as well.
pub fn run_worker<E, S>(
    engine: &mut E,
    src: &mut S,
    fill: &mut dyn BufFill,
    check: Option<&mut dyn ReadCheck>,
    cfg: &WorkerConfig,
    stop: &dyn StopCheck,
    live: Option<&LiveSlot>,
) -> Result<WorkerOutcome, EngineError>
where
    E: IoEngine + ?Sized,
    S: RequestSource + ?Sized,
{
    let mut w = Worker::new(engine, src, fill, check, cfg, stop, live);
    w.run()?;
    Ok(w.finish())
}

/// The queue shape, fixed for a run: fio's `iodepth`, `iodepth_batch_submit`, `iodepth_low`.
#[derive(Clone, Copy)]
struct Shape {
    depth: u32,
    batch: u32,
    low: u32,
    /// Units a full queue's commit may be held for while completions wait.
    hold: u32,
    /// The engine completes in `queue` (its completion read starts the next unit).
    sync: bool,
    /// The null engine: every unit of a fill pass starts at the pass's last clock read.
    coarse: bool,
    /// fio's gtod_reduce(): nothing per I/O needs a timestamp.
    untimed: bool,
}

/// What a fill pass ended with.
#[derive(PartialEq, Eq)]
enum Fill {
    /// Go round the loop again (a sync engine's periodic time check is due).
    Recheck,
    /// Commit and reap.
    Done,
}

/// One worker's state: the slots of its in-flight units, its recorder and the stream's
/// position (fio's `thread_data` for one job clone, without the globals).
struct Worker<'a, 'f, 'c, E: ?Sized, S: ?Sized> {
    engine: &'a mut E,
    src: &'a mut S,
    fill: &'a mut (dyn BufFill + 'f),
    check: Option<&'a mut (dyn ReadCheck + 'c)>,
    /// The check's [`ReadCheck::every`], and read completions to skip before its next call.
    check_every: u64,
    check_skip: u64,
    /// The check's [`ReadCheck::wants_done`].
    done_hook: bool,
    cfg: &'a WorkerConfig,
    stop: &'a dyn StopCheck,
    live: Option<&'a LiveSlot>,
    t0: crate::clock::Clock,
    shape: Shape,
    rec: Recorder,
    ramping: bool,
    measure_start: Nanos,
    cpu0: iolab_stats::CpuUsage,
    slots: Vec<Slot>,
    free: Vec<u32>,
    uncommitted: Vec<u32>,
    comps: Vec<Completion>,
    in_flight: u32,
    req: IoRequest,
    pending: Option<IoRequest>,
    stream_done: bool,
    writes_since_sync: u64,
    need_sync: Option<(OpKind, u32)>,
    written_files: Vec<u32>,
    error: Option<String>,
    verify_failures: u64,
    ops_since_check: u32,
    per_file: Vec<(u64, u64)>,
    /// A clock read that stands for the next unit's start (see the module note).
    reuse_t: Option<u64>,
    meas: Measure,
    lat_logs: Option<LatLogs>,
    /// The engine's work is a per-file operation (its open hook): units carry no latency.
    file_ops: bool,
    /// Per file, the pass (+1) in which its open hook last ran.
    opened: Vec<u64>,
    /// When `runtime` runs out, in ns since `t0`: every wait ends there, and every completion
    /// is compared with it (one comparison per I/O), so a job ends within about one I/O's
    /// latency whatever its rate, thinktime or block size (u64::MAX: no runtime).
    deadline: u64,
    /// `thinktime`'s counters.
    think: think::ThinkState,
}

impl<'a, 'f, 'c, E, S> Worker<'a, 'f, 'c, E, S>
where
    E: IoEngine + ?Sized,
    S: RequestSource + ?Sized,
{
    fn new(
        engine: &'a mut E,
        src: &'a mut S,
        fill: &'a mut (dyn BufFill + 'f),
        check: Option<&'a mut (dyn ReadCheck + 'c)>,
        cfg: &'a WorkerConfig,
        stop: &'a dyn StopCheck,
        live: Option<&'a LiveSlot>,
    ) -> Self {
        let caps = engine.caps();
        let depth = if caps.sync { 1 } else { cfg.depth.clamp(1, caps.max_depth) };
        let batch = if cfg.batch_submit == 0 { depth } else { cfg.batch_submit.min(depth) };
        let mut meas =
            Measure { slat: !cfg.no_slat, clat: !cfg.no_clat, lat: !cfg.no_lat, epoch: 0 };
        let shape = Shape {
            depth,
            batch,
            low: cfg.depth_low.clamp(0, depth.saturating_sub(1)),
            hold: if batch > 1 { batch.min(LAZY_COMMIT_MAX) } else { 0 },
            sync: caps.sync,
            coarse: caps.no_io,
            untimed: !meas.slat && !meas.clat && !meas.lat,
        };
        let file_ops = engine.file_ops();
        if file_ops {
            // fio's FIO_NOSTATS: the units are counted, the open hook's times are the samples.
            (meas.slat, meas.clat, meas.lat) = (false, false, false);
        }
        let t0 = crate::clock::Clock::start(cfg.clock);
        let rec = Recorder::new(cfg.interval);
        publish_live(live, &rec);
        let check_every = check.as_ref().map_or(1, |c| c.every().max(1));
        let done_hook = check.as_ref().is_some_and(|c| c.wants_done());
        Worker {
            engine,
            src,
            fill,
            check,
            check_every,
            check_skip: 0,
            done_hook,
            cfg,
            stop,
            live,
            t0,
            shape,
            rec,
            ramping: cfg.ramp.is_some_and(|r| r.0 > 0),
            measure_start: Nanos::ZERO,
            cpu0: iolab_stats::CpuUsage::sample(iolab_stats::Who::Thread),
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            uncommitted: Vec::with_capacity(depth as usize),
            comps: Vec::with_capacity(depth as usize),
            in_flight: 0,
            req: IoRequest::default(),
            pending: None,
            stream_done: false,
            writes_since_sync: 0,
            need_sync: None,
            written_files: Vec::new(),
            error: None,
            verify_failures: 0,
            ops_since_check: 0,
            per_file: Vec::new(),
            reuse_t: None,
            meas,
            lat_logs: cfg.lat_log.as_ref().map(LatLogs::new),
            deadline: run_deadline(cfg.runtime, cfg.ramp.map_or(0, |r| r.0)),
            file_ops,
            opened: Vec::new(),
            think: think::ThinkState::default(),
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        self.t0.elapsed_ns()
    }

    /// fio backend.c `do_io`: fill, commit, reap until the stream ends, then `end_fsync`.
    fn run(&mut self) -> Result<(), EngineError> {
        if self.sync_lane() {
            self.run_sync()?;
        } else if self.batch_lane() {
            self.run_batch()?;
        }
        loop {
            // Time checks every few units: ramp end, runtime cap, stop flag, interval ticks.
            self.ops_since_check += 1;
            if self.ops_since_check >= 16 || self.in_flight == 0 {
                self.ops_since_check = 0;
                self.time_check();
            }
            if self.fill_queue()? == Fill::Recheck {
                continue;
            }
            let fresh_t = self.commit_pending()?;
            if self.in_flight == 0 {
                if self.stream_done || self.error.is_some() {
                    break;
                }
                continue;
            }
            self.reap(fresh_t)?;
            if self.cfg.think.is_some() {
                self.think_check()?;
            }
        }
        if self.cfg.end_fsync && self.error.is_none() {
            self.end_fsync()?;
        }
        Ok(())
    }

    /// The ramp's end, the runtime cap, the stop flag and the stats interval.
    fn time_check(&mut self) {
        let t = Nanos(self.now());
        if self.ramping && t >= self.cfg.ramp.unwrap_or_default() {
            self.end_ramp(t);
        }
        if !self.ramping {
            self.rec.tick_interval(t.saturating_sub(self.measure_start));
            self.rec.offer_snapshot(t.saturating_sub(self.measure_start));
            if let Some(rt) = self.cfg.runtime {
                if t.saturating_sub(self.measure_start) >= rt {
                    self.stream_done = true;
                }
            }
        }
        if self.stop.is_set() {
            self.stream_done = true;
        }
    }

    /// fio `reset_all_stats()`: counters, histograms, runtime and the epoch restart.
    #[cold]
    fn end_ramp(&mut self, t: Nanos) {
        self.ramping = false;
        self.measure_start = t;
        self.rec = Recorder::new(self.cfg.interval);
        publish_live(self.live, &self.rec);
        self.cpu0 = iolab_stats::CpuUsage::sample(iolab_stats::Who::Thread);
        self.meas.epoch = t.0;
        self.lat_logs = self.cfg.lat_log.as_ref().map(LatLogs::new);
        self.deadline = run_deadline(self.cfg.runtime, t.0);
    }

    /// Queue units until the depth is reached, the stream ends or the engine is busy,
    /// committing every `iodepth_batch_submit` units.
    #[inline]
    fn fill_queue(&mut self) -> Result<Fill, EngineError> {
        let mut queued_now = 0u32;
        while !self.stream_done && self.error.is_none() && !self.free.is_empty() {
            let Some((kind, r)) = self.next_unit() else { break };
            let Some(t_start) = self.start_time(&r) else { break };
            let Some(slot) = self.free.pop() else { break };
            let intended = self.intended(&r);
            let (dir, file, offset, len) = (r.dir, r.file, r.offset, r.len);
            self.slots[slot as usize] =
                Slot { dir, file, offset, len, start: t_start, intended, issue: t_start };
            if kind == OpKind::Write {
                self.prepare_write(slot, &r);
            } else if kind == OpKind::Fdatasync && !self.ramping {
                self.rec.record_datasync();
            }
            match self.engine.queue(IoOp { slot, kind, file, offset, len })? {
                Queued::Completed(res) => self.complete_inline(slot, res),
                Queued::Queued => {
                    self.in_flight += 1;
                    self.rec.record_submit(dir, self.in_flight);
                    self.uncommitted.push(slot);
                    queued_now += 1;
                    if queued_now >= self.shape.batch {
                        let t = self.commit()?;
                        if self.shape.coarse {
                            self.reuse_t = Some(t);
                        }
                        queued_now = 0;
                    }
                }
                Queued::Busy => {
                    self.free.push(slot);
                    self.pending = Some(r);
                    break;
                }
            }
            if self.cfg.think.is_some() && dir != IoDir::Sync {
                self.think.issued += 1;
                self.think.last_dir = dir as usize;
                self.think_check()?;
            }
            if self.in_flight == 0 && self.free.len() as u32 == self.shape.depth {
                // Sync engine: give the time checks a chance every unit batch.
                self.ops_since_check += 1;
                if self.ops_since_check >= 16 {
                    return Ok(Fill::Recheck);
                }
            }
        }
        Ok(Fill::Done)
    }

    /// The next unit: a due sync unit (once the writes it covers are done), a request put
    /// back earlier, or the source's next one. `None` stops this fill pass.
    #[inline]
    fn next_unit(&mut self) -> Option<(OpKind, IoRequest)> {
        if let Some((k, file)) = self.need_sync {
            if self.in_flight > 0 || !self.uncommitted.is_empty() {
                return None;
            }
            // fio backend.c do_io: the loop ends once every byte is issued, before the sync
            // the last writes made due (`fsync=4` over 256 writes: 63 syncs).
            if self.pending.is_none() {
                let r = self.fetch()?;
                self.pending = Some(r);
            }
            self.need_sync = None;
            let r = IoRequest { dir: IoDir::Sync, file, offset: 0, len: 0, issue_at: None };
            return Some((k, r));
        }
        let r = match self.pending.take() {
            Some(r) => r,
            None => self.fetch()?,
        };
        Some((op_kind(r.dir), r))
    }

    /// The source's next request; `None` when the stream ended or the file's operation
    /// failed (its units are not issued: fio's td_io_open_file failing ends the job).
    #[inline]
    fn fetch(&mut self) -> Option<IoRequest> {
        if !self.src.next_into(&mut self.req) {
            self.stream_done = true;
            return None;
        }
        if self.file_ops && !self.open_hook(self.req.file, self.req.dir) {
            return None;
        }
        Some(self.req)
    }

    /// The unit's start time. Sync engines: the previous completion's clock read starts this
    /// unit (it is created right after), so one clock read per I/O instead of two. The null
    /// engine (`coarse`) goes further: every unit of a fill pass starts at the pass's last
    /// clock read (reap or commit), so a QD32 batch costs about three reads. A paced unit
    /// waits for its time; `None` when it cannot be issued now (put back, or the run ended).
    #[inline]
    fn start_time(&mut self, r: &IoRequest) -> Option<u64> {
        let intended = self.intended(r);
        let mut t_start = match self.reuse_t.take() {
            Some(t) => t,
            None if self.shape.untimed && intended.is_none() => 0,
            None => self.now(),
        };
        if self.shape.coarse {
            self.reuse_t = Some(t_start);
        }
        if let Some(at) = intended {
            if at > t_start {
                // Paced: wait for the intended time without draining the queue.
                if self.in_flight > 0 && at - t_start > 50_000 {
                    self.pending = Some(*r);
                    return None;
                }
                if !wait_until(&self.t0, at, self.deadline, self.stop) {
                    // runtime ran out or Ctrl-C during the wait: the unit is not issued.
                    self.stream_done = true;
                    return None;
                }
                t_start = self.now();
            }
        }
        Some(t_start)
    }

    /// A paced unit's intended issue time, moved on by `rate_ignore_thinktime`'s pauses.
    #[inline]
    fn intended(&self, r: &IoRequest) -> Option<u64> {
        let at = r.issue_at?.0;
        match r.dir {
            IoDir::Read | IoDir::Write | IoDir::Trim if self.cfg.think.is_some() => {
                Some(at.saturating_add(self.think.shift[r.dir as usize]))
            }
            _ => Some(at),
        }
    }

    /// Fill a write's buffer and count it towards `fsync=N`/`fdatasync=N`.
    #[inline]
    fn prepare_write(&mut self, slot: u32, r: &IoRequest) {
        self.fill.fill(self.engine.buf(slot, r.len as usize), r.file, r.offset);
        if !self.written_files.contains(&r.file) {
            self.written_files.push(r.file);
        }
        self.writes_since_sync += 1;
        let n = self.writes_since_sync;
        if self.cfg.fsync_every > 0 && n % self.cfg.fsync_every == 0 {
            self.need_sync = Some((OpKind::Fsync, r.file));
        } else if self.cfg.fdatasync_every > 0 && n % self.cfg.fdatasync_every == 0 {
            self.need_sync = Some((OpKind::Fdatasync, r.file));
        }
    }

    /// A unit the engine completed in `queue` (sync engines, the null engine at depth 1).
    #[inline]
    fn complete_inline(&mut self, slot: u32, res: i64) {
        let t_done = if self.shape.untimed { 0 } else { self.now() };
        if self.shape.sync {
            self.reuse_t = Some(t_done);
        }
        if t_done >= self.deadline {
            self.stream_done = true;
        }
        let s = self.slots[slot as usize];
        count_file(&mut self.per_file, s.file, res, self.ramping);
        self.rec.record_submit(s.dir, 1);
        self.complete(&s, slot, res, None, t_done, self.cfg.stops_on(s.dir));
        self.free.push(slot);
    }

    /// Submit the queued units; their issue time is the clock read right after.
    #[inline]
    fn commit(&mut self) -> Result<u64, EngineError> {
        let n = self.engine.commit()?;
        let t = if self.shape.untimed { 0 } else { self.now() };
        for &s in &self.uncommitted {
            self.slots[s as usize].issue = t;
        }
        self.rec.record_submit_batch(n as u32);
        self.uncommitted.clear();
        Ok(t)
    }

    /// Commit what the fill pass left queued, unless it is worth holding. fio commits before
    /// every getevents, so with the queue full it submits one unit per completion even when
    /// `iodepth_batch` allows more. When the job allows batching and completions are already
    /// waiting (in the ring, or as io_uring task work the next reap runs without blocking),
    /// the commit waits for up to `hold` units instead: the same units in the same order,
    /// fewer kernel entries and device notifications, and no unit held while the worker
    /// sleeps. `hold` stays at 4 because every held unit is out of the device while the reaps
    /// that fill the batch run. QD32 batch 8 on a virtio disk, 15 alternated runs: hold 4
    /// 1.16x t/io_uring -s8 -c8's CPU per I/O at 88.3k IOPS (fio 88.6k, t/io_uring 86.2k,
    /// slat mean 9.7 us); hold 8 1.10x at 84.4k (slat 18.3 us).
    /// Returns the clock read taken right after the commit: the last event before the reap.
    #[inline]
    fn commit_pending(&mut self) -> Result<Option<u64>, EngineError> {
        if self.uncommitted.is_empty() {
            return Ok(None);
        }
        let lazy = (self.uncommitted.len() as u32) < self.shape.hold
            && self.free.is_empty()
            && !self.stream_done
            && self.error.is_none()
            && self.engine.waiting();
        if lazy {
            return Ok(None);
        }
        self.commit().map(Some)
    }

    /// Reaps at least `want` completions into the worker's reused vector and hands it over,
    /// or `None` (the vector kept) when nothing completed; the caller puts it back.
    #[inline(always)]
    fn reap_comps(&mut self, want: u32) -> Result<Option<Vec<Completion>>, EngineError> {
        let mut comps = std::mem::take(&mut self.comps);
        comps.clear();
        // Matched rather than kept as a `Result` across the branch: that kept a drop call
        // per reap (16 instructions per I/O at QD32 io_uring).
        if let Err(e) = self.engine.reap(want, &mut comps) {
            self.comps = comps;
            return Err(e);
        }
        if comps.is_empty() {
            self.comps = comps;
            return Ok(None);
        }
        Ok(Some(comps))
    }

    /// Reap at least `iodepth_batch_complete_min` completions (at least one when the queue
    /// is full or the stream has ended) and account for them.
    #[inline]
    fn reap(&mut self, fresh_t: Option<u64>) -> Result<(), EngineError> {
        let in_flight = self.in_flight;
        let full = self.free.is_empty()
            || self.pending.is_some()
            || self.stream_done
            || self.error.is_some();
        let min = self.cfg.complete_min;
        let want = if full {
            min.max(1).min(in_flight).max(in_flight.saturating_sub(self.shape.low).min(1))
        } else {
            min.min(in_flight)
        };
        let untimed = self.shape.untimed;
        // Completions already in the ring come back without a syscall: the commit's clock
        // read a few hundred nanoseconds ago stands for their completion time.
        let shared_t = fresh_t.filter(|_| !untimed && self.engine.ready() >= want.max(1));
        let Some(comps) = self.reap_comps(want)? else { return Ok(()) };
        let t_done = match shared_t {
            _ if untimed => 0,
            Some(t) => t,
            None => self.now(),
        };
        if !untimed {
            self.reuse_t = Some(t_done);
        }
        if t_done >= self.deadline {
            self.stream_done = true;
        }
        self.rec.record_complete_batch(comps.len() as u32);
        // Consecutive completions with the same figures go to the recorder as one run (the
        // null engine's batches share every clock read); anything else flushes the run first,
        // so the recorder sees the same samples in the same order.
        let batch = self.lat_logs.is_none() && self.check.is_none() && self.meas.all();
        let mut run: Option<(IoDir, u64, LatTriple, u64)> = None;
        for c in &comps {
            let s = self.slots[c.slot as usize];
            self.in_flight -= 1;
            count_file(&mut self.per_file, s.file, c.res, self.ramping);
            let plain = s.dir != IoDir::Sync && s.intended.is_none();
            if batch && plain && c.res >= 0 && c.res as u64 == s.len {
                let x = latencies(&s, Some(s.issue), t_done);
                match &mut run {
                    Some((d, b, y, n)) if *d == s.dir && *b == s.len && *y == x => *n += 1,
                    _ => {
                        self.flush_run(run.take());
                        run = Some((s.dir, s.len, x, 1));
                    }
                }
            } else {
                self.flush_run(run.take());
                self.complete(&s, c.slot, c.res, Some(s.issue), t_done, self.cfg.stops_on(s.dir));
            }
            self.free.push(c.slot);
        }
        self.flush_run(run);
        self.comps = comps;
        if self.error.is_some() {
            self.stream_done = true;
        }
        Ok(())
    }

    /// `end_fsync`: one fsync per written file, waited for, recorded as sync I/Os.
    fn end_fsync(&mut self) -> Result<(), EngineError> {
        for f in std::mem::take(&mut self.written_files) {
            let t = self.now();
            let slot = 0;
            let op = IoOp { slot, kind: OpKind::Fsync, file: f, offset: 0, len: 0 };
            let res = match self.engine.queue(op)? {
                Queued::Completed(r) => r,
                _ => {
                    self.engine.commit()?;
                    self.comps.clear();
                    self.engine.reap(1, &mut self.comps)?;
                    self.comps.first().map(|c| c.res).unwrap_or(0)
                }
            };
            let s = Slot { dir: IoDir::Sync, file: f, start: t, issue: t, ..Slot::default() };
            let t_done = self.now();
            self.complete_outlined(&s, slot, res, None, t_done, false);
        }
        Ok(())
    }

    /// Account one finished unit: errors, short transfers, latencies, the per-I/O logs and
    /// the read check (fio io_u.c `io_completed`, stat.c `add_clat_sample` and friends).
    /// Inlined into every caller: an async engine reaches it once per I/O from `reap`.
    #[inline(always)]
    fn complete(
        &mut self,
        s: &Slot,
        slot: u32,
        res: i64,
        issue: Option<u64>,
        t_done: u64,
        stop_on_error: bool,
    ) {
        let res = full_resid(s.dir, s.len, res, self.shape.coarse);
        if self.done_hook {
            self.done(s.dir, s.file, s.offset, res >= 0);
        }
        if res < 0 {
            self.fail(s, (-res) as i32, stop_on_error);
            return;
        }
        let bytes = res as u64;
        // A FIO_NOIO engine (cpuio) completes units with no bytes: not short I/Os.
        if s.dir != IoDir::Sync && bytes < s.len && !self.shape.coarse {
            self.rec.record_short(s.dir);
        }
        let x = latencies(s, issue, t_done);
        let LatTriple { slat, clat, lat } = x;
        let m = self.meas;
        if m.slat && m.clat && m.lat {
            self.rec.record_complete(s.dir, bytes, slat, clat, lat);
        } else {
            let (sl, cl, l) =
                (slat.filter(|_| m.slat), m.clat.then_some(clat), m.lat.then_some(lat));
            self.rec.record_complete_parts(s.dir, bytes, sl, cl, l);
        }
        if let Some(l) = self.lat_logs.as_mut() {
            let t = Nanos(t_done.saturating_sub(m.epoch));
            l.add(m, t, s, bytes, x);
        }
        if let (Some(at), true) = (s.intended, m.lat) {
            // From the schedule's intended time: what coordinated omission hides from `lat`.
            self.rec.record_sched_lat(s.dir, Nanos(t_done.saturating_sub(at.min(s.start))));
        }
        if s.dir == IoDir::Read && self.check.is_some() {
            self.sample_read(s, slot, bytes);
        }
    }

    /// A read completion for the check: passed on if it is one the check samples
    /// ([`ReadCheck::every`]), else only counted.
    #[inline(always)]
    fn sample_read(&mut self, s: &Slot, slot: u32, bytes: u64) {
        if self.check_skip == 0 {
            self.check_skip = self.check_every - 1;
            self.check_read(s, slot, bytes);
        } else {
            self.check_skip -= 1;
        }
    }

    /// [`Worker::complete`] kept out of line, for the paths that rarely take it (the batch
    /// lane's odd completions, `end_fsync`), so their loops stay as small as before.
    #[inline(never)]
    fn complete_outlined(
        &mut self,
        s: &Slot,
        slot: u32,
        res: i64,
        issue: Option<u64>,
        t_done: u64,
        stop_on_error: bool,
    ) {
        self.complete(s, slot, res, issue, t_done, stop_on_error);
    }

    /// Record `n` completions of `dir` with `bytes` each and the same latencies.
    #[inline]
    fn flush_run(&mut self, run: Option<(IoDir, u64, LatTriple, u64)>) {
        match run {
            Some((dir, bytes, x, 1)) => self.rec.record_complete(dir, bytes, x.slat, x.clat, x.lat),
            Some((dir, bytes, x, n)) => self.rec.record_complete_n(dir, bytes, n, x),
            None => {}
        }
    }

    /// fio's `td_io_open_file` for an engine with an open hook: the first unit of a pass on a
    /// file runs the engine's file operation and records its time; `false` when it failed.
    #[cold]
    fn open_hook(&mut self, file: u32, dir: IoDir) -> bool {
        let (i, pass) = (file as usize, self.src.passes() + 1);
        if self.opened.len() <= i {
            self.opened.resize(i + 1, 0);
        }
        if self.opened[i] == pass {
            return true;
        }
        self.opened[i] = pass;
        match self.engine.open_file(file) {
            Some(Ok((d, t))) if !self.ramping => self.rec.record_clat_only(d, t),
            Some(Err(errno)) => {
                self.rec.record_error(dir, errno);
                if self.error.is_none() {
                    self.error = Some(format!(
                        "{} of file {file} failed: {}",
                        self.engine.name(),
                        std::io::Error::from_raw_os_error(errno)
                    ));
                }
                return false;
            }
            _ => {}
        }
        true
    }

    /// A failed unit: counted by errno; the first one stops the job unless errors continue.
    #[cold]
    fn fail(&mut self, s: &Slot, errno: i32, stop_on_error: bool) {
        self.rec.record_error(s.dir, errno);
        if stop_on_error && self.error.is_none() {
            self.error = Some(format!(
                "{} of {} bytes at offset {} (file {}) failed: {}",
                s.dir,
                s.len,
                s.offset,
                s.file,
                std::io::Error::from_raw_os_error(errno)
            ));
        }
    }

    /// Tell the check a unit completed ([`ReadCheck::done`]).
    #[cold]
    fn done(&mut self, dir: IoDir, file: u32, offset: u64, ok: bool) {
        if let Some(c) = self.check.as_mut() {
            c.done(dir, file, offset, ok);
        }
    }

    /// Hand a completed read's bytes to the check (`verify`, the advice probe).
    fn check_read(&mut self, s: &Slot, slot: u32, bytes: u64) {
        let Some(c) = self.check.as_mut() else { return };
        let buf = self.engine.buf(slot, bytes as usize);
        if let Err(f) = c.check(buf, s.file, s.offset) {
            self.verify_failures += 1;
            if self.error.is_none() {
                self.error = Some(format!("verify failed: {f}"));
            }
        }
    }

    /// Close the logs and intervals, apply the clock cross-check, and hand back the figures.
    fn finish(self) -> WorkerOutcome {
        let Worker { mut rec, mut lat_logs, mut measure_start, t0, cfg, cpu0, .. } = self;
        let end = Nanos(t0.elapsed_ns());
        let mut runtime = end.saturating_sub(measure_start);
        rec.finish_intervals(runtime);
        if let Some(l) = lat_logs.as_mut() {
            l.finish(runtime);
        }
        let mut notes = Vec::new();
        let pair = t0.elapsed_pair();
        if let Some(f) = crate::clock::cross_check(pair) {
            // The clock ran at the wrong rate (see clock.rs): CLOCK_MONOTONIC is the truth.
            let sc = |n: Nanos| Nanos((n.0 as f64 * f).round() as u64);
            rec.rescale_time(f);
            runtime = sc(runtime);
            measure_start = sc(measure_start);
            notes.push(clock_note(cfg.clock, pair, f));
        }
        let cpu = iolab_stats::CpuUsage::sample(iolab_stats::Who::Thread).since(&cpu0);
        WorkerOutcome {
            rec,
            runtime,
            measure_start,
            cpu,
            error: self.error,
            verify_failures: self.verify_failures,
            per_file: self.per_file,
            verify: None,
            lat_logs,
            notes,
        }
    }
}

/// A completion's latencies as fio takes them (io_u.c `account_io_completion`): `slat` from
/// creation to issue (async units), `clat` from issue (or creation) to completion, `lat` from
/// creation, which for a paced unit is after its wait for the schedule. The lag behind the
/// schedule is iolab's own figure ([`Worker::complete`] records it apart).
#[inline]
fn latencies(s: &Slot, issue: Option<u64>, t_done: u64) -> LatTriple {
    let (slat, clat) = match issue {
        Some(i) => (Some(Nanos(i.saturating_sub(s.start))), Nanos(t_done.saturating_sub(i))),
        None => (None, Nanos(t_done.saturating_sub(s.start))),
    };
    LatTriple { slat, clat, lat: Nanos(t_done.saturating_sub(s.start)) }
}

impl Measure {
    /// Every latency is measured (no `disable_*lat`, no `gtod_reduce`).
    #[inline]
    fn all(&self) -> bool {
        self.slat && self.clat && self.lat
    }
}

impl LatLogs {
    /// fio `account_io_completion`: lat for every ddir, clat/bw/iops for data ddirs only.
    fn add(&mut self, m: Measure, t: Nanos, s: &Slot, bytes: u64, x: LatTriple) {
        let data = s.dir != IoDir::Sync;
        if self.lat_on {
            if m.clat && data {
                self.clat.add(t, s.dir, x.clat.0, bytes, s.offset);
            }
            if let (true, Some(sl)) = (m.slat, x.slat) {
                self.slat.add(t, s.dir, sl.0, bytes, s.offset);
            }
            if m.lat {
                self.lat.add(t, s.dir, x.lat.0, bytes, s.offset);
            }
        }
        if let (Some(b), true, true) = (self.bw.as_mut(), data, m.clat) {
            let rate = (bytes as u128 * 1_000_000).checked_div(x.clat.0 as u128).unwrap_or(0);
            b.add(t, s.dir, rate as u64, bytes, s.offset);
        }
        if let (Some(i), true) = (self.iops.as_mut(), data) {
            i.add(t, s.dir, 1, bytes, s.offset);
        }
        if let (Some(h), true, true) = (self.hist.as_mut(), data, m.clat) {
            h.add(t.0 / 1_000_000, s.dir as usize, bytes, x.clat.0);
        }
    }
}

fn publish_live(live: Option<&LiveSlot>, rec: &Recorder) {
    if let Some(l) = live {
        if let Ok(mut g) = l.lock() {
            *g = Some(rec.live());
        }
    }
}

/// The end of `runtime` counted from `from` (u64::MAX: no runtime).
fn run_deadline(runtime: Option<Nanos>, from: u64) -> u64 {
    runtime.map_or(u64::MAX, |rt| from.saturating_add(rt.0))
}

/// The job note for a clock the end-of-job cross-check found off.
fn clock_note(src: crate::clock::ClockSource, p: crate::clock::ElapsedPair, f: f64) -> String {
    format!(
        "clocksource={}: the job's clock read {:.3} ms where CLOCK_MONOTONIC read {:.3} ms \
         ({:+.3} %); runtime, IOPS, bandwidth and latencies were rescaled by {:.6} \
         (latency logs were not)",
        src.name(),
        p.clock_ns as f64 / 1e6,
        p.mono_ns as f64 / 1e6,
        (p.clock_ns as f64 / p.mono_ns.max(1) as f64 - 1.0) * 100.0,
        f
    )
}

#[inline]
fn count_file(per_file: &mut Vec<(u64, u64)>, file: u32, res: i64, ramping: bool) {
    if ramping || res <= 0 {
        return;
    }
    let i = file as usize;
    if per_file.len() <= i {
        per_file.resize(i + 1, (0, 0));
    }
    per_file[i].0 += 1;
    per_file[i].1 += res as u64;
}

/// Longest single sleep of a wait: how soon Ctrl-C (`stop`) is noticed.
const WAIT_SLICE_NS: u64 = 20_000_000;

/// Sleep (then spin the last 20 µs) until `at` ns after `t0`. Returns `false` instead when
/// `deadline` (the end of `runtime`) comes first or `stop` is set: then it returns at the
/// deadline, not at `at`, so a think time or rate gap longer than the runtime never
/// outlasts it.
fn wait_until(t0: &crate::clock::Clock, at: u64, deadline: u64, stop: &dyn StopCheck) -> bool {
    loop {
        let t = t0.elapsed_ns();
        // Nothing is issued at or after the end of the runtime, even when it was due then.
        if t >= deadline || stop.is_set() {
            return false;
        }
        if t >= at {
            return true;
        }
        let left = at.min(deadline) - t;
        if left > 20_000 {
            std::thread::sleep(std::time::Duration::from_nanos((left - 20_000).min(WAIT_SLICE_NS)));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// fio backend.c `io_queue_event`: a read or write that moved no byte of a non-empty unit
/// ("full resid": past the end of a file truncated under the job, a target removed) fails
/// with `EIO` instead of counting as an I/O. fio does so for units completed at queue time
/// (its sync engines); iolab does it for every engine, so a truncated target never reads as
/// millions of 0-byte I/Os. A FIO_NOIO engine (`coarse`) moves no bytes by design.
#[inline(always)]
pub(crate) fn full_resid(dir: IoDir, len: u64, res: i64, coarse: bool) -> i64 {
    if res == 0 && len > 0 && !coarse && matches!(dir, IoDir::Read | IoDir::Write) {
        -i64::from(libc::EIO)
    } else {
        res
    }
}
