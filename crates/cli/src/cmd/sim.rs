//! `iolab sim`: the same workload through cache tiers and device models (iolab-model).
//!
//! Inputs: fio job files and fio-style options (`iolab sim job.fio`, `iolab sim --name=x
//! --rw=randread --bs=8k --size=100g --iodepth=1`), turned into request streams by
//! iolab-workload exactly as `iolab run` does; or a block trace (`--trace FILE`, any format iolab-trace reads), replayed at its
//! timestamps (open loop) or as fast as `--iodepth` allows; `--object-level` runs the trace
//! through bare eviction policies the way libCacheSim's `cachesim --ignore-obj-size 1` does and
//! prints miss ratios. The hierarchy comes from `--tier`/`--backing` strings or `--hierarchy
//! FILE.toml`. Jobs start together unless fio's `stonewall` or `wait_for` orders them; each
//! job's `runtime` counts from its own start.
//!
//! Output: the predicted jobs go through `iolab run`'s exporters as a `RunResult` with
//! `mode: simulated` (same text summary, same fio-shaped JSON and json+ bins), followed by
//! what only a model knows: per-tier hit ratios and counters, device utilisation, and the
//! fill / hit-ratio / IOPS series (text lines, or the JSON's `iolab_sim` object).

use anyhow::{bail, Context};
use iolab_core::IoRequest;
use iolab_model::device::PRESETS;
use iolab_model::policy::{self, Access, POLICIES};
use iolab_model::sim::{self, RequestSource, SimOptions, WorkerSpec};
use iolab_model::tier::{spec, Hierarchy};
use iolab_trace::{ReaderConfig, TraceReader, TraceRecord};
use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

#[derive(clap::Args)]
pub struct Args {
    /// Job files, fio-style options (--rw=randread …), and sim flags: --tier=SPEC (repeat),
    /// --backing=SPEC, --hierarchy=FILE, --trace=FILE, --trace-format=NAME,
    /// --trace-timing=trace|fast, --trace-iodepth=N, --object-level, --policy=LIST,
    /// --cache-size=LIST, --output-format=normal|json, --write-iolog=FILE, --list. See
    /// `iolab sim --list`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

const OWN_FLAGS: &[&str] = &[
    "tier=",
    "backing=",
    "hierarchy=",
    "trace=",
    "trace-format=",
    "trace-timing=",
    "trace-iodepth=",
    "object-level",
    "policy=",
    "cache-size=",
    "output-format=",
    "output=",
    "list",
    "write-iolog=",
];

#[derive(clap::Parser)]
#[command(name = "iolab sim", no_binary_name = false)]
struct SimArgs {
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
    /// Requests in flight when replaying a trace.
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
    /// Output format: normal, json, json+ or html (`iolab run`'s documents, with an `iolab_sim`
    /// section for the tiers, devices and series; --object-level: normal, json or html).
    #[arg(long, default_value = "normal", value_parser = ["normal", "json", "json+", "html"])]
    output_format: String,
    /// Write the result to FILE (atomically) instead of stdout.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write the jobs' request streams to FILE as a fio iolog v3 (fio `read_iolog`) before
    /// simulating; file names are those `iolab run` would use.
    #[arg(long)]
    write_iolog: Option<PathBuf>,
    /// List the eviction policies and device presets and exit.
    #[arg(long)]
    list: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    use clap::Parser;
    let split = iolab_job::split_fio_args(&args.rest, OWN_FLAGS);
    if let Some((f, _)) = split.flags.first() {
        bail!("--{f}: a fio flag `iolab sim` does not take (see `iolab sim --help`)");
    }
    let args = SimArgs::try_parse_from(std::iter::once("iolab sim".to_string()).chain(split.other))
        .map_err(|e| anyhow::anyhow!("{}", e.to_string().trim_end()))?;
    if args.list {
        println!("policies:");
        for p in POLICIES {
            let aliases = if p.aliases.is_empty() {
                String::new()
            } else {
                format!(" ({})", p.aliases.join(", "))
            };
            println!("  {:<10} {}{}", p.name, p.about, aliases);
        }
        println!("device presets:");
        for p in PRESETS {
            println!("  {:<14} {}", p.name, p.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let has_jobs = !split.job_files.is_empty() || !split.fio_options.is_empty();
    if has_jobs && args.trace.is_some() {
        bail!("give job files/options or --trace, not both");
    }
    if !has_jobs && args.trace.is_none() {
        bail!("nothing to simulate: give job files, fio-style options (--name=x --rw=randread …) or --trace=FILE");
    }
    if args.write_iolog.is_some() && !has_jobs {
        bail!("--write-iolog exports a job's requests; a --trace is already a trace");
    }
    if args.object_level {
        let Some(path) = args.trace.clone() else {
            bail!("--object-level needs --trace=FILE");
        };
        return object_level(&args, &path);
    }
    let (tiers, backing) = match &args.hierarchy {
        Some(h) => {
            let bytes = iolab_core::input::read_bounded(h, "hierarchy", 16 << 20)?;
            let text = String::from_utf8(bytes)
                .with_context(|| format!("hierarchy {}: not UTF-8 text", h.display()))?;
            spec::parse_toml(&text, &h.display().to_string())?
        }
        None => {
            let t = args
                .tiers
                .iter()
                .enumerate()
                .map(|(i, s)| spec::parse_tier(s, i))
                .collect::<Result<Vec<_>, _>>()?;
            (t, backing_spec(&args.backing)?)
        }
    };
    let mut h = Hierarchy::new(tiers, backing)?;
    if has_jobs {
        let opts = iolab_job::LoadOptions {
            files: split.job_files,
            cmdline: split.fio_options,
            sections: split.sections,
        };
        return simulate_jobs(&opts, &mut h, &args);
    }
    let Some(path) = args.trace.clone() else { bail!("nothing to simulate") };
    let reader = iolab_trace::open(&path, args.trace_format.as_deref(), &ReaderConfig::default())?;
    let error = Rc::new(RefCell::new(None));
    let source = TraceSource {
        reader,
        rec: TraceRecord::default(),
        timed: args.trace_timing == "trace",
        error: Rc::clone(&error),
    };
    let name =
        path.file_name().map_or_else(|| "trace".into(), |n| n.to_string_lossy().into_owned());
    if !(1..=65536).contains(&args.trace_iodepth) {
        bail!("--trace-iodepth={}: expected 1 to 65536 requests in flight", args.trace_iodepth);
    }
    let workers = vec![WorkerSpec::new(name, Box::new(source), args.trace_iodepth)];
    let report = sim::run(&mut h, workers, SimOptions::default());
    if let Some(e) = error.borrow_mut().take() {
        return Err(e).context("simulation stopped at a bad trace record");
    }
    print_report(report, &[], &args)
}

/// `--backing`: a device spec (`hdd:7200`), or a device profile file (a path: `*.toml` or
/// containing `/`; written by `iolab calibrate`).
pub(crate) fn backing_spec(arg: &str) -> anyhow::Result<iolab_model::tier::BackingSpec> {
    if !arg.ends_with(".toml") && !arg.contains('/') {
        return Ok(spec::parse_backing(arg)?);
    }
    let profile = load_profile(std::path::Path::new(arg))?;
    Ok(iolab_model::tier::BackingSpec {
        name: "profile".into(),
        device: iolab_model::device::DeviceSpec::Profile(Box::new(profile)),
        sparse: false,
    })
}

/// Reads a device profile (regular files only, bounded, UTF-8, strict TOML).
pub(crate) fn load_profile(
    path: &std::path::Path,
) -> anyhow::Result<iolab_model::device::profile::DeviceProfile> {
    let bytes = iolab_core::input::read_bounded(path, "device profile", 4 << 20)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("device profile {}: not UTF-8 text", path.display()))?;
    if text.trim().is_empty() {
        bail!(
            "device profile {}: empty (expected `version = 1` and the [read]/[write] tables)",
            path.display()
        );
    }
    Ok(iolab_model::device::profile::DeviceProfile::from_toml(&text, &path.display().to_string())?)
}

/// One job clone's place in the result: its group and options (for `group_reporting`).
struct JobMeta {
    groupid: u32,
    options: std::collections::BTreeMap<String, String>,
}

/// The report as `iolab run` prints it, plus the model's own sections.
fn print_report(
    mut report: sim::SimReport,
    meta: &[JobMeta],
    args: &SimArgs,
) -> anyhow::Result<ExitCode> {
    use iolab_stats::{RunMeta, RunMode, RunResult};
    let mut result = RunResult {
        meta: RunMeta {
            iolab_version: env!("CARGO_PKG_VERSION").to_string(),
            start_unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            command_line: std::env::args().collect(),
            interrupted: false,
            mode: RunMode::Simulated,
            percentile_list: SimOptions::default().percentiles,
            hostname: String::new(),
        },
        ..RunResult::default()
    };
    result.jobs = std::mem::take(&mut report.results);
    for (j, m) in result.jobs.iter_mut().zip(meta) {
        j.groupid = m.groupid;
        j.options = m.options.clone();
    }
    result.groups = iolab_stats::groups(&result.jobs, &result.meta.percentile_list);
    result.notes.push(
        "predicted by iolab sim (cache and device models), not measured; slat is not modelled"
            .to_string(),
    );
    let out = match args.output_format.as_str() {
        "normal" => {
            let mut out = iolab_report::exporter("normal")?.render(&result)?;
            out.extend(format!("\n{}", report.model_text()).as_bytes());
            out
        }
        "html" => super::report::sim_page(&result, &report)?,
        fmt => {
            let doc = iolab_report::exporter(fmt)?.render(&result)?;
            let mut v: serde_json::Value =
                serde_json::from_slice(&doc).context("re-reading the JSON document")?;
            if let Some(o) = v.as_object_mut() {
                o.insert("iolab_sim".to_string(), serde_json::to_value(&report)?);
            }
            let mut out = serde_json::to_vec_pretty(&v)?;
            out.push(b'\n');
            out
        }
    };
    emit(&out, args)?;
    Ok(ExitCode::SUCCESS)
}

/// To `--output` (atomically) or stdout.
fn emit(out: &[u8], args: &SimArgs) -> anyhow::Result<()> {
    match &args.output {
        Some(p) => iolab_report::write_atomic(p, out)?,
        None => {
            use std::io::Write;
            let mut s = std::io::stdout().lock();
            s.write_all(out).context("writing results to stdout")?;
            s.flush().context("writing results to stdout")?;
        }
    }
    Ok(())
}

/// One worker per job clone, each with the workload `iolab run` would issue.
fn simulate_jobs(
    opts: &iolab_job::LoadOptions,
    h: &mut Hierarchy,
    args: &SimArgs,
) -> anyhow::Result<ExitCode> {
    let parsed = iolab_job::load(opts)?;
    for w in &parsed.warnings {
        eprintln!("iolab: {w}");
    }
    if let Some(p) = &args.write_iolog {
        super::iolog_export::export(p, &parsed.jobs, super::iolog_export::Sizes::Declared)?;
    }
    let mut workers = Vec::new();
    let mut meta = Vec::new();
    let mut thread_number = 0u32;
    let mut layout = BackingLayout::default();
    for job in &parsed.jobs {
        // fio's ordering: stonewall waits for every earlier job, wait_for=NAME for that job's
        // clones; the rest start together.
        let mut after: Vec<usize> = Vec::new();
        if job.stonewall {
            after.extend(0..workers.len());
        }
        if let Some(name) = &job.wait_for {
            let before = after.len();
            after.extend((0..workers.len()).filter(|&i| meta_name(&workers, i) == name.as_str()));
            if after.len() == before {
                eprintln!(
                    "iolab: warning: job '{}': wait_for={name} names no earlier job; it starts \
                     at once",
                    job.name
                );
            }
        }
        let files = vec![iolab_workload::FileLayout { size: 0 }; job.nrfiles.max(1) as usize];
        for clone in 0..job.numjobs.max(1) {
            thread_number += 1;
            let input = iolab_workload::WorkerInput {
                job,
                clone_index: clone,
                thread_number,
                files: &files,
            };
            let wl = iolab_workload::Workload::new(&input)?;
            for w in wl.warnings() {
                eprintln!("iolab: job '{}': {w}", job.name);
            }
            let stop = wl.stop();
            let runtime = stop.runtime;
            // Each distinct file (fio's naming: shared `filename=`, else one per clone) has its
            // own region on the backing device; clones sharing a file share its region.
            let names = iolab_engine::runner::clone_files(job, clone);
            let bases = wl
                .regions()
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let name = names.get(i).cloned().unwrap_or_default();
                    layout.base(name, r.file_size.max(r.end))
                })
                .collect::<anyhow::Result<Vec<u64>>>()?;
            let mut spec = WorkerSpec::new(
                job.name.clone(),
                Box::new(WorkloadSource { wl, bases }),
                job.iodepth.max(1) as usize,
            );
            spec.after = after.clone();
            spec.runtime = runtime;
            spec.ramp = stop.ramp_time;
            // fsync=N / fdatasync=N (whichever comes first) and end_fsync, as the engine does.
            spec.sync_every = [job.opt_u64("fsync"), job.opt_u64("fdatasync")]
                .into_iter()
                .flatten()
                .filter(|&n| n > 0)
                .min()
                .unwrap_or(0);
            spec.end_sync = job.opt_bool("end_fsync").unwrap_or(false);
            workers.push(spec);
            meta.push(JobMeta {
                groupid: job.group_id,
                options: job.options.iter().map(|(k, v)| (k.clone(), v.raw.clone())).collect(),
            });
        }
    }
    let report = sim::run(h, workers, SimOptions::default());
    print_report(report, &meta, args)
}

fn meta_name(workers: &[WorkerSpec], i: usize) -> &str {
    workers.get(i).map_or("", |w| w.name.as_str())
}

struct WorkloadSource {
    wl: iolab_workload::Workload,
    /// Where each of the worker's files starts on the backing device.
    bases: Vec<u64>,
}

impl RequestSource for WorkloadSource {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        if !self.wl.next_into(req) {
            return false;
        }
        // In range by construction: `BackingLayout::base` checked base + size.
        req.offset += self.bases.get(req.file as usize).copied().unwrap_or(0);
        true
    }
}

/// The simulated jobs' files laid out one after another on the backing device, each distinct
/// file name once, 1 MiB aligned (as a filesystem would keep separate files apart).
#[derive(Default)]
struct BackingLayout {
    files: Vec<(std::path::PathBuf, u64, u64)>,
    next: u64,
}

impl BackingLayout {
    /// The start of `name`'s region, allocating `size` bytes for it on first sight (a later
    /// clone with a larger region grows nothing: fio sizes a shared file once).
    fn base(&mut self, name: std::path::PathBuf, size: u64) -> anyhow::Result<u64> {
        if let Some((_, base, _)) = self.files.iter().find(|(n, _, _)| *n == name) {
            return Ok(*base);
        }
        let base = self.next;
        let end =
            base.checked_add(size).and_then(|e| e.checked_next_multiple_of(1 << 20)).with_context(
                || format!("file {}: the jobs' files do not fit in 2^64 bytes", name.display()),
            )?;
        self.files.push((name, base, size));
        self.next = end;
        Ok(base)
    }
}

struct TraceSource {
    reader: Box<dyn TraceReader>,
    rec: TraceRecord,
    timed: bool,
    error: Rc<RefCell<Option<iolab_trace::TraceError>>>,
}

impl RequestSource for TraceSource {
    fn next_into(&mut self, req: &mut IoRequest) -> bool {
        match self.reader.read_into(&mut self.rec) {
            Ok(true) => {
                *req = self.rec.req;
                if !self.timed {
                    req.issue_at = None;
                }
                true
            }
            Ok(false) => false,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                false
            }
        }
    }
}

fn object_level(args: &SimArgs, path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let policies: Vec<&str> = args.policy.split(',').map(str::trim).collect();
    for p in &policies {
        policy::lookup(p)?;
    }
    let sizes = args
        .cache_size
        .split(',')
        .map(|s| {
            let s = s.trim();
            match s.parse::<usize>() {
                Ok(v) if v > 0 => Ok(v),
                _ => bail!("bad --cache-size `{s}`: expected a positive number of objects"),
            }
        })
        .collect::<anyhow::Result<Vec<usize>>>()?;
    // Object ids are keys here, not LBNs: no conversion to byte offsets (which could overflow).
    let cfg = ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() };
    let format = iolab_trace::open(path, args.trace_format.as_deref(), &cfg)?.format();
    for p in &policies {
        if policy::lookup(p)?.offline && format != "oracleGeneral" {
            bail!("policy `{p}` needs next-access times: use an oracleGeneral trace, not {format}");
        }
    }
    // One streaming pass per (policy, size), as libCacheSim's cachesim does: memory stays
    // the cache's own, and the timing includes reading the trace.
    let mut rows = Vec::new();
    for p in &policies {
        for &size in &sizes {
            let mut r = iolab_trace::open(path, args.trace_format.as_deref(), &cfg)?;
            let mut c = policy::build(p, size)?;
            let t0 = std::time::Instant::now();
            let (mut n, mut misses) = (0u64, 0u64);
            // Records are read and simulated in batches: one dynamic call each to the reader
            // and the policy per batch, and the policy prefetches each key's table bucket a
            // few requests ahead (a table bigger than L2 otherwise waits on DRAM every
            // request). Order and results are those of one `get` per record.
            const BATCH: usize = 256;
            let mut recs = vec![TraceRecord::default(); BATCH];
            let mut batch = Vec::with_capacity(BATCH);
            loop {
                let k = r.read_batch(&mut recs)?;
                if k == 0 {
                    break;
                }
                batch.clear();
                for rec in &recs[..k] {
                    // oracleGeneral's next access is a 1-based request number; -1 is never.
                    let next = rec.next_access;
                    let next_access = if next > 0 { next as u64 - 1 } else { policy::NEVER };
                    let write = rec.req.dir == iolab_core::IoDir::Write;
                    batch.push(Access { key: rec.obj_id, vtime: n, next_access, write });
                    n += 1;
                }
                misses += c.get_batch(&batch);
            }
            let secs = t0.elapsed().as_secs_f64();
            rows.push(serde_json::json!({
                "policy": c.name(),
                "cache_size": size,
                "requests": n,
                "misses": misses,
                "miss_ratio": misses as f64 / n.max(1) as f64,
                "requests_per_sec": n as f64 / secs.max(1e-9),
                "heap_bytes": c.heap_bytes(),
            }));
        }
    }
    use std::fmt::Write as _;
    let mut out = String::new();
    if args.output_format == "html" {
        out = super::report::page_of("sim --object-level", &rows)?;
    } else if args.output_format != "normal" {
        // json and json+ alike: the rows have no histograms to add.
        out = serde_json::to_string_pretty(&rows)?;
        out.push('\n');
    } else {
        let _ = writeln!(
            out,
            "{:<10} {:>10} {:>10} {:>10} {:>8} {:>12}",
            "policy", "size", "requests", "misses", "ratio", "Mreq/s"
        );
        for r in &rows {
            let _ = writeln!(
                out,
                "{:<10} {:>10} {:>10} {:>10} {:>8.4} {:>12.1}",
                r["policy"].as_str().unwrap_or(""),
                r["cache_size"].as_u64().unwrap_or(0),
                r["requests"].as_u64().unwrap_or(0),
                r["misses"].as_u64().unwrap_or(0),
                r["miss_ratio"].as_f64().unwrap_or(0.0),
                r["requests_per_sec"].as_f64().unwrap_or(0.0) / 1e6
            );
        }
    }
    emit(out.as_bytes(), args)?;
    Ok(ExitCode::SUCCESS)
}
