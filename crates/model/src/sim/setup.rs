//! `iolab sim`'s set-up: the hierarchy from `--tier`/`--backing` strings or a TOML file
//! (`tier::spec`'s grammar), the catalogue `--list` prints (every policy in `POLICIES`, every
//! device preset), and a set of jobs simulated whole ([`jobs::job_workers`] then [`run`]).

use std::path::{Path, PathBuf};

use iolab_job::Job;

use super::jobs::{self, JobMeta};
use super::{run, SimOptions, SimReport};
use crate::device::PRESETS;
use crate::policy::POLICIES;
use crate::tier::{spec, Hierarchy};
use crate::{ModelError, SimError};

/// The policies and device presets, as `iolab sim --list` prints them.
pub fn catalogue() -> String {
    let mut s = String::from("policies:\n");
    for p in POLICIES {
        let aliases = match p.aliases {
            [] => String::new(),
            a => format!(" ({})", a.join(", ")),
        };
        s.push_str(&format!("  {:<10} {}{}\n", p.name, p.about, aliases));
    }
    s.push_str("device presets:\n");
    for p in PRESETS {
        s.push_str(&format!("  {:<14} {}\n", p.name, p.about));
    }
    s
}

/// The hierarchy from a TOML file (`[[tier]]` tables and a `[backing]` table, at most
/// 16 MiB), else from the `--tier` strings (top first) and the `--backing` string.
pub fn hierarchy(
    toml: Option<&Path>,
    tiers: &[String],
    backing: &str,
) -> Result<Hierarchy, ModelError> {
    let (tiers, backing) = match toml {
        Some(h) => {
            let bytes = iolab_core::input::read_bounded(h, "hierarchy", 16 << 20)?;
            let path = h.display().to_string();
            let text = String::from_utf8(bytes).map_err(|_| ModelError::Config {
                path: path.clone(),
                why: "not UTF-8 text".into(),
            })?;
            spec::parse_toml(&text, &path)?
        }
        None => {
            let t = tiers.iter().enumerate().map(|(i, s)| spec::parse_tier(s, i));
            (t.collect::<Result<Vec<_>, _>>()?, spec::parse_backing_or_profile(backing)?)
        }
    };
    Hierarchy::new(tiers, backing)
}

/// The jobs through `h` (declared file sizes, as nothing exists yet); returns the report,
/// each clone's place in the result and the warnings (one line each, for stderr).
pub fn simulate_jobs(
    h: &mut Hierarchy,
    jobs: &[Job],
    file_names: &dyn Fn(&Job, u32) -> Vec<PathBuf>,
) -> Result<(SimReport, Vec<JobMeta>, Vec<String>), SimError> {
    let w = jobs::job_workers(jobs, file_names, &|_| 0)?;
    // A calibrated backing profile brings its host stage, as `run --predict` runs it.
    let opts = SimOptions { host: super::HostCpu::of_backing(h), ..SimOptions::default() };
    Ok((run(h, w.workers, opts), w.meta, w.warnings))
}
