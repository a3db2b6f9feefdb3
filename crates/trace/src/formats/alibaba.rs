//! Alibaba cloud block traces (Li et al., IISWC'20; github.com/alibaba/block-traces
//! `io_traces.csv`): `device_id,opcode,offset,length,timestamp`, opcode `R`/`W`, offset and
//! length in bytes, timestamp in microseconds. Each `device_id` is one device (`req.file`).

use super::Devices;
use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{block_obj_id, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::BufRead;

pub(crate) struct Alibaba {
    lines: LineReader,
    devices: Devices,
}

impl Alibaba {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        Alibaba { lines: LineReader::new(inner), devices: Devices::default() }
    }
}

fn op(f: &[u8]) -> Option<IoDir> {
    match f.trim_ascii() {
        b"R" | b"r" => Some(IoDir::Read),
        b"W" | b"w" => Some(IoDir::Write),
        _ => None,
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some(l) = head.split(|&b| b == b'\n').find(|l| !l.starts_with(b"device_id")) else {
        return false;
    };
    let (n, f) = text::split::<5>(l, b',');
    n == 5 && op(f[1]).is_some() && text::dec_u64(f[4], "t").is_ok()
}

const NAMES: [&str; 5] = ["device_id", "opcode", "offset", "length", "timestamp"];

impl Parse for Alibaba {
    const NAME: &'static str = "alibaba";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let first = self.lines.line_no == 0;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if line.trim_ascii().is_empty() || (first && line.starts_with(b"device_id")) {
                continue;
            }
            let (n, f) = text::split::<5>(line, b',');
            if n < 5 {
                return Err(TraceErrorKind::MissingField { field: NAMES[n], expected: 5 });
            }
            let dir = op(f[1]).ok_or_else(|| TraceErrorKind::UnknownOp {
                found: String::from_utf8_lossy(f[1]).into_owned(),
                expected: "R or W",
            })?;
            let offset = text::dec_u64(f[2], "offset")?;
            let len = text::dec_u64(f[3], "length")?;
            let us = text::dec_u64(f[4], "timestamp")?;
            text::dec_u64(f[0], "device_id")?;
            let file = self.devices.index(f[0].trim_ascii());
            rec.time_ns = text::mul(us, 1_000, "timestamp")?;
            rec.req.dir = dir;
            rec.req.file = file;
            rec.req.offset = offset;
            rec.req.len = len;
            rec.obj_id = block_obj_id(file, offset);
            rec.size = len;
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
