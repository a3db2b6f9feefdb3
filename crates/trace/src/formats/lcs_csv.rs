//! libCacheSim's generic `csv` and `txt` traces (`traceReader/generalReader/csv.c`, `txt.c`;
//! options as in `doc/quickstart_cachesim.md`: `time-col`, `obj-id-col`, `obj-size-col`,
//! `has-header`, `delimiter`, `obj-id-is-num`; columns are 1-based). `txt` is one object id per
//! line. Non-numeric ids are hashed (FNV-1a then a 64-bit finaliser), as libCacheSim hashes them.
//!
//! These are object traces: `offset` is the object id and `len` its size (1 when the trace has
//! no size column), so replaying one as block I/O is meaningful only if the ids are offsets.

use crate::reader::Parse;
use crate::text::{self, LineReader};
use crate::{TraceErrorKind, TraceRecord};
use iolab_core::IoDir;
use std::io::BufRead;

/// Column layout (1-based column numbers; 0 = absent).
#[derive(Clone, Debug)]
pub struct CsvSpec {
    pub time_col: usize,
    pub obj_id_col: usize,
    pub obj_size_col: usize,
    /// Column with `read`/`write`/`get`/`set`/`delete`/`R`/`W` (0 = all reads).
    pub op_col: usize,
    /// `None`: a header exists if the first line's id column is not a number.
    pub has_header: Option<bool>,
    pub delimiter: u8,
    /// Ids are decimal numbers (otherwise hashed).
    pub obj_id_is_num: bool,
}

impl Default for CsvSpec {
    fn default() -> Self {
        CsvSpec {
            time_col: 1,
            obj_id_col: 2,
            obj_size_col: 3,
            op_col: 0,
            has_header: None,
            delimiter: b',',
            obj_id_is_num: true,
        }
    }
}

const MAX_COLS: usize = 32;

/// FNV-1a over the bytes, then SplitMix64's finaliser so nearby strings spread.
pub fn hash_id(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= x as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    iolab_core::rand::mix64(h)
}

fn id(f: &[u8], is_num: bool) -> Result<u64, TraceErrorKind> {
    if is_num {
        text::dec_u64(f, "obj_id")
    } else {
        Ok(hash_id(text::trim(f)))
    }
}

fn op(f: &[u8]) -> Result<IoDir, TraceErrorKind> {
    let t = text::trim(f);
    let l = |s: &[u8]| t.eq_ignore_ascii_case(s);
    if l(b"read") || l(b"get") || l(b"r") || l(b"gets") {
        Ok(IoDir::Read)
    } else if l(b"write") || l(b"set") || l(b"w") || l(b"add") || l(b"replace") {
        Ok(IoDir::Write)
    } else if l(b"delete") || l(b"trim") || l(b"d") {
        Ok(IoDir::Trim)
    } else {
        Err(TraceErrorKind::UnknownOp {
            found: String::from_utf8_lossy(f).into_owned(),
            expected: "read/get/R, write/set/W, delete/trim",
        })
    }
}

pub(crate) struct LcsCsv {
    lines: LineReader,
    spec: CsvSpec,
    /// `txt`: one id per line, no other columns.
    txt: bool,
}

impl LcsCsv {
    pub(crate) fn csv(inner: Box<dyn BufRead>, spec: CsvSpec) -> Self {
        LcsCsv { lines: LineReader::new(inner), spec, txt: false }
    }
    pub(crate) fn txt(inner: Box<dyn BufRead>, obj_id_is_num: bool) -> LcsTxt {
        let spec = CsvSpec {
            time_col: 0,
            obj_id_col: 1,
            obj_size_col: 0,
            op_col: 0,
            has_header: Some(false),
            delimiter: b'\n',
            obj_id_is_num,
        };
        LcsTxt(LcsCsv { lines: LineReader::new(inner), spec, txt: true })
    }
}

/// Generic CSV: the fallback for comma-separated text whose first data line has a numeric
/// second column.
pub(crate) fn sniff_csv(head: &[u8]) -> bool {
    let Some(line) = head.split(|&b| b == b'\n').find(|l| !l.is_empty() && l[0].is_ascii_digit())
    else {
        return false;
    };
    let (n, f) = text::split::<3>(line, b',');
    n >= 2 && text::dec_u64(f[1], "obj_id").is_ok() && !head.contains(&0)
}

/// `txt`: every line of the head is one decimal number.
pub(crate) fn sniff_txt(head: &[u8]) -> bool {
    let mut lines = head.split(|&b| b == b'\n').filter(|l| !l.is_empty()).peekable();
    lines.peek().is_some()
        && head.contains(&b'\n')
        && lines
            .take(32)
            .all(|l| l.trim_ascii().iter().all(u8::is_ascii_digit) && !l.trim_ascii().is_empty())
}

impl Parse for LcsCsv {
    const NAME: &'static str = "csv";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        loop {
            let first = self.lines.line_no == 0;
            let spec = &self.spec;
            let Some(line) = self.lines.next_line()? else { return Ok(false) };
            if line.trim_ascii().is_empty() {
                continue;
            }
            let id_field;
            let (n, f) = if self.txt {
                id_field = [line; 1];
                (1, [id_field[0]; MAX_COLS])
            } else {
                text::split::<MAX_COLS>(line, spec.delimiter)
            };
            let col = |c: usize, name: &'static str| -> Result<&[u8], TraceErrorKind> {
                if c > n || c > MAX_COLS {
                    Err(TraceErrorKind::MissingField { field: name, expected: c })
                } else {
                    Ok(f[c - 1])
                }
            };
            if first {
                let header = match spec.has_header {
                    Some(h) => h,
                    None => {
                        spec.obj_id_is_num
                            && text::dec_u64(col(spec.obj_id_col, "obj_id")?, "obj_id").is_err()
                    }
                };
                if header {
                    continue;
                }
            }
            rec.obj_id = id(col(spec.obj_id_col, "obj_id")?, spec.obj_id_is_num)?;
            rec.size = if spec.obj_size_col > 0 {
                text::dec_u64(col(spec.obj_size_col, "obj_size")?, "obj_size")?
            } else {
                1
            };
            rec.time_ns = if spec.time_col > 0 {
                text::mul(
                    text::dec_u64(col(spec.time_col, "time")?, "time")?,
                    1_000_000_000,
                    "time",
                )?
            } else {
                0
            };
            rec.req.dir = if spec.op_col > 0 { op(col(spec.op_col, "op")?)? } else { IoDir::Read };
            rec.req.offset = rec.obj_id;
            rec.req.len = rec.size;
            return Ok(true);
        }
    }

    fn position(&self) -> (u64, u64) {
        self.lines.position()
    }
}

/// The `txt` flavour: the same parser under its own registry name.
pub(crate) struct LcsTxt(LcsCsv);

impl Parse for LcsTxt {
    const NAME: &'static str = "txt";

    fn next(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceErrorKind> {
        self.0.next(rec)
    }

    fn position(&self) -> (u64, u64) {
        self.0.position()
    }
}
