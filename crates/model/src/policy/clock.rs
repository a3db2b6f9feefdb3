//! CLOCK with an n-bit reference counter (second chance when n = 1). Follows libCacheSim
//! `eviction/Clock.c` (default `n-bit-counter=1`): a hit raises the counter up to 2^n − 1;
//! the hand examines the oldest object, and a non-zero counter is decremented and the object
//! reinserted at the head instead of being evicted.

use super::store::{List, Store};
use super::{Access, Policy};

pub struct Clock {
    cap: usize,
    max_freq: u8,
    s: Store<u8>,
    q: List,
}

impl Clock {
    /// `n_bit` counter width, 1..=8.
    pub fn new(cap: usize, n_bit: u32) -> Self {
        let n = n_bit.clamp(1, 8);
        Clock {
            cap,
            max_freq: ((1u16 << n) - 1) as u8,
            s: Store::with_capacity(cap),
            q: List::default(),
        }
    }
}

impl Policy for Clock {
    type Entry = u8;
    fn name(&self) -> &'static str {
        "clock"
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
                let f = self.s.e_mut(i);
                if *f < self.max_freq {
                    *f += 1;
                }
                true
            }
            None => false,
        }
    }
    #[inline]
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        loop {
            let i = self.s.pop_tail(&mut self.q)?;
            let f = self.s.e_mut(i);
            if *f > 0 {
                *f -= 1;
                self.s.push_head(&mut self.q, i);
            } else {
                let k = self.s.key(i);
                self.s.release(i);
                return Some(k);
            }
        }
    }
    #[inline]
    fn insert(&mut self, a: &Access) {
        let i = self.s.alloc(a.key, 0);
        self.s.push_head(&mut self.q, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referenced_object_gets_second_chance() {
        let mut c = Clock::new(3, 1);
        for k in [1, 2, 3, 1, 4] {
            c.access(&Access::new(k));
        }
        // 1 was referenced, so the hand cleared it and evicted 2 instead.
        assert!(c.contains(1) && !c.contains(2) && c.contains(3) && c.contains(4));
    }
}
