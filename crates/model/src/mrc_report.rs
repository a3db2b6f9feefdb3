//! What `iolab mrc` reports: a miss-ratio curve ([`crate::mrc`]) fed from a trace (object ids
//! as keys, libCacheSim's view, or byte ranges split into blocks) and printed as a
//! plot-ready table (text, CSV) or a JSON document.

use crate::mrc::curve::{CurvePoint, MissRatioCurve};
use crate::mrc::{exact::ExactMrc, shards::Shards, split_blocks, MrcBuilder, MIN_BLOCK_SIZE};
use iolab_core::IoDir;
use iolab_trace::ahead::{ReadEnd, TracePath};
use iolab_trace::{ObjectRequest, TraceError, TraceReader, TraceRecord};
use iolab_workload::streams::Streams;
use serde::Serialize;
use std::fmt::Write as _;

/// Every record of `r` into `b`: its object id, or with `block` its bytes split into blocks
/// of that size (trims and syncs are not accesses to a block cache), a record at a time
/// ([`trace_accesses_at`] reads object ids a batch at a time on a second thread). A stop request (signal)
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

/// [`trace_accesses`] of the trace at `src`, opened here; returns what its reader reported at
/// the end, `records` being the records fed to `b`. At object granularity the trace is read
/// and decoded a batch at a time on a second thread ([`iolab_trace::ahead`]: the object view
/// only, [`TraceReader::read_objects`]) and each batch goes to `b` in one call, so this
/// thread only builds the curve.
pub fn trace_accesses_at(
    src: TracePath<'_>,
    b: &mut dyn MrcBuilder,
    block: Option<u64>,
) -> Result<ReadEnd, MrcInputError> {
    if block.is_some() {
        let mut r = iolab_trace::open(src.path, src.format, src.cfg)?;
        trace_accesses(r.as_mut(), b, block)?;
        return Ok(ReadEnd { format: r.format(), records: r.records(), skipped: r.skipped() });
    }
    let fill = |r: &mut dyn TraceReader, objs: &mut Vec<ObjectRequest>| {
        objs.resize(OBJECT_BATCH, ObjectRequest::default());
        let k = r.read_objects(objs)?;
        objs.truncate(k);
        Ok::<(), MrcInputError>(())
    };
    let mut fed = 0u64;
    let end = iolab_trace::ahead::read_ahead(src, fill, |objs| {
        if iolab_core::stop::requested() {
            return false;
        }
        b.access_objects(objs);
        fed += objs.len() as u64;
        true
    })?;
    Ok(ReadEnd { records: fed, ..end })
}

/// Records per batch of [`trace_accesses_at`]'s object view.
const OBJECT_BATCH: usize = 4096;

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
    #[error(
        "--block-size {0}: expected at least {MIN_BLOCK_SIZE} (a sector): a cache of smaller \
         blocks is not a block cache, and walking every byte of a trace takes minutes and gigabytes"
    )]
    BlockTooSmall(u64),
    #[error("--{flag} {value}: {source}")]
    Sampling { flag: &'static str, value: String, source: crate::mrc::MrcError },
    #[error("the jobs read and write nothing: no block size to model")]
    NoBlockSize,
    #[error(transparent)]
    Flag(#[from] iolab_trace::ops::OpError),
    #[error("--points {0}: need at least 2")]
    Points(usize),
}

/// `--block-size`: at least a sector ([`MIN_BLOCK_SIZE`]).
pub fn check_block_size(bs: u64) -> Result<u64, MrcInputError> {
    if bs < MIN_BLOCK_SIZE {
        return Err(MrcInputError::BlockTooSmall(bs));
    }
    Ok(bs)
}

/// The curve builder and its method's name: SHARDS fixed-rate (`--shards R`), fixed-size
/// (`--shards-size N`), else exact (Mattson stack distances).
pub fn builder(
    shards: Option<f64>,
    shards_size: Option<usize>,
) -> Result<(Box<dyn MrcBuilder>, String), MrcInputError> {
    let bad = |flag, value: String| move |source| MrcInputError::Sampling { flag, value, source };
    Ok(match (shards, shards_size) {
        (Some(r), _) => (
            Box::new(Shards::fixed_rate(r).map_err(bad("shards", format!("{r:?}")))?),
            format!("shards fixed-rate {r}"),
        ),
        (None, Some(n)) => (
            Box::new(Shards::fixed_size(n).map_err(bad("shards-size", n.to_string()))?),
            format!("shards fixed-size {n}"),
        ),
        (None, None) => (Box::new(ExactMrc::new()), "exact".to_string()),
    })
}

/// The smallest data block size of any job (what `mrc --job` splits requests into by
/// default).
pub fn jobs_block_size(jobs: &[iolab_job::Job]) -> Result<u64, MrcInputError> {
    jobs.iter()
        .flat_map(|j| {
            [(j.rw.has_read(), j.bs.read.min), (j.rw.has_write(), j.bs.write.min)]
                .into_iter()
                .filter_map(|(on, b)| on.then_some(b))
        })
        .min()
        .filter(|&b| b > 0)
        .ok_or(MrcInputError::NoBlockSize)
}

/// The clones' requests, interleaved as they would run (so a shared file's blocks mix in one
/// cache), into `b` in blocks of `bs`; returns the requests seen. A stop request ends it
/// early with the curve of the requests so far.
pub fn stream_accesses(s: Streams, b: &mut dyn MrcBuilder, bs: u64) -> u64 {
    let mut seen = 0u64;
    let n = s.merged(|_, req| {
        if iolab_core::stop::requested() {
            return Err(seen);
        }
        seen += 1;
        // A block cache holds data: trims and syncs are not accesses to it.
        if !matches!(req.dir, IoDir::Trim | IoDir::Sync) {
            split_blocks(req.file, req.offset, req.len, bs, |k, n| b.access(k, n));
        }
        Ok(())
    });
    n.unwrap_or_else(|seen| seen)
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
                 per row (one standard error): the key sampling's at that size (+-{:.4} at \
                 the smallest, falling with size) and the curve's change over the size's \
                 sampling uncertainty 1/sqrt(size*rate)",
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

/// How `iolab mrc` draws its curve, whatever feeds it; with the `clap` feature, also those
/// flags of the binary.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct CurveOptions {
    /// SHARDS fixed-rate sampling, e.g. 0.01 (default: exact).
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "shards_size"))]
    pub shards: Option<f64>,
    /// SHARDS fixed-size: at most this many sampled keys.
    #[cfg_attr(feature = "clap", arg(long))]
    pub shards_size: Option<usize>,
    /// Split requests into cache blocks of this size (fio size syntax); default: one entry
    /// per object id, as libCacheSim.
    #[cfg_attr(feature = "clap", arg(long))]
    pub block_size: Option<String>,
    /// Number of cache sizes in the table (geometric from 1 entry to the footprint).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 40))]
    pub points: usize,
    /// Exact cache sizes (entries, comma-separated) instead of the geometric grid.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub sizes: Vec<u64>,
}

/// A curve's inputs checked: the block size (`None`: object ids) and the builder with its
/// method's name.
pub type Checked = (Option<u64>, Box<dyn MrcBuilder>, String);

impl CurveOptions {
    /// `--block-size` (at least a sector), the builder ([`builder`]) and a table of at least
    /// two points, checked in that order before any input is read.
    pub fn check(&self) -> Result<Checked, MrcInputError> {
        let flag = |s: &String| iolab_trace::ops::size_flag("--block-size", s);
        let block = self.block_size.as_ref().map(flag).transpose()?;
        let block = block.map(check_block_size).transpose()?;
        let (b, method) = builder(self.shards, self.shards_size)?;
        if self.points < 2 && self.sizes.is_empty() {
            return Err(MrcInputError::Points(self.points));
        }
        Ok((block, b, method))
    }

    /// The table's rows: at `--sizes`, else `--points` geometric sizes.
    pub fn points(&self, curve: &MissRatioCurve) -> Vec<CurvePoint> {
        match self.sizes.is_empty() {
            true => curve.table(self.points),
            false => curve.at(&self.sizes),
        }
    }
}

#[cfg(test)]
mod sizing_tests {
    use super::*;

    #[test]
    fn block_size_builder_and_job_block_size() {
        assert!(matches!(check_block_size(511), Err(MrcInputError::BlockTooSmall(511))));
        assert_eq!(check_block_size(512).unwrap(), 512);
        assert_eq!(builder(None, None).unwrap().1, "exact");
        assert_eq!(builder(Some(0.01), None).unwrap().1, "shards fixed-rate 0.01");
        assert!(builder(Some(0.0), None).err().unwrap().to_string().starts_with("--shards 0.0:"));
        let load = |a: &[&str]| {
            let cmdline = a.iter().map(|s| s.to_string()).collect();
            iolab_job::load(&iolab_job::LoadOptions { cmdline, ..Default::default() }).unwrap()
        };
        let p =
            load(&["--name=a", "--rw=randread", "--bs=8k", "--name=b", "--rw=write", "--bs=16k"]);
        assert_eq!(jobs_block_size(&p.jobs).unwrap(), 8192);
    }

    #[test]
    fn curve_options_checked_before_any_input() {
        let o = |block: Option<&str>, shards, points, sizes: Vec<u64>| CurveOptions {
            shards,
            shards_size: None,
            block_size: block.map(str::to_string),
            points,
            sizes,
        };
        let (block, _, method) = o(Some("4k"), None, 40, vec![]).check().unwrap();
        assert_eq!((block, method.as_str()), (Some(4096), "exact"));
        assert_eq!(o(None, Some(0.5), 2, vec![]).check().unwrap().0, None);
        let e = |c: CurveOptions| c.check().err().unwrap().to_string();
        assert_eq!(e(o(Some("0"), None, 40, vec![])), "--block-size `0` must be at least 1 byte");
        assert!(e(o(Some("511"), None, 40, vec![]))
            .starts_with("--block-size 511: expected at least 512"));
        for bad in ["", "-1", "nan", "99999999999999999999999", "\u{0}\u{ff}"] {
            assert!(e(o(Some(bad), None, 40, vec![])).starts_with("--block-size `"), "{bad:?}");
        }
        for r in [f64::NAN, -1.0, 0.0, 2.0, 1e-300] {
            assert!(e(o(None, Some(r), 40, vec![])).starts_with("--shards "), "{r}");
        }
        assert_eq!(e(o(None, None, 1, vec![])), "--points 1: need at least 2");
        // Exact sizes need no grid; the table is at those sizes.
        let c = o(None, None, 0, vec![1, 3]);
        let (_, mut b, _) = c.check().unwrap();
        for k in [1, 2, 1, 3, 1] {
            b.access(k, 1);
        }
        let sizes: Vec<u64> = c.points(&b.finish()).iter().map(|p| p.size).collect();
        assert_eq!(sizes, [1, 3]);
    }
}
