//! fio's value units: sizes with `kb_base`, times, percentages, and byte formatting for reports.
//!
//! Source: fio parse.c `str_to_decimal`, `get_mult_bytes` / `__get_mult_bytes` (sizes) and
//! `get_mult_time` (times); exp/expression-parser.{l,y} for `( … )` arithmetic (see [`expr`]).
//! Reimplemented, not copied. Where fio silently reads something other than what was written,
//! iolab either does what fio does and offers [`suffix_warning`] (the `KiB` trap), or refuses
//! the value with an error that says what fio would have made of it (fractions such as `1.5g`,
//! which fio's `strtoll` truncates to `1` and then drops the suffix, giving 1 byte).
//!
//! The size suffix table, as fio's code has it (not as its HOWTO says; fio issue #1618):
//!
//! | input | kb_base=1024 | kb_base=1000 |
//! |---|---|---|
//! | `4k`, `4kb`, `4ki` | 4096 | 4000 |
//! | `4KiB` | 4000 | 4096 |
//!
//! ```
//! use iolab_core::units::{parse_size, KbBase};
//! assert_eq!(parse_size("4k", KbBase::K1024).unwrap(), 4096);
//! assert_eq!(parse_size("4KiB", KbBase::K1024).unwrap(), 4000);
//! ```

pub mod expr;

use crate::Nanos;
use serde::{Deserialize, Serialize};

/// fio's `kb_base`: what `k` multiplies by. The three-letter `KiB`-style suffixes use the other
/// base (parse.c `__get_mult_bytes`: "If kb_base is 1024, use opposite units").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KbBase {
    #[default]
    K1024,
    K1000,
}

impl KbBase {
    /// The multiplier of a plain `k`.
    pub fn base(self) -> u64 {
        match self {
            KbBase::K1024 => 1024,
            KbBase::K1000 => 1000,
        }
    }
    /// The multiplier of a `kib`-style suffix: the opposite base.
    pub fn inverted(self) -> u64 {
        match self {
            KbBase::K1024 => 1000,
            KbBase::K1000 => 1024,
        }
    }
    /// `kb_base=1024` / `kb_base=1000` as written in a job file.
    pub fn from_value(v: u64) -> Option<KbBase> {
        match v {
            1024 => Some(KbBase::K1024),
            1000 => Some(KbBase::K1000),
            _ => None,
        }
    }
}

/// What went wrong with a unit value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitErrorKind {
    Empty,
    NotANumber,
    /// The suffix after the digits is none fio knows for this kind of value.
    UnknownSuffix {
        suffix: String,
        expected: &'static str,
    },
    /// `1.5g`: fio truncates at the `.` and drops the suffix; refused rather than guessed.
    Fractional {
        fio_reads: i64,
    },
    Negative,
    Overflow,
    /// A `%` where only an absolute value is allowed.
    PercentNotAllowed,
    PercentOutOfRange {
        value: u64,
    },
    /// A `( … )` expression that does not evaluate.
    Expression {
        message: String,
    },
}

/// A value that is not a valid size, time or percentage. `Display` is one line naming the input
/// and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad {what} '{}': {}", quote(input), describe(kind))]
pub struct UnitError {
    /// "size", "time" or "percentage".
    pub what: &'static str,
    pub input: String,
    pub kind: UnitErrorKind,
}

/// Longest part of a user's value an error message repeats.
pub const QUOTE_MAX_CHARS: usize = 100;

/// A user-supplied value as an error message shows it: control characters, NULs and other
/// non-printables escaped (`\0`, `\u{1b}`), at most [`QUOTE_MAX_CHARS`] characters, and the
/// total length when it was cut (`abc… (10485760 bytes)`). A 10 MB file name or a binary blob
/// then still gives a one-line error.
pub fn quote(s: &str) -> String {
    let mut out = String::new();
    for (shown, c) in s.chars().enumerate() {
        if shown == QUOTE_MAX_CHARS {
            out.push_str(&format!("… ({} bytes)", s.len()));
            return out;
        }
        if c.is_control() || c == '\u{feff}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn describe(kind: &UnitErrorKind) -> String {
    match kind {
        UnitErrorKind::Empty => "empty value; expected a number".into(),
        UnitErrorKind::NotANumber => "not a number; expected digits (or 0x…, or ( … ))".into(),
        UnitErrorKind::UnknownSuffix { suffix, expected } => {
            format!("unknown suffix '{}'; expected {expected}", quote(suffix))
        }
        UnitErrorKind::Fractional { fio_reads } => format!(
            "fractions are not read by fio outside ( … ) (fio would take {fio_reads} without \
             the suffix); write it in a smaller unit or as an expression like (1.5*1024)"
        ),
        UnitErrorKind::Negative => "negative value; expected a value >= 0".into(),
        UnitErrorKind::Overflow => "value does not fit in 64 bits".into(),
        UnitErrorKind::PercentNotAllowed => "a percentage is not allowed here".into(),
        UnitErrorKind::PercentOutOfRange { value } => {
            format!("{value}% is out of range; expected 0 to 100")
        }
        UnitErrorKind::Expression { message } => format!("expression: {message}"),
    }
}

const SIZE_SUFFIXES: &str = "k, m, g, t, p, optionally followed by b, i or ib (case-insensitive), \
                             or %";
const TIME_SUFFIXES: &str = "d, h, m, s, ms/msec, us/usec or ns/nsec";

/// A size option that also takes `N%` (fio's `size`, `offset`, `io_size` …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SizeOrPercent {
    Bytes(u64),
    /// Whole percent, 0..=100 (fio stores it as `-1ULL - N` and only takes integers).
    Percent(u64),
}

/// The unit a time value without a suffix is in. fio: `is_seconds` options default to seconds,
/// the rest to microseconds (`thinktime`, latency targets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeUnitDefault {
    #[default]
    Seconds,
    Millis,
    Micros,
    Nanos,
}

impl TimeUnitDefault {
    fn nanos(self) -> u64 {
        match self {
            TimeUnitDefault::Seconds => 1_000_000_000,
            TimeUnitDefault::Millis => 1_000_000,
            TimeUnitDefault::Micros => 1_000,
            TimeUnitDefault::Nanos => 1,
        }
    }
}

/// The numeric head of a value and the suffix after it.
struct Split<'a> {
    neg: bool,
    digits: &'a str,
    hex: bool,
    suffix: &'a str,
}

fn split_number(s: &str) -> Option<Split<'_>> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        let end = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
        if end == 0 {
            return None;
        }
        return Some(Split { neg, digits: &h[..end], hex: true, suffix: &h[end..] });
    }
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    let mut suffix = &rest[end..];
    // `16777216.0`: a whole number written with a zero fraction and no suffix; fio's strtoll
    // reads the same value, so it is taken as is (`1.0k` stays refused: fio reads 1 there).
    if let Some(zeros) = suffix.strip_prefix('.') {
        if zeros.bytes().all(|b| b == b'0') {
            suffix = "";
        }
    }
    Some(Split { neg, digits: &rest[..end], hex: false, suffix })
}

fn err(what: &'static str, input: &str, kind: UnitErrorKind) -> UnitError {
    UnitError { what, input: input.to_string(), kind }
}

fn number(what: &'static str, input: &str, sp: &Split<'_>) -> Result<u64, UnitError> {
    let radix = if sp.hex { 16 } else { 10 };
    let v = u64::from_str_radix(sp.digits, radix)
        .map_err(|_| err(what, input, UnitErrorKind::Overflow))?;
    if sp.neg && v != 0 {
        return Err(err(what, input, UnitErrorKind::Negative));
    }
    Ok(v)
}

fn fractional(what: &'static str, input: &str, sp: &Split<'_>) -> Option<UnitError> {
    let frac = sp.suffix.strip_prefix('.')?;
    if frac.starts_with(|c: char| c.is_ascii_digit()) {
        let v = sp.digits.parse::<i64>().unwrap_or(i64::MAX);
        let fio_reads = if sp.neg { -v } else { v };
        return Some(err(what, input, UnitErrorKind::Fractional { fio_reads }));
    }
    None
}

/// The multiplier of a size suffix (already lower-cased), `None` for `%`; `Err` for junk.
/// Order and meaning follow `__get_mult_bytes`: `*ib` first (inverted base), then `k`/`kb`/`ki`.
fn size_mult(suffix: &str, kb: KbBase) -> Result<Option<u64>, ()> {
    if suffix == "%" {
        return Ok(None);
    }
    if suffix.is_empty() || suffix == "b" {
        return Ok(Some(1));
    }
    let b = suffix.as_bytes();
    let pow = match b[0] {
        b'k' => 1,
        b'm' => 2,
        b'g' => 3,
        b't' => 4,
        b'p' => 5,
        _ => return Err(()),
    };
    let mult = match &suffix[1..] {
        "" | "b" | "i" => kb.base(),
        "ib" => kb.inverted(),
        _ => return Err(()),
    };
    Ok(Some(mult.pow(pow)))
}

fn size_inner(s: &str, kb: KbBase) -> Result<SizeOrPercent, UnitError> {
    const WHAT: &str = "size";
    let t = s.trim();
    if t.is_empty() {
        return Err(err(WHAT, s, UnitErrorKind::Empty));
    }
    if t.starts_with('(') {
        let v = expr::eval_int(t, expr::Context::size(kb))
            .map_err(|e| err(WHAT, s, UnitErrorKind::Expression { message: e.to_string() }))?;
        return int_to_u64(WHAT, s, v).map(SizeOrPercent::Bytes);
    }
    let sp = split_number(t).ok_or_else(|| err(WHAT, s, UnitErrorKind::NotANumber))?;
    if let Some(e) = fractional(WHAT, s, &sp) {
        return Err(e);
    }
    let v = number(WHAT, s, &sp)?;
    let lower = sp.suffix.to_ascii_lowercase();
    match size_mult(&lower, kb) {
        Ok(Some(m)) => v
            .checked_mul(m)
            .map(SizeOrPercent::Bytes)
            .ok_or_else(|| err(WHAT, s, UnitErrorKind::Overflow)),
        Ok(None) if v <= 100 => Ok(SizeOrPercent::Percent(v)),
        Ok(None) => Err(err(WHAT, s, UnitErrorKind::PercentOutOfRange { value: v })),
        Err(()) => Err(err(
            WHAT,
            s,
            UnitErrorKind::UnknownSuffix { suffix: sp.suffix.to_string(), expected: SIZE_SUFFIXES },
        )),
    }
}

fn int_to_u64(what: &'static str, input: &str, v: i128) -> Result<u64, UnitError> {
    if v < 0 {
        return Err(err(what, input, UnitErrorKind::Negative));
    }
    u64::try_from(v).map_err(|_| err(what, input, UnitErrorKind::Overflow))
}

/// A size in bytes, as fio's `check_str_bytes`: digits (or `0x…`, or a `( … )` expression)
/// with an optional case-insensitive suffix. `%` is refused; use [`parse_size_or_percent`].
pub fn parse_size(s: &str, kb_base: KbBase) -> Result<u64, UnitError> {
    match size_inner(s, kb_base)? {
        SizeOrPercent::Bytes(v) => Ok(v),
        SizeOrPercent::Percent(_) => Err(err("size", s, UnitErrorKind::PercentNotAllowed)),
    }
}

/// A size that may also be written `N%` (whole percent, 0..=100).
pub fn parse_size_or_percent(s: &str, kb_base: KbBase) -> Result<SizeOrPercent, UnitError> {
    size_inner(s, kb_base)
}

/// A whole percentage 0..=100, with or without a trailing `%` (`rwmixread=70`).
pub fn parse_percent(s: &str) -> Result<u32, UnitError> {
    const WHAT: &str = "percentage";
    let t = s.trim();
    let body = t.strip_suffix('%').unwrap_or(t).trim_end();
    if body.is_empty() {
        return Err(err(WHAT, s, UnitErrorKind::Empty));
    }
    let sp = split_number(body).ok_or_else(|| err(WHAT, s, UnitErrorKind::NotANumber))?;
    if let Some(e) = fractional(WHAT, s, &sp) {
        return Err(e);
    }
    if !sp.suffix.is_empty() {
        return Err(err(
            WHAT,
            s,
            UnitErrorKind::UnknownSuffix { suffix: sp.suffix.to_string(), expected: "%" },
        ));
    }
    let v = number(WHAT, s, &sp)?;
    if v > 100 {
        return Err(err(WHAT, s, UnitErrorKind::PercentOutOfRange { value: v }));
    }
    Ok(v as u32)
}

/// A time, as fio's `check_str_time`: digits with an optional suffix `d h m s ms/msec us/usec`
/// (plus `ns/nsec`, which fio lacks). `m` is minutes here, never milli. A bare number is in
/// `default_unit`. A `( … )` expression is evaluated with the same suffixes, bare numbers in
/// `default_unit`.
///
/// A number that fits in 64 bits but whose nanoseconds do not (`runtime=99999999999`, about
/// 3,200 years, which fio 3.33 accepts: it keeps microseconds) saturates to
/// [`Nanos::MAX`] (about 584 years): longer than any run, and every deadline computed from it
/// is checked, so such a run still ends at its size, at a signal or at a shorter limit.
pub fn parse_time(s: &str, default_unit: TimeUnitDefault) -> Result<Nanos, UnitError> {
    const WHAT: &str = "time";
    let t = s.trim();
    if t.is_empty() {
        return Err(err(WHAT, s, UnitErrorKind::Empty));
    }
    if t.starts_with('(') {
        let v = expr::eval_int(t, expr::Context::time(default_unit.nanos() as f64))
            .map_err(|e| err(WHAT, s, UnitErrorKind::Expression { message: e.to_string() }))?;
        return int_to_u64(WHAT, s, v).map(Nanos);
    }
    let sp = split_number(t).ok_or_else(|| err(WHAT, s, UnitErrorKind::NotANumber))?;
    if let Some(e) = fractional(WHAT, s, &sp) {
        return Err(e);
    }
    let v = number(WHAT, s, &sp)?;
    let suffix = sp.suffix.to_ascii_lowercase();
    let mult = match time_mult(&suffix) {
        Some(m) => m,
        None if suffix.is_empty() => default_unit.nanos(),
        None => {
            return Err(err(
                WHAT,
                s,
                UnitErrorKind::UnknownSuffix {
                    suffix: sp.suffix.to_string(),
                    expected: TIME_SUFFIXES,
                },
            ))
        }
    };
    Ok(Nanos(v.saturating_mul(mult)))
}

/// Nanoseconds per unit of a lower-cased time suffix.
pub(crate) fn time_mult(suffix: &str) -> Option<u64> {
    Some(match suffix {
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return None,
    })
}

/// Where fio stops reading a size: `str_to_decimal` takes the number with `strtoll`, and
/// `__get_mult_bytes` reads the suffix only up to the first separator (`:`, `-`, `,`, `/`);
/// what follows is dropped without a word (parse.c). So `bsrange=512/25:1k:25:2k` is
/// `512-1k` to fio 3.33 (its t0023/t0024 jobs), and `filesize=65536)` is 65536 (t/strided.py).
///
/// Returns the byte index where the dropped tail starts when `s` is a number with a suffix iolab
/// knows, followed by punctuation (`512/25`, `1k:25:2k`, `65536)`); `None` when there is no
/// such tail. A value whose junk is not behind punctuation (`4x`, `4kfoo`, `1.5g`, `4k8`) has
/// no tail here and stays refused by [`parse_size`]: fio reads those as something other than
/// what was written (4, 4096, 1, 4096).
pub fn fio_dropped_tail(s: &str) -> Option<usize> {
    let t = s.trim_end();
    if t.trim_start().starts_with('(') {
        return None;
    }
    let sp = split_number(t.trim_start())?;
    let suffix_at = t.len() - sp.suffix.len();
    let n = sp.suffix.find(|c: char| !(c.is_ascii_alphabetic() || c == '%'))?;
    let next = sp.suffix[n..].chars().next()?;
    let at = suffix_at + n;
    // `.` starts a fraction (refused with what fio reads); `(` an expression.
    let dropped = next.is_ascii_punctuation() && next != '.' && next != '(';
    (dropped && at > 0 && parse_size_or_percent(&t[..at], KbBase::K1024).is_ok()).then_some(at)
}

/// When a size's suffix makes fio read something the writer probably did not mean, a one-line
/// explanation and the fix; `None` when the value means what it looks like.
///
/// * `4KiB` under `kb_base=1024` (the default) is 4000 bytes: fio inverts the `*iB` forms.
/// * `4ki` under `kb_base=1000` is 4000 bytes: fio ignores the `i` (issue #1618).
pub fn suffix_warning(s: &str, kb_base: KbBase) -> Option<String> {
    let t = s.trim();
    let sp = split_number(t)?;
    let lower = sp.suffix.to_ascii_lowercase();
    let bytes = parse_size(t, kb_base).ok()?;
    let unit = lower.chars().next()?;
    let pow = "kmgtp".find(unit)? as u32 + 1;
    let kind = &lower[1..];
    let value = &sp.digits;
    match (kind, kb_base) {
        ("ib", KbBase::K1024) => Some(format!(
            "'{t}' is {bytes} bytes, not {meant}: with kb_base=1024 (the default) fio reads \
             the *iB suffixes as powers of 1000; write {value}{unit} for {meant} bytes, or set \
             kb_base=1000 (in the same job section, or before this option on the command \
             line) to make *iB mean powers of 1024",
            meant = bytes / 1000u64.pow(pow) * 1024u64.pow(pow),
        )),
        ("i", KbBase::K1000) => Some(format!(
            "'{t}' is {bytes} bytes: fio ignores the 'i' in '{}' (fio issue #1618), so with \
             kb_base=1000 it means powers of 1000; write {value}{}iB for {} bytes",
            &sp.suffix,
            unit.to_ascii_uppercase(),
            bytes / 1000u64.pow(pow) * 1024u64.pow(pow),
        )),
        _ => None,
    }
}

fn format_scaled(bytes: u64, base: f64, units: &[&str]) -> String {
    if (bytes as f64) < base {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= base && i + 1 < units.len() {
        v /= base;
        i += 1;
    }
    let exact = (v.fract() == 0.0) && v < 1e15;
    if exact {
        format!("{} {}", v as u64, units[i])
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// `4 KiB`, `1.5 MiB`, `976.6 KiB`: powers of 1024 with IEC names, for reports.
pub fn format_bytes_iec(bytes: u64) -> String {
    format_scaled(bytes, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"])
}

/// `4.1 kB`, `1 MB`: powers of 1000 with SI names (fio prints `kB` for kb_base=1000 values).
pub fn format_bytes_si(bytes: u64) -> String {
    format_scaled(bytes, 1000.0, &["B", "kB", "MB", "GB", "TB", "PB", "EB"])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_and_cuts() {
        assert_eq!(quote("a\0b\u{1b}[2J"), "a\\u{0}b\\u{1b}[2J");
        let long = "7".repeat(10 << 20);
        let q = quote(&long);
        assert_eq!(q, format!("{}… (10485760 bytes)", "7".repeat(100)));
        assert_eq!(quote("\u{feff}[x]"), "\\u{feff}[x]");
    }

    #[test]
    fn nan_is_refused_and_whole_decimals_accepted() {
        let k = |s: &str| parse_size(s, KbBase::K1024).unwrap_err().kind;
        assert!(matches!(k("((-1)^0.5)"), UnitErrorKind::Expression { .. }));
        assert!(matches!(k("(0/0.0)"), UnitErrorKind::Expression { .. }));
        assert_eq!(parse_size("16777216.0", KbBase::K1024).unwrap(), 16_777_216);
        assert_eq!(parse_size("65536.", KbBase::K1024).unwrap(), 65_536);
        assert_eq!(k("1.0k"), UnitErrorKind::Fractional { fio_reads: 1 });
        assert_eq!(k("4096.5"), UnitErrorKind::Fractional { fio_reads: 4096 });
    }

    /// fio-behaviour.md §1.4, every row confirmed against fio-3.33.
    #[test]
    fn size_suffix_table_matches_fio() {
        let rows: &[(&str, u64, u64)] = &[
            ("4k", 4096, 4000),
            ("4kb", 4096, 4000),
            ("4K", 4096, 4000),
            ("4KB", 4096, 4000),
            ("4ki", 4096, 4000),
            ("4Ki", 4096, 4000),
            ("4KiB", 4000, 4096),
            ("4kib", 4000, 4096),
            ("1m", 1 << 20, 1_000_000),
            ("1mi", 1 << 20, 1_000_000),
            ("1MB", 1 << 20, 1_000_000),
            ("1MiB", 1_000_000, 1 << 20),
            ("1g", 1 << 30, 1_000_000_000),
            ("1GiB", 1_000_000_000, 1 << 30),
            ("1t", 1 << 40, 1_000_000_000_000),
            ("1p", 1 << 50, 1_000_000_000_000_000),
            ("1PiB", 1_000_000_000_000_000, 1 << 50),
            ("512", 512, 512),
            ("512b", 512, 512),
            ("0x1000", 4096, 4096),
            ("+8k", 8192, 8000),
        ];
        for &(s, k1024, k1000) in rows {
            assert_eq!(parse_size(s, KbBase::K1024).unwrap(), k1024, "{s} kb_base=1024");
            assert_eq!(parse_size(s, KbBase::K1000).unwrap(), k1000, "{s} kb_base=1000");
        }
    }

    #[test]
    fn size_errors_are_typed() {
        let k = |s| parse_size(s, KbBase::K1024).unwrap_err().kind;
        assert_eq!(k(""), UnitErrorKind::Empty);
        assert_eq!(k("abc"), UnitErrorKind::NotANumber);
        assert!(matches!(k("4x"), UnitErrorKind::UnknownSuffix { .. }));
        assert!(matches!(k("4kx"), UnitErrorKind::UnknownSuffix { .. }));
        assert_eq!(k("1.5g"), UnitErrorKind::Fractional { fio_reads: 1 });
        assert_eq!(k("-4k"), UnitErrorKind::Negative);
        assert_eq!(k("20000p"), UnitErrorKind::Overflow);
        assert_eq!(k("50%"), UnitErrorKind::PercentNotAllowed);
        // fio's strtoll stops at the blank and drops the suffix ('4 k' is 4 bytes to fio).
        assert!(matches!(k("4 k"), UnitErrorKind::UnknownSuffix { .. }));
        let e = parse_size("4x", KbBase::K1024).unwrap_err().to_string();
        assert!(e.starts_with("bad size '4x': unknown suffix 'x'; expected k, m"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn size_or_percent() {
        let p = |s| parse_size_or_percent(s, KbBase::K1024);
        assert_eq!(p("50%").unwrap(), SizeOrPercent::Percent(50));
        assert_eq!(p("100%").unwrap(), SizeOrPercent::Percent(100));
        assert_eq!(p("1g").unwrap(), SizeOrPercent::Bytes(1 << 30));
        assert_eq!(p("101%").unwrap_err().kind, UnitErrorKind::PercentOutOfRange { value: 101 });
    }

    #[test]
    fn size_expressions() {
        assert_eq!(parse_size("(8*1024)", KbBase::K1024).unwrap(), 8192);
        assert_eq!(parse_size("(1.5*1m)", KbBase::K1024).unwrap(), 1_572_864);
        assert_eq!(parse_size("(2^10)", KbBase::K1024).unwrap(), 1024);
        assert!(matches!(
            parse_size("(1-2)", KbBase::K1024).unwrap_err().kind,
            UnitErrorKind::Negative
        ));
    }

    #[test]
    fn times() {
        let s = TimeUnitDefault::Seconds;
        assert_eq!(parse_time("30", s).unwrap(), Nanos::from_secs(30));
        assert_eq!(parse_time("30s", s).unwrap(), Nanos::from_secs(30));
        assert_eq!(parse_time("2m", s).unwrap(), Nanos::from_secs(120));
        assert_eq!(parse_time("1h", s).unwrap(), Nanos::from_secs(3600));
        assert_eq!(parse_time("1d", s).unwrap(), Nanos::from_secs(86400));
        assert_eq!(parse_time("250ms", s).unwrap(), Nanos::from_millis(250));
        assert_eq!(parse_time("250msec", s).unwrap(), Nanos::from_millis(250));
        assert_eq!(parse_time("10us", s).unwrap(), Nanos::from_micros(10));
        assert_eq!(parse_time("10USEC", s).unwrap(), Nanos::from_micros(10));
        assert_eq!(parse_time("7ns", s).unwrap(), Nanos(7));
        let us = TimeUnitDefault::Micros;
        assert_eq!(parse_time("500", us).unwrap(), Nanos::from_micros(500));
        assert_eq!(parse_time("(2*1s)", us).unwrap(), Nanos::from_secs(2));
        assert_eq!(parse_time("(10+5)", us).unwrap(), Nanos::from_micros(15));
        assert!(parse_time("10 s", s).is_err());
        assert!(matches!(
            parse_time("5min", s).unwrap_err().kind,
            UnitErrorKind::UnknownSuffix { .. }
        ));
        assert_eq!(
            parse_time("1.5s", s).unwrap_err().kind,
            UnitErrorKind::Fractional { fio_reads: 1 }
        );
    }

    #[test]
    fn percents() {
        assert_eq!(parse_percent("70").unwrap(), 70);
        assert_eq!(parse_percent("70%").unwrap(), 70);
        assert_eq!(parse_percent("0").unwrap(), 0);
        assert!(parse_percent("101").is_err());
        assert!(parse_percent("7x").is_err());
        assert!(parse_percent("").is_err());
    }

    #[test]
    fn fio_drops_what_follows_punctuation() {
        let head = |s: &'static str| fio_dropped_tail(s).map(|i| (&s[..i], &s[i..]));
        assert_eq!(head("512/25"), Some(("512", "/25")));
        assert_eq!(head("1k:25:2k:25:4k/25"), Some(("1k", ":25:2k:25:4k/25")));
        assert_eq!(head("65536)"), Some(("65536", ")")));
        assert_eq!(head("4KiB,"), Some(("4KiB", ",")));
        assert_eq!(head("50%)"), Some(("50%", ")")));
        for kept in ["4k", "4x", "4kfoo", "1.5g", "4k8", "(1+2)", ")", "", "k)", "4kx)", "4 k"] {
            assert_eq!(fio_dropped_tail(kept), None, "{kept}");
        }
    }

    #[test]
    fn suffix_warnings() {
        let w = suffix_warning("4KiB", KbBase::K1024).unwrap();
        assert!(w.contains("4000 bytes") && w.contains("4096") && w.contains("4k"), "{w}");
        let w = suffix_warning("1MiB", KbBase::K1024).unwrap();
        assert!(w.contains("1000000 bytes") && w.contains("1048576"), "{w}");
        let w = suffix_warning("4ki", KbBase::K1000).unwrap();
        assert!(w.contains("4000 bytes") && w.contains("#1618") && w.contains("4KiB"), "{w}");
        assert_eq!(suffix_warning("4KiB", KbBase::K1000), None);
        assert_eq!(suffix_warning("4ki", KbBase::K1024), None);
        assert_eq!(suffix_warning("4k", KbBase::K1024), None);
        assert_eq!(suffix_warning("4k", KbBase::K1000), None);
        assert_eq!(suffix_warning("junk", KbBase::K1024), None);
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bytes_iec(512), "512 B");
        assert_eq!(format_bytes_iec(4096), "4 KiB");
        assert_eq!(format_bytes_iec(1536), "1.5 KiB");
        assert_eq!(format_bytes_iec(1_000_000), "976.6 KiB");
        assert_eq!(format_bytes_iec(1 << 30), "1 GiB");
        assert_eq!(format_bytes_si(4096), "4.1 kB");
        assert_eq!(format_bytes_si(1_000_000), "1 MB");
        assert_eq!(format_bytes_si(999), "999 B");
    }
}
