//! FIFO: evict in insertion order; hits change nothing. Matches libCacheSim `eviction/FIFO.c`.

use super::store::{List, Store};
use super::{Access, Policy};

pub struct Fifo {
    cap: usize,
    s: Store<()>,
    q: List,
}

impl Fifo {
    pub fn new(cap: usize) -> Self {
        Fifo { cap, s: Store::with_capacity(cap), q: List::default() }
    }
}

impl Policy for Fifo {
    type Entry = ();
    fn name(&self) -> &'static str {
        "fifo"
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
        self.s.find(a.key).is_some()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_do_not_refresh() {
        let mut c = Fifo::new(3);
        for k in [1, 2, 3, 1, 4] {
            c.access(&Access::new(k));
        }
        // 1 was hit but is still the oldest, so 4 pushed it out.
        assert!(!c.contains(1) && c.contains(2) && c.contains(4));
    }
}
