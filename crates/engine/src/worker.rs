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
//! is one clock read per I/O instead of three. Paced requests (`issue_at`) wait for their time
//! and their `lat` counts from it, so a late issue shows up as latency (no coordinated omission), and the loop never
//! quiesces the queue to wait (fio's `io_u_quiesce` does, which makes rate-limited runs
//! closed-loop).

use crate::engines::{Completion, IoEngine, IoOp, OpKind, Queued};
use crate::error::EngineError;
use iolab_core::{IoDir, IoRequest, Nanos};
use iolab_stats::Recorder;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where the requests come from: a workload generator, a trace, or a test's closure.
pub trait RequestSource: Send {
    /// Fill `r` with the next request; `false` at the end of the stream.
    fn next_into(&mut self, r: &mut IoRequest) -> bool;
}

impl<F: FnMut(&mut IoRequest) -> bool + Send> RequestSource for F {
    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        self(r)
    }
}

/// What goes into a write buffer: `fill(buf, file, offset)` (the data crate's generator).
pub trait BufFill: Send {
    fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64);
}

impl<F: FnMut(&mut [u8], u32, u64) + Send> BufFill for F {
    fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        self(buf, file, offset)
    }
}

/// What a read buffer is checked against after completion (`verify`); `Err` is a message.
pub trait ReadCheck: Send {
    fn check(&mut self, buf: &[u8], file: u32, offset: u64) -> Result<(), String>;
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
    /// Stop on the first I/O error (fio `continue_on_error=none`).
    pub stop_on_error: bool,
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
            no_slat: false,
            no_clat: false,
            no_lat: false,
            lat_log: None,
            clock: crate::clock::ClockSource::default_for_host(),
        }
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

/// Most units a commit is held back for while completions wait in the ring (see the loop).
const LAZY_COMMIT_MAX: u32 = 4;

/// Run the loop until the stream ends, `runtime` expires or `stop` is set.
pub fn run_worker(
    engine: &mut dyn IoEngine,
    src: &mut dyn RequestSource,
    fill: &mut dyn BufFill,
    mut check: Option<&mut dyn ReadCheck>,
    cfg: &WorkerConfig,
    stop: &AtomicBool,
    live: Option<&std::sync::Mutex<Option<std::sync::Arc<iolab_stats::LiveCounters>>>>,
) -> Result<WorkerOutcome, EngineError> {
    let caps = engine.caps();
    let depth = if caps.sync { 1 } else { cfg.depth.clamp(1, caps.max_depth) };
    let batch = if cfg.batch_submit == 0 { depth } else { cfg.batch_submit.min(depth) };
    let low = cfg.depth_low.clamp(0, depth.saturating_sub(1));
    // Units a full queue's commit may be held for while completions wait (see below).
    let hold = if batch > 1 { batch.min(LAZY_COMMIT_MAX) } else { 0 };
    let t0 = crate::clock::Clock::start(cfg.clock);
    let now = || Nanos(t0.elapsed_ns());

    let mut rec = Recorder::new(cfg.interval);
    if let Some(l) = live {
        if let Ok(mut g) = l.lock() {
            *g = Some(rec.live());
        }
    }
    let mut ramping = cfg.ramp.is_some_and(|r| r.0 > 0);
    let mut measure_start = Nanos::ZERO;
    let mut cpu0 = iolab_stats::CpuUsage::sample(iolab_stats::Who::Thread);

    let mut slots = vec![Slot::default(); depth as usize];
    let mut free: Vec<u32> = (0..depth).rev().collect();
    let mut uncommitted: Vec<u32> = Vec::with_capacity(depth as usize);
    let mut comps: Vec<Completion> = Vec::with_capacity(depth as usize);
    let mut in_flight: u32 = 0;
    let mut req = IoRequest::default();
    let mut pending_req: Option<IoRequest> = None;
    let mut stream_done = false;
    let mut writes_since_sync: u64 = 0;
    let mut need_sync: Option<(OpKind, u32)> = None;
    let mut written_files: Vec<u32> = Vec::new();
    let mut error: Option<String> = None;
    let mut verify_failures = 0u64;
    let mut ops_since_check = 0u32;
    let mut per_file: Vec<(u64, u64)> = Vec::new();
    let mut reuse_t: Option<u64> = None;
    let coarse = caps.no_io;
    let mut meas = Measure { slat: !cfg.no_slat, clat: !cfg.no_clat, lat: !cfg.no_lat, epoch: 0 };
    // fio's gtod_reduce(): nothing per I/O needs a timestamp.
    let untimed = !meas.slat && !meas.clat && !meas.lat;
    let mut lat_logs = cfg.lat_log.as_ref().map(LatLogs::new);
    // When `runtime` runs out, in ns since `t0`: every wait ends there, and every completion
    // is compared with it (one comparison per I/O), so a job ends within about one I/O's
    // latency whatever its rate, thinktime or block size (u64::MAX: no runtime).
    let run_deadline = |from: u64| cfg.runtime.map_or(u64::MAX, |rt| from.saturating_add(rt.0));
    let mut deadline = run_deadline(cfg.ramp.map_or(0, |r| r.0));

    'main: loop {
        // Time checks every few units: ramp end, runtime cap, stop flag, interval ticks.
        ops_since_check += 1;
        if ops_since_check >= 16 || in_flight == 0 {
            ops_since_check = 0;
            let t = now();
            if ramping && t >= cfg.ramp.unwrap_or_default() {
                // fio reset_all_stats(): counters, histograms, runtime and the epoch restart.
                ramping = false;
                measure_start = t;
                rec = Recorder::new(cfg.interval);
                if let Some(l) = live {
                    if let Ok(mut g) = l.lock() {
                        *g = Some(rec.live());
                    }
                }
                cpu0 = iolab_stats::CpuUsage::sample(iolab_stats::Who::Thread);
                meas.epoch = t.0;
                lat_logs = cfg.lat_log.as_ref().map(LatLogs::new);
                deadline = run_deadline(t.0);
            }
            if !ramping {
                rec.tick_interval(t.saturating_sub(measure_start));
                rec.offer_snapshot(t.saturating_sub(measure_start));
                if let Some(rt) = cfg.runtime {
                    if t.saturating_sub(measure_start) >= rt {
                        stream_done = true;
                    }
                }
            }
            if stop.load(Ordering::Relaxed) {
                stream_done = true;
            }
        }

        // Fill the queue.
        let mut queued_now = 0u32;
        while !stream_done && error.is_none() && !free.is_empty() {
            // A sync unit is due: wait for the writes it must cover, then issue it alone.
            let (kind, r) = if let Some((k, file)) = need_sync {
                if in_flight > 0 || !uncommitted.is_empty() {
                    break;
                }
                need_sync = None;
                (k, IoRequest { dir: IoDir::Sync, file, offset: 0, len: 0, issue_at: None })
            } else {
                let r = match pending_req.take() {
                    Some(r) => r,
                    None => {
                        if !src.next_into(&mut req) {
                            stream_done = true;
                            break;
                        }
                        req
                    }
                };
                (op_kind(r.dir), r)
            };
            // Sync engines: the previous completion's clock read starts this unit (it is
            // created right after), so one clock read per I/O instead of two. The null engine
            // (`coarse`) goes further: every unit of a fill pass starts at the pass's last
            // clock read (reap or commit), so a QD32 batch costs about three reads.
            let intended = r.issue_at.map(|a| a.0);
            let mut t_start = match reuse_t.take() {
                Some(t) => t,
                None if untimed && intended.is_none() => 0,
                None => now().0,
            };
            if coarse {
                reuse_t = Some(t_start);
            }
            if let Some(at) = intended {
                if at > t_start {
                    // Paced: wait for the intended time without draining the queue.
                    if in_flight > 0 && at - t_start > 50_000 {
                        pending_req = Some(r);
                        break;
                    }
                    if !wait_until(&t0, at, deadline, stop) {
                        // runtime ran out or Ctrl-C during the wait: the unit is not issued.
                        stream_done = true;
                        break;
                    }
                    t_start = now().0;
                }
            }
            let Some(slot) = free.pop() else { break };
            slots[slot as usize] = Slot {
                dir: r.dir,
                file: r.file,
                offset: r.offset,
                len: r.len,
                start: t_start,
                intended,
                issue: t_start,
            };
            if kind == OpKind::Write {
                fill.fill(engine.buf(slot, r.len as usize), r.file, r.offset);
                if !written_files.contains(&r.file) {
                    written_files.push(r.file);
                }
                writes_since_sync += 1;
                if cfg.fsync_every > 0 && writes_since_sync % cfg.fsync_every == 0 {
                    need_sync = Some((OpKind::Fsync, r.file));
                } else if cfg.fdatasync_every > 0 && writes_since_sync % cfg.fdatasync_every == 0 {
                    need_sync = Some((OpKind::Fdatasync, r.file));
                }
            }
            let op = IoOp { slot, kind, file: r.file, offset: r.offset, len: r.len };
            match engine.queue(op)? {
                Queued::Completed(res) => {
                    let t_done = if untimed { 0 } else { now().0 };
                    if caps.sync {
                        reuse_t = Some(t_done);
                    }
                    if t_done >= deadline {
                        stream_done = true;
                    }
                    count_file(&mut per_file, r.file, res, ramping);
                    rec.record_submit(r.dir, 1);
                    let s = slots[slot as usize];
                    complete(
                        &mut rec,
                        engine,
                        &mut check,
                        &s,
                        slot,
                        res,
                        None,
                        t_done,
                        &mut error,
                        &mut verify_failures,
                        cfg.stop_on_error,
                        meas,
                        &mut lat_logs,
                    );
                    free.push(slot);
                }
                Queued::Queued => {
                    in_flight += 1;
                    rec.record_submit(r.dir, in_flight);
                    uncommitted.push(slot);
                    queued_now += 1;
                    if queued_now >= batch {
                        let t =
                            commit(engine, &mut rec, &mut uncommitted, &mut slots, &now, untimed)?;
                        if coarse {
                            reuse_t = Some(t);
                        }
                        queued_now = 0;
                    }
                }
                Queued::Busy => {
                    free.push(slot);
                    pending_req = Some(r);
                    break;
                }
            }
            if in_flight == 0 && free.len() as u32 == depth {
                // Sync engine: give the time checks a chance every unit batch.
                ops_since_check += 1;
                if ops_since_check >= 16 {
                    continue 'main;
                }
            }
        }
        // The read taken right after this commit: the last event before the reap.
        let mut fresh_t = None;
        // fio commits before every getevents, so with the queue full it submits one unit per
        // completion even when `iodepth_batch` allows more. When the job allows batching and
        // completions are already waiting in the ring (the reap below needs no syscall), the
        // commit waits for up to `hold` units instead: the same units in the same order,
        // fewer kernel entries and device notifications. `hold` stays small because each
        // held unit delays the batch's first (4: 0.71x fio's CPU per I/O at 1.03x its IOPS
        // on a virtio disk; 8 lost 4 % of the IOPS).
        let lazy = (uncommitted.len() as u32) < hold
            && free.is_empty()
            && !stream_done
            && error.is_none()
            && engine.ready() > 0;
        if !uncommitted.is_empty() && !lazy {
            fresh_t = Some(commit(engine, &mut rec, &mut uncommitted, &mut slots, &now, untimed)?);
        }
        if in_flight == 0 {
            if stream_done || error.is_some() {
                break;
            }
            continue;
        }
        // Reap.
        let full = free.is_empty() || pending_req.is_some() || stream_done || error.is_some();
        let want = if full {
            (cfg.complete_min.max(1)).min(in_flight).max(in_flight.saturating_sub(low).min(1))
        } else {
            cfg.complete_min.min(in_flight)
        };
        // Completions already in the ring come back without a syscall: the commit's clock
        // read a few hundred nanoseconds ago stands for their completion time.
        let shared_t = fresh_t.filter(|_| !untimed && engine.ready() >= want.max(1));
        comps.clear();
        engine.reap(want, &mut comps)?;
        if comps.is_empty() {
            continue;
        }
        let t_done = match shared_t {
            _ if untimed => 0,
            Some(t) => t,
            None => now().0,
        };
        if !untimed {
            reuse_t = Some(t_done);
        }
        if t_done >= deadline {
            stream_done = true;
        }
        rec.record_complete_batch(comps.len() as u32);
        for c in comps.drain(..) {
            let s = slots[c.slot as usize];
            in_flight -= 1;
            count_file(&mut per_file, s.file, c.res, ramping);
            complete(
                &mut rec,
                engine,
                &mut check,
                &s,
                c.slot,
                c.res,
                Some(s.issue),
                t_done,
                &mut error,
                &mut verify_failures,
                cfg.stop_on_error,
                meas,
                &mut lat_logs,
            );
            free.push(c.slot);
        }
        if error.is_some() {
            stream_done = true;
        }
    }

    if cfg.end_fsync && error.is_none() {
        for &f in &written_files {
            let t = now().0;
            let slot = 0;
            let op = IoOp { slot, kind: OpKind::Fsync, file: f, offset: 0, len: 0 };
            let res = match engine.queue(op)? {
                Queued::Completed(r) => r,
                _ => {
                    engine.commit()?;
                    comps.clear();
                    engine.reap(1, &mut comps)?;
                    comps.first().map(|c| c.res).unwrap_or(0)
                }
            };
            let s = Slot { dir: IoDir::Sync, file: f, start: t, issue: t, ..Slot::default() };
            complete(
                &mut rec,
                engine,
                &mut check,
                &s,
                slot,
                res,
                None,
                now().0,
                &mut error,
                &mut verify_failures,
                false,
                meas,
                &mut lat_logs,
            );
        }
    }
    let end = now();
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
    Ok(WorkerOutcome {
        rec,
        runtime,
        measure_start,
        cpu,
        error,
        verify_failures,
        per_file,
        verify: None,
        lat_logs,
        notes,
    })
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

fn commit(
    engine: &mut dyn IoEngine,
    rec: &mut Recorder,
    uncommitted: &mut Vec<u32>,
    slots: &mut [Slot],
    now: &dyn Fn() -> Nanos,
    untimed: bool,
) -> Result<u64, EngineError> {
    let n = engine.commit()?;
    let t = if untimed { 0 } else { now().0 };
    for &s in uncommitted.iter() {
        slots[s as usize].issue = t;
    }
    rec.record_submit_batch(n as u32);
    uncommitted.clear();
    Ok(t)
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn complete(
    rec: &mut Recorder,
    engine: &mut dyn IoEngine,
    check: &mut Option<&mut dyn ReadCheck>,
    s: &Slot,
    slot: u32,
    res: i64,
    issue: Option<u64>,
    t_done: u64,
    error: &mut Option<String>,
    verify_failures: &mut u64,
    stop_on_error: bool,
    m: Measure,
    logs: &mut Option<LatLogs>,
) {
    if res < 0 {
        let errno = (-res) as i32;
        rec.record_error(s.dir, errno);
        if stop_on_error && error.is_none() {
            *error = Some(format!(
                "{} of {} bytes at offset {} (file {}) failed: {}",
                s.dir,
                s.len,
                s.offset,
                s.file,
                std::io::Error::from_raw_os_error(errno)
            ));
        }
        return;
    }
    let bytes = res as u64;
    if s.dir != IoDir::Sync && bytes < s.len {
        rec.record_short(s.dir);
    }
    let (slat, clat) = match issue {
        Some(i) => (Some(Nanos(i.saturating_sub(s.start))), Nanos(t_done.saturating_sub(i))),
        None => (None, Nanos(t_done.saturating_sub(s.start))),
    };
    let lat_from = s.intended.map_or(s.start, |i| i.min(s.start));
    let lat = Nanos(t_done.saturating_sub(lat_from));
    if m.slat && m.clat && m.lat {
        rec.record_complete(s.dir, bytes, slat, clat, lat);
    } else {
        let slat = slat.filter(|_| m.slat);
        rec.record_complete_parts(s.dir, bytes, slat, m.clat.then_some(clat), m.lat.then_some(lat));
    }
    if let Some(l) = logs.as_mut() {
        // fio account_io_completion: lat for every ddir, clat/bw/iops for data ddirs only.
        let t = Nanos(t_done.saturating_sub(m.epoch));
        let data = s.dir != IoDir::Sync;
        if l.lat_on {
            if m.clat && data {
                l.clat.add(t, s.dir, clat.0, bytes, s.offset);
            }
            if let (true, Some(sl)) = (m.slat, slat) {
                l.slat.add(t, s.dir, sl.0, bytes, s.offset);
            }
            if m.lat {
                l.lat.add(t, s.dir, lat.0, bytes, s.offset);
            }
        }
        if let (Some(b), true, true) = (l.bw.as_mut(), data, m.clat) {
            let rate = (bytes as u128 * 1_000_000).checked_div(clat.0 as u128).unwrap_or(0);
            b.add(t, s.dir, rate as u64, bytes, s.offset);
        }
        if let (Some(i), true) = (l.iops.as_mut(), data) {
            i.add(t, s.dir, 1, bytes, s.offset);
        }
        if let (Some(h), true, true) = (l.hist.as_mut(), data, m.clat) {
            h.add(t.0 / 1_000_000, s.dir as usize, bytes, clat.0);
        }
    }
    if s.dir == IoDir::Read {
        if let Some(c) = check.as_mut() {
            let buf = engine.buf(slot, bytes as usize);
            if let Err(msg) = c.check(buf, s.file, s.offset) {
                *verify_failures += 1;
                if error.is_none() {
                    *error = Some(format!("verify failed: {msg}"));
                }
            }
        }
    }
}

/// Longest single sleep of a wait: how soon Ctrl-C (`stop`) is noticed.
const WAIT_SLICE_NS: u64 = 20_000_000;

/// Sleep (then spin the last 20 µs) until `at` ns after `t0`. Returns `false` instead when
/// `deadline` (the end of `runtime`) comes first or `stop` is set: then it returns at the
/// deadline, not at `at`, so a think time or rate gap longer than the runtime never
/// outlasts it.
fn wait_until(t0: &crate::clock::Clock, at: u64, deadline: u64, stop: &AtomicBool) -> bool {
    loop {
        let t = t0.elapsed_ns();
        // Nothing is issued at or after the end of the runtime, even when it was due then.
        if t >= deadline || stop.load(Ordering::Relaxed) {
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
