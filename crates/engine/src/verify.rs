//! fio's verify phase (verify.c `populate_verify_io_u`/`verify_io_u`, backend.c `do_verify`,
//! iolog.c `log_io_piece`): every write is stamped with a header (iolab-data `stamp`) naming
//! its file, offset, generation and seed, and logged; after the write phase the logged blocks
//! are read back in offset order (fio sorts its io_piece tree the same way) and checked
//! (iolab-data `check`), which tells corruption, misplaced, stale, torn and missing blocks
//! apart.
//!
//! Generations: a block's generation is one more than the newest block it overwrote in this
//! run (0 for a first write), so a lost rewrite shows up as `stale`. fio's log keeps the last
//! write of each overlapping range; so does [`VerifyLog`], dropping every older entry a new
//! write overlaps. `verify_only` replays the same request stream (same seed) into the log
//! without writing, which reproduces the same offsets and generations.

use crate::worker::{BufFill, ReadCheck, RequestSource};
use iolab_core::{IoDir, IoRequest};
use iolab_data::{DataConfig, DataGen, FailureKind, VerifyFailure, VerifyStats};
use iolab_stats::{VerifyFailureReport, VerifyResult};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The blocks written, by (file, offset): (length, generation). Entries never overlap.
#[derive(Clone, Debug, Default)]
pub struct VerifyLog {
    blocks: BTreeMap<(u32, u64), (u64, u64)>,
}

impl VerifyLog {
    /// Log a write of `len` bytes at (`file`, `offset`) and return its generation.
    pub fn note(&mut self, file: u32, offset: u64, len: u64) -> u64 {
        let end = offset.saturating_add(len);
        let mut gen: Option<u64> = None;
        let mut drop: Vec<(u32, u64)> = Vec::new();
        // Entries are disjoint, so sorted by start they are sorted by end too: walk back from
        // the last one starting before `end` until one ends at or before `offset`.
        for (&(f, s), &(l, g)) in self.blocks.range((file, 0)..(file, end)).rev() {
            debug_assert_eq!(f, file);
            if s + l <= offset {
                break;
            }
            gen = Some(gen.map_or(g, |m: u64| m.max(g)));
            drop.push((f, s));
        }
        for k in drop {
            self.blocks.remove(&k);
        }
        let gen = gen.map_or(0, |g| g + 1);
        self.blocks.insert((file, offset), (len, gen));
        gen
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The logged blocks in (file, offset) order: (file, offset, len, gen).
    pub fn blocks(&self) -> impl Iterator<Item = (u32, u64, u64, u64)> + '_ {
        self.blocks.iter().map(|(&(f, o), &(l, g))| (f, o, l, g))
    }

    /// Put a block in the log as it is (what `verify_backlog` left unverified).
    pub fn insert(&mut self, file: u32, offset: u64, len: u64, gen: u64) {
        self.blocks.insert((file, offset), (len, gen));
    }

    fn gen_of(&self, file: u32, offset: u64) -> Option<u64> {
        self.blocks.get(&(file, offset)).map(|e| e.1)
    }

    /// Replay a request stream into the log without doing any I/O (`verify_only`).
    pub fn replay(&mut self, src: &mut dyn RequestSource) -> u64 {
        let mut r = IoRequest::default();
        let mut n = 0;
        while src.next_into(&mut r) {
            if r.dir == IoDir::Write {
                self.note(r.file, r.offset, r.len);
                n += 1;
            }
        }
        n
    }
}

/// Write buffers: the data crate's bytes for (file, offset, generation), stamped with a
/// verify header when `verify=` is set, every write logged for the verify phase.
pub struct VerifyFill {
    gen: DataGen,
    cfg: DataConfig,
    seed: u64,
    /// `Some` when the job verifies what it writes.
    pub log: Option<VerifyLog>,
    /// `verify_backlog`: every write is logged there too, to be read back while writing.
    pub backlog: Option<crate::backlog::SharedBacklog>,
}

impl VerifyFill {
    pub fn new(cfg: &DataConfig, seed: u64, verify: bool) -> Self {
        VerifyFill {
            gen: DataGen::new(cfg, seed),
            cfg: cfg.clone(),
            seed,
            log: verify.then(VerifyLog::default),
            backlog: None,
        }
    }
}

impl BufFill for VerifyFill {
    #[inline]
    fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        match &mut self.log {
            None => self.gen.fill(buf, file, offset, 0),
            Some(log) => {
                let g = log.note(file, offset, buf.len() as u64);
                if let Some(b) = &self.backlog {
                    let mut b = b.lock().unwrap_or_else(|e| e.into_inner());
                    b.log_write(file, offset, buf.len() as u64, g);
                }
                self.gen.fill(buf, file, offset, g);
                iolab_data::stamp(buf, &self.cfg.verify_ctx(file, offset, g, self.seed));
            }
        }
    }
}

/// Checks read buffers against their headers and keeps the counts and the first failures.
/// With a log, the expected generation is the logged one; without (a read job with
/// `verify=`, checking what an earlier job wrote), any generation is accepted.
///
/// A job that does not both read and write takes each block's seed from its header, as fio
/// verify.c `verify_io_u` does (`if (!td_rw(td) ...) io_u->rand_seed = hdr->rand_seed`): a
/// read job or a `verify_only` job checks what another job or run wrote.
pub struct VerifyCheck {
    cfg: DataConfig,
    seed: u64,
    /// Take the seed from each block's header (fio: the job is not read+write).
    header_seed: bool,
    /// Regenerates a failed block as written, to name the first wrong byte.
    gen: DataGen,
    log: Option<VerifyLog>,
    paths: Vec<PathBuf>,
    pub stats: VerifyStats,
    pub failures: Vec<VerifyFailureReport>,
}

impl VerifyCheck {
    pub fn new(cfg: &DataConfig, seed: u64, log: Option<VerifyLog>, paths: Vec<PathBuf>) -> Self {
        VerifyCheck {
            cfg: cfg.clone(),
            seed,
            header_seed: false,
            gen: DataGen::new(cfg, seed),
            log,
            paths,
            stats: VerifyStats::default(),
            failures: Vec::new(),
        }
    }

    /// Take each block's seed from its header (fio's read-only and write-only jobs).
    pub fn seed_from_header(mut self, on: bool) -> Self {
        self.header_seed = on;
        self
    }

    /// The counts and listed failures as the result reports them (`read`/`runtime_ns` are the
    /// caller's).
    pub fn result(&self) -> VerifyResult {
        let s = &self.stats;
        VerifyResult {
            kind: self.cfg.verify.name().to_string(),
            checked: s.checked,
            ok: s.ok,
            corruption: s.corruption,
            misplaced: s.misplaced,
            stale: s.stale,
            torn: s.torn,
            bad_header: s.bad_header,
            failures: self.failures.clone(),
            ..Default::default()
        }
    }

    fn report(&self, f: &VerifyFailure) -> VerifyFailureReport {
        let kind = match f.kind {
            FailureKind::Corruption { .. } => "corruption",
            FailureKind::Misplaced { .. } => "misplaced",
            FailureKind::Stale { .. } => "stale",
            FailureKind::Torn { .. } => "torn",
            FailureKind::BadHeader { .. } => "bad_header",
            FailureKind::WrongKind { .. } => "wrong_kind",
        };
        let e = &f.expected;
        let found = match &f.found {
            Some(h) => {
                format!("file {} offset {} gen {} seed {:#x}", h.file, h.offset, h.gen, h.seed)
            }
            None => "no readable header".to_string(),
        };
        let path = self.paths.get(f.file as usize);
        VerifyFailureReport {
            file: path.map_or_else(|| format!("file {}", f.file), |p| p.display().to_string()),
            offset: f.offset,
            len: f.len,
            kind: kind.to_string(),
            expected: format!(
                "file {} offset {} gen {} seed {:#x}",
                e.file, e.offset, e.gen, e.seed
            ),
            found,
            message: f.to_string(),
        }
    }
}

impl ReadCheck for VerifyCheck {
    fn check(&mut self, buf: &[u8], file: u32, offset: u64) -> Result<(), Box<VerifyFailure>> {
        let logged = self.log.as_ref().and_then(|l| l.gen_of(file, offset));
        self.check_gen(buf, file, offset, logged)
    }
}

impl VerifyCheck {
    /// Check a block against generation `logged` (`None`: not logged, any generation is
    /// accepted).
    pub fn check_gen(
        &mut self,
        buf: &[u8],
        file: u32,
        offset: u64,
        logged: Option<u64>,
    ) -> Result<(), Box<VerifyFailure>> {
        let gen = logged.unwrap_or(0);
        let seed = match iolab_data::verify::header::Header::read(buf) {
            Ok(h) if self.header_seed => h.seed,
            _ => self.seed,
        };
        let ctx = self.cfg.verify_ctx(file, offset, gen, seed);
        let mut r = iolab_data::check(buf, &ctx);
        if logged.is_none() {
            if let Err(VerifyFailure { kind: FailureKind::Stale { .. }, .. }) = r {
                r = Ok(());
            }
        }
        self.stats.record(&r);
        match r {
            Ok(()) => Ok(()),
            Err(mut f) => {
                if matches!(f.kind, FailureKind::Corruption { .. }) {
                    // Without a log the header's generation is the one written.
                    let g = f.found.map_or(gen, |h| h.gen);
                    let mut written = vec![0u8; buf.len()];
                    if seed == self.seed {
                        self.gen.fill(&mut written, file, offset, g);
                    } else {
                        DataGen::new(&self.cfg, seed).fill(&mut written, file, offset, g);
                    }
                    iolab_data::stamp(&mut written, &self.cfg.verify_ctx(file, offset, g, seed));
                    f.locate(buf, &written);
                }
                if self.failures.len() < VerifyResult::MAX_LISTED {
                    let rep = self.report(&f);
                    self.failures.push(rep);
                }
                // Only `verify_fatal` stops the job; otherwise every block is counted.
                if self.cfg.verify_fatal {
                    Err(Box::new(f))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// The verify phase's request stream: one read per logged block, in offset order.
pub struct VerifySource {
    blocks: std::vec::IntoIter<(u32, u64, u64, u64)>,
}

impl VerifySource {
    pub fn new(log: &VerifyLog) -> Self {
        VerifySource { blocks: log.blocks().collect::<Vec<_>>().into_iter() }
    }
}

impl RequestSource for VerifySource {
    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        match self.blocks.next() {
            Some((file, offset, len, _)) => {
                *r = IoRequest { dir: IoDir::Read, file, offset, len, issue_at: None };
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_bumps_generation_and_overlaps_are_dropped() {
        let mut l = VerifyLog::default();
        assert_eq!(l.note(0, 0, 4096), 0);
        assert_eq!(l.note(0, 4096, 4096), 0);
        assert_eq!(l.note(0, 0, 4096), 1);
        assert_eq!(l.note(1, 0, 4096), 0, "other file");
        // An 8 KiB write at 2 KiB overlaps both blocks of file 0: both go, gen = max + 1.
        assert_eq!(l.note(0, 2048, 8192), 2);
        let b: Vec<_> = l.blocks().collect();
        assert_eq!(b, vec![(0, 2048, 8192, 2), (1, 0, 4096, 0)]);
    }

    #[test]
    fn stamped_fill_checks_clean_and_flags_a_flipped_byte() {
        let cfg = DataConfig {
            verify: iolab_data::VerifyKind::Crc32c,
            refill_buffers: true,
            ..Default::default()
        };
        let mut fill = VerifyFill::new(&cfg, 7, true);
        let mut buf = vec![0u8; 8192];
        fill.fill(&mut buf, 0, 8192);
        let log = fill.log.take().unwrap();
        let mut c = VerifyCheck::new(&cfg, 7, Some(log), vec![PathBuf::from("f")]);
        assert_eq!(c.check(&buf, 0, 8192), Ok(()));
        buf[5000] ^= 1;
        assert_eq!(c.check(&buf, 0, 8192), Ok(()), "not fatal: counted only");
        assert_eq!((c.stats.checked, c.stats.ok, c.stats.corruption), (2, 1, 1));
        assert_eq!(c.failures[0].offset, 8192);
        assert_eq!(c.failures[0].kind, "corruption");
        assert_eq!(c.failures[0].file, "f");
    }
}
