//! CloudPhysics block trace in CSV, as redistributed with libCacheSim
//! (`data/cloudPhysicsIO.csv`): header `version,time,op,size,lbn`; `time` in microseconds,
//! `op` the SCSI CDB opcode in hex, `size` in bytes, `lbn` in 512-byte sectors. This is the
//! text form of VMware's vscsiStats records (see [`super::vscsi`]).
//!
//! Opcodes (SCSI SBC-3): `08`/`28`/`a8`/`88` READ(6/10/12/16), `0a`/`2a`/`aa`/`8a`
//! WRITE(6/10/12/16), `35`/`91` SYNCHRONIZE CACHE(10/16), `42` UNMAP. Anything else is an
//! error naming the opcode, never silently dropped.

use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{TraceErrorKind, TraceRecord, SECTOR};
use iolab_core::IoDir;
use std::io::BufRead;

pub(crate) const HEADER: &[u8] = b"version,time,op,size,lbn";

/// The direction of a SCSI CDB opcode, as vscsiStats records it.
pub fn scsi_dir(op: u64) -> Option<IoDir> {
    match op {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(IoDir::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(IoDir::Write),
        0x35 | 0x91 => Some(IoDir::Sync),
        0x42 => Some(IoDir::Trim),
        _ => None,
    }
}

pub(crate) const SCSI_EXPECTED: &str =
    "a SCSI read/write opcode (28 READ(10), 2a WRITE(10), 08/0a/88/8a/a8/aa, 35/91 sync, 42 unmap)";

pub(crate) struct CloudPhysicsCsv {
    lines: LineReader,
}

impl CloudPhysicsCsv {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        CloudPhysicsCsv { lines: LineReader::new(inner) }
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(HEADER)
}

impl Parse for CloudPhysicsCsv {
    const NAME: &'static str = "cloudphysics";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let first = self.lines.line_no == 0;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if line.trim_ascii().is_empty() || (first && line.starts_with(HEADER)) {
                continue;
            }
            let (n, f) = text::split::<5>(line, b',');
            if n < 5 {
                const NAMES: [&str; 5] = ["version", "time", "op", "size", "lbn"];
                return Err(TraceErrorKind::MissingField { field: NAMES[n], expected: 5 });
            }
            let time_us = text::dec_u64(f[1], "time")?;
            let op = text::hex_u64(f[2], "op")?;
            let dir = scsi_dir(op).ok_or_else(|| TraceErrorKind::UnknownOp {
                found: String::from_utf8_lossy(f[2]).into_owned(),
                expected: SCSI_EXPECTED,
            })?;
            let size = text::dec_u64(f[3], "size")?;
            let lbn = text::dec_u64(f[4], "lbn")?;
            rec.time_ns = text::mul(time_us, 1_000, "time")?;
            rec.req.dir = dir;
            rec.req.offset = text::mul(lbn, SECTOR, "lbn")?;
            rec.req.len = size;
            rec.obj_id = lbn;
            rec.size = size;
            return Ok(true);
        }
    }

    fn position(&self) -> (u64, u64) {
        self.lines.position()
    }
}
