//! libCacheSim's oracleGeneral binary trace (`traceReader/customizedReader/oracle/
//! oracleGeneralBin.h`): packed little-endian 24-byte records
//! `{u32 clock_time; u64 obj_id; u32 obj_size; i64 next_access_vtime}`, where
//! `next_access_vtime` is the absolute index of the next request to the same object, -1 if
//! none. The format has no operation field: every record reads as a read.
//!
//! The time unit and the bytes per `obj_id` (to turn it into a byte offset for replay) are
//! [`ReaderConfig`](crate::ReaderConfig) fields because producers differ.
//!
//! Records are decoded straight out of a private 96 KiB block filled by one `read` call per
//! 4096 records: a 24-byte `read` through `dyn BufRead` per record cost about a third of an
//! `iolab sim --object-level` run (perf, 20 M-request Zipf trace).

use crate::reader::Parse;
use crate::{text, ObjectRequest, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::{BufRead, Read};

pub const RECORD_BYTES: usize = 24;
/// Records per refill of the private block.
const BLOCK_RECORDS: usize = 4096;

pub(crate) struct OracleGeneral {
    inner: Box<dyn BufRead>,
    time_unit_ns: u64,
    id_unit_bytes: u64,
    record: u64,
    /// Bytes read but not yet decoded are `block[pos..end]`.
    block: Box<[u8]>,
    pos: usize,
    end: usize,
}

impl OracleGeneral {
    pub(crate) fn new(inner: Box<dyn BufRead>, time_unit_ns: u64, id_unit_bytes: u64) -> Self {
        OracleGeneral {
            inner,
            time_unit_ns,
            id_unit_bytes,
            record: 0,
            block: vec![0u8; BLOCK_RECORDS * RECORD_BYTES].into_boxed_slice(),
            pos: 0,
            end: 0,
        }
    }

    /// Moves the undecoded tail to the front and reads until a whole record is there or the
    /// stream ends.
    #[cold]
    fn refill(&mut self) -> std::io::Result<()> {
        self.block.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.end < RECORD_BYTES {
            match self.inner.read(&mut self.block[self.end..]) {
                Ok(0) => break,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl OracleGeneral {
    /// The next record's 24 bytes (`None` at the end), counting it; a short final record is
    /// `Truncated`.
    #[inline]
    fn take(&mut self) -> Result<Option<&[u8]>, TraceErrorKind> {
        if self.end - self.pos < RECORD_BYTES {
            self.refill()?;
            if self.end == 0 {
                return Ok(None);
            }
        }
        self.record += 1;
        let avail = self.end - self.pos;
        if avail < RECORD_BYTES {
            self.pos = self.end;
            return Err(TraceErrorKind::Truncated { got: avail, want: RECORD_BYTES });
        }
        let start = self.pos;
        self.pos += RECORD_BYTES;
        match self.block.get(start..start + RECORD_BYTES) {
            Some(b) => Ok(Some(b)),
            None => Err(TraceErrorKind::Truncated { got: avail, want: RECORD_BYTES }),
        }
    }
}

/// Reads as many bytes as are there up to `buf.len()`, so a short final record is reported
/// with its true length rather than as an I/O error.
pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Plausibility check on the first records: sizes non-zero and `next_access_vtime` either -1
/// or a later index.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let n = (head.len() / RECORD_BYTES).min(64);
    if n == 0 {
        return false;
    }
    head.contains(&0)
        && (0..n).all(|i| {
            let r = &head[i * RECORD_BYTES..(i + 1) * RECORD_BYTES];
            let size = u32::from_le_bytes([r[12], r[13], r[14], r[15]]);
            let next = i64::from_le_bytes([r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23]]);
            size > 0 && (next == -1 || next > i as i64)
        })
}

/// One record's fields, little-endian: `clock_time` u32, `obj_id` u64, `obj_size` u32,
/// `next_access_vtime` i64 (24 bytes).
struct Fields {
    time: u64,
    obj_id: u64,
    size: u64,
    next: i64,
}

/// Decodes the record at the start of `b` (at least [`RECORD_BYTES`] long): the one place the
/// layout is read, for the record, the object view and the batch decode alike.
#[inline(always)]
fn fields(b: &[u8]) -> Fields {
    Fields {
        time: u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        obj_id: u64::from_le_bytes([b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11]]),
        size: u64::from(u32::from_le_bytes([b[12], b[13], b[14], b[15]])),
        next: i64::from_le_bytes([b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]]),
    }
}

impl Parse for OracleGeneral {
    const NAME: &'static str = "oracleGeneral";

    #[inline]
    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        let (time_unit_ns, id_unit_bytes) = (self.time_unit_ns, self.id_unit_bytes);
        let Some(b) = self.take()? else { return Ok(false) };
        let Fields { time, obj_id, size, next } = fields(b);
        // checked_mul inline; the error (and its construction) only on the cold path.
        let (Some(t), Some(off)) =
            (time.checked_mul(time_unit_ns), obj_id.checked_mul(id_unit_bytes))
        else {
            rec.time_ns = text::mul(time, time_unit_ns, "clock_time")?;
            return Err(TraceErrorKind::Overflow { what: "obj_id" });
        };
        rec.time_ns = t;
        rec.req.dir = IoDir::Read;
        rec.req.offset = off;
        rec.req.len = size;
        rec.obj_id = obj_id;
        rec.size = size;
        rec.next_access = next;
        Ok(true)
    }

    /// The object view without the record: the same checks as `next` (a truncated record,
    /// `clock_time` or `obj_id` overflowing their units), none of the other fields.
    #[inline]
    fn next_object(&mut self, o: &mut ObjectRequest) -> Result<bool, TraceErrorKind> {
        let (time_unit_ns, id_unit_bytes) = (self.time_unit_ns, self.id_unit_bytes);
        let Some(b) = self.take()? else { return Ok(false) };
        let Fields { time, obj_id, size, next } = fields(b);
        if time.checked_mul(time_unit_ns).is_none() {
            text::mul(time, time_unit_ns, "clock_time")?;
        }
        if obj_id.checked_mul(id_unit_bytes).is_none() {
            return Err(TraceErrorKind::Overflow { what: "obj_id" });
        }
        *o = ObjectRequest { obj_id, next_access: next, write: false, size };
        Ok(true)
    }

    /// Decodes whole records straight out of the block, a run at a time: the overflow checks
    /// are one compare each against limits computed once (`clock_time * unit` fits iff
    /// `clock_time <= u64::MAX / unit`), and a refill or a bad record goes through
    /// [`Parse::next_object`], which reports it exactly as record-at-a-time reading does.
    fn next_objects(&mut self, out: &mut [ObjectRequest]) -> (usize, Result<bool, TraceErrorKind>) {
        let time_max = u64::MAX / self.time_unit_ns.max(1);
        let id_max = u64::MAX / self.id_unit_bytes.max(1);
        let mut n = 0;
        while n < out.len() {
            let whole = (self.end - self.pos) / RECORD_BYTES;
            if whole == 0 {
                match self.next_object(&mut out[n]) {
                    Ok(true) => n += 1,
                    stop => return (n, stop),
                }
                continue;
            }
            let bytes = self.block.get(self.pos..self.pos + whole * RECORD_BYTES).unwrap_or(&[]);
            let mut good = 0;
            for (b, o) in bytes.chunks_exact(RECORD_BYTES).zip(&mut out[n..]) {
                let Fields { time, obj_id, size, next } = fields(b);
                if time > time_max || obj_id > id_max {
                    break;
                }
                *o = ObjectRequest { obj_id, next_access: next, write: false, size };
                good += 1;
            }
            self.pos += good * RECORD_BYTES;
            self.record += good as u64;
            n += good;
            if n < out.len() && good < whole {
                // The record at `pos` overflows a unit: decode it the slow way for its error.
                match self.next_object(&mut out[n]) {
                    Ok(true) => n += 1,
                    stop => return (n, stop),
                }
            }
        }
        (n, Ok(true))
    }

    fn position(&self) -> (u64, u64) {
        (self.record, self.record.saturating_sub(1) * RECORD_BYTES as u64)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::TraceReader;

    /// A source that hands out at most 7 bytes per `read`, so records straddle reads and
    /// block refills.
    struct Trickle(std::io::Cursor<Vec<u8>>);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7);
            self.0.read(&mut buf[..n])
        }
    }

    /// `n` records (object `i * 7919`, size `1 + i % 5`, next access `i + 9` or none) and a
    /// 5-byte truncated one, read 7 bytes at a time.
    fn trickled(n: u64, cfg: &crate::ReaderConfig) -> Box<dyn TraceReader> {
        let mut bytes = Vec::new();
        for i in 0..n {
            bytes.extend_from_slice(&(i as u32).to_le_bytes());
            bytes.extend_from_slice(&(i * 7919).to_le_bytes());
            bytes.extend_from_slice(&(1 + i as u32 % 5).to_le_bytes());
            bytes.extend_from_slice(&(if i % 3 == 0 { -1 } else { i as i64 + 9 }).to_le_bytes());
        }
        bytes.extend_from_slice(&[1, 2, 3, 4, 5]);
        let inner = std::io::BufReader::with_capacity(16, Trickle(std::io::Cursor::new(bytes)));
        crate::open_reader(Box::new(inner), "t.bin", Some("oracleGeneral"), cfg).unwrap()
    }

    #[test]
    fn object_view_reads_the_same_records_and_errors_as_read_into() {
        let n = BLOCK_RECORDS as u64 + 77;
        let cfg = crate::ReaderConfig { oracle_id_unit_bytes: 1, ..Default::default() };
        let mut r = trickled(n, &cfg);
        let mut out = vec![ObjectRequest::default(); 1000];
        let mut got = Vec::new();
        loop {
            match r.read_objects(&mut out) {
                Ok(0) => break,
                Ok(k) => got.extend_from_slice(&out[..k]),
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains("truncated record: 5 of 24 bytes"), "{e}");
                    assert!(e.contains(&format!("record {}", n + 1)), "{e}");
                    // what was read before the error in that batch is lost with it, as in
                    // read_batch; the count says how far the reader got
                    break;
                }
            }
        }
        assert_eq!(r.records(), n);
        assert_eq!(got.len() as u64, n / 1000 * 1000);
        for (i, o) in got.iter().enumerate() {
            let i = i as u64;
            let next = if i % 3 == 0 { -1 } else { i as i64 + 9 };
            let want = ObjectRequest {
                obj_id: i * 7919,
                next_access: next,
                write: false,
                size: 1 + i % 5,
            };
            assert_eq!(*o, want);
        }
        // lenient: the truncated record is skipped and counted, the stream ends cleanly
        let lenient = crate::ReaderConfig { lenient: true, ..cfg };
        let mut r = trickled(n, &lenient);
        let mut out = vec![ObjectRequest::default(); BLOCK_RECORDS * 2];
        assert_eq!(r.read_objects(&mut out).unwrap() as u64, n);
        assert_eq!((r.records(), r.skipped()), (n, 1));
    }

    #[test]
    fn object_view_refuses_an_obj_id_that_overflows_its_byte_unit() {
        let cfg = crate::ReaderConfig { oracle_id_unit_bytes: 1 << 52, ..Default::default() };
        let mut r = trickled(100, &cfg);
        let mut out = vec![ObjectRequest::default(); 10];
        // record 1 has obj_id 0; record 2's 7919 << 52 overflows a u64
        let e = r.read_objects(&mut out).unwrap_err().to_string();
        assert!(e.contains("obj_id") && e.contains("record 2"), "{e}");
    }

    #[test]
    fn short_reads_across_block_refills_decode_every_record() {
        let n = BLOCK_RECORDS as u64 * 2 + 123;
        let cfg = crate::ReaderConfig { oracle_id_unit_bytes: 1, ..Default::default() };
        let mut r = trickled(n, &cfg);
        let mut rec = TraceRecord::default();
        for i in 0..n {
            assert!(r.read_into(&mut rec).unwrap(), "record {i}");
            assert_eq!(rec.obj_id, i * 7919);
            assert_eq!(rec.req.offset, i * 7919);
            assert_eq!(rec.size, 1 + i % 5);
            assert_eq!(rec.time_ns, i * 1_000_000_000);
            assert_eq!(rec.next_access, if i % 3 == 0 { -1 } else { i as i64 + 9 });
        }
        let e = r.read_into(&mut rec).unwrap_err().to_string();
        assert!(e.contains("truncated record: 5 of 24 bytes"), "{e}");
        assert!(e.contains(&format!("record {}", n + 1)), "{e}");
        assert!(!r.read_into(&mut rec).unwrap());
        assert_eq!(r.records(), n);
    }
}
