//! Object-level policy simulation of a trace, as libCacheSim's `cachesim --ignore-obj-size 1`
//! does (`bin/cachesim`, `simulator.c`): every object has size 1, one streaming pass per
//! (policy, cache size), miss counts and ratios.
//!
//! A pass is two threads: one reads and decodes the trace into batches of accesses, the other
//! only simulates (`replay`, through [`iolab_trace::ahead`]); reading (the kernel's copy of the
//! file) and decoding were a fifth of an LRU replay on one thread (perf).

use crate::policy::{self, Access};
use crate::SimError;
use iolab_trace::ahead::TracePath;
use iolab_trace::{ObjectRequest, ReaderConfig};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// One (policy, cache size) pass.
#[derive(Clone, Debug, Serialize)]
pub struct ObjectRow {
    pub policy: String,
    pub cache_size: usize,
    pub requests: u64,
    pub misses: u64,
    pub miss_ratio: f64,
    pub requests_per_sec: f64,
    pub heap_bytes: usize,
}

/// Cache sizes in objects from a comma-separated list (`1000,10000`).
pub fn parse_sizes(list: &str) -> Result<Vec<usize>, SimError> {
    list.split(',')
        .map(|s| match s.trim().parse::<usize>() {
            Ok(v) if v > 0 => Ok(v),
            _ => Err(SimError::ObjectCount(s.trim().to_string())),
        })
        .collect()
}

/// Every policy of `policies` at every size of `sizes` over the trace at `path`.
pub fn simulate_objects(
    path: &Path,
    format: Option<&str>,
    policies: &[&str],
    sizes: &[usize],
) -> Result<Vec<ObjectRow>, SimError> {
    for p in policies {
        policy::lookup(p)?;
    }
    // Object ids are keys here, not LBNs: no conversion to byte offsets (which could overflow).
    let cfg = ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() };
    let trace_format = iolab_trace::open(path, format, &cfg)?.format();
    for p in policies {
        if policy::lookup(p)?.offline && trace_format != "oracleGeneral" {
            let (policy, format) = (p.to_string(), trace_format.to_string());
            return Err(SimError::NeedsOracle { policy, format });
        }
    }
    // One streaming pass per (policy, size), as libCacheSim's cachesim does: memory stays
    // the cache's own, and the timing includes reading the trace.
    let mut rows = Vec::new();
    for p in policies {
        for &size in sizes {
            rows.push(one_pass(path, format, &cfg, p, size)?);
        }
    }
    Ok(rows)
}

fn one_pass(
    path: &Path,
    format: Option<&str>,
    cfg: &ReaderConfig,
    p: &str,
    size: usize,
) -> Result<ObjectRow, SimError> {
    let mut c = policy::build(p, size)?;
    let t0 = std::time::Instant::now();
    let (n, misses) = replay(TracePath { path, format, cfg }, c.as_mut())?;
    let secs = t0.elapsed().as_secs_f64();
    Ok(ObjectRow {
        policy: c.name().to_string(),
        cache_size: size,
        requests: n,
        misses,
        miss_ratio: misses as f64 / n.max(1) as f64,
        requests_per_sec: n as f64 / secs.max(1e-9),
        heap_bytes: c.heap_bytes(),
    })
}

/// Records per batch: one dynamic call each to the reader and the policy per batch, and a long
/// batch keeps the policy's prefetch pipeline's start-up rare.
const BATCH: usize = 4096;

/// Appends the next batch of `r` to `batch` as accesses numbered from `vtime`. The reader
/// decodes only the object view of each record.
fn next_batch(
    r: &mut dyn iolab_trace::TraceReader,
    recs: &mut [ObjectRequest],
    batch: &mut Vec<Access>,
    vtime: u64,
) -> Result<usize, SimError> {
    let k = r.read_objects(recs)?;
    batch.extend(recs[..k].iter().zip(vtime..).map(|(rec, vtime)| {
        // oracleGeneral's next access is a 1-based request number; -1 is never.
        let next = rec.next_access;
        let next_access = if next > 0 { next as u64 - 1 } else { policy::NEVER };
        Access { key: rec.obj_id, vtime, next_access, write: rec.write }
    }));
    Ok(k)
}

/// Replays the trace at `src` through `c`, reading and decoding it on a second thread
/// ([`iolab_trace::ahead`]) so this one only simulates. Returns (requests, misses).
fn replay(src: TracePath<'_>, c: &mut dyn policy::Cache) -> Result<(u64, u64), SimError> {
    let mut recs = vec![ObjectRequest::default(); BATCH];
    let mut vtime = 0u64;
    let fill = move |r: &mut dyn iolab_trace::TraceReader, batch: &mut Vec<Access>| {
        vtime += next_batch(r, &mut recs, batch, vtime)? as u64;
        Ok::<(), SimError>(())
    };
    let (mut n, mut misses) = (0u64, 0u64);
    iolab_trace::ahead::read_ahead(src, fill, |batch| {
        n += batch.len() as u64;
        misses += c.get_batch(batch);
        true
    })?;
    Ok((n, misses))
}

/// The rows as a table: policy, size, requests, misses, ratio, million requests per second.
pub fn rows_text(rows: &[ObjectRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:>10} {:>10} {:>10} {:>8} {:>12}",
        "policy", "size", "requests", "misses", "ratio", "Mreq/s"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<10} {:>10} {:>10} {:>10} {:>8.4} {:>12.1}",
            r.policy,
            r.cache_size,
            r.requests,
            r.misses,
            r.miss_ratio,
            r.requests_per_sec / 1e6
        );
    }
    out
}

/// One (policy, cache size) pass counted by requests and by bytes: what
/// [`simulate_objects`] counts (`requests`, `misses`, the same misses: `get_batch` and `get`
/// agree) plus the bytes the records asked for and the bytes of those that missed (each
/// object still takes one entry, libCacheSim's `--ignore-obj-size 1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectCounts {
    pub requests: u64,
    pub misses: u64,
    pub bytes: u64,
    pub byte_misses: u64,
}

impl ObjectCounts {
    /// `misses / requests` (0 for no request), as [`ObjectRow::miss_ratio`].
    pub fn miss_ratio(&self) -> f64 {
        self.misses as f64 / self.requests.max(1) as f64
    }

    /// `byte_misses / bytes` (0 when the records carry no bytes).
    pub fn byte_miss_ratio(&self) -> f64 {
        self.byte_misses as f64 / self.bytes.max(1) as f64
    }

    /// Counts `recs` (the next requests, numbered from `self.requests`) through `c`.
    pub fn add(&mut self, c: &mut dyn policy::Cache, recs: &[ObjectRequest]) {
        for (rec, vtime) in recs.iter().zip(self.requests..) {
            let next = rec.next_access;
            let next_access = if next > 0 { next as u64 - 1 } else { policy::NEVER };
            let a = Access { key: rec.obj_id, vtime, next_access, write: rec.write };
            let miss = !c.get(&a).hit;
            self.misses += u64::from(miss);
            self.bytes = self.bytes.saturating_add(rec.size);
            if miss {
                self.byte_misses = self.byte_misses.saturating_add(rec.size);
            }
        }
        self.requests += recs.len() as u64;
    }
}

/// [`ObjectCounts`] of `policy` at `size` objects over the trace at `path` (the checks of
/// [`simulate_objects`]: a known policy, an oracleGeneral trace for an offline one).
pub fn count_objects(
    path: &Path,
    format: Option<&str>,
    policy_name: &str,
    size: usize,
) -> Result<ObjectCounts, SimError> {
    let info = policy::lookup(policy_name)?;
    let cfg = ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() };
    let trace_format = iolab_trace::open(path, format, &cfg)?.format();
    if info.offline && trace_format != "oracleGeneral" {
        let (policy, format) = (policy_name.to_string(), trace_format.to_string());
        return Err(SimError::NeedsOracle { policy, format });
    }
    let mut c = policy::build(policy_name, size)?;
    let fill = |r: &mut dyn iolab_trace::TraceReader, recs: &mut Vec<ObjectRequest>| {
        recs.resize(BATCH, ObjectRequest::default());
        let k = r.read_objects(recs)?;
        recs.truncate(k);
        Ok::<(), SimError>(())
    };
    let mut counts = ObjectCounts::default();
    iolab_trace::ahead::read_ahead(TracePath { path, format, cfg: &cfg }, fill, |recs| {
        counts.add(c.as_mut(), recs);
        !iolab_core::stop::requested()
    })?;
    Ok(counts)
}
