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
}
