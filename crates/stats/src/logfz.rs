//! fio's compressed logs (`log_store_compressed=1`, `NAME_clat.N.log.fz`) and
//! `fio --inflate-log`: fio iolog.c `iolog_file_inflate`, `inflate_chunk`, `flush_samples`,
//! with the sample layout of iolog.h (fio 3.33).
//!
//! A `.fz` file is one or more zlib streams, each holding raw `struct io_sample` records in
//! the host's byte order (little-endian here): `time` u64, `val` u64, `__ddir` u32 (the
//! direction, with `LOG_OFFSET_SAMPLE_BIT` 0x8000_0000 when the record carries an offset and
//! `LOG_PRIO_SAMPLE_BIT` 0x4000_0000 under `log_prio`), `priority` u16, 2 bytes of padding,
//! `bs` u64 (32 bytes), then `offset` u64 with `log_offset` (40 bytes). Inflating prints them
//! as `flush_samples` does: `time, val, ddir, bs[, offset], prio`, `prio` as `0x%04x` under
//! `log_prio` and else 1 for the realtime class. Whatever fio writes, iolab reads, and back.
//! zlib comes from `flate2` (fio uses zlib itself; the streams are plain RFC 1950).

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// ioprio class shift (`IOPRIO_CLASS_SHIFT`); class 1 is realtime.
const IOPRIO_CLASS_SHIFT: u32 = 13;

/// One log record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FzSample {
    pub time_ms: u64,
    pub value: u64,
    pub ddir: u8,
    pub bs: u64,
    pub offset: Option<u64>,
    /// The I/O's ioprio value (class << 13 | level).
    pub prio: u16,
}

/// Which columns the log has (fio keeps them in the `__ddir` bits of every record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FzColumns {
    pub offset: bool,
    pub log_prio: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FzError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: byte {at}: not a zlib stream of fio log samples ({source})")]
    Zlib { path: PathBuf, at: u64, source: std::io::Error },
    #[error("{path}: stream ending at byte {at}: {len} bytes of samples is not a whole number of {size}-byte records")]
    Partial { path: PathBuf, at: u64, len: usize, size: usize },
}

fn record_size(offset: bool) -> usize {
    if offset {
        40
    } else {
        32
    }
}

/// The raw records of `samples` (fio's in-memory layout).
fn records(samples: &[FzSample], cols: FzColumns) -> Vec<u8> {
    let mut raw = Vec::with_capacity(samples.len() * record_size(cols.offset));
    for s in samples {
        let mut ddir = u32::from(s.ddir);
        if cols.offset {
            ddir |= OFFSET_BIT;
        }
        if cols.log_prio {
            ddir |= PRIO_BIT;
        }
        raw.extend_from_slice(&s.time_ms.to_le_bytes());
        raw.extend_from_slice(&s.value.to_le_bytes());
        raw.extend_from_slice(&ddir.to_le_bytes());
        raw.extend_from_slice(&s.prio.to_le_bytes());
        raw.extend_from_slice(&[0, 0]);
        raw.extend_from_slice(&s.bs.to_le_bytes());
        if cols.offset {
            raw.extend_from_slice(&s.offset.unwrap_or(0).to_le_bytes());
        }
    }
    raw
}

/// The `.fz` bytes for `samples`: one zlib stream (fio's `deflateInit` default level), or
/// nothing for an empty log (fio writes an empty file then).
pub fn encode(samples: &[FzSample], cols: FzColumns) -> Vec<u8> {
    if samples.is_empty() {
        return Vec::new();
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(&records(samples, cols));
    z.finish().unwrap_or_default()
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Append `raw`'s records as `flush_samples` prints them; the columns come from the first
/// record's bits, as in fio. `Err(size)` when `raw` is not whole records.
fn flush_samples(raw: &[u8], out: &mut String) -> Result<(), usize> {
    if raw.len() < 32 {
        return if raw.is_empty() { Ok(()) } else { Err(32) };
    }
    let first = u32::from_le_bytes([raw[16], raw[17], raw[18], raw[19]]);
    let (offset, log_prio) = (first & OFFSET_BIT != 0, first & PRIO_BIT != 0);
    let size = record_size(offset);
    if raw.len() % size != 0 {
        return Err(size);
    }
    for r in raw.chunks_exact(size) {
        let ddir = u32::from_le_bytes([r[16], r[17], r[18], r[19]]) & !(OFFSET_BIT | PRIO_BIT);
        let prio = u16::from_le_bytes([r[20], r[21]]);
        let _ = write!(out, "{}, {}, {}, {}", u64_at(r, 0), u64_at(r, 8), ddir, u64_at(r, 24));
        if offset {
            let _ = write!(out, ", {}", u64_at(r, 32));
        }
        let _ = if log_prio {
            writeln!(out, ", 0x{prio:04x}")
        } else {
            writeln!(out, ", {}", u32::from(u32::from(prio) >> IOPRIO_CLASS_SHIFT == 1))
        };
    }
    Ok(())
}

/// `fio --inflate-log=FILE`: every zlib stream of the file, inflated and printed.
pub fn inflate_file(path: &Path) -> Result<String, FzError> {
    let bytes = std::fs::read(path).map_err(|source| FzError::Io { path: path.into(), source })?;
    inflate(&bytes, path)
}

/// [`inflate_file`] on bytes already read (`path` names them in errors).
pub fn inflate(bytes: &[u8], path: &Path) -> Result<String, FzError> {
    let mut out = String::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let at = (bytes.len() - rest.len()) as u64;
        let mut d = flate2::bufread::ZlibDecoder::new(rest);
        let mut raw = Vec::new();
        d.read_to_end(&mut raw).map_err(|source| FzError::Zlib {
            path: path.into(),
            at,
            source,
        })?;
        let used = d.total_in() as usize;
        if used == 0 {
            let source = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
            return Err(FzError::Zlib { path: path.into(), at, source });
        }
        flush_samples(&raw, &mut out).map_err(|size| FzError::Partial {
            path: path.into(),
            at: at + used as u64,
            len: raw.len(),
            size,
        })?;
        rest = &rest[used..];
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(t: u64, v: u64, ddir: u8, off: Option<u64>, prio: u16) -> FzSample {
        FzSample { time_ms: t, value: v, ddir, bs: 4096, offset: off, prio }
    }

    #[test]
    fn round_trip_prints_fio_columns() {
        let p = Path::new("x.fz");
        let plain = [s(3, 3781595, 0, None, 0), s(4, 38907, 1, None, 0x2000)];
        let text = inflate(&encode(&plain, FzColumns::default()), p).unwrap();
        assert_eq!(text, "3, 3781595, 0, 4096, 0\n4, 38907, 1, 4096, 1\n");
        let cols = FzColumns { offset: true, log_prio: true };
        let rich = [s(3, 10, 0, Some(8192), 0x4004)];
        let text = inflate(&encode(&rich, cols), p).unwrap();
        assert_eq!(text, "3, 10, 0, 4096, 8192, 0x4004\n");
        // Two streams back to back (fio writes one per chunk) read as one log.
        let mut two = encode(&plain, FzColumns::default());
        two.extend(encode(&plain[..1], FzColumns::default()));
        assert_eq!(inflate(&two, p).unwrap().lines().count(), 3);
        assert!(encode(&[], cols).is_empty());
        assert_eq!(inflate(&[], p).unwrap(), "");
    }

    #[test]
    fn garbage_and_cut_streams_are_named_errors() {
        let p = Path::new("bad.fz");
        let e = inflate(b"not zlib at all", p).unwrap_err().to_string();
        assert!(e.starts_with("bad.fz: byte 0: not a zlib stream"), "{e}");
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&[0u8; 33]).unwrap();
        let e = inflate(&z.finish().unwrap(), p).unwrap_err().to_string();
        assert!(e.contains("33 bytes of samples is not a whole number of 32-byte records"), "{e}");
        let good = encode(&[s(1, 2, 0, None, 0)], FzColumns::default());
        let e = inflate(&good[..good.len() - 3], p).unwrap_err().to_string();
        assert!(e.contains("byte 0: not a zlib stream"), "{e}");
    }
}
