//! `iolab run [JOB…] [--name=value…] [--output-format=normal|json|json+|jsonl|csv]
//! [--output FILE] [--status-interval N] [--allow-destroy] [--prefill]`: real I/O.
//!
//! Job files and a pasted fio command line are read by `iolab-job` (fio's precedence: options
//! before the first `--name` are global, a job file's `[global]` overrides them), run by
//! `iolab-engine`, rendered by `iolab-report` and written atomically. Diagnostics go to
//! stderr so stdout stays valid JSON (fio #731). Ctrl-C stops every worker; the result is
//! still written, marked interrupted.
//!
//! With no job at all, a built-in quick profile runs on a temporary file in the current
//! directory (`--size`, default 256m; `--directory`): sequential 1 MiB reads and writes at
//! QD8, random 4 KiB reads and writes at QD32 and QD1, about 3.5 s each, and prints one table.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use iolab_engine::runner::{run_jobs, Progress, RunOptions};
use iolab_job::LoadOptions;
use iolab_stats::RunResult;

mod logs;
mod quick;

#[derive(clap::Args)]
pub struct Args {
    /// Job files and fio-style options (`--name=x --rw=randread --bs=4k`), plus iolab's own
    /// flags: --output-format=normal|json|json+|jsonl|csv, --output=FILE,
    /// --status-interval=SECONDS, --allow-destroy, --prefill. No job: the quick profile
    /// (`--size=256m`, `--directory=DIR`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

const OWN_FLAGS: &[&str] =
    &["output-format=", "output=", "status-interval=", "allow-destroy", "prefill", "phase-time="];

struct Flags {
    format: String,
    output: Option<std::path::PathBuf>,
    status_interval: Option<Duration>,
    allow_destroy: bool,
    prefill: bool,
    /// Quick profile only: measured seconds per phase.
    phase_time: Option<f64>,
}

fn own_flags(other: &[String]) -> anyhow::Result<Flags> {
    let mut f = Flags {
        format: "normal".to_string(),
        output: None,
        status_interval: None,
        allow_destroy: false,
        prefill: false,
        phase_time: None,
    };
    let mut it = other.iter();
    while let Some(a) = it.next() {
        let body = a.trim_start_matches('-');
        let (k, v) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = || -> anyhow::Result<String> {
            match &v {
                Some(v) => Ok(v.clone()),
                None => it.next().cloned().with_context(|| format!("--{k} needs a value")),
            }
        };
        match k {
            "output-format" => f.format = value()?,
            "output" => f.output = Some(value()?.into()),
            "status-interval" => {
                let s = value()?;
                let secs: f64 = s.trim_end_matches('s').parse().with_context(|| {
                    format!("--status-interval={s}: expected seconds, e.g. 1 or 0.5")
                })?;
                if secs <= 0.0 {
                    bail!("--status-interval={s}: must be more than 0 seconds");
                }
                f.status_interval = Some(Duration::from_secs_f64(secs));
            }
            "allow-destroy" => f.allow_destroy = true,
            "prefill" => f.prefill = true,
            "phase-time" => {
                let s = value()?;
                let secs: f64 =
                    s.trim_end_matches('s').parse().ok().filter(|v: &f64| *v > 0.0).with_context(
                        || format!("--phase-time={s}: expected seconds > 0, e.g. 3"),
                    )?;
                f.phase_time = Some(secs);
            }
            _ => bail!("unknown flag '{a}'"),
        }
    }
    for fmt in f.format.split(',') {
        iolab_report::exporter(fmt)?;
    }
    Ok(f)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let split = iolab_job::split_fio_args(&args.rest, OWN_FLAGS);
    let flags = own_flags(&split.other)?;
    let has_job = !split.job_files.is_empty()
        || split.fio_options.iter().any(|o| o.starts_with("--name=") || o == "--name");
    if !has_job {
        return quick::run_quick(&split.fio_options, &flags_to_quick(&flags));
    }
    if flags.phase_time.is_some() {
        bail!("--phase-time applies to the quick profile (no job); use --runtime= in a job");
    }
    if flags.prefill && flags.allow_destroy {
        eprintln!(
            "iolab: --prefill with --allow-destroy: block devices will be written before reads"
        );
    }
    let opts = LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let parsed = iolab_job::load(&opts)?;
    for w in &parsed.warnings {
        eprintln!("iolab: {w}");
    }
    let run_opts = RunOptions {
        allow_destroy: flags.allow_destroy,
        prefill: flags.prefill,
        ..RunOptions::default()
    };
    let (mut result, interrupted) =
        run_with_progress(&parsed.jobs, &run_opts, flags.status_interval)?;
    result.meta.command_line = std::env::args().collect();
    result.meta.interrupted = interrupted;
    result.meta.start_unix_ms = start_unix_ms(&result);
    result.warnings.extend(parsed.warnings.iter().map(|w| w.to_string()));
    for n in &result.notes {
        eprintln!("iolab: {n}");
    }
    let mut out = Vec::new();
    for fmt in flags.format.split(',') {
        out.extend(iolab_report::exporter(fmt)?.render(&result)?);
    }
    match &flags.output {
        Some(p) => iolab_report::write_atomic(p, &out)?,
        None => {
            let mut s = std::io::stdout().lock();
            s.write_all(&out).context("writing results to stdout")?;
            s.flush().context("writing results to stdout")?;
        }
    }
    for j in &result.jobs {
        if let Some(f) = j.verify.as_ref().and_then(|v| v.failures.first()) {
            eprintln!("iolab: job {}: {}: {}", j.name, f.file, f.message);
        }
    }
    // A verify failure is a failed run, as in fio (exit status 1 after "verify: bad magic").
    let failed = result
        .jobs
        .iter()
        .any(|j| j.error != 0 || j.verify.as_ref().is_some_and(|v| v.failed() > 0));
    Ok(if interrupted {
        eprintln!("iolab: interrupted; the results cover the time until Ctrl-C");
        ExitCode::from(130)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn flags_to_quick(f: &Flags) -> quick::QuickFlags {
    quick::QuickFlags {
        format: f.format.clone(),
        output: f.output.clone(),
        status_interval: f.status_interval,
        phase_time: f.phase_time.unwrap_or(3.0),
    }
}

fn start_unix_ms(_r: &RunResult) -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Run jobs with Ctrl-C handling and the live progress line; returns the result and whether
/// it was interrupted.
pub fn run_with_progress(
    jobs: &[iolab_job::Job],
    opts: &RunOptions,
    status_interval: Option<Duration>,
) -> anyhow::Result<(RunResult, bool)> {
    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let interrupted = interrupted.clone();
        // A second handler registration (tests, repeated runs) fails harmlessly.
        let _ = ctrlc::set_handler(move || {
            interrupted.store(true, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
        });
    }
    let progress = Arc::new(Progress::default());
    let done = Arc::new(AtomicBool::new(false));
    let show = std::io::stderr().is_terminal() || status_interval.is_some();
    let ticker = show.then(|| {
        let progress = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || quick::progress_loop(&progress, &done, status_interval))
    });
    let r = run_jobs(jobs, opts, stop, Some(progress));
    done.store(true, Ordering::SeqCst);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    let out = r?;
    let mut result = out.result;
    for p in logs::write_logs(Path::new("."), &result, &out.logs)? {
        result.notes.push(format!("log written: {}", p.display()));
    }
    for f in &out.files {
        if out.files.iter().filter(|g| g.job == f.job && g.clone == f.clone).count() > 1 {
            result.notes.push(format!(
                "job {}.{}: {}: {} I/Os, {} bytes",
                f.job,
                f.clone,
                f.path.display(),
                f.ios,
                f.bytes
            ));
        }
    }
    Ok((result, interrupted.load(Ordering::SeqCst)))
}
