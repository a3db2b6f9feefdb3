//! ARC (Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03,
//! Fig. 4): T1 (seen once recently) and T2 (seen at least twice) hold cached pages; B1 and B2
//! remember the keys recently evicted from each; the target size `p` of T1 grows on a B1 ghost
//! hit and shrinks on a B2 ghost hit. All four lists share one slab and one key map.

use super::store::{List, Store};
use super::{Access, Policy, PolicyEntry};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArcList {
    T1,
    T2,
    B1,
    B2,
}

pub struct Arc {
    c: usize,
    p: f64,
    s: Store<ArcList>,
    t1: List,
    t2: List,
    b1: List,
    b2: List,
    /// Ghost list the current miss was found in (cases II and III of the paper).
    ghost: Option<(u32, ArcList)>,
}

impl Arc {
    pub fn new(c: usize) -> Self {
        Arc {
            c,
            p: 0.0,
            s: Store::with_capacity(2 * c),
            t1: List::default(),
            t2: List::default(),
            b1: List::default(),
            b2: List::default(),
            ghost: None,
        }
    }

    fn list(&mut self, l: ArcList) -> &mut List {
        match l {
            ArcList::T1 => &mut self.t1,
            ArcList::T2 => &mut self.t2,
            ArcList::B1 => &mut self.b1,
            ArcList::B2 => &mut self.b2,
        }
    }

    fn drop_lru(&mut self, l: ArcList) {
        let mut list = *self.list(l);
        if let Some(i) = self.s.pop_tail(&mut list) {
            self.s.release(i);
        }
        *self.list(l) = list;
    }

    /// REPLACE(x, p): demote the LRU of T1 or T2 to its ghost list; returns the evicted key.
    fn replace(&mut self, x_in_b2: bool) -> Option<u64> {
        let t1 = self.t1.len as f64;
        let (from, to) = if self.t1.len >= 1 && ((x_in_b2 && t1 == self.p.floor()) || t1 > self.p) {
            (ArcList::T1, ArcList::B1)
        } else if self.t2.len >= 1 {
            (ArcList::T2, ArcList::B2)
        } else {
            (ArcList::T1, ArcList::B1)
        };
        let mut fl = *self.list(from);
        let i = self.s.pop_tail(&mut fl)?;
        *self.list(from) = fl;
        *self.s.e_mut(i) = to;
        let mut tl = *self.list(to);
        self.s.push_head(&mut tl, i);
        *self.list(to) = tl;
        Some(self.s.key(i))
    }
}

impl PolicyEntry for ArcList {
    fn resident(&self) -> bool {
        matches!(self, ArcList::T1 | ArcList::T2)
    }
}

impl Policy for Arc {
    type Entry = ArcList;
    fn name(&self) -> &'static str {
        "arc"
    }
    fn store(&self) -> &Store<Self::Entry> {
        &self.s
    }
    fn forget(&mut self, idx: u32) {
        let l = *self.s.e(idx);
        let mut list = *self.list(l);
        self.s.unlink(&mut list, idx);
        *self.list(l) = list;
        self.s.release(idx);
    }
    fn capacity(&self) -> usize {
        self.c
    }
    fn len(&self) -> usize {
        self.t1.len + self.t2.len
    }
    #[inline]
    fn find(&mut self, a: &Access) -> bool {
        self.ghost = None;
        let Some(i) = self.s.find(a.key) else { return false };
        match *self.s.e(i) {
            l @ (ArcList::T1 | ArcList::T2) => {
                // Case I: promote to MRU of T2.
                let mut from = *self.list(l);
                self.s.unlink(&mut from, i);
                *self.list(l) = from;
                *self.s.e_mut(i) = ArcList::T2;
                self.s.push_head(&mut self.t2, i);
                true
            }
            ArcList::B1 => {
                let d = if self.b1.len >= self.b2.len {
                    1.0
                } else {
                    self.b2.len as f64 / self.b1.len as f64
                };
                self.p = (self.p + d).min(self.c as f64);
                self.ghost = Some((i, ArcList::B1));
                false
            }
            ArcList::B2 => {
                let d = if self.b2.len >= self.b1.len {
                    1.0
                } else {
                    self.b1.len as f64 / self.b2.len as f64
                };
                self.p = (self.p - d).max(0.0);
                self.ghost = Some((i, ArcList::B2));
                false
            }
        }
    }
    fn evict(&mut self, _a: &Access) -> Option<u64> {
        match self.ghost {
            Some((_, l)) => self.replace(l == ArcList::B2),
            None => {
                // Case IV: trim the directory to 2c, then make room.
                if self.t1.len + self.b1.len >= self.c {
                    if self.t1.len < self.c {
                        self.drop_lru(ArcList::B1);
                        self.replace(false)
                    } else {
                        let i = self.s.pop_tail(&mut self.t1)?;
                        let k = self.s.key(i);
                        self.s.release(i);
                        Some(k)
                    }
                } else {
                    if self.t1.len + self.t2.len + self.b1.len + self.b2.len >= 2 * self.c {
                        self.drop_lru(ArcList::B2);
                    }
                    self.replace(false)
                }
            }
        }
    }
    fn insert(&mut self, a: &Access) {
        if let Some((i, l)) = self.ghost.take() {
            let mut gl = *self.list(l);
            self.s.unlink(&mut gl, i);
            *self.list(l) = gl;
            *self.s.e_mut(i) = ArcList::T2;
            self.s.push_head(&mut self.t2, i);
            return;
        }
        // A cache below c after invalidations can still hold a full directory.
        while self.t1.len + self.t2.len + self.b1.len + self.b2.len >= 2 * self.c {
            if self.b2.len > 0 {
                self.drop_lru(ArcList::B2);
            } else if self.b1.len > 0 {
                self.drop_lru(ArcList::B1);
            } else {
                break;
            }
        }
        let i = self.s.alloc(a.key, ArcList::T1);
        self.s.push_head(&mut self.t1, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_does_not_flush_frequent_pages() {
        let mut c = Arc::new(100);
        for _ in 0..3 {
            for k in 0..50 {
                c.access(&Access::new(k));
            }
        }
        for k in 1000..1500 {
            c.access(&Access::new(k)); // a one-pass scan
        }
        let kept = (0..50).filter(|&k| c.contains(k)).count();
        assert_eq!(kept, 50, "ARC should keep the twice-seen set through a scan");
        assert!(c.len() <= 100 && c.s.len() <= 200);
    }
}
