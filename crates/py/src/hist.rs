//! `iolab.Histogram`: `iolab_stats::LatHist`, the run's own latency histogram (HdrHistogram's
//! buckets at 3 significant digits, 1 ns to 1 h, with exact count, min, max and sum), so a
//! merge is the histogram of all the samples and percentiles are the ones `iolab run` reports.

use iolab_stats::{LatHist, LatStats};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// An exact latency histogram in nanoseconds.
#[pyclass(module = "iolab._native", subclass)]
#[derive(Clone, Default)]
pub struct Histogram {
    h: LatHist,
}

fn nonneg(ns: i64) -> PyResult<u64> {
    u64::try_from(ns).map_err(|_| PyValueError::new_err(format!("latency {ns} ns: expected >= 0")))
}

impl Histogram {
    fn stats(&self, pcts: &[f64]) -> LatStats {
        self.h.to_stats(pcts)
    }
}

#[pymethods]
impl Histogram {
    #[new]
    fn new() -> Self {
        Histogram::default()
    }

    /// Records one latency of `ns` nanoseconds (`count` times).
    #[pyo3(signature = (ns, count=1))]
    fn record(&mut self, ns: i64, count: i64) -> PyResult<()> {
        let (ns, count) = (nonneg(ns)?, nonneg(count)?);
        self.h.record_n(ns, count);
        Ok(())
    }

    /// Records every latency (ns) of a uint64 array; the GIL is released meanwhile.
    fn record_array(&mut self, py: Python<'_>, ns: PyReadonlyArray1<'_, u64>) -> PyResult<()> {
        let v = ns.as_slice()?;
        let h = &mut self.h;
        py.allow_threads(|| v.iter().for_each(|&x| h.record(x)));
        Ok(())
    }

    /// Adds every sample of `other` (the histogram of both sample sets).
    fn merge(&mut self, other: &Histogram) {
        self.h.merge(&other.h);
    }

    /// The latency (ns, an int) at percentile `p` in percent (50, 99.9): the first bucket
    /// whose cumulative count reaches ceil(p/100 * count), clamped to [min, max].
    fn percentile(&self, p: f64) -> PyResult<u64> {
        if !(0.0..=100.0).contains(&p) {
            return Err(PyValueError::new_err(format!("percentile {p}: expected 0 to 100")));
        }
        Ok(self.stats(&[]).percentile(p).value)
    }

    /// Number of samples.
    #[getter]
    fn count(&self) -> u64 {
        self.h.count()
    }

    /// (min, max) in ns, exact; (0, 0) when empty.
    #[getter]
    fn min_max(&self) -> (u64, u64) {
        let s = self.stats(&[]);
        (s.min, s.max)
    }

    /// Mean in ns, exact (the sum is kept as an integer); 0 when empty.
    #[getter]
    fn mean(&self) -> f64 {
        self.stats(&[]).mean
    }

    /// The non-empty buckets as (highest value of the bucket in ns, count) pairs.
    fn buckets(&self) -> Vec<(u64, u64)> {
        self.stats(&[]).buckets
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }
}
