//! The checksums behind `verify=` (fio names, verify.c `fill_*`/`verify_io_u_*`): crc32c
//! (`crc32c-intel` is an alias, as in fio since 2.x), xxhash (fio: XXH32; here xxh64, wider
//! for the same cost), md5, sha256. Digests are stored in a 32-byte header field, zero padded.

use super::VerifyKind;
use md5::Digest as _;

pub const DIGEST_FIELD: usize = 32;

/// The digest of `data` for `kind`, zero padded to [`DIGEST_FIELD`] bytes; `None` for kinds
/// without a checksum (`pattern`, `null`, `none`).
pub fn digest(kind: VerifyKind, data: &[u8]) -> Option<[u8; DIGEST_FIELD]> {
    let mut out = [0u8; DIGEST_FIELD];
    match kind {
        VerifyKind::Crc32c => out[..4].copy_from_slice(&crc32c::crc32c(data).to_le_bytes()),
        VerifyKind::Xxhash => {
            out[..8].copy_from_slice(&xxhash_rust::xxh64::xxh64(data, 0).to_le_bytes())
        }
        VerifyKind::Md5 => out[..16].copy_from_slice(&md5::Md5::digest(data)),
        VerifyKind::Sha256 => out.copy_from_slice(&sha2::Sha256::digest(data)),
        VerifyKind::Pattern | VerifyKind::Null | VerifyKind::None => return None,
    }
    Some(out)
}
