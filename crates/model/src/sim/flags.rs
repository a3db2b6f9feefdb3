//! `iolab sim`'s flags as one type, [`SimFlags`] (with the `clap` feature, also the binary's
//! clap flags: no flag-by-flag conversion there): which input a set of flags asks for (jobs, a
//! trace replayed through the tiers, or a trace through bare policies), the hierarchy they
//! name, and the help text with the tier grammar, the policies and the device presets.

use std::path::{Path, PathBuf};

use super::object::{self, ObjectRow};
use super::setup;
use super::source::TraceReplay;
use crate::device::PRESETS;
use crate::policy::POLICIES;
use crate::tier::Hierarchy;
use crate::{ModelError, SimError};

/// `iolab sim`'s own flags.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct SimFlags {
    /// A cache tier, top first: KIND:SIZE[:POLICY[:WRITE]][:key=value...], e.g. ram:1GiB:lru,
    /// ssd:4GiB:smq:writeback:block=256KiB. Repeat for a chain.
    #[cfg_attr(feature = "clap", arg(long = "tier"))]
    pub tiers: Vec<String>,
    /// The device under the last tier: KIND[:PRESET][:SIZE][:sparse][:ncq=N], e.g. hdd:7200,
    /// hdd:10k:ncq=32; profile:PRESET (a preset in profile form); or a device profile FILE.toml
    /// (`iolab calibrate`).
    #[cfg_attr(feature = "clap", arg(long, default_value = "hdd:7200"))]
    pub backing: String,
    /// A TOML hierarchy ([[tier]] tables and a [backing] table) instead of --tier/--backing.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "tiers"))]
    pub hierarchy: Option<PathBuf>,
    /// Block trace to simulate.
    #[cfg_attr(feature = "clap", arg(long))]
    pub trace: Option<PathBuf>,
    /// Trace format name (default: detected from extension and content).
    #[cfg_attr(feature = "clap", arg(long))]
    pub trace_format: Option<String>,
    /// `trace`: issue each request at its timestamp; `fast`: as soon as a slot is free.
    #[cfg_attr(feature = "clap", arg(long, default_value = "trace", value_parser = ["trace", "fast"]))]
    pub trace_timing: String,
    /// Requests in flight when replaying a trace (1 to 65536).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 32))]
    pub trace_iodepth: usize,
    /// Object-level policy simulation of the trace (every object size 1): miss ratios.
    #[cfg_attr(feature = "clap", arg(long))]
    pub object_level: bool,
    /// Policies for --object-level, comma-separated.
    #[cfg_attr(feature = "clap", arg(long, default_value = "lru"))]
    pub policy: String,
    /// Cache sizes in objects for --object-level, comma-separated.
    #[cfg_attr(feature = "clap", arg(long, default_value = "1000"))]
    pub cache_size: String,
    /// Output format: normal, json, json+ or html (`iolab run`'s documents, with an
    /// `iolab_sim` section; --object-level: normal, json or html).
    #[cfg_attr(feature = "clap", arg(long, default_value = "normal", value_parser = ["normal", "json", "json+", "html"]))]
    pub output_format: String,
    /// Write the result to FILE (atomically) instead of stdout.
    #[cfg_attr(feature = "clap", arg(long))]
    pub output: Option<PathBuf>,
    /// Write the jobs' request streams to FILE as a fio iolog v3 before simulating.
    #[cfg_attr(feature = "clap", arg(long))]
    pub write_iolog: Option<PathBuf>,
    /// List the eviction policies and device presets and exit.
    #[cfg_attr(feature = "clap", arg(long))]
    pub list: bool,
}

impl Default for SimFlags {
    /// The flags' defaults as `iolab sim` declares them.
    fn default() -> Self {
        SimFlags {
            tiers: Vec::new(),
            backing: "hdd:7200".into(),
            hierarchy: None,
            trace: None,
            trace_format: None,
            trace_timing: "trace".into(),
            trace_iodepth: 32,
            object_level: false,
            policy: "lru".into(),
            cache_size: "1000".into(),
            output_format: "normal".into(),
            output: None,
            write_iolog: None,
            list: false,
        }
    }
}

/// Why a set of flags names nothing (or too much) to simulate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("give job files/options or --trace, not both")]
    Both,
    #[error(
        "nothing to simulate: give job files, fio-style options (--name=x --rw=randread …) or \
         --trace=FILE"
    )]
    Nothing,
    #[error("--write-iolog exports a job's requests; a --trace is already a trace")]
    IologOfTrace,
    #[error("--object-level needs --trace=FILE")]
    ObjectsNeedTrace,
}

/// What a simulation reads.
#[derive(Clone, Debug)]
pub enum Input<'a> {
    /// The jobs given beside the flags, through the hierarchy.
    Jobs,
    /// A block trace through the hierarchy.
    Trace(TraceReplay<'a>),
    /// A trace through bare eviction policies (`--object-level`).
    Objects(&'a Path),
}

impl SimFlags {
    /// The input these flags ask for, given whether job files or fio-style options came too.
    pub fn input(&self, has_jobs: bool) -> Result<Input<'_>, InputError> {
        match (has_jobs, &self.trace) {
            (true, Some(_)) => return Err(InputError::Both),
            (false, None) => return Err(InputError::Nothing),
            (false, Some(_)) if self.write_iolog.is_some() => return Err(InputError::IologOfTrace),
            _ => {}
        }
        Ok(match &self.trace {
            _ if self.object_level => {
                Input::Objects(self.trace.as_deref().ok_or(InputError::ObjectsNeedTrace)?)
            }
            Some(path) => Input::Trace(TraceReplay {
                path,
                format: self.trace_format.as_deref(),
                timed: self.trace_timing == "trace",
                iodepth: self.trace_iodepth,
            }),
            None => Input::Jobs,
        })
    }

    /// The hierarchy `--hierarchy`, or `--tier` and `--backing`, name ([`setup::hierarchy`]).
    pub fn hierarchy(&self) -> Result<Hierarchy, ModelError> {
        setup::hierarchy(self.hierarchy.as_deref(), &self.tiers, &self.backing)
    }

    /// `--object-level`: every `--policy` at every `--cache-size` over the trace at `path`.
    pub fn objects(&self, path: &Path) -> Result<Vec<ObjectRow>, SimError> {
        let policies: Vec<&str> = self.policy.split(',').map(str::trim).collect();
        let sizes = object::parse_sizes(&self.cache_size)?;
        object::simulate_objects(path, self.trace_format.as_deref(), &policies, &sizes)
    }
}

/// `iolab sim --help`'s closing text: the tier grammar, the names `--list` prints, and
/// examples that run when pasted.
pub fn help() -> String {
    let names = |v: Vec<&str>| v.join(", ");
    let keys: String = crate::tier::spec::TIER_KEYS
        .iter()
        .map(|(k, what)| format!("  {k:<20} {what}"))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "Tier grammar: KIND:SIZE[:POLICY[:WRITE]][:key=value...], top tier first.
  KIND ram, ssd, nvme or hdd. SIZE in fio's units with kb_base=1024: GiB, gib, G and g are
  all 2^30 bytes (1GiB = 1G = 1073741824). WRITE writethrough, writeback or writearound.
  POLICY: {}.
Tier keys (key=value after the positional parts):
{}
Backing: KIND[:PRESET][:SIZE][:sparse][:ncq=N]; PRESET: {}.
  ncq=N (hdd): the drive reorders up to N queued commands by shortest positioning time, as
  SATA NCQ and SAS TCQ do: hdd:7200 queues 32 (NCQ), the SAS presets 254 (Linux's default
  at a SAS device); ncq=1 turns it off. hdd:7200's random 4 KiB reads over the whole drive
  go 79 -> 104 -> 156 -> 186 IOPS at QD 1, 4, 16, 32 (79 at every depth with ncq=1).

Examples:
  iolab sim --list
  iolab sim --name=x --rw=randread --bs=4k --size=64m --number_ios=2000 --tier=ram:16MiB:lru
  iolab sim --name=x --rw=randrw --size=64m --number_ios=2000 \\
      --tier=ram:8MiB:lru --tier=ssd:32MiB:lru:writeback --backing=hdd:7200
  iolab sim --name=x --rw=write --size=256m --end_fsync=1 \\
      --tier=ssd:64MiB:lru:writeback:battery=1:flush_rate=100MiB",
        names(POLICIES.iter().map(|p| p.name).collect()),
        keys,
        names(PRESETS.iter().map(|p| p.name).collect()),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn with_trace(t: &str) -> SimFlags {
        SimFlags { trace: Some(PathBuf::from(t)), ..SimFlags::default() }
    }

    #[test]
    fn the_input_a_set_of_flags_names() {
        let none = SimFlags::default();
        assert!(matches!(none.input(true), Ok(Input::Jobs)));
        assert_eq!(none.input(false).unwrap_err(), InputError::Nothing);
        let t = with_trace("t.csv");
        assert_eq!(t.input(true).unwrap_err(), InputError::Both);
        match t.input(false).unwrap() {
            Input::Trace(r) => {
                assert_eq!((r.path, r.timed, r.iodepth), (Path::new("t.csv"), true, 32))
            }
            other => panic!("{other:?}"),
        }
        let fast = SimFlags { trace_timing: "fast".into(), trace_iodepth: 4, ..t.clone() };
        assert!(matches!(fast.input(false), Ok(Input::Trace(r)) if !r.timed && r.iodepth == 4));
        let iolog = SimFlags { write_iolog: Some("x.log".into()), ..t.clone() };
        assert_eq!(iolog.input(false).unwrap_err(), InputError::IologOfTrace);
        let objects = SimFlags { object_level: true, ..t };
        assert!(matches!(objects.input(false), Ok(Input::Objects(p)) if p == Path::new("t.csv")));
        let no_trace = SimFlags { object_level: true, ..SimFlags::default() };
        assert_eq!(no_trace.input(true).unwrap_err(), InputError::ObjectsNeedTrace);
    }

    #[test]
    fn hostile_object_level_lists_are_refused_before_the_trace_is_read() {
        // The trace does not exist: each list must fail on its own text first.
        for sizes in ["", "0", "-1", "nan", "1e3", "99999999999999999999999", "\u{0}\u{7f}"] {
            let f = SimFlags { cache_size: sizes.into(), ..with_trace("/nonexistent/t") };
            let e = f.objects(Path::new("/nonexistent/t")).unwrap_err().to_string();
            assert!(e.contains("--cache-size"), "{sizes:?}: {e}");
        }
        let f = SimFlags { policy: "lru,no-such-policy".into(), ..with_trace("/nonexistent/t") };
        let e = f.objects(Path::new("/nonexistent/t")).unwrap_err().to_string();
        assert!(e.contains("no-such-policy"), "{e}");
    }

    #[test]
    fn the_help_names_every_policy_and_preset() {
        let h = help();
        assert!(POLICIES.iter().all(|p| h.contains(p.name)));
        assert!(PRESETS.iter().all(|p| h.contains(p.name)));
    }
}
