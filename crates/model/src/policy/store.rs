//! The shared storage under every policy: a chained hash table from `u64` key to a `u32` slot
//! index whose chains run through a slab of nodes, the same nodes that intrusive doubly-linked
//! lists thread through; and [`KeyMap`], a plain open-addressing `u64 -> u32` map for callers
//! without a slab.
//!
//! The store follows libCacheSim's `cache_obj_t` + `chained_hashtable_v2` (one object record
//! per key holding its hash-chain link and its queue links) but without a pointer per link or
//! an allocation per insert: links are `u32` indices into one `Vec`, freed slots go on a free
//! list, and the bucket array holds 4-byte chain heads at load <= 1/4. A hit costs the bucket
//! line and the node line (which already holds the links an LRU unlink reads); forgetting a
//! node whose index is known (every eviction) only writes: the chain is doubly linked, so the
//! node names its predecessor (or that it heads its bucket) and nothing is read outside it
//! (reading the victim's bucket, not in cache three requests after the victim became the
//! tail, stalled 42 % of an LRU replay's samples, perf; the predecessor link fills the
//! padding of a 24-byte `Node<()>`, and makes other policies' nodes 32 bytes).
//! Replay loops prefetch in three stages ([`Store::prefetch`], [`Store::prefetch_node`],
//! [`Store::prefetch_links`]). Profile that led here (LRU, 20 M-request Zipf 0.9, 200 k
//! entries, on a 16-byte-bucket linear-probing table): 44 % key lookups, 26 % the eviction's
//! second probe and backward shift. Hand-written instead of `hashbrown` because the key is
//! already a `u64`, the value a `u32` that must not move, and the replay needs prefetch hooks;
//! measured in `benches/policies.rs`.

/// "No node": end of a list or an empty table bucket.
pub const NIL: u32 = u32::MAX;

/// Fibonacci multiply-shift hash: keys from traces are LBAs (dense, sequential runs), which a
/// plain modulus would cluster; the golden-ratio multiplier spreads consecutive keys evenly.
#[inline]
fn bucket_of(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

use super::mem::{huge_filled, huge_vec, prefetch_line};

/// One table bucket: key and slot index side by side, so a probe touches one cache line
/// (separate key and value arrays cost two misses per lookup on a table larger than L2).
#[derive(Clone, Copy, Debug)]
struct Bucket {
    key: u64,
    val: u32,
}

const EMPTY: Bucket = Bucket { key: 0, val: NIL };

/// Open-addressing map `u64 -> u32` (the value `NIL` marks an empty bucket): linear probing with
/// backward-shift deletion (Knuth vol. 3, 6.4 Algorithm R), for maps without a node slab
/// (next-access times, a tier's written set).
#[derive(Clone, Debug)]
pub struct KeyMap {
    b: Vec<Bucket>,
    mask: usize,
    shift: u32,
    len: usize,
}

impl KeyMap {
    /// A table sized for `expected` keys at load factor <= 1/2 (it grows past that).
    pub fn with_capacity(expected: usize) -> Self {
        let buckets = (expected.max(8) * 2).next_power_of_two();
        KeyMap {
            b: vec![EMPTY; buckets],
            mask: buckets - 1,
            shift: 64 - buckets.trailing_zeros(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Starts loading `key`'s home bucket into cache; a replay loop calls this a few requests
    /// ahead so the lookup does not wait on DRAM. A hint only: no effect on results.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let i = bucket_of(key, self.shift) & self.mask;
        if let Some(b) = self.b.get(i) {
            prefetch_line(b as *const Bucket as *const i8);
        }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let mut i = bucket_of(key, self.shift);
        loop {
            let e = self.b[i & self.mask];
            if e.val == NIL {
                return None;
            }
            if e.key == key {
                return Some(e.val);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Inserts or overwrites.
    #[inline]
    pub fn insert(&mut self, key: u64, val: u32) {
        if (self.len + 1) * 2 > self.b.len() {
            self.grow();
        }
        let mut i = bucket_of(key, self.shift);
        loop {
            let e = &mut self.b[i & self.mask];
            if e.val == NIL {
                *e = Bucket { key, val };
                self.len += 1;
                return;
            }
            if e.key == key {
                e.val = val;
                return;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Removes `key`, returning its value. Backward-shift keeps probe chains unbroken without
    /// tombstones, so a long replay never degrades.
    #[inline]
    pub fn remove(&mut self, key: u64) -> Option<u32> {
        let mut i = bucket_of(key, self.shift) & self.mask;
        loop {
            let e = self.b[i];
            if e.val == NIL {
                return None;
            }
            if e.key == key {
                break;
            }
            i = (i + 1) & self.mask;
        }
        let out = self.b[i].val;
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let e = self.b[j];
            if e.val == NIL {
                break;
            }
            let home = bucket_of(e.key, self.shift);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.b[hole] = e;
                hole = j;
            }
        }
        self.b[hole].val = NIL;
        self.len -= 1;
        Some(out)
    }

    fn grow(&mut self) {
        let mut bigger = KeyMap::with_capacity(self.b.len());
        for e in &self.b {
            if e.val != NIL {
                bigger.insert(e.key, e.val);
            }
        }
        *self = bigger;
    }

    /// Bytes held by the table (for the memory comparison with libCacheSim).
    pub fn heap_bytes(&self) -> usize {
        self.b.capacity() * std::mem::size_of::<Bucket>()
    }
}

/// One cached (or ghost) key with its list links, its hash-chain link and the policy's
/// per-entry state. Key, links and chain share one node, so a lookup that finds the key has
/// also loaded what an unlink reads.
#[derive(Clone, Debug)]
pub struct Node<E> {
    pub key: u64,
    pub prev: u32,
    pub next: u32,
    /// Next node in the same hash bucket (`NIL` ends the chain).
    chain: u32,
    /// Previous node in the same hash bucket (`NIL`: this node is the bucket's head), so
    /// forgetting a node writes its neighbours without reading its bucket.
    chain_prev: u32,
    pub e: E,
}

/// A doubly-linked list threaded through the slab. `head` is the newest end (MRU / FIFO
/// insertion point), `tail` the oldest (the eviction end).
#[derive(Clone, Copy, Debug)]
pub struct List {
    pub head: u32,
    pub tail: u32,
    pub len: usize,
}

impl Default for List {
    fn default() -> Self {
        List { head: NIL, tail: NIL, len: 0 }
    }
}

/// Buckets per live node: the table holds `u32` chain heads at load <= 1/4, so a missed
/// lookup walks 1/4 node on average and the head array stays a quarter of a `KeyMap`'s size.
const BUCKETS_PER_NODE: usize = 4;

/// Chained hash table + node slab + free list: the per-policy object store.
///
/// libCacheSim's `chained_hashtable_v2` layout (a bucket array of chain heads, the chain link
/// inside the object), with `u32` slab indices instead of pointers. A node never moves, so a
/// policy keeps its index, and forgetting a node whose index is known writes its bucket's
/// line (or its chain neighbours) without reading it, instead of a second probe and a
/// backward shift.
#[derive(Clone, Debug)]
pub struct Store<E> {
    heads: Vec<u32>,
    shift: u32,
    pub nodes: Vec<Node<E>>,
    free: Vec<u32>,
    len: usize,
}

impl<E> Store<E> {
    /// Reserves room for `n` entries up to [`Store::MAX_RESERVE`]; beyond that the store grows
    /// with what it holds, so a nominal capacity far above the trace's footprint (a 100 G-entry
    /// cache over 49 k objects) costs nothing (reliability review: it aborted allocating).
    pub fn with_capacity(n: usize) -> Self {
        let n = n.min(Self::MAX_RESERVE);
        let buckets = (n.max(8) * BUCKETS_PER_NODE).next_power_of_two();
        Store {
            heads: huge_filled(buckets, NIL),
            shift: 64 - buckets.trailing_zeros(),
            nodes: huge_vec(n),
            free: Vec::new(),
            len: 0,
        }
    }

    /// The largest up-front reservation, in entries.
    pub const MAX_RESERVE: usize = 1 << 20;

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        bucket_of(key, self.shift)
    }

    #[inline]
    pub fn find(&self, key: u64) -> Option<u32> {
        let mut i = *self.heads.get(self.bucket(key))?;
        while let Some(n) = self.nodes.get(i as usize) {
            if n.key == key {
                return Some(i);
            }
            i = n.chain;
        }
        None
    }

    /// Starts loading `key`'s bucket; a replay loop calls this a few requests ahead so the
    /// lookup does not wait on DRAM. A hint only: no effect on results.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if let Some(h) = self.heads.get(self.bucket(key)) {
            prefetch_line(h as *const u32 as *const i8);
        }
    }

    /// Second stage of [`Store::prefetch`], called closer to the access: reads the bucket
    /// (in cache by now) and starts loading the first node of its chain.
    #[inline]
    pub fn prefetch_node(&self, key: u64) {
        let Some(&h) = self.heads.get(self.bucket(key)) else { return };
        if let Some(n) = self.nodes.get(h as usize) {
            prefetch_line(n as *const Node<E> as *const i8);
        }
    }

    /// Third stage, for policies that relink on a hit (LRU): when the chain's first node is
    /// `key` (in cache by now), starts loading its list neighbours.
    #[inline]
    pub fn prefetch_links(&self, key: u64) {
        let Some(&h) = self.heads.get(self.bucket(key)) else { return };
        let Some(n) = self.nodes.get(h as usize) else { return };
        if n.key == key {
            self.prefetch_idx(n.prev);
            self.prefetch_idx(n.next);
        }
    }

    /// Starts loading node `idx` (a hint; an index past the slab does nothing).
    #[inline]
    pub fn prefetch_idx(&self, idx: u32) {
        if let Some(n) = self.nodes.get(idx as usize) {
            prefetch_line(n as *const Node<E> as *const i8);
        }
    }

    /// Prefetch for the next eviction from `l`: the node behind the tail. Forgetting a node
    /// reads nothing outside it ([`Store::release`]), so its bucket needs no prefetch. A hint
    /// only.
    #[inline]
    pub fn prefetch_tail(&self, l: &List) {
        let Some(n) = self.nodes.get(l.tail as usize) else { return };
        self.prefetch_idx(n.prev);
    }

    /// Number of live nodes (cached plus ghost).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A new unlinked node for `key`, which must not be stored yet.
    #[inline]
    pub fn alloc(&mut self, key: u64, e: E) -> u32 {
        if (self.len + 1) * BUCKETS_PER_NODE > self.heads.len() {
            self.grow();
        }
        let b = self.bucket(key);
        let chain = self.heads[b];
        let node = Node { key, prev: NIL, next: NIL, chain, chain_prev: NIL, e };
        let idx = if let Some(i) = self.free.pop() {
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        if let Some(n) = self.nodes.get_mut(chain as usize) {
            n.chain_prev = idx;
        }
        self.heads[b] = idx;
        self.len += 1;
        idx
    }

    /// Forgets an (already unlinked) node: takes it off its hash chain and frees its slot.
    /// Only writes outside the node: its chain neighbours, or its bucket when it heads the
    /// chain (a write does not wait for the line; the read of the bucket it replaced stalled
    /// a third of an LRU replay, perf).
    #[inline]
    pub fn release(&mut self, idx: u32) {
        let (key, chain, chain_prev) = {
            let n = &self.nodes[idx as usize];
            (n.key, n.chain, n.chain_prev)
        };
        if let Some(p) = self.nodes.get_mut(chain_prev as usize) {
            p.chain = chain;
        } else {
            let b = self.bucket(key);
            self.heads[b] = chain;
        }
        if let Some(n) = self.nodes.get_mut(chain as usize) {
            n.chain_prev = chain_prev;
        }
        self.len -= 1;
        self.free.push(idx);
    }

    /// Doubles the bucket array and re-threads every chain (nodes keep their indices).
    fn grow(&mut self) {
        let buckets = self.heads.len() * 2;
        let old = std::mem::replace(&mut self.heads, huge_filled(buckets, NIL));
        self.shift = 64 - buckets.trailing_zeros();
        for mut i in old {
            while i != NIL {
                let key = self.nodes[i as usize].key;
                let next = self.nodes[i as usize].chain;
                let b = self.bucket(key);
                let head = self.heads[b];
                self.nodes[i as usize].chain = head;
                self.nodes[i as usize].chain_prev = NIL;
                if let Some(h) = self.nodes.get_mut(head as usize) {
                    h.chain_prev = i;
                }
                self.heads[b] = i;
                i = next;
            }
        }
    }

    #[inline]
    pub fn key(&self, idx: u32) -> u64 {
        self.nodes[idx as usize].key
    }

    #[inline]
    pub fn e(&self, idx: u32) -> &E {
        &self.nodes[idx as usize].e
    }

    #[inline]
    pub fn e_mut(&mut self, idx: u32) -> &mut E {
        &mut self.nodes[idx as usize].e
    }

    #[inline]
    pub fn push_head(&mut self, l: &mut List, idx: u32) {
        let n = &mut self.nodes[idx as usize];
        n.prev = NIL;
        n.next = l.head;
        if l.head != NIL {
            self.nodes[l.head as usize].prev = idx;
        } else {
            l.tail = idx;
        }
        l.head = idx;
        l.len += 1;
    }

    #[inline]
    pub fn unlink(&mut self, l: &mut List, idx: u32) {
        let (prev, next) = {
            let n = &self.nodes[idx as usize];
            (n.prev, n.next)
        };
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else {
            l.head = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        } else {
            l.tail = prev;
        }
        l.len -= 1;
    }

    #[inline]
    pub fn move_to_head(&mut self, l: &mut List, idx: u32) {
        if l.head != idx {
            self.unlink(l, idx);
            self.push_head(l, idx);
        }
    }

    /// Unlinks and returns the tail (oldest) node, if any.
    #[inline]
    pub fn pop_tail(&mut self, l: &mut List) -> Option<u32> {
        let t = l.tail;
        if t == NIL {
            return None;
        }
        self.unlink(l, t);
        Some(t)
    }

    /// Unlinks the tail node from `l`, forgets it and returns its key: the whole eviction of
    /// a single-queue policy (FIFO, LRU).
    #[inline]
    pub fn evict_tail(&mut self, l: &mut List) -> Option<u64> {
        let i = self.pop_tail(l)?;
        let k = self.key(i);
        self.release(i);
        Some(k)
    }

    /// Unlinks `key` from `l` and forgets it; false when it is not cached.
    #[inline]
    pub fn remove_from(&mut self, l: &mut List, key: u64) -> bool {
        match self.find(key) {
            Some(i) => {
                self.unlink(l, i);
                self.release(i);
                true
            }
            None => false,
        }
    }

    /// Previous (newer) neighbour, for hands that walk from tail to head.
    #[inline]
    pub fn prev(&self, idx: u32) -> u32 {
        self.nodes[idx as usize].prev
    }

    pub fn heap_bytes(&self) -> usize {
        self.heads.capacity() * 4
            + self.nodes.capacity() * std::mem::size_of::<Node<E>>()
            + self.free.capacity() * 4
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keymap_insert_remove_many_with_collisions() {
        let mut m = KeyMap::with_capacity(4);
        for k in 0..10_000u64 {
            m.insert(k * 4096, k as u32);
        }
        assert_eq!(m.len(), 10_000);
        for k in (0..10_000u64).step_by(3) {
            assert_eq!(m.remove(k * 4096), Some(k as u32));
        }
        for k in 0..10_000u64 {
            let want = if k % 3 == 0 { None } else { Some(k as u32) };
            assert_eq!(m.get(k * 4096), want, "key {k}");
        }
        assert_eq!(m.remove(3 * 4096), None);
    }

    #[test]
    fn release_unthreads_heads_middles_and_tails_of_chains() {
        // 3,000 keys through a table grown from 32 buckets: chains of several nodes, released
        // from the head, the middle and the end of their chains in turn, slots reused.
        let mut s: Store<u32> = Store::with_capacity(4);
        let idx: Vec<u32> = (0..3_000u64).map(|k| s.alloc(k << 20, k as u32)).collect();
        for (k, &i) in idx.iter().enumerate() {
            if k % 3 != 1 {
                s.release(i);
            }
        }
        assert_eq!(s.len(), 1_000);
        for k in 0..3_000u64 {
            let want = (k % 3 == 1).then(|| idx[k as usize]);
            assert_eq!(s.find(k << 20), want, "key {k}");
        }
        let again = s.alloc(5 << 20, 7);
        assert_eq!((s.find(5 << 20), *s.e(again)), (Some(again), 7));
        s.release(idx[4]);
        assert_eq!((s.find(4 << 20), s.find(5 << 20), s.len()), (None, Some(again), 1_000));
    }

    #[test]
    fn list_order_and_pop() {
        let mut s: Store<()> = Store::with_capacity(4);
        let mut l = List::default();
        let a = s.alloc(1, ());
        let b = s.alloc(2, ());
        let c = s.alloc(3, ());
        s.push_head(&mut l, a);
        s.push_head(&mut l, b);
        s.push_head(&mut l, c);
        s.move_to_head(&mut l, a);
        let mut order = Vec::new();
        while let Some(i) = s.pop_tail(&mut l) {
            order.push(s.key(i));
        }
        assert_eq!(order, vec![2, 3, 1]);
        assert_eq!(l.len, 0);
    }
}
