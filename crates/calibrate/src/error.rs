//! Typed errors of calibration and prediction: each names the target, option or job.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CalibrateError {
    #[error("--budget={value}: {why}")]
    Budget { value: String, why: String },
    /// A command-line value (`--size`, `--max-depth`) out of its range or unreadable.
    #[error("--{flag}={value}: {why}")]
    Flag { flag: &'static str, value: String, why: String },
    #[error("target {path}: {why}")]
    Target { path: String, why: String },
    #[error("calibration point {point}: {why}")]
    Point { point: String, why: String },
    #[error(transparent)]
    Job(#[from] iolab_job::JobError),
    #[error(transparent)]
    Engine(#[from] iolab_engine::EngineError),
    #[error(transparent)]
    Model(#[from] iolab_model::ModelError),
    #[error(transparent)]
    Workload(#[from] iolab_workload::WorkloadError),
    #[error(transparent)]
    Sim(#[from] iolab_model::SimError),
}
