//! `Job`: one resolved fio job (after `[global]` inheritance, `numjobs` not yet expanded),
//! typed. This is the contract between the job reader and everything downstream (workload,
//! engine, data, model). Fields are named after fio's options; defaults are fio's.
//!
//! Options that only one consumer needs and that are plain scalars (for example
//! `iodepth_batch_complete_max`) keep their typed value ([`OptionValue`]) in
//! [`Job::options`] and are read through the accessors in `typed.rs`
//! (`job.iodepth_batch_complete_max()`), whose defaults come from the registry; no crate
//! outside `job` looks an option up by name.

use iolab_core::{Nanos, PerDir};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `rw=` pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwKind {
    #[default]
    Read,
    Write,
    Trim,
    RandRead,
    RandWrite,
    RandTrim,
    /// `rw` / `readwrite`: mixed sequential.
    ReadWrite,
    RandRw,
    /// `trimwrite`: trim a block, then write it.
    TrimWrite,
    RandTrimWrite,
}

impl RwKind {
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwKind::RandRead
                | RwKind::RandWrite
                | RwKind::RandTrim
                | RwKind::RandRw
                | RwKind::RandTrimWrite
        )
    }
    pub fn has_read(self) -> bool {
        matches!(self, RwKind::Read | RwKind::RandRead | RwKind::ReadWrite | RwKind::RandRw)
    }
    pub fn has_write(self) -> bool {
        matches!(
            self,
            RwKind::Write
                | RwKind::RandWrite
                | RwKind::ReadWrite
                | RwKind::RandRw
                | RwKind::TrimWrite
                | RwKind::RandTrimWrite
        )
    }
    pub fn has_trim(self) -> bool {
        matches!(self, RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite)
    }
}

/// `rw_sequencer`: what happens between new random offsets when `rw=randX:N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwSequencer {
    #[default]
    Sequential,
    Identical,
}

/// Block sizes for one direction: `bs`/`bsrange` give `min..=max`; `bssplit` gives weighted
/// entries (non-empty `split` takes precedence, as in fio).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSizes {
    pub min: u64,
    pub max: u64,
    pub split: Vec<BsSplit>,
    /// `bsrange` set `min..=max`: a later `bs` leaves them (fio keeps `bs` apart from
    /// `min_bs`/`max_bs` and falls back to it only where no range was given, init.c
    /// `fixup_options`).
    #[serde(skip)]
    pub ranged: bool,
}

impl Default for BlockSizes {
    fn default() -> Self {
        BlockSizes { min: 4096, max: 4096, split: Vec::new(), ranged: false }
    }
}

/// One `bssplit` entry: block size and its share in percent (blank shares already resolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsSplit {
    pub bs: u64,
    pub perc: u32,
}

/// `size=`, `offset=`: bytes or a percentage of the file/device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeSpec {
    Bytes(u64),
    Percent(f64),
}

/// `random_generator`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RandomGenerator {
    #[default]
    Tausworthe,
    Tausworthe64,
    Lfsr,
}

/// One zone of `zoned` (`size` is a percentage of the region) or `zoned_abs` (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    /// Share of accesses, percent (integer in fio).
    pub access_pct: u32,
    /// Percent of the region for `zoned`, bytes for `zoned_abs`.
    pub size: f64,
}

/// `random_distribution`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Distribution {
    #[default]
    Random,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        dev: f64,
        center: Option<f64>,
    },
    Zoned(PerDir<Vec<Zone>>),
    ZonedAbs(PerDir<Vec<Zone>>),
}

/// iolab extension `hot_set=per_job|shared`: fio gives each job its own hot set (the
/// per-file seed includes the thread number); `shared` makes all clones use the same one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HotSet {
    #[default]
    PerJob,
    Shared,
}

/// `file_service_type`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileServiceKind {
    #[default]
    RoundRobin,
    Sequential,
    Random,
    Zipf(f64),
    Pareto(f64),
    Normal(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileService {
    pub kind: FileServiceKind,
    /// The `:N` suffix: I/Os issued to a file before switching (fio default 1).
    pub nr: u32,
}

impl Default for FileService {
    fn default() -> Self {
        FileService { kind: FileServiceKind::RoundRobin, nr: 1 }
    }
}

/// `rate_process`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateProcess {
    #[default]
    Linear,
    Poisson,
}

/// Where a resolved option's value came from, for `iolab parse` and error messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Origin {
    /// `file:line`, possibly inside a `[global]` section (`section` names it).
    File { file: String, line: u32, section: String },
    /// A `--name=value` argument on the command line (argument index).
    CommandLine { index: u32 },
    /// fio's default.
    Default,
}

/// An option's value, typed once by the registry's type for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    /// Sizes in bytes, already multiplied out under the `kb_base` in force.
    Size(u64),
    /// Times in nanoseconds.
    Time(Nanos),
    Float(f64),
    Str(String),
    /// Per-direction or other lists, element by element.
    List(Vec<OptionValue>),
}

/// One resolved option: canonical name, typed value, raw text and origin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedOption {
    pub value: OptionValue,
    pub raw: String,
    pub origin: Origin,
    /// When it was applied to the job (fio's `td->opt_list` order: the order written, after
    /// a job-file section's priority sort); see [`Job::options_in_order`].
    #[serde(skip)]
    pub seq: u32,
}

/// One fio job as written (before `numjobs` cloning).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// `name=` if given, else the section name.
    pub name: String,
    /// The `[section]` it came from.
    pub section: String,
    /// Index of the job file it came from (0 for the first file or the command line).
    pub file_index: u32,
    /// Reporting group id (`groupid` in fio's output).
    pub group_id: u32,

    // --- ordering and cloning
    pub numjobs: u32,
    /// Explicit `stonewall`, or the implicit one on the first job of every later job file.
    pub stonewall: bool,
    pub new_group: bool,
    pub wait_for: Option<String>,
    pub group_reporting: bool,

    // --- pattern
    pub rw: RwKind,
    /// `rw=randX:N`: issue N I/Os per new random offset (fio `ddir_seq_nr`, default 1).
    pub ddir_seq_nr: u32,
    /// `rw=X:size` for sequential modes: bytes skipped after each I/O (fio `ddir_seq_add`).
    pub ddir_seq_add: i64,
    pub rw_sequencer: RwSequencer,
    /// Percent of reads in mixed modes (`rwmixread`, or 100 − `rwmixwrite`; last one wins).
    pub rwmixread: u32,
    pub percentage_random: PerDir<u32>,

    // --- sizes
    pub bs: PerDir<BlockSizes>,
    pub bs_unaligned: bool,
    /// `blockalign`; 0 means "the direction's minimum block size".
    pub blockalign: PerDir<u64>,
    pub size: Option<SizeSpec>,
    /// `filesize` low..=high (equal unless a range was given).
    pub filesize: Option<(u64, u64)>,
    pub offset: SizeSpec,
    pub offset_increment: u64,
    pub io_size: Option<u64>,
    /// `io_size=N%`: a percentage of the region instead of bytes (then `io_size` is `None`).
    pub io_size_percent: Option<u32>,
    /// `offset_increment=N%`: a percentage of the region instead of bytes.
    pub offset_increment_percent: Option<u32>,
    pub number_ios: Option<u64>,
    pub loops: u32,

    // --- time
    pub time_based: bool,
    pub runtime: Option<Nanos>,
    pub ramp_time: Option<Nanos>,
    pub startdelay: (Nanos, Nanos),

    // --- randomness
    pub norandommap: bool,
    pub softrandommap: bool,
    pub random_generator: RandomGenerator,
    pub randseed: u64,
    /// Whether `randseed` was given explicitly (it overrides `randrepeat` since fio 3.35).
    pub randseed_set: bool,
    pub randrepeat: bool,
    pub random_distribution: Distribution,
    /// iolab extension `zipf_exact=1`: exact Zipf (rejection-inversion) instead of fio's
    /// Gray et al. approximation.
    pub zipf_exact: bool,
    /// iolab extension `hot_set=`.
    pub hot_set: HotSet,

    // --- files
    /// `filename=` split on unescaped `:` (`\:` already unescaped).
    pub filenames: Vec<String>,
    pub directory: Vec<String>,
    pub nrfiles: u32,
    pub filename_format: Option<String>,
    pub file_service: FileService,

    // --- pacing
    /// `rate` in bytes/s per direction (0 = none).
    pub rate: PerDir<u64>,
    pub rate_iops: PerDir<u64>,
    pub rate_process: RateProcess,
    /// `thinktime` (fio default unit µs; stored in ns).
    pub thinktime: Nanos,
    pub thinktime_spin: Nanos,
    pub thinktime_blocks: u32,

    // --- engine
    pub ioengine: String,
    pub iodepth: u32,
    pub direct: bool,
    pub thread: bool,

    // --- stop conditions
    /// `steadystate=` typed once, with the job's `kb_base` (`bw:10m` is bytes/s); read by the
    /// engine's steady-state monitor and carried into the result for the exporters.
    pub ss_criterion: iolab_stats::SsCriterion,

    /// Every option set for this job, canonical name → value and origin, including those
    /// typed above. Ignored options appear here too (with their warning already issued).
    pub options: BTreeMap<String, ResolvedOption>,
}

impl Job {
    /// A job with fio's defaults and the given name.
    pub fn with_defaults(name: &str) -> Self {
        Job {
            name: name.to_string(),
            section: name.to_string(),
            file_index: 0,
            group_id: 0,
            numjobs: 1,
            stonewall: false,
            new_group: false,
            wait_for: None,
            group_reporting: false,
            rw: RwKind::Read,
            ddir_seq_nr: 1,
            ddir_seq_add: 0,
            rw_sequencer: RwSequencer::Sequential,
            rwmixread: 50,
            percentage_random: PerDir::splat(100),
            bs: PerDir::splat(BlockSizes::default()),
            bs_unaligned: false,
            blockalign: PerDir::splat(0),
            size: None,
            filesize: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: 0,
            io_size: None,
            io_size_percent: None,
            offset_increment_percent: None,
            number_ios: None,
            loops: 1,
            time_based: false,
            runtime: None,
            ramp_time: None,
            startdelay: (Nanos::ZERO, Nanos::ZERO),
            norandommap: false,
            softrandommap: false,
            random_generator: RandomGenerator::Tausworthe,
            randseed: 0x89,
            randseed_set: false,
            randrepeat: true,
            random_distribution: Distribution::Random,
            zipf_exact: false,
            hot_set: HotSet::PerJob,
            filenames: Vec::new(),
            directory: Vec::new(),
            nrfiles: 1,
            filename_format: None,
            file_service: FileService::default(),
            rate: PerDir::splat(0),
            rate_iops: PerDir::splat(0),
            rate_process: RateProcess::Linear,
            thinktime: Nanos::ZERO,
            thinktime_spin: Nanos::ZERO,
            thinktime_blocks: 1,
            ioengine: "psync".to_string(),
            iodepth: 1,
            direct: false,
            thread: false,
            ss_criterion: iolab_stats::SsCriterion::FIO_DEFAULT,
            options: BTreeMap::new(),
        }
    }

    /// Every option set for this job in the order it was applied (inherited `[global]`
    /// options first), as fio's `json_add_job_opts` lists them.
    pub fn options_in_order(&self) -> impl Iterator<Item = (&str, &ResolvedOption)> {
        let mut v: Vec<_> = self.options.iter().map(|(k, o)| (k.as_str(), o)).collect();
        v.sort_by_key(|(_, o)| o.seq);
        v.into_iter()
    }

    /// The next [`ResolvedOption::seq`].
    pub fn next_seq(&self) -> u32 {
        self.options.values().map(|o| o.seq + 1).max().unwrap_or(0)
    }

    /// The typed value of an option if it was set (by file, command line or an inherited
    /// `[global]`).
    pub fn opt(&self, name: &str) -> Option<&OptionValue> {
        self.options.get(name).map(|o| &o.value)
    }

    pub fn opt_bool(&self, name: &str) -> Option<bool> {
        match self.opt(name)? {
            OptionValue::Bool(b) => Some(*b),
            OptionValue::Int(i) => Some(*i != 0),
            _ => None,
        }
    }

    pub fn opt_u64(&self, name: &str) -> Option<u64> {
        match self.opt(name)? {
            OptionValue::Int(i) => u64::try_from(*i).ok(),
            OptionValue::Size(s) => Some(*s),
            OptionValue::Time(t) => Some(t.0),
            OptionValue::Bool(b) => Some(*b as u64),
            _ => None,
        }
    }

    pub fn opt_str(&self, name: &str) -> Option<&str> {
        match self.opt(name)? {
            OptionValue::Str(s) => Some(s),
            _ => None,
        }
    }
}
