//! libCacheSim oracleGeneral writer (24-byte LE records `{u32 clock_time, u64 obj_id,
//! u32 obj_size, i64 next_access_vtime}`). `next_access_vtime` needs the future, so the writer
//! keeps (time, id, size) per request (16 bytes) and writes everything in `finish`, computing
//! the next access in one backward pass. As in libCacheSim's conversions (and the bundled
//! `cloudPhysicsIO.oracleGeneral.bin`), vtime counts requests from 1: the record at 0-based
//! index i whose object is next requested at index j stores j + 1; -1 means never again.

use super::{io_err, TraceWriter};
use crate::{TraceError, TraceErrorKind, TraceRecord};
use std::collections::HashMap;
use std::io::Write;

/// Options matching the producer being imitated.
#[derive(Clone, Debug)]
pub struct OracleOptions {
    /// `clock_time` unit in ns (libCacheSim: seconds).
    pub time_unit_ns: u64,
    /// Give every object the size of its first request, as libCacheSim's converters do
    /// (object caches assume a fixed size per key). Off: each record keeps its request size.
    pub first_size: bool,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions { time_unit_ns: 1_000_000_000, first_size: false }
    }
}

pub struct OracleWriter<W: Write> {
    out: W,
    name: String,
    opts: OracleOptions,
    recs: Vec<(u32, u64, u32)>,
}

impl<W: Write> OracleWriter<W> {
    pub fn new(out: W, name: &str, opts: OracleOptions) -> Self {
        OracleWriter { out, name: name.to_string(), opts, recs: Vec::new() }
    }

    fn unrepresentable(&self, what: String) -> TraceError {
        TraceError::new(
            &self.name,
            self.recs.len() as u64 + 1,
            0,
            TraceErrorKind::Unrepresentable { what, format: "oracleGeneral" },
        )
    }
}

impl<W: Write> TraceWriter for OracleWriter<W> {
    fn write(&mut self, rec: &TraceRecord) -> Result<(), TraceError> {
        let t = rec.time_ns / self.opts.time_unit_ns.max(1);
        let t = u32::try_from(t)
            .map_err(|_| self.unrepresentable(format!("time {t} (u32 clock_time overflows)")))?;
        let size = u32::try_from(rec.size)
            .map_err(|_| self.unrepresentable(format!("object size {}", rec.size)))?;
        self.recs.push((t, rec.obj_id, size));
        Ok(())
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        let n = self.recs.len();
        let mut next = vec![-1i64; n];
        let mut seen: HashMap<u64, usize> = HashMap::with_capacity(n / 2);
        for i in (0..n).rev() {
            if let Some(j) = seen.insert(self.recs[i].1, i) {
                next[i] = j as i64 + 1;
            }
        }
        let mut first: HashMap<u64, u32> = HashMap::new();
        let mut buf = [0u8; 24];
        for (i, &(t, id, size)) in self.recs.iter().enumerate() {
            let size = if self.opts.first_size { *first.entry(id).or_insert(size) } else { size };
            buf[0..4].copy_from_slice(&t.to_le_bytes());
            buf[4..12].copy_from_slice(&id.to_le_bytes());
            buf[12..16].copy_from_slice(&size.to_le_bytes());
            buf[16..24].copy_from_slice(&next[i].to_le_bytes());
            self.out.write_all(&buf).map_err(|e| io_err(&self.name, i as u64 + 1, e))?;
        }
        self.recs.clear();
        self.out.flush().map_err(|e| io_err(&self.name, 0, e))
    }
}
