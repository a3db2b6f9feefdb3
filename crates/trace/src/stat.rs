//! `iolab trace stat`: what a storage engineer asks of a block trace before simulating it:
//! the read/write mix and bytes, the footprint (distinct blocks at a block size), reuse
//! distance and reuse time histograms, request sizes, and sequential streams with how many
//! were active at once (the "I/O blender" of many VMs or threads interleaving their
//! sequential runs on one device).
//!
//! Reuse *distance* (distinct blocks between two accesses to a block, the LRU stack distance)
//! needs a stack-distance engine; that lives in the model crate, so the caller passes it in as
//! a closure and this crate stays dependency-free. Reuse *time* is counted in block accesses.
//! Trims are counted but touch no blocks (they free data; a whole-device discard would
//! otherwise walk millions of blocks).
//!
//! A stream is a run of requests each starting exactly where an earlier request of the run
//! ended (same file), with at most `stream_window` requests between them. Streams of at least
//! two requests count; the concurrency is the number whose first..last request span covers a
//! given request, maximised and averaged over the trace.

use crate::TraceRecord;
use iolab_core::IoDir;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

mod streamtable;
pub use streamtable::{StreamTable, TableCurve, TablePoint, MAX_TABLE};

/// Counts in power-of-two buckets: `counts[i]` holds values in `[2^i, 2^(i+1))`, `counts[0]`
/// also holds 0.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Log2Histogram {
    pub counts: Vec<u64>,
}

impl Log2Histogram {
    pub fn add(&mut self, v: u64) {
        let i = if v == 0 { 0 } else { 63 - v.leading_zeros() as usize };
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DirCounts {
    pub requests: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct StreamSummary {
    /// Streams of two or more requests.
    pub streams: u64,
    /// Requests that continued a stream.
    pub sequential_requests: u64,
    pub max_concurrent: u64,
    /// Mean number of streams active at a request, over all requests.
    pub mean_concurrent: f64,
    /// Longest stream in requests and its bytes.
    pub longest_requests: u64,
    pub longest_bytes: u64,
    /// Requests that start where the request just before them (same file) ended: how
    /// sequential the trace looks in arrival order, before streams are told apart.
    pub arrival_sequential: u64,
    /// The longest streams, most requests first (at most [`TOP_STREAMS`]).
    pub top: Vec<StreamRow>,
    /// The stream-table curve: requests that continue a stream tracked in an LRU table of
    /// 1, 2, 4, … entries, and how many entries recover 90 % of the unbounded table's count.
    pub table: TableCurve,
}

/// Streams listed in [`StreamSummary::top`].
pub const TOP_STREAMS: usize = 10;

/// One sequential stream: where it starts, how long it is, when it ran (request indices).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StreamRow {
    pub file: u32,
    pub start: u64,
    pub requests: u64,
    pub bytes: u64,
    pub first_request: u64,
    pub last_request: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct TraceStats {
    pub format: String,
    pub block_size: u64,
    pub requests: u64,
    pub read: DirCounts,
    pub write: DirCounts,
    pub trim: DirCounts,
    pub sync: u64,
    pub skipped_malformed: u64,
    /// Distinct blocks touched (all directions) and the same in bytes.
    pub footprint_blocks: u64,
    pub footprint_bytes: u64,
    pub block_accesses: u64,
    /// Cold (first) block accesses; reuse histograms cover the rest.
    pub cold_block_accesses: u64,
    pub reuse_distance: Log2Histogram,
    pub reuse_time: Log2Histogram,
    pub request_size: Log2Histogram,
    pub duration_ns: u64,
    pub streams: StreamSummary,
}

struct Stream {
    file: u32,
    start: u64,
    first: u64,
    last: u64,
    requests: u64,
    bytes: u64,
}

/// Accumulates [`TraceStats`] one record at a time.
pub struct StatBuilder {
    s: TraceStats,
    last_access: HashMap<u64, u64>,
    window: u64,
    /// (file, end offset) → index into `streams`.
    open: HashMap<(u32, u64), usize>,
    streams: Vec<Stream>,
    first_time: Option<u64>,
    last_time: u64,
    /// (file, end) of the previous request, for arrival-order sequentiality.
    prev_end: Option<(u32, u64)>,
    table: StreamTable,
}

impl StatBuilder {
    /// `block_size` for footprint and reuse; `stream_window` in requests.
    pub fn new(format: &str, block_size: u64, stream_window: u64) -> Self {
        StatBuilder {
            s: TraceStats {
                format: format.to_string(),
                block_size: block_size.max(1),
                requests: 0,
                read: DirCounts::default(),
                write: DirCounts::default(),
                trim: DirCounts::default(),
                sync: 0,
                skipped_malformed: 0,
                footprint_blocks: 0,
                footprint_bytes: 0,
                block_accesses: 0,
                cold_block_accesses: 0,
                reuse_distance: Log2Histogram::default(),
                reuse_time: Log2Histogram::default(),
                request_size: Log2Histogram::default(),
                duration_ns: 0,
                streams: StreamSummary::default(),
            },
            last_access: HashMap::new(),
            window: stream_window.max(1),
            open: HashMap::new(),
            streams: Vec::new(),
            first_time: None,
            last_time: 0,
            prev_end: None,
            table: StreamTable::default(),
        }
    }

    /// Adds one record. `distance(key)` returns the LRU stack distance of an access to block
    /// `key` (None when first seen); it is called once per block access, in order.
    pub fn add(&mut self, rec: &TraceRecord, distance: &mut dyn FnMut(u64) -> Option<u64>) {
        let s = &mut self.s;
        let idx = s.requests;
        s.requests += 1;
        let first = *self.first_time.get_or_insert(rec.time_ns);
        self.last_time = self.last_time.max(rec.time_ns);
        s.duration_ns = self.last_time.saturating_sub(first);
        let r = &rec.req;
        let d = match r.dir {
            IoDir::Read => &mut s.read,
            IoDir::Write => &mut s.write,
            IoDir::Trim => &mut s.trim,
            IoDir::Sync => {
                s.sync += 1;
                return;
            }
        };
        d.requests += 1;
        d.bytes += r.len;
        s.request_size.add(r.len);
        // Trims free blocks rather than touch data, and a whole-device discard would walk
        // millions of blocks: only reads and writes count toward footprint and reuse.
        if r.len > 0 && r.dir != IoDir::Trim {
            let bs = s.block_size;
            let tag = (r.file as u64) << 48;
            for b in r.offset / bs..=r.offset.saturating_add(r.len - 1) / bs {
                let key = tag ^ b;
                let t = s.block_accesses;
                s.block_accesses += 1;
                let dist = distance(key);
                match self.last_access.insert(key, t) {
                    Some(prev) => {
                        s.reuse_time.add(t - prev);
                        if let Some(dd) = dist {
                            s.reuse_distance.add(dd);
                        }
                    }
                    None => s.cold_block_accesses += 1,
                }
            }
        }
        // Streams.
        self.table.add(r.file, r.offset, r.len);
        let key = (r.file, r.offset);
        let end = (r.file, r.offset.saturating_add(r.len));
        if self.prev_end.replace(end) == Some(key) {
            s.streams.arrival_sequential += 1;
        }
        match self.open.remove(&key) {
            Some(i) if idx - self.streams[i].last <= self.window => {
                let st = &mut self.streams[i];
                st.last = idx;
                st.requests += 1;
                st.bytes += r.len;
                s.streams.sequential_requests += 1;
                self.open.insert(end, i);
            }
            _ => {
                self.streams.push(Stream {
                    file: r.file,
                    start: r.offset,
                    first: idx,
                    last: idx,
                    requests: 1,
                    bytes: r.len,
                });
                self.open.insert(end, self.streams.len() - 1);
            }
        }
        if idx % self.window == 0 {
            let (streams, w) = (&self.streams, self.window);
            self.open.retain(|_, &mut i| idx - streams[i].last <= w);
        }
    }

    pub fn finish(mut self, skipped: u64) -> TraceStats {
        let s = &mut self.s;
        s.skipped_malformed = skipped;
        s.streams.table = self.table.finish();
        s.footprint_blocks = self.last_access.len() as u64;
        s.footprint_bytes = s.footprint_blocks * s.block_size;
        // Sweep stream spans for concurrency.
        let mut events: Vec<(u64, i64)> = Vec::new();
        for st in self.streams.iter().filter(|st| st.requests >= 2) {
            s.streams.streams += 1;
            if st.requests > s.streams.longest_requests {
                s.streams.longest_requests = st.requests;
                s.streams.longest_bytes = st.bytes;
            }
            events.push((st.first, 1));
            events.push((st.last + 1, -1));
        }
        events.sort_unstable();
        let (mut cur, mut max, mut area, mut prev) = (0i64, 0i64, 0f64, 0u64);
        for (t, delta) in events {
            area += cur as f64 * (t - prev) as f64;
            prev = t;
            cur += delta;
            max = max.max(cur);
        }
        s.streams.max_concurrent = max as u64;
        s.streams.mean_concurrent = if s.requests > 0 { area / s.requests as f64 } else { 0.0 };
        let mut long: Vec<&Stream> = self.streams.iter().filter(|st| st.requests >= 2).collect();
        long.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.first.cmp(&b.first)));
        s.streams.top = long
            .into_iter()
            .take(TOP_STREAMS)
            .map(|st| StreamRow {
                file: st.file,
                start: st.start,
                requests: st.requests,
                bytes: st.bytes,
                first_request: st.first,
                last_request: st.last,
            })
            .collect();
        self.s
    }
}

/// Above this many requests per second a trace's clock is taken to be in the wrong unit: a
/// few million IOPS is what one NVMe device sustains, and block traces come from one host.
pub const IMPLAUSIBLE_IOPS: f64 = 5e6;

impl TraceStats {
    /// The I/O blender verdict: how sequential the streams are against how sequential the
    /// arrival order is, and how many streams interleave. `None` with no sequential stream.
    pub fn blender_verdict(&self) -> Option<String> {
        let st = &self.streams;
        if st.streams == 0 {
            return None;
        }
        let pct = |n: u64| 100.0 * n as f64 / self.requests.max(1) as f64;
        let (by_stream, arrival) = (pct(st.sequential_requests), pct(st.arrival_sequential));
        let verdict = if st.max_concurrent >= 2 && by_stream >= 2.0 * arrival.max(1.0) {
            "blended: sequential streams reach the device interleaved, so it sees random I/O"
        } else if by_stream >= 50.0 {
            "not blended: the sequential streams arrive one after another"
        } else {
            "mostly random: few requests continue a stream in either view"
        };
        Some(format!(
            "I/O blender: {by_stream:.1} % of requests continue a stream, {arrival:.1} % continue \
             the request just before them; {} streams, up to {} interleaved (mean {:.2}): \
             {verdict}",
            st.streams, st.max_concurrent, st.mean_concurrent
        ))
    }

    /// The stream-table curve as one line (`None` when no request continues a stream): how
    /// many streams a prefetcher must follow to see 90 % of the sequentiality.
    pub fn stream_table_curve(&self) -> Option<String> {
        self.streams.table.text(self.requests)
    }

    /// The longest streams as a table (header and one line per stream).
    pub fn stream_table(&self) -> String {
        let mut o = format!(
            "top streams (of {}):\n  {:>4} {:>14} {:>9} {:>14} {:>11} {:>11}\n",
            self.streams.streams, "file", "start", "requests", "bytes", "first req", "last req"
        );
        for r in &self.streams.top {
            o.push_str(&format!(
                "  {:>4} {:>14} {:>9} {:>14} {:>11} {:>11}\n",
                r.file, r.start, r.requests, r.bytes, r.first_request, r.last_request
            ));
        }
        o
    }

    /// A warning when the timestamps cannot be in the unit the reader took them in: more
    /// than [`IMPLAUSIBLE_IOPS`], or every record at one instant.
    pub fn time_unit_check(&self) -> Option<String> {
        if self.requests < 2 {
            return None;
        }
        if self.duration_ns == 0 {
            return Some(format!(
                "time: all {} records carry the same timestamp: the trace has no timing",
                self.requests
            ));
        }
        let secs = self.duration_ns as f64 / 1e9;
        let iops = self.requests as f64 / secs;
        (iops > IMPLAUSIBLE_IOPS).then(|| {
            format!(
                "time: implausible unit: {} requests in {} is {:.1} M IOPS, more than one \
                 device does; the {} reader's time unit is probably wrong for this file (with \
                 1000x longer units it would span {})",
                self.requests,
                human_secs(secs),
                iops / 1e6,
                self.format,
                human_secs(secs * 1000.0)
            )
        })
    }
}

/// `0.007` → "7.0 ms", `7.0` → "7.00 s".
fn human_secs(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// Distinct blocks only (no reuse), for callers that want a quick footprint.
pub fn footprint(recs: &[TraceRecord], block_size: u64) -> u64 {
    let mut set = HashSet::new();
    for r in recs {
        if r.req.len == 0 || r.req.dir == IoDir::Trim {
            continue;
        }
        let tag = (r.req.file as u64) << 48;
        let last = r.req.offset.saturating_add(r.req.len - 1) / block_size;
        for b in r.req.offset / block_size..=last {
            set.insert(tag ^ b);
        }
    }
    set.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_core::IoRequest;

    fn rec(dir: IoDir, file: u32, offset: u64, len: u64) -> TraceRecord {
        TraceRecord { req: IoRequest::new(dir, file, offset, len), ..Default::default() }
    }

    #[test]
    fn two_interleaved_streams_and_reuse() {
        // Two sequential readers interleaved (A at 0.., B at 1 MiB..), then a re-read of A's
        // first block.
        let mut b = StatBuilder::new("test", 4096, 64);
        let mut none = |_k: u64| None;
        for i in 0..8u64 {
            b.add(&rec(IoDir::Read, 0, i * 4096, 4096), &mut none);
            b.add(&rec(IoDir::Write, 0, (1 << 20) + i * 8192, 8192), &mut none);
        }
        b.add(&rec(IoDir::Read, 0, 0, 4096), &mut |_| Some(24));
        b.add(&rec(IoDir::Sync, 0, 0, 0), &mut none);
        b.add(&rec(IoDir::Trim, 0, 0, 1 << 40), &mut none);
        let s = b.finish(0);
        assert_eq!((s.requests, s.read.requests, s.write.requests, s.sync), (19, 9, 8, 1));
        assert_eq!((s.trim.requests, s.trim.bytes), (1, 1 << 40));
        assert_eq!((s.read.bytes, s.write.bytes), (9 * 4096, 8 * 8192));
        assert_eq!(s.footprint_blocks, 8 + 16);
        assert_eq!((s.block_accesses, s.cold_block_accesses), (25, 24));
        // Reuse time of block 0: 24 block accesses later → bucket 4 ([16, 32)).
        assert_eq!(s.reuse_time.counts[4], 1);
        assert_eq!(s.reuse_distance.counts[4], 1);
        assert_eq!(s.streams.streams, 2);
        assert_eq!(s.streams.sequential_requests, 14);
        assert_eq!(s.streams.max_concurrent, 2);
        assert_eq!(s.request_size.counts[12], 9);
        assert_eq!(s.request_size.counts[13], 8);
        // A and B alternate, so no request starts where the one before it ended; per
        // stream, 14 of 19 continue one: the blender.
        assert_eq!(s.streams.arrival_sequential, 0);
        let top: Vec<(u64, u64, u64)> =
            s.streams.top.iter().map(|r| (r.start, r.requests, r.bytes)).collect();
        assert_eq!(top, [(0, 8, 32768), (1 << 20, 8, 65536)]);
        let v = s.blender_verdict().unwrap();
        assert!(v.contains("73.7 % of requests continue a stream, 0.0 %"), "{v}");
        assert!(v.contains("2 streams, up to 2 interleaved (mean 1.58): blended:"), "{v}");
        assert!(!v.contains("  "), "one line, single spaces: {v}");
        assert!(s.stream_table().contains("     0              0         8          32768"));
    }
}
