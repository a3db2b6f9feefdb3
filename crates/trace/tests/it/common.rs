//! Helpers shared by the topic modules of iolab-trace's integration tests.

use iolab_core::IoDir;
use iolab_trace::{open_reader, ReaderConfig, TraceReader, TraceRecord};
use std::io::Cursor;
use std::path::{Path, PathBuf};

pub(crate) fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

pub(crate) fn read_all(r: &mut dyn TraceReader) -> Vec<TraceRecord> {
    let mut out = Vec::new();
    let mut rec = TraceRecord::default();
    while r.read_into(&mut rec).unwrap() {
        out.push(rec);
    }
    out
}

pub(crate) fn from_bytes(name: &str, bytes: &[u8], cfg: &ReaderConfig) -> Box<dyn TraceReader> {
    open_reader(Box::new(Cursor::new(bytes.to_vec())), name, None, cfg).unwrap()
}

pub(crate) fn counts(recs: &[TraceRecord]) -> (usize, usize, usize) {
    let r = recs.iter().filter(|r| r.req.dir == IoDir::Read).count();
    let w = recs.iter().filter(|r| r.req.dir == IoDir::Write).count();
    (recs.len(), w, r)
}

pub(crate) fn oracle_cfg() -> ReaderConfig {
    // The bundled conversion keeps CloudPhysics' microsecond clock.
    ReaderConfig { oracle_time_unit_ns: 1_000, ..ReaderConfig::default() }
}

pub(crate) fn recs_of(name: &str, text: &[u8]) -> (Vec<TraceRecord>, &'static str, Vec<String>) {
    let mut r = from_bytes(name, text, &ReaderConfig::default());
    let v = read_all(&mut *r);
    (v, r.format(), r.file_names())
}

pub(crate) fn triples(v: &[TraceRecord]) -> Vec<(IoDir, u32, u64, u64, u64)> {
    v.iter().map(|r| (r.req.dir, r.req.file, r.req.offset, r.req.len, r.time_ns)).collect()
}
