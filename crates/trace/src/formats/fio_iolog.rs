//! fio iolog versions 2 and 3, as fio's `read_iolog()` in `iolog.c` parses them (fio HOWTO
//! "Trace file format v2/v3"). The first line is `fio version 2 iolog` or `fio version 3
//! iolog`; then file actions `[ts] FILE add|open|close` and I/O actions
//! `[ts] FILE read|write|trim|sync|datasync OFFSET LENGTH` (v2 also `FILE wait USEC 0`).
//!
//! v3 timestamps: fio's own writer (`log_io_u`/`log_file`) prints `utime_since_now()` and the
//! replay path (`iolog_delay`) compares the differences against microseconds, so they are
//! read as microseconds. v2 `wait` adds its microseconds to the clock. An I/O on a file that
//! was never `add`ed is an error, as `get_fileno()` fails in fio.

use super::Devices;
use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{block_obj_id, TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::BufRead;

pub const V2_HEADER: &str = "fio version 2 iolog";
pub const V3_HEADER: &str = "fio version 3 iolog";

pub(crate) struct FioIolog {
    lines: LineReader,
    version: u8,
    files: Devices,
    /// v2 clock (sum of waits), µs.
    wait_us: u64,
}

impl FioIolog {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        FioIolog {
            lines: LineReader::new(inner),
            version: 0,
            files: Devices::default(),
            wait_us: 0,
        }
    }
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(V2_HEADER.as_bytes()) || head.starts_with(V3_HEADER.as_bytes())
}

fn ddir(act: &[u8]) -> Option<IoDir> {
    match act {
        b"read" => Some(IoDir::Read),
        b"write" => Some(IoDir::Write),
        b"trim" => Some(IoDir::Trim),
        b"sync" | b"datasync" => Some(IoDir::Sync),
        _ => None,
    }
}

const ACTIONS: &str = "add, open, close, read, write, trim, sync, datasync (v2 also wait)";

/// The version the first line names (`fio version 2 iolog` or `fio version 3 iolog`).
fn header_version(line: &[u8]) -> Result<u8, TraceErrorKind> {
    let t = line.trim_ascii();
    if t == V2_HEADER.as_bytes() {
        Ok(2)
    } else if t == V3_HEADER.as_bytes() {
        Ok(3)
    } else {
        Err(TraceErrorKind::IologHeader { found: String::from_utf8_lossy(t).into_owned() })
    }
}

/// A file action (`add`, `open`, `close`): `add` names a file; the others need one added.
fn file_action(files: &mut Devices, name: &[u8], act: &[u8]) -> Result<(), TraceErrorKind> {
    match act {
        b"add" => {
            files.index(name);
            Ok(())
        }
        b"open" | b"close" if files.get(name).is_some() => Ok(()),
        b"open" | b"close" => {
            Err(TraceErrorKind::UnknownFile { name: String::from_utf8_lossy(name).into_owned() })
        }
        _ => Err(TraceErrorKind::UnknownOp {
            found: String::from_utf8_lossy(act).into_owned(),
            expected: "add, open or close (a file action has no offset)",
        }),
    }
}

impl Parse for FioIolog {
    const NAME: &'static str = "fio-iolog";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let version = self.version;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if version == 0 {
                self.version = header_version(line)?;
                continue;
            }
            let (n, f) = text::split_ws::<6>(line);
            if n == 0 {
                continue;
            }
            let (ts_us, rest) = if version == 3 {
                (Some(text::dec_u64(f[0], "timestamp")?), &f[1..])
            } else {
                (None, &f[..])
            };
            let nf = n - (version as usize - 2);
            if nf < 2 {
                return Err(TraceErrorKind::MissingField { field: "action", expected: 2 });
            }
            let (name, act) = (rest[0], rest[1]);
            match nf {
                2 => {
                    file_action(&mut self.files, name, act)?;
                    continue;
                }
                4 => {}
                _ => {
                    return Err(TraceErrorKind::MissingField {
                        field: "length",
                        expected: 2 + version as usize,
                    })
                }
            }
            let offset = text::dec_u64(rest[2], "offset")?;
            let len = text::dec_u64(rest[3], "length")?;
            if act == b"wait" {
                if version == 3 {
                    // fio logs "ignoring wait command with version 3" and skips the line;
                    // we refuse rather than drop it silently.
                    return Err(TraceErrorKind::UnknownOp {
                        found: "wait".into(),
                        expected: "no `wait` in version 3 (timestamps replace it)",
                    });
                }
                self.wait_us = self.wait_us.saturating_add(offset);
                continue;
            }
            let dir = ddir(act).ok_or_else(|| TraceErrorKind::UnknownOp {
                found: String::from_utf8_lossy(act).into_owned(),
                expected: ACTIONS,
            })?;
            let file = self.files.get(name).ok_or_else(|| TraceErrorKind::UnknownFile {
                name: String::from_utf8_lossy(name).into_owned(),
            })?;
            let us = ts_us.unwrap_or(self.wait_us);
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
        self.files.names()
    }
}
