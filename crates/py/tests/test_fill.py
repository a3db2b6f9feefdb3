"""iolab.fill against the coupon collector and the CLI."""

import math

import iolab
from conftest import cli_json


def test_one_million_entries_fill_as_the_coupon_collector_says():
    n = 1_000_000
    f = iolab.fill(n, targets=[0.5, 0.9, 0.99])
    h = sum(1.0 / k for k in range(1, n + 1))
    assert abs(f.expected_reads - n * h) / (n * h) < 1e-9
    # Erdos-Renyi: P(full after n ln n + c n reads) -> exp(-exp(-c)).
    for t, reads in zip(f.targets, f.reads):
        c = -math.log(-math.log(t))
        assert abs(reads / (n * math.log(n) + c * n) - 1) < 2e-3, (t, reads)
    assert f.passes.tolist() == (f.reads / n).tolist()
    doc = cli_json("fill", "--entries", "1M", "--json")
    assert f.report == doc
    ff = f.table["filled_fraction"]
    assert ff[0] < ff[-1] <= 1.0
