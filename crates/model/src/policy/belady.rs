//! Belady's MIN / OPT (Belady, "A study of replacement algorithms for a virtual-storage
//! computer", IBM Systems Journal 5(2), 1966): evict the object whose next request is farthest
//! in the future; objects never requested again go first. Offline: every [`Access`] must carry
//! `next_access` (oracleGeneral stores it; [`super::next_access_times`] computes it).
//!
//! A max-heap of (next access, key) with lazy deletion: a hit pushes a fresh pair and the stale
//! one is skipped when it surfaces; the heap is rebuilt when stale pairs outnumber live ones.

use super::store::Store;
use super::{Access, Policy};
use std::collections::BinaryHeap;

pub struct Belady {
    cap: usize,
    /// Entry: the object's current next-access time.
    s: Store<u64>,
    heap: BinaryHeap<(u64, u64)>,
}

impl Belady {
    pub fn new(cap: usize) -> Self {
        Belady { cap, s: Store::with_capacity(cap), heap: BinaryHeap::with_capacity(2 * cap + 1) }
    }

    fn compact(&mut self) {
        let live: Vec<(u64, u64)> = self.s.nodes_live().collect();
        self.heap = BinaryHeap::from(live);
    }
}

impl<E: Copy> Store<E> {
    /// (entry, key) of every live node; used only to rebuild side indexes.
    fn nodes_live(&self) -> impl Iterator<Item = (E, u64)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| self.find(n.key) == Some(*i as u32))
            .map(|(_, n)| (n.e, n.key))
    }
}

impl Policy for Belady {
    type Entry = u64;
    fn name(&self) -> &'static str {
        "belady"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        self.s.release(idx);
    }
    fn extra_heap_bytes(&self) -> usize {
        self.heap.capacity() * 16
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.s.len()
    }
    fn find(&mut self, a: &Access) -> bool {
        let Some(i) = self.s.find(a.key) else { return false };
        *self.s.e_mut(i) = a.next_access;
        self.heap.push((a.next_access, a.key));
        if self.heap.len() > 2 * self.cap + 16 {
            self.compact();
        }
        true
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        while let Some((next, key)) = self.heap.pop() {
            if let Some(i) = self.s.find(key) {
                if *self.s.e(i) == next {
                    self.s.release(i);
                    return Some(key);
                }
            }
        }
        None
    }
    fn insert(&mut self, a: &Access) {
        self.s.alloc(a.key, a.next_access);
        self.heap.push((a.next_access, a.key));
    }
}

#[cfg(test)]
mod tests {
    use super::super::next_access_times;
    use super::*;

    #[test]
    fn evicts_farthest_future_use() {
        let keys = [1u64, 2, 3, 1, 4, 2, 1, 3];
        let next = next_access_times(&keys);
        assert_eq!(&next[..4], &[3, 5, 7, 6]);
        let mut c = Belady::new(3);
        let mut misses = 0;
        for (t, (&k, &n)) in keys.iter().zip(&next).enumerate() {
            let a = Access { key: k, vtime: t as u64, next_access: n, write: false };
            misses += u32::from(!c.access(&a).hit);
        }
        // 1,2,3 cold; 4 evicts 3 (next use 7, farthest); 3 misses again at the end: 5 misses.
        assert_eq!(misses, 5);
    }
}
