//! `iolab sim`: the same workload through cache tiers and device models (iolab-model).
//!
//! Inputs: fio job files and fio-style options, turned into request streams exactly as
//! `iolab run` does (`model::sim::jobs`); or a block trace (`--trace FILE`) replayed at its
//! timestamps or as fast as `--trace-iodepth` allows (`model::sim::source`);
//! `--object-level` runs the trace through bare eviction policies as libCacheSim's
//! `cachesim --ignore-obj-size 1` does (`model::sim::object`). Output: `iolab run`'s
//! exporters over the predicted `RunResult`, plus the model's tiers, devices and series.

use anyhow::bail;
use iolab_engine::iolog::Sizes;
use iolab_model::device::PRESETS;
use iolab_model::policy::POLICIES;
use iolab_model::sim::{self, jobs, object, setup, source, SimOptions};
use iolab_model::tier::Hierarchy;
use iolab_report::Extras;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = help())]
pub struct Args {
    #[command(flatten)]
    flags: Flags,
    /// Job files and fio-style options (`--name=x --rw=randread --bs=8k`), in any order
    /// with the flags above.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JOB|--OPTION=VALUE")]
    rest: Vec<String>,
}

/// The tier grammar, the names `--list` prints, and examples that run when pasted.
fn help() -> String {
    let names = |v: Vec<&str>| v.join(", ");
    format!(
        "Tier grammar: KIND:SIZE[:POLICY[:WRITE]][:key=value...], top tier first.
  KIND ram, ssd, nvme or hdd. SIZE in fio's units with kb_base=1024: GiB, gib, G and g are
  all 2^30 bytes (1GiB = 1G = 1073741824). WRITE writethrough, writeback or writearound.
  POLICY: {}.
Backing: KIND[:PRESET][:SIZE][:sparse]; PRESET: {}.

Examples:
  iolab sim --list
  iolab sim --name=x --rw=randread --bs=4k --size=64m --number_ios=2000 --tier=ram:16MiB:lru
  iolab sim --name=x --rw=randrw --size=64m --number_ios=2000 \\
      --tier=ram:8MiB:lru --tier=ssd:32MiB:lru:writeback --backing=hdd:7200",
        names(POLICIES.iter().map(|p| p.name).collect()),
        names(PRESETS.iter().map(|p| p.name).collect()),
    )
}

/// `iolab sim`'s own flags.
#[derive(clap::Args)]
pub struct Flags {
    /// A cache tier, top first: KIND:SIZE[:POLICY[:WRITE]][:key=value...], e.g. ram:1GiB:lru,
    /// ssd:4GiB:smq:writeback:block=256KiB. Repeat for a chain.
    #[arg(long = "tier")]
    tiers: Vec<String>,
    /// The device under the last tier: KIND[:PRESET][:SIZE][:sparse], e.g. hdd:7200, hdd:10k;
    /// profile:PRESET (a preset in profile form); or a device profile FILE.toml (`iolab
    /// calibrate`).
    #[arg(long, default_value = "hdd:7200")]
    backing: String,
    /// A TOML hierarchy ([[tier]] tables and a [backing] table) instead of --tier/--backing.
    #[arg(long, conflicts_with = "tiers")]
    hierarchy: Option<PathBuf>,
    /// Block trace to simulate.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Trace format name (default: detected from extension and content).
    #[arg(long)]
    trace_format: Option<String>,
    /// `trace`: issue each request at its timestamp; `fast`: as soon as a slot is free.
    #[arg(long, default_value = "trace", value_parser = ["trace", "fast"])]
    trace_timing: String,
    /// Requests in flight when replaying a trace (1 to 65536).
    #[arg(long, default_value_t = 32)]
    trace_iodepth: usize,
    /// Object-level policy simulation of the trace (every object size 1): miss ratios.
    #[arg(long)]
    object_level: bool,
    /// Policies for --object-level, comma-separated.
    #[arg(long, default_value = "lru")]
    policy: String,
    /// Cache sizes in objects for --object-level, comma-separated.
    #[arg(long, default_value = "1000")]
    cache_size: String,
    /// Output format: normal, json, json+ or html (`iolab run`'s documents, with an
    /// `iolab_sim` section; --object-level: normal, json or html).
    #[arg(long, default_value = "normal", value_parser = ["normal", "json", "json+", "html"])]
    output_format: String,
    /// Write the result to FILE (atomically) instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write the jobs' request streams to FILE as a fio iolog v3 before simulating.
    #[arg(long)]
    write_iolog: Option<PathBuf>,
    /// List the eviction policies and device presets and exit.
    #[arg(long)]
    list: bool,
}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    run_args(&super::raw_args()?)
}

/// `iolab sim` with `rest` as its arguments.
pub fn run_args(rest: &[String]) -> anyhow::Result<ExitCode> {
    let (split, args) = super::split_own::<Flags>("sim", rest)?;
    if let Some((f, _)) = split.flags.first() {
        bail!("--{f}: a fio flag `iolab sim` does not take (see `iolab sim --help`)");
    }
    if args.list {
        print!("{}", setup::catalogue());
        return Ok(ExitCode::SUCCESS);
    }
    let has_jobs = !split.job_files.is_empty() || !split.fio_options.is_empty();
    match (has_jobs, &args.trace) {
        (true, Some(_)) => bail!("give job files/options or --trace, not both"),
        (false, None) => bail!("nothing to simulate: give job files, fio-style options (--name=x --rw=randread …) or --trace=FILE"),
        (false, Some(_)) if args.write_iolog.is_some() => {
            bail!("--write-iolog exports a job's requests; a --trace is already a trace")
        }
        _ => {}
    }
    let output = args.output.as_deref();
    if args.object_level {
        let Some(path) = &args.trace else { bail!("--object-level needs --trace=FILE") };
        let policies: Vec<&str> = args.policy.split(',').map(str::trim).collect();
        let sizes = object::parse_sizes(&args.cache_size)?;
        let rows = object::simulate_objects(path, args.trace_format.as_deref(), &policies, &sizes)?;
        // json+ is json here: the rows have no histogram bins.
        let format = args.output_format.trim_end_matches('+');
        let page = super::report::doc_page("sim --object-level");
        let text = |r: &Vec<object::ObjectRow>| object::rows_text(r);
        let out = iolab_report::render_document(&rows, format, &text, None, Some(&page))?;
        iolab_report::render::write(&out, output)?;
        return Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from));
    }
    let mut h = setup::hierarchy(args.hierarchy.as_deref(), &args.tiers, &args.backing)?;
    let (mut report, meta) = match &args.trace {
        Some(path) if !has_jobs => {
            let t = source::TraceReplay {
                path,
                format: args.trace_format.as_deref(),
                timed: args.trace_timing == "trace",
                iodepth: args.trace_iodepth,
            };
            (source::simulate_trace(&mut h, &t)?, Vec::new())
        }
        _ => simulate_jobs(split, &mut h, &args)?,
    };
    let mut run_meta =
        super::meta_now(iolab_stats::RunMode::Simulated, SimOptions::default().percentiles);
    run_meta.interrupted = report.interrupted;
    let result = jobs::run_result(&mut report, &meta, run_meta);
    let model = serde_json::to_value(&report)?;
    let html = |r: &iolab_stats::RunResult, _: &[(&str, serde_json::Value)]| {
        super::report::html_sim(r, &model)
    };
    let x = Extras {
        after_normal: vec![format!("\n{}", report.model_text())],
        sections: vec![("iolab_sim", model.clone())],
        html: Some(&html),
        ..Extras::default()
    };
    iolab_report::render::render_to(&result, &args.output_format, &x, output)?;
    // 128 + the signal when a stop ended the simulation.
    Ok(iolab_core::stop::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from))
}

/// The jobs' workers through `h` (`model::sim::setup`), with their warnings on stderr.
fn simulate_jobs(
    split: iolab_job::SplitArgs,
    h: &mut Hierarchy,
    args: &Flags,
) -> anyhow::Result<(sim::SimReport, Vec<jobs::JobMeta>)> {
    let opts = iolab_job::LoadOptions {
        files: split.job_files,
        cmdline: split.fio_options,
        sections: split.sections,
    };
    let parsed = iolab_job::load(&opts)?;
    parsed.warnings.iter().for_each(|w| eprintln!("iolab: {w}"));
    if let Some(p) = &args.write_iolog {
        let notes = iolab_engine::iolog::export(p, &parsed.jobs, Sizes::Declared)?;
        notes.iter().for_each(|n| eprintln!("iolab: {n}"));
    }
    let files = iolab_engine::runner::clone_files;
    let (report, meta, warnings) = setup::simulate_jobs(h, &parsed.jobs, &files)?;
    warnings.iter().for_each(|n| eprintln!("iolab: {n}"));
    Ok((report, meta))
}
