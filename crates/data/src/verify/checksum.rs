//! The checksums behind `verify=` (fio names, verify.c `fill_*`/`verify_io_u_*`): crc32c
//! (`crc32c-intel` is an alias, as in fio since 2.x), crc64 (ECMA-182, fio crc/crc64.c), crc32
//! (IEEE), crc16 (fio crc/crc16.c: the kernel's, CRC-16/ARC), crc7 (fio crc/crc7.c: the
//! kernel's, CRC-7/MMC), xxhash (fio: XXH32; here xxh64, wider for the same cost), md5, sha1,
//! sha256, sha512, sha3-224/256/384/512 (the `crc`, `crc32fast` and RustCrypto crates). Digests
//! are stored in a 32-byte header field, zero padded; the 48- and 64-byte ones (sha512,
//! sha3-384, sha3-512) keep their first 32 bytes (iolab's header is its own layout, not fio's).
//! `meta` has no data checksum: its header alone is checked.

use super::VerifyKind;
use md5::Digest as _;

const CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
const CRC7: crc::Crc<u8> = crc::Crc::<u8>::new(&crc::CRC_7_MMC);

fn put(out: &mut [u8; DIGEST_FIELD], d: &[u8]) {
    let n = d.len().min(DIGEST_FIELD);
    out[..n].copy_from_slice(&d[..n]);
}

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
        VerifyKind::Crc64 => put(&mut out, &CRC64.checksum(data).to_le_bytes()),
        VerifyKind::Crc32 => put(&mut out, &crc32fast::hash(data).to_le_bytes()),
        VerifyKind::Crc16 => put(&mut out, &CRC16.checksum(data).to_le_bytes()),
        VerifyKind::Crc7 => out[0] = CRC7.checksum(data),
        VerifyKind::Sha1 => put(&mut out, &sha1::Sha1::digest(data)),
        VerifyKind::Sha512 => put(&mut out, &sha2::Sha512::digest(data)),
        VerifyKind::Sha3_224 => put(&mut out, &sha3::Sha3_224::digest(data)),
        VerifyKind::Sha3_256 => put(&mut out, &sha3::Sha3_256::digest(data)),
        VerifyKind::Sha3_384 => put(&mut out, &sha3::Sha3_384::digest(data)),
        VerifyKind::Sha3_512 => put(&mut out, &sha3::Sha3_512::digest(data)),
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::Null | VerifyKind::None => {
            return None
        }
    }
    Some(out)
}
