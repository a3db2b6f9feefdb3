//! Which content a write carries when `dedupe_percentage` is set (fio io_u.c `get_buf_state`,
//! dedupe.c `init_dedupe_working_set_seeds`), made a pure function of (seed, file, offset,
//! generation) so any block can be regenerated.
//!
//! As in fio, one draw in 1..=100 per buffer decides "duplicate" (draw ≤ P). A duplicate
//! copies its twin's content; the twin is, by mode:
//! - `repeat` (fio default): the buffer just before it (fio: "the previous unique buffer");
//!   here the block at `offset − len`, which for sequential writes is the same thing;
//! - `working_set`: a block drawn uniformly from the first `dedupe_working_set_percentage` %
//!   of the region (fio draws from the seeds of the first N unique buffers);
//! - iolab `dedupe_spread=1`: a block drawn uniformly from the whole region.
//!
//! A twin that is itself a duplicate is followed further (at most `MAX_CHAIN` steps), so
//! every duplicate lands on a unique block and the unique share is `100 − P` %. `P = 100`
//! gives one content for every block, as fio does.

use super::random::key_of;
use crate::config::{DataConfig, DedupeMode};

const TAG_DUP: u64 = 0xd0d0_0001;
const TAG_TWIN: u64 = 0xd0d0_0002;
const TAG_ALL: u64 = 0xd0d0_0003;
const TAG_BLOCK: u64 = 0xb10c;
const MAX_CHAIN: u32 = 1024;

/// The content key of the block written at (`file`, `offset`) with length `len`.
pub fn content_key(cfg: &DataConfig, seed: u64, file: u32, offset: u64, len: u64, gen: u64) -> u64 {
    let file = u64::from(file);
    let unique = |off: u64| key_of(&[seed, TAG_BLOCK, file, off, gen]);
    let pct = u64::from(cfg.dedupe_percentage);
    if pct == 0 {
        return unique(offset);
    }
    if pct >= 100 {
        return key_of(&[seed, TAG_ALL]);
    }
    let len = len.max(1);
    let is_dup = |idx: u64| key_of(&[seed, TAG_DUP, file, idx, gen]) % 100 < pct;
    let pool = cfg.working_set_blocks(len);
    let spread = cfg.dedupe_spread || cfg.dedupe_mode == DedupeMode::WorkingSet;
    let mut idx = offset / len;
    let mut off = offset;
    for step in 0..MAX_CHAIN {
        if !is_dup(idx) {
            return unique(off);
        }
        let next = if spread {
            let j = key_of(&[seed, TAG_TWIN, file, idx, gen, u64::from(step)]) % pool;
            if j == idx {
                (j + 1) % pool
            } else {
                j
            }
        } else if idx == 0 {
            // The first block has no predecessor: it is unique, like fio's first buffer.
            return unique(off);
        } else {
            idx - 1
        };
        idx = next;
        off = idx * len;
    }
    unique(off)
}
