//! libCacheSim's oracleGeneral binary trace (`traceReader/customizedReader/oracle/
//! oracleGeneralBin.h`): packed little-endian 24-byte records
//! `{u32 clock_time; u64 obj_id; u32 obj_size; i64 next_access_vtime}`, where
//! `next_access_vtime` is the absolute index of the next request to the same object, -1 if
//! none. The format has no operation field: every record reads as a read.
//!
//! The time unit and the bytes per `obj_id` (to turn it into a byte offset for replay) are
//! [`ReaderConfig`](crate::ReaderConfig) fields because producers differ.

use crate::reader::Parse;
use crate::{text, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::{BufRead, Read};

pub const RECORD_BYTES: usize = 24;

pub(crate) struct OracleGeneral {
    inner: Box<dyn BufRead>,
    time_unit_ns: u64,
    id_unit_bytes: u64,
    record: u64,
}

impl OracleGeneral {
    pub(crate) fn new(inner: Box<dyn BufRead>, time_unit_ns: u64, id_unit_bytes: u64) -> Self {
        OracleGeneral { inner, time_unit_ns, id_unit_bytes, record: 0 }
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

impl Parse for OracleGeneral {
    const NAME: &'static str = "oracleGeneral";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        let mut b = [0u8; RECORD_BYTES];
        let got = read_full(&mut self.inner, &mut b)?;
        if got == 0 {
            return Ok(false);
        }
        self.record += 1;
        if got < RECORD_BYTES {
            return Err(TraceErrorKind::Truncated { got, want: RECORD_BYTES });
        }
        let time = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let obj_id = u64::from_le_bytes([b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11]]);
        let size = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as u64;
        let next = i64::from_le_bytes([b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]]);
        rec.time_ns = text::mul(time, self.time_unit_ns, "clock_time")?;
        rec.req.dir = IoDir::Read;
        rec.req.offset = text::mul(obj_id, self.id_unit_bytes, "obj_id")?;
        rec.req.len = size;
        rec.obj_id = obj_id;
        rec.size = size;
        rec.next_access = next;
        Ok(true)
    }

    fn position(&self) -> (u64, u64) {
        (self.record, self.record.saturating_sub(1) * RECORD_BYTES as u64)
    }
}
