"""iolab.mrc and iolab.simulate equal the CLI to the last digit on the bundled real trace
(which no test generated)."""

import numpy as np
import pytest

import iolab
from conftest import cli_json


def test_mrc_equals_iolab_mrc_json(oracle):
    c = iolab.mrc(oracle)
    doc = cli_json("mrc", oracle, "--output-format", "json")
    pts = doc["points"]
    assert c.sizes.tolist() == [p["cache_entries"] for p in pts]
    assert c.miss_ratio.tolist() == [p["miss_ratio"] for p in pts]
    assert c.byte_miss_ratio.tolist() == [p["byte_miss_ratio"] for p in pts]
    assert c.report["requests"] == doc["requests"] == oracle.stat().st_size // 24
    assert np.all(np.diff(c.miss_ratio) <= 0), "LRU's curve never rises"


def test_mrc_at_sizes_and_sampled_equal_the_cli(oracle):
    sizes = [10, 100, 1000, 5000, 20000]
    c = iolab.mrc(oracle, sizes=sizes)
    doc = cli_json("mrc", oracle, "--sizes", ",".join(map(str, sizes)), "--output-format", "json")
    assert c.sizes.tolist() == sizes
    assert c.miss_ratio.tolist() == [p["miss_ratio"] for p in doc["points"]]
    s = iolab.mrc(oracle, sample=0.1, points=12)
    sdoc = cli_json("mrc", oracle, "--shards", "0.1", "--points", "12", "--output-format", "json")
    want = [np.nan if p["miss_ratio"] is None else p["miss_ratio"] for p in sdoc["points"]]
    np.testing.assert_array_equal(s.miss_ratio, np.array(want))


def test_mrc_of_the_array_equals_the_mrc_of_the_file(oracle):
    t = iolab.read_trace(oracle)
    a, f = iolab.mrc(t, points=20), iolab.mrc(oracle, points=20)
    assert a.sizes.tolist() == f.sizes.tolist()
    assert a.miss_ratio.tolist() == f.miss_ratio.tolist()
    assert a.byte_miss_ratio.tolist() == f.byte_miss_ratio.tolist()


@pytest.mark.parametrize("policy,size", [("lru", 1000), ("fifo", 3000), ("s3fifo", 5000),
                                         ("arc", 2000), ("belady", 1000)])
def test_simulate_equals_sim_object_level(oracle, policy, size):
    r = iolab.simulate(oracle, policy, size)
    rows = cli_json("sim", "--object-level", "--trace", oracle, "--policy", policy,
                    "--cache-size", size, "--output-format", "json")
    row = rows[0] if isinstance(rows, list) else rows["rows"][0]
    assert (r.requests, r.misses, r.miss_ratio) == (row["requests"], row["misses"],
                                                   row["miss_ratio"])
    # The same pass over the array read into numpy counts the same.
    a = iolab.simulate(iolab.read_trace(oracle), policy, size)
    assert (a.requests, a.misses, a.bytes, a.byte_misses) == (r.requests, r.misses, r.bytes,
                                                             r.byte_misses)
    assert 0 < r.byte_miss_ratio < 1


def test_lru_curve_by_simulation_equals_the_stack_distance_curve(oracle):
    sizes = [50, 500, 5000]
    stack = iolab.mrc(oracle, sizes=sizes)
    lru = [iolab.simulate(oracle, "lru", s).miss_ratio for s in sizes]
    assert stack.miss_ratio.tolist() == lru
    fifo = iolab.mrc(oracle, policy="fifo", sizes=sizes)
    assert fifo.policy == "fifo"
    assert fifo.miss_ratio.tolist() == [iolab.simulate(oracle, "fifo", s).miss_ratio
                                        for s in sizes]


def test_several_policies_make_one_dataframe(oracle):
    pytest.importorskip("pandas")
    df = iolab.mrc(oracle, policy=["lru", "fifo"], sizes=[100, 1000])
    assert list(df.columns) == ["policy", "size", "miss_ratio", "byte_miss_ratio"]
    assert df["policy"].tolist() == ["lru", "lru", "fifo", "fifo"]
    assert df["size"].tolist() == [100, 1000, 100, 1000]
    fifo1000 = iolab.simulate(oracle, "fifo", 1000).miss_ratio
    assert df.iloc[3]["miss_ratio"] == fifo1000
