//! Exact LRU miss-ratio curve for all sizes in one pass: a histogram of Mattson stack
//! distances (see [`super::stack`]), indexed by distance, with cold misses counted apart.
//!
//! Accesses go through a short software pipeline: each key's last-access slot is prefetched
//! when the access arrives and the access is processed [`LAG`] accesses later, by which time
//! the slot is in cache (batched hash lookups with prefetch, Chen et al., ICDE 2004). The
//! distances, and so the curve, are exactly those of processing each access at once.

use super::stack::StackDistance;
use super::{MissRatioCurve, MrcBuilder};
use std::collections::VecDeque;

/// Accesses in flight between prefetch and processing.
pub const LAG: usize = 16;

pub struct ExactMrc {
    stack: StackDistance,
    /// Accesses prefetched, not yet processed (oldest first).
    pending: VecDeque<(u64, u64)>,
    /// `hist[d]` = (accesses, bytes) at stack distance d.
    hist: Vec<(u64, u64)>,
    total: u64,
    total_bytes: u64,
}

impl Default for ExactMrc {
    fn default() -> Self {
        ExactMrc {
            stack: StackDistance::new(),
            pending: VecDeque::with_capacity(LAG + 1),
            hist: Vec::new(),
            total: 0,
            total_bytes: 0,
        }
    }
}

impl ExactMrc {
    pub fn new() -> Self {
        Self::default()
    }

    /// The stack-distance engine, for callers that want distances themselves (accesses still
    /// in the pipeline are not in it until [`MrcBuilder::finish`]).
    pub fn stack(&self) -> &StackDistance {
        &self.stack
    }

    #[inline]
    fn process(&mut self, key: u64, bytes: u64) {
        if let Some(d) = self.stack.access(key) {
            let d = d as usize;
            if d >= self.hist.len() {
                self.hist.resize((d + 1).max(self.hist.len() * 2), (0, 0));
            }
            self.hist[d].0 += 1;
            self.hist[d].1 += bytes;
        }
    }
}

impl MrcBuilder for ExactMrc {
    #[inline]
    fn access(&mut self, key: u64, bytes: u64) {
        self.total += 1;
        self.total_bytes += bytes;
        self.stack.prefetch(key);
        self.pending.push_back((key, bytes));
        if self.pending.len() > LAG {
            if let Some((k, b)) = self.pending.pop_front() {
                self.process(k, b);
            }
        }
    }

    fn finish(&mut self) -> MissRatioCurve {
        while let Some((k, b)) = self.pending.pop_front() {
            self.process(k, b);
        }
        let pts = self
            .hist
            .iter()
            .enumerate()
            .filter(|(_, h)| h.0 > 0)
            .map(|(d, &(n, b))| (d as f64, n as f64, b as f64))
            .collect();
        MissRatioCurve::from_points(
            pts,
            self.total as f64,
            self.total_bytes as f64,
            self.stack.keys() as f64,
        )
    }
}
