//! fio's `verify_backlog` and `verify_backlog_batch`: written blocks are read back and checked
//! while the job still writes, not only after it.
//!
//! Source: fio 3.33 io_u.c `check_get_verify` (the trigger), verify.c `get_next_verify` (which
//! block), iolog.c `log_io_piece`/`unlog_io_piece` (the log of written blocks) and io_u.c
//! `io_completed` (`td->last_ddir`, a write's entry marked done). Each write is logged before
//! it is issued (`io_hist_len` is the number of logged, unverified blocks). When the next unit
//! is wanted and the log is not empty: with a batch under way, a verify read is next; else, when
//! `io_hist_len % verify_backlog == 0` and the last completed unit was not a read, a batch of
//! `verify_backlog_batch` (0: `verify_backlog`) starts. The block is the log's first: the
//! lowest (file, offset) when the job has no random map (fio's rb-tree, where a new write
//! drops the entries it overlaps), else the oldest (fio's list); a block whose write is still
//! in flight is not read (`get_next_verify` finds "nothing" and a normal unit goes instead).
//! Verify reads are the job's reads (counted, timed) but not part of its `size` (ioengines.c
//! `td_io_queue` leaves `IO_U_F_VER_LIST` units out of `io_issue_bytes`): the workload's
//! stream is unchanged and the reads come between its units. What is still logged when the
//! stream ends is checked by the verify phase after it (backend.c `do_verify`).

use crate::verify::{VerifyCheck, VerifyLog};
use iolab_core::{IoDir, IoRequest, RequestSource};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// A logged, unverified block: (file, offset, len, generation, write in flight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    file: u32,
    offset: u64,
    len: u64,
    gen: u64,
    in_flight: bool,
}

/// fio's io_hist: sorted by (file, offset) without a random map, in write order with one.
#[derive(Debug)]
enum Pieces {
    Sorted(BTreeMap<(u32, u64), Piece>),
    Fifo(VecDeque<Piece>),
}

/// The backlog's state, shared by the request source (which issues the verify reads), the
/// buffer filler (which logs the writes) and the read check (which checks the verify reads).
#[derive(Debug)]
pub struct Backlog {
    every: u64,
    batch_size: u64,
    /// fio `td->verify_batch`: verify reads left in the current batch.
    batch: u64,
    /// fio `td->last_ddir == DDIR_READ`.
    last_read: bool,
    pieces: Pieces,
    /// Verify reads issued and not yet checked, by (file, offset): their generations.
    reading: HashMap<(u32, u64), VecDeque<u64>>,
}

/// The shared handle.
pub type SharedBacklog = Arc<Mutex<Backlog>>;

/// Lock the state; a poisoned lock (a panic elsewhere in this thread) still holds valid data.
fn lock(b: &SharedBacklog) -> MutexGuard<'_, Backlog> {
    b.lock().unwrap_or_else(|e| e.into_inner())
}

impl Backlog {
    /// `verify_backlog=every` (above 0), `verify_backlog_batch=batch`; `fifo`: the job has a
    /// random map (fio `file_randommap`).
    pub fn shared(every: u64, batch: u64, fifo: bool) -> SharedBacklog {
        let pieces =
            if fifo { Pieces::Fifo(VecDeque::new()) } else { Pieces::Sorted(BTreeMap::new()) };
        Arc::new(Mutex::new(Backlog {
            every: every.max(1),
            batch_size: if batch == 0 { every.max(1) } else { batch },
            batch: 0,
            last_read: false,
            pieces,
            reading: HashMap::new(),
        }))
    }

    /// fio `io_hist_len`.
    pub fn len(&self) -> usize {
        match &self.pieces {
            Pieces::Sorted(m) => m.len(),
            Pieces::Fifo(q) => q.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// iolog.c `log_io_piece`: a write about to be issued, with its generation.
    pub fn log_write(&mut self, file: u32, offset: u64, len: u64, gen: u64) {
        let p = Piece { file, offset, len, gen, in_flight: true };
        let end = offset.saturating_add(len);
        let overlaps = |q: &Piece| q.file == file && q.offset < end && offset < q.offset + q.len;
        match &mut self.pieces {
            Pieces::Sorted(m) => {
                // Disjoint entries: those overlapping start before `end` and end after `offset`.
                let gone: Vec<_> = m
                    .range((file, 0)..(file, end))
                    .rev()
                    .take_while(|(_, q)| q.offset + q.len > offset)
                    .map(|(k, _)| *k)
                    .collect();
                for k in gone {
                    m.remove(&k);
                }
                m.insert((file, offset), p);
            }
            Pieces::Fifo(q) => {
                // fio keeps the list as written (a random map issues each block once a
                // pass); a rewrite (a later pass) replaces what it overlaps, so the log never
                // expects an overwritten block's old contents.
                if gen > 0 {
                    q.retain(|e| !overlaps(e));
                }
                q.push_back(p);
            }
        }
    }

    /// io_u.c `io_completed`: the last direction done, and a write's entry marked done
    /// (dropped when the write failed: `unlog_io_piece`).
    pub fn completed(&mut self, dir: IoDir, file: u32, offset: u64, ok: bool) {
        if dir == IoDir::Sync {
            return;
        }
        self.last_read = dir == IoDir::Read;
        if dir != IoDir::Write {
            return;
        }
        match &mut self.pieces {
            Pieces::Sorted(m) => {
                if ok {
                    if let Some(p) = m.get_mut(&(file, offset)) {
                        p.in_flight = false;
                    }
                } else {
                    m.remove(&(file, offset));
                }
            }
            Pieces::Fifo(q) => {
                let hit =
                    q.iter().rposition(|p| p.in_flight && (p.file, p.offset) == (file, offset));
                match (hit, ok) {
                    (Some(i), true) => q[i].in_flight = false,
                    (Some(i), false) => {
                        q.remove(i);
                    }
                    (None, _) => {}
                }
            }
        }
    }

    /// io_u.c `check_get_verify`: the next verify read, if one is due and its write is done.
    fn next_verify(&mut self) -> Option<Piece> {
        if self.is_empty() {
            return None;
        }
        if self.batch == 0 {
            if self.len() as u64 % self.every != 0 || self.last_read {
                return None;
            }
            self.batch = self.batch_size;
        }
        let p = self.pop_done()?;
        self.batch -= 1;
        self.reading.entry((p.file, p.offset)).or_default().push_back(p.gen);
        Some(p)
    }

    /// verify.c `get_next_verify`: the log's first entry, unless its write is in flight.
    fn pop_done(&mut self) -> Option<Piece> {
        match &mut self.pieces {
            Pieces::Sorted(m) => {
                let e = m.first_entry()?;
                (!e.get().in_flight).then(|| e.remove())
            }
            Pieces::Fifo(q) => {
                if q.front()?.in_flight {
                    return None;
                }
                q.pop_front()
            }
        }
    }

    /// The generation a verify read at (`file`, `offset`) expects; `None` for a normal read.
    fn take_reading(&mut self, file: u32, offset: u64) -> Option<u64> {
        let q = self.reading.get_mut(&(file, offset))?;
        let g = q.pop_front();
        if q.is_empty() {
            self.reading.remove(&(file, offset));
        }
        g
    }

    /// What is still logged when the stream ends: the verify phase's blocks.
    pub fn remaining(&self) -> VerifyLog {
        let mut log = VerifyLog::default();
        let mut add = |p: &Piece| log.insert(p.file, p.offset, p.len, p.gen);
        match &self.pieces {
            Pieces::Sorted(m) => m.values().for_each(&mut add),
            Pieces::Fifo(q) => q.iter().for_each(&mut add),
        }
        log
    }
}

/// The workload's stream with the backlog's verify reads put in between its units.
pub struct BacklogSource<'a, S: RequestSource + ?Sized> {
    pub inner: &'a mut S,
    pub backlog: SharedBacklog,
    /// `number_ios` × `loops`: units of every direction, verify reads included (fio
    /// backend.c `exceeds_number_ios` sums `io_blocks` over the directions).
    pub limit: Option<u64>,
    /// Units handed out so far.
    pub issued: u64,
}

impl<S: RequestSource + ?Sized> RequestSource for BacklogSource<'_, S> {
    fn passes(&self) -> u64 {
        self.inner.passes()
    }

    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        if self.limit.is_some_and(|l| self.issued >= l) {
            return false;
        }
        self.issued += 1;
        if let Some(p) = lock(&self.backlog).next_verify() {
            *r = IoRequest {
                dir: IoDir::Read,
                file: p.file,
                offset: p.offset,
                len: p.len,
                issue_at: None,
            };
            return true;
        }
        self.inner.next_into(r)
    }
}

/// The read check's part: each verify read is checked against the generation it was logged
/// with; the job's own reads are left alone (fio verifies a read+write job's reads only when
/// they come from the log: backend.c `do_io`, `IO_U_F_VER_LIST`).
pub struct BacklogCheck {
    pub backlog: SharedBacklog,
    pub check: VerifyCheck,
}

impl BacklogCheck {
    /// Check a read if it is a verify read: `None` for a normal read.
    pub fn check(
        &mut self,
        buf: &[u8],
        file: u32,
        offset: u64,
    ) -> Option<Result<(), Box<iolab_data::VerifyFailure>>> {
        let gen = lock(&self.backlog).take_reading(file, offset)?;
        Some(self.check.check_gen(buf, file, offset, Some(gen)))
    }

    pub fn completed(&mut self, dir: IoDir, file: u32, offset: u64, ok: bool) {
        lock(&self.backlog).completed(dir, file, offset, ok);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drive `n` sequential 4 KiB writes (each completing at once) through the backlog and
    /// return the request stream: `W` or `V` per unit.
    fn stream(every: u64, batch: u64, n: u64) -> String {
        let b = Backlog::shared(every, batch, false);
        let mut next = 0u64;
        let mut src = move |r: &mut IoRequest| {
            if next == n {
                return false;
            }
            *r = IoRequest {
                dir: IoDir::Write,
                file: 0,
                offset: next * 4096,
                len: 4096,
                issue_at: None,
            };
            next += 1;
            true
        };
        let mut s = BacklogSource { inner: &mut src, backlog: b.clone(), limit: None, issued: 0 };
        let mut out = String::new();
        let mut r = IoRequest::default();
        while s.next_into(&mut r) {
            let mut g = lock(&b);
            if r.dir == IoDir::Write {
                g.log_write(r.file, r.offset, r.len, 0);
                out.push('W');
            } else {
                assert_eq!(g.take_reading(r.file, r.offset), Some(0));
                out.push('V');
            }
            g.completed(r.dir, r.file, r.offset, true);
        }
        out
    }

    #[test]
    fn every_n_writes_then_a_batch_of_verifies() {
        assert_eq!(stream(2, 0, 5), "WWVVWWVVW");
        assert_eq!(stream(1, 0, 3), "WVWVWV");
        // A batch of 1 per 3 writes: the log grows and is verified oldest first.
        assert_eq!(stream(3, 1, 7), "WWWVWVWVWVWV");
    }

    #[test]
    fn an_in_flight_write_is_not_read_and_a_failed_one_is_dropped() {
        let b = Backlog::shared(1, 0, true);
        let mut g = lock(&b);
        g.log_write(0, 0, 4096, 0);
        assert_eq!(g.next_verify(), None, "write still in flight");
        g.completed(IoDir::Write, 0, 0, true);
        assert_eq!(g.next_verify().map(|p| p.offset), Some(0));
        g.log_write(0, 8192, 4096, 0);
        g.completed(IoDir::Write, 0, 8192, false);
        assert!(g.is_empty(), "a failed write leaves the log");
    }

    #[test]
    fn a_rewrite_replaces_what_it_overlaps() {
        let b = Backlog::shared(100, 0, false);
        let mut g = lock(&b);
        g.log_write(0, 0, 4096, 0);
        g.log_write(0, 4096, 4096, 0);
        g.log_write(0, 2048, 4096, 1);
        assert_eq!(g.len(), 1);
        let left: Vec<_> = g.remaining().blocks().collect();
        assert_eq!(left, vec![(0, 2048, 4096, 1)]);
    }
}
