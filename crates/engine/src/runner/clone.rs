//! One clone of a job (fio's `numjobs` copy, one OS thread): its files opened and laid out
//! (filesetup.c `setup_files`), its workload and data, its engine built inside its own thread
//! (io_uring's SINGLE_ISSUER wants the submitting thread to own the ring), the worker loop,
//! and fio's verify phase after the writes (backend.c `thread_main`, `do_verify`).

use super::config::{self, JobPlan};
use super::options::{ReadProbe, RunOptions};
use crate::backlog::{Backlog, BacklogCheck, BacklogSource, SharedBacklog};
use crate::engines::{self, EngineConfig, EngineFile};
use crate::error::EngineError;
use crate::live::{Progress, ProgressSlot};
use crate::target::{self, Target, TargetSpec};
use crate::verify::{VerifyCheck, VerifyFill, VerifyLog, VerifySource};
use crate::worker::{run_worker, ReadCheck, RequestSource, WorkerConfig, WorkerOutcome};
use iolab_core::stop::{Stop, StopCheck};
use iolab_core::{IoRequest, Nanos};
use iolab_data::DataConfig;
use iolab_job::Job;
use iolab_stats::LiveCounters;
use iolab_workload::{FileLayout, WorkerInput, Workload};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// A clone's thread and what its result needs (named so it does not shadow `std::clone`).
pub(super) struct RunningClone {
    pub job_idx: usize,
    pub handle: JoinHandle<Result<WorkerOutcome, EngineError>>,
    pub clone: u32,
    pub paths: Vec<PathBuf>,
    pub start_ns: u64,
    pub spawned: Instant,
    pub notes: Vec<String>,
    /// The engine the clone ran (after a fallback, not the one the job asked for).
    pub engine: String,
}

/// What every clone of the run shares.
pub(super) struct RunCtx<'a> {
    pub opts: &'a RunOptions,
    pub stop: &'a Stop,
    pub progress: Option<&'a Progress>,
    pub run_start: Instant,
    /// `exitall`: what a clone of an exitall job sets when it ends (its `exit_what` scope's
    /// stop, and for `all` the run's "start no more jobs" flag); `None` without exitall.
    pub exit: Option<super::ExitSignal>,
}

/// One job's clones during set-up: files already prepared by an earlier clone (a shared
/// `filename=`), the notes and the disks found so far.
pub(super) struct JobSetup<'a> {
    pub ji: usize,
    pub job: &'a Job,
    pub plan: &'a JobPlan,
    pub shared_done: HashSet<PathBuf>,
    /// Files an earlier clone of this job created (a later clone may extend them).
    pub created: HashSet<PathBuf>,
    pub notes: Vec<String>,
    pub disk_names: &'a mut Vec<String>,
}

/// The per-clone read check: the advice probe (1 in `every` reads), `verify` of a read job,
/// and `verify_backlog`'s verify reads.
struct ProbedCheck {
    probe: Option<(usize, ReadProbe, u64)>,
    verify: Option<VerifyCheck>,
    backlog: Option<BacklogCheck>,
}

impl ReadCheck for ProbedCheck {
    fn check(
        &mut self,
        buf: &[u8],
        file: u32,
        offset: u64,
    ) -> Result<(), Box<iolab_data::VerifyFailure>> {
        if let Some((job, p, n)) = &mut self.probe {
            // Without verify the worker samples (`every`): every call is a sampled read.
            if self.verify.is_none() || *n % p.every.max(1) == 0 {
                (p.observe)(*job, buf);
            }
            *n += 1;
        }
        if let Some(r) = self.backlog.as_mut().and_then(|b| b.check(buf, file, offset)) {
            return r;
        }
        match &mut self.verify {
            Some(c) => c.check(buf, file, offset),
            None => Ok(()),
        }
    }

    /// The probe alone needs one read in `every`, so the worker skips the rest; verify needs
    /// them all.
    fn every(&self) -> u64 {
        match (&self.probe, &self.verify, &self.backlog) {
            (Some((_, p, _)), None, None) => p.every.max(1),
            _ => 1,
        }
    }

    fn wants_done(&self) -> bool {
        self.backlog.is_some()
    }

    fn done(&mut self, dir: iolab_core::IoDir, file: u32, offset: u64, ok: bool) {
        if let Some(b) = self.backlog.as_mut() {
            b.completed(dir, file, offset, ok);
        }
    }
}

/// A clone's workload as the worker's request source. With `invalidate` on a buffered job,
/// every new pass over the files (a `loops` iteration, or a `time_based` wrap) first drops
/// the files' page cache, as fio does (io_u.c `loop_cache_invalidate` on a wrap, and
/// `td_io_open_file` when a loop reopens the files), so later passes read the device too.
struct WorkloadSource<'a> {
    wl: Workload,
    /// Targets to invalidate when a pass starts (`None`: direct I/O or `invalidate=0`).
    invalidate: Option<&'a [Target]>,
    passes: u64,
}

impl RequestSource for WorkloadSource<'_> {
    fn passes(&self) -> u64 {
        self.wl.passes()
    }

    #[inline(always)]
    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        let more = self.wl.next_into(r);
        if let Some(ts) = self.invalidate {
            let p = self.wl.passes();
            if p != self.passes {
                self.passes = p;
                // A failure was already noted when the job started (the same call).
                for t in ts {
                    let _ = target::invalidate(t);
                }
            }
        }
        more
    }
}

/// The verify phase a clone runs after its writes.
struct VerifyPhase {
    dcfg: DataConfig,
    seed: u64,
    paths: Vec<PathBuf>,
    /// `verify_only`: the writes are replayed into the log, not done.
    only: bool,
    /// The job does not both read and write: seeds come from the headers (fio `td_rw`).
    header_seed: bool,
    direct: bool,
    pcts: Vec<f64>,
}

/// Everything a clone's thread owns.
struct CloneThread {
    /// `prio`/`prioclass`: set on the thread before its I/O (fio backend.c `thread_main`).
    ioprio: Option<u16>,
    /// fio's `startdelay` (drawn in its range): the wait before the clone's I/O.
    startdelay: Nanos,
    targets: Vec<Target>,
    ctor: fn(&EngineConfig) -> Result<Box<dyn engines::IoEngine>, EngineError>,
    ecfg: EngineConfig,
    wl: Workload,
    invalidate_passes: bool,
    /// `unlink=1`: delete the job's regular files when it ends (fio filesetup.c
    /// `close_and_free_files`).
    unlink: bool,
    /// `number_ios` × `loops`, which `verify_backlog`'s reads count toward.
    number_ios: Option<u64>,
    fill: VerifyFill,
    check: Option<ProbedCheck>,
    verify: Option<VerifyPhase>,
    wcfg: WorkerConfig,
    stop: Stop,
    /// `exitall`: set when this clone ends (see [`RunCtx::exit`]).
    exit: Option<super::ExitSignal>,
    live: Arc<Mutex<Option<Arc<LiveCounters>>>>,
    done: Arc<AtomicBool>,
}

/// The files' sizes as the workload sees them. cpuio and exec have no file and fio gives them
/// none: one block per pass (their jobs are time_based).
pub(super) fn file_layouts(job: &Job, engine: &str, paths: &[PathBuf]) -> Vec<FileLayout> {
    let nominal = matches!(engine, "cpuio" | "exec").then(|| job.bs.read.max.max(job.bs.write.max));
    paths
        .iter()
        .map(|p| FileLayout {
            size: nominal.unwrap_or_else(|| iolab_core::input::existing_size(p)),
        })
        .collect()
}

/// Set up clone `clone` (numbered `number` among every MPI rank's) of the job (files,
/// workload, data, engine settings) and start its thread.
pub(super) fn start_clone(
    cx: &RunCtx<'_>,
    js: &mut JobSetup<'_>,
    (clone, number): (u32, u32),
    thread_number: u32,
) -> Result<RunningClone, EngineError> {
    let (job, plan) = (js.job, js.plan);
    // `number`: the clone's number among every rank's (`RankPlace`; `clone` alone).
    let paths = iolab_workload::clone_files(job, number);
    let layouts = file_layouts(job, &plan.engine, &paths);
    let input = WorkerInput { job, clone_index: number, thread_number, files: &layouts };
    let mut wl = Workload::new(&input)
        .map_err(|source| EngineError::Workload { job: job.name.clone(), source })?;
    // The worker pauses after completions (worker/think.rs), as fio does.
    wl.think_outside_schedule();
    if clone == 0 {
        js.notes.extend(wl.warnings().iter().map(|w| format!("job {}: {w}", job.name)));
    }
    let dcfg =
        job.data_config().map_err(|source| EngineError::Data { job: job.name.clone(), source })?;
    let seed = config::data_seed(job, thread_number);
    let vplan = config::verify_plan(job, &dcfg, &plan.wcfg)?;
    let targets = open_targets(cx.opts, js, &paths, &wl, &dcfg, seed, &vplan)?;
    let ecfg = engine_config(job, plan, &targets, &paths)?;
    let ctor = engines::lookup(&plan.engine)?.ctor;
    let mut fill = VerifyFill::new(&dcfg, seed, vplan.stamp);
    // A read job with verify= checks what an earlier job wrote, block by block.
    let header_seed = !(job.rw.has_read() && job.rw.has_write());
    let check = read_check(cx, js, (&dcfg, seed, header_seed), &vplan, &paths, &mut fill);
    // Set alone by steadystate, and read as set whenever the run's stop is.
    let stop = cx.stop.child();
    let (live, done) = (Arc::new(Mutex::new(None)), Arc::new(AtomicBool::new(false)));
    if let Some(p) = cx.progress {
        show_progress(p, job, &plan.wcfg, &live, &done, &stop);
    }
    let verify = vplan.phase.then(|| VerifyPhase {
        dcfg,
        seed,
        paths: paths.clone(),
        only: vplan.only,
        header_seed,
        direct: job.direct,
        pcts: cx.opts.percentiles.clone(),
    });
    let t = CloneThread {
        ioprio: job.ioprio(),
        startdelay: start_delay(job.startdelay, job.randseed),
        targets,
        ctor,
        ecfg,
        wl,
        invalidate_passes: plan.invalidate_passes,
        unlink: job.unlink(),
        number_ios: job.number_ios.map(|n| n.saturating_mul(u64::from(job.loops.max(1)))),
        fill,
        check,
        verify,
        wcfg: plan.wcfg.clone(),
        stop,
        exit: cx.exit.clone(),
        live,
        done,
    };
    let (spawned, start_ns) = (Instant::now(), cx.run_start.elapsed().as_nanos() as u64);
    let handle = std::thread::Builder::new()
        .name(format!("iolab-{}.{clone}", job.name))
        .spawn(move || t.run())
        .map_err(|e| EngineError::io("thread", "spawn", e))?;
    Ok(RunningClone {
        job_idx: js.ji,
        handle,
        clone,
        paths,
        start_ns,
        spawned,
        // The fallback's reason goes with the job's result too (the JSON's ioengine).
        notes: plan
            .notes
            .iter()
            .filter(|n| plan.engine != job.ioengine && n.contains("is not available"))
            .cloned()
            .collect(),
        engine: plan.engine.clone(),
    })
}

/// The clone's read check: `verify` of a read job, `verify_backlog`'s reads (whose writes
/// `fill` then logs for it) and the advice's read probe; `None` when there is none.
fn read_check(
    cx: &RunCtx<'_>,
    js: &JobSetup<'_>,
    (dcfg, seed, header_seed): (&DataConfig, u64, bool),
    vplan: &config::VerifyPlan,
    paths: &[PathBuf],
    fill: &mut VerifyFill,
) -> Option<ProbedCheck> {
    let (job, plan) = (js.job, js.plan);
    let new_check = || VerifyCheck::new(dcfg, seed, None, paths.to_vec());
    let verify = vplan.inline.then(|| new_check().seed_from_header(header_seed));
    let backlog = backlog_of(job, vplan).map(|b| {
        fill.backlog = Some(b.clone());
        BacklogCheck { backlog: b, check: new_check().seed_from_header(header_seed) }
    });
    // A dataless engine (null, the file operations) moves no data: its buffers say nothing
    // about the target.
    let dataless = iolab_job::engines::has(&plan.engine, iolab_job::engines::NO_DATA);
    let probe = cx.opts.read_probe.clone().filter(|_| !dataless).map(|p| (js.ji, p, 0));
    (probe.is_some() || verify.is_some() || backlog.is_some()).then_some(ProbedCheck {
        probe,
        verify,
        backlog,
    })
}

/// fio's `startdelay=low[-high]`: `low`, or a draw in the range (fio `rand_between` on the
/// job's delay state; here the job's `randseed`, mixed: one draw for all its clones).
fn start_delay((low, high): (Nanos, Nanos), seed: u64) -> Nanos {
    match high.0.checked_sub(low.0).and_then(|span| span.checked_add(1)) {
        Some(n) if high > low => Nanos(low.0 + iolab_core::rand::mix64(seed) % n),
        _ => low,
    }
}

/// Wait `delay` before the clone's I/O, in slices, until a stop (a signal, an `exitall`):
/// the worker then ends at once. A delay of centuries (`startdelay=99999999999`, which fio
/// 3.33 accepts) is a wait for the signal.
fn wait_start(delay: Nanos, stop: &Stop) {
    let start = Instant::now();
    let delay = std::time::Duration::from(delay);
    while !stop.is_set() {
        let left = delay.saturating_sub(start.elapsed());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(50)));
    }
}

/// Give the progress display a slot for this clone.
fn show_progress(
    p: &Progress,
    job: &Job,
    wcfg: &WorkerConfig,
    live: &Arc<Mutex<Option<Arc<LiveCounters>>>>,
    done: &Arc<AtomicBool>,
    stop: &Stop,
) {
    if let Ok(mut v) = p.clones.lock() {
        v.push(ProgressSlot {
            job: job.name.clone(),
            started: Instant::now(),
            expected: wcfg.runtime.map(|r| r + wcfg.ramp.unwrap_or_default()),
            live: live.clone(),
            done: done.clone(),
            stop: stop.clone(),
        });
    }
}

/// Open (create, lay out, prefill, invalidate) the clone's files; none for the null engine.
fn open_targets(
    opts: &RunOptions,
    js: &mut JobSetup<'_>,
    paths: &[PathBuf],
    wl: &Workload,
    dcfg: &DataConfig,
    seed: u64,
    vplan: &config::VerifyPlan,
) -> Result<Vec<Target>, EngineError> {
    let (job, plan) = (js.job, js.plan);
    let mut layout_gen = iolab_data::DataGen::new(&config::layout_config(dcfg), seed);
    // --prefill writes the region, so it needs write access and the same safety checks as a
    // write job.
    let reads = job.rw.has_read() || opts.prefill || vplan.phase;
    let writes = ((job.rw.has_write() || job.rw.has_trim()) && !vplan.only) || opts.prefill;
    let mut targets: Vec<Target> = Vec::new();
    if iolab_job::engines::has(&plan.engine, iolab_job::engines::DISKLESS) {
        // fio's FIO_DISKLESSIO engines (null, filecreate, the directory engines) need no
        // file laid out: `size` is enough.
        return Ok(targets);
    }
    // Each file is open twice while the clone runs (its target and the engine's dup): refuse
    // before laying out thousands of files when the descriptors cannot all be had.
    target::ensure_open_files(&job.name, paths.len().saturating_mul(2))?;
    let first_note = js.notes.len();
    for (fi, (p, region)) in paths.iter().zip(wl.regions()).enumerate() {
        let spec = TargetSpec {
            path: p.clone(),
            needed: region.file_size.max(region.end),
            reads,
            writes,
            direct: job.direct,
            sync_flags: plan.sync_flags,
            // --allow-destroy lifts the signature check only; allow_mounted_write=1 is the
            // only way to write to a device in use (safety.rs).
            allow_destroy: opts.allow_destroy,
            allow_mounted_write: plan.allow_mounted_write,
            layout: job.rw.has_read() || opts.prefill || job.overwrite(),
            grow_own: js.created.contains(p),
        };
        let short = !p.exists() || iolab_core::input::existing_size(p) < spec.needed;
        if opts.readonly && short && !std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
            // fio filesetup.c `extend_file`: "refusing extend of file due to read-only".
            return Err(EngineError::Job {
                job: job.name.clone(),
                what: format!("{}: refusing extend of file due to read-only", p.display()),
            });
        }
        if !plan.allow_create && !p.exists() {
            return Err(EngineError::Job {
                job: job.name.clone(),
                what: format!("{}: does not exist and allow_file_create=0", p.display()),
            });
        }
        let mut fill = |b: &mut [u8], off: u64| layout_gen.fill(b, fi as u32, off, 0);
        let t = target::open_target(&spec, &mut fill)?;
        if t.created {
            js.created.insert(p.clone());
        }
        if !js.shared_done.contains(p) {
            js.notes.extend(t.notes.iter().cloned());
            if opts.prefill {
                target::prefill(&t, region.start, region.end, &mut fill)?;
                js.notes.push(format!(
                    "{}: prefilled [{}, {}) before measuring (--prefill)",
                    p.display(),
                    region.start,
                    region.end
                ));
            }
            if plan.invalidate {
                js.notes.extend(target::invalidate(&t));
            }
            js.shared_done.insert(p.clone());
        }
        for n in target::disk_names(&t) {
            if !js.disk_names.contains(&n) {
                js.disk_names.push(n);
            }
        }
        targets.push(t);
    }
    super::notes::fold_file_notes(&mut js.notes, first_note, paths);
    Ok(targets)
}

/// The engine's settings for this clone's files.
fn engine_config(
    job: &Job,
    plan: &JobPlan,
    targets: &[Target],
    paths: &[PathBuf],
) -> Result<EngineConfig, EngineError> {
    let efiles = targets
        .iter()
        .map(|t| EngineFile::dup(&t.file, t.is_block, &t.path))
        .collect::<Result<Vec<_>, _>>()?;
    let max_bs = config::buffer_size(job, plan.wcfg.depth)?;
    let mut ecfg = EngineConfig::new(plan.wcfg.depth, max_bs, efiles);
    ecfg.fixedbufs = job.fixedbufs();
    ecfg.registerfiles = job.registerfiles();
    ecfg.sqthread_poll = job.sqthread_poll();
    ecfg.hipri = job.hipri();
    ecfg.uncached = job.uncached() != 0;
    ecfg.paths = paths.to_vec();
    ecfg.stat_type = job.stat_type();
    ecfg.reads = job.rw.has_read();
    ecfg.cpuload = u32::try_from(job.cpuload()).unwrap_or(u32::MAX);
    ecfg.cpuchunks = job.cpuchunks();
    ecfg.cpu_qsort = job.cpumode_qsort();
    if plan.engine == "exec" {
        ecfg.exec = Some(engines::exec::ExecConfig {
            program: job.program().unwrap_or_default(),
            arguments: job.arguments(),
            grace_time: job.grace_time(),
            std_redirect: job.std_redirect(),
            name: job.name.clone(),
            runtime: job.runtime.map(|r| std::time::Duration::from_nanos(r.0)),
        });
    }
    // init.c fixup_options: an unset (0) or too small max is raised to the min, and
    // td_io_getevents raises it to the events asked for (at least one). So by default fio
    // reaps ONE completion per getevents and resubmits it at once, which keeps the device
    // queue at iodepth; draining the whole CQ instead lets it run down.
    ecfg.reap_max =
        job.iodepth_batch_complete_max().map_or(0, |m| m as u32).max(plan.wcfg.complete_min).max(1);
    Ok(ecfg)
}

impl CloneThread {
    /// The thread's body: build the engine, run the loop, then the verify phase.
    fn run(self) -> Result<WorkerOutcome, EngineError> {
        let done = self.done.clone();
        let exit = self.exit.clone();
        let out = self.run_inner();
        done.store(true, Ordering::Relaxed);
        // fio backend.c: a job with exitall ends the jobs of its exit_what scope.
        if let Some((scope, all)) = exit {
            scope.set();
            if let Some(a) = all {
                a.store(true, Ordering::Relaxed);
            }
        }
        out
    }

    fn run_inner(self) -> Result<WorkerOutcome, EngineError> {
        if let Some(v) = self.ioprio {
            set_ioprio(v)?;
        }
        wait_start(self.startdelay, &self.stop);
        let CloneThread { targets, ctor, ecfg, wl, mut fill, mut check, verify, .. } = self;
        let (wcfg, stop) = (&self.wcfg, &self.stop);
        // `targets` (and so the fds the engine uses) outlive the engine.
        let mut engine = ctor(&ecfg)?;
        let invalidate = self.invalidate_passes.then_some(&targets[..]);
        let mut src = WorkloadSource { wl, invalidate, passes: 0 };
        let backlog = check.as_ref().and_then(|c| c.backlog.as_ref()).map(|b| b.backlog.clone());
        let mut out = match &verify {
            Some(v) if v.only => {
                // verify_only: the writes are replayed into the log, not done.
                fill.log.get_or_insert_with(VerifyLog::default).replay(&mut src);
                empty_outcome(wcfg.interval)
            }
            _ => {
                let check = check.as_mut().map(|c| c as &mut dyn ReadCheck);
                let live: Option<&crate::worker::LiveSlot> = Some(&self.live);
                // The null engine's loop monomorphised (see `IoEngine::as_null`).
                match (engine.as_null(), &backlog) {
                    (_, Some(b)) => {
                        let limit = self.number_ios;
                        let mut src =
                            BacklogSource { inner: &mut src, backlog: b.clone(), limit, issued: 0 };
                        run_worker(&mut *engine, &mut src, &mut fill, check, wcfg, stop, live)?
                    }
                    (Some(e), None) => run_worker(e, &mut src, &mut fill, check, wcfg, stop, live)?,
                    (None, None) => {
                        run_worker(&mut *engine, &mut src, &mut fill, check, wcfg, stop, live)?
                    }
                }
            }
        };
        let mut notes = engine.notes();
        notes.append(&mut out.notes);
        out.notes = notes;
        if let Some(c) = check.as_ref().and_then(|c| c.verify.as_ref()) {
            out.verify = Some(c.result());
        }
        let inline = check.as_ref().and_then(|c| c.backlog.as_ref()).map(|b| b.check.result());
        // verify_backlog: the phase checks what the backlog left.
        let log = match (&verify, &backlog) {
            (None, _) => None,
            (Some(_), Some(b)) => Some(b.lock().unwrap_or_else(|e| e.into_inner()).remaining()),
            (Some(_), None) => fill.log.take(),
        };
        if let (Some(v), Some(log), None) = (&verify, log, &out.error) {
            let cache_notes = sync_for_verify(&targets, v.direct)?;
            let (mut res, fatal) = verify_phase(&mut *engine, log, v, wcfg, stop)?;
            res.notes = cache_notes;
            out.verify = Some(res);
            out.verify_failures += fatal;
        }
        if let Some(i) = inline {
            out.verify = Some(match out.verify.take() {
                Some(phase) => phase.absorb(i),
                None => i,
            });
        }
        if self.unlink {
            unlink_files(&targets, &mut out.notes);
        }
        Ok(out)
    }
}

/// `verify_backlog` (fio io_u.c `check_get_verify`): on when the job writes and verifies
/// (fio logs writes only with `do_verify` and a `verify` kind, and `verify_only` writes
/// nothing); the log keeps write order where the job has a random map (fio
/// `file_randommap`: uniform random offsets without `norandommap` or the LFSR).
fn backlog_of(job: &Job, vplan: &config::VerifyPlan) -> Option<SharedBacklog> {
    let every = job.verify_backlog();
    if every == 0 || !vplan.phase || vplan.only {
        return None;
    }
    let fifo = job.rw.is_random()
        && !job.norandommap
        && matches!(job.random_distribution, iolab_job::Distribution::Random)
        && job.random_generator != iolab_job::RandomGenerator::Lfsr;
    Some(Backlog::shared(every, job.verify_backlog_batch(), fifo))
}

/// `unlink=1`: remove the job's regular files (a clone that shares them may have removed
/// them already); devices, FIFOs and symlinks are never removed.
fn unlink_files(targets: &[Target], notes: &mut Vec<String>) {
    let regular = |t: &&Target| std::fs::symlink_metadata(&t.path).is_ok_and(|m| m.is_file());
    for t in targets.iter().filter(regular) {
        match std::fs::remove_file(&t.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => notes.push(format!("unlink=1: {}: {e}", t.path.display())),
        }
    }
}

/// fio backend.c: `ioprio_set(IOPRIO_WHO_PROCESS, 0, class, prio)` before `td_io_init`; `who`
/// 0 is the calling thread, whose I/O context then carries the priority.
fn set_ioprio(value: u16) -> Result<(), EngineError> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: ioprio_set takes three integers and touches no memory of ours.
    let r = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            value as libc::c_long,
        )
    };
    if r < 0 {
        return Err(EngineError::io("ioprio", "ioprio_set", crate::error::last_os_error()));
    }
    Ok(())
}

/// backend.c `do_verify`: sync and drop the cache first, so the check reads what reached the
/// media, not the page cache.
fn sync_for_verify(targets: &[Target], direct: bool) -> Result<Vec<String>, EngineError> {
    let mut notes = Vec::new();
    for t in targets {
        t.file.sync_all().map_err(|e| EngineError::io(&t.path, "fsync", e))?;
        if !direct {
            notes.extend(
                target::invalidate(t).map(|w| format!("verify reads may come from memory: {w}")),
            );
        }
    }
    Ok(notes)
}

pub(super) fn empty_outcome(interval: Nanos) -> WorkerOutcome {
    WorkerOutcome {
        rec: iolab_stats::Recorder::new(interval),
        runtime: Nanos::ZERO,
        measure_start: Nanos::ZERO,
        cpu: iolab_stats::CpuUsage::default(),
        error: None,
        verify_failures: 0,
        per_file: Vec::new(),
        verify: None,
        lat_logs: None,
        notes: Vec::new(),
    }
}

/// fio's verify phase (backend.c `do_verify`): read every logged block back through the same
/// engine and depth, check it, and keep these reads out of the job's own figures.
fn verify_phase(
    engine: &mut dyn engines::IoEngine,
    log: VerifyLog,
    v: &VerifyPhase,
    wcfg: &WorkerConfig,
    stop: &dyn StopCheck,
) -> Result<(iolab_stats::VerifyResult, u64), EngineError> {
    let mut src = VerifySource::new(&log);
    let mut check = VerifyCheck::new(&v.dcfg, v.seed, Some(log), v.paths.clone())
        .seed_from_header(v.header_seed);
    let cfg = WorkerConfig {
        fsync_every: 0,
        fdatasync_every: 0,
        end_fsync: false,
        runtime: None,
        ramp: None,
        lat_log: None,
        ..wcfg.clone()
    };
    let mut nofill = |_: &mut [u8], _: u32, _: u64| {};
    let out = run_worker(engine, &mut src, &mut nofill, Some(&mut check), &cfg, stop, None)?;
    let mut res = check.result();
    res.read = iolab_stats::summarize(&out.rec, out.runtime, &v.pcts).read;
    res.runtime_ns = out.runtime.0;
    Ok((res, out.verify_failures))
}
