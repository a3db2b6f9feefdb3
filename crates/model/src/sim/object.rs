//! Object-level policy simulation of a trace, as libCacheSim's `cachesim --ignore-obj-size 1`
//! does (`bin/cachesim`, `simulator.c`): every object has size 1, one streaming pass per
//! (policy, cache size), miss counts and ratios.
//!
//! A pass is two threads: one reads and decodes the trace into batches of accesses, the other
//! only simulates (`replay_threaded`); reading (the kernel's copy of the file) and decoding
//! were a fifth of an LRU replay on one thread (perf), and a channel handoff per 4,096 records
//! costs nothing measurable. Where no thread starts, one thread does both (`replay`).

use crate::policy::{self, Access};
use crate::SimError;
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
    let (n, misses) = match replay_threaded(path, format, cfg, c.as_mut())? {
        Some(counts) => counts,
        None => replay(iolab_trace::open(path, format, cfg)?.as_mut(), c.as_mut())?,
    };
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
/// Batches in flight between the decoding thread and the replay.
const BATCHES: usize = 3;

/// Decodes the next batch of `r` into `batch` (cleared first) as accesses numbered from
/// `vtime`; 0 at the end of the trace. The reader decodes only the object view of each record.
fn next_batch(
    r: &mut dyn iolab_trace::TraceReader,
    recs: &mut [ObjectRequest],
    batch: &mut Vec<Access>,
    vtime: u64,
) -> Result<usize, SimError> {
    let k = r.read_objects(recs)?;
    batch.clear();
    batch.extend(recs[..k].iter().zip(vtime..).map(|(rec, vtime)| {
        // oracleGeneral's next access is a 1-based request number; -1 is never.
        let next = rec.next_access;
        let next_access = if next > 0 { next as u64 - 1 } else { policy::NEVER };
        Access { key: rec.obj_id, vtime, next_access, write: rec.write }
    }));
    Ok(k)
}

/// Replays the trace on this thread. Returns (requests, misses).
fn replay(
    r: &mut dyn iolab_trace::TraceReader,
    c: &mut dyn policy::Cache,
) -> Result<(u64, u64), SimError> {
    let mut recs = vec![ObjectRequest::default(); BATCH];
    let mut batch = Vec::with_capacity(BATCH);
    let (mut n, mut misses) = (0u64, 0u64);
    while next_batch(r, &mut recs, &mut batch, n)? > 0 {
        n += batch.len() as u64;
        misses += c.get_batch(&batch);
    }
    Ok((n, misses))
}

/// [`replay`] with reading and decoding on a second thread, batches handed over through two
/// channels (full ones one way, emptied ones back), so the replay thread only simulates:
/// reading (a kernel copy of the file) and decoding were a fifth of an LRU replay's time
/// (perf). Order and results are [`replay`]'s. `None` when no thread could be started.
fn replay_threaded(
    path: &Path,
    format: Option<&str>,
    cfg: &ReaderConfig,
    c: &mut dyn policy::Cache,
) -> Result<Option<(u64, u64)>, SimError> {
    use std::sync::mpsc::{channel, sync_channel};
    let (full_tx, full_rx) = sync_channel::<Result<Vec<Access>, SimError>>(BATCHES);
    let (empty_tx, empty_rx) = channel::<Vec<Access>>();
    for _ in 0..BATCHES {
        let _ = empty_tx.send(Vec::with_capacity(BATCH));
    }
    std::thread::scope(|sc| {
        let decoder = std::thread::Builder::new().name("trace-decode".into());
        let started = decoder.spawn_scoped(sc, move || {
            // the reader is opened here: it is not `Send`
            let mut r = match iolab_trace::open(path, format, cfg) {
                Ok(r) => r,
                Err(e) => {
                    let _ = full_tx.send(Err(e.into()));
                    return;
                }
            };
            let mut recs = vec![ObjectRequest::default(); BATCH];
            let mut vtime = 0u64;
            while let Ok(mut batch) = empty_rx.recv() {
                match next_batch(r.as_mut(), &mut recs, &mut batch, vtime) {
                    Ok(0) => return,
                    Ok(k) => vtime += k as u64,
                    Err(e) => {
                        let _ = full_tx.send(Err(e));
                        return;
                    }
                }
                if full_tx.send(Ok(batch)).is_err() {
                    return;
                }
            }
        });
        if started.is_err() {
            return Ok(None);
        }
        let (mut n, mut misses) = (0u64, 0u64);
        for batch in full_rx {
            let batch = batch?;
            n += batch.len() as u64;
            misses += c.get_batch(&batch);
            let _ = empty_tx.send(batch);
        }
        Ok(Some((n, misses)))
    })
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
