//! `--status-interval` under MPI: each rank turns its periodic snapshots into interval deltas
//! (`iolab_stats::hosts::delta`), appends each to a file of its own under the private state
//! directory (`iolab_remote::server::state`, as a server does: the rank's numbers survive a
//! rank 0 that dies), and sends them to rank 0 with its result; rank 0 prints each interval
//! as fio's client mode does (each rank's running totals, then `All clients` merged bucket
//! by bucket: `cmd/server/board.rs`) and writes every interval's deltas into the final
//! document (`iolab_intervals`). The ranks' intervals are gathered with their results, at
//! the end of the run, not while it goes on: MPI is initialised funneled (only the main
//! thread calls it, and it waits in the run), so rank 0 prints the interval reports after
//! the run, each exact.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use iolab_remote::client::{Event, Outcome};
use iolab_remote::server::state::{default_dir, IntervalLog};
use iolab_remote::server::Periodic;
use iolab_stats::hosts::delta::{DeltaTracker, HostInterval};
use iolab_stats::hosts::HostRun;
use iolab_stats::RunResult;

use super::super::Flags;
use crate::cmd::server::board::Board;

type Shared = Arc<Mutex<(DeltaTracker, Vec<HostInterval>, Option<IntervalLog>)>>;

/// A rank's interval stream.
pub struct Stream {
    shared: Shared,
    start: Instant,
}

impl Stream {
    /// Begin at the common start: the run hands its snapshots here every `every`.
    pub fn start(flags: &Flags, every: Duration) -> Stream {
        let file = default_dir().map(|d| IntervalLog::create(&d, iolab_remote::proto::now_ns()));
        let file = match file {
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => {
                eprintln!("iolab: {e}; this rank keeps no local copy of its intervals");
                None
            }
            None => None,
        };
        let shared: Shared = Arc::new(Mutex::new((DeltaTracker::default(), Vec::new(), file)));
        let s = Stream { shared, start: Instant::now() };
        let me = Stream { shared: s.shared.clone(), start: s.start };
        let emit = Box::new(move |r: &RunResult| me.put(r, false));
        if let Ok(mut g) = flags.periodic.lock() {
            *g = Some(Periodic { every, emit });
        }
        s
    }

    fn put(&self, r: &RunResult, last: bool) {
        let end_ns = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let mut g = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        let d = g.0.next(r, end_ns, last);
        if let Some(f) = g.2.as_mut() {
            if let Err(e) = f.append(&d) {
                eprintln!("iolab: {e}; this rank keeps no more of its intervals");
                g.2 = None;
            }
        }
        g.1.push(d);
    }

    /// The remainder up to `result`; the rank's intervals and its local file.
    pub fn finish(&self, result: &RunResult) -> (Vec<HostInterval>, Option<IntervalLog>) {
        self.put(result, true);
        let mut g = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        (std::mem::take(&mut g.1), g.2.take())
    }
}

/// Rank 0: the interval reports (when there were intervals), then the final document.
pub fn render(
    hosts: &[HostRun],
    streams: Vec<Vec<HostInterval>>,
    flags: &Flags,
) -> anyhow::Result<Vec<u8>> {
    let outcome = Outcome { hosts: hosts.to_vec(), ..Default::default() };
    if flags.g.status_interval.is_none() {
        return crate::cmd::server::render(&outcome, &flags.formats, None);
    }
    let names = hosts.iter().map(|h| (h.hostname.clone(), h.port)).collect();
    let mut board = Board::new(names, &flags.formats, flags.g.output.is_none());
    for (rank, s) in streams.iter().enumerate() {
        for d in s {
            board.event(Event::Interval(rank as u32, d));
        }
        board.event(Event::Ended(rank as u32));
    }
    board.finish();
    let rows = board.rows();
    let mut out = std::mem::take(&mut board.kept);
    out.extend(crate::cmd::server::render(&outcome, &flags.formats, Some(rows.as_slice()))?);
    Ok(out)
}
