//! `mpirun -np N iolab run JOB…`: every rank runs the job, numbered after the ranks before
//! it (`iolab_engine::runner::RankPlace`), all start at one instant and stop as
//! `--mpi-stonewall` says, and rank 0 writes one document, fio's client JSON/text
//! (`iolab_report::export::clients::render_hosts`), merged exactly (`iolab_stats::hosts`).
//! The transport is `iolab_run::hosts::mpi` (feature `mpi`); a build without it refuses to
//! run as one of several ranks.
//!
//! Every rank first checks the options and loads the jobs, and the ranks agree before any
//! I/O: one rank's refusal stops all of them, and rank 0 names the rank. Other ranks write
//! nothing to `--output` or stdout.

use iolab_run::hosts::{self, HostsError, MpiEnv};

use super::Flags;

/// The launcher's environment when this run goes through MPI (`None`: a run alone). A
/// build without the `mpi` feature under several ranks is refused, as is `--mpi-stonewall`
/// outside MPI.
pub fn under_mpi(flags: &Flags) -> anyhow::Result<Option<MpiEnv>> {
    let Some(env) = hosts::mpi_env()? else {
        flags.own.mpi.check_alone()?;
        return Ok(None);
    };
    if cfg!(feature = "mpi") {
        return Ok(Some(env));
    }
    hosts::refuse_without_mpi(&env)?;
    if flags.own.mpi.mpi_stonewall.is_some() {
        return Err(HostsError::Refused {
            what: "--mpi-stonewall".into(),
            why: "this iolab was built without the `mpi` feature",
        }
        .into());
    }
    Ok(None)
}

#[cfg(not(feature = "mpi"))]
pub fn run(
    _: MpiEnv,
    _: bool,
    _: iolab_job::SplitArgs,
    _: Flags,
    _: &iolab_stats::RunMeta,
) -> anyhow::Result<std::process::ExitCode> {
    // under_mpi gives no environment without the feature.
    Err(HostsError::Mpi("this iolab was built without the `mpi` feature".into()).into())
}

#[cfg(feature = "mpi")]
pub use ranks::run;

#[cfg(feature = "mpi")]
mod intervals;

#[cfg(feature = "mpi")]
mod ranks {
    use std::process::ExitCode;

    use anyhow::bail;
    use iolab_core::stop::Stop;
    use iolab_engine::runner::RankPlace;
    use iolab_run::hosts::mpi::{Outcome, World};
    use iolab_run::hosts::MpiEnv;
    use iolab_stats::hosts::HostRun;

    use iolab_run::hosts::HostsError;

    use super::super::{load_jobs, measure, Flags};
    use super::intervals;

    /// This rank's part of the run; rank 0 writes the document and gives the exit status.
    pub fn run(
        _env: MpiEnv,
        has_job: bool,
        split: iolab_job::SplitArgs,
        mut flags: Flags,
        started: &iolab_stats::RunMeta,
    ) -> anyhow::Result<ExitCode> {
        let world = World::init()?;
        let stop = Stop::new();
        flags.place = RankPlace { rank: world.rank() };
        flags.stop = Some(stop.clone());
        let loaded = refuse(&flags, has_job)
            .map_err(anyhow::Error::from)
            .and_then(|()| load_jobs(split, &flags))
            .and_then(|l| {
                let l = l.ok_or_else(|| anyhow::anyhow!("--parse-only: nothing to run"))?;
                refuse_jobs(&l.1.jobs)?;
                Ok(l)
            });
        let (ready, refusals) = world.agree(loaded.as_ref().err().map(|e| format!("{e:#}")))?;
        let (opts, parsed, _) = match loaded {
            Ok(l) if ready => l,
            _ if world.rank() == 0 => bail!(ranks_failed(&refusals, world.size())),
            _ => return Ok(ExitCode::from(1)),
        };
        let mode = flags.own.mpi.mpi_stonewall.unwrap_or_default();
        let skew = world.start_together();
        let stream = flags.g.status_interval.map(|every| intervals::Stream::start(&flags, every));
        let flags = &flags;
        let measured = world.run_stonewalled(mode, &stop, || {
            measure::measure(&opts, &parsed, flags, started).map_err(|e| format!("{e:#}"))
        });
        let hostname = world.hostname().to_string();
        let (intervals, file) = match (&stream, &measured) {
            (Some(s), Ok(m)) => s.finish(&m.result),
            _ => (Vec::new(), None),
        };
        let outcome = match measured {
            Ok(m) => {
                let (rank, result) = (world.rank(), m.result);
                let interval_file = file.as_ref().map(|f| f.path.display().to_string());
                let host = HostRun {
                    hostname,
                    rank,
                    start_skew_ns: skew,
                    result,
                    interval_file,
                    ..Default::default()
                };
                Outcome::Ran { host: Box::new(host), interrupted: m.interrupted, intervals }
            }
            Err(error) => Outcome::Failed { hostname, error },
        };
        let gathered = world.gather_outcomes(&outcome)?;
        // Rank 0 holds every rank's intervals now: each rank's own copy goes.
        if let Some(Err(e)) = file.map(|f| f.remove()) {
            eprintln!("iolab: rank {}: {e}", world.rank());
        }
        match gathered {
            Some(all) => write(all, flags, world.size()),
            None if matches!(outcome, Outcome::Failed { .. }) => Ok(ExitCode::from(1)),
            None => Ok(ExitCode::SUCCESS),
        }
    }

    /// Rank 0: every rank's run in one document, or the failed ranks named.
    fn write(all: Vec<Outcome>, flags: &Flags, size: u32) -> anyhow::Result<ExitCode> {
        let (mut hosts, mut failed, mut interrupted) = (Vec::new(), Vec::new(), false);
        let mut streams = Vec::new();
        for (r, o) in all.into_iter().enumerate() {
            match o {
                Outcome::Ran { host, interrupted: i, intervals } => {
                    interrupted |= i;
                    hosts.push(*host);
                    streams.push(intervals);
                }
                Outcome::Failed { hostname, error } => {
                    failed.push((r as u32, format!("({hostname}) {error}")));
                }
            }
        }
        if !failed.is_empty() {
            bail!(ranks_failed(&failed, size));
        }
        let out = intervals::render(&hosts, streams, flags)?;
        iolab_report::render::write(&out, flags.g.output.as_deref())?;
        let who = if flags.fio { "fio" } else { "iolab" };
        for h in &hosts {
            for f in iolab_run::finish::verify_failures(&h.result) {
                eprintln!("{who}: {}: {f}", h.hostname);
            }
        }
        Ok(if interrupted {
            eprintln!("iolab: interrupted; the results cover the time until the signal");
            ExitCode::from(iolab_core::stop::exit_status().unwrap_or(130))
        } else if hosts.iter().any(|h| iolab_run::finish::failed(&h.result)) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    /// What a run under MPI refuses up front (each rank finds the same).
    fn refuse(flags: &Flags, has_job: bool) -> Result<(), HostsError> {
        let no = |what: &str, why| Err(HostsError::Refused { what: what.to_string(), why });
        if !has_job {
            return no("the quick profile (no job)", "give a job file or --name=… for every rank");
        }
        if flags.own.write_iolog.is_some() {
            return no("--write-iolog", "every rank would write its own streams to the one path");
        }
        if flags.own.predict.is_some() {
            return no("--predict", "a prediction is of one host's run");
        }
        if flags.g.parse_only {
            return no("--parse-only", "run `iolab run --parse-only` without mpirun");
        }
        for f in flags.formats.split(',') {
            if !matches!(f, "normal" | "json" | "json+" | "html") {
                let why = "fio's client mode writes normal, json, json+ or html";
                return no(&format!("--output-format={f}"), why);
            }
        }
        Ok(())
    }

    /// The job's own `write_iolog=`: every rank would write the one path.
    fn refuse_jobs(jobs: &[iolab_job::Job]) -> Result<(), HostsError> {
        match jobs.iter().find(|j| j.write_iolog().is_some()) {
            Some(j) => Err(HostsError::Refused {
                what: format!("job {}'s write_iolog=", j.name),
                why: "every rank would write its own streams to the one path",
            }),
            None => Ok(()),
        }
    }

    /// The ranks' failures as one line: ranks with the same words together.
    fn ranks_failed(failed: &[(u32, String)], size: u32) -> String {
        let mut groups: Vec<(Vec<u32>, &str)> = Vec::new();
        for (r, e) in failed {
            match groups.iter_mut().find(|(_, m)| m == e) {
                Some((rs, _)) => rs.push(*r),
                None => groups.push((vec![*r], e)),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(rs, e)| {
                let rs: Vec<String> = rs.iter().map(u32::to_string).collect();
                let s = if rs.len() > 1 { "s" } else { "" };
                format!("rank{s} {}: {e}", rs.join(", "))
            })
            .collect();
        format!(
            "{} of {size} MPI ranks failed, no result written: {}",
            failed.len(),
            parts.join("; ")
        )
    }
}
