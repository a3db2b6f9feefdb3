//! `iolab server --listen=ADDR:PORT --secret-file=F [--allow-destroy] [--stdio]` (and fio's
//! `--server` in the fio personality), and the client side of `iolab run JOB
//! --client=HOST[:PORT][,HOST…]|HOSTFILE --secret-file=F [--host-timeout=T]
//! [--on-host-loss=fail|continue]` (and fio's `--client`): the glue between the command line
//! and `iolab-remote`, which holds the protocol, the proof and the transport.
//!
//! The server runs each client's job through the local run's own reading and checks
//! (`run::remote`); it serves one job at a time, queueing the others. The coordinator
//! renders the hosts' runs as fio's client documents (`iolab_report::export::clients`),
//! marked partial with the lost hosts named when a host was lost.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context};
use iolab_remote::auth::Secret;
use iolab_remote::client::{OnLoss, Outcome, Plan};
use iolab_remote::proto::{JobFile, DEFAULT_PORT};
use iolab_remote::server::{self, ServerConfig, SharedWriter};

pub mod board;
mod client;
pub use client::{intercept, HostFlags};

#[derive(clap::Args)]
#[command(after_help = HELP)]
pub struct Args {
    /// Address and port to listen on: ADDR:PORT, ADDR (port 8765, fio's) or PORT (on
    /// loopback); port 0 takes a free port (printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8765", value_name = "ADDR:PORT")]
    listen: String,
    /// The shared secret: a regular file readable by its owner only (chmod 600), at least 16
    /// bytes; the same on every host and on the client. Required.
    #[arg(long, value_name = "FILE")]
    secret_file: Option<PathBuf>,
    /// Let clients' jobs write block devices (they must also ask with --allow-destroy).
    /// Without it this server refuses any job that would write a device.
    #[arg(long)]
    allow_destroy: bool,
    /// Speak the protocol on stdin/stdout for one session (as `ssh host iolab server
    /// --stdio`, which `--client=ssh://host` runs) instead of listening.
    #[arg(long)]
    stdio: bool,
    /// A private directory (created mode 0700; group and others refused) where each job run
    /// with --status-interval keeps its intervals until the client has the result, so they
    /// survive a client that dies mid-run. Default $XDG_STATE_HOME/iolab-server, else
    /// ~/.local/state/iolab-server.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

const HELP: &str = "\
Security: a client must prove the shared secret (HMAC-SHA256 challenge-response over fresh
nonces; the secret never travels) before any job is read. Jobs run one at a time.
Examples:
  iolab server --listen=10.0.0.5:8765 --secret-file=/etc/iolab/secret
  iolab run job.fio --client=10.0.0.5,10.0.0.6 --secret-file=/etc/iolab/secret";

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if let Some(d) = &a.state_dir {
        state_dir_gate(d)?;
    }
    let Some(secret) = &a.secret_file else {
        bail!("--secret-file=FILE is required: a server runs jobs only for clients that prove the shared secret");
    };
    serve(&a.listen, secret, a.allow_destroy, a.stdio, a.state_dir)
}

/// `--state-dir` through the gate as an output before anything is made there: a directory
/// (or a new name) is what it takes; a block device, a missing name under /dev (which the
/// directory's creation would otherwise make) or an input of the process is refused.
fn state_dir_gate(d: &Path) -> anyhow::Result<()> {
    use iolab_core::gate::{self, classify::Kind, Intent};
    let c = gate::classify::classify(d).map_err(|e| anyhow::anyhow!("--state-dir: {e}"))?;
    if c.kind != Kind::Directory {
        gate::check_classified(&c, Intent::Output)
            .map_err(|e| anyhow::anyhow!("--state-dir: {e}"))?;
    }
    Ok(())
}

/// Serve until a signal (or, with `stdio`, for one session).
pub fn serve(
    listen: &str,
    secret_file: &Path,
    allow_destroy: bool,
    stdio: bool,
    state_dir: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let addr = (!stdio).then(|| listen_addr(listen)).transpose()?;
    // A directory given is checked now; the default one only when a job first needs it.
    if let Some(d) = &state_dir {
        server::state::check_dir(d).map_err(anyhow::Error::msg)?;
    }
    let secret = Secret::from_file(secret_file)?;
    let state_dir = state_dir.or_else(server::state::default_dir);
    let cfg = ServerConfig {
        secret,
        handshake_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(600),
        log: Arc::new(|line: &str| eprintln!("iolab server: {line}")),
        stop: Arc::new(iolab_core::stop::requested),
        state_dir,
    };
    let runner = Arc::new(super::run::remote::LocalRunner { allow_destroy });
    let Some(addr) = addr else { return serve_stdio(&cfg, runner.as_ref()) };
    let listener = TcpListener::bind(addr).with_context(|| format!("--listen={listen}"))?;
    let here = listener.local_addr().context("--listen")?;
    let destroy = if allow_destroy { "may" } else { "never" };
    eprintln!("iolab server: listening on {here} (jobs one at a time; block devices: {destroy} be written)");
    server::listen(listener, &cfg, runner)?;
    Ok(ExitCode::SUCCESS)
}

/// `--listen`'s value: ADDR:PORT, ADDR, [V6]:PORT or PORT (loopback).
fn listen_addr(s: &str) -> anyhow::Result<SocketAddr> {
    let bad = || {
        anyhow::anyhow!(
            "--listen='{}': expected ADDR:PORT, ADDR or PORT (0-65535)",
            s.escape_default()
        )
    };
    if s.is_empty() || s.len() > 300 {
        return Err(bad());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        let port: u16 = s.parse().map_err(|_| bad())?;
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let with_port = |h: &str, p: &str| -> anyhow::Result<SocketAddr> {
        let port: u16 = p.parse().map_err(|_| bad())?;
        (h, port).to_socket_addrs().map_err(|_| bad())?.next().ok_or_else(bad)
    };
    if let Some(rest) = s.strip_prefix('[') {
        let (h, p) = rest.split_once("]:").ok_or_else(bad)?;
        return with_port(h, p);
    }
    match s.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => with_port(h, p),
        _ => with_port(s, &DEFAULT_PORT.to_string()),
    }
}

/// One session on stdin/stdout. Anything the run prints on stdout would corrupt the frames,
/// so fd 1 is pointed at stderr and the frames go to a duplicate of the original stdout.
fn serve_stdio(cfg: &ServerConfig, runner: &dyn server::Runner) -> anyhow::Result<ExitCode> {
    let out = protocol_stdout().context("--stdio")?;
    let w: SharedWriter = Arc::new(Mutex::new(Box::new(out)));
    let turn = Mutex::new(());
    let mut stdin = std::io::stdin().lock();
    server::serve(&mut stdin, &w, "stdio", cfg, runner, &turn, &|| Ok(()))?;
    Ok(ExitCode::SUCCESS)
}

/// A duplicate of stdout for the frames; fd 1 then points at stderr.
fn protocol_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    let dup = std::io::stdout().as_fd().try_clone_to_owned()?;
    // SAFETY: dup2 on two descriptors this process holds open (0..=2 are always open here:
    // std opened them or the parent passed them); it replaces fd 1 atomically and touches no
    // Rust-owned memory. The frames keep their own descriptor `dup`.
    let r = unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(std::fs::File::from(dup))
}

/// The job files named in `job_files`, read to travel by text (the server parses them).
fn job_files(job_files: &[PathBuf]) -> anyhow::Result<Vec<JobFile>> {
    const MAX_JOB_FILE: u64 = 8 << 20;
    let mut out = Vec::new();
    for p in job_files {
        let name = p.to_str().context("a job file's name is not UTF-8")?.to_string();
        // Opened without blocking, regular files only, noted so no output replaces it.
        let bytes = iolab_core::input::read_bounded(p, "job file", MAX_JOB_FILE)?;
        let text = String::from_utf8(bytes).with_context(|| format!("job file {name}"))?;
        out.push(JobFile { name, text });
    }
    Ok(out)
}

/// The hosts' runs in each format, marked partial with the lost hosts named, with every
/// status interval's deltas (`board`) when there were intervals.
pub fn render(
    outcome: &Outcome,
    formats: &str,
    intervals: Option<&[serde_json::Value]>,
) -> anyhow::Result<Vec<u8>> {
    use iolab_report::export::clients;
    if outcome.lost.is_empty() && intervals.is_none() {
        return Ok(clients::render_hosts(&outcome.hosts, formats)?);
    }
    let mut out = Vec::new();
    for fmt in formats.split(',') {
        match fmt {
            "json" | "json+" => {
                let mut doc = clients::clients_json(&outcome.hosts, fmt == "json+");
                if !outcome.lost.is_empty() {
                    doc.put("iolab_partial", true);
                    doc.put("iolab_lost_hosts", lost_json(outcome));
                }
                if let Some(rows) = intervals {
                    let rows = rows.iter().map(iolab_report::export::fio_json::value_to_j);
                    doc.put("iolab_intervals", iolab_report::json::J::Arr(rows.collect()));
                }
                out.extend(doc.to_fio_string().into_bytes());
                out.push(b'\n');
            }
            "normal" => {
                out.extend(clients::clients_text(&outcome.hosts).into_bytes());
                for l in &outcome.lost {
                    let line = format!(
                        "PARTIAL: host {}:{} (rank {}) lost: {}\n",
                        l.hostname, l.port, l.rank, l.why
                    );
                    out.extend(line.into_bytes());
                }
            }
            other => out.extend(clients::render_hosts(&outcome.hosts, other)?),
        }
    }
    Ok(out)
}

fn lost_json(outcome: &Outcome) -> iolab_report::json::J {
    use iolab_report::json::J;
    let each = |l: &iolab_remote::client::Lost| {
        let mut o = J::obj();
        o.put("hostname", l.hostname.as_str())
            .put("port", l.port)
            .put("rank", l.rank)
            .put("reason", l.why.as_str());
        o
    };
    J::Arr(outcome.lost.iter().map(each).collect())
}

/// The plan's fixed parts from the client's flags.
fn plan(
    args: Vec<String>,
    files: Vec<JobFile>,
    secret_file: PathBuf,
    t: Duration,
    on: OnLoss,
) -> Plan {
    Plan { args, files, secret_file, host_timeout: t, on_loss: on, interval_ns: 0 }
}
