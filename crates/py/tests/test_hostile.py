"""The package's hostile-input harness: negative, NaN, huge, wrong dtype, a FIFO, a device
node, a binary file, symlink loops, a directory. Each raises ValueError/TypeError or an
iolab.Error with one line, never hangs, crashes or returns a partial result."""

import os
import stat

import numpy as np
import pytest

import iolab

BAD_ARGS = (ValueError, TypeError, iolab.Error)


def one_line(e):
    msg = str(e.value)
    assert msg and "\n" not in msg, msg
    return msg


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "fifo"
    os.mkfifo(p)
    return p


@pytest.fixture
def loop(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    os.symlink(b, a)
    os.symlink(a, b)
    return a


@pytest.fixture
def device(tmp_path):
    p = tmp_path / "zero"
    try:
        os.mknod(p, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # our own /dev/zero node
    except PermissionError:
        pytest.skip("skip: mknod needs root")
    return p


@pytest.fixture
def binary(tmp_path):
    p = tmp_path / "junk.bin"
    p.write_bytes(np.random.default_rng(3).integers(0, 256, 10_007, dtype=np.uint8).tobytes())
    return p


PATH_CALLS = {
    "read_trace": lambda p: iolab.read_trace(p),
    "mrc": lambda p: iolab.mrc(p),
    "mrc_fifo_policy": lambda p: iolab.mrc(p, policy="fifo", sizes=[10]),
    "simulate": lambda p: iolab.simulate(p, "lru", 100),
    "trace_stat": lambda p: iolab.trace_stat(p),
    "parse_job": lambda p: iolab.parse_job(p),
    "load_result": lambda p: iolab.load_result(p),
    "load_intervals": lambda p: iolab.load_intervals(p),
}


@pytest.mark.parametrize("call", sorted(PATH_CALLS))
@pytest.mark.parametrize("kind", ["fifo", "loop", "device", "directory", "missing"])
def test_unusable_paths_are_refused_up_front(call, kind, request, tmp_path):
    p = {"directory": lambda: tmp_path, "missing": lambda: tmp_path / "nope"}.get(
        kind, lambda: request.getfixturevalue(kind))()
    with pytest.raises((ValueError, OSError, iolab.Error)) as e:
        PATH_CALLS[call](p)
    one_line(e)
    if kind == "fifo" and call not in ("load_result", "load_intervals"):
        assert isinstance(e.value, ValueError) and "FIFO" in str(e.value)


@pytest.mark.parametrize("call", ["read_trace", "mrc", "simulate", "trace_stat"])
def test_a_binary_file_is_a_trace_error_naming_it(call, binary):
    with pytest.raises(iolab.Error) as e:
        PATH_CALLS[call](binary)
    assert "junk.bin" in one_line(e)


def test_binary_result_files_are_refused(binary):
    with pytest.raises(iolab.ResultError):
        iolab.load_result(binary)
    with pytest.raises(iolab.ResultError):
        iolab.load_intervals(binary)


def test_a_truncated_oracle_trace_names_the_record(tmp_path, oracle):
    p = tmp_path / "cut.oracleGeneral.bin"
    p.write_bytes(oracle.read_bytes()[: 24 * 1000 + 7])
    with pytest.raises(iolab.TraceError) as e:
        iolab.read_trace(p, format="oracleGeneral")
    assert "record 1001" in one_line(e)


@pytest.mark.parametrize("kw", [
    {"sizes": [-1]}, {"sizes": [0]}, {"sizes": [1.5]}, {"sizes": [float("nan")]},
    {"sizes": [1 << 64]}, {"points": 1}, {"points": -3}, {"points": 2.0},
    {"sample": float("nan")}, {"sample": -0.1}, {"sample": 0.0}, {"sample": 1.5},
    {"sample": float("inf")}, {"sample": "0.1"}, {"policy": "no-such-policy", "sizes": [5]},
    {"policy": []},
])
def test_bad_mrc_arguments(kw, oracle):
    with pytest.raises(BAD_ARGS) as e:
        iolab.mrc(oracle, **kw)
    one_line(e)


@pytest.mark.parametrize("arr", [
    np.array([1.0, 2.0]), np.array(["a", "b"]), np.array([-1, 2]), np.zeros((2, 2), np.uint64),
    np.array([1 + 2j]), [object()],
])
def test_wrong_arrays(arr):
    with pytest.raises((TypeError, ValueError)):
        iolab.mrc(arr)
    with pytest.raises((TypeError, ValueError)):
        iolab.simulate(arr, "lru", 10)


@pytest.mark.parametrize("size", [0, -5, 2.5, float("nan"), 1 << 70, "10", None, True])
def test_bad_cache_sizes(size, oracle):
    with pytest.raises((TypeError, ValueError)):
        iolab.simulate(oracle, "lru", size)


def test_offline_policy_without_next_access_is_refused():
    with pytest.raises(iolab.ModelError) as e:
        iolab.simulate(np.array([1, 2, 1], dtype=np.uint64), "belady", 1)
    assert "next" in one_line(e)


@pytest.mark.parametrize("kw", [
    {"entries": 0}, {"entries": -1}, {"entries": 1.5}, {"entries": 1 << 70},
    {"entries": 100, "targets": [1.0]}, {"entries": 100, "targets": [float("nan")]},
    {"entries": 100, "targets": [-0.5]}, {"entries": 100, "iops": float("nan")},
    {"entries": 100, "iops": -1}, {"entries": 100, "pattern": "zipf:nan"},
    {"entries": 100, "pattern": "bogus"}, {"entries": 100, "pattern": 3},
])
def test_bad_fill_arguments(kw):
    with pytest.raises(BAD_ARGS) as e:
        iolab.fill(**kw)
    one_line(e)


@pytest.mark.parametrize("ns", [-1, float("nan"), 1.5, np.array([-3]), np.array([1.5]), True])
def test_bad_histogram_samples(ns):
    with pytest.raises((TypeError, ValueError)):
        iolab.Histogram().record(ns)


@pytest.mark.parametrize("p", [-1, 100.5, float("nan"), "50"])
def test_bad_percentiles(p):
    h = iolab.Histogram()
    h.record(5)
    with pytest.raises((TypeError, ValueError)):
        h.percentile(p)


def test_huge_latencies_saturate_but_stay_exact_in_max():
    h = iolab.Histogram()
    h.record((1 << 63) - 1)
    assert h.max == (1 << 63) - 1 and h.count == 1
    assert 0 < h.percentile(50) <= h.max


@pytest.mark.parametrize("kw", [{"bs": "-4k"}, {"size": "nan"}, {"rw": "sideways"},
                                {"bs": float("nan")}, {"iodepth": 1 << 40}])
def test_bad_job_options_are_job_errors(kw):
    with pytest.raises(BAD_ARGS) as e:
        iolab.parse_job(name="x", **kw)
    one_line(e)


def test_trace_path_with_nul_and_wrong_types():
    with pytest.raises(ValueError):
        iolab.read_trace("a\0b")
    with pytest.raises(TypeError):
        iolab.read_trace(42)
    with pytest.raises(TypeError):
        iolab.simulate("x", 3, 10)
    with pytest.raises(ValueError):
        list(iolab.iter_trace("x", chunk=0))


def test_calibrate_refuses_bad_budgets(tmp_path):
    for b in (float("nan"), -1, 0, 1e9):
        with pytest.raises(ValueError):
            iolab.calibrate(tmp_path / "f", budget=b)
