//! Write verification: `verify=crc64|crc32c|crc32|crc16|crc7|xxhash|md5|sha1|sha256|sha512|
//! sha3-224|sha3-256|sha3-384|sha3-512|meta|pattern|null` (fio's names, fio
//! verify.c / verify.h; the header layout is iolab's own). Each verify interval (fio `verify_interval`, default here: the whole
//! block up to 4 KiB pieces) starts with a [`header::Header`] naming the file, offset,
//! generation and seed it was written for, and a digest of the interval. [`check`] compares
//! what was read with what was expected and says which of these happened:
//! - `Corruption`: the header is right but the bytes are not (bit flip, lost sector);
//! - `Misplaced`: an intact block written for another offset or file (misdirected write);
//! - `Stale`: an intact block from an older (or newer) generation (lost write);
//! - `Torn`: intervals of one block from different generations (partial write);
//! - `BadHeader`: no header at all (never written, overwritten by something else), or one
//!   written by another run (different seed).

pub mod checksum;
pub mod header;

use crate::error::{DataError, OptionErrorKind};
use header::{Header, HeaderError, DIGEST_AT, HEADER_LEN};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// `verify=`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyKind {
    #[default]
    None,
    Crc32c,
    Xxhash,
    Md5,
    Sha256,
    /// The body holds `verify_pattern`, compared byte for byte.
    Pattern,
    /// fio's "pretend to verify".
    Null,
    Crc64,
    Crc32,
    Crc16,
    Crc7,
    Sha1,
    Sha512,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    /// fio's `meta`: the header (offset, generation, seed) is checked, the data is not.
    Meta,
}

const SUPPORTED: &str = "0, crc64, crc32c, crc32c-intel, crc32, crc16, crc7, xxhash, md5, sha1, \
                         sha256, sha512, sha3-224, sha3-256, sha3-384, sha3-512, meta, pattern, \
                         null";

/// Every kind with its fio name, in header-code order (the codes are stored on disk).
const KINDS: [(VerifyKind, &str); 18] = [
    (VerifyKind::None, "none"),
    (VerifyKind::Crc32c, "crc32c"),
    (VerifyKind::Xxhash, "xxhash"),
    (VerifyKind::Md5, "md5"),
    (VerifyKind::Sha256, "sha256"),
    (VerifyKind::Pattern, "pattern"),
    (VerifyKind::Null, "null"),
    (VerifyKind::Crc64, "crc64"),
    (VerifyKind::Crc32, "crc32"),
    (VerifyKind::Crc16, "crc16"),
    (VerifyKind::Crc7, "crc7"),
    (VerifyKind::Sha1, "sha1"),
    (VerifyKind::Sha512, "sha512"),
    (VerifyKind::Sha3_224, "sha3-224"),
    (VerifyKind::Sha3_256, "sha3-256"),
    (VerifyKind::Sha3_384, "sha3-384"),
    (VerifyKind::Sha3_512, "sha3-512"),
    (VerifyKind::Meta, "meta"),
];

impl VerifyKind {
    /// Parse fio's `verify=` value.
    pub fn parse(s: &str) -> Result<Self, DataError> {
        Ok(match s.trim() {
            "0" | "none" | "" => VerifyKind::None,
            "crc32c" | "crc32c-intel" => VerifyKind::Crc32c,
            other => match KINDS.iter().find(|(k, n)| *n == other && *k != VerifyKind::None) {
                Some((k, _)) => *k,
                None => {
                    return Err(DataError::option(
                        "verify",
                        other,
                        OptionErrorKind::OneOf(SUPPORTED),
                    ))
                }
            },
        })
    }

    pub fn name(self) -> &'static str {
        KINDS.iter().find(|(k, _)| *k == self).map_or("none", |(_, n)| n)
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(c: u8) -> Option<Self> {
        KINDS.iter().map(|(k, _)| *k).find(|k| *k as u8 == c)
    }
}

/// Default bytes per header: one per 4 KiB, the atomic write unit of most devices, so a
/// torn write shows up as intervals of different generations.
pub const DEFAULT_INTERVAL: u32 = 4096;

/// What a block is expected to hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyCtx {
    pub kind: VerifyKind,
    pub file: u32,
    /// Offset of the block in the file.
    pub offset: u64,
    pub gen: u64,
    pub seed: u64,
    /// Bytes per header (fio `verify_interval`); 0 means [`DEFAULT_INTERVAL`].
    pub interval: u32,
    /// `verify_pattern` bytes for [`VerifyKind::Pattern`].
    #[serde(skip)]
    pub pattern: Option<Arc<[u8]>>,
}

impl VerifyCtx {
    pub fn new(kind: VerifyKind, file: u32, offset: u64, gen: u64, seed: u64) -> Self {
        VerifyCtx { kind, file, offset, gen, seed, interval: 0, pattern: None }
    }

    /// Interval boundaries of a `len`-byte block: full intervals, the last one absorbing a
    /// remainder too short for its own header.
    fn intervals(&self, len: usize) -> impl Iterator<Item = (usize, usize)> {
        let iv = if self.interval == 0 { DEFAULT_INTERVAL } else { self.interval } as usize;
        let iv = iv.max(2 * HEADER_LEN);
        let n = (len / iv).max(1);
        (0..n).map(move |i| (i * iv, if i + 1 == n { len } else { (i + 1) * iv }))
    }

    fn header_for(&self, start: usize, end: usize) -> Header {
        Header {
            kind: self.kind,
            len: (end - start) as u32,
            file: self.file,
            offset: self.offset + start as u64,
            gen: self.gen,
            seed: self.seed,
        }
    }
}

/// Smallest block that can carry a header.
pub const MIN_BLOCK: usize = 2 * HEADER_LEN;

/// Write headers (and for `pattern`, the pattern) into a filled write buffer. Buffers shorter
/// than [`MIN_BLOCK`] are left as they are (`iolab_job::Job::data_config` rejects such
/// block sizes with verify set).
pub fn stamp(buf: &mut [u8], ctx: &VerifyCtx) {
    if matches!(ctx.kind, VerifyKind::None | VerifyKind::Null) || buf.len() < MIN_BLOCK {
        return;
    }
    for (s, e) in ctx.intervals(buf.len()) {
        let iv = &mut buf[s..e];
        ctx.header_for(s, e).write(iv);
        iv[DIGEST_AT..HEADER_LEN].fill(0);
        if ctx.kind == VerifyKind::Pattern {
            let pat: &[u8] = ctx.pattern.as_deref().unwrap_or(&[0]);
            crate::pattern::fill_pattern(&mut iv[HEADER_LEN..], pat);
        } else if let Some(d) = checksum::digest(ctx.kind, iv) {
            iv[DIGEST_AT..HEADER_LEN].copy_from_slice(&d);
        }
    }
}

/// What went wrong with a block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FailureKind {
    /// The bytes differ from what the header's digest (or the pattern) says. `at` is the
    /// byte in the block: the first differing byte for `pattern`, else the interval start
    /// until [`VerifyFailure::locate`] compares with the regenerated block.
    Corruption { at: u64, in_header: bool },
    /// An intact block that was written for another place.
    Misplaced { found_file: u32, found_offset: u64 },
    /// An intact block of another generation.
    Stale { found_gen: u64 },
    /// Intact intervals of different generations: the write reached the media only in part.
    Torn { at: u64, gen_before: u64, gen_after: u64 },
    /// No valid header at `at`: `zeros` says whether the interval was all zeros (never
    /// written), `found_seed` is set when the header belongs to another run.
    BadHeader { at: u64, zeros: bool, found_seed: Option<u64> },
    /// An intact header of this run whose checksum is not the one asked (crc32c data read
    /// back with `verify=md5`): fio verify.c `verify_header`, "verify type mismatch".
    WrongKind { at: u64, found: VerifyKind },
}

/// A failed check, one line when displayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyFailure {
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    pub kind: FailureKind,
    pub expected: VerifyCtx,
    /// The first header that disagreed, if one could be read.
    pub found: Option<Header>,
}

impl fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "verify ({}) failed: file {} offset {} len {}: ",
            self.expected.kind.name(),
            self.file,
            self.offset,
            self.len
        )?;
        let g = self.expected.gen;
        match &self.kind {
            FailureKind::Corruption { at, in_header: true } => {
                write!(f, "corruption: verify header at block byte {at} fails its crc")
            }
            FailureKind::Corruption { at, in_header: false } => {
                write!(f, "corruption: content differs from its checksum at block byte {at}")
            }
            FailureKind::Misplaced { found_file, found_offset } => write!(
                f,
                "misplaced: holds the block written for file {found_file} offset {found_offset}"
            ),
            FailureKind::Stale { found_gen } => {
                write!(f, "stale: holds generation {found_gen}, expected {g} (a write was lost)")
            }
            FailureKind::Torn { at, gen_before, gen_after } => write!(
                f,
                "torn: generation {gen_before} up to block byte {at}, {gen_after} after it"
            ),
            FailureKind::BadHeader { at, zeros: true, .. } => {
                write!(f, "no verify header at block byte {at}: all zeros (never written)")
            }
            FailureKind::BadHeader { at, found_seed: Some(s), .. } => write!(
                f,
                "header at block byte {at} is from another run (seed {s:#x}, expected {:#x})",
                self.expected.seed
            ),
            FailureKind::BadHeader { at, .. } => {
                write!(f, "no verify header at block byte {at} (bad magic or format)")
            }
            FailureKind::WrongKind { at, found } => write!(
                f,
                "verify type mismatch: the header at block byte {at} carries {} data, {} was \
                 asked",
                found.name(),
                self.expected.kind.name()
            ),
        }
    }
}

impl std::error::Error for VerifyFailure {}

impl VerifyFailure {
    /// A digest only says that an interval is wrong; with the block as it was written
    /// (`written`, regenerated from the same seed, file, offset and generation) the first
    /// byte that differs in the failing interval is the real `at` of a corruption. Other
    /// failures, and a `written` of another length, are left as they are.
    pub fn locate(&mut self, read: &[u8], written: &[u8]) {
        let FailureKind::Corruption { at, .. } = &mut self.kind else { return };
        if read.len() != written.len() {
            return;
        }
        let from = (*at as usize).min(read.len());
        if let Some(i) = read[from..].iter().zip(&written[from..]).position(|(a, b)| a != b) {
            *at = (from + i) as u64;
        }
    }
}

fn interval_digest_ok(kind: VerifyKind, iv: &[u8]) -> bool {
    let mut tmp = iv.to_vec();
    tmp[DIGEST_AT..HEADER_LEN].fill(0);
    match checksum::digest(kind, &tmp) {
        Some(d) => d[..] == iv[DIGEST_AT..HEADER_LEN],
        None => true,
    }
}

/// Check a block read back against what it should hold.
// The failure carries the whole expectation for the report; it is the cold path.
#[allow(clippy::result_large_err)]
pub fn check(buf: &[u8], expected: &VerifyCtx) -> Result<(), VerifyFailure> {
    if matches!(expected.kind, VerifyKind::None | VerifyKind::Null) || buf.len() < MIN_BLOCK {
        return Ok(());
    }
    let fail = |kind, found| VerifyFailure {
        file: expected.file,
        offset: expected.offset,
        len: buf.len() as u64,
        kind,
        expected: expected.clone(),
        found,
    };
    // First pass: every interval must have a header and intact content.
    let mut headers = Vec::new();
    for (s, e) in expected.intervals(buf.len()) {
        let iv = &buf[s..e];
        let at = s as u64;
        let h = match Header::read(iv) {
            Ok(h) => h,
            Err(HeaderError::Crc) => {
                return Err(fail(FailureKind::Corruption { at, in_header: true }, None))
            }
            Err(HeaderError::Magic | HeaderError::Format) => {
                let zeros = iv.iter().all(|b| *b == 0);
                return Err(fail(FailureKind::BadHeader { at, zeros, found_seed: None }, None));
            }
        };
        if h.seed != expected.seed {
            let k = FailureKind::BadHeader { at, zeros: false, found_seed: Some(h.seed) };
            return Err(fail(k, Some(h)));
        }
        if h.kind != expected.kind {
            return Err(fail(FailureKind::WrongKind { at, found: h.kind }, Some(h)));
        }
        if h.kind == VerifyKind::Pattern {
            let pat: &[u8] = expected.pattern.as_deref().unwrap_or(&[0]);
            let body = &iv[HEADER_LEN..];
            if let Some(i) = (0..body.len()).find(|&i| body[i] != pat[i % pat.len()]) {
                let k =
                    FailureKind::Corruption { at: (s + HEADER_LEN + i) as u64, in_header: false };
                return Err(fail(k, Some(h)));
            }
        } else if h.len as usize != iv.len() || !interval_digest_ok(h.kind, iv) {
            return Err(fail(FailureKind::Corruption { at, in_header: false }, Some(h)));
        }
        headers.push((s, h));
    }
    // Second pass: intact intervals, but were they written for this place and generation?
    for &(s, h) in &headers {
        if h.file != expected.file || h.offset != expected.offset + s as u64 {
            let k = FailureKind::Misplaced {
                found_file: h.file,
                found_offset: h.offset.wrapping_sub(s as u64),
            };
            return Err(fail(k, Some(h)));
        }
    }
    let first = headers[0].1.gen;
    if let Some(&(s, h)) = headers.iter().find(|(_, h)| h.gen != first) {
        let k = FailureKind::Torn { at: s as u64, gen_before: first, gen_after: h.gen };
        return Err(fail(k, Some(h)));
    }
    if first != expected.gen {
        return Err(fail(FailureKind::Stale { found_gen: first }, Some(headers[0].1)));
    }
    Ok(())
}

/// Failure counts of a verify phase, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerifyStats {
    pub checked: u64,
    pub ok: u64,
    pub corruption: u64,
    pub misplaced: u64,
    pub stale: u64,
    pub torn: u64,
    pub bad_header: u64,
}

impl VerifyStats {
    pub fn record(&mut self, r: &Result<(), VerifyFailure>) {
        self.checked += 1;
        match r {
            Ok(()) => self.ok += 1,
            Err(f) => match f.kind {
                FailureKind::Corruption { .. } => self.corruption += 1,
                FailureKind::Misplaced { .. } => self.misplaced += 1,
                FailureKind::Stale { .. } => self.stale += 1,
                FailureKind::Torn { .. } => self.torn += 1,
                // fio counts a type mismatch among the header checks.
                FailureKind::BadHeader { .. } | FailureKind::WrongKind { .. } => {
                    self.bad_header += 1
                }
            },
        }
    }

    pub fn failures(&self) -> u64 {
        self.checked - self.ok
    }

    pub fn merge(&mut self, o: &VerifyStats) {
        self.checked += o.checked;
        self.ok += o.ok;
        self.corruption += o.corruption;
        self.misplaced += o.misplaced;
        self.stale += o.stale;
        self.torn += o.torn;
        self.bad_header += o.bad_header;
    }
}
