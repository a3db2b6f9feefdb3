//! iolab-advice: checks that tell a user when a benchmark measured something other than what
//! they think it measured (never-written zeros, zero-run "compressibility", the page cache,
//! a queue depth the device never saw, no steady state, one slow device, a missed rate, a
//! CPU-bound load generator, coordinated omission).
//!
//! Each check lives in one file under `checks/` and is registered once in [`CHECKS`]. A check
//! reads a finished (or running) [`RunResult`] plus [`Evidence`], the facts the engine knows
//! beyond the result (sampled read contents, data layout, filesystem, engine settings, RAM,
//! device figures per phase). Detection heuristics and their sources are in
//! `shared/notes/peers-and-pitfalls.md` §7; each check file names its thresholds.
//!
//! ```
//! use iolab_advice::{check, render_text, Evidence, JobEvidence, ZeroReadSample};
//! use iolab_stats::{JobResult, RunResult};
//! let mut r = RunResult::default();
//! r.jobs.push(JobResult { name: "rr".into(), ..Default::default() });
//! r.jobs[0].read.io_bytes = 1 << 30;
//! let mut ev = Evidence::default();
//! ev.jobs.push(JobEvidence {
//!     zero_reads: Some(ZeroReadSample { sampled: 1000, all_zero: 998 }),
//!     ..Default::default()
//! });
//! let advice = check(&r, &ev);
//! assert_eq!(advice[0].id, "zero_reads");
//! assert!(render_text(&advice).contains("prefill"));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod checks;
pub mod evidence;
pub mod from_job;
pub mod render;
pub mod throttle;
pub mod watch;
pub mod zeroprobe;

pub use checks::{Check, CHECKS};
pub use evidence::{
    foreign_io, mem_total_bytes, parse_meminfo, Capability, DataFacts, Evidence, ForeignIo,
    JobEvidence, PhaseEvidence, QueueLimit, WriteAlloc, ZeroReadSample,
};
pub use from_job::job_evidence;
pub use iolab_stats::sstrack::{SsSpec, SsTracker};
pub use render::{render_brief, render_device_view, render_text};
pub use watch::{RunWatch, WatchConfig, WatchReport};
pub use zeroprobe::ZeroProbe;

use iolab_stats::RunResult;
use serde::Serialize;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Context the user should see (e.g. steady state reached).
    Info,
    /// The numbers probably do not mean what the user thinks.
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    /// The check's id (`zero_reads`, `page_cache`, …), stable for scripts.
    pub id: &'static str,
    pub severity: Severity,
    /// What it is about: `job 'name'`, `group 0`, `device loop3`.
    pub subject: String,
    /// One line.
    pub title: String,
    /// The measured numbers that triggered it.
    pub evidence: String,
    /// Why it makes the result misleading.
    pub why: String,
    pub what_to_do: String,
}

/// Run every registered check; findings come in registry order, warnings of one check before
/// its infos.
pub fn check(result: &RunResult, ev: &Evidence) -> Vec<Advice> {
    let mut out = Vec::new();
    for c in CHECKS {
        let mut v = (c.run)(result, ev);
        v.sort_by_key(|a| std::cmp::Reverse(a.severity));
        out.extend(v);
    }
    out
}

/// The findings as JSON values, for `RunResult::advice`.
pub fn to_json(advice: &[Advice]) -> Vec<serde_json::Value> {
    advice.iter().filter_map(|a| serde_json::to_value(a).ok()).collect()
}
