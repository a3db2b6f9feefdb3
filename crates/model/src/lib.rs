//! iolab-model: cache policies, tiers, device models, the discrete-event simulator,
//! miss-ratio curves and cache-fill mathematics.

pub mod fill;
pub mod mrc;
