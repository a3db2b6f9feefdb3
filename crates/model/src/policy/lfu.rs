//! LFU: evict the least frequently used object; among equals, the one that reached that count
//! first. O(1) per request with a list of frequency buckets (Shah, Mitra, Matani, "An O(1)
//! algorithm for implementing the LFU cache eviction scheme", 2010): each bucket holds the
//! objects with one count, buckets are linked in increasing count.

use super::store::{List, Store, NIL};
use super::{Access, Policy};

/// A frequency bucket: its objects (head newest) and links to the neighbouring buckets.
#[derive(Clone, Copy, Debug, Default)]
struct Bucket {
    freq: u64,
    objs: List,
}

pub struct Lfu {
    cap: usize,
    /// Object store; the entry is the index of the object's bucket.
    s: Store<u32>,
    /// Bucket store keyed by frequency; its list `order` runs from the highest count (head) to
    /// the lowest (tail).
    b: Store<Bucket>,
    order: List,
    len: usize,
}

impl Lfu {
    pub fn new(cap: usize) -> Self {
        Lfu {
            cap,
            s: Store::with_capacity(cap),
            b: Store::with_capacity(64),
            order: List::default(),
            len: 0,
        }
    }

    /// The bucket for `freq`, created just above `below` (a bucket index or NIL for "lowest").
    fn bucket_after(&mut self, below: u32, freq: u64) -> u32 {
        if let Some(b) = self.b.find(freq) {
            return b;
        }
        let nb = self.b.alloc(freq, Bucket { freq, objs: List::default() });
        if below == NIL {
            // new lowest: append at the tail
            let t = self.order.tail;
            if t == NIL {
                self.b.push_head(&mut self.order, nb);
            } else {
                self.b.nodes[t as usize].next = nb;
                self.b.nodes[nb as usize].prev = t;
                self.b.nodes[nb as usize].next = NIL;
                self.order.tail = nb;
                self.order.len += 1;
            }
        } else {
            // insert between `below` and its higher neighbour (prev)
            let above = self.b.prev(below);
            self.b.nodes[nb as usize].prev = above;
            self.b.nodes[nb as usize].next = below;
            self.b.nodes[below as usize].prev = nb;
            if above == NIL {
                self.order.head = nb;
            } else {
                self.b.nodes[above as usize].next = nb;
            }
            self.order.len += 1;
        }
        nb
    }

    fn drop_bucket_if_empty(&mut self, bi: u32) {
        if self.b.e(bi).objs.len == 0 {
            self.b.unlink(&mut self.order, bi);
            self.b.release(bi);
        }
    }

    fn detach(&mut self, i: u32) -> u32 {
        let bi = *self.s.e(i);
        let mut objs = self.b.e(bi).objs;
        self.s.unlink(&mut objs, i);
        self.b.e_mut(bi).objs = objs;
        bi
    }

    fn attach(&mut self, i: u32, bi: u32) {
        let mut objs = self.b.e(bi).objs;
        self.s.push_head(&mut objs, i);
        self.b.e_mut(bi).objs = objs;
        *self.s.e_mut(i) = bi;
    }
}

impl Policy for Lfu {
    type Entry = u32;
    fn name(&self) -> &'static str {
        "lfu"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        let bi = self.detach(idx);
        self.drop_bucket_if_empty(bi);
        self.s.release(idx);
        self.len -= 1;
    }
    fn extra_heap_bytes(&self) -> usize {
        self.b.heap_bytes()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.len
    }
    fn find(&mut self, a: &Access) -> bool {
        let Some(i) = self.s.find(a.key) else { return false };
        let bi = self.detach(i);
        let f = self.b.e(bi).freq;
        let nb = self.bucket_after(bi, f + 1);
        self.attach(i, nb);
        self.drop_bucket_if_empty(bi);
        true
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        let low = self.order.tail;
        if low == NIL {
            return None;
        }
        let mut objs = self.b.e(low).objs;
        let i = self.s.pop_tail(&mut objs)?;
        self.b.e_mut(low).objs = objs;
        self.drop_bucket_if_empty(low);
        let k = self.s.key(i);
        self.s.release(i);
        self.len -= 1;
        Some(k)
    }
    fn insert(&mut self, a: &Access) {
        let i = self.s.alloc(a.key, NIL);
        let b1 = match self.b.find(1) {
            Some(b) => b,
            None => self.bucket_after(NIL, 1),
        };
        self.attach(i, b1);
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_lowest_count_oldest_first() {
        let mut c = Lfu::new(3);
        for k in [1, 1, 1, 2, 2, 3, 4] {
            c.access(&Access::new(k));
        }
        // 3 (count 1) goes; 4 enters with count 1.
        assert!(c.contains(1) && c.contains(2) && !c.contains(3) && c.contains(4));
        c.access(&Access::new(5)); // 4 is the only count-1 object
        assert!(!c.contains(4) && c.contains(5));
        assert_eq!(c.order.len, 3); // buckets 1, 2, 3
    }
}
