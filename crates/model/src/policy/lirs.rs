//! LIRS (Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy
//! to Improve Buffer Cache Performance", SIGMETRICS'02): blocks with a low inter-reference
//! recency (LIR) own 99 % of the cache; the remaining 1 % holds resident HIR blocks in a FIFO
//! `Q`, the eviction end. The recency stack `S` keeps LIR blocks, resident HIR blocks and
//! non-resident HIR keys; a block re-referenced while still in `S` has a shorter IRR than the
//! oldest LIR block and takes its place. Non-resident keys are capped at the cache size (as in
//! Caffeine's `irr.Lirs` simulator) so memory stays bounded.

use super::store::{List, Store, NIL};
use super::{Access, Policy, PolicyEntry};

#[derive(Clone, Copy, Debug, Default)]
pub struct LirsEntry {
    lir: bool,
    resident: bool,
    in_stack: bool,
}

pub struct Lirs {
    cap: usize,
    lir_cap: usize,
    nr_cap: usize,
    s: Store<LirsEntry>,
    stack: List,
    /// Secondary membership: resident HIR blocks (`hirq`) or non-resident keys (`nr`); the entry
    /// says which (true = resident).
    q: Store<bool>,
    hirq: List,
    nr: List,
    lir_count: usize,
    ghost: Option<u32>,
}

impl Lirs {
    pub fn new(cap: usize, hir_ratio: f64) -> Self {
        let hir_cap = ((cap as f64 * hir_ratio) as usize).max(1).min(cap);
        Lirs {
            cap,
            lir_cap: cap - hir_cap,
            nr_cap: cap.max(1),
            s: Store::with_capacity(2 * cap),
            stack: List::default(),
            q: Store::with_capacity(2 * cap),
            hirq: List::default(),
            nr: List::default(),
            lir_count: 0,
            ghost: None,
        }
    }

    fn q_remove(&mut self, key: u64) {
        if let Some(j) = self.q.find(key) {
            if *self.q.e(j) {
                self.q.unlink(&mut self.hirq, j);
            } else {
                self.q.unlink(&mut self.nr, j);
            }
            self.q.release(j);
        }
    }

    fn q_push(&mut self, key: u64, resident: bool) {
        let j = self.q.alloc(key, resident);
        if resident {
            self.q.push_head(&mut self.hirq, j);
        } else {
            self.q.push_head(&mut self.nr, j);
        }
    }

    /// Stack pruning: the bottom of S is always a LIR block.
    fn prune(&mut self) {
        while self.stack.tail != NIL && !self.s.e(self.stack.tail).lir {
            let t = self.stack.tail;
            self.s.unlink(&mut self.stack, t);
            self.s.e_mut(t).in_stack = false;
            if !self.s.e(t).resident {
                let k = self.s.key(t);
                self.q_remove(k);
                self.s.release(t);
            }
        }
    }

    /// The oldest LIR block becomes a resident HIR block at the newest end of Q.
    fn demote_bottom_lir(&mut self) {
        let t = self.stack.tail;
        if t == NIL {
            return;
        }
        self.s.unlink(&mut self.stack, t);
        *self.s.e_mut(t) = LirsEntry { lir: false, resident: true, in_stack: false };
        self.lir_count -= 1;
        let k = self.s.key(t);
        self.q_push(k, true);
        self.prune();
    }
}

impl PolicyEntry for LirsEntry {
    fn resident(&self) -> bool {
        self.resident
    }
}

impl Policy for Lirs {
    type Entry = LirsEntry;
    fn name(&self) -> &'static str {
        "lirs"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        let (key, e) = (self.s.key(idx), *self.s.e(idx));
        self.q_remove(key);
        if e.in_stack {
            self.s.unlink(&mut self.stack, idx);
        }
        self.s.release(idx);
        if e.lir {
            self.lir_count -= 1;
        }
        self.prune();
    }
    fn extra_heap_bytes(&self) -> usize {
        self.q.heap_bytes()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.lir_count + self.hirq.len
    }
    fn find(&mut self, a: &Access) -> bool {
        self.ghost = None;
        let Some(i) = self.s.find(a.key) else { return false };
        let e = *self.s.e(i);
        if !e.resident {
            self.ghost = Some(i);
            return false;
        }
        if e.lir {
            self.s.move_to_head(&mut self.stack, i);
            self.prune();
        } else if e.in_stack {
            // Re-referenced within the stack: IRR is below the oldest LIR's recency.
            self.s.move_to_head(&mut self.stack, i);
            self.q_remove(a.key);
            self.s.e_mut(i).lir = true;
            self.lir_count += 1;
            self.demote_bottom_lir();
        } else {
            self.s.push_head(&mut self.stack, i);
            self.s.e_mut(i).in_stack = true;
            self.q_remove(a.key);
            self.q_push(a.key, true);
        }
        true
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        if let Some(j) = self.q.pop_tail(&mut self.hirq) {
            let k = self.q.key(j);
            self.q.release(j);
            let i = self.s.find(k)?;
            if self.s.e(i).in_stack {
                self.s.e_mut(i).resident = false;
                self.q_push(k, false);
                if self.nr.len > self.nr_cap {
                    if let Some(old) = self.q.pop_tail(&mut self.nr) {
                        let ok = self.q.key(old);
                        self.q.release(old);
                        if let Some(oi) = self.s.find(ok) {
                            if Some(oi) == self.ghost {
                                self.ghost = None;
                            }
                            self.s.unlink(&mut self.stack, oi);
                            self.s.release(oi);
                        }
                    }
                }
            } else {
                self.s.release(i);
            }
            return Some(k);
        }
        // No resident HIR block (only after invalidations): the oldest LIR goes.
        let t = self.s.pop_tail(&mut self.stack)?;
        let k = self.s.key(t);
        self.s.release(t);
        self.lir_count -= 1;
        self.prune();
        Some(k)
    }
    fn insert(&mut self, a: &Access) {
        if let Some(i) = self.ghost.take().filter(|&i| self.s.find(a.key) == Some(i)) {
            self.q_remove(a.key);
            *self.s.e_mut(i) = LirsEntry { lir: true, resident: true, in_stack: true };
            self.s.move_to_head(&mut self.stack, i);
            self.lir_count += 1;
            if self.lir_count > self.lir_cap {
                self.demote_bottom_lir();
            }
            return;
        }
        if self.lir_count < self.lir_cap {
            let i = self.s.alloc(a.key, LirsEntry { lir: true, resident: true, in_stack: true });
            self.s.push_head(&mut self.stack, i);
            self.lir_count += 1;
        } else {
            let i = self.s.alloc(a.key, LirsEntry { lir: false, resident: true, in_stack: true });
            self.s.push_head(&mut self.stack, i);
            self.q_push(a.key, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looping_pattern_larger_than_cache_keeps_a_lir_core() {
        // LRU gets 0 hits on a cyclic scan of 120 keys through a 100-entry cache; LIRS keeps
        // its LIR set resident and hits on it every pass.
        let mut c = Lirs::new(100, 0.01);
        let mut hits = 0;
        for pass in 0..5 {
            for k in 0..120 {
                let h = c.access(&Access::new(k)).hit;
                if pass > 0 {
                    hits += u32::from(h);
                }
            }
        }
        assert!(hits >= 4 * 95, "hits {hits}");
        assert!(c.len() <= 100);
    }
}
