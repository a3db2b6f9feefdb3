//! A chain of cache tiers over a backing device (`--tier ram:1GiB:lru --tier
//! ssd:4GiB:smq:writeback --backing hdd:7200`): each tier is a block cache whose misses,
//! write-throughs and write-backs are the requests of the level below, as when a page cache
//! sits on dm-cache or bcache, or ARC on a pool. A tier filled from evictions (`fill=evict`)
//! is a victim cache like ZFS's L2ARC instead.
//!
//! [`Hierarchy::submit`] turns one request into a [`Plan`] of device commands and updates the
//! caches at submission time; the simulator (`crate::sim`) times the commands on the device
//! models. Write policies: write-through (both levels, together), write-back (dirty blocks,
//! written back when evicted, when the dirty share passes `dirty_ratio` — the writer waits,
//! as in Linux's `balance_dirty_pages` — by a flusher at `flush_rate`, and on `fsync` unless
//! the cache is battery-backed), write-around (below only; the cached copy is dropped).
//! Per-tier knobs from real systems: bcache's `sequential_cutoff`, dm-cache's
//! `migration_threshold` (promotions in flight), L2ARC's feed limit. Devices are numbered tier
//! 0..n, backing n.

pub mod spec;

use crate::block::{block_span, runs, DevReq, Plan};
use crate::device::Device;
use crate::policy::{self, store::KeyMap, store::List, store::Store, Access, Cache};
use iolab_core::{IoDir, IoRequest, Nanos};
use serde::Serialize;
pub use spec::{BackingSpec, Fill, TierSpec, WriteMode};

/// Counters of one tier (blocks unless named bytes).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TierStats {
    pub read_hits: u64,
    pub read_misses: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    pub promotions: u64,
    /// Promotions refused by the admission policy or the migration throttle.
    pub not_promoted: u64,
    pub evictions: u64,
    pub dirty_writebacks: u64,
    pub flushed_blocks: u64,
    pub bypassed_requests: u64,
    pub rmw_reads: u64,
    pub fed_blocks: u64,
    pub feed_dropped: u64,
    pub bytes_read_below: u64,
    pub bytes_written_below: u64,
}

impl TierStats {
    pub fn read_hit_ratio(&self) -> f64 {
        let n = self.read_hits + self.read_misses;
        if n == 0 {
            0.0
        } else {
            self.read_hits as f64 / n as f64
        }
    }
}

struct Tier {
    spec: TierSpec,
    cache: Box<dyn Cache>,
    dirty: Store<()>,
    dirty_list: List,
    dirty_limit: usize,
    stats: TierStats,
    /// Per stream: (end of the last request, bytes in the current sequential run).
    streams: Vec<(u32, u64, u64)>,
    migrating: u64,
    feed_left: u64,
    feed_window: u64,
    vtime: u64,
}

/// Backing-store counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BackingStats {
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Reads of never-written blocks answered with zeros without device I/O.
    pub zero_bytes: u64,
}

pub struct Hierarchy {
    tiers: Vec<Tier>,
    backing: BackingSpec,
    /// Written 4 KiB grains of the backing store (tracked only when it is sparse).
    written: KeyMap,
    pub backing_stats: BackingStats,
}

const GRAIN: u64 = 4096;

impl Hierarchy {
    /// The backing device's capacity in bytes (a preset's, a profile's measured target).
    pub fn backing_capacity(&self) -> u64 {
        self.backing.device.capacity()
    }

    pub fn new(tiers: Vec<TierSpec>, backing: BackingSpec) -> Result<Self, crate::ModelError> {
        spec::validate_chain(&tiers, &backing)?;
        let mut out = Vec::new();
        for t in tiers {
            let blocks = t.blocks();
            let cache = policy::build(&t.policy, blocks)?;
            out.push(Tier {
                dirty_limit: ((blocks as f64 * t.dirty_ratio) as usize).max(1),
                cache,
                dirty: Store::with_capacity(64),
                dirty_list: List::default(),
                stats: TierStats::default(),
                streams: Vec::new(),
                migrating: 0,
                feed_left: t.feed_max + t.feed_boost,
                feed_window: 0,
                vtime: 0,
                spec: t,
            });
        }
        Ok(Hierarchy {
            tiers: out,
            backing,
            written: KeyMap::with_capacity(64),
            backing_stats: BackingStats::default(),
        })
    }

    pub fn tier_count(&self) -> usize {
        self.tiers.len()
    }

    pub fn tier_spec(&self, i: usize) -> &TierSpec {
        &self.tiers[i].spec
    }

    pub fn tier_stats(&self, i: usize) -> &TierStats {
        &self.tiers[i].stats
    }

    /// Cached blocks / capacity of tier `i`.
    pub fn fill(&self, i: usize) -> f64 {
        let t = &self.tiers[i];
        t.cache.len() as f64 / t.cache.capacity().max(1) as f64
    }

    pub fn dirty_blocks(&self, i: usize) -> usize {
        self.tiers[i].dirty_list.len
    }

    pub fn backing_spec(&self) -> &BackingSpec {
        &self.backing
    }

    /// The device models, tier 0..n then the backing store.
    pub fn devices(&self) -> Vec<Box<dyn Device>> {
        let mut v: Vec<Box<dyn Device>> =
            self.tiers.iter().map(|t| t.spec.device.build(&t.spec.name)).collect();
        v.push(self.backing.device.build(&self.backing.name));
        v
    }

    /// Device work for one request from `stream` (a worker).
    pub fn submit(&mut self, req: &IoRequest, stream: u32, now: Nanos) -> Plan {
        match req.dir {
            IoDir::Read => self.read(0, req.offset, req.len, stream, now),
            IoDir::Write => self.write(0, req.offset, req.len, stream, now),
            IoDir::Trim => self.trim(req.offset, req.len),
            IoDir::Sync => self.sync(now),
        }
    }

    /// Periodic work (every few ms of simulated time): the write-back flushers.
    pub fn tick(&mut self, now: Nanos, since_last: Nanos) -> Vec<DevReq> {
        let mut bg = Vec::new();
        for level in 0..self.tiers.len() {
            let Some(rate) = self.tiers[level].spec.flush_bytes_per_sec else { continue };
            let bs = self.tiers[level].spec.block_size;
            let n = ((rate * since_last.as_secs_f64()) / bs as f64).round() as usize;
            if n > 0 && self.tiers[level].dirty_list.len > 0 {
                let p = self.flush(level, n, now);
                bg.extend(p.into_background());
            }
        }
        bg
    }

    /// A promotion copy finished (dm-cache migration accounting).
    pub fn migration_done(&mut self, tier: usize, bytes: u64) {
        if let Some(t) = self.tiers.get_mut(tier) {
            t.migrating = t.migrating.saturating_sub(bytes);
        }
    }

    fn dev_of(&self, level: usize) -> usize {
        level
    }

    fn bypass(&mut self, level: usize, offset: u64, len: u64, stream: u32) -> bool {
        let t = &mut self.tiers[level];
        let Some(cutoff) = t.spec.sequential_cutoff else { return false };
        let s = match t.streams.iter_mut().find(|s| s.0 == stream) {
            Some(s) => s,
            None => {
                t.streams.push((stream, u64::MAX, 0));
                t.streams.last_mut().unwrap_or_else(|| unreachable!())
            }
        };
        s.2 = if s.1 == offset { s.2 + len } else { len };
        s.1 = offset + len;
        let bypass = s.2 > cutoff;
        if bypass {
            t.stats.bypassed_requests += 1;
        }
        bypass
    }

    fn access(&mut self, level: usize, key: u64, write: bool) -> policy::Outcome {
        let t = &mut self.tiers[level];
        t.vtime += 1;
        let a = Access { key, vtime: t.vtime, next_access: policy::NEVER, write };
        if t.spec.fill == Fill::Evict && !t.cache.contains(key) {
            return policy::Outcome::default();
        }
        t.cache.get(&a)
    }

    fn read_backing(&mut self, offset: u64, len: u64) -> Plan {
        if self.backing.sparse {
            let (g0, g1) = block_span(offset, len, GRAIN);
            if (g0..=g1).all(|g| self.written.get(g).is_none()) {
                self.backing_stats.zero_bytes += len;
                return Plan::default();
            }
        }
        self.backing_stats.bytes_read += len;
        Plan::single(DevReq::new(self.tiers.len(), IoDir::Read, offset, len))
    }

    fn write_backing(&mut self, offset: u64, len: u64) -> Plan {
        if self.backing.sparse {
            let (g0, g1) = block_span(offset, len, GRAIN);
            for g in g0..=g1 {
                self.written.insert(g, 0);
            }
        }
        self.backing_stats.bytes_written += len;
        Plan::single(DevReq::new(self.tiers.len(), IoDir::Write, offset, len))
    }

    fn below_read(&mut self, level: usize, offset: u64, len: u64, stream: u32, now: Nanos) -> Plan {
        if level < self.tiers.len() {
            self.tiers[level].stats.bytes_read_below += len;
        }
        self.read(level + 1, offset, len, stream, now)
    }

    fn below_write(
        &mut self,
        level: usize,
        offset: u64,
        len: u64,
        stream: u32,
        now: Nanos,
    ) -> Plan {
        if level < self.tiers.len() {
            self.tiers[level].stats.bytes_written_below += len;
        }
        self.write(level + 1, offset, len, stream, now)
    }

    fn read(&mut self, level: usize, offset: u64, len: u64, stream: u32, now: Nanos) -> Plan {
        if level == self.tiers.len() {
            return self.read_backing(offset, len);
        }
        if self.bypass(level, offset, len, stream) {
            return self.read(level + 1, offset, len, stream, now);
        }
        let bs = self.tiers[level].spec.block_size;
        let (b0, b1) = block_span(offset, len, bs);
        if self.tiers[level].spec.metadata_only {
            // primarycache=metadata: every data read goes down, a whole record at a time.
            self.tiers[level].stats.read_misses += b1 - b0 + 1;
            return self.below_read(level, b0 * bs, (b1 - b0 + 1) * bs, stream, now);
        }
        let mut hit_blocks = 0u64;
        let mut missing = Vec::new();
        let mut promoted = Vec::new();
        let mut plan = Plan::default();
        for b in b0..=b1 {
            let o = self.access(level, b, false);
            if o.hit {
                hit_blocks += 1;
                self.tiers[level].stats.read_hits += 1;
                continue;
            }
            self.tiers[level].stats.read_misses += 1;
            missing.push(b);
            if o.admitted {
                promoted.push(b);
            } else {
                self.tiers[level].stats.not_promoted += 1;
            }
            if let Some(v) = o.evicted {
                self.evicted(level, v, stream, now, &mut plan);
            }
        }
        if hit_blocks > 0 {
            let dev = self.dev_of(level);
            plan.stages.push(vec![DevReq::new(dev, IoDir::Read, offset, len.min(hit_blocks * bs))]);
        }
        for (first, n) in runs(&missing) {
            let sub = self.below_read(level, first * bs, n * bs, stream, now);
            plan.merge_parallel(sub);
        }
        self.promote(level, &promoted, &mut plan);
        plan
    }

    /// Copies newly admitted blocks onto the tier's device (background), subject to
    /// dm-cache's migration throttle.
    fn promote(&mut self, level: usize, blocks: &[u64], plan: &mut Plan) {
        let bs = self.tiers[level].spec.block_size;
        let dev = self.dev_of(level);
        for (first, n) in runs(blocks) {
            let t = &mut self.tiers[level];
            let bytes = n * bs;
            if let Some(limit) = t.spec.migration_threshold {
                if t.migrating > 0 && t.migrating + bytes > limit {
                    for b in first..first + n {
                        t.cache.remove(b);
                    }
                    t.stats.not_promoted += n;
                    continue;
                }
                t.migrating += bytes;
            }
            t.stats.promotions += n;
            let mut r = DevReq::new(dev, IoDir::Write, first * bs, bytes);
            if t.spec.migration_threshold.is_some() {
                r.migration_of = Some(level);
            }
            plan.background.push(r);
        }
    }

    /// A block left tier `level`: write it back if dirty, feed it to a victim tier below.
    fn evicted(&mut self, level: usize, key: u64, stream: u32, now: Nanos, plan: &mut Plan) {
        let bs = self.tiers[level].spec.block_size;
        self.tiers[level].stats.evictions += 1;
        let was_dirty = self.undirty(level, key);
        if was_dirty {
            self.tiers[level].stats.dirty_writebacks += 1;
            let wb = self.below_write(level, key * bs, bs, stream, now);
            plan.background.extend(wb.into_background());
        }
        let next = level + 1;
        if next < self.tiers.len() && self.tiers[next].spec.fill == Fill::Evict && !was_dirty {
            self.feed(next, key * bs, bs, now, plan);
        }
    }

    /// L2ARC-style feed: at most `feed_max` (+ `feed_boost` while not yet full) per interval.
    fn feed(&mut self, level: usize, offset: u64, len: u64, now: Nanos, plan: &mut Plan) {
        let dev = self.dev_of(level);
        let t = &mut self.tiers[level];
        let window = now.0 / t.spec.feed_interval_ns.max(1);
        if window != t.feed_window {
            t.feed_window = window;
            let cold = t.cache.len() < t.cache.capacity();
            t.feed_left = t.spec.feed_max + if cold { t.spec.feed_boost } else { 0 };
        }
        if t.feed_left < len {
            t.stats.feed_dropped += 1;
            return;
        }
        t.feed_left -= len;
        let bs = t.spec.block_size;
        let (b0, b1) = block_span(offset, len, bs);
        for b in b0..=b1 {
            t.vtime += 1;
            let a = Access { key: b, vtime: t.vtime, next_access: policy::NEVER, write: false };
            t.cache.get(&a);
            t.stats.fed_blocks += 1;
        }
        plan.background.push(DevReq::new(dev, IoDir::Write, offset, len));
    }

    fn mark_dirty(&mut self, level: usize, key: u64) {
        let t = &mut self.tiers[level];
        if t.dirty.find(key).is_none() {
            let i = t.dirty.alloc(key, ());
            t.dirty.push_head(&mut t.dirty_list, i);
        }
    }

    fn undirty(&mut self, level: usize, key: u64) -> bool {
        let t = &mut self.tiers[level];
        match t.dirty.find(key) {
            Some(i) => {
                t.dirty.unlink(&mut t.dirty_list, i);
                t.dirty.release(i);
                true
            }
            None => false,
        }
    }

    /// Writes back the `n` oldest dirty blocks, sorted and coalesced into runs (an elevator
    /// pass, as the kernel's writeback and RAID controllers do).
    fn flush(&mut self, level: usize, n: usize, now: Nanos) -> Plan {
        let bs = self.tiers[level].spec.block_size;
        let mut keys = Vec::with_capacity(n);
        {
            let t = &mut self.tiers[level];
            while keys.len() < n {
                let Some(i) = t.dirty.pop_tail(&mut t.dirty_list) else { break };
                keys.push(t.dirty.key(i));
                t.dirty.release(i);
            }
            t.stats.flushed_blocks += keys.len() as u64;
        }
        keys.sort_unstable();
        let mut plan = Plan::default();
        for (first, cnt) in runs(&keys) {
            let sub = self.below_write(level, first * bs, cnt * bs, u32::MAX, now);
            // One stage: the runs go to the device together so it can order them.
            let flat = sub.into_background();
            if plan.stages.is_empty() {
                plan.stages.push(Vec::new());
            }
            plan.stages[0].extend(flat);
        }
        plan
    }

    fn write(&mut self, level: usize, offset: u64, len: u64, stream: u32, now: Nanos) -> Plan {
        if level == self.tiers.len() {
            return self.write_backing(offset, len);
        }
        let bypass = self.bypass(level, offset, len, stream);
        let spec = &self.tiers[level].spec;
        let mode = spec.write;
        if bypass || mode == WriteMode::WriteAround || spec.metadata_only {
            return self.write_around(level, offset, len, stream, now);
        }
        let bs = spec.block_size;
        let mut plan = Plan::default();
        let rmw = self.write_blocks(level, offset, len, stream, now, &mut plan);
        // Read-modify-write of partially written blocks that were not cached.
        let mut pre = Plan::default();
        for (first, n) in runs(&rmw) {
            self.tiers[level].stats.rmw_reads += n;
            pre.merge_parallel(self.below_read(level, first * bs, n * bs, stream, now));
        }
        let this = self.write_on(level, offset, len, stream, now);
        pre.then(this);
        pre.background.append(&mut plan.background);
        pre
    }

    /// A write that is not cached at `level` (bypassed, write-around, or a metadata-only
    /// tier): cached copies of its blocks are dropped and it goes below, whole records for
    /// a metadata-only tier.
    fn write_around(
        &mut self,
        level: usize,
        offset: u64,
        len: u64,
        stream: u32,
        now: Nanos,
    ) -> Plan {
        let bs = self.tiers[level].spec.block_size;
        let (b0, b1) = block_span(offset, len, bs);
        let (start, end) = (b0 * bs, (b1 + 1) * bs);
        let mut plan = Plan::default();
        for b in b0..=b1 {
            if self.tiers[level].cache.remove(b) {
                self.undirty(level, b);
            }
        }
        if self.tiers[level].spec.metadata_only && (offset > start || offset + len < end) {
            // A partial record must be read before the whole record is rewritten.
            self.tiers[level].stats.rmw_reads += 1;
            plan.then(self.below_read(level, start, end - start, stream, now));
            plan.then(self.below_write(level, start, end - start, stream, now));
            return plan;
        }
        plan.then(self.below_write(level, offset, len, stream, now));
        plan
    }

    /// Each block of a cached write: counted as a hit or a miss, admitted (its eviction's
    /// write-back into `plan`), marked dirty under write-back. Returns the partially written
    /// edge blocks that were admitted without being cached (they need a read first).
    fn write_blocks(
        &mut self,
        level: usize,
        offset: u64,
        len: u64,
        stream: u32,
        now: Nanos,
        plan: &mut Plan,
    ) -> Vec<u64> {
        let bs = self.tiers[level].spec.block_size;
        let mode = self.tiers[level].spec.write;
        let (b0, b1) = block_span(offset, len, bs);
        let partial_head = offset > b0 * bs;
        let partial_tail = offset + len < (b1 + 1) * bs;
        let mut rmw = Vec::new();
        for b in b0..=b1 {
            let o = self.access(level, b, true);
            if o.hit {
                self.tiers[level].stats.write_hits += 1;
            } else {
                self.tiers[level].stats.write_misses += 1;
                let edge = (b == b0 && partial_head) || (b == b1 && partial_tail);
                if edge && o.admitted {
                    rmw.push(b);
                }
                if !o.admitted {
                    self.tiers[level].stats.not_promoted += 1;
                }
            }
            if let Some(v) = o.evicted {
                self.evicted(level, v, stream, now, plan);
            }
            if mode == WriteMode::WriteBack && self.tiers[level].cache.contains(b) {
                self.mark_dirty(level, b);
            }
        }
        rmw
    }

    /// The cached write itself at `level` and what it causes below: the write below it too
    /// (write-through), or a write-back batch first when dirty blocks are over the limit
    /// (the kernel's `balance_dirty_pages`), plus the blocks the policy did not admit.
    fn write_on(&mut self, level: usize, offset: u64, len: u64, stream: u32, now: Nanos) -> Plan {
        let bs = self.tiers[level].spec.block_size;
        let mode = self.tiers[level].spec.write;
        let dev = self.dev_of(level);
        let mut this = Plan::single(DevReq::new(dev, IoDir::Write, offset, len));
        match mode {
            WriteMode::WriteThrough => {
                let below = self.below_write(level, offset, len, stream, now);
                this.merge_parallel(below);
            }
            WriteMode::WriteBack => {
                let t = &self.tiers[level];
                if t.dirty_list.len > t.dirty_limit {
                    // balance_dirty_pages: the writer waits for a batch of write-back.
                    let batch = (t.dirty_limit / 4).max(t.dirty_list.len - t.dirty_limit);
                    let mut f = self.flush(level, batch, now);
                    f.then(this);
                    this = f;
                }
            }
            WriteMode::WriteAround => {}
        }
        if mode == WriteMode::WriteBack {
            // Uncached blocks not admitted (e.g. smq) still have to reach the device below.
            let (b0, b1) = block_span(offset, len, bs);
            let unadmitted: Vec<u64> =
                (b0..=b1).filter(|b| !self.tiers[level].cache.contains(*b)).collect();
            for (first, n) in runs(&unadmitted) {
                let lo = (first * bs).max(offset);
                let hi = ((first + n) * bs).min(offset + len);
                this.merge_parallel(self.below_write(level, lo, hi - lo, stream, now));
            }
        }
        this
    }

    fn trim(&mut self, offset: u64, len: u64) -> Plan {
        for level in 0..self.tiers.len() {
            let bs = self.tiers[level].spec.block_size;
            let (b0, b1) = block_span(offset, len, bs);
            for b in b0..=b1 {
                self.tiers[level].cache.remove(b);
                self.undirty(level, b);
            }
        }
        Plan::single(DevReq::new(self.tiers.len(), IoDir::Trim, offset, len))
    }

    /// fsync: volatile write-back tiers must write everything dirty first.
    fn sync(&mut self, now: Nanos) -> Plan {
        let mut plan = Plan::default();
        for level in 0..self.tiers.len() {
            let t = &self.tiers[level];
            if t.spec.write == WriteMode::WriteBack && !t.spec.battery_backed {
                let n = t.dirty_list.len;
                plan.merge_parallel(self.flush(level, n, now));
            }
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::spec::{parse_backing, parse_tier};
    use super::*;

    fn h(tiers: &[&str], backing: &str) -> Hierarchy {
        let t = tiers.iter().enumerate().map(|(i, s)| parse_tier(s, i).unwrap()).collect();
        Hierarchy::new(t, parse_backing(backing).unwrap()).unwrap()
    }

    fn req(dir: IoDir, offset: u64, len: u64) -> IoRequest {
        IoRequest::new(dir, 0, offset, len)
    }

    #[test]
    fn bcache_sequential_cutoff_bypasses_long_streams() {
        let mut x = h(&["ssd:1GiB:lru:sequential_cutoff=4MiB"], "hdd:7200");
        for i in 0..2048u64 {
            x.submit(&req(IoDir::Read, i * 4096, 4096), 1, Nanos::ZERO); // 8 MiB stream
        }
        // The first 4 MiB (1024 reads) are cached, the rest bypass the tier.
        assert_eq!(x.tier_stats(0).bypassed_requests, 1024);
        assert_eq!(x.tiers[0].cache.len(), 1024);
        // A random read from another stream is not affected.
        x.submit(&req(IoDir::Read, 900 << 20, 4096), 2, Nanos::ZERO);
        assert_eq!(x.tiers[0].cache.len(), 1025);
    }

    #[test]
    fn l2arc_feed_is_rate_limited_and_fed_by_evictions() {
        let mut x =
            h(&["ram:1MiB:lru:block=128KiB", "nvme:64MiB:lru:block=128KiB:fill=evict"], "hdd:7200");
        // 64 distinct records through an 8-record ARC: 56 evictions, all in the first second.
        for i in 0..64u64 {
            x.submit(&req(IoDir::Read, i << 17, 4096), 0, Nanos::ZERO);
        }
        let s = x.tier_stats(1);
        // l2arc_write_max 8 MiB + boost 8 MiB while cold = 128 records of 128 KiB per second.
        assert_eq!(s.fed_blocks, 56);
        assert_eq!(s.read_misses, 64, "L2ARC is looked up but never filled on a miss");
        let mut y = h(
            &[
                "ram:1MiB:lru:block=128KiB",
                "nvme:64MiB:lru:block=128KiB:fill=evict:feed_max=1MiB:feed_boost=0",
            ],
            "hdd:7200",
        );
        for i in 0..64u64 {
            y.submit(&req(IoDir::Read, i << 17, 4096), 0, Nanos::ZERO);
        }
        assert_eq!(y.tier_stats(1).fed_blocks, 8);
        assert_eq!(y.tier_stats(1).feed_dropped, 48);
    }

    #[test]
    fn dm_cache_migration_threshold_skips_promotions_in_flight() {
        let mut x = h(&["ssd:1GiB:lru:block=256KiB:migration_threshold=1MiB"], "hdd:7200");
        for i in 0..10u64 {
            x.submit(&req(IoDir::Read, i << 20, 4096), 0, Nanos::ZERO);
        }
        // 1 MiB in flight allows 4 promotions of 256 KiB; the others are refused.
        assert_eq!(x.tier_stats(0).promotions, 4);
        assert_eq!(x.tier_stats(0).not_promoted, 6);
        x.migration_done(0, 1 << 20);
        x.submit(&req(IoDir::Read, 50 << 20, 4096), 0, Nanos::ZERO);
        assert_eq!(x.tier_stats(0).promotions, 5);
    }

    #[test]
    fn write_around_invalidates_and_sparse_backing_reads_zeros() {
        let mut x = h(&["ram:16MiB:lru:writearound"], "hdd:7200:sparse");
        let p = x.submit(&req(IoDir::Read, 0, 4096), 0, Nanos::ZERO);
        assert_eq!(p.bytes_on(1, IoDir::Read), 0, "never-written block: zeros, no disk read");
        assert_eq!(x.backing_stats.zero_bytes, 4096);
        let w = x.submit(&req(IoDir::Write, 0, 4096), 0, Nanos::ZERO);
        assert_eq!(w.bytes_on(1, IoDir::Write), 4096);
        assert!(!x.tiers[0].cache.contains(0), "write-around drops the cached copy");
        let r = x.submit(&req(IoDir::Read, 0, 4096), 0, Nanos::ZERO);
        assert_eq!(r.bytes_on(1, IoDir::Read), 4096);
    }

    #[test]
    fn volatile_writeback_flushes_on_fsync_battery_backed_does_not() {
        let mut v = h(&["ram:16MiB:lru:writeback"], "hdd:7200");
        let mut b = h(&["ram:16MiB:lru:writeback:battery=true"], "hdd:7200");
        for x in [&mut v, &mut b] {
            x.submit(&req(IoDir::Write, 0, 65536), 0, Nanos::ZERO);
        }
        let pv = v.submit(&req(IoDir::Sync, 0, 0), 0, Nanos::ZERO);
        let pb = b.submit(&req(IoDir::Sync, 0, 0), 0, Nanos::ZERO);
        assert_eq!(pv.bytes_on(1, IoDir::Write), 65536);
        assert!(pb.is_empty());
        assert_eq!(v.dirty_blocks(0), 0);
        assert_eq!(b.dirty_blocks(0), 16);
    }
}
