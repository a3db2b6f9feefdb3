//! The many-host flags of `iolab run` and fio's personality, taken out of the argument list
//! before the local run reads it: `--client`, `--secret-file`, `--host-timeout`,
//! `--on-host-loss`, and fio's `--server` (the fio personality's way to start a server).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use iolab_remote::auth::Secret;
use std::sync::{Mutex, PoisonError};

use iolab_remote::client::{parse_hosts, Event, OnLoss};

use super::board::Board;
use iolab_run::flags::RunFlags;

/// The `--help` heading of the many-host flags.
const HEADING: &str = "Many hosts (iolab's server; docs/many-hosts.md)";

/// `iolab run`'s many-host flags as `--help` lists them. They are taken out of the argument
/// list by [`intercept`] before anything else reads it (a run on several hosts is not a local
/// run with extra flags: the job goes to the servers); this type only gives them their
/// `--help` lines, flattened into `run::Args`.
#[derive(clap::Args, Debug, Default)]
pub struct HostFlags {
    /// Run the job on these hosts (`iolab server` on each) and write one fio client
    /// document: HOST[:PORT] (port 8765, fio's), a comma-separated list, ssh://[USER@]HOST
    /// (starts `iolab server --stdio` over ssh), or a hostfile (one host a line, with
    /// --option=value words for that host only).
    #[arg(long, help_heading = HEADING, value_name = "HOST[:PORT][,HOST…]|HOSTFILE")]
    client: Option<String>,
    /// The secret shared with the servers (a regular file readable by its owner only, 16
    /// bytes to 4 KiB); with --client.
    #[arg(long, help_heading = HEADING, value_name = "FILE")]
    secret_file: Option<PathBuf>,
    /// A host silent for this long is lost (seconds; `2.5`, `500ms`; default 10, and at least
    /// three --status-interval periods when one is given); with --client.
    #[arg(long, help_heading = HEADING, value_name = "SECONDS")]
    host_timeout: Option<String>,
    /// What a lost host does to the run: `fail` (default: the others' numbers are written,
    /// marked partial, exit 1) or `continue` (still marked partial, exit as the others).
    #[arg(long, help_heading = HEADING, value_name = "fail|continue")]
    on_host_loss: Option<String>,
}

/// The flags this module takes (each `--x=V` or `--x V`; `--server`'s value only with `=`).
const TAKEN: &[&str] = &["client", "secret-file", "host-timeout", "on-host-loss"];

/// The many-host flags found, and the arguments left.
#[derive(Default)]
struct Taken {
    client: Option<String>,
    server: Option<String>,
    secret_file: Option<PathBuf>,
    host_timeout: Option<String>,
    on_host_loss: Option<String>,
    rest: Vec<String>,
}

fn take(args: &[String], fio: bool) -> anyhow::Result<Taken> {
    let mut t = Taken::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let body = a.strip_prefix("--").filter(|_| a != "--");
        let (key, inline) =
            match body.map(|b| b.split_once('=').map_or((b, None), |(k, v)| (k, Some(v)))) {
                Some(kv) => kv,
                None => {
                    t.rest.push(a.clone());
                    continue;
                }
            };
        if fio && key == "server" {
            set(&mut t.server, "server", inline.unwrap_or("").to_string())?;
            continue;
        }
        if !TAKEN.contains(&key) {
            t.rest.push(a.clone());
            continue;
        }
        let value = match inline {
            Some(v) => v.to_string(),
            None => it.next().cloned().with_context(|| format!("--{key}: needs a value"))?,
        };
        let slot = match key {
            "client" => &mut t.client,
            "host-timeout" => &mut t.host_timeout,
            "on-host-loss" => &mut t.on_host_loss,
            _ => {
                if t.secret_file.is_some() {
                    bail!("--secret-file: given twice");
                }
                t.secret_file = Some(PathBuf::from(value));
                continue;
            }
        };
        set(slot, key, value)?;
    }
    Ok(t)
}

fn set(slot: &mut Option<String>, key: &str, value: String) -> anyhow::Result<()> {
    if slot.is_some() {
        bail!("--{key}: given twice");
    }
    *slot = Some(value);
    Ok(())
}

/// `--host-timeout`: seconds (`10`, `2.5`, `10s`, `500ms`), more than 0 and at most a day;
/// by default 10 s, or three status intervals when that is longer. With `--status-interval`
/// the intervals are the hosts' only frames while they run: a timeout not above the interval
/// would lose every host, and is refused.
fn host_timeout(v: Option<&str>, interval: Option<Duration>) -> anyhow::Result<Duration> {
    let t = parse_timeout(v)?;
    match (v, interval) {
        (None, Some(i)) => Ok(t.max(i.saturating_mul(3))),
        (Some(v), Some(i)) if t <= i => bail!(
            "--host-timeout={}: must be longer than --status-interval ({} s): a host is lost \
             when no interval comes for that long",
            v.escape_default(),
            i.as_secs_f64()
        ),
        _ => Ok(t),
    }
}

fn parse_timeout(v: Option<&str>) -> anyhow::Result<Duration> {
    let Some(v) = v else { return Ok(Duration::from_secs(10)) };
    let bad = || {
        anyhow::anyhow!(
            "--host-timeout='{}': expected seconds above 0 and at most 86400 (10, 2.5, 500ms)",
            v.escape_default()
        )
    };
    let (num, scale) = match v.strip_suffix("ms") {
        Some(n) => (n, 1e-3),
        None => (v.strip_suffix('s').unwrap_or(v), 1.0),
    };
    let secs = num.parse::<f64>().map_err(|_| bad())? * scale;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The many-host flags taken out of `rest`: `Some(exit)` when they ran a server or the
/// job on several hosts, `None` for a local run (the argument list is then untouched).
pub fn intercept(rest: &[String], fio: bool) -> anyhow::Result<Option<ExitCode>> {
    let t = take(rest, fio)?;
    if let Some(listen) = &t.server {
        let Some(secret) = &t.secret_file else {
            bail!("--server: needs --secret-file=FILE (fio's server has no authentication; iolab's has)")
        };
        if t.client.is_some() {
            bail!("--server and --client: one process is one or the other");
        }
        let listen = if listen.is_empty() { "127.0.0.1:8765" } else { listen };
        let allow = t.rest.iter().any(|a| a == "--allow-destroy");
        let stdio = t.rest.iter().any(|a| a == "--stdio");
        if let Some(a) = t.rest.iter().find(|a| *a != "--allow-destroy" && *a != "--stdio") {
            bail!("--server: '{a}' is not a server flag (--allow-destroy, --stdio, --secret-file)");
        }
        return super::serve(listen, secret, allow, stdio, None).map(Some);
    }
    let Some(client) = &t.client else {
        for (name, given) in [
            ("secret-file", t.secret_file.is_some()),
            ("host-timeout", t.host_timeout.is_some()),
            ("on-host-loss", t.on_host_loss.is_some()),
        ] {
            if given {
                bail!("--{name}: only with --client=HOST[,HOST…]|HOSTFILE");
            }
        }
        return Ok(None);
    };
    coordinate(client, &t, fio).map(Some)
}

/// Run the job on every host of `client` and write one document.
fn coordinate(client: &str, t: &Taken, fio: bool) -> anyhow::Result<ExitCode> {
    let on_loss = match t.on_host_loss.as_deref() {
        None | Some("fail") => OnLoss::Fail,
        Some("continue") => OnLoss::Continue,
        Some(v) => bail!("--on-host-loss='{}': expected fail or continue", v.escape_default()),
    };
    let secret_file = t
        .secret_file
        .clone()
        .context("--client: needs --secret-file=FILE (the secret shared with the servers)")?;
    let hosts = parse_hosts(client)?;
    let (forward, local) = split_output(&t.rest)?;
    let g = super::super::fio::globals(&local, fio)?;
    let timeout = host_timeout(t.host_timeout.as_deref(), g.status_interval)?;
    let formats = g.ordered_formats().join(",");
    if let Some(f) =
        formats.split(',').find(|f| !matches!(*f, "normal" | "json" | "json+" | "html"))
    {
        bail!("--output-format={f}: with --client the formats are normal, json, json+ and html (fio's client mode has no other)");
    }
    let (split, _) = super::super::split_own::<RunFlags>("run", &forward)?;
    let files = super::job_files(&split.job_files)?;
    if let Some(p) = &g.output {
        // No output replaces an input: the job files (noted as read), the secret, the hostfile.
        let hostfile = std::path::Path::new(client);
        let mut inputs = vec![secret_file.as_path()];
        inputs.extend(Some(hostfile).filter(|h| h.is_file()));
        iolab_report::output::check(p, &inputs)?;
    }
    let secret = Secret::from_file(&secret_file)?;
    let mut plan = super::plan(forward, files, secret_file, timeout, on_loss);
    plan.interval_ns = g.status_interval.map_or(0, |d| d.as_nanos().try_into().unwrap_or(u64::MAX));
    let names = hosts.iter().map(|h| (h.spec.hostname().to_string(), h.spec.port())).collect();
    let board = Mutex::new(Board::new(names, &formats, g.output.is_none()));
    let on_event = |e: Event<'_>| board.lock().unwrap_or_else(PoisonError::into_inner).event(e);
    let outcome = iolab_remote::coordinator::run_hosts(&hosts, &plan, &secret, &on_event)?;
    let mut board = board.into_inner().unwrap_or_else(PoisonError::into_inner);
    board.finish();
    for l in &outcome.lost {
        eprintln!(
            "iolab: host {}:{} (rank {}) lost: {}; the result is partial",
            l.hostname, l.port, l.rank, l.why
        );
    }
    if outcome.hosts.is_empty() {
        bail!("every host was lost; no result");
    }
    if !fio {
        let skews: Vec<String> = outcome
            .hosts
            .iter()
            .map(|h| format!("{}:{} {:+.3} ms", h.hostname, h.port, h.start_skew_ns as f64 / 1e6))
            .collect();
        eprintln!(
            "iolab: {} host(s); slowest handshake {:.2} ms; start skew {}",
            outcome.hosts.len(),
            outcome.handshake.as_secs_f64() * 1e3,
            skews.join(", ")
        );
    }
    let rows = (plan.interval_ns > 0).then(|| board.rows());
    let mut out = std::mem::take(&mut board.kept);
    out.extend(super::render(&outcome, &formats, rows.as_deref())?);
    iolab_report::render::write(&out, g.output.as_deref())?;
    let failed = outcome.hosts.iter().any(|h| iolab_run::finish::failed(&h.result));
    let lost = !outcome.lost.is_empty() && on_loss == OnLoss::Fail;
    Ok(if failed || lost { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A fio global flag and its value.
type FlagValue = (String, Option<String>);

/// The output flags the coordinator keeps (`--output`, `--output-format`, `--minimal`,
/// `--append-terse`, `--terse-version`) apart from the arguments every host gets;
/// `--status-interval` too: the coordinator prints the intervals, each server sends them.
fn split_output(args: &[String]) -> anyhow::Result<(Vec<String>, Vec<FlagValue>)> {
    const LOCAL: &[&str] =
        &["output", "output-format", "minimal", "append-terse", "terse-version", "status-interval"];
    let mut forward = Vec::new();
    let mut local = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--") else {
            forward.push(a.clone());
            continue;
        };
        let (key, value) =
            body.split_once('=').map_or((body, None), |(k, v)| (k, Some(v.to_string())));
        if !LOCAL.contains(&key) {
            forward.push(a.clone());
            continue;
        }
        let takes = matches!(key, "output" | "output-format" | "terse-version" | "status-interval");
        let value = if takes && value.is_none() { it.next().cloned() } else { value };
        local.push((key.to_string(), value));
    }
    Ok((forward, local))
}
