//! iolab's built-in quick profile (`iolab run` with no job): six phases on one temporary file,
//! run as fio jobs separated by `stonewall` — sequential 1 MiB read and write at QD8, random
//! 4 KiB read and write at QD32 and QD1, each a short ramp and a few measured seconds — and
//! the one table that summarises them. Like CrystalDiskMark's default set, it answers "what
//! does this device do" in about 25 s. O_DIRECT where the filesystem supports it, io_uring
//! where the kernel has it (else buffered, or psync, with a note).

use iolab_stats::{LatStats, RunResult};
use std::path::{Path, PathBuf};

/// The profile's jobs as fio-style arguments, and what it chose.
#[derive(Debug)]
pub struct QuickPlan {
    /// The temporary file, in a private scratch directory removed however the run ends (drop,
    /// or the signal path through the gate's registry).
    pub file: PathBuf,
    pub scratch: iolab_core::gate::scratch::ScratchDir,
    pub args: Vec<String>,
    pub direct: bool,
    pub engine: &'static str,
    /// Why the profile runs buffered or on psync.
    pub notes: Vec<String>,
}

/// The prefix of the profile's scratch directories (`.iolab-quick-PID.RANDOM/`).
pub const SCRATCH_PREFIX: &str = ".iolab-quick-";

/// The plan for a file of `size` (fio size text) in `dir`, `secs` measured per phase. The
/// file lives in a new private directory (never a planted name or link); scratch left by a
/// killed run is reported in the notes.
pub fn plan(dir: &Path, size: &str, secs: f64) -> Result<QuickPlan, iolab_core::gate::GateError> {
    use iolab_core::gate::scratch;
    let mut notes = scratch::stale_notes(dir, SCRATCH_PREFIX);
    let scratch = scratch::ScratchDir::create(dir, SCRATCH_PREFIX)?;
    let file = scratch.path().join("quick.dat");
    let direct = iolab_engine::target::direct_supported(dir);
    let probe = iolab_engine::engines::uring::probe();
    let engine = if probe.is_ok() { "io_uring" } else { "psync" };
    if !direct {
        notes.push(format!(
            "{}: O_DIRECT is not supported here; running buffered, so reads may come from the \
             page cache",
            dir.display()
        ));
    }
    if let Err(e) = probe {
        notes.push(format!(
            "io_uring is not available ({e}); using psync, so every queue depth is 1"
        ));
    }
    let args = profile_args(&file, size, direct, engine, secs);
    Ok(QuickPlan { file, scratch, args, direct, engine, notes })
}

/// (job name, rw, bs, iodepth, label)
const PHASES: &[(&str, &str, &str, u32, &str)] = &[
    ("seq-read-1m-qd8", "read", "1m", 8, "seq read 1 MiB QD8"),
    ("seq-write-1m-qd8", "write", "1m", 8, "seq write 1 MiB QD8"),
    ("rand-read-4k-qd32", "randread", "4k", 32, "rand read 4 KiB QD32"),
    ("rand-write-4k-qd32", "randwrite", "4k", 32, "rand write 4 KiB QD32"),
    ("rand-read-4k-qd1", "randread", "4k", 1, "rand read 4 KiB QD1"),
    ("rand-write-4k-qd1", "randwrite", "4k", 1, "rand write 4 KiB QD1"),
];

/// The fio-style arguments of the profile.
pub fn profile_args(file: &Path, size: &str, direct: bool, engine: &str, secs: f64) -> Vec<String> {
    let ms = (secs * 1000.0).round().max(1.0) as u64;
    let mut a = vec![
        format!("--filename={}", file.display()),
        format!("--size={size}"),
        format!("--ioengine={engine}"),
        format!("--direct={}", direct as u8),
        "--time_based".to_string(),
        format!("--runtime={ms}ms"),
        format!("--ramp_time={}ms", (ms / 6).min(500)),
        "--norandommap".to_string(),
        "--randrepeat=0".to_string(),
    ];
    for (i, (name, rw, bs, qd, _)) in PHASES.iter().enumerate() {
        a.push(format!("--name={name}"));
        if i > 0 {
            a.push("--stonewall".to_string());
        }
        a.push(format!("--rw={rw}"));
        a.push(format!("--bs={bs}"));
        a.push(format!("--iodepth={qd}"));
        if *qd > 1 {
            a.push(format!("--iodepth_batch={}", qd / 4));
        }
    }
    a
}

fn pct(s: &LatStats, p: f64) -> Option<u64> {
    s.percentiles.iter().find(|x| (x.pct - p).abs() < 1e-9).map(|x| x.value)
}

fn fmt_ns(ns: Option<u64>) -> String {
    match ns {
        None => "-".to_string(),
        Some(n) if n < 10_000 => format!("{:.1} µs", n as f64 / 1e3),
        Some(n) if n < 10_000_000 => format!("{:.0} µs", n as f64 / 1e3),
        Some(n) => format!("{:.1} ms", n as f64 / 1e6),
    }
}

/// The one summary table: phase, IOPS, MB/s (10^6), p50 and p99 of completion latency.
pub fn table(r: &RunResult) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "{:<24} {:>10} {:>10} {:>10} {:>10}\n",
        "phase", "IOPS", "MB/s", "p50 lat", "p99 lat"
    ));
    for (name, _, _, _, label) in PHASES {
        let Some(j) = r.jobs.iter().find(|j| j.name == *name) else {
            o.push_str(&format!("{label:<24} {:>10}\n", "not run"));
            continue;
        };
        let d = if j.write.total_ios > 0 { &j.write } else { &j.read };
        let secs = d.runtime_ns.max(1) as f64 / 1e9;
        let iops = d.total_ios as f64 / secs;
        let mbs = d.io_bytes as f64 / secs / 1e6;
        o.push_str(&format!(
            "{label:<24} {iops:>10.0} {mbs:>10.1} {:>10} {:>10}\n",
            fmt_ns(pct(&d.lat, 50.0)),
            fmt_ns(pct(&d.lat, 99.0)),
        ));
    }
    for j in &r.jobs {
        if j.error != 0 {
            o.push_str(&format!(
                "{}: stopped by error {} ({})\n",
                j.name,
                j.error,
                std::io::Error::from_raw_os_error(j.error)
            ));
        }
    }
    o
}
