//! What a run as the binary performs it can fail on: the engine's errors, and the outputs it
//! writes above the engine (fio's per-job logs, the iolog).

/// A run's error: the engine's, or an output written beside the run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Engine(#[from] iolab_engine::EngineError),
    /// The run's request streams could not be built (`--write-iolog`, `mrc --job`).
    #[error(transparent)]
    Streams(iolab_workload::WorkloadError),
    /// An output file (an iolog, a log file) could not be written.
    #[error("{what}: {source}")]
    Output {
        what: String,
        #[source]
        source: iolab_report::ReportError,
    },
    /// A trace record could not be written.
    #[error("{what}: {source}")]
    Trace {
        what: String,
        #[source]
        source: iolab_trace::TraceError,
    },
}
