//! iolab-model: cache policies, tiers, device models and the discrete-event simulator.
