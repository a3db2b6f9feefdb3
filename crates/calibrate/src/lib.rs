//! Calibration: a short, designed sweep of real I/O on a target (file, block device or
//! directory) run through `iolab_engine`'s runner, fitted into a
//! [`iolab_model::device::profile::DeviceProfile`]; and prediction of any job on a profiled
//! device through the model's simulator ([`predict::predict`]), so `iolab run --predict` and
//! `iolab calibrate` share one path.
//!
//! ```no_run
//! use iolab_calibrate::{calibrate, CalibrateOptions};
//! let opts = CalibrateOptions { budget_secs: 10.0, ..CalibrateOptions::default() };
//! let cal = calibrate(std::path::Path::new("/tmp/cal.dat"), &opts)?;
//! println!("{}", cal.profile.to_toml()?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Method (names as in `fit.rs`): least-squares service-time curves over size at QD1 (the
//! latency body's mean, stalls taken out), a √-distance positioning term from the small- vs
//! full-span points, an M/M/c-style server count chosen by grid search over the depth points,
//! the host's CPU per I/O from one vs two submitting threads, a bandwidth cap from the deep
//! 1 MiB points (elsewhere how transfers share the data path, per size with the deep 64 KiB
//! read point), blk-throttle's windowed IOPS cap when the deep points sit flat on one, and
//! the latency at each depth as empirical quantiles split into a body and a stall process.

pub mod error;
pub mod fit;
pub mod metrics;
pub mod options;
pub mod predict;
pub mod range;
pub mod sweep;
pub mod target;
pub mod versus;

pub use error::CalibrateError;
pub use sweep::{calibrate, calibrate_with_progress, CalibrateOptions, Calibration, Progress};
