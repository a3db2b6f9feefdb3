//! Jobs: `iolab parse`'s document (`job::describe`), a run through `engine::runner` (the one
//! place this package runs I/O: [`run_jobs`]), `iolab sim` of jobs through cache tiers
//! (`model::sim::setup`), `run --predict` (`calibrate::versus`) and `iolab calibrate`.

use crate::{err, released, to_py};
use iolab_core::stop::Stop;
use iolab_job::{LoadOptions, Parsed};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

/// Jobs from a job file (`path`) or job-file text, with fio-style `--name=value` options
/// (global: before any `--name`).
fn load(path: Option<PathBuf>, text: Option<String>, cmdline: Vec<String>) -> PyResult<Parsed> {
    let parsed = match (path, text) {
        (Some(p), _) => {
            crate::check_input(&p, "job file")?;
            iolab_job::load(&LoadOptions { files: vec![p], cmdline, sections: vec![] })
        }
        (None, Some(t)) if cmdline.is_empty() => iolab_job::parse_str("<text>", &t),
        (None, Some(_)) => {
            return Err(err("JobError", "job text and options: put the options in the text"))
        }
        (None, None) => iolab_job::load(&LoadOptions { files: vec![], cmdline, sections: vec![] }),
    };
    parsed.map_err(|e| err("JobError", e))
}

/// `iolab parse`'s document: `{"jobs": [...], "warnings": [...]}`, each job with every option
/// set as `{value, raw, origin}` (values typed: sizes in bytes, times in their unit).
#[pyfunction]
#[pyo3(signature = (path=None, text=None, cmdline=vec![]))]
fn parse_job(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    cmdline: Vec<String>,
) -> PyResult<PyObject> {
    let parsed = load(path, text, cmdline)?;
    let doc = iolab_job::describe::document(&parsed, &[], false).map_err(|e| err("Error", e))?;
    to_py(py, &doc)
}

/// A result as fio's JSON (`--output-format json+`) document, for `iolab.load_result`.
fn result_json(py: Python<'_>, r: &iolab_stats::RunResult) -> PyResult<PyObject> {
    let e = iolab_report::exporter("json+").map_err(|e| err("Error", e))?;
    let bytes = e.render(r).map_err(|e| err("Error", e))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// The jobs run by `iolab_engine::runner` on a thread of their own while this one holds the
/// GIL only to poll Python's signals every 100 ms: Ctrl-C sets the run's stop, the workers end
/// at their next I/O, and `KeyboardInterrupt` is raised once they have.
fn run_jobs(py: Python<'_>, parsed: &Parsed) -> PyResult<iolab_stats::RunResult> {
    let stop = Stop::new();
    let opts = iolab_engine::runner::RunOptions::default();
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        // A receiver is not `Sync`: the GIL-free wait borrows it through a mutex.
        let rx = std::sync::Mutex::new(rx);
        let worker_stop = stop.clone();
        let jobs = &parsed.jobs;
        let opts = &opts;
        s.spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                iolab_engine::runner::run_jobs(jobs, opts, worker_stop, None)
            }));
            let _ = tx.send(r);
        });
        let mut interrupted = None;
        loop {
            let got = py.allow_threads(|| match rx.lock() {
                Ok(r) => r.recv_timeout(Duration::from_millis(100)),
                Err(_) => Err(std::sync::mpsc::RecvTimeoutError::Disconnected),
            });
            match got {
                Ok(Ok(Ok(out))) => return interrupted.map_or(Ok(out.result), Err),
                Ok(Ok(Err(e))) => return Err(interrupted.unwrap_or_else(|| err("RunError", e))),
                Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(err("RunError", "run: internal error: the run's thread panicked"))
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            if interrupted.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.set();
                    interrupted = Some(e);
                }
            }
        }
    })
}

/// Runs the jobs (real I/O, as `iolab run`) and returns fio's json+ document of the result.
#[pyfunction]
#[pyo3(signature = (path=None, text=None, cmdline=vec![]))]
fn run(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    cmdline: Vec<String>,
) -> PyResult<PyObject> {
    let parsed = load(path, text, cmdline)?;
    let result = run_jobs(py, &parsed)?;
    result_json(py, &result)
}

/// `iolab sim` of the jobs through `tiers` (`KIND:SIZE[:POLICY[:WRITE]]`, top first) over
/// `backing`: fio's json+ document of the predicted result, with the model's report under
/// `iolab_sim`.
#[pyfunction]
#[pyo3(signature = (tiers, backing, path=None, text=None, cmdline=vec![]))]
fn sim(
    py: Python<'_>,
    tiers: Vec<String>,
    backing: String,
    path: Option<PathBuf>,
    text: Option<String>,
    cmdline: Vec<String>,
) -> PyResult<PyObject> {
    use iolab_model::sim::{jobs, setup, SimOptions};
    // A profile file (a path, or a name ending .toml), as `parse_backing_or_profile` tells.
    if backing.contains('/') || backing.ends_with(".toml") {
        crate::refuse_special(std::path::Path::new(&backing), "device profile")?;
    }
    let parsed = load(path, text, cmdline)?;
    let (result, model) = released(py, "sim", || {
        let mut h = setup::hierarchy(None, &tiers, &backing).map_err(|e| err("ModelError", e))?;
        let files = iolab_engine::runner::clone_files;
        let (mut report, meta, _) =
            setup::simulate_jobs(&mut h, &parsed.jobs, &files).map_err(|e| err("ModelError", e))?;
        let run_meta = iolab_stats::RunMeta {
            percentile_list: SimOptions::default().percentiles,
            ..Default::default()
        };
        let result = jobs::run_result(&mut report, &meta, run_meta);
        let model = serde_json::to_value(&report).map_err(|e| err("Error", e))?;
        Ok((result, model))
    })?;
    let doc = result_json(py, &result)?;
    doc.bind(py).set_item("iolab_sim", to_py(py, &model)?)?;
    Ok(doc)
}

/// `run --predict PROFILE` without the run: the jobs as the device profile (a TOML file of
/// `iolab calibrate`, or empty for the default) would serve them, as fio's json+ document.
#[pyfunction]
#[pyo3(signature = (profile, path=None, text=None, cmdline=vec![]))]
fn predict(
    py: Python<'_>,
    profile: String,
    path: Option<PathBuf>,
    text: Option<String>,
    cmdline: Vec<String>,
) -> PyResult<PyObject> {
    let file = if profile.is_empty() { iolab_calibrate::versus::DEFAULT_PROFILE } else { &profile };
    crate::refuse_special(std::path::Path::new(file), "device profile")?;
    let parsed = load(path, text, cmdline)?;
    let result = released(py, "predict", || {
        let p = iolab_calibrate::versus::load(&profile).map_err(|e| err("CalibrateError", e))?;
        iolab_calibrate::versus::predict(&parsed.jobs, &p).map_err(|e| err("CalibrateError", e))
    })?;
    result_json(py, &result)
}

/// A FIFO, socket or character device as `calibrate`'s target: `iolab.InputError` (a
/// `ValueError`) with the CLI's line, before anything is opened.
fn refuse_unsweepable(target: &std::path::Path) -> PyResult<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(m) = std::fs::metadata(target) else { return Ok(()) };
    let ft = m.file_type();
    if ft.is_fifo() || ft.is_socket() || ft.is_char_device() {
        let why = "not a regular file, block device or directory".to_string();
        let path = target.display().to_string();
        return Err(err("InputError", iolab_calibrate::CalibrateError::Target { path, why }));
    }
    Ok(())
}

/// `iolab calibrate TARGET --budget SECS --size BYTES`: the fitted device profile as TOML
/// text and as a dict, and the wall time in seconds. `size` is the size of a file iolab
/// creates (a new path or a directory).
#[pyfunction]
#[pyo3(signature = (target, budget, allow_write=false, max_depth=64, seed=0x5eed, size=256 << 20))]
fn calibrate(
    py: Python<'_>,
    target: PathBuf,
    budget: f64,
    allow_write: bool,
    max_depth: u32,
    seed: u64,
    size: u64,
) -> PyResult<(String, PyObject, f64)> {
    refuse_unsweepable(&target)?;
    let opts = iolab_calibrate::CalibrateOptions {
        budget_secs: budget,
        new_file_size: size,
        allow_write,
        max_depth,
        seed,
        ..Default::default()
    };
    let (toml, profile, secs) = released(py, "calibrate", || {
        let c = iolab_calibrate::calibrate(&target, &opts).map_err(|e| err("CalibrateError", e))?;
        let toml = c.profile.to_toml().map_err(|e| err("CalibrateError", e))?;
        let v = serde_json::to_value(&c.profile).map_err(|e| err("Error", e))?;
        Ok((toml, v, c.elapsed_secs))
    })?;
    Ok((toml, to_py(py, &profile)?, secs))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_job, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sim, m)?)?;
    m.add_function(wrap_pyfunction!(predict, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    Ok(())
}
