//! `buffer_pattern` / `verify_pattern` values, reimplementing fio's `parse_and_fill_pattern`
//! (lib/pattern.c). Forms, freely concatenated:
//! - `0xdeadbeef`: hex bytes in the order written; an odd digit count makes the first digit
//!   its own byte (`0xabc` → `0a bc`); `0xff0x14` is two numbers (`ff 14`);
//! - a decimal in the 32-bit range, stored little-endian with high zero bytes dropped
//!   (`66` → `42`, `-1024` → `00 fc ff ff`, `0` → `00`);
//! - `"string"`: the bytes between double quotes (no escapes, as in fio);
//! - `'file'`: the bytes of a file (at most 128 MiB).
//!
//! `%o` (the block offset) is a verify_pattern format; fio rejects it in buffer_pattern
//! (options.c `str_buffer_pattern_cb` passes no formats), and so do we.

use crate::error::{DataError, PatternErrorKind};

/// fio's `MAX_PATTERN_SIZE`.
pub const MAX_PATTERN_SIZE: usize = 128 << 20;

/// Parse a `buffer_pattern` value into its bytes.
use std::io::Read;
use std::path::Path;

pub fn parse_pattern(input: &str) -> Result<Vec<u8>, DataError> {
    let err = |at: usize, kind| DataError::Pattern { input: input.to_string(), at, kind };
    let s = input.trim();
    let lead = input.len() - input.trim_start().len();
    if s.is_empty() {
        return Err(err(0, PatternErrorKind::Empty));
    }
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at = i + lead;
        match b[i] {
            b'"' => {
                let end = s[i + 1..]
                    .find('"')
                    .ok_or_else(|| err(at, PatternErrorKind::UnterminatedString))?;
                if end == 0 {
                    return Err(err(at, PatternErrorKind::EmptyString));
                }
                out.extend_from_slice(&b[i + 1..i + 1 + end]);
                i += end + 2;
            }
            b'\'' => {
                let end = s[i + 1..]
                    .find('\'')
                    .ok_or_else(|| err(at, PatternErrorKind::UnterminatedFile))?;
                let path = &s[i + 1..i + 1 + end];
                // A regular file, read up to the pattern limit (fio reads as much as fits):
                // `'/dev/zero'` or a FIFO is refused at open instead of read forever.
                let unreadable = |reason: String| {
                    err(at, PatternErrorKind::FileUnreadable { path: path.to_string(), reason })
                };
                let f = iolab_core::input::open_input(
                    Path::new(path),
                    "pattern file",
                    Default::default(),
                )
                .map_err(|e| unreadable(e.reason()))?;
                let mut bytes = Vec::new();
                f.take(MAX_PATTERN_SIZE as u64)
                    .read_to_end(&mut bytes)
                    .map_err(|e| unreadable(e.to_string()))?;
                if bytes.is_empty() {
                    return Err(err(at, PatternErrorKind::EmptyFile { path: path.to_string() }));
                }
                let room = MAX_PATTERN_SIZE.saturating_sub(out.len());
                out.extend_from_slice(&bytes[..bytes.len().min(room)]);
                i += end + 2;
            }
            b'%' => {
                let f = s[i + 1..].chars().next().map(String::from).unwrap_or_default();
                return Err(err(at, PatternErrorKind::Format(f)));
            }
            _ => {
                i = parse_number(s, i, &mut out).map_err(|k| err(at, k))?;
            }
        }
        if out.len() > MAX_PATTERN_SIZE {
            return Err(err(at, PatternErrorKind::TooLong));
        }
    }
    Ok(out)
}

fn is_0x(b: &[u8], i: usize) -> bool {
    i + 1 < b.len() && b[i] == b'0' && (b[i + 1] | 0x20) == b'x'
}

/// One number starting at `i`; returns the index after it.
fn parse_number(s: &str, i: usize, out: &mut Vec<u8>) -> Result<usize, PatternErrorKind> {
    let b = s.as_bytes();
    if is_0x(b, i) {
        let start = i + 2;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_hexdigit() {
            end += 1;
        }
        // "0xff0x14": the run "ff0" stops at 'x'; give the '0' back to the next number.
        if end < b.len() && (b[end] | 0x20) == b'x' && end > start && b[end - 1] == b'0' {
            end -= 1;
        }
        if end > start {
            let digits = &b[start..end];
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            // An odd digit count: the first digit is a byte of its own (fio's "%1hhx").
            let pairs = if digits.len() % 2 == 1 {
                out.push(hex(digits[0]));
                &digits[1..]
            } else {
                digits
            };
            for p in pairs.chunks_exact(2) {
                out.push(hex(p[0]) << 4 | hex(p[1]));
            }
            return Ok(end);
        }
        // A bare "0x": fio falls back to decimal "0" and then fails on the 'x'.
        return Err(PatternErrorKind::Expected);
    }
    // Decimal, stopping where a "0x" number starts (fio looks ahead with strcasestr).
    let mut end = i;
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() && !is_0x(b, end) {
        end += 1;
    }
    if end == digits_start {
        return Err(PatternErrorKind::Expected);
    }
    let text = &s[i..end];
    let v: i64 = text
        .parse()
        .ok()
        .filter(|v| (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(v))
        .ok_or_else(|| PatternErrorKind::DecimalRange { value: text.to_string() })?;
    if v == 0 {
        out.push(0);
    } else {
        let mut u = v as i32 as u32;
        while u != 0 {
            out.push((u & 0xff) as u8);
            u >>= 8;
        }
    }
    Ok(end)
}

/// Copy `pattern` over `buf` from its start, repeating it (fio `cpy_pattern`): the pattern's
/// phase restarts at the start of every region filled.
pub fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        buf.fill(0);
        return;
    }
    let n = pattern.len().min(buf.len());
    buf[..n].copy_from_slice(&pattern[..n]);
    let mut filled = n;
    while filled < buf.len() {
        let len = filled.min(buf.len() - filled);
        buf.copy_within(..len, filled);
        filled += len;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The examples in fio's own comment on `parse_and_fill_pattern`.
    #[test]
    fn fio_documented_examples() {
        assert_eq!(parse_pattern("\"abcd\"").unwrap(), b"abcd");
        assert_eq!(parse_pattern("-1024").unwrap(), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(parse_pattern("66").unwrap(), [0x42]);
        assert_eq!(parse_pattern("0xFF0X1").unwrap(), [0xff, 0x01]);
        assert_eq!(parse_pattern("\"123\"0xFFeeCC").unwrap(), [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]);
        assert_eq!(parse_pattern("0xfefefefefefefefefefefe").unwrap(), [0xfe; 11]);
        assert_eq!(parse_pattern("0xdeadbeef").unwrap(), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse_pattern("0").unwrap(), [0]);
        assert_eq!(parse_pattern("0xabc").unwrap(), [0x0a, 0xbc]);
        assert_eq!(parse_pattern("256").unwrap(), [0x00, 0x01]);
        assert_eq!(parse_pattern("-10\"1\"").unwrap(), [0xf6, 0xff, 0xff, 0xff, b'1']);
        // "-100xab" is -10 then 0xab (fio example #7 without its %o).
        assert_eq!(parse_pattern("-100xab").unwrap(), [0xf6, 0xff, 0xff, 0xff, 0xab]);
    }

    #[test]
    fn file_form() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pat.bin");
        std::fs::write(&p, [1u8, 2, 3]).unwrap();
        let got = parse_pattern(&format!("0xaa'{}'\"z\"", p.display())).unwrap();
        assert_eq!(got, [0xaa, 1, 2, 3, b'z']);
    }

    #[test]
    fn bad_patterns_give_one_line_errors() {
        for (bad, want) in [
            ("", "empty pattern"),
            ("\"abc", "unterminated \"string\""),
            ("0xzz", "expected a number"),
            ("hello", "expected a number"),
            ("4294967296", "outside the 32-bit range"),
            ("%o", "`%o` formats are not supported"),
            ("'/nonexistent/iolab-pattern'", "cannot read pattern file"),
            ("0x12 34", "expected a number"),
        ] {
            let e = parse_pattern(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
            assert!(e.starts_with("buffer_pattern `"), "{e}");
        }
    }

    #[test]
    fn fill_repeats_from_start() {
        let mut b = [0u8; 10];
        fill_pattern(&mut b, &[1, 2, 3]);
        assert_eq!(b, [1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
    }
}
