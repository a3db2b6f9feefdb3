//! Discrete-event simulation of workers driving a [`Hierarchy`] and its device models.
//!
//! Time is integer nanoseconds; events live in one binary heap ordered by (time, sequence), so
//! equal-time events run in the order they were scheduled and a run is deterministic. Each
//! worker keeps up to `iodepth` requests in flight (closed loop, as fio does with a queue
//! depth); a request that carries `issue_at` (fio `rate`/`rate_iops`, or a trace's timestamps)
//! is not issued before it (open loop). A request's [`crate::block::Plan`] runs stage by stage;
//! each device serves up to `servers()` commands at once and picks the next among its first
//! `reorder_depth()` queued commands by shortest positioning time (NCQ). Every submission and
//! completion goes into a per-worker [`iolab_stats::Recorder`], the type `iolab run`'s workers
//! fill, so [`SimReport::results`] are `JobResult`s summarised exactly as a measured run's
//! (HdrHistogram percentiles, depth distributions, bandwidth/IOPS interval samples). A
//! simulated request has no submission latency (`slat` N=0, `lat` equals `clat`) unless its
//! device models one ([`crate::device::Device::submit_block`], a calibrated profile's
//! `submit_share`): a request whose first command starts when it is issued spends that part
//! of its latency in the submit call (slat), the rest is its completion latency (clat).

pub mod flags;
pub mod jobs;
pub mod object;
pub mod report;
pub mod setup;
pub mod source;

use crate::block::DevReq;
use crate::device::{DevOp, Device};
use crate::tier::Hierarchy;
use iolab_core::{IoDir, IoRequest, Nanos};
pub use report::{DevReport, Sample, SimReport, TierReport};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Something that yields requests into a caller-owned [`IoRequest`] (no allocation per
/// request): the one trait in `core`, shared with the engine's worker loop.
pub use iolab_core::RequestSource;

/// Adapts any iterator of requests.
pub struct IterSource<I>(pub I);

impl<I: Iterator<Item = IoRequest>> RequestSource for IterSource<I> {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        match self.0.next() {
            Some(r) => {
                *req = r;
                true
            }
            None => false,
        }
    }
}

pub struct WorkerSpec {
    pub name: String,
    pub source: Box<dyn RequestSource>,
    pub iodepth: usize,
    /// Earlier workers (indices into the list given to [`run`]) that must finish before this
    /// one starts: fio's `stonewall` (every earlier job) and `wait_for=NAME` (that job's
    /// clones). Indices at or after this worker's own are ignored.
    pub after: Vec<usize>,
    /// Stop issuing this long after the worker starts (fio `runtime` with `time_based` or a
    /// cap on a sized job), not counting `ramp`.
    pub runtime: Option<Nanos>,
    /// fio `ramp_time`: run this long first, then reset every statistic (fio
    /// `reset_all_stats`) and measure from there.
    pub ramp: Option<Nanos>,
    /// fio `fsync=N` / `fdatasync=N`: a sync after every N writes (0: never). The sync
    /// flushes every volatile write-back tier down the hierarchy and the worker waits for it.
    pub sync_every: u64,
    /// fio `end_fsync=1`: one sync when the worker's stream (or runtime) ends, if it wrote.
    pub end_sync: bool,
}

impl WorkerSpec {
    /// A worker that starts at time zero and runs until its source ends.
    pub fn new(name: impl Into<String>, source: Box<dyn RequestSource>, iodepth: usize) -> Self {
        WorkerSpec {
            name: name.into(),
            source,
            iodepth,
            after: Vec::new(),
            runtime: None,
            ramp: None,
            sync_every: 0,
            end_sync: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Interval of the fill / hit-ratio / IOPS series.
    pub sample_interval: Nanos,
    /// Period of the write-back flushers.
    pub tick: Nanos,
    /// Stop issuing after this much simulated time.
    pub max_time: Option<Nanos>,
    /// Percentiles of the `JobResult`s (percent), as `iolab run`'s `percentile_list`.
    pub percentiles: Vec<f64>,
    /// Interval of the `JobResult`s' bandwidth/IOPS samples (fio `bwavgtime`/`iopsavgtime`).
    pub stats_interval: Nanos,
    /// The submitting threads' CPU as a stage before the devices (`None`: free and instant).
    pub host: Option<HostCpu>,
}

/// The host CPU each request crosses before its device commands start: `per_io_ns` of work
/// (read, write) done serially on its worker's thread (one thread per fio job clone), all
/// threads sharing `parallel` CPUs' worth of throughput (2 cores minus what the rest of the
/// machine takes). A worker whose thread is the bottleneck completes at most 1/`per_io_ns`
/// I/Os a second however deep its queue; several jobs overlap up to `parallel` times that.
/// A request issued while its worker has nothing else in flight costs `idle_ns` instead
/// (when larger: the thread's whole round trip, wake-up, reap and submit, shows only then).
/// A request's own CPU time is its submission (fio's slat and the gap between I/Os), not in
/// its latency; the wait behind other requests' CPU time is (they were all submitted), as
/// fio's clat counts it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HostCpu {
    pub per_io_ns: [f64; 2],
    /// The CPU per I/O by size (read, write; `[[bytes, µs], …]`, see
    /// [`crate::device::profile::DirProfile::host_us_by_size`]); empty: `per_io_ns`.
    #[serde(skip_serializing_if = "no_knots")]
    pub by_size_us: [Vec<[f64; 2]>; 2],
    pub idle_ns: [f64; 2],
    pub parallel: f64,
}

fn no_knots(k: &[Vec<[f64; 2]>; 2]) -> bool {
    k.iter().all(Vec::is_empty)
}

impl HostCpu {
    /// The thread's CPU (ns) for an I/O of `len` bytes in direction `i` (0 read, 1 write).
    pub fn cost_ns(&self, i: usize, len: u64) -> f64 {
        crate::device::profile::host_ns_at(&self.by_size_us[i], self.per_io_ns[i], len)
    }

    /// The host stage of a hierarchy whose backing device is a calibrated profile (its
    /// submitting thread's CPU, [`crate::device::profile::Profiled::host`]), as `iolab run
    /// --predict` runs it; `None` for the presets and a profile without one.
    pub fn of_backing(h: &Hierarchy) -> Option<HostCpu> {
        match &h.backing_spec().device {
            crate::device::DeviceSpec::Profile(p) => crate::device::profile::Profiled::host(p),
            _ => None,
        }
    }
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            sample_interval: Nanos::from_secs(1),
            tick: Nanos::from_millis(10),
            max_time: None,
            percentiles: iolab_stats::DEFAULT_PERCENTILES.to_vec(),
            stats_interval: Nanos::from_millis(500),
            host: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Arrive(u32),
    /// `mig_tier` is `u32::MAX` unless the command finishes a promotion of that tier.
    DevDone {
        dev: u32,
        owner: u32,
        mig_tier: u32,
        mig_bytes: u64,
    },
    EmptyDone(u32),
    /// The request's host-CPU stage ended: its device commands start.
    HostDone(u32),
    Tick,
    Sample,
}

/// A sync request: the hierarchy flushes its volatile write-back tiers (`Hierarchy::submit`).
fn sync_request() -> IoRequest {
    IoRequest { dir: IoDir::Sync, file: 0, offset: 0, len: 0, issue_at: None }
}

/// Owner id of background commands.
const BG: u32 = u32::MAX;

struct Queued {
    op: DevOp,
    owner: u32,
    migration_of: Option<usize>,
}

struct DevState {
    dev: Box<dyn Device>,
    pending: VecDeque<Queued>,
    busy: usize,
    rep: DevReport,
}

struct InFlight {
    worker: u32,
    dir: IoDir,
    len: u64,
    issued: Nanos,
    stages: Vec<Vec<DevReq>>,
    stage: usize,
    remaining: usize,
    /// Its submission latency (ns) when the device models one.
    slat: Option<u64>,
}

struct WorkerState {
    spec: WorkerSpec,
    inflight: usize,
    done: bool,
    pending: Option<IoRequest>,
    waiting: bool,
    first: Option<Nanos>,
    last: Nanos,
    /// When its `after` workers had all finished (it may issue from then on).
    started: Option<Nanos>,
    /// When measurement started (the end of `ramp`), once it has.
    measuring: Option<Nanos>,
    /// The same accounting as a measured worker's.
    rec: iolab_stats::Recorder,
    /// Writes issued since the last sync, and whether one is due next.
    writes_since_sync: u64,
    sync_due: bool,
    /// The worker wrote something, and its `end_sync` was issued.
    wrote: bool,
    end_synced: bool,
}

struct Sim<'a> {
    h: &'a mut Hierarchy,
    devs: Vec<DevState>,
    reqs: Vec<Option<InFlight>>,
    free: Vec<u32>,
    workers: Vec<WorkerState>,
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    now: Nanos,
    opt: SimOptions,
    series: Vec<Sample>,
    last_sample: (Nanos, u64, Vec<(u64, u64)>),
    completed: u64,
    interrupted: bool,
    /// Host stage: when each worker's thread and the shared CPUs are next free (ns).
    cpu_free: Vec<f64>,
    cpus_free: f64,
}

/// Runs `workers` against `h` until every source is exhausted (or `max_time`).
pub fn run(h: &mut Hierarchy, workers: Vec<WorkerSpec>, opt: SimOptions) -> SimReport {
    let devs = h
        .devices()
        .into_iter()
        .map(|d| DevState {
            rep: DevReport { name: d.name().to_string(), ..Default::default() },
            dev: d,
            pending: VecDeque::new(),
            busy: 0,
        })
        .collect();
    let ntiers = h.tier_count();
    let mut s = Sim {
        h,
        devs,
        reqs: Vec::new(),
        free: Vec::new(),
        workers: workers
            .into_iter()
            .map(|spec| WorkerState {
                spec,
                inflight: 0,
                done: false,
                pending: None,
                waiting: false,
                first: None,
                last: Nanos::ZERO,
                started: None,
                measuring: None,
                rec: iolab_stats::Recorder::new(opt.stats_interval),
                writes_since_sync: 0,
                sync_due: false,
                wrote: false,
                end_synced: false,
            })
            .collect(),
        heap: BinaryHeap::new(),
        seq: 0,
        now: Nanos::ZERO,
        opt,
        series: Vec::new(),
        last_sample: (Nanos::ZERO, 0, vec![(0, 0); ntiers]),
        completed: 0,
        interrupted: false,
        cpu_free: Vec::new(),
        cpus_free: 0.0,
    };
    s.cpu_free = vec![0.0; s.workers.len()];
    s.start_ready();
    let (tick, sample) = (s.opt.tick, s.opt.sample_interval);
    s.at(tick, Ev::Tick);
    s.at(sample, Ev::Sample);
    s.main_loop();
    s.report()
}

impl Sim<'_> {
    fn at(&mut self, t: Nanos, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t.0, self.seq, ev)));
    }

    /// Start every worker not yet started whose `after` workers have all finished.
    fn start_ready(&mut self) {
        for w in 0..self.workers.len() {
            if self.workers[w].started.is_some() {
                continue;
            }
            // Only earlier workers can gate a worker (fio's wait_for names an earlier job),
            // so no set of dependencies can deadlock the clock.
            let ready =
                self.workers[w].spec.after.iter().all(|&a| {
                    a >= w || self.workers.get(a).is_none_or(|d| d.done && d.inflight == 0)
                });
            if ready {
                self.workers[w].started = Some(self.now);
                let now = self.now;
                self.at(now, Ev::Arrive(w as u32));
            }
        }
    }

    fn all_done(&self) -> bool {
        self.workers.iter().all(|w| w.done && w.inflight == 0)
    }

    fn main_loop(&mut self) {
        let mut events = 0u32;
        while let Some(Reverse((t, _, ev))) = self.heap.pop() {
            events = events.wrapping_add(1);
            // A stop request (SIGINT/SIGTERM) ends the simulation where it is; the report
            // covers the simulated time until then and says it was interrupted.
            if events % 4096 == 0 && iolab_core::stop::requested() {
                self.interrupted = true;
                break;
            }
            self.now = Nanos(t);
            match ev {
                Ev::Arrive(w) => {
                    self.workers[w as usize].waiting = false;
                    self.arrive(w);
                }
                Ev::DevDone { dev, owner, mig_tier, mig_bytes } => {
                    if mig_tier != u32::MAX {
                        self.h.migration_done(mig_tier as usize, mig_bytes);
                    }
                    self.dev_done(dev as usize, owner)
                }
                Ev::EmptyDone(r) => self.complete(r),
                Ev::HostDone(r) => self.start_stage(r),
                Ev::Tick => {
                    if !self.all_done() {
                        let bg = self.h.tick(self.now, self.opt.tick);
                        for r in bg {
                            self.enqueue(r, BG);
                        }
                        let next = self.now + self.opt.tick;
                        self.at(next, Ev::Tick);
                    }
                }
                Ev::Sample => {
                    if !self.all_done() {
                        self.sample();
                        let next = self.now + self.opt.sample_interval;
                        self.at(next, Ev::Sample);
                    }
                }
            }
            if self.all_done() && self.workers.iter().all(|w| !w.waiting) {
                break;
            }
        }
        self.sample();
    }

    fn arrive(&mut self, w: u32) {
        let wi = w as usize;
        loop {
            let ws = &mut self.workers[wi];
            if ws.done || ws.inflight >= ws.spec.iodepth.max(1) {
                return;
            }
            if ws.sync_due {
                ws.sync_due = false;
                self.issue(w, sync_request());
                continue;
            }
            let started = ws.started.unwrap_or(Nanos::ZERO);
            let ramp = ws.spec.ramp.unwrap_or(Nanos::ZERO);
            let own_end = ws.spec.runtime.map(|r| started + ramp + r);
            let ended = self.opt.max_time.is_some_and(|m| self.now >= m)
                || own_end.is_some_and(|e| self.now >= e);
            let req = match ws.pending.take() {
                Some(r) if !ended => r,
                _ => {
                    let mut r = IoRequest::default();
                    if ended || !ws.spec.source.next_into(&mut r) {
                        self.stream_ended(w);
                        if self.workers[wi].done {
                            return;
                        }
                        continue;
                    }
                    r
                }
            };
            if let Some(at) = req.issue_at {
                if at > self.now {
                    ws.pending = Some(req);
                    ws.waiting = true;
                    self.at(at, Ev::Arrive(w));
                    return;
                }
            }
            self.issue(w, req);
        }
    }

    /// The worker's stream or runtime ended: its `end_fsync` first (once, if it wrote; the
    /// worker waits for it as fio's does), then it is done.
    fn stream_ended(&mut self, w: u32) {
        let ws = &mut self.workers[w as usize];
        if ws.spec.end_sync && ws.wrote && !ws.end_synced {
            ws.end_synced = true;
            self.issue(w, sync_request());
            return;
        }
        ws.done = true;
        if ws.inflight == 0 {
            self.start_ready();
        }
    }

    fn issue(&mut self, w: u32, req: IoRequest) {
        let plan = self.h.submit(&req, w, self.now);
        for r in plan.background {
            self.enqueue(r, BG);
        }
        let ws = &mut self.workers[w as usize];
        if req.dir == IoDir::Write {
            ws.wrote = true;
            ws.writes_since_sync += 1;
            if ws.spec.sync_every > 0 && ws.writes_since_sync >= ws.spec.sync_every {
                ws.writes_since_sync = 0;
                ws.sync_due = true;
            }
        }
        ws.inflight += 1;
        ws.first.get_or_insert(self.now);
        // One request per submission: iodepth_submit is all 1s, as fio's with iodepth_batch=1.
        ws.rec.record_submit(req.dir, ws.inflight as u32);
        ws.rec.record_submit_batch(1);
        let stages: Vec<Vec<DevReq>> = plan.stages.into_iter().filter(|s| !s.is_empty()).collect();
        let f = InFlight {
            worker: w,
            dir: req.dir,
            len: req.len,
            issued: self.now,
            stages,
            stage: 0,
            remaining: 0,
            slat: None,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.reqs[i as usize] = Some(f);
                i
            }
            None => {
                self.reqs.push(Some(f));
                (self.reqs.len() - 1) as u32
            }
        };
        match self.host_done(w, req.dir, req.len) {
            Some((t, own)) => {
                if let Some(f) = self.reqs[id as usize].as_mut() {
                    f.issued = Nanos(f.issued.0.saturating_add(own));
                }
                self.at(t, Ev::HostDone(id))
            }
            None => self.start_stage(id),
        }
    }

    /// When a request of `dir` issued now by worker `w` leaves the host stage: after its own
    /// thread's earlier work and after the shared CPUs' (see [`HostCpu`]), and its own CPU
    /// time (ns, not part of its latency); `None` without one.
    fn host_done(&mut self, w: u32, dir: IoDir, len: u64) -> Option<(Nanos, u64)> {
        let host = self.opt.host.as_ref()?;
        let i = match dir {
            IoDir::Read => 0,
            IoDir::Write | IoDir::Trim => 1,
            IoDir::Sync => return None,
        };
        // `inflight` counts this request already: alone, the thread's whole round trip.
        let alone = self.workers.get(w as usize).is_some_and(|ws| ws.inflight <= 1);
        let per_io = host.cost_ns(i, len);
        let cost = if alone { host.idle_ns[i].max(per_io) } else { per_io };
        if cost <= 0.0 {
            return None;
        }
        let now = self.now.0 as f64;
        let own = self.cpu_free.get_mut(w as usize)?;
        let shared = self.cpus_free.max(now) + cost / host.parallel.max(1e-3);
        let done = (own.max(now) + cost).max(shared);
        *own = done;
        self.cpus_free = shared;
        Some((Nanos(done as u64), cost as u64))
    }

    fn start_stage(&mut self, id: u32) {
        let Some(f) = self.reqs[id as usize].as_mut() else { return };
        if f.stages.is_empty() {
            // Nothing to do on a device (a zero read): a 1 µs software path.
            let t = Nanos(self.now.0 + 1_000);
            self.at(t, Ev::EmptyDone(id));
            return;
        }
        if f.stage >= f.stages.len() {
            self.complete(id);
            return;
        }
        let ops = std::mem::take(&mut f.stages[f.stage]);
        f.remaining = ops.len();
        for r in ops {
            self.enqueue(r, id);
        }
    }

    fn stage_done(&mut self, id: u32) {
        if let Some(f) = self.reqs[id as usize].as_mut() {
            f.stage += 1;
        }
        self.start_stage(id);
    }

    fn complete(&mut self, id: u32) {
        let Some(f) = self.reqs[id as usize].take() else { return };
        self.free.push(id);
        self.completed += 1;
        let lat = self.now.0.saturating_sub(f.issued.0);
        let interval = self.opt.stats_interval;
        let ws = &mut self.workers[f.worker as usize];
        let slat = f.slat.map(|s| s.min(lat));
        let clat = lat - slat.unwrap_or(0);
        ws.inflight -= 1;
        ws.last = self.now;
        let ramp_end = ws.started.unwrap_or(Nanos::ZERO) + ws.spec.ramp.unwrap_or(Nanos::ZERO);
        if ws.measuring.is_none() && self.now >= ramp_end {
            ws.measuring = match ws.spec.ramp {
                // fio reset_all_stats() at the ramp's end: counters, histograms, the epoch.
                Some(_) => {
                    ws.rec = iolab_stats::Recorder::new(interval);
                    Some(self.now)
                }
                None => ws.first,
            };
        }
        // While ramping the I/O happened (the cache saw it) but is not reported.
        if let Some(from) = ws.measuring {
            ws.rec.tick_interval(Nanos(self.now.0.saturating_sub(from.0)));
            ws.rec.record_complete_batch(1);
            ws.rec.record_complete(f.dir, f.len, slat.map(Nanos), Nanos(clat), Nanos(lat));
        }
        if ws.done && ws.inflight == 0 {
            // Its last I/O: workers waiting on it (stonewall, wait_for) may start now.
            self.start_ready();
        } else if !ws.waiting {
            self.arrive(f.worker);
        }
    }

    fn enqueue(&mut self, r: DevReq, owner: u32) {
        let d = &mut self.devs[r.dev];
        d.pending.push_back(Queued { op: r.op, owner, migration_of: r.migration_of });
        self.dispatch(r.dev);
    }

    fn dispatch(&mut self, dev: usize) {
        let now = self.now;
        loop {
            let d = &mut self.devs[dev];
            if d.busy >= d.dev.servers() || d.pending.is_empty() {
                return;
            }
            let window = d.dev.reorder_depth().min(d.pending.len());
            let idx = if window <= 1 {
                0
            } else {
                (0..window)
                    .min_by_key(|&i| d.dev.position_estimate(&d.pending[i].op, now))
                    .unwrap_or(0)
            };
            let Some(q) = d.pending.remove(idx) else { return };
            let svc = d.dev.service(&q.op, now, d.busy);
            let block = d.dev.submit_block();
            d.busy += 1;
            d.rep.busy_ns += svc.0;
            d.rep.ops += 1;
            match q.op.dir {
                IoDir::Read => d.rep.read_bytes += q.op.len,
                IoDir::Write => d.rep.write_bytes += q.op.len,
                _ => {}
            }
            if q.owner == BG {
                d.rep.background_ops += 1;
            }
            let (mig_tier, mig_bytes) = match q.migration_of {
                Some(t) => (t as u32, q.op.len),
                None => (u32::MAX, 0),
            };
            let ev = Ev::DevDone { dev: dev as u32, owner: q.owner, mig_tier, mig_bytes };
            self.at(Nanos(now.0 + svc.0), ev);
            if let Some(b) = block {
                self.note_submit(q.owner, b);
            }
        }
    }

    /// A request's first command started with the submit call blocking `block` of it: its
    /// slat when that start is its issue (a command queued first was submitted earlier and
    /// waited after the call returned: slat 0).
    fn note_submit(&mut self, owner: u32, block: Nanos) {
        let now = self.now;
        let Some(f) = self.reqs.get_mut(owner as usize).and_then(Option::as_mut) else { return };
        if owner != BG && f.stage == 0 && f.slat.is_none() {
            f.slat = Some(if f.issued == now { block.0 } else { 0 });
        }
    }

    fn dev_done(&mut self, dev: usize, owner: u32) {
        self.devs[dev].busy -= 1;
        self.dispatch(dev);
        if owner == BG {
            return;
        }
        let done = match self.reqs[owner as usize].as_mut() {
            Some(f) => {
                f.remaining -= 1;
                f.remaining == 0
            }
            None => false,
        };
        if done {
            self.stage_done(owner);
        }
    }

    fn sample(&mut self) {
        let (t0, c0, prev) = &self.last_sample;
        let dt = self.now.0.saturating_sub(t0.0);
        if dt == 0 && !self.series.is_empty() {
            return;
        }
        let mut hit = Vec::new();
        let mut fill = Vec::new();
        let mut cur = Vec::new();
        for i in 0..self.h.tier_count() {
            let s = self.h.tier_stats(i);
            let (h, m) = (s.read_hits, s.read_misses);
            let (ph, pm) = prev.get(i).copied().unwrap_or((0, 0));
            let n = (h - ph) + (m - pm);
            hit.push(if n == 0 { 0.0 } else { (h - ph) as f64 / n as f64 });
            fill.push(self.h.fill(i));
            cur.push((h, m));
        }
        let iops = if dt == 0 { 0.0 } else { (self.completed - c0) as f64 * 1e9 / dt as f64 };
        self.series.push(Sample { t_ns: self.now.0, iops, read_hit_ratio: hit, fill });
        self.last_sample = (self.now, self.completed, cur);
    }
}

impl Sim<'_> {
    fn report(mut self) -> SimReport {
        let end = self.workers.iter().map(|w| w.last.0).max().unwrap_or(0);
        let pcts = std::mem::take(&mut self.opt.percentiles);
        let results = self
            .workers
            .iter_mut()
            .enumerate()
            .map(|(i, w)| {
                let start = w.measuring.or(w.first).map_or(0, |f| f.0);
                let runtime = Nanos(w.last.0.saturating_sub(start));
                w.rec.finish_intervals(runtime);
                let mut j = iolab_stats::summarize(&w.rec, runtime, &pcts);
                j.name = w.spec.name.clone();
                j.jobidx = i as u32;
                j.start_ns = start;
                j.elapsed_ns = runtime.0;
                j
            })
            .collect();
        let tiers = (0..self.h.tier_count())
            .map(|i| {
                let sp = self.h.tier_spec(i);
                let st = self.h.tier_stats(i).clone();
                TierReport {
                    name: sp.name.clone(),
                    policy: sp.policy.clone(),
                    size: sp.size,
                    block_size: sp.block_size,
                    read_hit_ratio: st.read_hit_ratio(),
                    fill: self.h.fill(i),
                    dirty_blocks: self.h.dirty_blocks(i),
                    dirty_bytes: self.h.dirty_blocks(i) as u64 * sp.block_size,
                    dirty_flush_s: 0.0,
                    stats: st,
                }
            })
            .collect();
        let devices: Vec<DevReport> = self
            .devs
            .iter()
            .map(|d| {
                let mut r = d.rep.clone();
                let servers = d.dev.servers().max(1) as f64;
                r.utilization =
                    if end == 0 { 0.0 } else { (r.busy_ns as f64 / servers / end as f64).min(1.0) };
                r
            })
            .collect();
        let mut tiers: Vec<TierReport> = tiers;
        // The backing device is the last one; its write rate while busy prices the flush.
        if let Some(b) = devices.last().filter(|b: &&DevReport| b.write_bytes > 0 && b.busy_ns > 0)
        {
            let servers = self.devs.last().map_or(1, |d| d.dev.servers().max(1)) as f64;
            let rate = b.write_bytes as f64 / (b.busy_ns as f64 / servers / 1e9);
            for t in &mut tiers {
                t.dirty_flush_s = t.dirty_bytes as f64 / rate;
            }
        }
        SimReport {
            runtime_ns: end,
            results,
            tiers,
            backing: self.h.backing_stats.clone(),
            devices,
            series: self.series,
            interrupted: self.interrupted,
            host: self.opt.host.clone(),
        }
    }
}
