//! Typed accessors for the options that have no field of their own in [`Job`]: each returns
//! the value the job set (by file, command line or an inherited `[global]`) or, when unset,
//! the registry entry's default (`OptionDef::default`, fio's), typed by the entry's own type.
//! Choice options come back as enums. Crates outside `job` read options only through these
//! accessors and [`Job`]'s fields, never by name (a test in `tests/it/lookups.rs` scans them).
//!
//! Sources: fio options.c (the defaults and choices the registry carries), init.c
//! `setup_log` (log file prefixes: the option's value, or the job name when bare).

use crate::registry;
use crate::spec::{Job, OptionValue};
use crate::value;
use iolab_core::units::KbBase;
use iolab_core::Nanos;

/// `clocksource=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    Gettimeofday,
    ClockGettime,
    Cpu,
}

/// `log_window_value=`: what a windowed log line holds (fio `io_log_window_value`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogWindow {
    #[default]
    Avg,
    Max,
    Both,
}

/// `sync=`: the open flag fio adds (filesetup.c `file_open_flags`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncMode {
    #[default]
    None,
    Sync,
    Dsync,
}

/// `stat_type=` of the filestat/dirstat engines (fio engines/fileoperations.c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatType {
    #[default]
    Stat,
    Lstat,
    Statx,
}

/// `unified_rw_reporting=` (fio `UNIFIED_SPLIT`, `UNIFIED_MIXED`, `UNIFIED_BOTH`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnifiedRw {
    #[default]
    None,
    Mixed,
    Both,
}

/// Options the registry accepts as supported that the engine does not act on, each with the
/// note a run prints when a job sets it (so nothing is ignored silently).
pub const ENGINE_UNACTED: &[(&str, &str)] = &[
    ("hipri", "not acted on: completions are interrupt driven (no IORING_SETUP_IOPOLL)"),
    ("uncached", "acted on by ioengine=pvsync2 only: this engine ran cached"),
    ("userspace_reap", "not needed: completions are reaped with io_getevents"),
    ("create_on_open", "not acted on: files are created during setup, before the job"),
    (
        "fallocate",
        "not acted on: new files are extended with ftruncate (sparse) or laid out by writing",
    ),
];

/// The [`ENGINE_UNACTED`] options the pvsync2 engine acts on.
const PVSYNC2_ACTED: &[&str] = &["hipri", "uncached"];

/// Declares a `bool` accessor per option: set value, else the registry default.
macro_rules! flags {
    ($($(#[$m:meta])* $f:ident => $name:literal;)*) => {
        impl Job { $( $(#[$m])* pub fn $f(&self) -> bool { self.flag($name) } )* }
        const FLAG_NAMES: &[&str] = &[$($name),*];
    };
}

/// Declares a `u64` accessor per option: set value, else the registry default (0 if none).
macro_rules! counts {
    ($($(#[$m:meta])* $f:ident => $name:literal;)*) => {
        impl Job { $( $(#[$m])* pub fn $f(&self) -> u64 { self.count($name) } )* }
        const COUNT_NAMES: &[&str] = &[$($name),*];
    };
}

/// Declares an `Option<u64>` accessor per option: `Some` only when the job set it.
macro_rules! given {
    ($($(#[$m:meta])* $f:ident => $name:literal;)*) => {
        impl Job { $( $(#[$m])* pub fn $f(&self) -> Option<u64> { self.opt_u64($name) } )* }
        const GIVEN_NAMES: &[&str] = &[$($name),*];
    };
}

flags! {
    /// `invalidate` (default 1): drop the page cache of the files before the job.
    invalidate => "invalidate";
    /// `do_verify` (default 1): run the verify phase after the writes.
    do_verify => "do_verify";
    verify_only => "verify_only";
    verify_fatal => "verify_fatal";
    /// `disk_util` (default 1): report the devices' utilisation.
    disk_util => "disk_util";
    /// `unlink` (default 0): delete the job's files when it ends.
    unlink => "unlink";
    /// `unique_filename` (default 1): fio's test for clones writing files of their own.
    unique_filename => "unique_filename";
    /// `exitall` (default 0): when the job ends, stop the jobs of its `exit_what` scope.
    exitall => "exitall";
    /// `per_job_logs` (default 1): one log file per job; 0: the jobs of a prefix share one.
    per_job_logs => "per_job_logs";
    /// `allow_file_create` (default 1).
    allow_file_create => "allow_file_create";
    allow_mounted_write => "allow_mounted_write";
    end_fsync => "end_fsync";
    /// `gtod_reduce`: turns every latency off (options.c `str_gtod_reduce_cb`).
    gtod_reduce => "gtod_reduce";
    disable_slat => "disable_slat";
    disable_clat => "disable_clat";
    disable_lat => "disable_lat";
    disable_bw_measurement => "disable_bw_measurement";
    log_offset => "log_offset";
    /// `log_prio`: the prio column holds the full ioprio value.
    log_prio => "log_prio";
    /// `log_store_compressed`: logs written as fio's `.fz`.
    log_store_compressed => "log_store_compressed";
    overwrite => "overwrite";
    sqthread_poll => "sqthread_poll";
    /// `std_redirect` (default 1): exec's output to `NAME.stdout`/`NAME.stderr`.
    std_redirect => "std_redirect";
    /// `hipri`: polled completions (pvsync2's RWF_HIPRI).
    hipri => "hipri";
    slat_percentiles => "slat_percentiles";
    /// `clat_percentiles` (default 1).
    clat_percentiles => "clat_percentiles";
    lat_percentiles => "lat_percentiles";
    /// `rate_ignore_thinktime`: a think pause moves the rate schedule on.
    rate_ignore_thinktime => "rate_ignore_thinktime";
}

counts! {
    /// `iodepth_batch` (default 1).
    iodepth_batch => "iodepth_batch";
    /// `iodepth_batch_complete_min` (default 1).
    iodepth_batch_complete_min => "iodepth_batch_complete_min";
    /// `fsync=N`: an fsync every N writes (0: none).
    fsync_every => "fsync";
    /// `fdatasync=N`: an fdatasync every N writes (0: none).
    fdatasync_every => "fdatasync";
    log_avg_msec => "log_avg_msec";
    /// `log_hist_coarseness` (default 0): histogram bins merged by 2^N in the log.
    log_hist_coarseness => "log_hist_coarseness";
    /// `grace_time` (default 1 s): exec's wait between SIGTERM and SIGKILL.
    grace_time => "grace_time";
    /// `cpuload` (percent of a CPU the cpuio engine burns; 0: refused by the engine).
    cpuload => "cpuload";
    /// `cpuchunks` (default 50000 µs): the cpuio engine's burn cycle.
    cpuchunks => "cpuchunks";
    /// `uncached` (default 0): RWF_DONTCACHE for pvsync2.
    uncached => "uncached";
    /// `verify_backlog=N`: verify after every N blocks written (0: after the writes).
    verify_backlog => "verify_backlog";
    /// `verify_backlog_batch` (0: `verify_backlog`): blocks verified per backlog round.
    verify_backlog_batch => "verify_backlog_batch";
}

given! {
    iodepth_batch_complete_max => "iodepth_batch_complete_max";
    /// `iodepth_low` (fio: defaults to `iodepth`).
    iodepth_low => "iodepth_low";
    /// `bwavgtime`, when written.
    bwavgtime => "bwavgtime";
    /// `iopsavgtime`, when written.
    iopsavgtime => "iopsavgtime";
    /// `prio` (ioprio level), when written.
    prio => "prio";
    /// `prioclass` (ioprio class), when written.
    prioclass => "prioclass";
    /// `openfiles`, when written (the file-operation engines only; others refuse it).
    openfiles => "openfiles";
}

/// Every option name the accessors above read (a test checks each is a canonical entry).
pub fn accessed_names() -> impl Iterator<Item = &'static str> {
    FLAG_NAMES.iter().chain(COUNT_NAMES).chain(GIVEN_NAMES).chain(OTHER_NAMES).copied()
}

/// Names read by the hand-written accessors below.
const OTHER_NAMES: &[&str] = &[
    "log_hist_msec",
    "stat_type",
    "cpumode",
    "program",
    "arguments",
    "kb_base",
    "fixedbufs",
    "registerfiles",
    "clocksource",
    "log_window_value",
    "sync",
    "unified_rw_reporting",
    "continue_on_error",
    "description",
    "percentile_list",
    "write_lat_log",
    "write_bw_log",
    "write_iops_log",
    "write_hist_log",
    "verify",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "steadystate_check_interval",
    "write_iolog",
    "iolab_fio_seeds",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "thinktime_iotime",
    "zonemode",
    "zonesize",
    "zonerange",
    "zoneskip",
];

/// `zonemode=strided`'s zones, in bytes, as fio 3.33's init.c `fixup_options` settles them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedZones {
    /// `zonesize`: bytes done in a zone before the next.
    pub size: u64,
    /// `zonerange` (`zonesize` when 0): the zone's width.
    pub range: u64,
    /// `zoneskip`: the gap between zones.
    pub skip: u64,
}

impl Job {
    /// The strided zones, `None` without `zonemode=strided`. As fio 3.33 (init.c
    /// `fixup_options`): a `zonesize` under `zonemode=none` (the default) is an error, so is
    /// `zonemode=strided` without one; `zonerange` 0 takes `zonesize`; `zoneskip=Nz` is N
    /// zones of `zonesize`.
    pub fn strided_zones(&self) -> Result<Option<StridedZones>, crate::JobErrorKind> {
        let bad = |name: &str, expected: &str| crate::JobErrorKind::BadValue {
            name: name.to_string(),
            value: self.options.get(name).map(|o| o.raw.clone()).unwrap_or_default(),
            expected: expected.to_string(),
        };
        let size = self.count("zonesize");
        if self.opt_str("zonemode").map(str::trim) != Some("strided") {
            return match size {
                0 => Ok(None),
                _ => Err(bad("zonesize", "0 unless zonemode=strided (fio 3.33: \"--zonemode=none and --zonesize are not compatible\")")),
            };
        }
        if size == 0 {
            return Err(bad("zonemode", "a zonesize above 0 with zonemode=strided"));
        }
        let range = match self.count("zonerange") {
            0 => size,
            r => r,
        };
        let skip = match self.opt("zoneskip") {
            Some(OptionValue::Str(s)) => {
                match value::parse_zoneskip("zoneskip", s, self.kb_base())? {
                    value::ZoneSkip::Bytes(b) => b,
                    value::ZoneSkip::Zones(n) => n
                        .checked_mul(size)
                        .ok_or_else(|| bad("zoneskip", "zones times zonesize below 2^64 bytes"))?,
                }
            }
            _ => self.count("zoneskip"),
        };
        Ok(Some(StridedZones { size, range, skip }))
    }
}

impl Job {
    /// `continue_on_error` as given (`none`, `read`, `write`, `io`, `verify`, `all`, `0`, `1`).
    pub fn continue_on_error_kind(&self) -> Option<&str> {
        self.opt_str("continue_on_error")
    }

    /// `exit_what` as given (`group`, `stonewall`, `all`): the scope `exitall` ends.
    pub fn exit_what(&self) -> Option<&str> {
        self.opt_str("exit_what")
    }

    /// The registry default of `name`, typed by its entry.
    fn default_value(name: &str) -> Option<OptionValue> {
        let def = registry::lookup(name)?;
        if def.default.is_empty() {
            return None;
        }
        value::typed(def, Some(def.default), KbBase::K1024).ok()
    }

    /// The set value, else the registry default.
    fn value_or_default(&self, name: &str) -> Option<OptionValue> {
        self.opt(name).cloned().or_else(|| Self::default_value(name))
    }

    fn flag(&self, name: &str) -> bool {
        match self.value_or_default(name) {
            Some(OptionValue::Bool(b)) => b,
            Some(OptionValue::Int(i)) => i != 0,
            _ => false,
        }
    }

    fn count(&self, name: &str) -> u64 {
        match self.value_or_default(name) {
            Some(OptionValue::Int(i)) => u64::try_from(i).unwrap_or(0),
            Some(OptionValue::Size(s)) => s,
            Some(OptionValue::Time(t)) => t.0,
            Some(OptionValue::Bool(b)) => u64::from(b),
            _ => 0,
        }
    }

    fn text(&self, name: &str) -> Option<String> {
        match self.value_or_default(name)? {
            OptionValue::Str(s) => Some(s.trim().to_string()),
            OptionValue::Int(i) => Some(i.to_string()),
            _ => None,
        }
    }

    fn time(&self, name: &str) -> Nanos {
        match self.value_or_default(name) {
            Some(OptionValue::Time(t)) => t,
            Some(OptionValue::Int(i)) => u64::try_from(i).map_or(Nanos::ZERO, Nanos::from_secs),
            _ => Nanos::ZERO,
        }
    }

    /// The `kb_base` in force: what the job set (1000 or 1024), else fio's 1024.
    pub fn kb_base(&self) -> KbBase {
        if self.text("kb_base").as_deref() == Some("1000") {
            KbBase::K1000
        } else {
            KbBase::K1024
        }
    }

    /// `fixedbufs`, when written (the engine picks its own default otherwise).
    pub fn fixedbufs(&self) -> Option<bool> {
        self.opt_bool("fixedbufs")
    }

    /// `registerfiles`, when written.
    pub fn registerfiles(&self) -> Option<bool> {
        self.opt_bool("registerfiles")
    }

    /// `clocksource`, when written (the engine picks the host's best otherwise).
    pub fn clocksource(&self) -> Option<ClockSource> {
        match self.opt_str("clocksource")?.trim() {
            "gettimeofday" => Some(ClockSource::Gettimeofday),
            "clock_gettime" => Some(ClockSource::ClockGettime),
            "cpu" => Some(ClockSource::Cpu),
            _ => None,
        }
    }

    pub fn log_window_value(&self) -> LogWindow {
        match self.text("log_window_value").as_deref() {
            Some("max" | "1") => LogWindow::Max,
            Some("both" | "2") => LogWindow::Both,
            _ => LogWindow::Avg,
        }
    }

    /// `log_hist_msec` (default 0): the period of `write_hist_log`'s histogram copies, as
    /// fio 3.33 stores it: an `unsigned int`, so `-5` is 4294967291 ms (about 50 days: the
    /// log stays empty) and 2^32 is 0 (no histograms); fio accepts both.
    pub fn log_hist_msec(&self) -> u64 {
        match self.value_or_default("log_hist_msec") {
            Some(OptionValue::Int(i)) => u64::from(i as u32),
            _ => 0,
        }
    }

    /// The ioprio value fio sets when `prio` or `prioclass` is given (backend.c
    /// `ioprio_value(class, prio)`: class << 13 | level; fio 3.33 logs 0x4004 for `prio=4`
    /// alone, so the class is best-effort (2) then, and the level 0 for `prioclass` alone).
    pub fn ioprio(&self) -> Option<u16> {
        if self.prio().is_none() && self.prioclass().is_none() {
            return None;
        }
        let class = self.prioclass().unwrap_or(2).min(7) as u16;
        let level = self.prio().unwrap_or(0).min(0x1fff) as u16;
        Some(class << 13 | level)
    }

    /// `program` of the exec engine, when set.
    pub fn program(&self) -> Option<String> {
        self.text("program").filter(|s| !s.is_empty())
    }

    /// `arguments` of the exec engine (with fio's `%r`/`%n`), when set.
    pub fn arguments(&self) -> Option<String> {
        self.text("arguments")
    }

    /// `cpumode=qsort` (default noop): the cpuio engine sorts instead of spinning.
    pub fn cpumode_qsort(&self) -> bool {
        self.text("cpumode").as_deref() == Some("qsort")
    }

    /// `stat_type` (default stat): the call the filestat/dirstat engines time.
    pub fn stat_type(&self) -> StatType {
        match self.text("stat_type").as_deref() {
            Some("lstat") => StatType::Lstat,
            Some("statx") => StatType::Statx,
            _ => StatType::Stat,
        }
    }

    pub fn sync_mode(&self) -> SyncMode {
        match self.text("sync").as_deref() {
            Some("sync" | "1") => SyncMode::Sync,
            Some("dsync") => SyncMode::Dsync,
            _ => SyncMode::None,
        }
    }

    pub fn unified_rw_reporting(&self) -> UnifiedRw {
        match self.text("unified_rw_reporting").as_deref() {
            Some("mixed" | "1") => UnifiedRw::Mixed,
            Some("both" | "2") => UnifiedRw::Both,
            _ => UnifiedRw::None,
        }
    }

    /// Whether `continue_on_error` asks to go on after an error (anything but `none`/`0`).
    pub fn continue_on_error(&self) -> bool {
        self.text("continue_on_error").is_some_and(|c| !matches!(c.as_str(), "none" | "0"))
    }

    /// `percentile_list` when the job set it (fio reports the job's own list).
    pub fn percentile_list(&self) -> Option<Vec<f64>> {
        match self.opt("percentile_list")? {
            OptionValue::Float(f) => Some(vec![*f]),
            OptionValue::List(l) => Some(
                l.iter()
                    .filter_map(|v| if let OptionValue::Float(f) = v { Some(*f) } else { None })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// `description`, when written and not empty.
    pub fn description(&self) -> Option<String> {
        self.text("description").filter(|d| !d.is_empty())
    }

    fn log_prefix(&self, name: &str) -> Option<String> {
        let v = self.opt_str(name)?;
        Some(if v.is_empty() { self.name.clone() } else { v.to_string() })
    }

    /// `write_lat_log`'s file prefix (the value, or the job name when bare), if set.
    pub fn write_lat_log(&self) -> Option<String> {
        self.log_prefix("write_lat_log")
    }

    /// `write_bw_log`'s file prefix, if set.
    pub fn write_bw_log(&self) -> Option<String> {
        self.log_prefix("write_bw_log")
    }

    /// `write_iops_log`'s file prefix, if set.
    pub fn write_iops_log(&self) -> Option<String> {
        self.log_prefix("write_iops_log")
    }

    /// `write_hist_log`'s file prefix, if set.
    pub fn write_hist_log(&self) -> Option<String> {
        self.log_prefix("write_hist_log")
    }

    /// Whether `verify=` names a checksum (anything but `0`/`none`): fio then seeds the
    /// write block sizes like the reads (init.c).
    pub fn verifies(&self) -> bool {
        self.opt_str("verify").is_some_and(|v| !matches!(v.trim(), "none" | "0"))
    }

    /// `steadystate` as written (fio's `iops_slope:0.01%` by default).
    pub fn steadystate(&self) -> String {
        match self.options.get("steadystate") {
            Some(o) => o.raw.clone(),
            None => registry::lookup("steadystate").map(|d| d.default).unwrap_or("").to_string(),
        }
    }

    pub fn steadystate_duration(&self) -> Nanos {
        self.time("steadystate_duration")
    }

    pub fn steadystate_ramp_time(&self) -> Nanos {
        self.time("steadystate_ramp_time")
    }

    pub fn steadystate_check_interval(&self) -> Nanos {
        self.time("steadystate_check_interval")
    }

    /// The options of [`ENGINE_UNACTED`] this job sets, with their notes; with
    /// `ioengine=pvsync2`, `hipri` and `uncached` are acted on (RWF_HIPRI, RWF_DONTCACHE).
    pub fn engine_unacted(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        let pvsync2 = self.ioengine == "pvsync2";
        let fileops = crate::engines::has(&self.ioengine, crate::engines::FILE_OPS);
        ENGINE_UNACTED.iter().copied().filter(move |(n, _)| {
            self.options.contains_key(*n)
                && !(pvsync2 && PVSYNC2_ACTED.contains(n))
                && !(fileops && *n == "create_on_open")
        })
    }

    /// Whether `thinktime_blocks` was written (fio backend.c `handle_thinktime`: with
    /// `thinktime_iotime` and no `thinktime_blocks`, only the I/O time triggers a pause).
    pub fn thinktime_blocks_given(&self) -> bool {
        self.options.contains_key("thinktime_blocks")
    }

    /// `thinktime_blocks_type=issue`: `thinktime_blocks` counts issued I/Os, not completed
    /// ones (fio backend.c `init_thinktime`).
    pub fn thinktime_by_issue(&self) -> bool {
        self.text("thinktime_blocks_type").as_deref() == Some("issue")
    }

    /// `thinktime_iotime` (default unit seconds; 0: off).
    pub fn thinktime_iotime(&self) -> Nanos {
        self.time("thinktime_iotime")
    }

    /// Whether `nrfiles` was written (fio ignores it when `filename=` lists several files).
    pub fn nrfiles_given(&self) -> bool {
        self.options.contains_key("nrfiles")
    }

    /// `write_iolog=FILE`, when written and not empty: the file the job's request stream is
    /// exported to before the run.
    pub fn write_iolog(&self) -> Option<String> {
        self.text("write_iolog").filter(|p| !p.is_empty())
    }

    /// `iolab_fio_seeds` (an iolab extension): which fio generation's seeding the job
    /// reproduces, as written (`current`, `3.33` or `3.34`), else the registry default.
    pub fn fio_seeds(&self) -> String {
        self.text("iolab_fio_seeds").unwrap_or_default()
    }

    /// Set `iolab_fio_seeds` to `raw` (what `iolab run --fio-seeds` does to every job), as if
    /// written last on the command line.
    pub fn set_fio_seeds(&mut self, raw: &str) {
        let seq = self.next_seq();
        self.options.insert(
            "iolab_fio_seeds".to_string(),
            crate::spec::ResolvedOption {
                value: OptionValue::Str(raw.to_string()),
                raw: raw.to_string(),
                origin: crate::spec::Origin::CommandLine { index: 0 },
                seq,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_accessed_name_is_a_canonical_entry() {
        for n in accessed_names().chain(ENGINE_UNACTED.iter().map(|(n, _)| *n)) {
            let d = registry::lookup(n).unwrap_or_else(|| panic!("{n} is not in the registry"));
            assert_eq!(d.name, n, "{n} is an alias");
        }
    }

    #[test]
    fn defaults_come_from_the_registry() {
        let j = Job::with_defaults("j");
        assert!(j.invalidate() && j.do_verify() && j.allow_file_create() && j.clat_percentiles());
        assert!(!j.end_fsync() && !j.lat_percentiles() && !j.continue_on_error());
        assert_eq!((j.iodepth_batch(), j.iodepth_batch_complete_min()), (1, 1));
        assert_eq!((j.fsync_every(), j.iodepth_low(), j.bwavgtime()), (0, None, None));
        assert_eq!(j.steadystate(), "iops_slope:0.01%");
        assert_eq!(j.steadystate_check_interval(), Nanos::from_secs(1));
        assert_eq!((j.kb_base(), j.sync_mode()), (KbBase::K1024, SyncMode::None));
        assert_eq!(j.write_bw_log(), None);
    }

    #[test]
    fn set_values_win_and_choices_are_enums() {
        let p = crate::parse_str(
            "t.fio",
            "[j]\ninvalidate=0\nsync=dsync\nlog_window_value=both\nwrite_bw_log\n\
             unified_rw_reporting=mixed\nkb_base=1000\nfsync=8\nclocksource=cpu\n",
        )
        .unwrap();
        let j = &p.jobs[0];
        assert!(!j.invalidate());
        assert_eq!(j.sync_mode(), SyncMode::Dsync);
        assert_eq!(j.log_window_value(), LogWindow::Both);
        assert_eq!(j.write_bw_log().as_deref(), Some("j"));
        assert_eq!(j.unified_rw_reporting(), UnifiedRw::Mixed);
        assert_eq!((j.kb_base(), j.fsync_every()), (KbBase::K1000, 8));
        assert_eq!(j.clocksource(), Some(ClockSource::Cpu));
    }
}

#[cfg(test)]
mod field_defaults {
    use crate::registry::OPTIONS;
    use crate::spec::Job;

    /// The typed fields' defaults in [`Job::with_defaults`] are the registry's: applying each
    /// entry's default through its setter changes nothing.
    #[test]
    fn with_defaults_matches_the_registry() {
        let base = Job::with_defaults("j");
        let mut differ = Vec::new();
        for o in OPTIONS.iter().filter(|o| !o.default.is_empty()) {
            let Some(set) = o.set else { continue };
            let mut j = base.clone();
            let mut w = Vec::new();
            match set(&mut j, Some(o.default), &mut w) {
                Ok(()) if j == base => {}
                Ok(()) => differ.push(format!("{}={}", o.name, o.default)),
                Err(e) => differ.push(format!("{}={}: {e}", o.name, o.default)),
            }
        }
        // Four fields keep "unset" apart from fio's default value, with the same meaning:
        // no runtime cap, no I/O count cap, fio's own name pattern, and randseed 0x89 not
        // marked as written (it then yields to randrepeat).
        let same_meaning = [
            "runtime=0",
            "filename_format=$jobname.$jobnum.$filenum",
            "number_ios=0",
            "randseed=0x89",
        ];
        assert_eq!(differ, same_meaning, "with_defaults differs from the registry");
    }
}
