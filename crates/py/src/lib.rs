//! `iolab._native`: the Rust half of the `iolab` Python package (the Python half,
//! `python/iolab/__init__.py`, shapes what this returns into numpy arrays, DataFrames and
//! result objects). Every function calls the iolab library crate that owns the work
//! (`iolab-trace`, `-model`, `-job`, `-stats`, `-engine`, `-calibrate`, `-report`); nothing
//! here re-implements the CLI. Work on a trace or I/O runs with the GIL released and behind
//! `catch_unwind`, so a panic reaches Python as `iolab.Error`, never as a crash.

use pyo3::prelude::*;
use pyo3::types::PyType;
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};

mod curve;
mod hist;
mod job;
mod trace;

/// A Python exception of class `name` from `iolab._errors` (`Error`, `InputError`,
/// `TraceError`, `ModelError`, `JobError`, `RunError`, `CalibrateError`) with `msg`.
pub(crate) fn err(name: &str, msg: impl Display) -> PyErr {
    let msg = msg.to_string();
    Python::with_gil(|py| {
        let class = py
            .import("iolab._errors")
            .and_then(|m| m.getattr(name))
            .and_then(|c| c.downcast_into::<PyType>().map_err(PyErr::from));
        match class {
            Ok(c) => PyErr::from_type(c, msg),
            Err(e) => e,
        }
    })
}

/// `f` with the GIL released, its panics turned into `iolab.Error` (`what` names the call).
pub(crate) fn released<T: Send>(
    py: Python<'_>,
    what: &str,
    f: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    let out = py.allow_threads(|| catch_unwind(AssertUnwindSafe(f)));
    out.unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(err("Error", format!("{what}: internal error: {why}")))
    })
}

/// A serde value as the Python object `json.loads` makes of it.
pub(crate) fn to_py(py: Python<'_>, v: &impl serde::Serialize) -> PyResult<PyObject> {
    let text = serde_json::to_string(v).map_err(|e| err("Error", e))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// An input path checked as the CLI checks it (`iolab_core::input`: a regular file, opened
/// without blocking): a FIFO, a device, a directory or a missing file raise
/// `iolab.InputError` (a `ValueError`) with the CLI's line.
pub(crate) fn check_input(path: &std::path::Path, what: &'static str) -> PyResult<()> {
    iolab_core::input::open_input(path, what, Default::default())
        .map(drop)
        .map_err(|e| err("InputError", e))
}

/// A path the call would read as a file, refused up front as `iolab.InputError` (a
/// `ValueError`) with the CLI's line when it exists and is not a regular file (a FIFO, a
/// socket, a device, a directory); a missing path is left to the call, whose error names it.
pub(crate) fn refuse_special(path: &std::path::Path, what: &'static str) -> PyResult<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => check_input(path, what),
        _ => Ok(()),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    trace::register(m)?;
    curve::register(m)?;
    job::register(m)?;
    m.add_class::<hist::Histogram>()?;
    Ok(())
}
