//! `buffer_compress_percentage` layout (fio io_u.c `fill_io_buffer` l.2489–2515 and lib/rand.c
//! `__fill_random_buf_percentage`): a write is cut into chunks of
//! `min_not_zero(min(min_bs_write, left), buffer_compress_chunk)` bytes; each chunk takes a
//! new seed and is `chunk·(100−P)/100` random bytes followed by the compressible part
//! (zeros, the `buffer_pattern` restarted at its first byte, or iolab's text).

use super::random::{fill_random, key_of};
use super::text::fill_text;
use crate::config::CompressContent;
use crate::pattern::fill_pattern;

pub struct Layout<'a> {
    pub percentage: u32,
    pub chunk: u64,
    pub min_write: u64,
    pub content: CompressContent,
    /// The pattern repeated to at least one chunk (so one copy fills a chunk's tail).
    pub pattern_block: &'a [u8],
    pub pattern: &'a [u8],
    /// For `Text`: text bytes per 1000 bytes of chunk (the rest is random), chosen by
    /// [`super::text::share_for`] so the block compresses to the asked percentage.
    pub text_permille: u32,
}

pub fn fill_chunks(buf: &mut [u8], key: u64, l: &Layout<'_>) {
    let mut pos = 0usize;
    let mut ci = 0u64;
    while pos < buf.len() {
        let left = (buf.len() - pos) as u64;
        let min_write = l.min_write.min(left);
        let this = if l.chunk == 0 { min_write } else { min_write.min(l.chunk) }.max(1) as usize;
        let chunk = &mut buf[pos..pos + this];
        let ck = key_of(&[key, ci]);
        if l.percentage >= 100 && l.content != CompressContent::Text {
            fill_compressible(chunk, ck, l);
        } else {
            let rnd = if l.content == CompressContent::Text {
                this - this * l.text_permille.min(1000) as usize / 1000
            } else {
                this * (100 - l.percentage.min(100) as usize) / 100
            };
            fill_random(&mut chunk[..rnd], ck);
            fill_compressible(&mut chunk[rnd..], ck ^ 0x7e47, l);
        }
        pos += this;
        ci += 1;
    }
}

fn fill_compressible(buf: &mut [u8], key: u64, l: &Layout<'_>) {
    match l.content {
        CompressContent::Zeros => buf.fill(0),
        CompressContent::Pattern if buf.len() <= l.pattern_block.len() => {
            buf.copy_from_slice(&l.pattern_block[..buf.len()])
        }
        CompressContent::Pattern => fill_pattern(buf, l.pattern),
        CompressContent::Text => fill_text(buf, key),
    }
}
