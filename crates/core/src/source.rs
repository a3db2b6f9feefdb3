//! The one request-stream trait shared by the engine's worker loop and the simulator: a
//! workload generator, a trace reader or a test's closure fills a caller-owned
//! [`IoRequest`], so a stream costs no allocation per request (libCacheSim's reader fills a
//! caller-owned `request_t` the same way).

use crate::IoRequest;

/// Where requests come from.
///
/// ```
/// use iolab_core::{IoDir, IoRequest, RequestSource};
/// let mut n = 0;
/// let mut two = |r: &mut IoRequest| {
///     n += 1;
///     *r = IoRequest::new(IoDir::Read, 0, 4096 * n, 4096);
///     n <= 2
/// };
/// let mut r = IoRequest::default();
/// assert!(two.next_into(&mut r) && two.next_into(&mut r) && !two.next_into(&mut r));
/// ```
pub trait RequestSource {
    /// Fill `r` with the next request; `false` at the end of the stream.
    fn next_into(&mut self, r: &mut IoRequest) -> bool;

    /// Passes over the files completed so far (each `loops` iteration, or a time-based wrap,
    /// starts a new one); engines with a per-file open hook run it again in each pass.
    fn passes(&self) -> u64 {
        0
    }
}

impl<F: FnMut(&mut IoRequest) -> bool> RequestSource for F {
    #[inline]
    fn next_into(&mut self, r: &mut IoRequest) -> bool {
        self(r)
    }
}
