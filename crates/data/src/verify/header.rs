//! The iolab verify header, written at the start of every verify interval of a block. Like
//! fio's `struct verify_header` (verify.h: magic, version, type, len, rand_seed, offset,
//! numberio, crc32 of the header) it carries what is needed to tell a misplaced, a stale and
//! a torn write apart from a bit flip. Layout, little-endian, 80 bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `b"iolV"` |
//! | 4 | version (1) |
//! | 5 | checksum type ([`VerifyKind`] code) |
//! | 6..8 | reserved (0) |
//! | 8..12 | interval length in bytes (header included) |
//! | 12..16 | file index |
//! | 16..24 | offset of this interval in the file |
//! | 24..32 | generation (write pass) |
//! | 32..40 | seed |
//! | 40..44 | crc32c of bytes 0..40 |
//! | 44..48 | reserved (0) |
//! | 48..80 | digest of the interval with this field zeroed, zero padded |

use super::VerifyKind;

pub const MAGIC: [u8; 4] = *b"iolV";
pub const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 80;
pub const DIGEST_AT: usize = 48;

/// A parsed header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    pub kind: VerifyKind,
    pub len: u32,
    pub file: u32,
    pub offset: u64,
    pub gen: u64,
    pub seed: u64,
}

/// Why bytes are not a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// No magic: never written by iolab (or overwritten by something else).
    Magic,
    /// Magic present but the header's own crc fails: the header was corrupted.
    Crc,
    /// Unknown version or checksum type.
    Format,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl Header {
    /// Write the header fields (not the digest) into `b[..HEADER_LEN]`.
    pub fn write(&self, b: &mut [u8]) {
        b[0..4].copy_from_slice(&MAGIC);
        b[4] = VERSION;
        b[5] = self.kind.code();
        b[6..8].fill(0);
        b[8..12].copy_from_slice(&self.len.to_le_bytes());
        b[12..16].copy_from_slice(&self.file.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..32].copy_from_slice(&self.gen.to_le_bytes());
        b[32..40].copy_from_slice(&self.seed.to_le_bytes());
        let crc = crc32c::crc32c(&b[0..40]);
        b[40..44].copy_from_slice(&crc.to_le_bytes());
        b[44..48].fill(0);
    }

    pub fn read(b: &[u8]) -> Result<Header, HeaderError> {
        if b.len() < HEADER_LEN || b[0..4] != MAGIC {
            return Err(HeaderError::Magic);
        }
        if crc32c::crc32c(&b[0..40]) != u32_at(b, 40) {
            return Err(HeaderError::Crc);
        }
        let kind = VerifyKind::from_code(b[5]).ok_or(HeaderError::Format)?;
        if b[4] != VERSION {
            return Err(HeaderError::Format);
        }
        Ok(Header {
            kind,
            len: u32_at(b, 8),
            file: u32_at(b, 12),
            offset: u64_at(b, 16),
            gen: u64_at(b, 24),
            seed: u64_at(b, 32),
        })
    }
}
