//! A client's job on `iolab server`: the job text is read and checked here exactly as a local
//! `iolab run` reads and checks its arguments (`load_jobs`), and run by the same
//! measurement (`measure`), so every local refusal holds on a server. What a server adds:
//! `--allow-destroy` is granted only when the server itself was started with it, and the
//! flags that would make the server print or write a report (`--output`, formats,
//! `--status-interval`, actions) are refused: the result travels back to the client.

use anyhow::bail;
use iolab_job::cmdline::globals::Eta;
use iolab_remote::proto::JobFile;
use iolab_remote::server::{Periodic, Prepared, Runner};
use iolab_run::flags::RunFlags;
use iolab_stats::RunResult;

use super::{load_jobs, measure, Flags};

/// The server's local run; `allow_destroy` is the server's own flag.
pub struct LocalRunner {
    pub allow_destroy: bool,
}

/// A job read and checked, waiting for its start.
struct Ready {
    opts: iolab_job::LoadOptions,
    parsed: iolab_job::Parsed,
    flags: Flags,
    /// The client's job files, written here for the reader; removed after the run.
    _dir: tempfile::TempDir,
}

/// The flags a server refuses from a client, and why.
const REFUSED: &[(&str, &str)] = &[
    ("output", "the result goes back to the client, which writes it"),
    ("output-format", "the client renders the result"),
    ("minimal", "the client renders the result"),
    ("append-terse", "the client renders the result"),
    ("status-interval", "the client asks for intervals itself (its --status-interval)"),
    ("client", "a server does not forward jobs"),
    ("server", "a server does not start servers"),
    ("predict", "not available on a server"),
];

impl Runner for LocalRunner {
    fn prepare(&self, args: &[String], files: &[JobFile]) -> Result<Box<dyn Prepared>, String> {
        prepare(args, files, self.allow_destroy)
            .map(|r| Box::new(r) as Box<dyn Prepared>)
            .map_err(|e| crate::one_line(&e))
    }
}

impl Prepared for Ready {
    fn run(self: Box<Self>, periodic: Option<Periodic>) -> Result<RunResult, String> {
        if let Ok(mut g) = self.flags.periodic.lock() {
            *g = periodic;
        }
        let started = super::super::meta_now(iolab_stats::RunMode::Measured, Vec::new());
        let m = measure::measure(&self.opts, &self.parsed, &self.flags, &started);
        m.map(|m| m.result).map_err(|e| crate::one_line(&e))
    }
}

fn prepare(args: &[String], files: &[JobFile], allow_destroy: bool) -> anyhow::Result<Ready> {
    for a in args {
        let key = a.strip_prefix("--").map(|b| b.split_once('=').map_or(b, |(k, _)| k));
        if let Some((k, why)) = REFUSED.iter().find(|(k, _)| Some(*k) == key) {
            bail!("--{k}: {why}");
        }
        if a == "--allow-destroy" && !allow_destroy {
            bail!("--allow-destroy: this server was not started with --allow-destroy and writes no block device");
        }
    }
    let dir = tempfile::Builder::new().prefix("iolab-server-").tempdir()?;
    let mut rest = args.to_vec();
    for (i, f) in files.iter().enumerate() {
        let path = dir.path().join(format!("job{i}.fio"));
        std::fs::write(&path, &f.text)?;
        let local = path.to_string_lossy().into_owned();
        rest.iter_mut().filter(|a| **a == f.name).for_each(|a| *a = local.clone());
    }
    let (rest, preset) = super::super::preset::take(&rest)?;
    let (split, own) = super::super::split_own::<RunFlags>("run", &rest)?;
    if let Some(t) = &preset {
        super::super::preset::refuse_job_options(t, &split)?;
    }
    let mut g = super::super::fio::globals(&split.flags, false)?;
    if g.action.is_some() || g.showcmd || g.parse_only {
        bail!("--help, --version, --showcmd, --parse-only and the like are not run on a server");
    }
    let has_job = !split.job_files.is_empty()
        || preset.is_some()
        || split.fio_options.iter().any(|o| o.starts_with("--name=") || o == "--name");
    if !has_job {
        bail!("no job: the quick profile does not run on a server; give a job file or --name=…");
    }
    g.eta = Eta::Never;
    let flags = Flags {
        g,
        formats: "json".into(),
        own,
        fio: false,
        preset,
        place: Default::default(),
        stop: None,
        periodic: Default::default(),
    };
    match load_jobs(split, &flags)? {
        Some((opts, parsed, _)) => {
            if !allow_destroy {
                guard_devices(&parsed, flags.own.prefill)?;
            }
            Ok(Ready { opts, parsed, flags, _dir: dir })
        }
        None => bail!("--parse-only is not run on a server"),
    }
}

/// A server started without --allow-destroy writes no block device: a job that may write
/// (write or trim, `--prefill`, an iolog replay) and names one is refused, even a blank
/// device a local run would write. (The local run's own checks still follow.)
fn guard_devices(parsed: &iolab_job::Parsed, prefill: bool) -> anyhow::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    for j in &parsed.jobs {
        let replays = ["read_iolog", "replay_redirect"].iter().any(|o| j.options.contains_key(*o));
        if !(j.rw.has_write() || j.rw.has_trim() || prefill || replays) {
            continue;
        }
        for p in iolab_run::finish::job_paths(j) {
            if std::fs::metadata(&p).is_ok_and(|m| m.file_type().is_block_device()) {
                bail!(
                    "--allow-destroy: this server was not started with --allow-destroy and \
                     writes no block device (job <{}> would write {})",
                    j.name,
                    p.display()
                );
            }
        }
    }
    Ok(())
}
