//! What `iolab mrc` reports: a miss-ratio curve ([`crate::mrc`]) fed from a trace (object ids
//! as keys, libCacheSim's view, or byte ranges split into blocks) and printed as a
//! plot-ready table (text, CSV) or a JSON document.

use crate::mrc::curve::{CurvePoint, MissRatioCurve};
use crate::mrc::{split_blocks, MrcBuilder};
use iolab_core::IoDir;
use iolab_trace::{TraceError, TraceReader, TraceRecord};
use serde::Serialize;
use std::fmt::Write as _;

/// Every record of `r` into `b`: its object id, or with `block` its bytes split into blocks
/// of that size (trims and syncs are not accesses to a block cache). A stop request (signal)
/// ends the reading early; the caller marks the curve interrupted.
pub fn trace_accesses(
    r: &mut dyn TraceReader,
    b: &mut dyn MrcBuilder,
    block: Option<u64>,
) -> Result<(), MrcInputError> {
    let mut rec = TraceRecord::default();
    let mut blocks = 0u64;
    while r.read_into(&mut rec)? {
        if iolab_core::stop::requested() {
            break;
        }
        match block {
            None => b.access(rec.obj_id, rec.size),
            Some(_) if matches!(rec.req.dir, IoDir::Trim | IoDir::Sync) => {}
            Some(bs) => {
                blocks = blocks.saturating_add(rec.req.len.div_ceil(bs).saturating_add(1));
                if blocks > MAX_MRC_BLOCKS {
                    return Err(MrcInputError::TooManyBlocks { bs, record: r.records() });
                }
                split_blocks(rec.req.file, rec.req.offset, rec.req.len, bs, |k, n| b.access(k, n))
            }
        }
    }
    Ok(())
}

/// Most block accesses (an upper estimate: blocks per request + 1) one curve walks, about a
/// minute and a few GiB at worst.
pub const MAX_MRC_BLOCKS: u64 = 1 << 28;

/// Why a trace could not be turned into a curve.
#[derive(Debug, thiserror::Error)]
pub enum MrcInputError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(
        "--block-size {bs}: record {record} brings the blocks touched past {MAX_MRC_BLOCKS} (too \
         long and too much memory for the curve); use a larger --block-size"
    )]
    TooManyBlocks { bs: u64, record: u64 },
}

/// One row of the table.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub cache_entries: u64,
    pub cache_bytes: Option<u64>,
    /// False below the sampling granularity: the ratios there are not a measurement (null).
    pub measured: bool,
    /// Expected absolute error of `miss_ratio` (0 when exact).
    pub expected_error: f64,
    pub miss_ratio: Option<f64>,
    pub byte_miss_ratio: Option<f64>,
}

/// The curve and what it was built from (`iolab mrc --json`).
#[derive(Clone, Debug, Serialize)]
pub struct CurveReport {
    pub trace: String,
    pub format: String,
    /// A signal ended the reading early: the curve covers the records read until then.
    pub interrupted: bool,
    pub method: String,
    pub granularity: &'static str,
    pub block_size: Option<u64>,
    pub requests: u64,
    pub accesses: f64,
    pub footprint_entries: f64,
    /// The smallest cache the sample can see (1/rate for SHARDS, 1 when exact).
    pub resolution_entries: f64,
    /// Expected absolute error of a sampled curve (0 when exact).
    pub expected_error: f64,
    pub skipped_malformed: u64,
    pub points: Vec<Point>,
}

/// What the curve was built from, for [`CurveReport::new`].
#[derive(Clone, Debug)]
pub struct Source {
    pub label: String,
    pub format: String,
    pub requests: u64,
    pub skipped: u64,
    pub interrupted: bool,
}

impl CurveReport {
    pub fn new(
        src: Source,
        method: String,
        block: Option<u64>,
        curve: &MissRatioCurve,
        pts: &[CurvePoint],
    ) -> Self {
        let points = pts
            .iter()
            .map(|p| Point {
                cache_entries: p.size,
                cache_bytes: block.map(|b| b * p.size),
                measured: p.measured,
                expected_error: p.error,
                miss_ratio: p.measured.then_some(p.miss_ratio),
                byte_miss_ratio: p.measured.then_some(p.byte_miss_ratio),
            })
            .collect();
        CurveReport {
            trace: src.label,
            format: src.format,
            interrupted: src.interrupted,
            method,
            granularity: if block.is_some() { "block" } else { "object" },
            block_size: block,
            requests: src.requests,
            accesses: curve.total,
            footprint_entries: curve.footprint,
            resolution_entries: curve.resolution,
            expected_error: curve.expected_error,
            skipped_malformed: src.skipped,
            points,
        }
    }

    /// `cache_entries,cache_bytes,miss_ratio,byte_miss_ratio` lines.
    pub fn csv(&self) -> String {
        let mut o = String::from("cache_entries,cache_bytes,miss_ratio,byte_miss_ratio\n");
        for p in &self.points {
            let bytes = p.cache_bytes.map(|b| b.to_string()).unwrap_or_default();
            match (p.miss_ratio, p.byte_miss_ratio) {
                (Some(m), Some(bm)) => writeln!(o, "{},{bytes},{m:.6},{bm:.6}", p.cache_entries),
                _ => writeln!(o, "{},{bytes},,", p.cache_entries),
            }
            .ok();
        }
        o
    }

    /// The commented header and the aligned table.
    pub fn text(&self) -> String {
        let gran = match self.block_size {
            Some(b) => format!("{b}-byte blocks"),
            None => "objects (obj_id, size 1 each)".to_string(),
        };
        let mut o = String::new();
        if self.interrupted {
            o.push_str("# interrupted: the curve covers the records read until the signal\n");
        }
        let _ = writeln!(
            o,
            "# {} ({}): {} requests, {:.0} accesses, footprint {:.0} entries; LRU, {}, {gran}",
            self.trace,
            self.format,
            self.requests,
            self.accesses,
            self.footprint_entries,
            self.method
        );
        if self.skipped_malformed > 0 {
            let _ = writeln!(o, "# skipped malformed records: {}", self.skipped_malformed);
        }
        if self.expected_error > 0.0 {
            let _ = writeln!(
                o,
                "# sampled: caches below {:.0} entries are not measured (`-`); expected error \
                 per row: +-{:.4} (1/sqrt(sampled keys)) plus the curve's change over the \
                 size's sampling uncertainty 1/sqrt(size*rate)",
                self.resolution_entries, self.expected_error
            );
        }
        let _ = writeln!(
            o,
            "{:>14} {:>16} {:>10} {:>10}",
            "cache_entries", "cache_bytes", "miss", "byte_miss"
        );
        for p in &self.points {
            let bytes = p.cache_bytes.map_or_else(|| "-".to_string(), |b| b.to_string());
            let (Some(m), Some(bm)) = (p.miss_ratio, p.byte_miss_ratio) else {
                let _ =
                    writeln!(o, "{:>14} {:>16} {:>10} {:>10}", p.cache_entries, bytes, "-", "-");
                continue;
            };
            let _ = write!(o, "{:>14} {:>16} {m:>10.4} {bm:>10.4}", p.cache_entries, bytes);
            if self.expected_error > 0.0 {
                let _ = write!(o, "  +-{:.4}", p.expected_error);
            }
            o.push('\n');
        }
        o
    }
}
