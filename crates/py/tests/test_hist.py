"""iolab.Histogram: exact merges and percentiles."""

import math

import numpy as np
import pytest

import iolab


def test_merged_histogram_equals_the_histogram_of_all_samples():
    rng = np.random.default_rng(7)
    a = rng.lognormal(11, 1.2, 50_000).astype(np.uint64)
    b = rng.lognormal(13, 0.5, 30_000).astype(np.uint64)
    ha, hb, hall = iolab.Histogram(), iolab.Histogram(), iolab.Histogram()
    ha.record(a)
    hb.record(b)
    hall.record(np.concatenate([a, b]))
    ha.merge(hb)
    assert ha.buckets() == hall.buckets()
    assert (ha.count, ha.min, ha.max, ha.mean) == (hall.count, hall.min, hall.max, hall.mean)
    for p in (1, 50, 90, 99, 99.9, 99.99, 100):
        assert ha.percentile(p) == hall.percentile(p)
    allv = np.concatenate([a, b])
    assert ha.count == len(allv)
    assert (ha.min, ha.max) == (int(allv.min()), int(allv.max()))
    assert ha.mean == pytest.approx(float(allv.astype(np.float64).mean()), rel=1e-12)


def test_percentiles_are_exact_below_2048_ns():
    # HdrHistogram at 3 digits keeps every value below 2048 in its own bucket.
    v = np.arange(1, 2001, dtype=np.uint64)
    h = iolab.Histogram()
    h.record(v)
    for p in (0.1, 1, 25, 50, 99, 99.9):
        assert h.percentile(p) == int(v[math.ceil(p / 100 * len(v)) - 1]), p


def test_record_with_count_and_from_json_plus_bins():
    h = iolab.Histogram()
    h.record(1000, 3)
    h.record(5000)
    assert h.count == 4 and h.percentile(75) == 1000 and h.percentile(100) == 5000
    j = iolab.Histogram.from_json_plus({"bins": {"1000": 3, "5000": 1}})
    assert j.buckets() == h.buckets()
