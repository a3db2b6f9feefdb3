//! The whole-trace operations behind `iolab trace stat|convert`: read options from their
//! command-line spellings, one statistics pass ([`crate::stat`]) and its text, and format
//! conversion through the writers ([`crate::write`]). Each loop polls the process-wide stop
//! request (SIGINT/SIGTERM/SIGHUP) and fails in one line rather than leaving partial output.

use crate::stat::{Log2Histogram, StatBuilder, TraceStats};
use crate::write::{csv::CsvWriter, iolog::IologWriter, oracle, TraceWriter};
use crate::{ReaderConfig, TraceError, TraceErrorKind, TraceReader, TraceRecord};
use iolab_core::units::format_bytes_iec;
use iolab_core::IoDir;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// Why a whole-trace operation did not finish.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("time unit `{0}`: expected s, ms, us or ns")]
    TimeUnit(String),
    #[error("--blkparse-action {0}: expected one of Q, D, C, G, I, M")]
    BlkparseAction(char),
    #[error("{name}: stopped after {records} records{what}")]
    Stopped { name: String, records: u64, what: &'static str },
    #[error("{0}: no records: an empty trace has no statistics")]
    Empty(String),
    #[error(
        "--block-size {bs}: {name}: record {record} brings the blocks touched past {MAX_STAT_BLOCKS} \
         (footprint and reuse would take too long and too much memory); use a larger --block-size"
    )]
    TooManyBlocks { bs: u64, name: String, record: u64 },
    #[error("{flag} `{value}`: {why}")]
    Size { flag: &'static str, value: String, why: String },
    #[error("{flag} `{value}` must be at least 1 byte")]
    ZeroSize { flag: &'static str, value: String },
}

/// A size flag (`--block-size 4k`) in fio's units with kb_base=1024, at least 1 byte.
pub fn size_flag(flag: &'static str, s: &str) -> Result<u64, OpError> {
    let value = || iolab_core::units::quote(s);
    match iolab_core::units::parse_size(s, iolab_core::units::KbBase::K1024) {
        Ok(0) => Err(OpError::ZeroSize { flag, value: value() }),
        Ok(v) => Ok(v),
        Err(e) => Err(OpError::Size { flag, value: value(), why: e.to_string() }),
    }
}

/// Most block accesses `trace stat` walks (about a minute and a few GiB at worst).
pub const MAX_STAT_BLOCKS: u64 = 1 << 28;

/// Nanoseconds in one `s`, `ms`, `us` or `ns`.
pub fn time_unit(s: &str) -> Result<u64, OpError> {
    Ok(match s {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        _ => return Err(OpError::TimeUnit(s.to_string())),
    })
}

/// How to read a trace, as `iolab trace`, `mrc` and `sim --trace` take it; with the `clap`
/// feature, also their flags (one type: no flag-by-flag conversion in the binary).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ReadOptions {
    /// Trace format (default: detected from content and extension). Known: cloudphysics,
    /// fio-iolog, msr, alibaba, tencent, blkparse, vscsi, oracleGeneral, txt, csv.
    #[cfg_attr(feature = "clap", arg(long))]
    pub format: Option<String>,
    /// Skip malformed records (their count is reported) instead of stopping at the first.
    #[cfg_attr(feature = "clap", arg(long))]
    pub lenient: bool,
    /// Unit of oracleGeneral's clock_time: s (libCacheSim's default), ms, us or ns.
    #[cfg_attr(feature = "clap", arg(long, default_value = "s"))]
    pub oracle_time_unit: String,
    /// blkparse action taken as the request stream (Q queued, D issued, C completed).
    #[cfg_attr(feature = "clap", arg(long, default_value = "Q"))]
    pub blkparse_action: char,
}

impl ReadOptions {
    /// The reader configuration from `--lenient`, `--oracle-time-unit` and
    /// `--blkparse-action`.
    pub fn config(&self) -> Result<ReaderConfig, OpError> {
        let mut cfg = ReaderConfig { lenient: self.lenient, ..ReaderConfig::default() };
        cfg.oracle_time_unit_ns = time_unit(&self.oracle_time_unit)?;
        let action = self.blkparse_action;
        if !matches!(action, 'Q' | 'D' | 'C' | 'G' | 'I' | 'M') {
            return Err(OpError::BlkparseAction(action));
        }
        cfg.blkparse_action = action as u8;
        Ok(cfg)
    }

    /// `path` opened in `--format` (or the detected one) with [`ReadOptions::config`].
    pub fn open(&self, path: &Path) -> Result<Box<dyn TraceReader>, OpError> {
        Ok(crate::open(path, self.format.as_deref(), &self.config()?)?)
    }
}

/// One statistics pass over `r`; `distance` gives a block's reuse distance (the model crate's
/// stack-distance engine).
pub fn stat(
    r: &mut dyn TraceReader,
    name: &str,
    block_size: u64,
    stream_window: u64,
    distance: &mut dyn FnMut(u64) -> Option<u64>,
) -> Result<TraceStats, OpError> {
    let mut b = StatBuilder::new(r.format(), block_size, stream_window);
    let mut rec = TraceRecord::default();
    let mut blocks = 0u64;
    let bs = block_size.max(1);
    while r.read_into(&mut rec)? {
        if iolab_core::stop::requested() {
            let (name, records) = (name.to_string(), r.records());
            return Err(OpError::Stopped { name, records, what: "" });
        }
        // Footprint and reuse cost one stack-distance access (and up to one table entry) per
        // block touched: bound it before the work instead of running for hours.
        if rec.req.len > 0 && !matches!(rec.req.dir, IoDir::Trim | IoDir::Sync) {
            let end = rec.req.offset.saturating_add(rec.req.len - 1) / bs;
            blocks = blocks.saturating_add(end - rec.req.offset / bs + 1);
            if blocks > MAX_STAT_BLOCKS {
                let (name, record) = (name.to_string(), r.records());
                return Err(OpError::TooManyBlocks { bs, name, record });
            }
        }
        b.add(&rec, distance);
    }
    if r.records() == 0 {
        return Err(OpError::Empty(name.to_string()));
    }
    Ok(b.finish(r.skipped()))
}

fn hist(o: &mut String, name: &str, unit: &str, h: &Log2Histogram) {
    let total = h.total().max(1) as f64;
    let _ = writeln!(o, "{name} (log2 buckets, {unit}):");
    for (i, &c) in h.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let lo = if i == 0 { 0 } else { 1u64 << i };
        let _ = writeln!(
            o,
            "  [{lo:>12}, {:>12})  {c:>10}  {:>6.2} %",
            1u128 << (i + 1),
            100.0 * c as f64 / total
        );
    }
}

/// `iolab trace stat`'s text.
pub fn stat_text(path: &Path, s: &TraceStats) -> String {
    let pct = |n: u64| 100.0 * n as f64 / s.requests.max(1) as f64;
    let mut o = format!("trace: {} ({})\n", path.display(), s.format);
    let _ = writeln!(o, "requests: {}  duration: {:.3} s", s.requests, s.duration_ns as f64 / 1e9);
    for (n, d) in [("read", &s.read), ("write", &s.write), ("trim", &s.trim)] {
        let (r, p, b) = (d.requests, pct(d.requests), format_bytes_iec(d.bytes));
        let _ = writeln!(o, "  {n:<5} {r:>10} ({p:5.1} %)  {b:>12}");
    }
    let _ = writeln!(o, "  sync  {:>10}", s.sync);
    if s.skipped_malformed > 0 {
        let _ = writeln!(o, "skipped malformed records: {}", s.skipped_malformed);
    }
    let _ = writeln!(
        o,
        "footprint: {} blocks of {} = {}; block accesses {}, cold {}",
        s.footprint_blocks,
        format_bytes_iec(s.block_size),
        format_bytes_iec(s.footprint_bytes),
        s.block_accesses,
        s.cold_block_accesses
    );
    let st = &s.streams;
    let _ = writeln!(
        o,
        "sequential streams (>= 2 requests): {}; sequential requests {} ({:.1} %); concurrent \
         streams max {} mean {:.2}; longest {} requests / {}",
        st.streams,
        st.sequential_requests,
        pct(st.sequential_requests),
        st.max_concurrent,
        st.mean_concurrent,
        st.longest_requests,
        format_bytes_iec(st.longest_bytes)
    );
    let verdicts = s.blender_verdict().into_iter().chain(s.stream_table_curve());
    for line in verdicts.chain(s.time_unit_check()) {
        let _ = writeln!(o, "{line}");
    }
    o.push_str(&s.stream_table());
    hist(&mut o, "request size", "bytes", &s.request_size);
    hist(&mut o, "reuse distance", "distinct blocks between accesses", &s.reuse_distance);
    hist(&mut o, "reuse time", "block accesses between accesses", &s.reuse_time);
    o
}

/// `trace stat --json`'s document: the statistics, the trace's path and the verdicts the text
/// prints (the I/O blender, the time unit) as `notes`.
#[derive(serde::Serialize)]
pub struct StatDoc<'a> {
    pub trace: String,
    #[serde(flatten)]
    pub stats: &'a TraceStats,
    pub notes: Vec<String>,
}

/// The [`StatDoc`] of `s`, read from `path`.
pub fn stat_doc<'a>(path: &Path, s: &'a TraceStats) -> StatDoc<'a> {
    let verdicts = s.blender_verdict().into_iter().chain(s.stream_table_curve());
    let notes = verdicts.chain(s.time_unit_check()).collect();
    StatDoc { trace: path.display().to_string(), stats: s, notes }
}

/// The output format of [`convert`].
#[derive(Clone, Debug)]
pub enum Target {
    /// fio iolog v3 with these file names for device indices 0, 1, … (empty: the input's).
    Iolog {
        files: Vec<String>,
    },
    /// libCacheSim oracleGeneral.
    Oracle(oracle::OracleOptions),
    Csv,
}

/// `trace convert`'s output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum To {
    Iolog,
    Oracle,
    Csv,
}

/// `trace convert`'s output options; with the `clap` feature, also its flags.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct ConvertOptions {
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub to: To,
    /// oracleGeneral output: clock_time unit (s, ms, us, ns).
    #[cfg_attr(feature = "clap", arg(long, default_value = "s"))]
    pub out_time_unit: String,
    /// oracleGeneral output: give every object the size of its first request (libCacheSim).
    #[cfg_attr(feature = "clap", arg(long))]
    pub first_size: bool,
    /// iolog output: file names for device indices 0, 1, ... (comma-separated); default: the
    /// names the input trace carries, else iolab.N.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub files: Vec<String>,
    /// Convert even when the output format cannot carry part of a record (oracleGeneral has
    /// no operation: writes, trims and syncs would read back as reads), saying what was lost.
    /// Without it such a conversion is refused and nothing is written.
    #[cfg_attr(feature = "clap", arg(long))]
    pub lossy: bool,
}

impl ConvertOptions {
    /// The writer's target (`--out-time-unit` checked).
    pub fn target(&self) -> Result<Target, OpError> {
        Ok(match self.to {
            To::Iolog => Target::Iolog { files: self.files.clone() },
            To::Csv => Target::Csv,
            To::Oracle => Target::Oracle(oracle::OracleOptions {
                time_unit_ns: time_unit(&self.out_time_unit)?,
                first_size: self.first_size,
            }),
        })
    }
}

/// `trace stat`'s own options; with the `clap` feature, also its flags.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args), group(skip))]
pub struct StatOptions {
    /// Block size for footprint and reuse (fio size syntax: 4k = 4096).
    #[cfg_attr(feature = "clap", arg(long, default_value = "4k"))]
    pub block_size: String,
    /// A request continues a sequential stream if it starts where the stream ended within
    /// this many requests.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 256))]
    pub stream_window: u64,
}

impl StatOptions {
    /// `--block-size` in bytes, at least 1 ([`size_flag`]).
    pub fn block_size(&self) -> Result<u64, OpError> {
        size_flag("--block-size", &self.block_size)
    }
}

/// Every record of `r` to `out` (named `name` in errors) as `to`; returns the records written.
/// What [`convert`] wrote, and what the output format could not carry (`--lossy`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    pub records: u64,
    /// One line naming what the output lost, e.g. "the operation of 3 of 10 records (3
    /// writes): oracleGeneral has none, they read back as reads"; `None` when nothing was.
    pub lost: Option<String>,
}

/// Converts every record of `r` to `to` on `out`. A format that cannot carry a record's
/// operation (oracleGeneral) refuses the trace with what would be lost, unless `lossy`.
pub fn convert(
    r: &mut dyn TraceReader,
    out: &mut dyn Write,
    name: &str,
    to: &Target,
    lossy: bool,
) -> Result<Converted, OpError> {
    let mut w: Box<dyn TraceWriter + '_> = match to {
        Target::Iolog { files } => {
            let records = convert_iolog(r, out, name, files)?;
            return Ok(Converted { records, lost: None });
        }
        Target::Oracle(o) => Box::new(oracle::OracleWriter::new(out, name, o.clone())),
        Target::Csv => Box::new(CsvWriter::new(out, name)),
    };
    let oracle = matches!(to, Target::Oracle(_));
    let mut rec = TraceRecord::default();
    let mut n = 0u64;
    // Records by operation: read, write, trim, sync (what oracleGeneral drops).
    let mut ops = [0u64; 4];
    while r.read_into(&mut rec)? {
        check_stop(name, n)?;
        ops[match rec.req.dir {
            IoDir::Read => 0,
            IoDir::Write => 1,
            IoDir::Trim => 2,
            IoDir::Sync => 3,
        }] += 1;
        w.write(&rec)?;
        n += 1;
    }
    let lost = if oracle { lost_operations(n, &ops) } else { None };
    if let (Some(what), false) = (&lost, lossy) {
        // The oracle writer writes only in `finish`, so nothing has reached `out` yet.
        return Err(TraceError::whole(name, TraceErrorKind::Lossy { what: what.clone() }).into());
    }
    w.finish()?;
    Ok(Converted { records: n, lost })
}

/// What oracleGeneral (no operation field) loses of a trace with `ops` records per
/// operation (read, write, trim, sync), or `None` when every record is a read.
fn lost_operations(n: u64, ops: &[u64; 4]) -> Option<String> {
    let other = n - ops[0];
    if other == 0 {
        return None;
    }
    let kinds: Vec<String> = [(ops[1], "write"), (ops[2], "trim"), (ops[3], "sync")]
        .iter()
        .filter(|(c, _)| *c > 0)
        .map(|(c, k)| format!("{c} {k}{}", if *c == 1 { "" } else { "s" }))
        .collect();
    Some(format!(
        "the operation of {other} of {n} records ({}): oracleGeneral has no operation field, so \
         they would read back as reads",
        kinds.join(", ")
    ))
}

fn check_stop(name: &str, n: u64) -> Result<(), OpError> {
    if n % 4096 == 0 && iolab_core::stop::requested() {
        let name = name.to_string();
        return Err(OpError::Stopped { name, records: n, what: "; nothing written" });
    }
    Ok(())
}

fn convert_iolog(
    r: &mut dyn TraceReader,
    out: &mut dyn Write,
    name: &str,
    files: &[String],
) -> Result<u64, OpError> {
    let mut w = IologWriter::new(out, name, files.to_vec());
    let mut rec = TraceRecord::default();
    let mut n = 0u64;
    while r.read_into(&mut rec)? {
        check_stop(name, n)?;
        // Devices get names as the reader meets them (blkparse, MSR, volumes).
        if files.is_empty() && rec.req.file as usize >= w.files().len() {
            *w.files_mut() = r.file_names();
        }
        w.write(&rec)?;
        n += 1;
    }
    w.finish()?;
    Ok(n)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_size_flag_in_fios_units_or_a_refusal_naming_it() {
        assert_eq!(size_flag("--block-size", "4k").unwrap(), 4096);
        assert_eq!(size_flag("--block-size", "1").unwrap(), 1);
        let e = |s: &str| size_flag("--block-size", s).unwrap_err().to_string();
        assert_eq!(e("0"), "--block-size `0` must be at least 1 byte");
        for bad in ["", "-1", "nan", "NaN", "99999999999999999999999", "4q", "\u{0}\u{1b}"] {
            let msg = e(bad);
            assert!(msg.starts_with("--block-size `"), "{bad:?}: {msg}");
            assert!(!msg.contains('\u{1b}') && !msg.contains('\n'), "{bad:?}: {msg}");
        }
        assert!(e(&"7".repeat(100_000)).len() < 400);
    }

    #[test]
    fn convert_targets_and_stat_sizes_from_their_flags() {
        let c = |to, unit: &str| ConvertOptions {
            to,
            out_time_unit: unit.into(),
            first_size: true,
            files: vec!["a".into()],
            lossy: false,
        };
        let t = c(To::Oracle, "ms").target().unwrap();
        assert!(matches!(t, Target::Oracle(o) if o.time_unit_ns == 1_000_000 && o.first_size));
        assert!(
            matches!(c(To::Iolog, "").target().unwrap(), Target::Iolog { files } if files == ["a"])
        );
        assert!(matches!(c(To::Csv, "bogus").target().unwrap(), Target::Csv));
        for bad in ["", "S", "-1", "nan", "\u{0}"] {
            let e = c(To::Oracle, bad).target().unwrap_err().to_string();
            assert!(e.starts_with("time unit `"), "{bad:?}: {e}");
        }
        let s = |b: &str| StatOptions { block_size: b.into(), stream_window: 256 }.block_size();
        assert_eq!(s("4k").unwrap(), 4096);
        assert!(s("nan").unwrap_err().to_string().starts_with("--block-size `nan`: "));
    }

    #[test]
    fn oracle_loses_every_operation_but_read_and_says_which() {
        assert_eq!(lost_operations(5, &[5, 0, 0, 0]), None);
        let m = lost_operations(10, &[6, 1, 0, 3]).unwrap();
        assert!(m.starts_with("the operation of 4 of 10 records (1 write, 3 syncs)"), "{m}");
        let e = TraceError::whole("t.csv", TraceErrorKind::Lossy { what: m }).to_string();
        assert!(e.starts_with("t.csv: refused: the operation of 4") && e.contains("--lossy"));
    }
}
