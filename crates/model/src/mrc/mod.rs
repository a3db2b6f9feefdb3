//! Miss-ratio curves: the LRU miss ratio at every cache size from one pass over a request
//! stream.
//!
//! * [`exact::ExactMrc`]: Mattson stack distances over a bitmap of access times with a
//!   Fenwick tree over its cache lines (see [`stack`]), O(n log(m/512)) with one bitmap line per
//!   access.
//! * [`mini`]: any policy's curve by full or miniature simulations (Waldspurger et al.,
//!   ATC'17) of a once-read, spatially sampled trace, every (policy, size) on all cores.
//! * [`shards::Shards`]: SHARDS spatial sampling (Waldspurger et al., FAST'15) in fixed-rate and
//!   fixed-size modes.
//!
//! Input is a stream of `(key, bytes)` accesses; [`Granularity`] says whether a request is one
//! object (libCacheSim's object-level view, keyed by `obj_id`) or is split into cache blocks
//! ([`split_blocks`]), which is what a block cache sees. Cache sizes count entries (objects or
//! blocks). Every curve carries two miss ratios: request-weighted (missed accesses / accesses)
//! and byte-weighted (missed bytes / bytes).
//!
//! ```
//! use iolab_model::mrc::{exact::ExactMrc, MrcBuilder};
//! let mut m = ExactMrc::new();
//! for k in [1, 2, 3, 1, 2, 3] { m.access(k, 4096); }
//! let c = m.finish();
//! assert_eq!(c.miss_ratio(2).0, 1.0);   // LRU with 2 entries thrashes on a 3-cycle
//! assert_eq!(c.miss_ratio(3).0, 0.5);   // 3 cold misses out of 6
//! ```

pub mod curve;
pub mod exact;
pub mod mini;
pub(crate) mod rank;
pub mod shards;
pub mod stack;
pub(crate) mod table;

pub use curve::MissRatioCurve;

use std::hash::Hasher;

/// Hasher for u64 keys: one multiply-xorshift round (keys may be sequential LBNs, so the
/// identity hash would cluster).
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z ^= z >> 29;
        z
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8)) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// What one cache entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    /// One entry per object id (each request is one object).
    Object,
    /// Requests split into blocks of this many bytes.
    Block(u64),
}

/// Calls `f(key, bytes)` for each `block_size` block that `offset..offset+len` touches, with the
/// bytes of the request inside that block. The key carries `file` in its top 16 bits so two
/// devices never share blocks. A zero-length request touches nothing.
pub fn split_blocks(
    file: u32,
    offset: u64,
    len: u64,
    block_size: u64,
    mut f: impl FnMut(u64, u64),
) {
    if len == 0 || block_size == 0 {
        return;
    }
    let end = offset.saturating_add(len);
    let first = offset / block_size;
    let last = (end - 1) / block_size;
    let tag = (file as u64) << 48;
    for b in first..=last {
        let lo = (b * block_size).max(offset);
        let hi = b.saturating_mul(block_size).saturating_add(block_size).min(end);
        f(tag ^ b, hi - lo);
    }
}

/// Smallest cache block a block-granularity curve or trace statistic accepts: one sector (a
/// 2,000-record trace at 1-byte blocks took 54 s and 1 GB in `trace stat`).
pub const MIN_BLOCK_SIZE: u64 = 512;

/// A one-pass MRC builder.
pub trait MrcBuilder {
    /// One access to `key` carrying `bytes` (for the byte-weighted ratio).
    fn access(&mut self, key: u64, bytes: u64);
    /// [`MrcBuilder::access`] for each object request in order (its id and size), in one
    /// call: the per-access calls inline into the builder's loop.
    fn access_objects(&mut self, objs: &[iolab_trace::ObjectRequest]) {
        for o in objs {
            self.access(o.obj_id, o.size);
        }
    }
    /// The curve over everything seen so far (a builder may buffer accesses; this drains them).
    fn finish(&mut self) -> MissRatioCurve;
}

/// Configuration errors.
#[derive(Debug, thiserror::Error)]
pub enum MrcError {
    #[error("SHARDS sampling rate {rate:?}: expected a rate in [{}, 1]", shards::MIN_RATE)]
    BadRate { rate: f64 },
    #[error("SHARDS fixed size must be at least 1 sampled key (got {s_max})")]
    BadSize { s_max: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_an_unaligned_request() {
        let mut v = Vec::new();
        split_blocks(0, 1000, 9000, 4096, |k, b| v.push((k, b)));
        assert_eq!(v, [(0, 3096), (1, 4096), (2, 1808)]);
        let mut v = Vec::new();
        split_blocks(2, 8192, 4096, 4096, |k, b| v.push((k, b)));
        assert_eq!(v, [((2u64 << 48) ^ 2, 4096)]);
    }
}
