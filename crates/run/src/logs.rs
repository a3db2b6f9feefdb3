//! fio's per-job log files at the end of a run: `write_lat_log=NAME` gives
//! `NAME_clat.N.log`, `NAME_slat.N.log`, `NAME_lat.N.log`; `write_bw_log` and `write_iops_log`
//! give `NAME_bw.N.log` and `NAME_iops.N.log` (fio init.c `gen_log_name`, N = the job's
//! 1-based number; with `per_job_logs=0` `NAME_bw.log`, the jobs appended in turn), in the
//! current directory, each written atomically (temp file + rename);
//! `write_hist_log=NAME` gives `NAME_clat_hist.N.log` (stats' `histlog`, fio's format).
//!
//! Latency lines come from the worker's per-I/O (or `log_avg_msec`-averaged) samples; bw and
//! iops lines are the job's interval series, whose period the engine set to `log_avg_msec`
//! as fio's `setup_log` sets `bw_avg_time` (stat.c `__add_samples`: one rate per direction
//! per period). Without `log_avg_msec` fio logs every I/O (`per_unit_log`): one line per
//! I/O with the I/O's bandwidth (bytes·10⁶/clat_ns, stat.c `add_bw_sample`) or the value 1
//! (`add_iops_sample`), which the worker records; `disable_bw_measurement` then leaves the
//! bw log to the series.

use std::path::{Path, PathBuf};

use iolab_report::export::fio_log::{log_path, windowed_entries, write_log_as, LogEntry, LogKind};
use iolab_stats::{RunResult, SampleLog};

use crate::RunError as EngineError;
use iolab_engine::runner::JobLogs;

fn entries(log: &SampleLog) -> Vec<LogEntry> {
    log.entries().iter().map(LogEntry::from).collect()
}

fn written(p: &Path) -> impl FnOnce(iolab_report::ReportError) -> EngineError + '_ {
    move |source| EngineError::Output { what: format!("writing {}", p.display()), source }
}

/// Write every job's logs under `dir`; returns the files written.
pub fn write_logs(
    dir: &Path,
    run: &RunResult,
    logs: &[JobLogs],
) -> Result<Vec<PathBuf>, EngineError> {
    let mut written_paths = Vec::new();
    // per_job_logs=0: `<prefix>_<type>.log`, the entries of every job appended in turn.
    let mut shared: Vec<(PathBuf, Vec<LogEntry>, bool, bool)> = Vec::new();
    for l in logs {
        let Some(job) = run.jobs.iter().find(|j| j.jobidx == l.jobidx) else { continue };
        if let Some(prefix) = &l.hist_prefix {
            // fio iolog.c flush_hist_samples: `NAME_clat_hist.N.log`.
            let p = dir.join(format!("{prefix}_clat_hist.{}.log", l.jobidx + 1));
            let samples = l.lat.as_ref().and_then(|x| x.hist.as_ref()).map(|h| h.samples());
            let text = iolab_stats::histlog::render(samples.unwrap_or_default(), l.hist_coarseness);
            iolab_report::write_atomic(&p, text.as_bytes()).map_err(written(&p))?;
            written_paths.push(p);
        }
        // fio iolog.c flush_samples: the I/O's ioprio under log_prio, else 1 for the realtime
        // class; averaged windows (bs 0) carry none.
        let prio = if l.log_prio { l.ioprio } else { u16::from(l.ioprio >> 13 == 1) };
        let mut put =
            |prefix: &str, kind: LogKind, mut e: Vec<LogEntry>| -> Result<(), EngineError> {
                for x in e.iter_mut().filter(|x| x.bs > 0) {
                    x.prio = u32::from(prio);
                }
                if !l.per_job {
                    let p = dir.join(format!("{prefix}_{}.log", kind.file_tag()));
                    match shared.iter_mut().find(|s| s.0 == p) {
                        Some(s) => s.1.append(&mut e),
                        None => shared.push((p, e, l.log_prio, l.store_compressed)),
                    }
                    return Ok(());
                }
                let p = log_path(dir, prefix, kind, l.jobidx);
                let p =
                    write_log_as(&p, &e, l.log_prio, l.store_compressed).map_err(written(&p))?;
                written_paths.push(p);
                Ok(())
            };
        if let (Some(prefix), Some(lat)) = (&l.lat_prefix, &l.lat) {
            put(prefix, LogKind::Clat, entries(&lat.clat))?;
            put(prefix, LogKind::Slat, entries(&lat.slat))?;
            put(prefix, LogKind::Lat, entries(&lat.lat))?;
        }
        for (prefix, kind) in [(&l.bw_prefix, LogKind::Bw), (&l.iops_prefix, LogKind::Iops)] {
            let Some(prefix) = prefix else { continue };
            // Without log_avg_msec fio logs every I/O (per_unit_log): the worker kept those.
            let unit = l.lat.as_ref().and_then(|x| {
                if kind == LogKind::Bw {
                    x.bw.as_ref()
                } else {
                    x.iops.as_ref()
                }
            });
            if let Some(u) = unit {
                put(prefix, kind, entries(u))?;
                continue;
            }
            let mut e = windowed_entries(job, kind);
            for x in &mut e {
                // One rate per period: its max is itself (fio log_window_value=both).
                x.max = l.window_max.then_some(x.value);
                x.offset = l.log_offset.then_some(0);
            }
            put(prefix, kind, e)?;
        }
    }
    for (p, e, prio, compressed) in shared {
        let p = write_log_as(&p, &e, prio, compressed).map_err(written(&p))?;
        written_paths.push(p);
    }
    Ok(written_paths)
}
