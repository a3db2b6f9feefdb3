//! Traces into numpy: [`TraceChunks`] reads any format `iolab-trace` reads, a chunk of
//! records at a time, into packed little-endian records that Python views as a structured
//! array (`iolab.TRACE_DTYPE`); `trace_stat` is `iolab trace stat`'s document.

use crate::{check_input, err, released, to_py};
use iolab_core::IoDir;
use iolab_trace::{ReaderConfig, TraceRecord};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;

/// Bytes per record: time_ns u64, obj_id u64, offset u64, size u64, next_access i64,
/// file u32, op u8, 3 bytes of padding (`iolab.TRACE_DTYPE`).
pub const RECORD_BYTES: usize = 48;

/// A trace opened for reading in chunks: a thread of its own opens and reads it (a
/// reader is not `Send`), handing over up to two chunks ahead through a bounded channel;
/// dropping this ends the thread at its next hand-over.
#[pyclass(module = "iolab._native")]
pub struct TraceChunks {
    /// `None` after the last chunk or an error. In a mutex: a receiver is `Send` but not
    /// `Sync`, and a Python class must be both.
    rx: Mutex<Option<Chunks>>,
    format: String,
}

type Chunks = Receiver<Result<Vec<u8>, String>>;

/// Opens `path` on a new thread and reads it in chunks of `n` records; returns the format
/// name (or the opening error) and the channel.
fn spawn_reader(
    path: PathBuf,
    format: Option<String>,
    n: usize,
) -> Result<(String, Chunks), String> {
    let (tx, rx) = sync_channel(2);
    let (ftx, frx) = sync_channel(1);
    std::thread::Builder::new()
        .name("iolab-trace".into())
        .spawn(move || {
            let mut r = match iolab_trace::open(&path, format.as_deref(), &object_config()) {
                Ok(r) => r,
                Err(e) => return drop(ftx.send(Err(e.to_string()))),
            };
            if ftx.send(Ok(r.format().to_string())).is_err() {
                return;
            }
            let mut rec = TraceRecord::default();
            loop {
                let mut out = Vec::with_capacity(n.min(1 << 20) * RECORD_BYTES);
                let mut got = 0;
                let end = loop {
                    if got == n {
                        break Ok(false);
                    }
                    match r.read_into(&mut rec) {
                        Ok(true) => pack(&mut out, &rec),
                        Ok(false) => break Ok(true),
                        Err(e) => break Err(e.to_string()),
                    }
                    got += 1;
                };
                let last = !matches!(end, Ok(false));
                let sent = match end {
                    Err(e) if out.is_empty() => tx.send(Err(e)),
                    Err(e) => tx.send(Ok(out)).and_then(|_| tx.send(Err(e))),
                    Ok(_) => tx.send(Ok(out)),
                };
                if last || sent.is_err() {
                    return;
                }
            }
        })
        .map_err(|e| format!("trace: cannot start the reading thread: {e}"))?;
    let fmt = frx.recv().map_err(|_| "trace: the reading thread ended".to_string())??;
    Ok((fmt, rx))
}

/// `op` codes: 0 read, 1 write, 2 trim, 3 sync.
fn op_code(d: IoDir) -> u8 {
    match d {
        IoDir::Read => 0,
        IoDir::Write => 1,
        IoDir::Trim => 2,
        IoDir::Sync => 3,
    }
}

fn pack(out: &mut Vec<u8>, r: &TraceRecord) {
    out.extend_from_slice(&r.time_ns.to_le_bytes());
    out.extend_from_slice(&r.obj_id.to_le_bytes());
    out.extend_from_slice(&r.req.offset.to_le_bytes());
    out.extend_from_slice(&r.size.to_le_bytes());
    out.extend_from_slice(&r.next_access.to_le_bytes());
    out.extend_from_slice(&r.req.file.to_le_bytes());
    out.extend_from_slice(&[op_code(r.req.dir), 0, 0, 0]);
}

/// The reader configuration of `iolab mrc`/`sim --object-level` (object ids kept as keys).
pub(crate) fn object_config() -> ReaderConfig {
    ReaderConfig { oracle_id_unit_bytes: 1, ..ReaderConfig::default() }
}

#[pymethods]
impl TraceChunks {
    /// `path` in `format` (default: detected), read `chunk` records at a time.
    #[new]
    #[pyo3(signature = (path, format=None, chunk=1 << 20))]
    fn new(py: Python<'_>, path: PathBuf, format: Option<String>, chunk: usize) -> PyResult<Self> {
        check_input(&path, "trace")?;
        if chunk == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "chunk: expected at least 1 record",
            ));
        }
        let (format, rx) = released(py, "read_trace", || {
            spawn_reader(path, format, chunk).map_err(|e| err("TraceError", e))
        })?;
        Ok(TraceChunks { rx: Mutex::new(Some(rx)), format })
    }

    /// The trace's format name (`oracleGeneral`, `csv`, …).
    fn format(&self) -> String {
        self.format.clone()
    }

    /// The next chunk as packed records (a uint8 array, 48 bytes a record); `None` at the end.
    fn next_chunk<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<u8>>>> {
        let Some(rx) = self.rx.get_mut().map_err(|_| err("Error", "trace: poisoned"))?.take()
        else {
            return Ok(None);
        };
        let (rx, got) = py.allow_threads(move || {
            let got = rx.recv();
            (rx, got)
        });
        match got {
            Ok(Ok(bytes)) if !bytes.is_empty() => {
                *self.rx.get_mut().map_err(|_| err("Error", "trace: poisoned"))? = Some(rx);
                Ok(Some(bytes.into_pyarray(py)))
            }
            Ok(Err(e)) => Err(err("TraceError", e)),
            _ => Ok(None),
        }
    }
}

/// `iolab trace stat PATH`'s JSON document (with the blender verdict in `notes`) as a dict.
#[pyfunction]
#[pyo3(signature = (path, format=None, block_size=4096, stream_window=256))]
fn trace_stat(
    py: Python<'_>,
    path: PathBuf,
    format: Option<String>,
    block_size: u64,
    stream_window: u64,
) -> PyResult<PyObject> {
    check_input(&path, "trace")?;
    let bs =
        iolab_model::mrc_report::check_block_size(block_size).map_err(|e| err("InputError", e))?;
    let doc = released(py, "trace_stat", || {
        let opts = iolab_trace::ops::ReadOptions {
            format,
            lenient: false,
            oracle_time_unit: "s".into(),
            blkparse_action: 'Q',
        };
        let mut r = opts.open(&path).map_err(|e| err("TraceError", e))?;
        let mut stack = iolab_model::mrc::stack::StackDistance::new();
        let name = path.display().to_string();
        let s = iolab_trace::ops::stat(&mut *r, &name, bs, stream_window, &mut |k| stack.access(k))
            .map_err(|e| err("TraceError", e))?;
        serde_json::to_value(iolab_trace::ops::stat_doc(&path, &s)).map_err(|e| err("Error", e))
    })?;
    to_py(py, &doc)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TraceChunks>()?;
    m.add_function(wrap_pyfunction!(trace_stat, m)?)?;
    m.add("RECORD_BYTES", RECORD_BYTES)?;
    Ok(())
}
