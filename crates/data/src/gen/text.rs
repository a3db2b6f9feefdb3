//! iolab `compress_content=text`: space-separated words drawn from a fixed list of 64 common
//! English words by the counter-based generator, so an LZ compressor has to find real
//! matches (unlike fio's zero runs, which zero suppression alone removes). Six bits of choice
//! per word of ~5.5 bytes make it about as compressible as prose: zstd -3 keeps ≈ 1/5 of it,
//! which `DataGen` accounts for when it sizes the text share of a chunk.

use super::random::word;

const WORDS: [&str; 64] = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by",
    "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an",
    "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
    "been", "if", "more", "when", "will", "would", "who", "so", "no", "storage", "block", "cache",
    "write", "read", "device", "queue", "latency", "data", "file", "page", "disk", "flash",
    "sector", "buffer", "record",
];

/// Fill `buf` with words keyed by `key` (deterministic, like the random filler).
pub fn fill_text(buf: &mut [u8], key: u64) {
    let mut pos = 0;
    let mut i = 0u64;
    while pos < buf.len() {
        let mut r = word(key, i);
        i += 1;
        for _ in 0..10 {
            let w = WORDS[(r & 63) as usize].as_bytes();
            r >>= 6;
            let n = w.len().min(buf.len() - pos);
            buf[pos..pos + n].copy_from_slice(&w[..n]);
            pos += n;
            if pos == buf.len() {
                return;
            }
            buf[pos] = b' ';
            pos += 1;
            if pos == buf.len() {
                return;
            }
        }
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
        assert!((150..250).contains(&words), "{words}");
    }
}
