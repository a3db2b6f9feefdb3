//! `DataGen`: the bytes of every write, as a pure function of (seed, file, offset,
//! generation, length) and the job's [`DataConfig`]. The dispatch follows fio's
//! `fill_io_buffer` (io_u.c l.2479): compress/dedupe first, then `buffer_pattern`, then
//! `zero_buffers`, then random; buffers that fio would not refill are one reused buffer,
//! scrambled per write as fio's `small_content_scramble` does.
//!
//! One file per kind of content: [`random`], [`lanes`] (`refill_buffers`' fast stream),
//! [`compress`], [`text`], [`dedupe`], [`scramble`].

pub mod compress;
pub mod dedupe;
pub mod lanes;
pub mod random;
pub mod scramble;
pub mod text;

use crate::config::DataConfig;
use compress::{fill_chunks, Layout};
use random::{fill_random, key_of};

const PATTERN_BLOCK: usize = 128 << 10;
const TAG_BASE: u64 = 0xba5e;

/// Fills write buffers for one job (one per worker; cheap to create).
#[derive(Clone, Debug)]
pub struct DataGen {
    cfg: DataConfig,
    seed: u64,
    /// `buffer_pattern` repeated to `PATTERN_BLOCK` bytes, so a fill is one copy.
    pattern_block: Vec<u8>,
    /// fio's reused buffer (when buffers are not refilled), grown on demand.
    base: Vec<u8>,
    /// `compress_content=text`: text share of each chunk, permille.
    text_permille: u32,
}

impl DataGen {
    pub fn new(cfg: &DataConfig, seed: u64) -> Self {
        let mut pattern_block = Vec::new();
        if !cfg.pattern.is_empty() {
            pattern_block = vec![0; PATTERN_BLOCK.max(cfg.pattern.len())];
            crate::pattern::fill_pattern(&mut pattern_block, &cfg.pattern);
        }
        DataGen {
            cfg: cfg.clone(),
            seed,
            pattern_block,
            base: Vec::new(),
            text_permille: text::share_for(cfg.compress_percentage),
        }
    }

    pub fn config(&self) -> &DataConfig {
        &self.cfg
    }

    /// Fill `buf` for a write of `buf.len()` bytes at (file, offset) in generation `gen`.
    /// The same arguments always give the same bytes.
    pub fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64, gen: u64) {
        let c = &self.cfg;
        let len = buf.len() as u64;
        if c.compress_percentage != 0 || c.dedupe_percentage != 0 {
            let key = if c.refill_buffers {
                dedupe::content_key(c, self.seed, file, offset, len, gen)
            } else {
                key_of(&[self.seed, TAG_BASE])
            };
            let layout = Layout {
                percentage: c.compress_percentage,
                chunk: c.compress_chunk,
                min_write: c.min_write_bs,
                content: c.compress_content,
                pattern_block: &self.pattern_block,
                pattern: &c.pattern,
                text_permille: self.text_permille,
            };
            fill_chunks(buf, key, &layout);
        } else if !c.pattern.is_empty() {
            if buf.len() <= self.pattern_block.len() {
                buf.copy_from_slice(&self.pattern_block[..buf.len()]);
            } else {
                crate::pattern::fill_pattern(buf, &c.pattern);
            }
        } else if c.zero_buffers {
            buf.fill(0);
        } else if c.refill_buffers {
            lanes::fill_lanes(buf, key_of(&[self.seed, u64::from(file), offset, gen]));
        } else {
            if self.base.len() < buf.len() {
                self.base = vec![0; buf.len().next_power_of_two()];
                fill_random(&mut self.base, key_of(&[self.seed, TAG_BASE]));
            }
            buf.copy_from_slice(&self.base[..buf.len()]);
            if c.scramble_buffers {
                scramble::scramble(buf, self.seed, offset, gen);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CompressContent;

    /// fio's small_content_scramble layout: the offset of each 512 B sector in one 64 B line
    /// (the same line for the whole write), the time (here: generation, hash) at bytes 48..64.
    #[test]
    fn scramble_stamps_offset_and_time() {
        let cfg = DataConfig::default();
        let mut g = DataGen::new(&cfg, 4);
        let mut a = vec![0u8; 4096];
        g.fill(&mut a, 0, 1 << 20, 7);
        let mut lines = Vec::new();
        for (i, s) in a.chunks(512).enumerate() {
            let want = ((1u64 << 20) + 512 * i as u64).to_le_bytes();
            let line = (0..8).find(|l| s[l * 64..l * 64 + 8] == want).unwrap();
            lines.push(line);
            assert_eq!(s[48..56], 7u64.to_le_bytes());
        }
        assert!(lines.iter().all(|l| *l == lines[0]));
        let mut b = vec![0u8; 4096];
        g.fill(&mut b, 0, 2 << 20, 7);
        let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert!(differ <= 8 * 24, "only the stamps differ: {differ} bytes");
    }

    /// What zstd -3 keeps of all-text 4 KiB blocks made of 512 B chunks (fio's default
    /// chunk), each with its own key: the ceiling of `compress_content=text`.
    #[test]
    fn text_compress_fraction() {
        let cfg = DataConfig {
            compress_percentage: 100,
            compress_content: CompressContent::Text,
            refill_buffers: true,
            ..DataConfig::default()
        };
        let mut g = DataGen::new(&cfg, 1);
        let mut blk = vec![0u8; 4096];
        let (mut inb, mut outb) = (0usize, 0usize);
        for i in 0..256u64 {
            g.fill(&mut blk, 0, i * 4096, 0);
            inb += blk.len();
            outb += zstd::bulk::compress(&blk, 3).unwrap().len();
        }
        let q = outb as f64 / inb as f64;
        eprintln!("text keeps {q:.3}");
        assert!((0.27..0.33).contains(&q), "{q}");
        assert_eq!(text::STORED_PERMILLE[20], 302);
    }
}
