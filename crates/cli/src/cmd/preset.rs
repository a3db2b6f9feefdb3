//! `iolab preset list`, `iolab preset show NAME [--PARAM=VALUE…]`, and `--preset=NAME` of
//! `iolab run` and `iolab sim`: the preset registry (`iolab_job::preset`) turned into a job
//! file before the job loader runs, so `run` and `sim` read the same text that `show`
//! prints. With `--preset`, the parameters `--size`, `--runtime`, `--iodepth`, `--streams`,
//! `--rate`, `--filename` and `--directory` are the preset's (they scale every job of it);
//! any other job option is refused rather than silently overridden by the preset's own.
//!
//! The oltp preset's headline, the commit latency, is computed here from the result: the
//! `sync` latency of its log jobs without and with the checkpoint burst.

use anyhow::bail;
use iolab_job::preset::{self, Preset, Value, PRESETS};
use iolab_stats::{LatStats, RunResult};
use serde_json::json;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = HELP)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand)]
enum Cmd {
    /// The presets, one line each.
    List,
    /// The preset's fio job file, with its parameters filled in (fio reads it as it is).
    Show {
        /// The preset (`iolab preset list`).
        name: String,
        /// --size=SIZE --runtime=TIME --iodepth=N --streams=N --rate=IOPS --filename=PATH
        /// --directory=DIR, as `iolab run --preset=NAME` takes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "--PARAM=VALUE")]
        params: Vec<String>,
    },
}

const HELP: &str = "\
Examples:
  iolab preset list
  iolab preset show oltp --size=64m --runtime=10
  iolab run --preset=backup --size=16m --streams=4
  iolab sim --preset=backup --size=1g --backing=hdd:7200

`iolab run --preset=NAME` and `iolab sim --preset=NAME` run the job file `iolab preset show
NAME` prints, with the same --size, --runtime, --iodepth, --streams, --rate, --filename or
--directory; fio reads the printed file as it is (fio --parse-only FILE).";

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    match a.cmd {
        Cmd::List => {
            for p in PRESETS {
                println!("{:<11} {}", p.name, p.summary);
                println!("{:<11} parameters: {}", "", p.defaults);
            }
        }
        Cmd::Show { name, params } => {
            let p = preset::find(&name)?;
            let (rest, overrides) = take_params(&params)?;
            if let Some(a) = rest.first() {
                bail!("preset show: '{a}' is not a preset parameter (--{})", names());
            }
            print!("{}", preset::expand(p, &overrides)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A preset named on the command line, expanded.
pub struct Taken {
    pub preset: &'static Preset,
    pub text: String,
}

impl Taken {
    /// The expanded job file, parsed (errors name `preset NAME` and the line).
    pub fn parse(&self) -> Result<iolab_job::Parsed, iolab_job::JobError> {
        iolab_job::parse_str(&format!("preset {}", self.preset.name), &self.text)
    }
}

/// `rest` without `--preset=NAME` and the preset's parameters, and the preset expanded; `rest`
/// unchanged when it names no preset.
pub fn take(rest: &[String]) -> anyhow::Result<(Vec<String>, Option<Taken>)> {
    let mut name = None;
    let mut kept = Vec::with_capacity(rest.len());
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let value = if a == "--preset" {
            match it.next() {
                Some(v) if !v.starts_with("--") => Some(v.clone()),
                _ => bail!("--preset: needs a preset name (see `iolab preset list`)"),
            }
        } else {
            a.strip_prefix("--preset=").map(str::to_string)
        };
        match value {
            Some(_) if name.is_some() => bail!("--preset: given twice"),
            Some(v) => name = Some(v),
            None => kept.push(a.clone()),
        }
    }
    let Some(name) = name else {
        return Ok((rest.to_vec(), None));
    };
    let p = preset::find(&name)?;
    let (kept, overrides) = take_params(&kept)?;
    Ok((kept, Some(Taken { preset: p, text: preset::expand(p, &overrides)? })))
}

/// A preset's parameters as given (`size` → its parsed value), in order.
type Params = Vec<(String, Value)>;

/// The preset parameters out of `args` (`--size=64m` or `--size 64m`), parsed; the rest kept.
fn take_params(args: &[String]) -> anyhow::Result<(Vec<String>, Params)> {
    let is_param = |k: &str| preset::PARAMS.contains(&k) || k == preset::DIRECTORY;
    let (mut kept, mut params) = (Vec::new(), Params::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--") else {
            kept.push(a.clone());
            continue;
        };
        let (k, v) = match body.split_once('=') {
            Some((k, v)) if is_param(k) => (k, v.to_string()),
            None if is_param(body) => match it.next() {
                Some(v) if !v.starts_with("--") => (body, v.clone()),
                _ => bail!("--{body}: needs a value"),
            },
            _ => {
                kept.push(a.clone());
                continue;
            }
        };
        if params.iter().any(|(name, _)| name == k) {
            bail!("--{k}: given twice");
        }
        params.push((k.to_string(), preset::parse_param(k, &v)?));
    }
    Ok((kept, params))
}

fn names() -> String {
    let mut all = preset::PARAMS.to_vec();
    all.push(preset::DIRECTORY);
    all.join(", --")
}

/// With a preset, the arguments left over may be fio's flags only: a job file or a job
/// option would be overridden by the preset's own text or override it, silently.
pub fn refuse_job_options(t: &Taken, split: &iolab_job::SplitArgs) -> anyhow::Result<()> {
    let first = split.job_files.first().map(|f| f.display().to_string());
    if let Some(a) = first.or_else(|| split.fio_options.first().cloned()) {
        bail!(
            "--preset={}: '{a}' would change the preset's jobs; it takes --{} (for other \
             changes: iolab preset show {} > my.fio, edit, run my.fio)",
            t.preset.name,
            names(),
            t.preset.name
        );
    }
    Ok(())
}

/// The commit latency of a preset with commit jobs: the text block and the JSON section.
pub fn commit_latency(t: &Taken, result: &RunResult) -> Option<(String, serde_json::Value)> {
    let (quiet, burst) = t.preset.commit_jobs?;
    let pcts = &result.meta.percentile_list;
    let lat = |name: &str| -> Option<LatStats> {
        let mut jobs = result.jobs.iter().filter(|j| j.name == name);
        let first = jobs.next()?.sync.lat.clone();
        Some(jobs.fold(first, |acc, j| acc.merged(&j.sync.lat, pcts)))
    };
    let (q, b) = (lat(quiet)?, lat(burst)?);
    let row = |l: &LatStats| {
        let p = |x: f64| if l.n == 0 { 0 } else { l.percentile(x).value };
        (l.n, p(50.0), p(99.0), p(99.9))
    };
    let (rq, rb) = (row(&q), row(&b));
    let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
    let line = |what: &str, job: &str, r: (u64, u64, u64, u64)| {
        format!(
            "  {what:<20} {:>8} commits  p50 {:>10}  p99 {:>10}  p99.9 {:>10}  ({job})\n",
            r.0,
            ms(r.1),
            ms(r.2),
            ms(r.3)
        )
    };
    let mut text = String::from("\ncommit latency (the log's fdatasync):\n");
    text.push_str(&line("without checkpoint", quiet, rq));
    text.push_str(&line("during checkpoint", burst, rb));
    if rq.2 > 0 && rb.0 > 0 {
        text.push_str(&format!(
            "  the checkpoint burst multiplies p99 by {:.2} and p99.9 by {:.2}\n",
            rb.2 as f64 / rq.2 as f64,
            rb.3 as f64 / rq.3.max(1) as f64
        ));
    }
    let obj = |job: &str, r: (u64, u64, u64, u64)| json!({"job": job, "commits": r.0, "p50_ns": r.1, "p99_ns": r.2, "p99_9_ns": r.3});
    let value = json!({
        "preset": t.preset.name,
        "without_checkpoint": obj(quiet, rq),
        "with_checkpoint": obj(burst, rb),
    });
    Some((text, value))
}
