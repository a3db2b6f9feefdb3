//! Tencent CBS cloud block storage traces (Zhang et al., "OSCA", USENIX ATC'20; SNIA IOTTA
//! trace 27917): CSV `Timestamp,Offset,Size,IOType,VolumeID`, timestamp in seconds, offset and
//! size in 512-byte sectors, IOType `0` read / `1` write. Each `VolumeID` is one device.

use super::Devices;
use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{block_obj_id, TraceErrorKind, TraceRecord, SECTOR};
use iolab_core::IoDir;
use std::io::BufRead;

pub(crate) struct Tencent {
    lines: LineReader,
    devices: Devices,
}

impl Tencent {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        Tencent { lines: LineReader::new(inner), devices: Devices::default() }
    }
}

fn op(f: &[u8]) -> Option<IoDir> {
    match f.trim_ascii() {
        b"0" => Some(IoDir::Read),
        b"1" => Some(IoDir::Write),
        _ => None,
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    let mut lines = head
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && !l.starts_with(b"Timestamp"))
        .take(8)
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            let (n, f) = text::split::<5>(l, b',');
            n == 5 && op(f[3]).is_some() && f.iter().all(|x| text::dec_u64(x, "x").is_ok())
        })
}

const NAMES: [&str; 5] = ["Timestamp", "Offset", "Size", "IOType", "VolumeID"];

impl Parse for Tencent {
    const NAME: &'static str = "tencent";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let first = self.lines.line_no == 0;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if line.trim_ascii().is_empty() || (first && line.starts_with(b"Timestamp")) {
                continue;
            }
            let (n, f) = text::split::<5>(line, b',');
            if n < 5 {
                return Err(TraceErrorKind::MissingField { field: NAMES[n], expected: 5 });
            }
            let secs = text::dec_u64(f[0], "Timestamp")?;
            let sector = text::dec_u64(f[1], "Offset")?;
            let nsect = text::dec_u64(f[2], "Size")?;
            let dir = op(f[3]).ok_or_else(|| TraceErrorKind::UnknownOp {
                found: String::from_utf8_lossy(f[3]).into_owned(),
                expected: "0 (read) or 1 (write)",
            })?;
            text::dec_u64(f[4], "VolumeID")?;
            let file = self.devices.index(f[4].trim_ascii());
            rec.time_ns = text::mul(secs, 1_000_000_000, "Timestamp")?;
            rec.req.dir = dir;
            rec.req.file = file;
            rec.req.offset = text::mul(sector, SECTOR, "Offset")?;
            rec.req.len = text::mul(nsect, SECTOR, "Size")?;
            rec.obj_id = block_obj_id(file, rec.req.offset);
            rec.size = rec.req.len;
            return Ok(true);
        }
    }

    fn position(&self) -> (u64, u64) {
        self.lines.position()
    }

    fn file_names(&self) -> Vec<String> {
        self.devices.names()
    }
}
