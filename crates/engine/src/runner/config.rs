//! Config resolution: from one typed [`Job`] to what its clones run with, before any file is
//! opened: the engine (io_uring probed, psync fallback with a note), the worker loop settings
//! (batching, syncs, latency switches, `clocksource`), the log settings (`write_*_log`,
//! `log_avg_msec`, `log_window_value`, `log_offset`) and the verify plan (`verify`,
//! `do_verify`, `verify_only`). Pure apart from the io_uring and TSC probes, which are passed
//! in where a test needs them fixed.
//!
//! Sources: fio init.c `fixup_options` and `setup_log`, options.c `str_gtod_reduce_cb`,
//! backend.c `do_verify`, filesetup.c `file_open_flags` (`sync=`).

use super::options::RunOptions;
use crate::engines;
use crate::error::EngineError;
use crate::worker::{LatLogSpec, WorkerConfig};
use iolab_core::Nanos;
use iolab_job::{Job, LogWindow, SyncMode};

/// Everything a job's clones share, resolved once per job.
#[derive(Clone, Debug)]
pub struct JobPlan {
    /// The engine that runs (after a fallback, not necessarily the one asked for).
    pub engine: String,
    /// Notes for the run: fallback, capped depth, options not acted on, clock.
    pub notes: Vec<String>,
    pub wcfg: WorkerConfig,
    /// Drop the files' page cache at setup (`invalidate` on a buffered job).
    pub invalidate: bool,
    /// Also at each new pass over the files (not for the null engine).
    pub invalidate_passes: bool,
    pub allow_create: bool,
    pub allow_mounted_write: bool,
    /// `O_SYNC`/`O_DSYNC` for `sync=`.
    pub sync_flags: i32,
    pub logs: LogSettings,
}

/// Resolve one job (probing io_uring and the TSC).
pub fn plan_job(job: &Job, opts: &RunOptions) -> Result<JobPlan, EngineError> {
    let (engine, mut notes) = resolve_engine(job)?;
    if job.log_store_compressed() && job.write_hist_log().is_some() {
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: "log_store_compressed with write_hist_log is not supported by iolab: the \
                   histogram log's .fz form is not implemented; drop one of them"
                .to_string(),
        });
    }
    notes.extend(unhandled_notes(job));
    let (wcfg, clock_note) = worker_config(job, opts)?;
    notes.extend(clock_note.map(|n| format!("job {}: {n}", job.name)));
    let invalidate = job.invalidate() && !job.direct;
    Ok(JobPlan {
        invalidate_passes: invalidate && engine != "null",
        engine,
        notes,
        wcfg,
        invalidate,
        allow_create: job.allow_file_create(),
        allow_mounted_write: job.allow_mounted_write(),
        sync_flags: match job.sync_mode() {
            SyncMode::Sync => libc::O_SYNC,
            SyncMode::Dsync => libc::O_DSYNC,
            SyncMode::None => 0,
        },
        logs: LogSettings::of(job),
    })
}

/// The engine a job will use and why it differs from what it asked for.
pub fn resolve_engine(job: &Job) -> Result<(String, Vec<String>), EngineError> {
    engines::lookup(&job.ioengine)?;
    if job.openfiles().is_some()
        && !iolab_job::engines::has(&job.ioengine, iolab_job::engines::FILE_OPS)
    {
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: format!(
                "openfiles is not supported by iolab with ioengine={}: iolab keeps all of a \
                 job's files open; drop the option or lower nrfiles",
                job.ioengine
            ),
        });
    }
    let uring = match job.ioengine.as_str() {
        "io_uring" => engines::uring::probe().map_err(|e| e.to_string()),
        _ => Ok(()),
    };
    Ok(choose_engine(job, uring))
}

/// [`resolve_engine`] with the io_uring probe's answer given.
pub fn choose_engine(job: &Job, uring: Result<(), String>) -> (String, Vec<String>) {
    let mut notes = Vec::new();
    let mut name = job.ioengine.clone();
    if name == "io_uring" {
        if let Err(why) = uring {
            notes.push(format!(
                "job {}: io_uring is not available ({why}); using psync (depth 1)",
                job.name
            ));
            name = "psync".to_string();
        }
    }
    if iolab_job::engines::has(&name, iolab_job::engines::SYNC) && job.iodepth > 1 {
        notes.push(format!(
            "job {}: ioengine={name} is synchronous: queue depth will be capped at 1 (asked {})",
            job.name, job.iodepth
        ));
    }
    if name == "libaio" && !job.direct && job.iodepth > 1 {
        notes.push(format!(
            "job {}: libaio with direct=0 completes in io_submit: expect an achieved depth of ~1 \
             (see the IO depths line); use direct=1",
            job.name
        ));
    }
    (name, notes)
}

/// Options the registry accepts that this engine does not act on (yet): each gets a note, so
/// nothing is ignored silently.
pub fn unhandled_notes(job: &Job) -> Vec<String> {
    job.engine_unacted().map(|(opt, why)| format!("job {}: {opt}: {why}", job.name)).collect()
}

/// What a job logs (fio init.c `setup_log`: the prefix is the option's value, or the job
/// name when bare).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogSettings {
    pub lat_prefix: Option<String>,
    pub bw_prefix: Option<String>,
    pub iops_prefix: Option<String>,
    /// `write_hist_log`'s prefix, with `log_hist_msec` and `log_hist_coarseness`.
    pub hist_prefix: Option<String>,
    pub hist_msec: u64,
    pub hist_coarseness: u32,
    pub log_avg: Nanos,
    pub window: LogWindow,
    pub log_offset: bool,
    /// `log_prio`: the prio column is the full ioprio value.
    pub log_prio: bool,
    /// The ioprio value set on the job's thread (`prio`/`prioclass`; 0 when neither).
    pub ioprio: u16,
    /// `log_store_compressed`: fio's `.fz` files.
    pub store_compressed: bool,
}

impl LogSettings {
    /// Whether any log file is asked for.
    pub fn any(&self) -> bool {
        self.lat_prefix.is_some()
            || self.bw_prefix.is_some()
            || self.iops_prefix.is_some()
            || self.hist_prefix.is_some()
    }

    pub fn of(job: &Job) -> Self {
        LogSettings {
            lat_prefix: job.write_lat_log(),
            bw_prefix: job.write_bw_log(),
            iops_prefix: job.write_iops_log(),
            hist_prefix: job.write_hist_log(),
            hist_msec: job.log_hist_msec(),
            hist_coarseness: u32::try_from(job.log_hist_coarseness()).unwrap_or(u32::MAX),
            log_avg: Nanos::from_millis(job.log_avg_msec()),
            window: job.log_window_value(),
            log_offset: job.log_offset(),
            log_prio: job.log_prio(),
            ioprio: job.ioprio().unwrap_or(0),
            store_compressed: job.log_store_compressed(),
        }
    }

    /// The per-I/O log the worker keeps, if any (fio `per_unit_log` for bw/iops without
    /// `log_avg_msec`).
    fn lat_log(&self, job: &Job) -> Option<LatLogSpec> {
        let gtod = job.gtod_reduce();
        let per_unit = self.log_avg == Nanos::ZERO && !gtod;
        let spec = LatLogSpec {
            avg: self.log_avg,
            window: match self.window {
                LogWindow::Avg => iolab_stats::WindowValue::Avg,
                LogWindow::Max => iolab_stats::WindowValue::Max,
                LogWindow::Both => iolab_stats::WindowValue::Both,
            },
            offset: self.log_offset,
            lat: self.lat_prefix.is_some(),
            unit_bw: per_unit && self.bw_prefix.is_some() && !job.disable_bw_measurement(),
            unit_iops: per_unit && self.iops_prefix.is_some(),
            hist_msec: self.hist_prefix.is_some().then_some(self.hist_msec),
        };
        (spec.lat || spec.unit_bw || spec.unit_iops || spec.hist_msec.is_some()).then_some(spec)
    }

    /// The stats interval: init.c `setup_log` for `write_bw_log`/`write_iops_log` makes the
    /// sampling period `log_avg_msec` (or the smaller of it and an explicit
    /// `bwavgtime`/`iopsavgtime`).
    fn interval(&self, job: &Job, default: Nanos) -> Nanos {
        let avg_time = job.bwavgtime().or(job.iopsavgtime()).map(Nanos::from_millis);
        let bw_logged = self.bw_prefix.is_some() || self.iops_prefix.is_some();
        match (bw_logged && self.log_avg.0 > 0, avg_time) {
            (true, Some(t)) => self.log_avg.min(t),
            (true, None) => self.log_avg,
            (false, Some(t)) => t,
            (false, None) => default,
        }
    }
}

/// The worker's settings for `job`, and a note when its `clocksource` cannot be honoured.
pub fn worker_config(
    job: &Job,
    opts: &RunOptions,
) -> Result<(WorkerConfig, Option<String>), EngineError> {
    let depth = job.iodepth.max(1);
    // options.c str_gtod_reduce_cb: gtod_reduce turns every latency off.
    let gtod = job.gtod_reduce();
    let logs = LogSettings::of(job);
    let (clock, clock_note) = crate::clock::ClockSource::resolve(job.clocksource());
    let cfg = WorkerConfig {
        clock,
        depth,
        batch_submit: job.iodepth_batch() as u32,
        complete_min: job.iodepth_batch_complete_min() as u32,
        depth_low: job.iodepth_low().map_or(depth, |v| v as u32),
        fsync_every: job.fsync_every(),
        fdatasync_every: job.fdatasync_every(),
        end_fsync: job.end_fsync(),
        runtime: job.runtime.filter(|r| r.0 > 0),
        ramp: job.ramp_time.filter(|r| r.0 > 0),
        interval: logs.interval(job, opts.interval),
        stop_on_error: !matches!(job.continue_on_error_kind(), Some("all" | "1")),
        continue_dirs: match job.continue_on_error_kind() {
            Some("read") => 1,
            Some("write") => 2,
            Some("io") => 3,
            _ => 0,
        },
        no_slat: gtod || job.disable_slat(),
        no_clat: gtod || job.disable_clat(),
        no_lat: gtod || job.disable_lat(),
        lat_log: logs.lat_log(job),
        think: think_spec(job),
    };
    Ok((cfg, clock_note))
}

/// `thinktime` and its companions (`None` when `thinktime` is 0, as fio's `do_io` only calls
/// `handle_thinktime` then).
fn think_spec(job: &Job) -> Option<crate::worker::ThinkSpec> {
    (job.thinktime.0 > 0).then(|| crate::worker::ThinkSpec {
        time: job.thinktime,
        spin: job.thinktime_spin.min(job.thinktime),
        blocks: u64::from(job.thinktime_blocks.max(1)),
        blocks_given: job.thinktime_blocks_given(),
        by_issue: job.thinktime_by_issue(),
        iotime: job.thinktime_iotime(),
        ignore_rate: job.rate_ignore_thinktime(),
    })
}

/// How a job verifies: `stamp` = headers in every write, `phase` = read back what it wrote
/// after writing (`verify=` with `do_verify`, fio's default), `only` = skip the writes
/// (`verify_only`), `inline` = check each read of a read-only job against its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyPlan {
    /// Writes carry verify headers (`verify=` on a writing job, even with `do_verify=0`).
    pub stamp: bool,
    pub phase: bool,
    pub only: bool,
    pub inline: bool,
}

pub fn verify_plan(
    job: &Job,
    dcfg: &iolab_data::DataConfig,
    wcfg: &WorkerConfig,
) -> Result<VerifyPlan, EngineError> {
    use iolab_data::VerifyKind;
    let on = !matches!(dcfg.verify, VerifyKind::None | VerifyKind::Null);
    let writes = job.rw.has_write();
    let only = on && job.verify_only();
    let phase = on && writes && (only || job.do_verify());
    if on && writes && job.rw.has_trim() {
        // fio verifies trimmed blocks only through trim_verify_*; iolab's log would expect
        // the old data there and report every trimmed block as a failure.
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: format!(
                "verify={} with trims (rw={:?}) is not supported: use a write-only job to verify",
                dcfg.verify.name(),
                job.rw
            ),
        });
    }
    if only && (job.time_based || wcfg.runtime.is_some()) {
        return Err(EngineError::Job {
            job: job.name.clone(),
            what: "verify_only replays the writes of a run bounded by size: drop time_based and \
                   runtime (a time-bound run's writes cannot be reproduced)"
                .to_string(),
        });
    }
    Ok(VerifyPlan { stamp: on && writes, phase, only, inline: on && !writes && job.rw.has_read() })
}

/// The seed of a clone's data (shared with the advice: `iolab_workload::seeds::data_seed`).
pub fn data_seed(job: &Job, thread_number: u32) -> u64 {
    iolab_workload::seeds::data_seed(job.randseed, thread_number)
}

/// The data of a layout or `--prefill`: the job's own buffer options when it asks for
/// compressible, deduplicable, patterned or zero data; otherwise unique random blocks
/// (`refill_buffers`), which neither compress nor dedupe. fio's default buffer is one random
/// block rewritten 24 bytes per sector, which a stream compressor shrinks 18:1, so a
/// compressing or thin-provisioned array would be flattered by a prefill of it.
pub fn layout_config(dcfg: &iolab_data::DataConfig) -> iolab_data::DataConfig {
    let asks = dcfg.compress_percentage != 0
        || dcfg.dedupe_percentage != 0
        || !dcfg.pattern.is_empty()
        || dcfg.zero_buffers;
    let mut c = dcfg.clone();
    if !asks {
        c.refill_buffers = true;
    }
    c
}

/// The largest block size as a buffer length, refused (naming `bs`/`bsrange`) when one
/// buffer per queue slot cannot even be addressed: fio fails such a job with err=12.
pub fn buffer_size(job: &Job, depth: u32) -> Result<usize, EngineError> {
    let max_bs = [job.bs.read.max, job.bs.write.max, job.bs.trim.max]
        .into_iter()
        .chain(job.bs.iter().flat_map(|(_, b)| b.split.iter().map(|s| s.bs)))
        .max()
        .unwrap_or(4096);
    usize::try_from(max_bs)
        .ok()
        .filter(|&b| b.checked_mul(depth.max(1) as usize).is_some_and(|t| t <= isize::MAX as usize))
        .ok_or_else(|| EngineError::Job {
            job: job.name.clone(),
            what: format!(
                "bs/bsrange: a largest block size of {max_bs} bytes times iodepth {depth} \
                 cannot be allocated (fio: err=12); use a smaller bs or bsrange"
            ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> Job {
        iolab_job::parse_str("t.fio", &format!("[j]\n{text}")).unwrap().jobs.remove(0)
    }

    #[test]
    fn engine_fallback_and_notes() {
        let j = job("ioengine=io_uring\niodepth=8\n");
        let (e, n) = choose_engine(&j, Err("disabled".into()));
        assert_eq!(e, "psync");
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].contains("io_uring is not available (disabled); using psync"));
        assert!(n[1].contains("queue depth will be capped at 1 (asked 8)"));
        assert_eq!(choose_engine(&j, Ok(())), ("io_uring".to_string(), vec![]));
        let (_, n) = choose_engine(&job("ioengine=libaio\niodepth=4\n"), Ok(()));
        assert!(n[0].contains("libaio with direct=0"), "{n:?}");
        assert_eq!(unhandled_notes(&job("hipri\n")).len(), 1);
    }

    #[test]
    fn worker_settings_and_clock() {
        let o = RunOptions::default();
        let (c, note) = worker_config(&job("iodepth=16\nclocksource=gettimeofday\n"), &o).unwrap();
        assert_eq!((c.depth, c.depth_low, c.batch_submit, c.complete_min), (16, 16, 1, 1));
        assert_eq!(c.clock, crate::clock::ClockSource::Gettimeofday);
        assert!(note.is_none() && c.stop_on_error && c.lat_log.is_none());
        assert_eq!(c.interval, o.interval);
        let (c, _) = worker_config(&job("gtod_reduce=1\nfsync=4\n"), &o).unwrap();
        assert!(c.no_slat && c.no_clat && c.no_lat);
        assert_eq!(c.fsync_every, 4);
    }

    #[test]
    fn log_settings() {
        let j = job("write_bw_log=x\nwrite_lat_log\nlog_avg_msec=250\nlog_window_value=both\n");
        let l = LogSettings::of(&j);
        assert_eq!(l.bw_prefix.as_deref(), Some("x"));
        assert_eq!(l.lat_prefix.as_deref(), Some("j"));
        assert_eq!((l.iops_prefix, l.window), (None, LogWindow::Both));
        let (c, _) = worker_config(&j, &RunOptions::default()).unwrap();
        assert_eq!(c.interval, Nanos::from_millis(250));
        let spec = c.lat_log.unwrap();
        assert!(spec.lat && !spec.unit_bw);
        let (c, _) = worker_config(&job("write_iops_log\n"), &RunOptions::default()).unwrap();
        assert!(c.lat_log.unwrap().unit_iops);
    }

    #[test]
    fn verify_settings() {
        let w = |t: &str| {
            let j = job(t);
            let d = j.data_config().unwrap();
            let (c, _) = worker_config(&j, &RunOptions::default()).unwrap();
            verify_plan(&j, &d, &c)
        };
        let p = w("rw=write\nverify=crc32c\n").unwrap();
        assert_eq!((p.stamp, p.phase, p.only, p.inline), (true, true, false, false));
        let p = w("rw=write\nverify=crc32c\ndo_verify=0\n").unwrap();
        assert_eq!((p.stamp, p.phase), (true, false));
        assert!(w("rw=read\nverify=md5\n").unwrap().inline);
        // Refused when the job is read (iolab_job::check), before any plan.
        // time_based needs a runtime, or fio (and iolab) turns it off (job::fixup).
        let timed = "rw=write\nverify=md5\nverify_only\ntime_based\nruntime=1\n";
        for t in ["rw=trimwrite\nverify=md5\n", timed] {
            assert!(iolab_job::parse_str("t.fio", &format!("[j]\n{t}")).is_err(), "{t}");
        }
    }
}
