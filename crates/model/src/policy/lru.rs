//! LRU: evict the least recently used object. The baseline every cache paper compares with;
//! matches libCacheSim `eviction/LRU.c` (hit moves to head, evict tail).

use super::store::{List, Store};
use super::{Access, Policy};

pub struct Lru {
    cap: usize,
    s: Store<()>,
    q: List,
}

impl Lru {
    pub fn new(cap: usize) -> Self {
        Lru { cap, s: Store::with_capacity(cap), q: List::default() }
    }
}

impl Policy for Lru {
    type Entry = ();
    fn name(&self) -> &'static str {
        "lru"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        self.s.unlink(&mut self.q, idx);
        self.s.release(idx);
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.q.len
    }
    #[inline]
    fn find(&mut self, a: &Access) -> bool {
        match self.s.find(a.key) {
            Some(i) => {
                self.s.move_to_head(&mut self.q, i);
                true
            }
            None => false,
        }
    }
    #[inline]
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        self.s.evict_tail(&mut self.q)
    }
    #[inline]
    fn insert(&mut self, a: &Access) {
        let i = self.s.alloc(a.key, ());
        self.s.push_head(&mut self.q, i);
    }
    #[inline]
    fn prefetch_near(&self, key: u64) {
        self.s.prefetch_links(key);
        self.s.prefetch_tail(&self.q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recent() {
        let mut c = Lru::new(3);
        let miss: Vec<bool> =
            [1, 2, 3, 1, 4, 2, 1].iter().map(|&k| !c.access(&Access::new(k)).hit).collect();
        // 4 evicts 2 (1 was refreshed), so 2 misses again and evicts 3; 1 still hits.
        assert_eq!(miss, [true, true, true, false, true, true, false]);
        assert!(!c.contains(3));
    }
}
