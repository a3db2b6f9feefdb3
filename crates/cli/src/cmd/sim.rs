//! `iolab sim`: the same workload through cache tiers and device models (iolab-model).
//!
//! Inputs: fio job files and fio-style options, turned into request streams exactly as
//! `iolab run` does (`model::sim::jobs`); or a block trace (`--trace FILE`) replayed at its
//! timestamps or as fast as `--trace-iodepth` allows (`model::sim::source`);
//! `--object-level` runs the trace through bare eviction policies as libCacheSim's
//! `cachesim --ignore-obj-size 1` does (`model::sim::object`). Output: `iolab run`'s
//! exporters over the predicted `RunResult`, plus the model's tiers, devices and series.

use anyhow::bail;
use iolab_model::sim::flags::{help, Input, SimFlags};
use iolab_model::sim::{self, jobs, object, setup, source, SimOptions};
use iolab_model::tier::Hierarchy;
use iolab_report::export::html::{doc_page, sim_page};
use iolab_report::Extras;
use iolab_run::iolog::Sizes;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = help())]
pub struct Args {
    #[command(flatten)]
    flags: SimFlags,
    /// Job files and fio-style options (`--name=x --rw=randread --bs=8k`), in any order
    /// with the flags above; or `--preset=NAME` (`iolab preset list`) with its --size,
    /// --runtime, --iodepth, --streams, --rate, --filename, --directory.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JOB|--OPTION=VALUE")]
    rest: Vec<String>,
}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    run_args(&super::raw_args()?)
}

/// `iolab sim` with `rest` as its arguments.
pub fn run_args(rest: &[String]) -> anyhow::Result<ExitCode> {
    iolab_run::hosts::refuse_command("sim")?;
    let (rest, preset) = super::preset::take(rest)?;
    let (split, args) = super::split_own::<SimFlags>("sim", &rest)?;
    if let Some(t) = &preset {
        super::preset::refuse_job_options(t, &split)?;
    }
    if let Some((f, _)) = split.flags.first() {
        bail!("--{f}: a fio flag `iolab sim` does not take (see `iolab sim --help`)");
    }
    if args.list {
        print!("{}", setup::catalogue());
        return Ok(ExitCode::SUCCESS);
    }
    let has_jobs = preset.is_some() || !split.job_files.is_empty() || !split.fio_options.is_empty();
    let output = args.output.as_deref();
    let input = args.input(has_jobs)?;
    if let Input::Objects(path) = input {
        let rows = args.objects(path)?;
        // json+ is json here: the rows have no histogram bins.
        let format = args.output_format.trim_end_matches('+');
        let page = doc_page("sim --object-level");
        let text = |r: &Vec<object::ObjectRow>| object::rows_text(r);
        let out = iolab_report::render_document(&rows, format, &text, None, Some(&page))?;
        iolab_report::render::write(&out, output)?;
        return Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from));
    }
    let mut h = args.hierarchy()?;
    let (mut report, meta) = match input {
        Input::Trace(t) => (source::simulate_trace(&mut h, &t)?, Vec::new()),
        _ => simulate_jobs(split, preset.as_ref(), &mut h, &args)?,
    };
    let mut run_meta =
        super::meta_now(iolab_stats::RunMode::Simulated, SimOptions::default().percentiles);
    run_meta.interrupted = report.interrupted;
    // Before run_result takes the per-job results: the derived read amplification divides
    // by the bytes they returned (taken first, every text said 0.0x).
    let model_text = report.model_text();
    let result = jobs::run_result(&mut report, &meta, run_meta);
    let model = serde_json::to_value(&report)?;
    let html = |r: &iolab_stats::RunResult, _: &[(&str, serde_json::Value)]| sim_page(r, &model);
    let mut x = Extras {
        after_normal: vec![format!("\n{model_text}")],
        sections: vec![("iolab_sim", model.clone())],
        html: Some(&html),
        ..Extras::default()
    };
    if let Some((text, value)) =
        preset.as_ref().and_then(|t| super::preset::commit_latency(t, &result))
    {
        x.after_normal.insert(0, text);
        x.sections.push(("iolab_commit_latency", value));
    }
    iolab_report::render::render_to(&result, &args.output_format, &x, output)?;
    // 128 + the signal when a stop ended the simulation.
    Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from))
}

/// The jobs' workers through `h` (`model::sim::setup`), with their warnings on stderr.
fn simulate_jobs(
    split: iolab_job::SplitArgs,
    preset: Option<&super::preset::Taken>,
    h: &mut Hierarchy,
    args: &SimFlags,
) -> anyhow::Result<(sim::SimReport, Vec<jobs::JobMeta>)> {
    let opts = iolab_job::LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let parsed = match preset {
        Some(t) => t.parse()?,
        None => iolab_job::load(&opts)?,
    };
    parsed.warnings.iter().for_each(|w| eprintln!("iolab: {w}"));
    if let Some(p) = &args.write_iolog {
        let notes = iolab_run::iolog::export(p, &parsed.jobs, Sizes::Declared)?;
        notes.iter().for_each(|n| eprintln!("iolab: {n}"));
    }
    let files = iolab_engine::runner::clone_files;
    let (report, meta, warnings) = setup::simulate_jobs(h, &parsed.jobs, &files)?;
    warnings.iter().for_each(|n| eprintln!("iolab: {n}"));
    Ok((report, meta))
}
