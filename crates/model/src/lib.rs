//! iolab-model: cache policies, tiers, device models, the discrete-event simulator,
//! miss-ratio curves and cache-fill mathematics.
//!
//! - [`policy`]: eviction algorithms (LRU … Belady) behind one trait and one registry;
//! - [`block`]: request → cache-block splitting, record-size amplification, write policies;
//! - [`tier`]: a chain of cache tiers over a backing device, with per-tier statistics;
//! - [`device`]: HDD (seek curve, rotation, zones, queue reordering), SSD and RAM timing;
//! - [`sim`]: discrete-event time: queue depth, arrivals, latency histograms.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod block;
pub mod device;
pub mod error;
pub mod fill;
pub mod fill_report;
pub mod mrc;
pub mod mrc_policies;
pub mod mrc_report;
pub mod policy;
pub mod sim;
pub mod tier;

pub use error::{ModelError, SimError};
