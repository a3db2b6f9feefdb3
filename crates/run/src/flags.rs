//! `iolab run`'s own flags as one type, [`RunFlags`] (with the `clap` feature, also the
//! binary's clap flags: no flag-by-flag conversion there), their value grammars, and which of
//! them a run with jobs or the quick profile (no job) refuses. fio's global flags
//! (`--output`, `--output-format`, `--status-interval`, …) are `iolab_job::cmdline::FIO_FLAGS`.

use std::path::PathBuf;

use iolab_core::units::{parse_size, quote, KbBase};
use iolab_workload::FioSeeds;

/// What a run's flags or the quick profile's arguments cannot be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    #[error("{0} needs a job (job file or --name=…), not the quick profile")]
    NeedsJob(&'static str),
    #[error("--phase-time applies to the quick profile (no job); use --runtime= in a job")]
    PhaseTimeWithJob,
    #[error(
        "'{0}' without a job: define one with --name=NAME (fio style) or give a job file; the \
         quick profile takes only --size and --directory"
    )]
    NotQuick(String),
    #[error("--directory={0}: not a directory")]
    NotADirectory(String),
}

/// `iolab run`'s own flags.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct RunFlags {
    /// Write to block devices that carry a filesystem or partition table.
    #[cfg_attr(feature = "clap", arg(long))]
    pub allow_destroy: bool,
    /// Write every job's region once before it runs (reads of never-written blocks measure
    /// nothing).
    #[cfg_attr(feature = "clap", arg(long))]
    pub prefill: bool,
    /// Quick profile only: measured seconds per phase (default 3).
    #[cfg_attr(feature = "clap", arg(long, value_parser = seconds))]
    pub phase_time: Option<f64>,
    /// A cache in front of the media (controller, array, SLC), e.g. 4g, for the advice that
    /// compares it with the working set.
    #[cfg_attr(feature = "clap", arg(long, value_parser = cache_size))]
    pub cache_size: Option<u64>,
    /// The jobs' request streams as a fio iolog v3 (fio `read_iolog`), written before the run.
    #[cfg_attr(feature = "clap", arg(long))]
    pub write_iolog: Option<PathBuf>,
    /// Seed every job as fio 3.33 (also 3.34) or current fio (>= 3.35, the default) seeds
    /// it, to reproduce that fio's random offsets (the job option `iolab_fio_seeds`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "3.33|current", value_parser = fio_seeds))]
    pub fio_seeds: Option<FioSeeds>,
    /// Also predict the jobs on a device profile (`iolab calibrate`; default
    /// iolab-profile.toml) and show the prediction beside the measurement.
    #[cfg_attr(feature = "clap", arg(long, value_name = "PROFILE.toml", num_args = 0..=1, require_equals = true, default_missing_value = ""))]
    pub predict: Option<String>,
    /// Under mpirun (`crate::hosts`).
    #[cfg_attr(feature = "clap", command(flatten))]
    pub mpi: crate::hosts::MpiFlags,
}

impl RunFlags {
    /// The quick profile (no job) refuses the flags that need one.
    pub fn check_quick(&self) -> Result<(), FlagError> {
        match (self.predict.is_some(), self.write_iolog.is_some()) {
            (true, _) => Err(FlagError::NeedsJob("--predict")),
            (_, true) => Err(FlagError::NeedsJob("--write-iolog")),
            _ => Ok(()),
        }
    }

    /// A run with jobs refuses the quick profile's `--phase-time`.
    pub fn check_jobs(&self) -> Result<(), FlagError> {
        match self.phase_time {
            Some(_) => Err(FlagError::PhaseTimeWithJob),
            None => Ok(()),
        }
    }
}

/// `--fio-seeds`: `3.33` (also `3.34`) or `current`.
pub fn fio_seeds(s: &str) -> Result<FioSeeds, String> {
    FioSeeds::parse(s)
        .ok_or_else(|| format!("--fio-seeds={}: expected 3.33 (also 3.34) or current", quote(s)))
}

/// `--phase-time`: seconds from 1 ms to a day, an `s` suffix allowed (a phase is a job's
/// `runtime` in whole milliseconds: less would be no runtime at all, and 10^11 s would hold
/// the profile for centuries).
pub fn seconds(s: &str) -> Result<f64, String> {
    let v = s.trim_end_matches('s').parse().ok().filter(|v: &f64| (1e-3..=86_400.0).contains(v));
    v.ok_or_else(|| {
        format!("--phase-time={}: expected seconds from 0.001 to 86400, e.g. 3", quote(s))
    })
}

/// `--cache-size`: a size in fio's units with kb_base=1024.
pub fn cache_size(s: &str) -> Result<u64, String> {
    parse_size(s, KbBase::K1024)
        .map_err(|_| format!("--cache-size={}: expected a size, e.g. 4g", quote(s)))
}

/// The quick profile's `--size` (default 256m) and `--directory` (default `.`, which must be a
/// directory): the only fio-style options it takes.
pub fn quick_size_and_dir(fio_options: &[String]) -> Result<(String, PathBuf), FlagError> {
    let (mut size, mut dir) = ("256m".to_string(), PathBuf::from("."));
    for o in fio_options {
        if let Some(v) = o.strip_prefix("--size=") {
            size = v.to_string();
        } else if let Some(v) = o.strip_prefix("--directory=") {
            dir = PathBuf::from(v);
        } else {
            return Err(FlagError::NotQuick(o.clone()));
        }
    }
    if !dir.is_dir() {
        return Err(FlagError::NotADirectory(dir.display().to_string()));
    }
    Ok((size, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: [&str; 7] =
        ["", "-1", "nan", "NaN", "inf", "99999999999999999999999x", "\u{0}\u{1b}[2J"];

    #[test]
    fn value_grammars_refuse_hostile_text_on_one_clean_line() {
        assert_eq!(seconds("3").unwrap(), 3.0);
        assert_eq!(seconds("0.5s").unwrap(), 0.5);
        assert_eq!(cache_size("4g").unwrap(), 4 << 30);
        assert_eq!(fio_seeds("3.34").unwrap(), FioSeeds::parse("3.33").unwrap());
        for bad in HOSTILE.iter().copied().chain(["0", "-0.5s"]) {
            let e = seconds(bad).unwrap_err();
            assert!(e.starts_with("--phase-time=") && !e.contains('\u{1b}'), "{bad:?}: {e}");
        }
        for bad in HOSTILE {
            let e = cache_size(bad).unwrap_err();
            assert!(e.starts_with("--cache-size=") && !e.contains('\u{1b}'), "{bad:?}: {e}");
            let e = fio_seeds(bad).unwrap_err();
            assert!(e.starts_with("--fio-seeds=") && !e.contains('\u{1b}'), "{bad:?}: {e}");
        }
        // A phase of centuries or of less than a millisecond (no runtime at all) is refused.
        assert_eq!(seconds("86400").unwrap(), 86_400.0);
        for bad in ["1e300", "99999999999", "86401", "0.0009"] {
            assert!(seconds(bad).unwrap_err().contains("0.001 to 86400"), "{bad}");
        }
        // 10^100000 parses as infinity: refused, not a profile that never ends.
        assert!(seconds(&"9".repeat(100_000)).unwrap_err().len() < 400);
    }

    #[test]
    fn which_flags_need_a_job_and_which_refuse_one() {
        let none = RunFlags::default();
        assert_eq!((none.check_quick(), none.check_jobs()), (Ok(()), Ok(())));
        let p = RunFlags { predict: Some(String::new()), ..RunFlags::default() };
        assert_eq!(
            p.check_quick().unwrap_err().to_string(),
            "--predict needs a job (job file or --name=…), not the quick profile"
        );
        let w = RunFlags { write_iolog: Some("x".into()), ..RunFlags::default() };
        assert_eq!(w.check_quick(), Err(FlagError::NeedsJob("--write-iolog")));
        let t = RunFlags { phase_time: Some(1.0), ..RunFlags::default() };
        assert_eq!((t.check_quick(), t.check_jobs()), (Ok(()), Err(FlagError::PhaseTimeWithJob)));
    }

    #[test]
    fn the_quick_profile_takes_only_size_and_directory() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(quick_size_and_dir(&[]).unwrap(), ("256m".into(), PathBuf::from(".")));
        let d = std::env::temp_dir().display().to_string();
        let got = quick_size_and_dir(&a(&["--size=1g", &format!("--directory={d}")])).unwrap();
        assert_eq!(got, ("1g".into(), PathBuf::from(&d)));
        let e = quick_size_and_dir(&a(&["--rw=read"])).unwrap_err();
        assert_eq!(e, FlagError::NotQuick("--rw=read".into()));
        let e = quick_size_and_dir(&a(&["--directory=/nonexistent/x"])).unwrap_err().to_string();
        assert_eq!(e, "--directory=/nonexistent/x: not a directory");
        let e = quick_size_and_dir(&a(&["--directory="])).unwrap_err().to_string();
        assert_eq!(e, "--directory=: not a directory");
    }
}
