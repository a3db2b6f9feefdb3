//! 2Q (Johnson & Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
//! Algorithm", VLDB'94, the full version of Fig. 2): new pages enter the FIFO A1in; pages pushed
//! out of A1in leave a key in the ghost FIFO A1out; a miss that finds its key in A1out goes to
//! the LRU Am. Defaults Kin = 25 % and Kout = 50 % of the cache, as in the paper's tuning
//! advice and libCacheSim `eviction/TwoQ.c`.

use super::store::{List, Store};
use super::{Access, Policy, PolicyEntry};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwoQList {
    A1in,
    A1out,
    Am,
}

pub struct TwoQ {
    cap: usize,
    kin: usize,
    kout: usize,
    s: Store<TwoQList>,
    a1in: List,
    a1out: List,
    am: List,
    ghost_hit: Option<u32>,
}

impl TwoQ {
    pub fn new(cap: usize, kin_ratio: f64, kout_ratio: f64) -> Self {
        let kin = ((cap as f64 * kin_ratio) as usize).max(1);
        let kout = ((cap as f64 * kout_ratio) as usize).max(1);
        TwoQ {
            cap,
            kin,
            kout,
            s: Store::with_capacity(cap + kout),
            a1in: List::default(),
            a1out: List::default(),
            am: List::default(),
            ghost_hit: None,
        }
    }
}

impl PolicyEntry for TwoQList {
    fn resident(&self) -> bool {
        self != &TwoQList::A1out
    }
}

impl Policy for TwoQ {
    type Entry = TwoQList;
    fn name(&self) -> &'static str {
        "2q"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        match *self.s.e(idx) {
            TwoQList::A1in => self.s.unlink(&mut self.a1in, idx),
            TwoQList::A1out => self.s.unlink(&mut self.a1out, idx),
            TwoQList::Am => self.s.unlink(&mut self.am, idx),
        }
        self.s.release(idx);
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.a1in.len + self.am.len
    }
    #[inline]
    fn find(&mut self, a: &Access) -> bool {
        self.ghost_hit = None;
        let Some(i) = self.s.find(a.key) else { return false };
        match *self.s.e(i) {
            TwoQList::Am => {
                self.s.move_to_head(&mut self.am, i);
                true
            }
            TwoQList::A1in => true,
            TwoQList::A1out => {
                self.ghost_hit = Some(i);
                false
            }
        }
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        // reclaimfor(): prefer trimming A1in once it exceeds Kin, else the LRU end of Am.
        if self.a1in.len > self.kin || (self.am.len == 0 && self.a1in.len > 0) {
            let i = self.s.pop_tail(&mut self.a1in)?;
            let key = self.s.key(i);
            if self.a1out.len >= self.kout {
                if let Some(g) = self.s.pop_tail(&mut self.a1out) {
                    if Some(g) == self.ghost_hit {
                        self.ghost_hit = None;
                    }
                    self.s.release(g);
                }
            }
            *self.s.e_mut(i) = TwoQList::A1out;
            self.s.push_head(&mut self.a1out, i);
            Some(key)
        } else {
            let i = self.s.pop_tail(&mut self.am)?;
            let key = self.s.key(i);
            self.s.release(i);
            Some(key)
        }
    }
    fn insert(&mut self, a: &Access) {
        if let Some(i) = self.ghost_hit.take() {
            self.s.unlink(&mut self.a1out, i);
            *self.s.e_mut(i) = TwoQList::Am;
            self.s.push_head(&mut self.am, i);
            return;
        }
        // The ghost key may have been dropped by evict(); a plain miss then.
        if let Some(i) = self.s.find(a.key) {
            self.s.unlink(&mut self.a1out, i);
            *self.s.e_mut(i) = TwoQList::Am;
            self.s.push_head(&mut self.am, i);
            return;
        }
        let i = self.s.alloc(a.key, TwoQList::A1in);
        self.s.push_head(&mut self.a1in, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_touch_after_a1in_goes_to_am() {
        let mut c = TwoQ::new(8, 0.25, 0.5); // Kin 2, Kout 4
        for k in 0..9 {
            c.access(&Access::new(k)); // 0 is pushed out of A1in into A1out
        }
        assert!(!c.contains(0));
        c.access(&Access::new(0));
        let i = c.s.find(0).unwrap();
        assert_eq!(*c.s.e(i), TwoQList::Am);
        assert_eq!(c.len(), 8);
    }
}
