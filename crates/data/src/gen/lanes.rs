//! Incompressible bytes for `refill_buffers` at memory speed: sixteen xorshift128+ generators
//! (Sebastiano Vigna, "Further scramblings of Marsaglia's xorshift generators", J. Comput.
//! Appl. Math. 315, 2017; shifts 23/17/26, output `s1 + s0`) run side by side, lane `l`
//! writing the 8-byte words `16·r + l` of the buffer. The lanes are seeded from the block's
//! key through wyrand's mix ([`super::random::word`]), so the bytes are a pure function of the
//! key and a buffer's bytes are a prefix of a longer buffer's with the same key.
//!
//! Why not [`super::random::fill_random`]: its one 64×64→128 multiply per word runs at
//! ~14 GB/s per core here, a third of a `refill_buffers` run's time at 4 KiB; shifts, xors
//! and adds over independent lanes vectorise (four lanes per AVX2 instruction), ~38 GB/s
//! (`benches/gen.rs`). fio's own refill (lib/rand.c `__fill_random_buf`) is four multiplies
//! of one seed (64 bits of entropy per block); here each block carries 2048 bits of seed.
//! The AVX2 copy is the same Rust compiled for AVX2 and chosen at run time, so every host
//! produces the same bytes.

use super::random::word;

/// Lanes side by side: 16 × 8 bytes = one 128-byte round.
const LANES: usize = 16;
const ROUND: usize = LANES * 8;

/// Fill `buf` with the stream keyed `key`.
pub fn fill_lanes(buf: &mut [u8], key: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
            // `#[target_feature(enable = "avx2")]` function.
            unsafe { fill_avx2(buf, key) };
            return;
        }
    }
    fill_portable(buf, key);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_avx2(buf: &mut [u8], key: u64) {
    fill_portable(buf, key);
}

/// The generator itself; inlined into the AVX2 copy so it is vectorised there.
#[inline(always)]
fn fill_portable(buf: &mut [u8], key: u64) {
    let mut a = [0u64; LANES];
    let mut b = [0u64; LANES];
    for l in 0..LANES {
        // An all-zero state would stay zero; `| 1` rules it out.
        a[l] = word(key, 2 * l as u64) | 1;
        b[l] = word(key, 2 * l as u64 + 1);
    }
    let mut out = [0u8; ROUND];
    let mut chunks = buf.chunks_exact_mut(ROUND);
    for c in &mut chunks {
        round(&mut a, &mut b, &mut out);
        c.copy_from_slice(&out);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        round(&mut a, &mut b, &mut out);
        rest.copy_from_slice(&out[..rest.len()]);
    }
}

/// One xorshift128+ step of every lane, its outputs little-endian into `out`.
#[inline(always)]
fn round(a: &mut [u64; LANES], b: &mut [u64; LANES], out: &mut [u8; ROUND]) {
    for l in 0..LANES {
        let mut s1 = a[l];
        let s0 = b[l];
        a[l] = s0;
        s1 ^= s1 << 23;
        let n = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
        b[l] = n;
        out[8 * l..8 * l + 8].copy_from_slice(&n.wrapping_add(s0).to_le_bytes());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Lane 0's first outputs, computed by hand from xorshift128+'s definition.
    #[test]
    fn lane_zero_is_xorshift128plus_seeded_from_the_key() {
        let key = 0x1234_5678_9abc_def0;
        let mut buf = vec![0u8; 3 * ROUND];
        fill_lanes(&mut buf, key);
        let (mut s0, mut s1) = (word(key, 0) | 1, word(key, 1));
        for r in 0..3 {
            let mut x = s0;
            let y = s1;
            s0 = y;
            x ^= x << 23;
            s1 = x ^ y ^ (x >> 17) ^ (y >> 26);
            let want = s1.wrapping_add(y).to_le_bytes();
            assert_eq!(buf[r * ROUND..r * ROUND + 8], want, "round {r}");
        }
    }

    /// The run-time-chosen copy and the portable one give the same bytes, and a shorter
    /// buffer is a prefix of a longer one.
    #[test]
    fn same_bytes_on_every_path_and_prefix_stable() {
        let mut a = vec![0u8; 4096 + 77];
        let mut b = vec![0u8; 4096 + 77];
        fill_lanes(&mut a, 99);
        fill_portable(&mut b, 99);
        assert_eq!(a, b);
        let mut c = vec![0u8; 1000];
        fill_lanes(&mut c, 99);
        assert_eq!(&a[..1000], &c[..]);
        let mut d = vec![0u8; 4096];
        fill_lanes(&mut d, 100);
        assert_ne!(&a[..4096], &d[..]);
    }

    /// 1 MiB: chi-square of the byte histogram (255 d.o.f., 99.9th percentile ≈ 330), and
    /// no two 4 KiB blocks of 256 keys share an 8-byte word at the same position.
    #[test]
    fn bytes_are_flat_and_blocks_unrelated() {
        let mut buf = vec![0u8; 1 << 20];
        fill_lanes(&mut buf, 0x1234);
        let mut h = [0u64; 256];
        for &x in &buf {
            h[x as usize] += 1;
        }
        let e = buf.len() as f64 / 256.0;
        let chi: f64 = h.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        assert!(chi < 330.0, "chi-square {chi}");
        let mut words = std::collections::HashSet::new();
        for k in 0..256u64 {
            let mut blk = vec![0u8; 4096];
            fill_lanes(&mut blk, super::super::random::key_of(&[7, 0, k * 4096, 0]));
            for w in blk.chunks(8) {
                assert!(words.insert(w.to_vec()), "a word repeats across blocks");
            }
        }
    }
}
