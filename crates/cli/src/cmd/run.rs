//! `iolab run [JOB…] [--name=value…] [--output-format=normal|json|json+|jsonl|csv]
//! [--output FILE] [--status-interval N] [--allow-destroy] [--prefill] [--cache-size SIZE]`:
//! real I/O, then the device view and the advice (crate `iolab-advice`).
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

use std::process::ExitCode;

use anyhow::{bail, Context};
use iolab_calibrate::versus;
use iolab_engine::runner::{ReadProbe, RunOptions};
use iolab_job::cmdline::fio_text;
use iolab_job::{LoadOptions, Parsed};
use iolab_model::device::profile::DeviceProfile;
use iolab_report::render::{Extras, Inner};
use iolab_run::flags::RunFlags;
use iolab_run::iolog::{self, Sizes};
use iolab_run::progress::{run_shown, Show};
use iolab_stats::RunResult;

mod measure;
mod mpi;
mod quick;
pub mod remote;

#[derive(clap::Args)]
#[command(after_help = HELP)]
pub struct Args {
    #[command(flatten)]
    flags: RunFlags,
    /// `--client` and its company (`cmd/server/client.rs` takes them first).
    #[command(flatten)]
    hosts: super::server::HostFlags,
    /// Job files and fio-style options (`--name=x --rw=randread --bs=4k`) with fio's global
    /// flags (--output-format=normal|json|json+|terse|jsonl|csv|html, --output=FILE,
    /// --status-interval=SECONDS, …), in any order with the flags above. No job: the quick
    /// profile (`--size=256m`, `--directory=DIR`). Or `--preset=NAME` (`iolab preset list`)
    /// with its --size, --runtime, --iodepth, --streams, --rate, --filename, --directory.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JOB|--OPTION=VALUE")]
    rest: Vec<String>,
}

const HELP: &str = "\
Examples:
  iolab run --size=64m --phase-time=0.5
  iolab run --name=x --rw=randread --bs=4k --size=16m --runtime=1 --filename=iolab.dat
  iolab run --name=x --rw=write --size=8m --filename=iolab.dat --output-format=json
  iolab run --preset=oltp --size=16m --runtime=1";

/// Who is speaking: iolab (advice, notes and progress on stderr) or fio (fio's output only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Personality {
    Iolab,
    Fio { argv0: String },
}

/// fio's global flags, the output formats in fio's order, iolab's own flags, and the preset
/// (`--preset`, expanded).
struct Flags {
    g: super::fio::Globals,
    formats: String,
    own: RunFlags,
    fio: bool,
    preset: Option<super::preset::Taken>,
    /// Under MPI: this rank's place and the stop the other ranks may set (`run/mpi.rs`).
    place: iolab_engine::runner::RankPlace,
    stop: Option<iolab_core::stop::Stop>,
    /// Each periodic snapshot to a host's interval stream (a server's job, an MPI rank with
    /// `--status-interval`) instead of fio's periodic reports; taken by the run.
    periodic: std::sync::Mutex<Option<iolab_remote::server::Periodic>>,
}

impl Flags {
    fn normal(&self) -> bool {
        self.formats.split(',').any(|f| f == "normal")
    }
}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    run_args(&super::raw_args()?, Personality::Iolab)
}

/// `iolab run` with `rest` as its arguments, speaking as `who`.
pub fn run_args(rest: &[String], who: Personality) -> anyhow::Result<ExitCode> {
    let fio = matches!(who, Personality::Fio { .. });
    if let Some(code) = super::server::intercept(rest, fio)? {
        return Ok(code);
    }
    let (rest, preset) = if fio { (rest.to_vec(), None) } else { super::preset::take(rest)? };
    let (split, own) = if fio {
        (iolab_job::split_fio_args(&rest, &[]), RunFlags::default())
    } else {
        super::split_own::<RunFlags>("run", &rest)?
    };
    if let Some(t) = &preset {
        super::preset::refuse_job_options(t, &split)?;
    }
    if let (true, Some(a)) = (fio, split.other.first()) {
        bail!("fio: unrecognized option '{a}'");
    }
    let g = super::fio::globals(&split.flags, fio)?;
    if let Some(a) = &g.action {
        let argv0 = match &who {
            Personality::Fio { argv0 } => argv0.as_str(),
            Personality::Iolab => "iolab run",
        };
        let answer = fio_text::action_text(a, argv0)?;
        eprint!("{}", answer.stderr);
        print!("{}", answer.stdout);
        return Ok(ExitCode::SUCCESS);
    }
    if g.showcmd {
        print!("{}", fio_text::showcmd(&split.job_files)?);
        return Ok(ExitCode::SUCCESS);
    }
    if fio {
        fio_text::refuse_unrecognized(&split.fio_options)?;
    }
    let formats = g.ordered_formats().join(",");
    iolab_report::render::check_formats(&formats, true)?;
    let flags = Flags {
        g,
        formats,
        own,
        fio,
        preset,
        place: Default::default(),
        stop: None,
        periodic: Default::default(),
    };
    // The start time is now, before the jobs are laid out (fio's `timestamp`).
    let started = super::meta_now(iolab_stats::RunMode::Measured, Vec::new());
    let has_job = !split.job_files.is_empty()
        || flags.preset.is_some()
        || split.fio_options.iter().any(|o| o.starts_with("--name=") || o == "--name");
    if let Some(env) = mpi::under_mpi(&flags)? {
        return mpi::run(env, has_job, split, flags, &started);
    }
    if !has_job {
        return quick(&split.fio_options, &flags);
    }
    let Some((opts, parsed, profile)) = load_jobs(split, &flags)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let m = measure::measure(&opts, &parsed, &flags, &started)?;
    let predicted = match &profile {
        Some(p) => Some((versus::predict(&parsed.jobs, p)?, p)),
        None => None,
    };
    let out = render(&m, &flags, &parsed.jobs, predicted.as_ref())?;
    iolab_report::render::write(&out, flags.g.output.as_deref())?;
    Ok(exit_code(&m.result, m.interrupted, fio))
}

/// No job: fio prints its usage; iolab runs the quick profile.
fn quick(fio_options: &[String], flags: &Flags) -> anyhow::Result<ExitCode> {
    if flags.fio {
        // fio with no job: its usage, exit 1 ("No job(s) defined").
        print!("{}", fio_text::usage("fio"));
        return Ok(ExitCode::from(1));
    }
    flags.own.check_quick()?;
    if let Some(p) = &flags.g.output {
        iolab_report::output::check(p, &[])?;
    }
    quick::run_quick(fio_options, flags)
}

/// The jobs as loaded, and the `--predict` profile.
type Loaded = (LoadOptions, Parsed, Option<DeviceProfile>);

/// The jobs, read and validated, and the `--predict` profile read; `None` when
/// `--parse-only` ends the run here.
fn load_jobs(split: iolab_job::SplitArgs, flags: &Flags) -> anyhow::Result<Option<Loaded>> {
    flags.own.check_jobs()?;
    if flags.own.prefill && flags.own.allow_destroy {
        eprintln!(
            "iolab: --prefill with --allow-destroy: block devices will be written before reads"
        );
    }
    let opts = LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let mut parsed = match &flags.preset {
        Some(t) => t.parse()?,
        None => iolab_job::load(&opts)?,
    };
    if let Some(gen) = flags.own.fio_seeds {
        parsed.jobs.iter_mut().for_each(|j| gen.apply_to(j));
    }
    super::fio::job_warnings(&parsed.warnings, flags.fio, flags.g.warnings_fatal)?;
    fio_text::refuse_writes(&flags.g, &parsed.jobs)?;
    let profile =
        flags.own.predict.as_deref().map(versus::load).transpose().context("--predict")?;
    Ok((!flags.g.parse_only).then_some((opts, parsed, profile)))
}

/// The output formats in fio's order (`report::render`); the prediction, the device view
/// and the advice after iolab's text.
fn render(
    m: &measure::Measured,
    flags: &Flags,
    jobs: &[iolab_job::Job],
    predicted: Option<&(RunResult, &DeviceProfile)>,
) -> anyhow::Result<Vec<u8>> {
    let (fio, result, advice) = (flags.fio, &m.result, &m.watched.advice);
    let html = iolab_report::export::html::run_page;
    let mut x = Extras {
        terse_version: flags.g.terse_version,
        fio,
        html: Some(&html),
        ..Extras::default()
    };
    if let Some((pr, p)) = predicted {
        let rows = versus::rows(result, pr);
        x.after_normal.push(versus::text(&rows, p, pr));
        x.sections.push(("iolab_predict", versus::json(&rows, p, pr)));
        x.inner = Some(Inner { section: "iolab_predict", key: "result", result: pr });
    }
    if let Some((text, value)) =
        flags.preset.as_ref().and_then(|t| super::preset::commit_latency(t, result))
    {
        x.after_normal.push(text);
        x.sections.push(("iolab_commit_latency", value));
    }
    if !fio {
        // After the summary: the depth issued beside what each device saw, then advice.
        let view = iolab_advice::render_device_view(result, &m.watched.evidence);
        x.after_normal.push(format!("\n{view}{}", iolab_advice::render_text(advice)));
    }
    // After --status-interval's reports the job header was written before them.
    let mut out = m.reported.clone().unwrap_or_default();
    if m.reported.is_none() && fio && flags.normal() {
        out.extend(super::fio::normal_header(jobs).as_bytes());
    }
    out.extend(iolab_report::render::render(result, &flags.formats, &x)?);
    if !fio && !flags.normal() {
        // Machine formats carry the advice in the result; a person still sees it on stderr.
        eprint!("{}", iolab_advice::render_text(advice));
    }
    Ok(out)
}

/// fio's exit status: 1 after an I/O error or a verify failure, 128 + N after a signal.
fn exit_code(result: &RunResult, interrupted: bool, fio: bool) -> ExitCode {
    let who = if fio { "fio" } else { "iolab" };
    for f in iolab_run::finish::verify_failures(result) {
        eprintln!("{who}: {f}");
    }
    if interrupted {
        eprintln!("iolab: interrupted; the results cover the time until the signal");
        ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
    } else if iolab_run::finish::failed(result) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
