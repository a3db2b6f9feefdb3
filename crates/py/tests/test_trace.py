"""read_trace / iter_trace / trace_stat on the bundled CloudPhysics trace."""

import numpy as np

import iolab
from conftest import CSV, cli_json


def raw_oracle(path):
    """oracleGeneral decoded by numpy alone: u32 time, u64 obj_id, u32 size, i64 next."""
    dt = np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    return np.fromfile(path, dtype=dt)


def test_read_trace_equals_the_file_record_for_record(oracle):
    raw = raw_oracle(oracle)
    t = iolab.read_trace(oracle)
    assert t.dtype == iolab.TRACE_DTYPE
    assert len(t) == len(raw) == oracle.stat().st_size // 24
    np.testing.assert_array_equal(t["obj_id"], raw["id"])
    np.testing.assert_array_equal(t["size"], raw["size"])
    np.testing.assert_array_equal(t["next_access"], raw["next"])
    # oracleGeneral's clock is seconds (libCacheSim's default): ns = s * 1e9.
    np.testing.assert_array_equal(t["time_ns"], raw["t"].astype(np.uint64) * 1_000_000_000)


def test_iter_trace_chunks_add_up_to_the_whole(oracle):
    whole = iolab.read_trace(oracle)
    parts = list(iolab.iter_trace(oracle, chunk=7919))
    assert [len(p) for p in parts[:-1]] == [7919] * (len(parts) - 1)
    assert 0 < len(parts[-1]) <= 7919
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_the_cloudphysics_csv_reads_with_its_ops_and_agrees_with_trace_stat():
    t = iolab.read_trace(CSV)
    d = iolab.trace_stat(CSV)
    assert len(t) == d["requests"] == d["read"]["requests"] + d["write"]["requests"]
    assert int((t["op"] == 1).sum()) == d["write"]["requests"]
    assert int(t["size"][t["op"] == 1].sum()) == d["write"]["bytes"]


def test_trace_stat_is_the_cli_document_with_the_blender_verdict():
    d = iolab.trace_stat(CSV)
    c = cli_json("trace", "stat", CSV, "--output-format", "json")
    assert d == c
    assert d["requests"] == 113_872
    assert any(n.startswith("I/O blender:") and "blended" in n for n in d["notes"])
