//! Incompressible bytes from a counter-based generator: word `i` of a block keyed `key` is
//! `wymix(key + (i+1)·P0, (key + (i+1)·P0) ^ P1)`, the output function of wyrand
//! (Wang Yi's wyhash family, public domain), evaluated on a counter instead of a state.
//!
//! Why not fio's `__fill_random_buf` (lib/rand.c): its four lanes are `seed·{1,2,3,5}·G^i`, so
//! a block has 64 bits of entropy and words 1–3 of every 32 bytes are fixed multiples of
//! word 0 (see notes/fio-behaviour.md §2.8). Why counter-based: any block is regenerated from
//! its key alone (verification, `iolab data gen` in parallel), there is no serial dependency
//! between words, so four independent multiplies are in flight at once; at about one
//! 64×64→128 multiply per 8 bytes it runs at memory-write speed on one core (see
//! `benches/gen.rs`).

const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;

#[inline(always)]
fn wymix(a: u64, b: u64) -> u64 {
    let m = (a as u128).wrapping_mul(b as u128);
    (m as u64) ^ ((m >> 64) as u64)
}

/// Word `i` of the stream keyed `key`.
#[inline(always)]
pub fn word(key: u64, i: u64) -> u64 {
    let s = key.wrapping_add(i.wrapping_add(1).wrapping_mul(P0));
    wymix(s, s ^ P1)
}

/// Fill `buf` with the stream keyed `key`, starting at word 0. Trailing bytes (len not a
/// multiple of 8) take the low bytes of the next word, little-endian, so the bytes of a
/// buffer do not depend on the host's endianness.
pub fn fill_random(buf: &mut [u8], key: u64) {
    let mut chunks = buf.chunks_exact_mut(32);
    let mut i = 0u64;
    for c in &mut chunks {
        // Four independent lanes per iteration so the multiplies overlap.
        let w0 = word(key, i);
        let w1 = word(key, i + 1);
        let w2 = word(key, i + 2);
        let w3 = word(key, i + 3);
        c[0..8].copy_from_slice(&w0.to_le_bytes());
        c[8..16].copy_from_slice(&w1.to_le_bytes());
        c[16..24].copy_from_slice(&w2.to_le_bytes());
        c[24..32].copy_from_slice(&w3.to_le_bytes());
        i += 4;
    }
    let rest = chunks.into_remainder();
    for c in rest.chunks_mut(8) {
        let w = word(key, i).to_le_bytes();
        c.copy_from_slice(&w[..c.len()]);
        i += 1;
    }
}

/// A 64-bit key from several parts (seed, file, offset, generation, purpose tag). Each part
/// goes through a full mix, so neighbouring offsets give unrelated keys.
#[inline]
pub fn key_of(parts: &[u64]) -> u64 {
    let mut h = 0x243f_6a88_85a3_08d3u64;
    for &p in parts {
        h = wymix(h ^ p, P1 ^ h.rotate_left(23)).wrapping_add(P0);
    }
    h
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn word_i_is_at_byte_8i() {
        let mut b = vec![0u8; 4099];
        fill_random(&mut b, 0x1234_5678_9abc_def0);
        for (i, c) in b.chunks(8).enumerate() {
            let w = word(0x1234_5678_9abc_def0, i as u64).to_le_bytes();
            assert_eq!(c, &w[..c.len()], "word {i}");
        }
    }

    #[test]
    fn same_key_same_bytes_and_prefix_stable() {
        let mut a = vec![0u8; 4099];
        let mut b = vec![0u8; 4096];
        fill_random(&mut a, 7);
        fill_random(&mut b, 7);
        assert_eq!(&a[..4096], &b[..]);
        let mut c = vec![0u8; 4096];
        fill_random(&mut c, 8);
        assert_ne!(b, c);
    }

    #[test]
    fn byte_histogram_is_flat() {
        // 1 MiB of output: chi-square over 256 byte values, 255 d.o.f.; 99.9th pct ≈ 330.
        let mut buf = vec![0u8; 1 << 20];
        fill_random(&mut buf, 0x1234);
        let mut h = [0u64; 256];
        for &b in &buf {
            h[b as usize] += 1;
        }
        let e = buf.len() as f64 / 256.0;
        let chi: f64 = h.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        assert!(chi < 330.0, "chi-square {chi}");
    }

    #[test]
    fn keys_differ_by_part_order() {
        assert_ne!(key_of(&[1, 2]), key_of(&[2, 1]));
        assert_ne!(key_of(&[0, 0]), key_of(&[0]));
    }
}
