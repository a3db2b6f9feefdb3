//! The per-worker [`Recorder`]: what an engine worker (or the simulator) calls for every I/O.
//!
//! Modelled on fio's per-thread `thread_stat` (stat.h) and the accounting in io_u.c
//! (`io_u_mark_depth`, `io_u_mark_submit`, `io_u_mark_complete`, `account_io_completion`)
//! and stat.c (`add_clat_sample`, `add_lat_sample`, `add_slat_sample`, `add_bw_samples`),
//! with HdrHistogram's "one recorder per thread, merge exactly" pattern.
//!
//! The hot path (`record_submit`, `record_complete`) touches only memory the worker owns:
//! no locks, no allocation (a direction's histograms are allocated on its first I/O), and the
//! live counters a progress thread reads are single-writer relaxed stores (with one bucket of
//! the live latency histogram, [`crate::livehist`], per completion).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use iolab_core::{IoDir, Nanos};

use crate::hist::LatHist;
use crate::livehist::LiveHist;

/// Directions in fio's ddir order: read, write, trim, sync.
pub const DIRS: [IoDir; 4] = [IoDir::Read, IoDir::Write, IoDir::Trim, IoDir::Sync];

/// Exact in-flight depths are counted up to this value; deeper submissions land in the last
/// slot.
pub const MAX_EXACT_DEPTH: usize = 4096;

/// fio's `bwavgtime`/`iopsavgtime` default: 500 ms.
pub const DEFAULT_INTERVAL: Nanos = Nanos(500 * Nanos::PER_MS);

#[inline]
fn di(dir: IoDir) -> usize {
    dir.fio_ddir() as usize
}

/// fio's `io_u_mark_depth` buckets (labels 1,2,4,8,16,32,>=64) for the depth at submission.
#[inline]
pub fn depth_bucket(depth: u32) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's `__io_u_mark_map` buckets (labels 0,4,8,16,32,64,>=64) for submit/complete batches.
#[inline]
pub fn batch_bucket(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Counters a progress thread reads while the worker runs: cumulative since the job started,
/// indexed by fio ddir (read, write, trim, sync). Written only by the owning worker.
#[derive(Debug, Default)]
pub struct LiveCounters {
    pub ios: [AtomicU64; 4],
    pub bytes: [AtomicU64; 4],
    /// Sum of completion latencies, ns (divide deltas by `ios` deltas for the interval mean).
    pub clat_sum_ns: [AtomicU64; 4],
    /// Completion latencies per direction, for the live line's p50/p99 of its last interval.
    pub clat_hist: [LiveHist; 4],
    pub errors: AtomicU64,
    /// Set by a reader that wants a full copy of the recorder (fio's `--status-interval`
    /// reports, stat.c `__show_running_run_stats`); the worker answers at its next time check.
    pub snap_req: AtomicBool,
    /// The worker's answer: the recorder as it was and the measured runtime then.
    pub snap: Mutex<Option<(Recorder, Nanos)>>,
}

/// A copy of [`LiveCounters`] at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveSnapshot {
    pub ios: [u64; 4],
    pub bytes: [u64; 4],
    pub clat_sum_ns: [u64; 4],
    pub errors: u64,
}

impl LiveCounters {
    pub fn snapshot(&self) -> LiveSnapshot {
        let mut s = LiveSnapshot { errors: self.errors.load(Relaxed), ..Default::default() };
        for i in 0..4 {
            s.ios[i] = self.ios[i].load(Relaxed);
            s.bytes[i] = self.bytes[i].load(Relaxed);
            s.clat_sum_ns[i] = self.clat_sum_ns[i].load(Relaxed);
        }
        s
    }
}

/// One closed interval of the series (all directions), raw counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawInterval {
    /// End of the interval, ns since the job's start.
    pub end_ns: u64,
    /// Length of the interval, ns.
    pub dur_ns: u64,
    pub bytes: [u64; 4],
    pub ios: [u64; 4],
    pub clat_sum_ns: [u64; 4],
}

/// Everything recorded for one direction.
#[derive(Clone, Debug, Default)]
pub struct DirRecorder {
    pub slat: Option<Box<LatHist>>,
    pub clat: Option<Box<LatHist>>,
    /// `lat` samples, kept only once they differ from `clat`: while every I/O had
    /// lat == clat (no slat, no pacing: sync engines) the clat histogram stands for both and
    /// this stays `None`, saving one histogram record per I/O. Read it with
    /// [`DirRecorder::lat_hist`].
    pub lat: Option<Box<LatHist>>,
    /// A paced I/O's latency from its intended issue time (see `DirStats::sched_lat`).
    pub sched: Option<Box<LatHist>>,
    /// Completed I/Os (fio `total_io_u`).
    pub ios: u64,
    /// Completed bytes (fio `io_bytes`).
    pub bytes: u64,
    /// Submitted I/Os (fio `issued rwts` "total").
    pub issued: u64,
    /// Short transfers (fio `short_io_u`).
    pub short: u64,
    /// I/Os dropped without being issued (fio `drop_io_u`).
    pub dropped: u64,
    /// I/Os that completed with an error.
    pub failed: u64,
    /// Of the sync units, the `fdatasync` ones (fio's DDIR_DATASYNC, which its JSON's sync
    /// `total_ios` leaves out while their latencies count).
    pub datasync: u64,
    clat_sum: u64,
    /// `lat` is recorded on its own (false: it mirrors `clat`).
    lat_own: bool,
}

#[inline]
fn rec(slot: &mut Option<Box<LatHist>>, ns: u64) {
    slot.get_or_insert_with(|| Box::new(LatHist::new())).record(ns);
}

fn rec_n(slot: &mut Option<Box<LatHist>>, ns: u64, n: u64) {
    slot.get_or_insert_with(|| Box::new(LatHist::new())).record_n(ns, n);
}

/// One completion's latencies: submission (`None` where not measured), completion, total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatTriple {
    pub slat: Option<Nanos>,
    pub clat: Nanos,
    pub lat: Nanos,
}

fn merge_opt(a: &mut Option<Box<LatHist>>, b: &Option<Box<LatHist>>) {
    if let Some(b) = b {
        match a {
            Some(a) => a.merge(b),
            None => *a = Some(b.clone()),
        }
    }
}

impl DirRecorder {
    /// The total-latency histogram (the clat one while they never differed).
    pub fn lat_hist(&self) -> Option<&LatHist> {
        if self.lat_own {
            self.lat.as_deref()
        } else {
            self.clat.as_deref()
        }
    }

    /// Stop mirroring: from now on `lat` is recorded on its own, starting from a copy of
    /// `clat` (equal so far by construction). The test is inlined into the per-I/O record
    /// calls and the copy kept out of line, so an I/O whose `lat` is already its own makes
    /// no call.
    #[inline(always)]
    fn own_lat(&mut self) {
        if !self.lat_own {
            self.start_own_lat();
        }
    }

    #[cold]
    #[inline(never)]
    fn start_own_lat(&mut self) {
        self.lat = self.clat.clone();
        self.lat_own = true;
    }

    fn merge(&mut self, o: &DirRecorder) {
        merge_opt(&mut self.slat, &o.slat);
        if self.lat_own || o.lat_own {
            self.own_lat();
            let theirs = if o.lat_own { &o.lat } else { &o.clat };
            merge_opt(&mut self.lat, theirs);
        }
        merge_opt(&mut self.clat, &o.clat);
        merge_opt(&mut self.sched, &o.sched);
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.issued += o.issued;
        self.short += o.short;
        self.dropped += o.dropped;
        self.failed += o.failed;
        self.datasync += o.datasync;
        self.clat_sum += o.clat_sum;
    }
}

/// Per-worker statistics recorder. Create one per worker thread, record into it without
/// synchronisation, then [`merge`](Recorder::merge) them and [`summarize`](crate::summarize)
/// into a [`JobResult`](crate::JobResult).
///
/// ```
/// use iolab_core::{IoDir, Nanos};
/// use iolab_stats::Recorder;
/// let mut r = Recorder::new(Nanos::from_millis(500));
/// r.record_submit(IoDir::Read, 1);
/// r.record_complete(IoDir::Read, 4096, None, Nanos(80_000), Nanos(80_000));
/// r.tick_interval(Nanos::from_millis(500));
/// assert_eq!(r.dir(IoDir::Read).bytes, 4096);
/// assert_eq!(r.intervals().len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Recorder {
    dirs: [DirRecorder; 4],
    /// fio `io_u_map`: depth at submission, buckets 1,2,4,8,16,32,>=64.
    pub depth_map: [u64; 7],
    /// Exact depth at submission: `depth_exact[d]` = submissions that found `d` I/Os in flight
    /// (counting themselves); the last slot collects deeper ones.
    pub depth_exact: Vec<u64>,
    /// fio `io_u_submit`: I/Os per submit call, buckets 0,4,8,16,32,64,>=64.
    pub submit_map: [u64; 7],
    /// fio `io_u_complete`: I/Os per reap call.
    pub complete_map: [u64; 7],
    /// Failed I/Os by errno (index = errno, clamped to 255).
    pub errno_counts: Vec<u64>,
    /// The first error seen (fio reports it as the job's `error`).
    pub first_error: Option<(IoDir, i32)>,
    interval: Nanos,
    next_tick: Nanos,
    last_tick: Nanos,
    last: RawInterval,
    intervals: Vec<RawInterval>,
    live: Arc<LiveCounters>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new(DEFAULT_INTERVAL)
    }
}

impl Recorder {
    /// A recorder whose interval series has samples every `interval` (fio's `bwavgtime`;
    /// clamped to at least 1 ms).
    pub fn new(interval: Nanos) -> Self {
        let interval = Nanos(interval.0.max(Nanos::PER_MS));
        Recorder {
            dirs: Default::default(),
            depth_map: [0; 7],
            depth_exact: vec![0; MAX_EXACT_DEPTH + 1],
            submit_map: [0; 7],
            complete_map: [0; 7],
            errno_counts: vec![0; 256],
            first_error: None,
            interval,
            next_tick: interval,
            last_tick: Nanos::ZERO,
            last: RawInterval::default(),
            // Room for an hour of 500 ms samples before the series ever reallocates.
            intervals: Vec::with_capacity(7200),
            live: Arc::new(LiveCounters::default()),
        }
    }

    /// The interval length of the series.
    pub fn interval(&self) -> Nanos {
        self.interval
    }

    /// A handle the progress thread keeps to read cumulative counters while the worker runs.
    pub fn live(&self) -> Arc<LiveCounters> {
        Arc::clone(&self.live)
    }

    /// Called by the worker at its time checks: when a reader asked (`snap_req`), leave a copy
    /// of this recorder and the runtime measured so far in `snap`. One relaxed load otherwise.
    pub fn offer_snapshot(&self, runtime: Nanos) {
        if !self.live.snap_req.load(Relaxed) || !self.live.snap_req.swap(false, Relaxed) {
            return;
        }
        if let Ok(mut g) = self.live.snap.lock() {
            *g = Some((self.clone(), runtime));
        }
    }

    /// What was recorded for one direction.
    /// A paced I/O's latency from its intended issue time (iolab's own figure beside fio's
    /// `lat`, which counts from the submission).
    #[inline]
    pub fn record_sched_lat(&mut self, dir: IoDir, ns: Nanos) {
        rec(&mut self.dirs[di(dir)].sched, ns.0);
    }

    /// One `fdatasync` unit issued (counted among the sync units as well).
    #[inline]
    pub fn record_datasync(&mut self) {
        self.dirs[di(IoDir::Sync)].datasync += 1;
    }

    pub fn dir(&self, dir: IoDir) -> &DirRecorder {
        &self.dirs[di(dir)]
    }

    /// One I/O submitted; `depth` is the number in flight including this one (fio's
    /// `cur_depth` when it calls `io_u_mark_depth`).
    #[inline]
    pub fn record_submit(&mut self, dir: IoDir, depth: u32) {
        self.dirs[di(dir)].issued += 1;
        self.depth_map[depth_bucket(depth)] += 1;
        self.depth_exact[(depth as usize).min(MAX_EXACT_DEPTH)] += 1;
    }

    /// One submit call that handed `n` I/Os to the kernel (io_uring_enter, io_submit).
    #[inline]
    pub fn record_submit_batch(&mut self, n: u32) {
        self.submit_map[batch_bucket(n)] += 1;
    }

    /// One reap call that returned `n` completions.
    #[inline]
    pub fn record_complete_batch(&mut self, n: u32) {
        self.complete_map[batch_bucket(n)] += 1;
    }

    /// One I/O completed successfully with `bytes` transferred. `slat` is `None` where the
    /// engine does not measure submission latency (sync engines, as fio: `slat N=0`).
    #[inline]
    pub fn record_complete(
        &mut self,
        dir: IoDir,
        bytes: u64,
        slat: Option<Nanos>,
        clat: Nanos,
        lat: Nanos,
    ) {
        let i = di(dir);
        let d = &mut self.dirs[i];
        if let Some(s) = slat {
            rec(&mut d.slat, s.0);
        }
        // Copy before this I/O's clat lands: the copy must hold only the mirrored samples.
        if d.lat_own || lat != clat {
            d.own_lat();
            rec(&mut d.lat, lat.0);
        }
        rec(&mut d.clat, clat.0);
        self.count_done(i, bytes, clat.0, 1);
    }

    /// One I/O of a sync engine, submitted at depth 1 and completed with `bytes`, `clat`
    /// after it started: exactly [`Recorder::record_submit`]`(dir, 1)` then
    /// [`Recorder::record_complete`]`(dir, bytes, None, clat, clat)`, inlined into the
    /// worker's sync loop (the call itself was a fifth of the recorder's cost per I/O).
    #[inline(always)]
    pub fn record_sync_io(&mut self, dir: IoDir, bytes: u64, clat: Nanos) {
        let i = di(dir);
        self.depth_map[0] += 1;
        self.depth_exact[1] += 1;
        let d = &mut self.dirs[i];
        d.issued += 1;
        if d.lat_own {
            rec(&mut d.lat, clat.0);
        }
        rec(&mut d.clat, clat.0);
        self.count_done(i, bytes, clat.0, 1);
    }

    /// `n` I/Os completed with the same bytes and latencies: exactly `n` calls of
    /// [`Recorder::record_complete`], in one update of each histogram. An engine that shares
    /// its clock reads across a batch (the null engine at depth > 1) completes whole batches
    /// with identical figures.
    #[inline]
    pub fn record_complete_n(&mut self, dir: IoDir, bytes: u64, n: u64, lat: LatTriple) {
        let LatTriple { slat, clat, lat } = lat;
        let i = di(dir);
        let d = &mut self.dirs[i];
        if let Some(s) = slat {
            rec_n(&mut d.slat, s.0, n);
        }
        if d.lat_own || lat != clat {
            d.own_lat();
            rec_n(&mut d.lat, lat.0, n);
        }
        rec_n(&mut d.clat, clat.0, n);
        self.count_done(i, bytes, clat.0, n);
    }

    /// `n` completions of `bytes` each, `clat` ns apiece, counted in direction `i` and in the
    /// live view (single writer: plain relaxed stores, no read-modify-write). The histograms
    /// are the caller's.
    #[inline(always)]
    fn count_done(&mut self, i: usize, bytes: u64, clat: u64, n: u64) {
        let d = &mut self.dirs[i];
        d.ios += n;
        d.bytes += bytes * n;
        d.clat_sum = d.clat_sum.wrapping_add(clat.wrapping_mul(n));
        self.live.clat_hist[i].add(clat, n);
        self.live.ios[i].store(d.ios, Relaxed);
        self.live.bytes[i].store(d.bytes, Relaxed);
        self.live.clat_sum_ns[i].store(d.clat_sum, Relaxed);
    }

    /// [`Recorder::record_complete`] where any latency may be unmeasured (fio
    /// `disable_slat`/`disable_clat`/`disable_lat`, `gtod_reduce`): the I/O and its bytes
    /// count, the unmeasured latencies stay at N=0.
    #[inline]
    pub fn record_complete_parts(
        &mut self,
        dir: IoDir,
        bytes: u64,
        slat: Option<Nanos>,
        clat: Option<Nanos>,
        lat: Option<Nanos>,
    ) {
        let i = di(dir);
        let d = &mut self.dirs[i];
        if let Some(s) = slat {
            rec(&mut d.slat, s.0);
        }
        if clat.is_none() || lat.is_none() || lat != clat {
            d.own_lat();
        }
        if let Some(c) = clat {
            rec(&mut d.clat, c.0);
            d.clat_sum = d.clat_sum.wrapping_add(c.0);
            self.live.clat_hist[i].add(c.0, 1);
        }
        if let (true, Some(l)) = (d.lat_own, lat) {
            rec(&mut d.lat, l.0);
        }
        d.ios += 1;
        d.bytes += bytes;
        self.live.ios[i].store(d.ios, Relaxed);
        self.live.bytes[i].store(d.bytes, Relaxed);
        self.live.clat_sum_ns[i].store(d.clat_sum, Relaxed);
    }

    /// A completion-latency sample that is no I/O of its own: fio's `add_clat_sample` from
    /// an engine's open hook (the file-operation engines time `open`/`stat`/`unlink` so).
    /// `lat` keeps its own (empty) histogram, as fio's `lat_ns` stays at N=0.
    pub fn record_clat_only(&mut self, dir: IoDir, clat: Nanos) {
        let d = &mut self.dirs[di(dir)];
        d.own_lat();
        rec(&mut d.clat, clat.0);
        d.clat_sum = d.clat_sum.wrapping_add(clat.0);
    }

    /// One I/O completed with an error (`errno` positive, as in `io_u->error`).
    #[inline]
    pub fn record_error(&mut self, dir: IoDir, errno: i32) {
        self.dirs[di(dir)].failed += 1;
        let e = errno.unsigned_abs().min(255) as usize;
        self.errno_counts[e] += 1;
        if self.first_error.is_none() {
            self.first_error = Some((dir, errno.abs()));
        }
        let total = self.live.errors.load(Relaxed) + 1;
        self.live.errors.store(total, Relaxed);
    }

    /// One I/O transferred fewer bytes than asked (counted in addition to its completion).
    #[inline]
    pub fn record_short(&mut self, dir: IoDir) {
        self.dirs[di(dir)].short += 1;
    }

    /// One I/O dropped without being issued (fio `drop_ios`).
    #[inline]
    pub fn record_drop(&mut self, dir: IoDir) {
        self.dirs[di(dir)].dropped += 1;
    }

    /// Give the series a chance to close an interval; `now` is time since the job started
    /// (after ramp). Cheap when no interval ends: one comparison.
    #[inline]
    pub fn tick_interval(&mut self, now: Nanos) {
        if now >= self.next_tick {
            self.close_interval(now);
        }
    }

    #[cold]
    fn close_interval(&mut self, now: Nanos) {
        let mut cur = RawInterval { end_ns: now.0, ..Default::default() };
        for i in 0..4 {
            cur.bytes[i] = self.dirs[i].bytes;
            cur.ios[i] = self.dirs[i].ios;
            cur.clat_sum_ns[i] = self.dirs[i].clat_sum;
        }
        let mut delta = RawInterval { end_ns: now.0, dur_ns: (now.0 - self.last_tick.0), ..cur };
        for i in 0..4 {
            delta.bytes[i] = cur.bytes[i] - self.last.bytes[i];
            delta.ios[i] = cur.ios[i] - self.last.ios[i];
            delta.clat_sum_ns[i] = cur.clat_sum_ns[i].wrapping_sub(self.last.clat_sum_ns[i]);
        }
        self.intervals.push(delta);
        self.last = cur;
        self.last_tick = now;
        // Keep the grid when a tick is a little late; restart it after a long stall.
        let next = self.next_tick + self.interval;
        self.next_tick = if next > now { next } else { now + self.interval };
    }

    /// Close the final, possibly partial, interval at the job's end (if anything happened
    /// since the last tick).
    pub fn finish_intervals(&mut self, now: Nanos) {
        let pending = (0..4).any(|i| self.dirs[i].ios != self.last.ios[i]);
        if now > self.last_tick && pending {
            self.close_interval(now);
        }
    }

    /// Multiply every recorded time by `f`: the latency histograms, the interval series'
    /// times and clat sums (the worker's end-of-job clock cross-check found its clock off).
    pub fn rescale_time(&mut self, f: f64) {
        let sc = |v: u64| (v as f64 * f).round() as u64;
        for d in self.dirs.iter_mut() {
            for h in [&mut d.slat, &mut d.clat, &mut d.lat] {
                if let Some(x) = h.as_mut() {
                    **x = x.scaled(f);
                }
            }
            d.clat_sum = sc(d.clat_sum);
        }
        for iv in self.intervals.iter_mut() {
            iv.end_ns = sc(iv.end_ns);
            iv.dur_ns = sc(iv.dur_ns);
            iv.clat_sum_ns = iv.clat_sum_ns.map(sc);
        }
        self.last.clat_sum_ns = self.last.clat_sum_ns.map(sc);
        self.next_tick = Nanos(sc(self.next_tick.0));
        self.last_tick = Nanos(sc(self.last_tick.0));
    }

    /// The closed intervals so far (per-interval deltas, not cumulative).
    pub fn intervals(&self) -> &[RawInterval] {
        &self.intervals
    }

    /// Add another worker's recording into this one. Histograms, counters and depth maps add
    /// exactly; interval series add element by element (both are on the same grid when the
    /// workers share a start time and `interval`).
    pub fn merge(&mut self, other: &Recorder) {
        for i in 0..4 {
            self.dirs[i].merge(&other.dirs[i]);
        }
        for i in 0..7 {
            self.depth_map[i] += other.depth_map[i];
            self.submit_map[i] += other.submit_map[i];
            self.complete_map[i] += other.complete_map[i];
        }
        for (a, b) in self.depth_exact.iter_mut().zip(&other.depth_exact) {
            *a += b;
        }
        for (a, b) in self.errno_counts.iter_mut().zip(&other.errno_counts) {
            *a += b;
        }
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        for (k, b) in other.intervals.iter().enumerate() {
            match self.intervals.get_mut(k) {
                Some(a) => {
                    a.end_ns = a.end_ns.max(b.end_ns);
                    a.dur_ns = a.dur_ns.max(b.dur_ns);
                    for i in 0..4 {
                        a.bytes[i] += b.bytes[i];
                        a.ios[i] += b.ios[i];
                        a.clat_sum_ns[i] = a.clat_sum_ns[i].wrapping_add(b.clat_sum_ns[i]);
                    }
                }
                None => self.intervals.push(*b),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lat_mirrors_clat_until_they_differ_and_merges_exactly() {
        let ns = Nanos;
        let mut a = Recorder::new(Nanos::from_millis(500));
        for v in [1_000, 2_000, 3_000] {
            a.record_complete(IoDir::Read, 4096, None, ns(v), ns(v));
        }
        assert!(a.dir(IoDir::Read).lat.is_none(), "mirrored: no second histogram");
        assert_eq!(a.dir(IoDir::Read).lat_hist().map(|h| h.count()), Some(3));
        // A paced I/O: lat 9 µs, clat 4 µs. lat now holds the three mirrored samples and it.
        a.record_complete(IoDir::Read, 4096, None, ns(4_000), ns(9_000));
        let d = a.dir(IoDir::Read);
        let l = d.lat_hist().unwrap().to_stats(&[]);
        let c = d.clat.as_ref().unwrap().to_stats(&[]);
        assert_eq!((l.n, l.max, l.sum), (4, 9_000, 15_000));
        assert_eq!((c.n, c.max, c.sum), (4, 4_000, 10_000));
        // Merging a mirrored recorder into an owning one keeps both exact.
        let mut b = Recorder::new(Nanos::from_millis(500));
        b.record_complete(IoDir::Read, 4096, None, ns(5_000), ns(5_000));
        b.merge(&a);
        let l = b.dir(IoDir::Read).lat_hist().unwrap().to_stats(&[]);
        assert_eq!((l.n, l.sum), (5, 20_000));
        let mut m = Recorder::new(Nanos::from_millis(500));
        m.merge(&b);
        assert_eq!(m.dir(IoDir::Read).lat_hist().unwrap().count(), 5);
    }

    #[test]
    fn a_run_of_equal_completions_is_the_same_as_one_call_each() {
        let ns = Nanos;
        let t = LatTriple { slat: Some(ns(700)), clat: ns(2_000), lat: ns(2_700) };
        let mut one = Recorder::new(Nanos::from_millis(500));
        let mut run = Recorder::new(Nanos::from_millis(500));
        for r in [&mut one, &mut run] {
            r.record_complete(IoDir::Read, 4096, None, ns(900), ns(900));
        }
        for _ in 0..32 {
            one.record_complete(IoDir::Read, 4096, t.slat, t.clat, t.lat);
        }
        run.record_complete_n(IoDir::Read, 4096, 32, t);
        let (a, b) = (one.dir(IoDir::Read), run.dir(IoDir::Read));
        assert_eq!((b.ios, b.bytes, b.clat_sum), (33, 33 * 4096, 900 + 32 * 2_000));
        assert_eq!((a.ios, a.bytes, a.clat_sum), (b.ios, b.bytes, b.clat_sum));
        for (x, y) in [(&a.slat, &b.slat), (&a.clat, &b.clat)] {
            let (x, y) =
                (x.as_ref().unwrap().to_stats(&[50.0]), y.as_ref().unwrap().to_stats(&[50.0]));
            assert_eq!((x.n, x.min, x.max, x.sum), (y.n, y.min, y.max, y.sum));
        }
        let (x, y) =
            (a.lat_hist().unwrap().to_stats(&[99.0]), b.lat_hist().unwrap().to_stats(&[99.0]));
        assert_eq!((x.n, x.min, x.max, x.sum), (33, 900, 2_700, 900 + 32 * 2_700));
        assert_eq!((x.n, x.min, x.max, x.sum), (y.n, y.min, y.max, y.sum));
    }

    /// The sync loop's one call per I/O against the two it stands for, through a switch to
    /// an own `lat` histogram (a paced I/O) and on both sides of it.
    #[test]
    fn a_sync_io_is_a_submit_at_depth_one_and_a_completion() {
        let ns = Nanos;
        let mut two = Recorder::new(Nanos::from_millis(500));
        let mut one = Recorder::new(Nanos::from_millis(500));
        for (k, v) in [700u64, 1_300, 0, 90_000, 2_500].into_iter().enumerate() {
            let dir = if k % 2 == 0 { IoDir::Read } else { IoDir::Write };
            two.record_submit(dir, 1);
            two.record_complete(dir, 4096 + k as u64, None, ns(v), ns(v));
            one.record_sync_io(dir, 4096 + k as u64, ns(v));
            if k == 2 {
                for r in [&mut two, &mut one] {
                    r.record_complete(IoDir::Read, 512, None, ns(4_000), ns(9_000));
                }
            }
        }
        assert_eq!((one.depth_map, &one.depth_exact[..3]), (two.depth_map, &two.depth_exact[..3]));
        assert_eq!(one.depth_map[0], 5);
        for dir in [IoDir::Read, IoDir::Write] {
            let (a, b) = (two.dir(dir), one.dir(dir));
            assert_eq!(
                (a.issued, a.ios, a.bytes, a.clat_sum),
                (b.issued, b.ios, b.bytes, b.clat_sum)
            );
            let p = [1.0, 50.0, 99.0];
            let h = |d: &DirRecorder| {
                let (c, l) = (d.clat.as_ref().unwrap(), d.lat_hist().unwrap());
                (c.to_stats(&p), l.to_stats(&p))
            };
            let ((ca, la), (cb, lb)) = (h(a), h(b));
            assert_eq!((ca.n, ca.min, ca.max, ca.sum), (cb.n, cb.min, cb.max, cb.sum));
            assert_eq!((la.n, la.min, la.max, la.sum), (lb.n, lb.min, lb.max, lb.sum));
            assert_eq!((&ca.buckets, &la.buckets), (&cb.buckets, &lb.buckets));
            assert_eq!(a.lat.is_some(), b.lat.is_some());
        }
        assert_eq!(one.dir(IoDir::Read).lat_hist().unwrap().to_stats(&[]).n, 4);
        assert_eq!(one.live().snapshot(), two.live().snapshot());
    }

    #[test]
    fn fio_depth_and_batch_buckets() {
        let b: Vec<usize> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000]
            .iter()
            .map(|&d| depth_bucket(d))
            .collect();
        assert_eq!(b, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
        let s: Vec<usize> =
            [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65].iter().map(|&n| batch_bucket(n)).collect();
        assert_eq!(s, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }

    #[test]
    fn intervals_are_deltas_and_live_counters_track() {
        let mut r = Recorder::new(Nanos::from_millis(500));
        let live = r.live();
        for k in 0..10u64 {
            r.record_complete(IoDir::Write, 4096, Some(Nanos(100)), Nanos(1000 + k), Nanos(1100));
            r.tick_interval(Nanos::from_millis(100 * (k + 1)));
        }
        assert_eq!(r.intervals().len(), 2);
        let iv = r.intervals();
        assert_eq!(iv[0].ios[1], 5);
        assert_eq!(iv[1].ios[1], 5);
        assert_eq!(iv[1].bytes[1], 5 * 4096);
        assert_eq!(iv[0].clat_sum_ns[1], 1000 * 5 + 10);
        assert_eq!(iv[1].dur_ns, 500 * Nanos::PER_MS);
        let s = live.snapshot();
        assert_eq!(s.ios[1], 10);
        assert_eq!(s.bytes[1], 40960);
    }

    #[test]
    fn errors_and_depth() {
        let mut r = Recorder::default();
        r.record_submit(IoDir::Read, 1);
        r.record_submit(IoDir::Read, 33);
        r.record_submit(IoDir::Read, 10_000);
        r.record_error(IoDir::Read, 5);
        r.record_error(IoDir::Read, 28);
        assert_eq!(r.first_error, Some((IoDir::Read, 5)));
        assert_eq!(r.errno_counts[5], 1);
        assert_eq!(r.dir(IoDir::Read).failed, 2);
        assert_eq!(r.depth_map, [1, 0, 0, 0, 0, 1, 1]);
        assert_eq!(r.depth_exact[33], 1);
        assert_eq!(r.depth_exact[MAX_EXACT_DEPTH], 1);
        assert_eq!(r.live().snapshot().errors, 2);
    }
}
