//! Eviction policies: one file per algorithm behind one [`Policy`] trait, and one registry
//! table ([`POLICIES`]) that maps a name to a constructor.
//!
//! The shape follows libCacheSim's `cache_get_base()` (`libCacheSim/cache/cache.c`): *find*
//! (a hit updates the policy's metadata), then on a miss *admit?*, *evict* until there is room,
//! *insert*. Every policy here counts objects of size 1 (a cache block or a trace object), which
//! is what libCacheSim's `--ignore-obj-size 1` simulates and what a block cache is.
//!
//! Policies are generic in hot loops (`P: Policy`) and `dyn Cache` when chosen by name.
//!
//! ```
//! use iolab_model::policy::{build, Access};
//! let mut lru = build("lru", 2).unwrap();
//! for k in [1, 2, 1, 3] {
//!     lru.get(&Access::new(k));
//! }
//! assert!(lru.contains(1) && lru.contains(3) && !lru.contains(2));
//! ```

pub mod arc;
pub mod belady;
pub mod clock;
pub mod fifo;
pub mod lfu;
pub mod lirs;
pub mod lru;
pub(crate) mod mem;
pub mod s3fifo;
pub mod sieve;
pub mod smq;
pub mod store;
pub mod twoq;
pub mod wtinylfu;

use crate::error::ModelError;

/// Next-access time meaning "never again" (oracleGeneral's `-1`).
pub const NEVER: u64 = u64::MAX;

/// One request as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Object or cache-block id.
    pub key: u64,
    /// Logical time (request index), for policies that age by time.
    pub vtime: u64,
    /// Logical time of the next request for `key` ([`NEVER`] if none); Belady only.
    pub next_access: u64,
    /// Whether the request writes (smq promotes writes less eagerly than reads).
    pub write: bool,
}

impl Access {
    pub fn new(key: u64) -> Self {
        Access { key, vtime: 0, next_access: NEVER, write: false }
    }
}

/// What one access did to the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub hit: bool,
    /// On a miss: whether the key was inserted (admission filters may refuse it).
    pub admitted: bool,
    /// The key pushed out to make room, if any (size-1 objects: at most one per access).
    pub evicted: Option<u64>,
}

/// A policy's per-entry state (foyer's associated `Eviction::State`): what the policy keeps
/// beside each key in its [`store::Store`] slab, e.g. which queue holds it and its counter.
pub trait PolicyEntry {
    /// Whether the entry is a cached object; `false` for history-only (ghost) keys, which
    /// [`Policy::contains`] and [`Policy::remove`] do not count.
    #[inline]
    fn resident(&self) -> bool {
        true
    }
}

impl PolicyEntry for () {}
impl PolicyEntry for bool {}
impl PolicyEntry for u8 {}
impl PolicyEntry for u32 {}
impl PolicyEntry for u64 {}

/// An eviction policy over size-1 objects.
///
/// Implementors supply the four steps of [`Policy::access`] (the shared template), their
/// counts, their [`store::Store`] of [`Policy::Entry`] and how to unlink one entry
/// ([`Policy::forget`]); lookups without side effects, removal, memory and prefetch are
/// provided here once from the store.
pub trait Policy {
    /// Per-entry state kept beside each key in the policy's slab.
    type Entry: PolicyEntry;

    fn name(&self) -> &'static str;
    /// The key table and node slab holding every entry (cached and ghost).
    fn store(&self) -> &store::Store<Self::Entry>;
    /// Unlinks node `idx` from whichever of the policy's queues holds it and frees it.
    fn forget(&mut self, idx: u32);
    /// Heap bytes held besides the store (sketches, heaps, frequency buckets).
    fn extra_heap_bytes(&self) -> usize {
        0
    }
    /// Maximum number of cached (non-ghost) objects.
    fn capacity(&self) -> usize;
    /// Cached (non-ghost) objects now.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Looks `a.key` up; a hit updates recency/frequency. A miss may record ghost state that
    /// the following `evict`/`insert` use.
    fn find(&mut self, a: &Access) -> bool;
    /// Admission filter for a missed key (default: admit everything).
    fn admit(&mut self, _a: &Access) -> bool {
        true
    }
    /// Frees one slot; returns the key that left the cache (`None` if nothing could leave).
    fn evict(&mut self, a: &Access) -> Option<u64>;
    /// Inserts the missed key; there is room.
    fn insert(&mut self, a: &Access);
    /// Drops `key` (invalidation); returns whether it was cached (a ghost is dropped too).
    fn remove(&mut self, key: u64) -> bool {
        let Some(i) = self.store().find(key) else { return false };
        let resident = self.store().e(i).resident();
        self.forget(i);
        resident
    }
    /// Whether `key` is cached, without touching metadata.
    fn contains(&self, key: u64) -> bool {
        let s = self.store();
        s.find(key).is_some_and(|i| s.e(i).resident())
    }
    /// Heap bytes held (for memory comparisons).
    fn heap_bytes(&self) -> usize {
        self.store().heap_bytes() + self.extra_heap_bytes()
    }
    /// Cache-line hint for a key about to be accessed (a few requests ahead); never changes
    /// results. Default: the key's table bucket.
    #[inline]
    fn prefetch(&self, key: u64) {
        self.store().prefetch(key);
    }
    /// Second-stage hint, [`PREFETCH_NODE`] accesses ahead: the key's node (its bucket was
    /// asked for by [`Policy::prefetch`] earlier). Never changes results.
    #[inline]
    fn prefetch_entry(&self, key: u64) {
        self.store().prefetch_node(key);
    }
    /// Last-stage hint, [`PREFETCH_NEAR`] accesses ahead: what the access itself will touch
    /// next to the node (list neighbours, eviction tails). Default: nothing.
    #[inline]
    fn prefetch_near(&self, _key: u64) {}

    /// find → admit → evict → insert. Always inlined: as a call it cost ~17 instructions of
    /// register saves per request in `get_batch` (callgrind).
    #[inline(always)]
    fn access(&mut self, a: &Access) -> Outcome {
        if self.find(a) {
            return Outcome { hit: true, admitted: false, evicted: None };
        }
        if self.capacity() == 0 || !self.admit(a) {
            return Outcome::default();
        }
        let mut evicted = None;
        while self.len() >= self.capacity() {
            match self.evict(a) {
                Some(k) => evicted = Some(k),
                None => break,
            }
        }
        self.insert(a);
        Outcome { hit: false, admitted: true, evicted }
    }
}

/// Object-safe face of a [`Policy`], for policies chosen by name at run time.
pub trait Cache {
    fn name(&self) -> &'static str;
    fn get(&mut self, a: &Access) -> Outcome;
    fn remove(&mut self, key: u64) -> bool;
    fn contains(&self, key: u64) -> bool;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn capacity(&self) -> usize;
    fn heap_bytes(&self) -> usize;
    /// See [`Policy::prefetch`].
    fn prefetch(&self, _key: u64) {}
    /// `get` for each access in order; returns the misses. One dynamic call per batch, and
    /// each key's table slot is prefetched [`BATCH_LOOKAHEAD`] accesses ahead, so a table
    /// bigger than the caches does not wait on DRAM every request. Same results as `get`.
    fn get_batch(&mut self, batch: &[Access]) -> u64 {
        batch.iter().map(|a| u64::from(!self.get(a).hit)).sum()
    }
}

/// How far ahead [`Cache::get_batch`] prefetches a key's bucket ([`Policy::prefetch`]).
pub const BATCH_LOOKAHEAD: usize = 16;
/// How far ahead it prefetches the key's node ([`Policy::prefetch_entry`]).
pub const PREFETCH_NODE: usize = 8;
/// How far ahead it prefetches what the access touches beside the node
/// ([`Policy::prefetch_near`]).
pub const PREFETCH_NEAR: usize = 3;

impl<P: Policy> Cache for P {
    fn name(&self) -> &'static str {
        Policy::name(self)
    }
    #[inline]
    fn get(&mut self, a: &Access) -> Outcome {
        self.access(a)
    }
    fn remove(&mut self, key: u64) -> bool {
        Policy::remove(self, key)
    }
    fn contains(&self, key: u64) -> bool {
        Policy::contains(self, key)
    }
    fn len(&self) -> usize {
        Policy::len(self)
    }
    fn capacity(&self) -> usize {
        Policy::capacity(self)
    }
    fn heap_bytes(&self) -> usize {
        Policy::heap_bytes(self)
    }
    #[inline]
    fn prefetch(&self, key: u64) {
        Policy::prefetch(self, key)
    }
    fn get_batch(&mut self, batch: &[Access]) -> u64 {
        // A three-stage software pipeline: bucket, then node, then neighbours, each stage
        // reading what the previous one brought into cache (the trace is read ahead). The
        // main loop walks windows of `BATCH_LOOKAHEAD + 1` accesses, so the three look-ahead
        // reads need no bounds checks (they cost a third of the loop's instructions as
        // `batch.get(i + d)`); the last `BATCH_LOOKAHEAD` accesses run with shorter look-ahead.
        for a in batch.iter().take(BATCH_LOOKAHEAD) {
            Policy::prefetch(self, a.key);
        }
        for a in batch.iter().take(PREFETCH_NODE) {
            Policy::prefetch_entry(self, a.key);
        }
        let mut misses = 0;
        for w in batch.windows(BATCH_LOOKAHEAD + 1) {
            if let [a, .., b] = w {
                Policy::prefetch(self, b.key);
                Policy::prefetch_entry(self, w[PREFETCH_NODE].key);
                Policy::prefetch_near(self, w[PREFETCH_NEAR].key);
                misses += u64::from(!self.access(a).hit);
            }
        }
        let rest = batch.len().saturating_sub(BATCH_LOOKAHEAD);
        let tail = batch.get(rest..).unwrap_or(&[]);
        for (i, a) in tail.iter().enumerate() {
            if let Some(n) = tail.get(i + PREFETCH_NODE) {
                Policy::prefetch_entry(self, n.key);
            }
            if let Some(n) = tail.get(i + PREFETCH_NEAR) {
                Policy::prefetch_near(self, n.key);
            }
            misses += u64::from(!self.access(a).hit);
        }
        misses
    }
}

/// One registry row.
pub struct PolicyInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Source and default parameters, shown by `iolab sim --list-policies`.
    pub about: &'static str,
    /// Whether it needs next-access times (oracleGeneral or a pre-pass).
    pub offline: bool,
    pub ctor: fn(usize) -> Box<dyn Cache>,
}

/// Every policy iolab knows. Adding one is a new file and one row here.
pub static POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "lru",
        aliases: &[],
        about: "least recently used",
        offline: false,
        ctor: |c| Box::new(lru::Lru::new(c)),
    },
    PolicyInfo {
        name: "fifo",
        aliases: &[],
        about: "first in, first out",
        offline: false,
        ctor: |c| Box::new(fifo::Fifo::new(c)),
    },
    PolicyInfo {
        name: "clock",
        aliases: &["second-chance"],
        about: "CLOCK with a 1-bit counter (libCacheSim n-bit-counter=1)",
        offline: false,
        ctor: |c| Box::new(clock::Clock::new(c, 1)),
    },
    PolicyInfo {
        name: "sieve",
        aliases: &[],
        about: "SIEVE, Zhang et al. NSDI'24",
        offline: false,
        ctor: |c| Box::new(sieve::Sieve::new(c)),
    },
    PolicyInfo {
        name: "s3fifo",
        aliases: &["s3-fifo"],
        about: "S3-FIFO, Yang et al. SOSP'23; small 10%, ghost 90%, move-to-main threshold 2",
        offline: false,
        ctor: |c| Box::new(s3fifo::S3Fifo::new(c, s3fifo::S3FifoParams::default())),
    },
    PolicyInfo {
        name: "arc",
        aliases: &[],
        about: "ARC, Megiddo & Modha FAST'03",
        offline: false,
        ctor: |c| Box::new(arc::Arc::new(c)),
    },
    PolicyInfo {
        name: "2q",
        aliases: &["twoq"],
        about: "2Q, Johnson & Shasha VLDB'94; Kin 25%, Kout 50%",
        offline: false,
        ctor: |c| Box::new(twoq::TwoQ::new(c, 0.25, 0.5)),
    },
    PolicyInfo {
        name: "lfu",
        aliases: &[],
        about: "least frequently used, O(1) frequency buckets, ties evict the oldest",
        offline: false,
        ctor: |c| Box::new(lfu::Lfu::new(c)),
    },
    PolicyInfo {
        name: "lirs",
        aliases: &[],
        about: "LIRS, Jiang & Zhang SIGMETRICS'02; HIR 1%",
        offline: false,
        ctor: |c| Box::new(lirs::Lirs::new(c, 0.01)),
    },
    PolicyInfo {
        name: "wtinylfu",
        aliases: &["w-tinylfu", "tinylfu"],
        about: "W-TinyLFU, Einziger et al. TOS'17; window 1%, SLRU main 80% protected",
        offline: false,
        ctor: |c| Box::new(wtinylfu::WTinyLfu::new(c, 0.01)),
    },
    PolicyInfo {
        name: "smq",
        aliases: &["dm-cache", "mq"],
        about: "dm-cache smq (drivers/md/dm-cache-policy-smq.c), 64 levels, hotspot filter",
        offline: false,
        ctor: |c| Box::new(smq::Smq::new(c)),
    },
    PolicyInfo {
        name: "belady",
        aliases: &["opt", "optimal"],
        about: "Belady's OPT (offline: evicts the farthest next access)",
        offline: true,
        ctor: |c| Box::new(belady::Belady::new(c)),
    },
];

/// Looks a policy up by name or alias (case-insensitive).
pub fn lookup(name: &str) -> Result<&'static PolicyInfo, ModelError> {
    let n = name.to_ascii_lowercase();
    POLICIES.iter().find(|p| p.name == n || p.aliases.contains(&n.as_str())).ok_or_else(|| {
        ModelError::UnknownPolicy {
            name: name.to_string(),
            known: POLICIES.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        }
    })
}

/// Builds the named policy with room for `capacity` objects.
pub fn build(name: &str, capacity: usize) -> Result<Box<dyn Cache>, ModelError> {
    Ok((lookup(name)?.ctor)(capacity))
}

/// Fills in `next_access` for a request sequence (backward pass), as oracleGeneral stores it:
/// the index of the next request to the same key, or [`NEVER`].
pub fn next_access_times(keys: &[u64]) -> Vec<u64> {
    let mut out = vec![NEVER; keys.len()];
    let mut last = store::KeyMap::with_capacity(1024);
    for (i, &k) in keys.iter().enumerate().rev() {
        if let Some(j) = last.get(k) {
            out[i] = u64::from(j);
        }
        last.insert(k, i as u32);
    }
    out
}
