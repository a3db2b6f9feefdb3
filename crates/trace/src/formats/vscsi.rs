//! VMware vscsiStats binary traces (the CloudPhysics collection), laid out as libCacheSim's
//! `traceReader/customizedReader/vscsi.h` reads them, little-endian, naturally aligned:
//!
//! * v1, 32 bytes: `u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts`
//! * v2, 40 bytes: `u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts, u64 rt`
//!
//! `ver >> 8` is the version; like libCacheSim we test the first two records for v2, then v1.
//! `len` is in bytes, `lbn` in 512-byte sectors, `ts` in microseconds, `cmd` the SCSI opcode
//! (libCacheSim leaves `op` unparsed; we decode it as the CSV form does, see
//! [`super::cloudphysics::scsi_dir`]).

use super::cloudphysics::{scsi_dir, SCSI_EXPECTED};
use super::oracle::read_full;
use crate::reader::Parse;
use crate::text;
use crate::{TraceErrorKind, TraceRecord, SECTOR};
use std::io::BufRead;

const V1: usize = 32;
const V2: usize = 40;

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn le64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The record size of the version the first two records agree on, if any.
pub(crate) fn version(head: &[u8]) -> Option<usize> {
    if head.len() >= 2 * V2 && (0..2).all(|i| le16(head, i * V2 + 2) >> 8 == 2) {
        Some(V2)
    } else if head.len() >= 2 * V1 && (0..2).all(|i| le16(head, i * V1 + 14) >> 8 == 1) {
        Some(V1)
    } else {
        None
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    version(head).is_some()
}

pub(crate) struct Vscsi {
    inner: Box<dyn BufRead>,
    record_bytes: usize,
    record: u64,
}

impl Vscsi {
    pub(crate) fn new(mut inner: Box<dyn BufRead>) -> Self {
        let record_bytes = inner.fill_buf().ok().and_then(version).unwrap_or(0);
        Vscsi { inner, record_bytes, record: 0 }
    }
}

impl Parse for Vscsi {
    const NAME: &'static str = "vscsi";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        if self.record_bytes == 0 {
            let head = self.inner.fill_buf()?;
            if head.is_empty() {
                return Ok(false);
            }
            self.record = 1;
            let found = format!("{} bytes without a v1/v2 version field", head.len().min(V2 * 2));
            // Unrecoverable: without a version the record size is unknown.
            let n = head.len();
            self.inner.consume(n);
            while !self.inner.fill_buf()?.is_empty() {
                let n = self.inner.fill_buf()?.len();
                self.inner.consume(n);
            }
            return Err(TraceErrorKind::BadField {
                field: "ver",
                expected: "vscsi version 1 or 2 in the first two records",
                found,
            });
        }
        let mut b = [0u8; V2];
        let b = &mut b[..self.record_bytes];
        let got = read_full(&mut self.inner, b)?;
        if got == 0 {
            return Ok(false);
        }
        self.record += 1;
        if got < b.len() {
            return Err(TraceErrorKind::Truncated { got, want: b.len() });
        }
        let (cmd, len, lbn, ts) = if self.record_bytes == V1 {
            (le16(b, 12), le32(b, 4), le64(b, 16), le64(b, 24))
        } else {
            (le16(b, 0), le32(b, 8), le64(b, 16), le64(b, 24))
        };
        let dir = scsi_dir(cmd as u64).ok_or_else(|| TraceErrorKind::UnknownOp {
            found: format!("{cmd:02x}"),
            expected: SCSI_EXPECTED,
        })?;
        rec.time_ns = text::mul(ts, 1_000, "ts")?;
        rec.req.dir = dir;
        rec.req.offset = text::mul(lbn, SECTOR, "lbn")?;
        rec.req.len = len as u64;
        rec.obj_id = lbn;
        rec.size = len as u64;
        Ok(true)
    }

    fn position(&self) -> (u64, u64) {
        (self.record, self.record.saturating_sub(1) * self.record_bytes as u64)
    }
}
