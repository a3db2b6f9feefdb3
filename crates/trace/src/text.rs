//! Shared plumbing for the line-oriented formats: a line reader that reuses one buffer and
//! tracks line numbers and byte offsets, and allocation-free field splitting and number parsing.
//!
//! A line is bounded ([`MAX_LINE`]): a decompression bomb of one endless "line" is a record
//! error after `MAX_LINE` bytes, not gigabytes held in memory. The rest of an over-long line is
//! skipped, in bounded chunks, only if the caller reads on (lenient mode).

use crate::TraceErrorKind;
use std::io::{BufRead, Read};

/// The longest line any text trace format is read with, in bytes (a record of every supported
/// format is under 1 KiB; 1 MiB leaves room for wide CSV variants).
pub const MAX_LINE: usize = 1 << 20;

pub(crate) struct LineReader {
    inner: Box<dyn BufRead>,
    buf: Vec<u8>,
    /// 1-based number of the line in `buf`.
    pub(crate) line_no: u64,
    /// Byte offset of the line in `buf`.
    pub(crate) line_start: u64,
    next_start: u64,
    /// The last line was cut at [`MAX_LINE`]: its rest is skipped before the next line.
    skip_rest: bool,
}

impl LineReader {
    pub(crate) fn new(inner: Box<dyn BufRead>) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(256),
            line_no: 0,
            line_start: 0,
            next_start: 0,
            skip_rest: false,
        }
    }

    /// The next line without its `\n`/`\r\n`, or `None` at the end; a line longer than
    /// [`MAX_LINE`] is a [`TraceErrorKind::LineTooLong`] (at its own line number and offset).
    pub(crate) fn next_line(&mut self) -> Result<Option<&[u8]>, TraceErrorKind> {
        if self.skip_rest {
            self.skip_rest = false;
            self.next_start += self.skip_line()?;
        }
        self.buf.clear();
        let n = (&mut self.inner).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        self.line_start = self.next_start;
        self.next_start += n as u64;
        if n > MAX_LINE && self.buf.last() != Some(&b'\n') {
            self.skip_rest = true;
            return Err(TraceErrorKind::LineTooLong { limit: MAX_LINE });
        }
        let mut end = self.buf.len();
        while end > 0 && (self.buf[end - 1] == b'\n' || self.buf[end - 1] == b'\r') {
            end -= 1;
        }
        Ok(Some(&self.buf[..end]))
    }

    pub(crate) fn position(&self) -> (u64, u64) {
        (self.line_no, self.line_start)
    }

    /// Consumes up to and including the next `\n` without keeping it; returns the bytes read.
    fn skip_line(&mut self) -> std::io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                return Ok(skipped);
            }
            let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(k) => (k + 1, true),
                None => (chunk.len(), false),
            };
            self.inner.consume(used);
            skipped += used as u64;
            if done {
                return Ok(skipped);
            }
        }
    }
}

/// Splits `line` on `sep` into at most `N` fields; returns how many there were (may exceed
/// `N`, in which case the rest are not stored).
pub(crate) fn split<const N: usize>(line: &[u8], sep: u8) -> (usize, [&[u8]; N]) {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    for f in line.split(|&b| b == sep) {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    (n, out)
}

/// Splits on runs of ASCII whitespace (blkparse, fio iolog).
pub(crate) fn split_ws<const N: usize>(line: &[u8]) -> (usize, [&[u8]; N]) {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    for f in line.split(|b| b.is_ascii_whitespace()).filter(|f| !f.is_empty()) {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    (n, out)
}

pub(crate) fn trim(f: &[u8]) -> &[u8] {
    f.trim_ascii()
}

fn found(f: &[u8]) -> String {
    let s = String::from_utf8_lossy(f);
    if s.len() > 40 {
        format!("{}...", &s[..s.floor_char_boundary_compat(40)])
    } else {
        s.into_owned()
    }
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

pub(crate) fn bad(field: &'static str, expected: &'static str, f: &[u8]) -> TraceErrorKind {
    TraceErrorKind::BadField { field, expected, found: found(f) }
}

/// A decimal unsigned integer (surrounding spaces allowed).
pub(crate) fn dec_u64(f: &[u8], field: &'static str) -> Result<u64, TraceErrorKind> {
    let t = trim(f);
    if t.is_empty() || t.len() > 20 {
        return Err(bad(field, "an unsigned decimal integer", f));
    }
    let mut v: u64 = 0;
    for &b in t {
        if !b.is_ascii_digit() {
            return Err(bad(field, "an unsigned decimal integer", f));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add((b - b'0') as u64))
            .ok_or_else(|| bad(field, "an integer below 2^64", f))?;
    }
    Ok(v)
}

/// A hexadecimal unsigned integer, with or without `0x`.
pub(crate) fn hex_u64(f: &[u8], field: &'static str) -> Result<u64, TraceErrorKind> {
    let mut t = trim(f);
    if t.len() > 2 && (t.starts_with(b"0x") || t.starts_with(b"0X")) {
        t = &t[2..];
    }
    if t.is_empty() || t.len() > 16 {
        return Err(bad(field, "a hexadecimal integer", f));
    }
    let mut v: u64 = 0;
    for &b in t {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err(bad(field, "a hexadecimal integer", f)),
        };
        v = (v << 4) | d as u64;
    }
    Ok(v)
}

/// A non-negative decimal number with an optional fraction (`12.000345`), returned scaled
/// by `10^scale_digits` and truncated (e.g. seconds with scale 9 gives nanoseconds), without
/// going through floating point.
pub(crate) fn fixed_u64(
    f: &[u8],
    scale_digits: u32,
    field: &'static str,
) -> Result<u64, TraceErrorKind> {
    const EXPECT: &str = "a non-negative decimal number";
    let t = trim(f);
    let (int, frac) = match t.iter().position(|&b| b == b'.') {
        Some(p) => (&t[..p], &t[p + 1..]),
        None => (t, &t[t.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(bad(field, EXPECT, f));
    }
    let i =
        if int.is_empty() { 0 } else { dec_u64(int, field).map_err(|_| bad(field, EXPECT, f))? };
    let mut v =
        i.checked_mul(10u64.pow(scale_digits)).ok_or(TraceErrorKind::Overflow { what: field })?;
    let mut mul = 10u64.pow(scale_digits);
    for &b in frac {
        if !b.is_ascii_digit() {
            return Err(bad(field, EXPECT, f));
        }
        mul /= 10;
        v = v
            .checked_add((b - b'0') as u64 * mul)
            .ok_or(TraceErrorKind::Overflow { what: field })?;
    }
    Ok(v)
}

pub(crate) fn mul(a: u64, b: u64, what: &'static str) -> Result<u64, TraceErrorKind> {
    a.checked_mul(b).ok_or(TraceErrorKind::Overflow { what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(dec_u64(b" 42 ", "x").unwrap(), 42);
        assert!(dec_u64(b"4x2", "x").is_err());
        assert!(dec_u64(b"99999999999999999999", "x").is_err());
        assert_eq!(hex_u64(b"2a", "x").unwrap(), 0x2a);
        assert_eq!(hex_u64(b"0x28", "x").unwrap(), 0x28);
        assert_eq!(fixed_u64(b"1.5", 9, "t").unwrap(), 1_500_000_000);
        assert_eq!(fixed_u64(b"0.000000123", 9, "t").unwrap(), 123);
        assert_eq!(fixed_u64(b"3", 3, "t").unwrap(), 3000);
        assert!(fixed_u64(b".", 3, "t").is_err());
        let (n, f) = split::<3>(b"a,b,c,d", b',');
        assert_eq!((n, f), (4, [&b"a"[..], b"b", b"c"]));
        let (n, f) = split_ws::<2>(b"  a   b ");
        assert_eq!((n, f), (2, [&b"a"[..], b"b"]));
    }
}
