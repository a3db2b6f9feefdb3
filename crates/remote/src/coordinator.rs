//! Many hosts, one start: every host prepared in parallel (connect, proof, clock, the job
//! checked on the host), then one start instant a little ahead of the slowest round trip,
//! sent to each host in its own clock, then every result collected in parallel.
//!
//! A host that fails before the start ends the run before any I/O (unless
//! `--on-host-loss=continue`); a host lost after it is recorded in [`Outcome::lost`] while
//! the others' results are kept.

use std::time::Duration;

use iolab_stats::hosts::HostRun;

use crate::auth::Secret;
use crate::client::{Event, HostLine, Lost, OnLoss, Outcome, Plan, Session};
use crate::proto::now_ns;
use crate::RemoteError;

/// The least lead between sending the start and the start itself.
const MIN_LEAD: Duration = Duration::from_millis(200);

/// Run `plan` on every host of `lines`; `on_event` hears each host's intervals as they come
/// (from the hosts' threads) and each host's end.
pub fn run_hosts(
    lines: &[HostLine],
    plan: &Plan,
    secret: &Secret,
    on_event: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Outcome, RemoteError> {
    let prepared: Vec<Result<Session, RemoteError>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            lines.iter().map(|l| s.spawn(move || prepare(l, plan, secret))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))).collect()
    });
    let mut out = Outcome::default();
    let mut live = Vec::new();
    for (rank, (line, p)) in lines.iter().zip(prepared).enumerate() {
        let rank = rank as u32;
        match p {
            Ok(s) => live.push((rank, line, s)),
            Err(e) if plan.on_loss == OnLoss::Continue => out.lost.push(lost(line, rank, &e)),
            Err(e) => return Err(e),
        }
    }
    if live.is_empty() {
        return Err(RemoteError::Host {
            spec: "--client".into(),
            why: "no host is left to run the job".into(),
        });
    }
    out.handshake = live.iter().map(|(_, _, s)| s.handshake).max().unwrap_or_default();
    let worst_rtt = live.iter().map(|(_, _, s)| s.clock.rtt_ns).max().unwrap_or(0).max(0) as u64;
    let lead = MIN_LEAD + Duration::from_nanos(worst_rtt.saturating_mul(4));
    let at = now_ns() + i64::try_from(lead.as_nanos()).unwrap_or(i64::MAX);
    let finished: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = live
            .into_iter()
            .map(|(rank, line, mut session)| {
                s.spawn(move || {
                    let each = |d: &iolab_stats::hosts::delta::HostInterval| {
                        on_event(Event::Interval(rank, d));
                    };
                    let r = session.start(at).and_then(|()| session.finish(&each));
                    on_event(Event::Ended(rank));
                    (rank, line, session.clock, r)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    for f in finished {
        let Ok((rank, line, clock, r)) = f else { continue };
        match r {
            Ok(f) => out.hosts.push(HostRun {
                hostname: line.spec.hostname().to_string(),
                port: line.spec.port(),
                rank,
                start_skew_ns: f.start_skew_ns,
                clock_offset_ns: clock.offset_ns,
                result: f.result,
                interval_file: f.interval_file,
            }),
            Err(e) => out.lost.push(lost(line, rank, &e)),
        }
    }
    Ok(out)
}

fn panicked() -> RemoteError {
    RemoteError::Host { spec: "--client".into(), why: "a host's thread panicked".into() }
}

fn lost(line: &HostLine, rank: u32, e: &RemoteError) -> Lost {
    Lost {
        hostname: line.spec.hostname().to_string(),
        port: line.spec.port(),
        rank,
        why: e.to_string(),
    }
}

/// Connect, prove, measure the clock, send the job (with the host's own options) and await
/// `ready`.
fn prepare(line: &HostLine, plan: &Plan, secret: &Secret) -> Result<Session, RemoteError> {
    let mut s = Session::connect(&line.spec, &plan.secret_file, plan.host_timeout)?;
    s.handshake(secret)?;
    let mut args = plan.args.clone();
    args.extend(line.extra.iter().cloned());
    s.prepare(&args, &plan.files, plan.interval_ns)?;
    Ok(s)
}
