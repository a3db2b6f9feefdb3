//! Exact LRU miss-ratio curve for all sizes in one pass: a histogram of Mattson stack
//! distances (see [`super::stack`]), indexed by distance, with cold misses counted apart.
//!
//! Accesses go through a two-stage software pipeline (batched lookups with prefetch, Chen et
//! al., "Improving hash join performance through prefetching", ICDE 2004): when an access
//! arrives its key's last-access slot is prefetched; [`LAG`]/2 accesses later the slot is read
//! and the bitmap line of the previous access time is prefetched; [`LAG`] accesses after arrival
//! the access is processed, by which time both lines are in cache; its histogram slot is then
//! prefetched and incremented [`HLAG`] accesses later. On a footprint of millions
//! of keys the table and the bitmap are far larger than L2, and without the pipeline each
//! access waited on two DRAM misses in a row. The distances, and so the curve, are exactly
//! those of processing each access at once (a prefetch never changes state).

use super::stack::StackDistance;
use super::{MissRatioCurve, MrcBuilder};

/// Accesses in flight between the first prefetch and processing (a power of two).
pub const LAG: usize = 16;

/// Histogram increments in flight between computing a distance and adding it: the histogram
/// has one slot per distance (16 bytes × footprint, 29 MB for 1.8 M keys), so an increment at
/// a random distance is a DRAM miss unless its line is prefetched first (80 % of the time in
/// the profile before this stage existed).
pub const HLAG: usize = 16;

pub struct ExactMrc {
    stack: StackDistance,
    /// Ring of accesses prefetched, not yet processed: `(key, bytes)` at `seq % LAG`.
    ring: [(u64, u64); LAG],
    /// Accesses that entered the pipeline.
    seq: u64,
    /// `hist[d]` = (accesses, bytes) at stack distance d.
    hist: Vec<(u64, u64)>,
    /// Histogram increments prefetched, not yet applied: `(d, bytes)` at `done % HLAG`.
    hring: [(usize, u64); HLAG],
    /// Accesses processed (distances computed), cold misses included.
    done: u64,
    total: u64,
    total_bytes: u64,
}

impl Default for ExactMrc {
    fn default() -> Self {
        ExactMrc {
            stack: StackDistance::new(),
            ring: [(0, 0); LAG],
            seq: 0,
            hist: Vec::new(),
            hring: [(0, 0); HLAG],
            done: 0,
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

    /// Computes the access's distance and queues its histogram increment; the increment
    /// [`HLAG`] processed accesses earlier is applied now, its line having been prefetched.
    #[inline(always)]
    fn process(&mut self, key: u64, bytes: u64) {
        // A cold miss queues distance 0, which no cache size counts as a hit (slot 0 is
        // never read by `finish`).
        let d = self.stack.access(key).map_or(0, |d| d as usize);
        if d >= self.hist.len() {
            let n = (d + 1).max(self.hist.len() * 2);
            let mut h = crate::policy::mem::huge_vec(n);
            h.extend_from_slice(&self.hist);
            h.resize(n, (0, 0));
            self.hist = h;
        }
        if let Some(h) = self.hist.get(d) {
            super::table::prefetch_ptr(h as *const (u64, u64) as *const i8);
        }
        let slot = (self.done as usize) % HLAG;
        if self.done >= HLAG as u64 {
            self.apply(slot);
        }
        self.hring[slot] = (d, bytes);
        self.done += 1;
    }

    /// Processes the accesses [`MrcBuilder::access`] queued and not yet processed, in order.
    fn drain_ring(&mut self) {
        let start = self.seq.saturating_sub(LAG as u64);
        for s in start..self.seq {
            let (k, b) = self.ring[(s as usize) % LAG];
            self.process(k, b);
        }
        self.seq = 0;
    }

    #[inline]
    fn apply(&mut self, slot: usize) {
        let (d, b) = self.hring[slot];
        if d > 0 {
            self.hist[d].0 += 1;
            self.hist[d].1 += b;
        }
    }
}

impl ExactMrc {
    /// [`MrcBuilder::access_objects`] compiled with `popcnt`, so the in-line ranks of the
    /// stack-distance engine inline into the loop as the instruction (on the default x86-64
    /// target they were a call and a feature check per access).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn access_objects_popcnt(&mut self, objs: &[iolab_trace::ObjectRequest]) {
        self.access_objects_inline(objs);
    }

    #[inline(always)]
    fn access_objects_inline(&mut self, objs: &[iolab_trace::ObjectRequest]) {
        self.drain_ring();
        for o in objs.iter().take(LAG) {
            self.stack.prefetch(o.obj_id);
        }
        self.total += objs.len() as u64;
        for (i, o) in objs.iter().enumerate() {
            if let Some(a) = objs.get(i + LAG) {
                self.stack.prefetch(a.obj_id);
            }
            if let Some(m) = objs.get(i + LAG / 2) {
                self.stack.prefetch_mark(m.obj_id);
            }
            self.total_bytes += o.size;
            self.process(o.obj_id, o.size);
        }
    }
}

impl MrcBuilder for ExactMrc {
    #[inline]
    fn access(&mut self, key: u64, bytes: u64) {
        self.total += 1;
        self.total_bytes += bytes;
        let slot = (self.seq as usize) % LAG;
        if self.seq >= LAG as u64 {
            let (k, b) = self.ring[slot];
            self.process(k, b);
        }
        self.ring[slot] = (key, bytes);
        self.stack.prefetch(key);
        if self.seq >= (LAG / 2) as u64 {
            let mid = self.ring[(slot + LAG / 2) % LAG].0;
            self.stack.prefetch_mark(mid);
        }
        self.seq += 1;
    }

    /// The same pipeline with the batch itself as the ring: key slots are prefetched [`LAG`]
    /// requests ahead and bitmap lines [`LAG`]/2 ahead by index into the batch, with no copy
    /// through the ring (accesses still queued by [`MrcBuilder::access`] go first).
    fn access_objects(&mut self, objs: &[iolab_trace::ObjectRequest]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has `popcnt`, the only feature `access_objects_popcnt` enables.
            return unsafe { self.access_objects_popcnt(objs) };
        }
        self.access_objects_inline(objs);
    }

    fn finish(&mut self) -> MissRatioCurve {
        self.drain_ring();
        for s in self.done.saturating_sub(HLAG as u64)..self.done {
            self.apply((s as usize) % HLAG);
        }
        self.done = 0;
        // One allocation (a filtered collect grows by doubling); room it never writes is
        // never faulted in.
        let mut pts = Vec::with_capacity(self.hist.len());
        pts.extend(
            self.hist
                .iter()
                .enumerate()
                .filter(|(_, h)| h.0 > 0)
                .map(|(d, &(n, b))| (d as f64, n as f64, b as f64)),
        );
        MissRatioCurve::from_points(
            pts,
            self.total as f64,
            self.total_bytes as f64,
            self.stack.keys() as f64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_trace::ObjectRequest;

    /// The batch path (the batch as the pipeline's ring) gives the per-access path's curve,
    /// also when single accesses are still queued in the ring before a batch.
    #[test]
    fn object_batches_give_the_per_access_curve() {
        let mut x = iolab_core::rand::SplitMix64(11);
        let objs: Vec<ObjectRequest> = (0..50_000)
            .map(|_| {
                let obj_id = x.below(3000) * 7;
                ObjectRequest { obj_id, size: 1 + obj_id % 3, ..Default::default() }
            })
            .collect();
        let mut one = ExactMrc::new();
        for o in &objs {
            one.access(o.obj_id, o.size);
        }
        let mut batched = ExactMrc::new();
        // 5 single accesses sit in the ring when the first batch arrives.
        for o in &objs[..5] {
            batched.access(o.obj_id, o.size);
        }
        for chunk in objs[5..].chunks(4096) {
            batched.access_objects(chunk);
        }
        let (a, b) = (one.finish(), batched.finish());
        for size in [1u64, 2, 10, 100, 1000, 2999, 3000] {
            assert_eq!(a.miss_ratio(size), b.miss_ratio(size), "size {size}");
        }
        assert!(
            a.miss_ratio(1000).0 < 0.75 && a.miss_ratio(1000).0 > 0.6,
            "{:?}",
            a.miss_ratio(1000)
        );
    }
}
