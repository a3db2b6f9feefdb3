//! `iolab sim`'s set-up: the hierarchy from `--tier`/`--backing` strings or a TOML file
//! (`tier::spec`'s grammar), the catalogue `--list` prints (every policy in `POLICIES`, every
//! device preset), and a set of jobs simulated whole ([`jobs::job_workers`] then [`run`]).

use std::path::{Path, PathBuf};

use iolab_job::Job;
use iolab_stats::topology::{dev_major, dev_minor};

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

/// The jobs through `h`; returns the report, each clone's place in the result and the
/// warnings (one line each, for stderr). Files take their declared sizes (a regular file is
/// predicted as the job would lay it out, whatever exists now); a job without a size on a
/// block device takes the device's size, read from sysfs (the node is never opened), or,
/// where the named device does not exist here (a prediction for another machine), the
/// backing device's capacity (a preset's, or the calibrated target's in a profile).
pub fn simulate_jobs(
    h: &mut Hierarchy,
    jobs: &[Job],
    file_names: &dyn Fn(&Job, u32) -> Vec<PathBuf>,
) -> Result<(SimReport, Vec<JobMeta>, Vec<String>), SimError> {
    let capacity = h.backing_capacity();
    let size = |p: &Path| device_size(p).unwrap_or_else(|| missing_device(p, capacity));
    let w = jobs::job_workers(jobs, file_names, &size)?;
    // A calibrated backing profile brings its host stage, as `run --predict` runs it.
    let opts = SimOptions { host: super::HostCpu::of_backing(h), ..SimOptions::default() };
    Ok((run(h, w.workers, opts), w.meta, w.warnings))
}

/// The size of the block device at `p` from `/sys/dev/block/MAJ:MIN/size` (512-byte sectors,
/// block/genhd.c `part_size_show`); `None` for anything else.
fn device_size(p: &Path) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let m = std::fs::metadata(p).ok()?;
    if !m.file_type().is_block_device() {
        return None;
    }
    let (maj, min) = (dev_major(m.rdev()), dev_minor(m.rdev()));
    let text = std::fs::read_to_string(format!("/sys/dev/block/{maj}:{min}/size")).ok()?;
    text.trim().parse::<u64>().ok()?.checked_mul(512)
}

/// A name under `/dev` that does not exist here: the backing device's capacity; 0 (declared
/// sizes only) for any other path.
fn missing_device(p: &Path, capacity: u64) -> u64 {
    if p.starts_with("/dev") && std::fs::symlink_metadata(p).is_err() {
        capacity
    } else {
        0
    }
}
