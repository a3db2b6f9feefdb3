//! W-TinyLFU (Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission Policy",
//! ACM TOS 13(4), 2017): a small LRU window (1 %) in front of a segmented-LRU main cache
//! (80 % protected, 20 % probation). When the window overflows, its victim competes with the
//! main cache's victim and enters only if a count-min sketch (4 rows of 4-bit counters, halved
//! every 10 × capacity increments: the paper's "reset") estimates it more popular. Defaults as
//! libCacheSim `eviction/WTinyLFU.c` (`main-cache=SLRU, window-size=0.01`) and Caffeine.

use super::store::{List, Store};
use super::{Access, Policy, PolicyEntry};

/// Count-min sketch with saturating 4-bit counters (stored in bytes for simplicity).
struct Sketch {
    rows: [Vec<u8>; 4],
    mask: usize,
    additions: u64,
    sample: u64,
}

impl Sketch {
    fn new(cap: usize) -> Self {
        let w = cap.max(16).next_power_of_two();
        Sketch {
            rows: [vec![0; w], vec![0; w], vec![0; w], vec![0; w]],
            mask: w - 1,
            additions: 0,
            sample: 10 * cap.max(16) as u64,
        }
    }

    #[inline]
    fn idx(&self, key: u64, row: usize) -> usize {
        const SEEDS: [u64; 4] = [
            0xc3a5_c85c_97cb_3127,
            0xb492_b66f_be98_f273,
            0x9ae1_6a3b_2f90_404f,
            0xcbf2_9ce4_8422_2325,
        ];
        let h = (key ^ SEEDS[row]).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 32) ^ h) as usize & self.mask
    }

    fn increment(&mut self, key: u64) {
        for r in 0..4 {
            let i = self.idx(key, r);
            if self.rows[r][i] < 15 {
                self.rows[r][i] += 1;
            }
        }
        self.additions += 1;
        if self.additions >= self.sample {
            for row in &mut self.rows {
                for c in row.iter_mut() {
                    *c >>= 1;
                }
            }
            self.additions /= 2;
        }
    }

    fn estimate(&self, key: u64) -> u8 {
        (0..4).map(|r| self.rows[r][self.idx(key, r)]).min().unwrap_or(0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    Window,
    Probation,
    Protected,
}

pub struct WTinyLfu {
    cap: usize,
    window_cap: usize,
    protected_cap: usize,
    s: Store<Segment>,
    window: List,
    probation: List,
    protected: List,
    sketch: Sketch,
}

impl WTinyLfu {
    pub fn new(cap: usize, window_ratio: f64) -> Self {
        let window_cap = ((cap as f64 * window_ratio) as usize).max(1).min(cap);
        let main = cap - window_cap;
        WTinyLfu {
            cap,
            window_cap,
            protected_cap: (main as f64 * 0.8) as usize,
            s: Store::with_capacity(cap),
            window: List::default(),
            probation: List::default(),
            protected: List::default(),
            sketch: Sketch::new(cap),
        }
    }

    fn main_victim(&self) -> Option<u32> {
        [self.probation.tail, self.protected.tail].into_iter().find(|&t| t != super::store::NIL)
    }

    fn drop_node(&mut self, i: u32) -> u64 {
        match *self.s.e(i) {
            Segment::Window => self.s.unlink(&mut self.window, i),
            Segment::Probation => self.s.unlink(&mut self.probation, i),
            Segment::Protected => self.s.unlink(&mut self.protected, i),
        }
        let k = self.s.key(i);
        self.s.release(i);
        k
    }

    fn window_to_probation(&mut self) {
        if let Some(c) = self.s.pop_tail(&mut self.window) {
            *self.s.e_mut(c) = Segment::Probation;
            self.s.push_head(&mut self.probation, c);
        }
    }
}

/// Every segment holds cached objects (W-TinyLFU keeps no ghosts).
impl PolicyEntry for Segment {}

impl Policy for WTinyLfu {
    type Entry = Segment;
    fn name(&self) -> &'static str {
        "wtinylfu"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        self.drop_node(idx);
    }
    fn extra_heap_bytes(&self) -> usize {
        self.sketch.rows.iter().map(|r| r.capacity()).sum::<usize>()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.window.len + self.probation.len + self.protected.len
    }
    fn find(&mut self, a: &Access) -> bool {
        self.sketch.increment(a.key);
        let Some(i) = self.s.find(a.key) else { return false };
        match *self.s.e(i) {
            Segment::Window => self.s.move_to_head(&mut self.window, i),
            Segment::Protected => self.s.move_to_head(&mut self.protected, i),
            Segment::Probation => {
                self.s.unlink(&mut self.probation, i);
                *self.s.e_mut(i) = Segment::Protected;
                self.s.push_head(&mut self.protected, i);
                if self.protected.len > self.protected_cap {
                    if let Some(d) = self.s.pop_tail(&mut self.protected) {
                        *self.s.e_mut(d) = Segment::Probation;
                        self.s.push_head(&mut self.probation, d);
                    }
                }
            }
        }
        true
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        if self.window.len >= self.window_cap {
            let cand = self.window.tail;
            let Some(victim) = self.main_victim() else {
                return Some(self.drop_node(cand));
            };
            let (ck, vk) = (self.s.key(cand), self.s.key(victim));
            if self.sketch.estimate(ck) > self.sketch.estimate(vk) {
                self.window_to_probation();
                Some(self.drop_node(victim))
            } else {
                Some(self.drop_node(cand))
            }
        } else {
            let v = self.main_victim()?;
            Some(self.drop_node(v))
        }
    }
    fn insert(&mut self, a: &Access) {
        if self.window.len >= self.window_cap {
            self.window_to_probation(); // the main cache still has room
        }
        let i = self.s.alloc(a.key, Segment::Window);
        self.s.push_head(&mut self.window, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popular_keys_survive_a_flood_of_new_ones() {
        let mut c = WTinyLfu::new(100, 0.01);
        for _ in 0..20 {
            for k in 0..50 {
                c.access(&Access::new(k));
            }
        }
        // A scan of 3× the cache: LRU would keep none of the popular keys.
        for k in 10_000..10_300 {
            c.access(&Access::new(k));
        }
        let kept = (0..50).filter(|&k| c.contains(k)).count();
        assert!(kept >= 48, "the frequency filter should refuse one-hit keys; kept {kept}");
    }
}
