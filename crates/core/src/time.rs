//! Time in nanoseconds. Workload schedules, latencies and simulated clocks all use it, so
//! rates up to millions of I/Os per second keep their precision (fio's poisson mode works in
//! whole microseconds and overshoots above ~300k IOPS).

use serde::{Deserialize, Serialize};

/// A duration or a point in time relative to the start of a run, in nanoseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);
    /// About 584 years: where a time saturates (a `runtime` of 10^11 s, as fio accepts).
    pub const MAX: Nanos = Nanos(u64::MAX);
    pub const PER_US: u64 = 1_000;
    pub const PER_MS: u64 = 1_000_000;
    pub const PER_SEC: u64 = 1_000_000_000;

    pub fn from_secs(s: u64) -> Self {
        Nanos(s.saturating_mul(Self::PER_SEC))
    }
    pub fn from_millis(ms: u64) -> Self {
        Nanos(ms.saturating_mul(Self::PER_MS))
    }
    pub fn from_micros(us: u64) -> Self {
        Nanos(us.saturating_mul(Self::PER_US))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::PER_SEC as f64
    }
    pub fn as_millis(self) -> u64 {
        self.0 / Self::PER_MS
    }
    pub fn saturating_sub(self, o: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(o.0))
    }
}

/// Sums saturate at [`Nanos::MAX`]: a deadline past it (a huge `runtime` plus a ramp) is
/// "never", not a wrapped instant in the past.
impl std::ops::Add for Nanos {
    type Output = Nanos;
    fn add(self, o: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(o.0))
    }
}

impl std::ops::AddAssign for Nanos {
    fn add_assign(&mut self, o: Nanos) {
        self.0 = self.0.saturating_add(o.0);
    }
}

impl From<std::time::Duration> for Nanos {
    fn from(d: std::time::Duration) -> Self {
        Nanos(d.as_nanos().min(u64::MAX as u128) as u64)
    }
}

impl From<Nanos> for std::time::Duration {
    fn from(n: Nanos) -> Self {
        std::time::Duration::from_nanos(n.0)
    }
}
