//! MSR Cambridge block traces (Narayanan et al., "Write off-loading", FAST'08; SNIA IOTTA
//! trace 388): CSV `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with
//! `Timestamp` a Windows FILETIME (100 ns ticks since 1601), `Type` `Read`/`Write`,
//! `Offset` and `Size` in bytes, `ResponseTime` in 100 ns ticks (not used). Each
//! `Hostname,DiskNumber` pair is one device (`req.file`).

use super::Devices;
use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{block_obj_id, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::BufRead;

pub(crate) struct Msr {
    lines: LineReader,
    devices: Devices,
    key: Vec<u8>,
}

impl Msr {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        Msr { lines: LineReader::new(inner), devices: Devices::default(), key: Vec::new() }
    }
}

fn op(f: &[u8]) -> Option<IoDir> {
    let t = f.trim_ascii();
    if t.eq_ignore_ascii_case(b"read") {
        Some(IoDir::Read)
    } else if t.eq_ignore_ascii_case(b"write") {
        Some(IoDir::Write)
    } else {
        None
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some(l) = head.split(|&b| b == b'\n').find(|l| !l.starts_with(b"Timestamp")) else {
        return false;
    };
    let (n, f) = text::split::<7>(l, b',');
    n == 7 && op(f[3]).is_some() && text::dec_u64(f[0], "t").is_ok()
}

const NAMES: [&str; 7] =
    ["Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"];

impl Parse for Msr {
    const NAME: &'static str = "msr";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let first = self.lines.line_no == 0;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if line.trim_ascii().is_empty() || (first && line.starts_with(b"Timestamp")) {
                continue;
            }
            let (n, f) = text::split::<7>(line, b',');
            if n < 6 {
                return Err(TraceErrorKind::MissingField { field: NAMES[n], expected: 7 });
            }
            let ticks = text::dec_u64(f[0], "Timestamp")?;
            let dir = op(f[3]).ok_or_else(|| TraceErrorKind::UnknownOp {
                found: String::from_utf8_lossy(f[3]).into_owned(),
                expected: "Read or Write",
            })?;
            let offset = text::dec_u64(f[4], "Offset")?;
            let size = text::dec_u64(f[5], "Size")?;
            self.key.clear();
            self.key.extend_from_slice(f[1]);
            self.key.push(b',');
            self.key.extend_from_slice(f[2].trim_ascii());
            let file = self.devices.index(&self.key);
            rec.time_ns = text::mul(ticks, 100, "Timestamp")?;
            rec.req.dir = dir;
            rec.req.file = file;
            rec.req.offset = offset;
            rec.req.len = size;
            rec.obj_id = block_obj_id(file, offset);
            rec.size = size;
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
