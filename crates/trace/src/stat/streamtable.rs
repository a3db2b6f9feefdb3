//! The stream-table curve: how many sequential streams a prefetcher must track to see the
//! sequentiality a trace has. A prefetcher (Linux read-ahead's per-file state, a storage
//! array's stream detector, dm-cache's sequential filter) keeps a small table of streams,
//! each the offset where its last request ended; a request that starts at a tracked offset
//! continues that stream, any other starts a new entry, and a full table drops its least
//! recently used entry.
//!
//! That table is a stack algorithm: a table of K entries holds exactly the K most recently
//! used entries of an unbounded one (a miss inserts at the top and drops the K-th; a hit moves
//! its entry to the top with its new end offset, in either). So one pass finds, for every
//! hit, the recency depth of the entry it hit, and a table of K entries hits exactly the
//! requests whose depth is at most K (Mattson et al., "Evaluation techniques for storage
//! hierarchies", IBM Systems Journal 1970, for the same argument on cache sizes). Depths are
//! counted with a Fenwick tree over last-use times, O(log n) per request.

use serde::Serialize;
use std::collections::HashMap;

/// Tables evaluated: 1, 2, 4, … up to this many entries.
pub const MAX_TABLE: u64 = 1 << 20;

/// One point of the curve.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TablePoint {
    /// Entries in the LRU stream table.
    pub streams: u64,
    /// Requests that continue a tracked stream with a table this large.
    pub sequential_requests: u64,
}

/// The curve of one trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TableCurve {
    /// 1, 2, 4, … entries, up to the first table that sees all an unbounded table sees.
    pub points: Vec<TablePoint>,
    /// Requests that continue a stream with an unbounded table.
    pub unbounded: u64,
    /// The smallest table of the curve that sees at least 90 % of `unbounded`.
    pub streams_for_90pct: Option<u64>,
}

/// Accumulates the curve one request at a time.
#[derive(Default)]
pub struct StreamTable {
    /// (file, end offset) of each live entry → its last-use time.
    live: HashMap<(u32, u64), u64>,
    /// 1 at the last-use time of each live entry (1-based Fenwick tree).
    tree: Vec<i64>,
    now: u64,
    /// Hits by depth: bucket i holds depths in (2^(i-1), 2^i], bucket 0 depth 1.
    by_depth: Vec<u64>,
}

impl StreamTable {
    pub fn add(&mut self, file: u32, offset: u64, len: u64) {
        self.now += 1;
        if self.now as usize >= self.tree.len() {
            self.grow();
        }
        if let Some(t) = self.live.remove(&(file, offset)) {
            let depth = self.live.len() as u64 + 1 - self.prefix(t - 1);
            let bucket = (64 - (depth - 1).leading_zeros()) as usize;
            if self.by_depth.len() <= bucket {
                self.by_depth.resize(bucket + 1, 0);
            }
            self.by_depth[bucket] += 1;
            self.update(t, -1);
        }
        let end = (file, offset.saturating_add(len));
        if let Some(old) = self.live.insert(end, self.now) {
            // Two streams met at one offset: one entry stands for both.
            self.update(old, -1);
        }
        self.update(self.now, 1);
    }

    pub fn finish(&self) -> TableCurve {
        let unbounded: u64 = self.by_depth.iter().sum();
        let mut points = Vec::new();
        let (mut seen, mut k) = (0, 1u64);
        for &hits in &self.by_depth {
            seen += hits;
            points.push(TablePoint { streams: k, sequential_requests: seen });
            if k >= MAX_TABLE {
                break;
            }
            k *= 2;
        }
        let target = unbounded.saturating_mul(9).div_ceil(10);
        let streams_for_90pct = (unbounded > 0)
            .then(|| points.iter().find(|p| p.sequential_requests >= target).map(|p| p.streams))
            .flatten();
        TableCurve { points, unbounded, streams_for_90pct }
    }

    /// Double the tree, rebuilt from the live entries.
    fn grow(&mut self) {
        let n = (self.tree.len() * 2).max(1024);
        self.tree = vec![0; n];
        let times: Vec<u64> = self.live.values().copied().collect();
        for t in times {
            self.update(t, 1);
        }
    }

    fn update(&mut self, t: u64, d: i64) {
        let mut i = t as usize;
        while i < self.tree.len() {
            self.tree[i] += d;
            i += i & i.wrapping_neg();
        }
    }

    /// Live entries last used at or before `t`.
    fn prefix(&self, t: u64) -> u64 {
        let (mut i, mut sum) = (t as usize, 0i64);
        while i > 0 {
            sum += self.tree[i];
            i &= i - 1;
        }
        sum.max(0) as u64
    }
}

impl TableCurve {
    /// One line: the curve and the table size that recovers 90 % of the sequentiality.
    pub fn text(&self, requests: u64) -> Option<String> {
        if self.unbounded == 0 {
            return None;
        }
        let pct = |n: u64| 100.0 * n as f64 / requests.max(1) as f64;
        let points: Vec<String> = self
            .points
            .iter()
            .map(|p| format!("{} {:.1} %", p.streams, pct(p.sequential_requests)))
            .collect();
        let need = match self.streams_for_90pct {
            Some(k) => format!("a prefetcher must follow {k} streams to see 90 % of it"),
            None => format!("more than {MAX_TABLE} streams are needed for 90 % of it"),
        };
        Some(format!(
            "stream table (LRU; tracked streams: requests continuing one): {}; unbounded {:.1} %: \
             {need}",
            points.join(", "),
            pct(self.unbounded)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` streams of `len` requests each, interleaved round-robin: every request continues
    /// its stream, at depth `n`.
    fn round_robin(n: u64, len: u64) -> TableCurve {
        let mut t = StreamTable::default();
        for i in 0..len {
            for s in 0..n {
                t.add(0, s * 1_000_000 + i * 10, 10);
            }
        }
        t.finish()
    }

    #[test]
    fn round_robin_streams_need_a_table_as_large_as_their_number() {
        let c = round_robin(8, 100);
        // 8 x 99 continuations, all at depth 8: tables of 1, 2, 4 see none.
        assert_eq!(c.unbounded, 792);
        let got: Vec<(u64, u64)> =
            c.points.iter().map(|p| (p.streams, p.sequential_requests)).collect();
        assert_eq!(got, vec![(1, 0), (2, 0), (4, 0), (8, 792)]);
        assert_eq!(c.streams_for_90pct, Some(8));
        let one = round_robin(1, 50);
        assert_eq!((one.unbounded, one.streams_for_90pct), (49, Some(1)));
    }

    #[test]
    fn depths_follow_recency_and_random_requests_push_streams_down() {
        let mut t = StreamTable::default();
        // Stream A at 0, then 3 unrelated requests, then A continues: depth 4.
        t.add(0, 0, 8);
        for o in [1000, 2000, 3000] {
            t.add(0, o, 1);
        }
        t.add(0, 8, 8);
        // Continuing A again at once: depth 1.
        t.add(0, 16, 8);
        // Another file at the same offset is another stream.
        t.add(1, 24, 8);
        let c = t.finish();
        let got: Vec<(u64, u64)> =
            c.points.iter().map(|p| (p.streams, p.sequential_requests)).collect();
        assert_eq!(got, vec![(1, 1), (2, 1), (4, 2)]);
        assert_eq!((c.unbounded, c.streams_for_90pct), (2, Some(4)));
        assert!(c.text(7).unwrap().contains("must follow 4 streams"), "{:?}", c.text(7));
    }

    #[test]
    fn the_tree_grows_past_its_first_size() {
        // 3000 requests cross the first 1024-slot tree twice.
        let c = round_robin(3, 1000);
        assert_eq!(c.unbounded, 2997);
        assert_eq!(c.streams_for_90pct, Some(4));
    }
}
