//! iolab `compress_content=text`: space-separated words drawn from 16 common words by the
//! counter-based generator, so an LZ compressor has to find real matches and entropy-code
//! them (unlike fio's zero runs, which zero suppression alone removes).
//!
//! Text does not vanish under compression as zeros do: zstd -3 keeps ≈ 30 % of an all-text
//! 4 KiB block, and more of shorter text runs. So the text share of each chunk is not `P`
//! but the share that measured to give `P` % saving: [`STORED_PERMILLE`] is zstd -3's stored
//! size per 4 KiB block (512 B chunks, random then text) at text shares 0, 5, …, 100 %;
//! [`share_for`] inverts it. Text alone tops out near 3.3:1.

use super::random::word;

const WORDS: [&str; 16] = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by",
    "on", "not",
];

/// zstd -3 stored size per 1000 bytes of 4 KiB blocks whose 512 B chunks are `5·i` % text
/// (after the random part), measured with zstd 1.5 (see `gen::tests`).
pub const STORED_PERMILLE: [u32; 21] = [
    1000, 1000, 970, 934, 901, 868, 834, 799, 766, 730, 696, 657, 621, 585, 549, 513, 476, 439,
    402, 361, 302,
];

/// Text share (permille of each chunk) whose blocks keep `100 − P` % under zstd -3.
pub fn share_for(percentage: u32) -> u32 {
    let want = 10 * (100 - percentage.min(100));
    if want >= STORED_PERMILLE[1] {
        return 0;
    }
    for i in 1..STORED_PERMILLE.len() {
        let (hi, lo) = (STORED_PERMILLE[i - 1], STORED_PERMILLE[i]);
        if want >= lo {
            // Linear between the measured points i-1 and i (50 permille apart).
            return (50 * (i as u32 - 1)) + 50 * (hi - want) / (hi - lo).max(1);
        }
    }
    1000
}

/// Each word and its trailing space as little-endian bytes of a u64, and that length:
/// one 8-byte store per word instead of a bounds-checked copy.
const PACKED: [(u64, usize); 16] = {
    let mut t = [(0u64, 0usize); 16];
    let mut i = 0;
    while i < 16 {
        let w = WORDS[i].as_bytes();
        let mut v = 0u64;
        let mut j = 0;
        while j < w.len() {
            v |= (w[j] as u64) << (8 * j);
            j += 1;
        }
        v |= (b' ' as u64) << (8 * j);
        t[i] = (v, w.len() + 1);
        i += 1;
    }
    t
};

/// Fill `buf` with words keyed by `key` (deterministic, like the random filler): word `n`
/// is `WORDS[bits 4(n%16).. of word(key, n/16)]`, each followed by a space; the last word is
/// cut at the end of `buf`.
pub fn fill_text(buf: &mut [u8], key: u64) {
    let mut tmp = [0u8; 512 + 8];
    let (mut r, mut left, mut i) = (0u64, 0u32, 0u64);
    // Bytes of a word that crossed the previous 512-byte piece, already at tmp[..carry].
    let mut carry = 0usize;
    for out in buf.chunks_mut(512) {
        let mut pos = carry;
        while pos < out.len() {
            if left == 0 {
                r = word(key, i);
                i += 1;
                left = 16;
            }
            let (w, l) = PACKED[(r & 15) as usize];
            r >>= 4;
            left -= 1;
            tmp[pos..pos + 8].copy_from_slice(&w.to_le_bytes());
            pos += l;
        }
        let n = out.len();
        out.copy_from_slice(&tmp[..n]);
        carry = pos - n;
        tmp.copy_within(n..pos, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_spaces_only() {
        let mut b = vec![0u8; 1000];
        fill_text(&mut b, 3);
        assert!(b.iter().all(|c| c.is_ascii_lowercase() || *c == b' '));
        let words = b.split(|c| *c == b' ').count();
        assert!((200..400).contains(&words), "{words}");
    }

    /// The packed writer gives the same bytes as the plain word-by-word definition.
    #[test]
    fn matches_plain_definition() {
        for len in [1usize, 511, 512, 513, 4096, 5000] {
            let mut fast = vec![0u8; len];
            fill_text(&mut fast, 99);
            let mut plain = Vec::new();
            let mut n = 0u64;
            while plain.len() < len {
                let r = word(99, n / 16) >> (4 * (n % 16));
                plain.extend_from_slice(WORDS[(r & 15) as usize].as_bytes());
                plain.push(b' ');
                n += 1;
            }
            assert_eq!(fast, &plain[..len], "len {len}");
        }
    }

    #[test]
    fn share_inverts_the_table() {
        assert_eq!(share_for(0), 0);
        // 500 lies between 513 (75 % text) and 476 (80 % text).
        assert_eq!(share_for(50), 750 + 50 * (513 - 500) / (513 - 476));
        assert_eq!(share_for(100), 1000);
        assert!(share_for(30) < share_for(31));
    }
}
