//! Typed errors for the model crate: bad tier/policy/device specifications and inputs. Every
//! variant names the offending value so the CLI can print one line that says what to fix.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("unknown cache policy `{name}` (known: {known})")]
    UnknownPolicy { name: String, known: String },
    #[error("unknown device preset `{name}` (known: {known})")]
    UnknownPreset { name: String, known: String },
    #[error("unknown tier kind `{name}` in `{spec}` (expected ram, ssd, nvme or hdd)")]
    UnknownTier { name: String, spec: String },
    #[error(
        "unknown write policy `{name}` in `{spec}` (expected writethrough, writeback, writearound)"
    )]
    UnknownWritePolicy { name: String, spec: String },
    #[error("bad size `{value}` in `{spec}`: {why}")]
    BadSize { value: String, spec: String, why: String },
    #[error("bad tier spec `{spec}`: {why}")]
    BadTierSpec { spec: String, why: String },
    #[error("cache tier `{tier}` ({cache_bytes} bytes) is larger than the backing store ({backing_bytes} bytes)")]
    CacheLargerThanBacking { tier: String, cache_bytes: u64, backing_bytes: u64 },
    #[error("bad parameter `{name}` = `{value}`: {why}")]
    BadParam { name: String, value: String, why: String },
    #[error("hierarchy config {path}: {why}")]
    Config { path: String, why: String },
    #[error("device profile {path}: {why}")]
    Profile { path: String, why: String },
    /// A file the model reads (a device profile) could not be read.
    #[error(transparent)]
    Input(#[from] iolab_core::input::InputError),
}

/// Why a simulation could not be built or finished (jobs, traces, layout on the backing
/// device), as opposed to a bad specification ([`ModelError`]).
#[derive(Debug, Error)]
pub enum SimError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Workload(#[from] iolab_workload::WorkloadError),
    #[error(transparent)]
    Trace(#[from] iolab_trace::TraceError),
    #[error("simulation stopped at a bad trace record: {0}")]
    BadRecord(iolab_trace::TraceError),
    #[error("file {file}: the jobs' files do not fit in 2^64 bytes")]
    Layout { file: String },
    #[error("--trace-iodepth={0}: expected 1 to 65536 requests in flight")]
    TraceDepth(usize),
    #[error("bad --cache-size `{0}`: expected a positive number of objects")]
    ObjectCount(String),
    #[error("policy `{policy}` needs next-access times: use an oracleGeneral trace, not {format}")]
    NeedsOracle { policy: String, format: String },
}
