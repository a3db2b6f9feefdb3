//! Curves and simulations: `iolab mrc`'s report (`model::mrc_report`) of a trace or of
//! arrays of object ids, `sim --object-level`'s counts (`model::sim::object`) and
//! `iolab fill`'s figures (`model::fill_report`, `model::fill`).

use crate::{check_input, err, released, to_py};
use iolab_model::mrc_report::{
    trace_accesses_at, CurveOptions, CurveReport, MrcInputError, Source,
};
use iolab_model::sim::object::{count_objects, ObjectCounts};
use iolab_trace::ahead::TracePath;
use iolab_trace::ObjectRequest;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use std::path::PathBuf;

/// The curve options of `iolab mrc` from the Python arguments.
fn curve_options(sizes: Option<Vec<u64>>, points: usize, sample: Option<f64>) -> CurveOptions {
    CurveOptions {
        shards: sample,
        shards_size: None,
        block_size: None,
        points,
        sizes: sizes.unwrap_or_default(),
    }
}

fn mrc_err(e: MrcInputError) -> PyErr {
    match e {
        MrcInputError::Trace(t) => err("TraceError", t),
        e => err("InputError", e),
    }
}

/// `iolab mrc PATH --output-format json`'s document (object granularity, LRU).
#[pyfunction]
#[pyo3(signature = (path, format=None, sizes=None, points=40, sample=None))]
fn mrc_path(
    py: Python<'_>,
    path: PathBuf,
    format: Option<String>,
    sizes: Option<Vec<u64>>,
    points: usize,
    sample: Option<f64>,
) -> PyResult<PyObject> {
    check_input(&path, "trace")?;
    let c = curve_options(sizes, points, sample);
    let report = released(py, "mrc", || {
        let (_, mut builder, method) = c.check().map_err(mrc_err)?;
        let cfg = crate::trace::object_config();
        let src = TracePath { path: &path, format: format.as_deref(), cfg: &cfg };
        let end = trace_accesses_at(src, builder.as_mut(), None).map_err(|e| match e {
            MrcInputError::Trace(t) => err("TraceError", t),
            e => err("InputError", format!("{}: {e}", path.display())),
        })?;
        let curve = builder.finish();
        let label = path.display().to_string();
        let (requests, skipped) = (end.records, end.skipped);
        let format = end.format.to_string();
        let src = Source { label, format, requests, skipped, interrupted: false };
        Ok(CurveReport::new(src, method, None, &curve, &c.points(&curve)))
    })?;
    to_py(py, &report)
}

/// Object requests from parallel arrays (ids, byte sizes, next-access request numbers).
fn requests(
    ids: &[u64],
    bytes: Option<&[u64]>,
    next: Option<&[i64]>,
) -> PyResult<Vec<ObjectRequest>> {
    let n = ids.len();
    if bytes.is_some_and(|b| b.len() != n) || next.is_some_and(|x| x.len() != n) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "obj_id, size and next_access must have the same length",
        ));
    }
    Ok((0..n)
        .map(|i| ObjectRequest {
            obj_id: ids[i],
            next_access: next.map_or(-1, |x| x[i]),
            write: false,
            size: bytes.map_or(1, |b| b[i]),
        })
        .collect())
}

/// The same document as [`mrc_path`] for object ids (and byte sizes) given as arrays.
#[pyfunction]
#[pyo3(signature = (ids, bytes=None, sizes=None, points=40, sample=None))]
fn mrc_ids(
    py: Python<'_>,
    ids: PyReadonlyArray1<'_, u64>,
    bytes: Option<PyReadonlyArray1<'_, u64>>,
    sizes: Option<Vec<u64>>,
    points: usize,
    sample: Option<f64>,
) -> PyResult<PyObject> {
    let reqs = requests(ids.as_slice()?, bytes.as_ref().map(|b| b.as_slice()).transpose()?, None)?;
    let c = curve_options(sizes, points, sample);
    let report = released(py, "mrc", || {
        let (_, mut builder, method) = c.check().map_err(mrc_err)?;
        for chunk in reqs.chunks(4096) {
            builder.access_objects(chunk);
        }
        let curve = builder.finish();
        let requests = reqs.len() as u64;
        let label = "<array>".to_string();
        let src =
            Source { label, format: "array".into(), requests, skipped: 0, interrupted: false };
        Ok(CurveReport::new(src, method, None, &curve, &c.points(&curve)))
    })?;
    to_py(py, &report)
}

fn counts_tuple(c: ObjectCounts) -> (u64, u64, u64, u64, f64, f64) {
    (c.requests, c.misses, c.bytes, c.byte_misses, c.miss_ratio(), c.byte_miss_ratio())
}

fn sim_err(e: iolab_model::SimError) -> PyErr {
    err("ModelError", e)
}

/// `sim --object-level --policy P --cache-size N`'s pass over the trace at `path`:
/// (requests, misses, bytes, byte misses, miss ratio, byte miss ratio).
#[pyfunction]
#[pyo3(signature = (path, policy, cache_size, format=None))]
fn simulate_path(
    py: Python<'_>,
    path: PathBuf,
    policy: String,
    cache_size: usize,
    format: Option<String>,
) -> PyResult<(u64, u64, u64, u64, f64, f64)> {
    check_input(&path, "trace")?;
    released(py, "simulate", || {
        let c = count_objects(&path, format.as_deref(), &policy, cache_size).map_err(sim_err)?;
        Ok(counts_tuple(c))
    })
}

/// The same counts for requests given as arrays (next-access request numbers, 1-based as
/// oracleGeneral's, -1 never, for the offline policies).
#[pyfunction]
#[pyo3(signature = (ids, policy, cache_size, bytes=None, next_access=None))]
fn simulate_ids(
    py: Python<'_>,
    ids: PyReadonlyArray1<'_, u64>,
    policy: String,
    cache_size: usize,
    bytes: Option<PyReadonlyArray1<'_, u64>>,
    next_access: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<(u64, u64, u64, u64, f64, f64)> {
    let next = next_access.as_ref().map(|b| b.as_slice()).transpose()?;
    let reqs = requests(ids.as_slice()?, bytes.as_ref().map(|b| b.as_slice()).transpose()?, next)?;
    let info = iolab_model::policy::lookup(&policy).map_err(|e| err("ModelError", e))?;
    if info.offline && next.is_none() {
        return Err(err(
            "ModelError",
            format!("policy `{policy}` needs next-access times: pass next_access"),
        ));
    }
    released(py, "simulate", || {
        let mut c =
            iolab_model::policy::build(&policy, cache_size).map_err(|e| err("ModelError", e))?;
        let mut counts = ObjectCounts::default();
        counts.add(c.as_mut(), &reqs);
        Ok(counts_tuple(counts))
    })
}

/// `iolab fill --entries N --pattern P [--iops I] --json`'s document, plus `targets`:
/// the reads at which every entry is filled with each probability of `quantiles`.
#[pyfunction]
#[pyo3(signature = (entries, quantiles, pattern="uniform".to_string(), iops=None, monte_carlo=0, seed=1))]
fn fill(
    py: Python<'_>,
    entries: u64,
    quantiles: Vec<f64>,
    pattern: String,
    iops: Option<f64>,
    monte_carlo: usize,
    seed: u64,
) -> PyResult<(PyObject, Vec<f64>)> {
    use iolab_model::fill_report::{FillQuery, FillReport};
    let q = FillQuery {
        entries: entries.to_string(),
        iops,
        observed_passes: None,
        pattern: pattern.clone(),
        monte_carlo,
        seed,
        working_set: None,
    };
    let (report, reads) = released(py, "fill", || {
        let r = FillReport::compute(&q).map_err(|e| err("InputError", e))?;
        let p: iolab_model::fill::Pattern = pattern.parse().map_err(|e| err("InputError", e))?;
        let f = iolab_model::fill::Fill::try_new(r.entries, p).map_err(|e| err("InputError", e))?;
        let reads = quantiles.iter().map(|&x| f.quantile(x)).collect::<Vec<f64>>();
        Ok((r, reads))
    })?;
    Ok((to_py(py, &report)?, reads))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mrc_path, m)?)?;
    m.add_function(wrap_pyfunction!(mrc_ids, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_path, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_ids, m)?)?;
    m.add_function(wrap_pyfunction!(fill, m)?)?;
    Ok(())
}
