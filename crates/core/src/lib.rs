//! iolab's shared vocabulary.
//!
//! Every other crate speaks in these types: the direction of an I/O ([`IoDir`]), one request
//! of a workload or a trace ([`IoRequest`]), time in nanoseconds ([`Nanos`]), fio's size and
//! time units ([`units`]) and the seeded generators ([`rand`]) that make a workload the same
//! whether it is run, simulated or exported.
//!
//! ```
//! use iolab_core::{IoDir, IoRequest};
//! let r = IoRequest::new(IoDir::Read, 0, 4096, 4096);
//! assert_eq!(r.end(), 8192);
//! ```

pub mod dir;
pub mod gate;
pub mod input;
pub mod rand;
pub mod request;
pub mod source;
pub mod stop;
pub mod time;
pub mod units;

pub use dir::{IoDir, PerDir};
pub use request::IoRequest;
pub use source::RequestSource;
pub use time::Nanos;

/// The fio iolab speaks as: the version string fio writes in `--version`, terse v3+ and JSON
/// (`fio_version_string`).
pub const FIO_VERSION: &str = "fio-3.33";
