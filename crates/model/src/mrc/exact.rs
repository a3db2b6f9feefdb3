//! Exact LRU miss-ratio curve for all sizes in one pass: a histogram of Mattson stack
//! distances (see [`super::stack`]), indexed by distance, with cold misses counted apart.

use super::stack::StackDistance;
use super::{MissRatioCurve, MrcBuilder};

#[derive(Default)]
pub struct ExactMrc {
    stack: StackDistance,
    /// `hist[d]` = (accesses, bytes) at stack distance d.
    hist: Vec<(u64, u64)>,
    total: u64,
    total_bytes: u64,
}

impl ExactMrc {
    pub fn new() -> Self {
        Self::default()
    }

    /// The stack-distance engine, for callers that want distances themselves.
    pub fn stack(&self) -> &StackDistance {
        &self.stack
    }
}

impl MrcBuilder for ExactMrc {
    fn access(&mut self, key: u64, bytes: u64) {
        self.total += 1;
        self.total_bytes += bytes;
        if let Some(d) = self.stack.access(key) {
            let d = d as usize;
            if d >= self.hist.len() {
                self.hist.resize((d + 1).max(self.hist.len() * 2), (0, 0));
            }
            self.hist[d].0 += 1;
            self.hist[d].1 += bytes;
        }
    }

    fn finish(&self) -> MissRatioCurve {
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
