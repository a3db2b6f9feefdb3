//! Typed values by the registry's [`OptionType`], and the value grammars several options share:
//! per-direction lists with fio's carry-over rule, ranges, splits, booleans, `:`-separated
//! file names with `\:` escapes.
//!
//! Sources: fio parse.c `handle_option` (per-direction `read,write,trim` lists: a value not
//! followed by a comma also applies to the later directions, an empty element keeps the
//! default), options.c `str_split_parse` / `split_parse_ddir` (splits: `val/perc:val/perc`, a
//! blank or zero share is "missing" and the remainder is divided equally, shares are clamped at
//! 100), `get_next_str` (a `\:` is a literal colon, a leading `:` is skipped, an empty element
//! ends the list; no other backslash handling). Ranges `a-b` / `a:b` are swapped when reversed
//! (parse.c `check_range_bytes` callers).

use crate::error::JobErrorKind;
use crate::registry::{OptionDef, OptionType, TimeUnit};
use crate::spec::OptionValue;
use iolab_core::units::{self, KbBase, SizeOrPercent, TimeUnitDefault};

/// fio's `BSSPLIT_MAX` and `ZONESPLIT_MAX`.
pub const BSSPLIT_MAX: usize = 64;
pub const ZONESPLIT_MAX: usize = 256;

fn bad(name: &str, value: &str, expected: impl Into<String>) -> JobErrorKind {
    JobErrorKind::BadValue {
        name: name.to_string(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

pub fn unit_err(name: &str, e: units::UnitError) -> JobErrorKind {
    JobErrorKind::Unit { name: name.to_string(), source: Box::new(e) }
}

/// A `read,write,trim` list as three optional elements; `None` keeps the default.
/// `8k` → all three; `8k,32k` → trim takes 32k too; `8k,32k,` → trim keeps its default.
pub fn per_dir<'a>(
    name: &str,
    s: &'a str,
    seps: &[char],
) -> Result<[Option<&'a str>; 3], JobErrorKind> {
    let parts: Vec<&str> = s.split(|c| seps.contains(&c)).map(str::trim).collect();
    let pick = |p: &'a str| if p.is_empty() { None } else { Some(p) };
    Ok(match parts.as_slice() {
        [a] => [pick(a), pick(a), pick(a)],
        [a, b] => [pick(a), pick(b), pick(b)],
        [a, b, c] => [pick(a), pick(b), pick(c)],
        _ => return Err(bad(name, s, "at most three values: read,write,trim")),
    })
}

/// `0`/`1`/`true`/`false`/`yes`/`no`/`on`/`off`, or a bare option name (true).
pub fn parse_bool(name: &str, v: Option<&str>) -> Result<bool, JobErrorKind> {
    let Some(v) = v else { return Ok(true) };
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => {
            // fio reads booleans as integers: any non-zero number is true.
            match units::parse_size(v, KbBase::K1024) {
                Ok(n) => Ok(n != 0),
                Err(_) => Err(bad(name, v, "a boolean: 1, 0, true or false (or the bare name)")),
            }
        }
    }
}

/// An integer that may carry size suffixes and a sign (fio's `FIO_OPT_INT` goes through
/// `check_str_bytes`, so `iodepth=1k` is 1024).
pub fn parse_int(name: &str, v: &str, kb: KbBase) -> Result<i64, JobErrorKind> {
    let t = v.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let n = units::parse_size(body, kb).map_err(|e| unit_err(name, e))?;
    let n = i64::try_from(n).map_err(|_| bad(name, v, "an integer that fits in 63 bits"))?;
    Ok(if neg { -n } else { n })
}

/// A non-negative integer that fits `u32` (depths, counts).
pub fn parse_u32(name: &str, v: &str, kb: KbBase) -> Result<u32, JobErrorKind> {
    let n = parse_int(name, v, kb)?;
    u32::try_from(n).map_err(|_| bad(name, v, "an integer from 0 to 4294967295"))
}

pub fn parse_float(name: &str, v: &str) -> Result<f64, JobErrorKind> {
    let t = v.trim();
    let f = if t.starts_with('(') {
        units::expr::eval(t, units::expr::Context::plain()).ok()
    } else {
        t.parse::<f64>().ok()
    };
    match f {
        Some(f) if f.is_finite() => Ok(f),
        _ => Err(bad(name, v, "a number such as 1.2")),
    }
}

/// `a-b` or `a:b` (sizes), swapped when reversed; a single value is `a-a` (fio 3.33 refuses
/// it; iolab reads it as that one size).
pub fn parse_range(name: &str, v: &str, kb: KbBase) -> Result<(u64, u64), JobErrorKind> {
    parse_range_tails(name, v, kb, &mut Vec::new())
}

/// [`parse_range`] as parse.c `__handle_option`'s `FIO_OPT_RANGE` reads one direction: the
/// first `-` (after a leading sign), else the first `:`, splits the two ends, and each end is
/// read as `str_to_decimal` reads it, up to the tail fio drops
/// ([`units::fio_dropped_tail`]); a warning per dropped tail goes to `warn`. So fio 3.33's
/// `bsrange=512/25:1k:25:2k:25:4k/25` (t/jobs/t0023) is `512-1k`, with no word from fio.
pub fn parse_range_tails(
    name: &str,
    v: &str,
    kb: KbBase,
    warn: &mut Vec<String>,
) -> Result<(u64, u64), JobErrorKind> {
    let t = v.trim();
    // Skip the first character so a leading sign is not taken as the separator.
    let find = |sep: char| t.char_indices().skip(1).find(|&(_, c)| c == sep).map(|(i, _)| i);
    let (a, b) = match find('-').or_else(|| find(':')) {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, t),
    };
    let a = units::parse_size(fio_head(name, a, warn), kb).map_err(|e| unit_err(name, e))?;
    let b = units::parse_size(fio_head(name, b, warn), kb).map_err(|e| unit_err(name, e))?;
    warn.dedup();
    Ok(if a <= b { (a, b) } else { (b, a) })
}

/// The part of a size fio reads, with a warning in `warn` when fio drops a tail after it
/// (`65536)` is 65536: parse.c `str_to_decimal`, see [`units::fio_dropped_tail`]).
pub fn fio_head<'a>(name: &str, v: &'a str, warn: &mut Vec<String>) -> &'a str {
    match units::fio_dropped_tail(v) {
        Some(at) => {
            let (head, tail) = v.split_at(at);
            warn.push(format!(
                "{name}: '{}' after '{}' is ignored (fio reads a number and its unit and drops \
                 the rest, parse.c str_to_decimal)",
                units::quote(tail.trim()),
                units::quote(head.trim()),
            ));
            head
        }
        None => v,
    }
}

/// `zoneskip` (fio `FIO_OPT_STR_VAL_ZONE`): bytes, or `Nz`, N zones of `zonesize` (zbd.c
/// `zbd_recalc_options_with_zone_granularity`, which runs for `zonemode=strided` too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneSkip {
    Bytes(u64),
    Zones(u64),
}

/// [`ZoneSkip`] from its text.
pub fn parse_zoneskip(name: &str, v: &str, kb: KbBase) -> Result<ZoneSkip, JobErrorKind> {
    let t = v.trim();
    if let Some(n) = t.strip_suffix(['z', 'Z']) {
        let n = n.trim();
        let zones = n.parse::<u64>().ok().filter(|_| n.bytes().all(|b| b.is_ascii_digit()));
        return zones
            .map(ZoneSkip::Zones)
            .ok_or_else(|| bad(name, v, "a size, or a whole number of zones below 2^64 (`2z`)"));
    }
    units::parse_size(fio_head(name, t, &mut Vec::new()), kb)
        .map(ZoneSkip::Bytes)
        .map_err(|e| unit_err(name, e))
}

/// A time range `a-b` / `a:b` (`startdelay`), swapped when reversed.
pub fn parse_time_range(
    name: &str,
    v: &str,
    unit: TimeUnitDefault,
) -> Result<(u64, u64), JobErrorKind> {
    let t = v.trim();
    let sep = t.char_indices().skip(1).find(|&(_, c)| c == '-' || c == ':').map(|(i, _)| i);
    let (a, b) = match sep {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, t),
    };
    let a = units::parse_time(a, unit).map_err(|e| unit_err(name, e))?.0;
    let b = units::parse_time(b, unit).map_err(|e| unit_err(name, e))?.0;
    Ok(if a <= b { (a, b) } else { (b, a) })
}

/// One direction of a split: `(value, share)`; a share of `None` is blank (or written as 0,
/// which fio also treats as blank). `absolute` (zoned_abs) reads the second field as a size.
pub fn split_entries(
    name: &str,
    s: &str,
    max: usize,
) -> Result<Vec<(String, Option<String>)>, JobErrorKind> {
    let mut out = Vec::new();
    for elem in s.split(':') {
        if elem.trim().is_empty() {
            break; // fio: an empty element ends the list
        }
        let (v, p) = match elem.split_once('/') {
            Some((v, p)) => (v.trim().to_string(), Some(p.trim().to_string())),
            None => (elem.trim().to_string(), None),
        };
        out.push((v, p));
        if out.len() > max {
            return Err(JobErrorKind::TooManySplits {
                name: name.to_string(),
                count: s.split(':').count(),
                max,
            });
        }
    }
    Ok(out)
}

/// A share as fio's `atoi` in `split_parse_ddir`: 0 or blank → missing, above 100 → 100.
pub fn parse_share(name: &str, p: Option<&str>) -> Result<Option<u32>, JobErrorKind> {
    let Some(p) = p else { return Ok(None) };
    if p.is_empty() {
        return Ok(None);
    }
    let n =
        units::parse_size(p.trim_end_matches('%'), KbBase::K1024).map_err(|e| unit_err(name, e))?;
    Ok(match n {
        0 => None,
        n => Some(n.min(100) as u32),
    })
}

/// Fill blank shares with an equal part of the remainder (fio `bssplit_ddir`,
/// `zone_split_ddir`); error above 100 in total.
pub fn fill_shares(
    name: &str,
    what: &'static str,
    shares: &[Option<u32>],
) -> Result<Vec<u32>, JobErrorKind> {
    let total: u32 = shares.iter().flatten().sum();
    let missing = shares.iter().filter(|s| s.is_none()).count() as u32;
    if total > 100 {
        return Err(JobErrorKind::SplitOver100 { name: name.to_string(), what, total });
    }
    let each = (100 - total).checked_div(missing).unwrap_or(0);
    Ok(shares.iter().map(|s| s.unwrap_or(each)).collect())
}

/// `filename=a:b\:c` → `["a", "b:c"]` (fio `get_next_str`).
pub fn split_filenames(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    let mut started = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                cur.push(':');
                chars.next();
                started = true;
            }
            ':' => {
                if !started {
                    continue; // a leading ':' is skipped
                }
                // fio get_next_str: an empty name between two ':' is skipped (`a::b` is
                // the two files a and b).
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => {
                cur.push(c);
                started = true;
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Linux's `PATH_MAX` (including the NUL): no longer path can be opened.
pub const PATH_MAX: usize = 4096;

/// A file or directory name that no `open` could accept is refused where it is written, so a
/// 10 MB `filename=` gives a short error here instead of an ENAMETOOLONG echoing it later.
pub fn check_path_lengths(name: &str, v: &str) -> Result<(), JobErrorKind> {
    if !matches!(name, "filename" | "directory" | "opendir" | "read_iolog" | "write_iolog") {
        return Ok(());
    }
    match split_filenames(v).iter().find(|p| p.len() >= PATH_MAX) {
        Some(p) => Err(bad(
            name,
            v,
            format!("paths of at most {} bytes (PATH_MAX); this one has {}", PATH_MAX - 1, p.len()),
        )),
        None => Ok(()),
    }
}

fn time_default(u: TimeUnit) -> TimeUnitDefault {
    match u {
        TimeUnit::Sec => TimeUnitDefault::Seconds,
        TimeUnit::Msec => TimeUnitDefault::Millis,
        TimeUnit::Usec => TimeUnitDefault::Micros,
    }
}

/// The typed value of an option by its registry type. `Special` options keep their text here;
/// `apply` reads their grammar.
pub fn typed(def: &OptionDef, v: Option<&str>, kb: KbBase) -> Result<OptionValue, JobErrorKind> {
    let name = def.name;
    if def.ty == OptionType::Bool {
        return parse_bool(name, v).map(OptionValue::Bool);
    }
    let Some(v) = v else {
        return Err(JobErrorKind::MissingValue { name: name.to_string() });
    };
    Ok(match def.ty {
        OptionType::Bool => OptionValue::Bool(parse_bool(name, Some(v))?),
        OptionType::Int => OptionValue::Int(parse_int(name, v, kb)?),
        OptionType::Size => OptionValue::Size(
            units::parse_size(fio_head(name, v, &mut Vec::new()), kb)
                .map_err(|e| unit_err(name, e))?,
        ),
        OptionType::SizeOrPercent => {
            let head = fio_head(name, v, &mut Vec::new());
            match units::parse_size_or_percent(head, kb).map_err(|e| unit_err(name, e))? {
                SizeOrPercent::Bytes(b) => OptionValue::Size(b),
                SizeOrPercent::Percent(p) => OptionValue::Str(format!("{p}%")),
            }
        }
        OptionType::Time { unit } => OptionValue::Time(
            units::parse_time(v, time_default(unit)).map_err(|e| unit_err(name, e))?,
        ),
        OptionType::Float => {
            if v.contains(':') {
                OptionValue::List(
                    v.split(':')
                        .map(|p| parse_float(name, p).map(OptionValue::Float))
                        .collect::<Result<_, _>>()?,
                )
            } else {
                OptionValue::Float(parse_float(name, v)?)
            }
        }
        OptionType::Str => {
            if !def.choices.is_empty() {
                let head = v.split(':').next().unwrap_or(v).trim();
                if !def.choices.contains(&head) {
                    return Err(bad(name, v, format!("one of: {}", def.choices.join(", "))));
                }
            }
            OptionValue::Str(v.to_string())
        }
        OptionType::Range => {
            // parse.c: a range's directions are split at `,` only (`/` is no separator).
            let dirs = per_dir(name, v, &[','])?;
            let mut out = Vec::new();
            for d in dirs.into_iter().flatten() {
                let (a, b) = parse_range(name, d, kb)?;
                out.push(OptionValue::List(vec![OptionValue::Size(a), OptionValue::Size(b)]));
            }
            OptionValue::List(out)
        }
        OptionType::SizeList => {
            let dirs = per_dir(name, v, &[','])?;
            let mut out = Vec::new();
            for d in dirs.into_iter().flatten() {
                out.push(OptionValue::Size(
                    units::parse_size(d, kb).map_err(|e| unit_err(name, e))?,
                ));
            }
            OptionValue::List(out)
        }
        OptionType::IntList => {
            let dirs = per_dir(name, v, &[','])?;
            let mut out = Vec::new();
            for d in dirs.into_iter().flatten() {
                out.push(OptionValue::Int(parse_int(name, d, kb)?));
            }
            OptionValue::List(out)
        }
        OptionType::Split | OptionType::Special | OptionType::Deprecated => {
            OptionValue::Str(v.to_string())
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn per_direction_carry_over() {
        assert_eq!(per_dir("bs", "8k", &[',']).unwrap(), [Some("8k"); 3]);
        assert_eq!(
            per_dir("bs", "8k,32k", &[',']).unwrap(),
            [Some("8k"), Some("32k"), Some("32k")]
        );
        assert_eq!(per_dir("bs", "8k,32k,", &[',']).unwrap(), [Some("8k"), Some("32k"), None]);
        assert_eq!(per_dir("bs", ",32k", &[',']).unwrap(), [None, Some("32k"), Some("32k")]);
        assert!(per_dir("bs", "1,2,3,4", &[',']).is_err());
    }

    #[test]
    fn ranges_swap() {
        assert_eq!(parse_range("bsrange", "1k-4k", KbBase::K1024).unwrap(), (1024, 4096));
        assert_eq!(parse_range("bsrange", "4k:1k", KbBase::K1024).unwrap(), (1024, 4096));
        assert_eq!(parse_range("bsrange", "8k", KbBase::K1024).unwrap(), (8192, 8192));
        // fio 3.33's t/jobs/t0023: the `-` is looked for first, then the first `:`; each end
        // is read up to its first separator.
        let mut w = Vec::new();
        let r = parse_range_tails("bsrange", "512/25:1k:25:2k:25:4k/25", KbBase::K1024, &mut w);
        assert_eq!(r.unwrap(), (512, 1024));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("'/25' after '512'") && w[1].contains("'1k'"), "{w:?}");
        assert_eq!(parse_range("bsrange", "1k:2k-4k", KbBase::K1024).unwrap(), (1024, 4096));
        assert!(parse_range("bsrange", "1k-4x", KbBase::K1024).is_err());
    }

    #[test]
    fn filenames_escape() {
        assert_eq!(split_filenames("a:b:c"), ["a", "b", "c"]);
        assert_eq!(split_filenames("F\\:fiofile"), ["F:fiofile"]);
        assert_eq!(split_filenames("F\\:\\dir\\file"), ["F:\\dir\\file"]);
        assert_eq!(split_filenames("\\\\.\\PhysicalDrive10"), ["\\\\.\\PhysicalDrive10"]);
        assert_eq!(split_filenames(":a:b"), ["a", "b"]);
        assert_eq!(split_filenames("a::b"), ["a", "b"]);
        assert_eq!(split_filenames("/dev/sdb:/dev/sda"), ["/dev/sdb", "/dev/sda"]);
    }

    #[test]
    fn shares() {
        let s = [Some(50), None, None];
        assert_eq!(fill_shares("bssplit", "block size", &s).unwrap(), [50, 25, 25]);
        assert!(matches!(
            fill_shares("bssplit", "block size", &[Some(60), Some(50)]),
            Err(JobErrorKind::SplitOver100 { total: 110, .. })
        ));
        assert_eq!(parse_share("x", Some("0")).unwrap(), None);
        assert_eq!(parse_share("x", Some("150")).unwrap(), Some(100));
    }

    #[test]
    fn booleans() {
        assert!(parse_bool("x", None).unwrap());
        assert!(!parse_bool("x", Some("0")).unwrap());
        assert!(parse_bool("x", Some("true")).unwrap());
        assert!(!parse_bool("x", Some("False")).unwrap());
        assert!(parse_bool("x", Some("maybe")).is_err());
    }
}
