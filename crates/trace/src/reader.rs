//! The [`TraceReader`] trait, reader options, and the wrapper that gives every format the same
//! lenient-mode, record-position and time-origin behaviour.

use crate::error::UNKNOWN_OFFSET;
use crate::{ObjectRequest, TraceError, TraceErrorKind, TraceRecord};
use iolab_core::Nanos;

/// A source of trace records. `read_into` overwrites every field of `rec` and returns
/// `Ok(false)` at the end of the trace.
pub trait TraceReader {
    fn read_into(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError>;
    /// Fill `recs` from the front; returns how many were read (fewer than `recs.len()` only at
    /// the end of the trace). One call per batch instead of one dynamic call per record: the
    /// object-level replay reads tens of millions of records per second.
    fn read_batch(&mut self, recs: &mut [TraceRecord]) -> Result<usize, TraceError> {
        for (i, r) in recs.iter_mut().enumerate() {
            if !self.read_into(r)? {
                return Ok(i);
            }
        }
        Ok(recs.len())
    }
    /// Fill `out` from the front with what an object-level cache simulation reads of each
    /// record; returns how many were read, as [`TraceReader::read_batch`]. Same records, errors
    /// and lenient skips as `read_into`; formats with a fixed binary layout (oracleGeneral)
    /// decode straight into `out` without building a [`TraceRecord`].
    fn read_objects(&mut self, out: &mut [ObjectRequest]) -> Result<usize, TraceError> {
        let mut rec = TraceRecord::default();
        for (i, o) in out.iter_mut().enumerate() {
            if !self.read_into(&mut rec)? {
                return Ok(i);
            }
            *o = ObjectRequest::of(&rec);
        }
        Ok(out.len())
    }
    /// The registry name of the format (`cloudphysics`, `oracleGeneral`, ...).
    fn format(&self) -> &'static str;
    /// Malformed records skipped in lenient mode so far.
    fn skipped(&self) -> u64;
    /// Records returned so far.
    fn records(&self) -> u64;
    /// Names of the devices/files that `req.file` indexes, as far as the trace names them
    /// (fio iolog file names, blkparse `maj,min`, MSR `host,disk`, volume ids).
    fn file_names(&self) -> Vec<String> {
        Vec::new()
    }
}

impl<R: TraceReader + ?Sized> TraceReader for Box<R> {
    fn read_into(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        (**self).read_into(rec)
    }
    fn read_batch(&mut self, recs: &mut [TraceRecord]) -> Result<usize, TraceError> {
        (**self).read_batch(recs)
    }
    fn read_objects(&mut self, out: &mut [ObjectRequest]) -> Result<usize, TraceError> {
        (**self).read_objects(out)
    }
    fn format(&self) -> &'static str {
        (**self).format()
    }
    fn skipped(&self) -> u64 {
        (**self).skipped()
    }
    fn records(&self) -> u64 {
        (**self).records()
    }
    fn file_names(&self) -> Vec<String> {
        (**self).file_names()
    }
}

/// Options for readers. Plain data; the defaults follow each format's usual producer.
#[derive(Clone, Debug)]
pub struct ReaderConfig {
    /// Skip malformed records and count them ([`TraceReader::skipped`]) instead of failing.
    pub lenient: bool,
    /// Unit of oracleGeneral's `u32 clock_time`, in ns. libCacheSim writes seconds; the
    /// bundled CloudPhysics conversion keeps the original microseconds.
    pub oracle_time_unit_ns: u64,
    /// Bytes per oracleGeneral `obj_id` step when turning it into a byte offset (block traces
    /// converted by libCacheSim key objects by 512-byte LBN).
    pub oracle_id_unit_bytes: u64,
    /// Which blkparse action to take as the request stream: `Q` (queued, what the
    /// application asked for, before merging) or `D` (issued to the driver), `C` (completed).
    pub blkparse_action: u8,
    /// Column layout for libCacheSim-style generic CSV.
    pub csv: crate::formats::lcs_csv::CsvSpec,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            lenient: false,
            oracle_time_unit_ns: Nanos::PER_SEC,
            oracle_id_unit_bytes: crate::SECTOR,
            blkparse_action: b'Q',
            csv: Default::default(),
        }
    }
}

/// What each format implements: parse the next record, or say where the last one started.
pub(crate) trait Parse {
    const NAME: &'static str;
    /// Fill `rec` (time in `time_ns`; `issue_at` is set by the wrapper). `Io` errors are fatal;
    /// other kinds are per-record and skippable in lenient mode.
    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind>;
    /// `next` reduced to what an object-level simulation reads; formats override it when
    /// they can skip building the whole record.
    #[inline]
    fn next_object(&mut self, o: &mut ObjectRequest) -> Result<bool, TraceErrorKind> {
        let mut rec = TraceRecord { next_access: -1, ..TraceRecord::default() };
        let more = self.next(&mut rec)?;
        if more {
            *o = ObjectRequest::of(&rec);
        }
        Ok(more)
    }
    /// Fills `out` from the front with `next_object`s: returns how many records it filled and
    /// how it stopped: `Ok(true)` when `out` is full, `Ok(false)` at the end of the trace,
    /// or the error of the record after the filled ones (which is consumed, as `next` would).
    /// Formats with fixed-size records override it to decode a block at a time.
    #[inline]
    fn next_objects(&mut self, out: &mut [ObjectRequest]) -> (usize, Result<bool, TraceErrorKind>) {
        for (i, o) in out.iter_mut().enumerate() {
            match self.next_object(o) {
                Ok(true) => {}
                stop => return (i, stop),
            }
        }
        (out.len(), Ok(true))
    }
    /// (1-based record or line number, byte offset) of the record last attempted.
    fn position(&self) -> (u64, u64);
    fn file_names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The largest request a record may carry: 1 TiB. Block traces store sizes in 32 bits
/// (blktrace's `bytes`, oracleGeneral's `obj_size`); a larger one is a corrupt or hostile
/// record, and sums of such sizes overflow byte counters (a 2^64 − 1 size after a 4 KiB
/// record panicked `sim --trace` and `mrc`, and printed `(4095B/8msec)` in a release build).
pub const MAX_RECORD_BYTES: u64 = 1 << 40;

fn oversize(size: u64) -> TraceErrorKind {
    TraceErrorKind::BadField {
        field: "size",
        expected: "at most 1 TiB (2^40 bytes) per request",
        found: size.to_string(),
    }
}

/// Turns a [`Parse`] into a [`TraceReader`].
pub(crate) struct Reader<P> {
    parser: P,
    source_name: String,
    lenient: bool,
    skipped: u64,
    records: u64,
    first_time: Option<u64>,
}

impl<P: Parse> Reader<P> {
    pub(crate) fn new(parser: P, source_name: &str, cfg: &ReaderConfig) -> Self {
        Reader {
            parser,
            source_name: source_name.to_string(),
            lenient: cfg.lenient,
            skipped: 0,
            records: 0,
            first_time: None,
        }
    }
}

impl<P: Parse> Reader<P> {
    /// A record failed to parse: counted and skipped in lenient mode (`Ok`), else the error
    /// with the record's position. I/O errors are always fatal.
    #[cold]
    fn failed(&mut self, kind: TraceErrorKind) -> Result<(), TraceError> {
        let fatal = matches!(kind, TraceErrorKind::Io(_));
        if self.lenient && !fatal {
            self.skipped += 1;
            return Ok(());
        }
        let (record, offset) = self.parser.position();
        Err(TraceError::new(&self.source_name, record, offset, kind))
    }
}

impl<P: Parse> TraceReader for Reader<P> {
    #[inline]
    fn read_into(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        loop {
            rec.req.file = 0;
            rec.next_access = -1;
            match self.parser.next(rec) {
                Ok(true) if rec.size > MAX_RECORD_BYTES || rec.req.len > MAX_RECORD_BYTES => {
                    self.failed(oversize(rec.size.max(rec.req.len)))?;
                }
                Ok(true) if rec.req.offset.checked_add(rec.req.len).is_none() => {
                    self.failed(TraceErrorKind::Overflow { what: "offset + size" })?;
                }
                Ok(true) => {
                    let first = *self.first_time.get_or_insert(rec.time_ns);
                    rec.req.issue_at = Some(Nanos(rec.time_ns.saturating_sub(first)));
                    self.records += 1;
                    return Ok(true);
                }
                Ok(false) => return Ok(false),
                Err(kind) => self.failed(kind)?,
            }
        }
    }
    fn read_batch(&mut self, recs: &mut [TraceRecord]) -> Result<usize, TraceError> {
        // The same loop as the provided one, but monomorphic: `read_into` and the parser's
        // `next` inline into it.
        for (i, r) in recs.iter_mut().enumerate() {
            if !self.read_into(r)? {
                return Ok(i);
            }
        }
        Ok(recs.len())
    }
    fn read_objects(&mut self, out: &mut [ObjectRequest]) -> Result<usize, TraceError> {
        let mut i = 0;
        while i < out.len() {
            let (n, stop) = self.parser.next_objects(&mut out[i..]);
            let mut kept = n;
            if let Some(k) = out[i..i + n].iter().position(|o| o.size > MAX_RECORD_BYTES) {
                if !self.lenient {
                    // The parser stands at the batch's last record; count back from it.
                    let record = self.parser.position().0.saturating_sub((n - 1 - k) as u64);
                    let kind = oversize(out[i + k].size);
                    return Err(TraceError::new(&self.source_name, record, UNKNOWN_OFFSET, kind));
                }
                // Lenient: the oversized records are skipped, the rest kept in order.
                let mut w = i;
                for r in i..i + n {
                    if out[r].size <= MAX_RECORD_BYTES {
                        out[w] = out[r];
                        w += 1;
                    }
                }
                kept = w - i;
                self.skipped += (n - kept) as u64;
            }
            i += kept;
            self.records += kept as u64;
            match stop {
                Ok(true) => {}
                Ok(false) => return Ok(i),
                // Lenient mode skips the bad record and goes on filling.
                Err(kind) => self.failed(kind)?,
            }
        }
        Ok(out.len())
    }
    fn format(&self) -> &'static str {
        P::NAME
    }
    fn skipped(&self) -> u64 {
        self.skipped
    }
    fn records(&self) -> u64 {
        self.records
    }
    fn file_names(&self) -> Vec<String> {
        self.parser.file_names()
    }
}
