//! blkparse's default text output (blktrace `blkparse` man page, default format string
//! `"%D %2c %8s %5T.%9t %5p %2a %3d "` followed by `%S + %n [%C]` for data actions):
//!
//! ```text
//!   8,0    3       11     0.009507758   697  Q  WS 2048 + 8 [jbd2/sda1-8]
//! ```
//!
//! fields: device `maj,min`, cpu, sequence, time `s.ns`, pid, action, RWBS, sector, `+`,
//! sectors. One action is taken as the request stream ([`ReaderConfig::blkparse_action`]
//! (crate::ReaderConfig), `Q` by default); other actions are not records. RWBS: `D` discard →
//! trim, `W` → write, `R` → read, a bare `F` flush → sync, `N` (no data) is not a record.
//! The per-CPU summary blkparse prints after the events (`CPU0 (8,0):`, `Total (...)`) ends
//! the trace.

use super::Devices;
use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{block_obj_id, TraceErrorKind, TraceRecord, SECTOR};
use iolab_core::IoDir;
use std::io::BufRead;

pub(crate) struct Blkparse {
    lines: LineReader,
    action: u8,
    devices: Devices,
    done: bool,
}

impl Blkparse {
    pub(crate) fn new(inner: Box<dyn BufRead>, action: u8) -> Self {
        Blkparse { lines: LineReader::new(inner), action, devices: Devices::default(), done: false }
    }
}

fn is_dev(f: &[u8]) -> bool {
    let Some(p) = f.iter().position(|&b| b == b',') else { return false };
    p > 0 && p + 1 < f.len() && f.iter().enumerate().all(|(i, b)| i == p || b.is_ascii_digit())
}

pub(crate) fn sniff(head: &[u8]) -> bool {
    let mut lines = head.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty());
    let Some(l) = lines.next() else { return false };
    let (n, f) = text::split_ws::<7>(l);
    n >= 7 && is_dev(f[0]) && f[3].contains(&b'.') && text::fixed_u64(f[3], 9, "time").is_ok()
}

fn rwbs_dir(rwbs: &[u8], has_data: bool) -> Option<IoDir> {
    // A flush with no payload (`FWS`, `FN`) is a cache flush whatever else RWBS says.
    if rwbs.contains(&b'F') && !has_data {
        Some(IoDir::Sync)
    } else if rwbs.contains(&b'D') {
        Some(IoDir::Trim)
    } else if rwbs.contains(&b'W') {
        Some(IoDir::Write)
    } else if rwbs.contains(&b'R') {
        Some(IoDir::Read)
    } else {
        None
    }
}

impl Parse for Blkparse {
    const NAME: &'static str = "blkparse";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        while !self.done {
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            let (n, f) = text::split_ws::<10>(line);
            if n == 0 {
                continue;
            }
            if !is_dev(f[0]) {
                if f[0].starts_with(b"CPU") || f[0] == b"Total" {
                    self.done = true;
                    break;
                }
                return Err(text::bad("device", "`major,minor`", f[0]));
            }
            if n < 7 {
                return Err(TraceErrorKind::MissingField { field: "rwbs", expected: 7 });
            }
            if f[5] != [self.action] {
                continue;
            }
            let has_data = n >= 10 && f[8] == b"+";
            let Some(dir) = rwbs_dir(f[6], has_data) else {
                if f[6].contains(&b'N') {
                    continue;
                }
                return Err(text::bad("rwbs", "R, W, D or F flags", f[6]));
            };
            let time_ns = text::fixed_u64(f[3], 9, "time")?;
            let (sector, nsect) = if has_data {
                (text::dec_u64(f[7], "sector")?, text::dec_u64(f[9], "sectors")?)
            } else if dir == IoDir::Sync {
                (0, 0)
            } else {
                return Err(TraceErrorKind::MissingField {
                    field: "sector + sectors",
                    expected: 10,
                });
            };
            let file = self.devices.index(f[0]);
            rec.time_ns = time_ns;
            rec.req.dir = dir;
            rec.req.file = file;
            rec.req.offset = text::mul(sector, SECTOR, "sector")?;
            rec.req.len = text::mul(nsect, SECTOR, "sectors")?;
            rec.obj_id = block_obj_id(file, rec.req.offset);
            rec.size = rec.req.len;
            return Ok(true);
        }
        Ok(false)
    }

    fn position(&self) -> (u64, u64) {
        self.lines.position()
    }

    fn file_names(&self) -> Vec<String> {
        self.devices.names()
    }
}
