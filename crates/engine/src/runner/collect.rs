//! Result collection: join clones' threads and turn each outcome into fio's per-job result
//! (stat.c `show_thread_status` fields: name, group, error, runtime, the options echoed in
//! file order), its per-file spread and its log requests (init.c `gen_log_name`), and the
//! disks under the targets (fio's `disk_util`, named from `/sys/dev/block` by
//! `stats::topology`).

use super::clone::RunningClone;
use super::config::LogSettings;
use super::options::{FileIo, JobLogs, RunOptions};
use crate::error::EngineError;
use crate::worker::WorkerOutcome;
use iolab_job::Job;
use iolab_stats::JobResult;

/// What the joined clones produced so far.
#[derive(Default)]
pub(super) struct Collected {
    /// (job index, join order, result).
    pub finished: Vec<(usize, u32, JobResult)>,
    pub files: Vec<FileIo>,
    pub logs: Vec<JobLogs>,
    pub first_err: Option<EngineError>,
    /// The first `jobidx` (after the MPI ranks before this one, `RankPlace`).
    pub jobidx_base: u32,
}

impl Collected {
    /// The next result's `jobidx`: its place in the run, after the ranks before this one.
    fn next_jobidx(&self) -> u32 {
        self.jobidx_base.saturating_add(self.finished.len() as u32)
    }

    /// Join every clone in `running` (in order) and collect its result.
    pub fn join_all(&mut self, running: Vec<RunningClone>, jobs: &[Job], opts: &RunOptions) {
        for (n, c) in running.into_iter().enumerate() {
            let job = &jobs[c.job_idx];
            match c.handle.join() {
                Ok(Ok(out)) => {
                    self.files.extend(c.paths.iter().enumerate().map(|(i, p)| {
                        let (ios, bytes) = out.per_file.get(i).copied().unwrap_or((0, 0));
                        FileIo {
                            job: job.name.clone(),
                            clone: c.clone,
                            path: p.clone(),
                            ios,
                            bytes,
                        }
                    }));
                    let started = (c.start_ns, c.spawned.elapsed().as_nanos() as u64);
                    let (jr, lat) =
                        job_result(job, out, c.notes, &c.engine, started, self.next_jobidx(), opts);
                    let logs = LogSettings::of(job);
                    if logs.any() {
                        self.logs.push(JobLogs {
                            jobidx: jr.jobidx,
                            lat_prefix: logs.lat_prefix,
                            bw_prefix: logs.bw_prefix,
                            iops_prefix: logs.iops_prefix,
                            log_offset: logs.log_offset,
                            window_max: logs.window == iolab_job::LogWindow::Both,
                            lat,
                            hist_prefix: logs.hist_prefix,
                            hist_coarseness: logs.hist_coarseness,
                            log_prio: logs.log_prio,
                            ioprio: logs.ioprio,
                            store_compressed: logs.store_compressed,
                            per_job: job.per_job_logs(),
                        });
                    }
                    self.finished.push((c.job_idx, n as u32, jr));
                }
                Ok(Err(e)) => {
                    self.first_err.get_or_insert(e);
                }
                Err(_) => {
                    self.first_err.get_or_insert(EngineError::Job {
                        job: job.name.clone(),
                        what: "worker thread panicked".to_string(),
                    });
                }
            }
        }
    }
}

impl Collected {
    /// A job whose file could not be opened: each clone's result with fio's error and no
    /// I/O (fio filesetup.c fails the job's set-up with the errno; stat.c still reports it).
    pub fn push_unopened(
        &mut self,
        job: &Job,
        ji: usize,
        clones: usize,
        (errno, what): (i32, &str),
        opts: &RunOptions,
    ) {
        for n in 0..clones {
            let out = super::clone::empty_outcome(opts.interval);
            let notes = vec![format!("job {}: {what}", job.name)];
            let (mut jr, _) =
                job_result(job, out, notes, &job.ioengine, (0, 0), self.next_jobidx(), opts);
            jr.error = errno;
            self.finished.push((ji, n as u32, jr));
        }
    }
}

/// One clone's result; also hands back its latency log.
fn job_result(
    job: &Job,
    out: WorkerOutcome,
    notes: Vec<String>,
    engine: &str,
    (start_ns, elapsed_ns): (u64, u64),
    jobidx: u32,
    opts: &RunOptions,
) -> (JobResult, Option<crate::worker::LatLogs>) {
    // fio reports each job's own `percentile_list`.
    let pcts = job.percentile_list().unwrap_or_else(|| opts.percentiles.clone());
    let mut jr = iolab_stats::summarize(&out.rec, out.runtime, &pcts);
    jr.name = job.name.clone();
    jr.groupid = job.group_id;
    jr.jobidx = jobidx;
    jr.start_ns = start_ns + out.measure_start.0;
    jr.elapsed_ns = elapsed_ns;
    jr.cpu = out.cpu;
    jr.error = out.rec.first_error.map(|e| e.1).unwrap_or(0);
    jr.options = job.own_options();
    jr.report = job.report_options();
    if engine != job.ioengine {
        // A fallback (io_uring disabled or refused): the JSON names the engine that ran; the
        // job's notes say why.
        jr.options.insert("ioengine".into(), engine.to_string());
        jr.report.engine_ran = Some(engine.to_string());
    }
    jr.notes = notes;
    jr.notes.extend(out.notes);
    if let Some(e) = out.error {
        jr.notes.push(format!("stopped: {e}"));
    }
    if let Some(v) = &out.verify {
        jr.notes.extend(v.notes.iter().cloned());
        if v.failed() > 0 {
            jr.notes.push(format!(
                "verify: {} of {} blocks failed (corruption {}, misplaced {}, stale {}, torn {}, \
                 bad header {}){}",
                v.failed(),
                v.checked,
                v.corruption,
                v.misplaced,
                v.stale,
                v.torn,
                v.bad_header,
                if out.verify_failures > 0 { "; verify_fatal stopped the job" } else { "" }
            ));
        }
    }
    if jr.error == 0 && out.verify.as_ref().is_some_and(|v| v.failed() > 0) {
        // fio verify.c: a failed block is -EILSEQ, the job's error (err=84).
        jr.error = libc::EILSEQ;
    }
    if let Some(v) = &out.verify {
        count_verify_reads(&mut jr, v, &pcts);
    }
    jr.verify = out.verify;
    if job.disable_bw_measurement() || job.gtod_reduce() {
        // fio disable_bw: no bw/iops samples; the JSON shows zeros with N=0.
        for d in iolab_stats::DIRS {
            let ds = jr.dir_mut(d);
            ds.bw = Default::default();
            ds.iops = Default::default();
        }
    }
    (jr, out.lat_logs)
}

/// fio counts the verify phase's reads as the job's reads (backend.c `do_verify` issues them
/// as ordinary read io_us, and `update_runtime(td, elapsed_us, DDIR_READ)` adds its time):
/// read I/Os, bytes, latencies and issued counts include them, the read runtime and the job
/// runtime grow by the phase's time. fio 3.33 on a 16 MiB write+verify job: read 4096 I/Os /
/// 16 MiB (runtime 47 ms), write 4096 (75 ms), job_runtime 120 ms. `jobs[].iolab.verify`
/// keeps the phase's own figures beside them.
fn count_verify_reads(
    jr: &mut iolab_stats::JobResult,
    v: &iolab_stats::VerifyResult,
    pcts: &[f64],
) {
    if v.read.total_ios == 0 && v.read.issued_ios == 0 {
        return;
    }
    let own = std::mem::take(&mut jr.read);
    let mut read = iolab_stats::mixed_dir(&[&own, &v.read], jr.interval_ns, pcts);
    read.runtime_ns = own.runtime_ns + v.runtime_ns;
    jr.read = read;
    jr.runtime_ns += v.runtime_ns;
}
