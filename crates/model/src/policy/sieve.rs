//! SIEVE (Zhang, Yang, Yue, Vigfusson, Rashmi, NSDI'24): one FIFO queue, a visited bit and a
//! hand. New objects enter at the head; a hit only sets the bit. The hand walks from the tail
//! toward the head, clearing set bits and evicting the first unvisited object in place, then
//! stays there (it wraps to the tail at the head). Follows libCacheSim `eviction/Sieve.c`.

use super::store::{List, Store, NIL};
use super::{Access, Policy};

pub struct Sieve {
    cap: usize,
    s: Store<bool>,
    q: List,
    hand: u32,
}

impl Sieve {
    pub fn new(cap: usize) -> Self {
        Sieve { cap, s: Store::with_capacity(cap), q: List::default(), hand: NIL }
    }

    fn drop_node(&mut self, i: u32) -> u64 {
        if self.hand == i {
            self.hand = self.s.prev(i);
        }
        let k = self.s.key(i);
        self.s.unlink(&mut self.q, i);
        self.s.release(i);
        k
    }
}

impl Policy for Sieve {
    type Entry = bool;
    fn name(&self) -> &'static str {
        "sieve"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        self.drop_node(idx);
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
                *self.s.e_mut(i) = true;
                true
            }
            None => false,
        }
    }
    #[inline]
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        if self.q.len == 0 {
            return None;
        }
        let mut i = if self.hand == NIL { self.q.tail } else { self.hand };
        loop {
            if !*self.s.e(i) {
                self.hand = i;
                return Some(self.drop_node(i));
            }
            *self.s.e_mut(i) = false;
            i = self.s.prev(i);
            if i == NIL {
                i = self.q.tail;
            }
        }
    }
    #[inline]
    fn insert(&mut self, a: &Access) {
        let i = self.s.alloc(a.key, false);
        self.s.push_head(&mut self.q, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_skips_visited_and_stays() {
        let mut c = Sieve::new(3);
        for k in [1, 2, 3, 1, 4] {
            c.access(&Access::new(k));
        }
        // Hand starts at 1 (tail, visited → cleared), evicts 2 and rests on 3.
        assert!(c.contains(1) && !c.contains(2));
        c.access(&Access::new(5));
        // 3 is unvisited and under the hand: evicted next, 1 survives again.
        assert!(c.contains(1) && !c.contains(3));
    }
}
