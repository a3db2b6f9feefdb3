//! LRU stack distances in O(log n) per access (Mattson et al., "Evaluation techniques for
//! storage hierarchies", IBM Systems Journal 9(2), 1970; the tree-over-access-times method of
//! Bennett & Kruskal 1975, as the notes recommend). A hash map holds each key's last access
//! time; a Fenwick tree holds one mark per live key at that time. The stack distance of an
//! access is 1 + the number of distinct keys accessed since the key's previous access, i.e.
//! the smallest LRU cache (in entries) that hits. Times are renumbered densely when the tree
//! fills, so memory is O(distinct keys), not O(requests).

use super::fenwick::Fenwick;
use super::IdMap;

pub struct StackDistance {
    last: IdMap<u32>,
    tree: Fenwick,
    now: u32,
    live: u32,
}

impl Default for StackDistance {
    fn default() -> Self {
        Self::new()
    }
}

impl StackDistance {
    pub fn new() -> Self {
        StackDistance { last: IdMap::default(), tree: Fenwick::new(1 << 16), now: 0, live: 0 }
    }

    /// Distinct keys currently tracked.
    pub fn keys(&self) -> usize {
        self.live as usize
    }

    /// Records an access; returns its stack distance (1 = the most recent key), or `None` for a
    /// first access (a cold miss at every size).
    pub fn access(&mut self, key: u64) -> Option<u64> {
        if self.now as usize == self.tree.len() {
            self.compact();
        }
        let now = self.now;
        self.now += 1;
        match self.last.insert(key, now) {
            Some(t0) => {
                let newer = self.live - self.tree.prefix(t0 as usize);
                self.tree.add(t0 as usize, -1);
                self.tree.add(now as usize, 1);
                Some(newer as u64 + 1)
            }
            None => {
                self.live += 1;
                self.tree.add(now as usize, 1);
                None
            }
        }
    }

    /// Forgets a key (SHARDS fixed-size drops keys when it lowers its sampling threshold).
    pub fn remove(&mut self, key: u64) {
        if let Some(t0) = self.last.remove(&key) {
            self.tree.add(t0 as usize, -1);
            self.live -= 1;
        }
    }

    /// Renumbers live keys' times to 0..live in order and sizes the tree to twice that.
    fn compact(&mut self) {
        let mut order: Vec<(u32, u64)> = self.last.iter().map(|(&k, &t)| (t, k)).collect();
        order.sort_unstable();
        for (i, &(_, k)) in order.iter().enumerate() {
            self.last.insert(k, i as u32);
        }
        let cap = (order.len() * 2).max(1 << 16);
        self.tree = Fenwick::from_marks(cap, 0..order.len());
        self.now = order.len() as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_of_a_small_string() {
        // a b c a a d b : a is 3rd most recent at its second access, then 1, b is 4th.
        let mut s = StackDistance::new();
        let got: Vec<Option<u64>> = [1, 2, 3, 1, 1, 4, 2].iter().map(|&k| s.access(k)).collect();
        assert_eq!(got, [None, None, None, Some(3), Some(1), None, Some(4)]);
        s.remove(1);
        assert_eq!(s.access(2), Some(1));
        assert_eq!(s.access(3), Some(3));
        assert_eq!(s.keys(), 3);
    }

    #[test]
    fn compaction_keeps_distances() {
        // Cycling over 1000 keys for 200k accesses forces several compactions.
        let mut s = StackDistance::new();
        for i in 0..200_000u64 {
            let d = s.access(i % 1000);
            if i >= 1000 {
                assert_eq!(d, Some(1000));
            }
        }
    }
}
