//! Many hosts under MPI: `mpirun -np N iolab run JOB…` as one run of N ranks (the model is
//! IOR's and mdtest's: every rank runs the same job, rank 0 writes the one result).
//!
//! What a rank sees is decided here, the transport lives in [`mpi`] (feature `mpi`, rsmpi):
//! - **Detection** from the environment the launcher sets (Open MPI's `OMPI_COMM_WORLD_SIZE`,
//!   MPICH/Hydra's `PMI_SIZE`, PMIx's `PMIX_RANK`), so a build without the feature refuses
//!   to run as one of several ranks instead of writing N documents ([`refuse_without_mpi`]).
//! - **Numbering**: rank `r` numbers its clones after the ranks before it
//!   (`iolab_engine::runner::RankPlace`): `$jobnum` of generated file names and the
//!   `offset_increment` multiplier continue across ranks, as do thread numbers (seeds) and
//!   `jobidx` (log file numbers). A job's explicit `filename=` is kept on every rank: a
//!   shared file (or each host's own device) is what the job names.
//! - **Start and stop**: a barrier, then a common start instant from rank 0 (CLOCK_REALTIME
//!   ns, [`START_LEAD`] ahead), each rank's skew measured; `--mpi-stonewall=last` (the
//!   default: every rank runs its job to its own end, the run ends with the last) or
//!   `first` (the first rank done stops the others, [`Stonewall`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[cfg(feature = "mpi")]
pub mod mpi;

/// How far ahead of the barrier rank 0 sets the common start: time for the broadcast to
/// reach every rank before the instant passes.
pub const START_LEAD: Duration = Duration::from_millis(100);

/// The launcher variables read, in order: a world size, or a rank.
pub const ENV_VARS: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"];

/// Why a run under MPI cannot go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostsError {
    #[error("{var}='{value}': expected a whole number as MPI launchers set it")]
    BadEnv { var: &'static str, value: String },
    #[error(
        "this iolab was built without MPI (cargo feature `mpi`) but runs as one of {size} MPI \
         ranks ({var} is set): each rank would run alone and write its own result; build with \
         `cargo build --release --features mpi`, or run iolab without mpirun"
    )]
    NoMpi { size: String, var: &'static str },
    #[error("--mpi-stonewall applies under mpirun only (no MPI launcher variable is set: {})", ENV_VARS.join(", "))]
    NotUnderMpi,
    #[error(
        "iolab {cmd} does not run under MPI yet: each of the {size} ranks would run alone and \
         write its own result; run it without mpirun"
    )]
    Command { cmd: &'static str, size: String },
    #[error("{what} is not supported under MPI: {why}")]
    Refused { what: String, why: &'static str },
    #[error("MPI: {0}")]
    Mpi(String),
}

/// What the launcher's environment says about this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpiEnv {
    /// The world size, when the launcher sets one (`OMPI_COMM_WORLD_SIZE`, `PMI_SIZE`).
    pub size: Option<u32>,
    /// This process's rank, when set (`PMIX_RANK`).
    pub rank: Option<u32>,
    /// The variable that gave it away.
    pub var: &'static str,
}

impl MpiEnv {
    /// Whether other ranks run beside this one (a size above 1, or a rank above 0).
    pub fn several(&self) -> bool {
        self.size.is_some_and(|n| n > 1) || self.rank.is_some_and(|r| r > 0)
    }
}

/// The MPI launcher's variables in this process's environment; `None` when not under MPI.
pub fn mpi_env() -> Result<Option<MpiEnv>, HostsError> {
    mpi_env_from(|v| std::env::var_os(v).map(|s| s.to_string_lossy().into_owned()))
}

/// [`mpi_env`] over any lookup (tests give their own).
pub fn mpi_env_from(get: impl Fn(&str) -> Option<String>) -> Result<Option<MpiEnv>, HostsError> {
    let mut env: Option<MpiEnv> = None;
    for var in ENV_VARS {
        let Some(value) = get(var) else { continue };
        let n: u32 = value.trim().parse().map_err(|_| HostsError::BadEnv { var, value })?;
        let e = env.get_or_insert(MpiEnv { size: None, rank: None, var });
        if var == "PMIX_RANK" {
            e.rank = Some(n);
        } else if e.size.is_none() {
            e.size = Some(n);
        }
    }
    Ok(env)
}

/// A build without the `mpi` feature under a launcher of several ranks: refused by name.
pub fn refuse_without_mpi(env: &MpiEnv) -> Result<(), HostsError> {
    if !env.several() {
        return Ok(());
    }
    let size = env.size.map_or_else(|| "several".to_string(), |n| n.to_string());
    Err(HostsError::NoMpi { size, var: env.var })
}

/// A command other than `run` (`sim`, `replay`) started as one of several MPI ranks: refused
/// (in any build) rather than run N times.
pub fn refuse_command(cmd: &'static str) -> Result<(), HostsError> {
    match mpi_env()? {
        Some(env) if env.several() => {
            let size = env.size.map_or_else(|| "several".to_string(), |n| n.to_string());
            Err(HostsError::Command { cmd, size })
        }
        _ => Ok(()),
    }
}

/// `--mpi-stonewall`: when the ranks stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stonewall {
    /// Every rank runs its job to its own end (`runtime`, `size`); the run ends with the
    /// last rank, whose result waits for the slowest.
    #[default]
    Last,
    /// The first rank to finish stops every other (IOR's stonewalling): the others' results
    /// cover the time until then.
    First,
}

/// `--mpi-stonewall`'s value grammar.
pub fn stonewall(s: &str) -> Result<Stonewall, String> {
    match s {
        "last" => Ok(Stonewall::Last),
        "first" => Ok(Stonewall::First),
        _ => Err(format!(
            "--mpi-stonewall={}: expected first (the first rank done stops the others) or last \
             (every rank runs to its end)",
            iolab_core::units::quote(s)
        )),
    }
}

/// `iolab run`'s MPI flags.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct MpiFlags {
    /// Under mpirun: `last` (default) every rank runs its job to its end; `first` the first
    /// rank done stops the others.
    #[cfg_attr(feature = "clap", arg(long, value_name = "first|last", value_parser = stonewall))]
    pub mpi_stonewall: Option<Stonewall>,
}

impl MpiFlags {
    /// Outside MPI the MPI flags mean nothing: refused rather than ignored.
    pub fn check_alone(&self) -> Result<(), HostsError> {
        match self.mpi_stonewall {
            Some(_) => Err(HostsError::NotUnderMpi),
            None => Ok(()),
        }
    }
}

/// CLOCK_REALTIME now, ns since the epoch (0 before 1970, which no launcher runs at).
pub fn realtime_ns() -> u64 {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Sleep until the common start `at` (CLOCK_REALTIME ns) and return the skew: when this rank
/// woke minus `at`, ns (negative only when the clock stepped back).
pub fn wait_until(at: u64) -> i64 {
    let now = realtime_ns();
    if at > now {
        std::thread::sleep(Duration::from_nanos(at - now));
    }
    let woke = realtime_ns();
    let skew = i128::from(woke) - i128::from(at);
    i64::try_from(skew).unwrap_or(if skew < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Result<Option<MpiEnv>, HostsError> {
        mpi_env_from(|v| pairs.iter().find(|(k, _)| *k == v).map(|(_, x)| x.to_string()))
    }

    #[test]
    fn launchers_are_read_and_several_ranks_refused_without_mpi() {
        assert_eq!(env(&[]).unwrap(), None);
        let one = env(&[("OMPI_COMM_WORLD_SIZE", "1"), ("PMIX_RANK", "0")]).unwrap().unwrap();
        assert_eq!((one.size, one.rank, one.several()), (Some(1), Some(0), false));
        assert_eq!(refuse_without_mpi(&one), Ok(()));
        let four = env(&[("PMI_SIZE", "4")]).unwrap().unwrap();
        let e = refuse_without_mpi(&four).unwrap_err().to_string();
        assert!(e.contains("one of 4 MPI ranks (PMI_SIZE is set)"), "{e}");
        let rank = env(&[("PMIX_RANK", "2")]).unwrap().unwrap();
        assert!(rank.several());
        let bad = env(&[("OMPI_COMM_WORLD_SIZE", "x2")]).unwrap_err().to_string();
        assert_eq!(
            bad,
            "OMPI_COMM_WORLD_SIZE='x2': expected a whole number as MPI launchers set it"
        );
    }

    #[test]
    fn stonewall_values() {
        assert_eq!(stonewall("first"), Ok(Stonewall::First));
        assert_eq!(stonewall("last"), Ok(Stonewall::Last));
        for bad in ["", "First", "none", "first,last", "\u{1b}[2J"] {
            let e = stonewall(bad).unwrap_err();
            assert!(e.starts_with("--mpi-stonewall=") && !e.contains('\u{1b}'), "{e}");
        }
    }

    #[test]
    fn skew_is_measured_from_the_common_instant() {
        let at = realtime_ns() + 20_000_000;
        let skew = wait_until(at);
        assert!((0..50_000_000).contains(&skew), "woke {skew} ns after the instant");
        // An instant already past: no sleep, the lateness is the skew.
        let late = wait_until(realtime_ns() - 5_000_000);
        assert!(late >= 5_000_000, "{late}");
    }
}
