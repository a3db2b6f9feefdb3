"""iolab in Python: block traces into numpy, miss-ratio curves, cache simulations, cache-fill
maths, fio jobs, runs and results as DataFrames, exact latency histograms.

Every function calls iolab's Rust library crates (the ``iolab`` CLI's own code) through the
``iolab._native`` extension; work on a trace or on I/O runs with the GIL released, so two
threads use two cores. numpy is the only hard dependency; pandas is used when present
(``to_pandas()``, ``load_result``, several policies in ``mrc``).

Units: times in nanoseconds, sizes in bytes, cache sizes in entries (objects), ratios in
[0, 1], percentiles in percent (99.9).
"""

import json
import math
import os
import stat as _stat

import numpy as np

from . import _native
from ._errors import (
    CalibrateError,
    Error,
    InputError,
    JobError,
    ModelError,
    ResultError,
    RunError,
    TraceError,
)

__all__ = [
    "TRACE_DTYPE", "read_trace", "iter_trace", "mrc", "Curve", "simulate", "SimResult",
    "fill", "FillResult", "trace_stat", "parse_job", "run", "sim", "Result", "load_result",
    "load_intervals", "Histogram", "calibrate", "predict", "Error", "InputError",
    "TraceError", "ModelError", "JobError", "RunError", "CalibrateError", "ResultError",
]

#: One trace record as ``read_trace`` returns it: ``time_ns`` (ns since the trace's start
#: as the format stores it), ``obj_id`` (the object id, libCacheSim's key), ``offset`` and
#: ``size`` (bytes), ``next_access`` (oracleGeneral's next request number, -1 for never or
#: unknown), ``file`` (device or file index), ``op`` (0 read, 1 write, 2 trim, 3 sync).
TRACE_DTYPE = np.dtype({
    "names": ["time_ns", "obj_id", "offset", "size", "next_access", "file", "op"],
    "formats": ["<u8", "<u8", "<u8", "<u8", "<i8", "<u4", "u1"],
    "offsets": [0, 8, 16, 24, 32, 40, 44],
    "itemsize": _native.RECORD_BYTES,
})

OPS = ("read", "write", "trim", "sync")


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - exercised only without pandas
        raise ImportError("this needs pandas (pip install pandas)") from e
    return pandas


def _path(p, what="path"):
    """``p`` as a str path, or TypeError."""
    if isinstance(p, (str, bytes, os.PathLike)):
        p = os.fsdecode(os.fspath(p))
        if "\0" in p:
            raise ValueError(f"{what} {p!r}: contains a NUL byte")
        return p
    raise TypeError(f"{what}: expected a str or os.PathLike, got {type(p).__name__}")


def _count(v, what, minimum=1):
    """A positive integer argument (bool, float, NaN and negatives refused)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}: expected an integer, got {type(v).__name__} {v!r}")
    v = int(v)
    if v < minimum:
        raise ValueError(f"{what} {v}: expected at least {minimum}")
    if v >= 1 << 63:
        raise ValueError(f"{what} {v}: expected less than 2**63")
    return v


def _real(v, what, lo, hi, lo_open=False):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: expected a number, got {type(v).__name__} {v!r}")
    v = float(v)
    if math.isnan(v) or v > hi or v < lo or (lo_open and v == lo):
        raise ValueError(f"{what} {v}: expected {'(' if lo_open else '['}{lo}, {hi}]")
    return v


def _u64_array(a, what):
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array, got {a.ndim} dimensions")
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: expected an integer array, got dtype {a.dtype}")
    if a.dtype.kind == "i" and a.size and a.min() < 0:
        raise ValueError(f"{what}: negative values (object ids and sizes are >= 0)")
    return np.ascontiguousarray(a, dtype=np.uint64)


def _requests(data):
    """(ids, sizes or None, next_access or None) of a trace array or an array of ids."""
    a = np.asarray(data)
    if a.dtype.names:
        if "obj_id" not in a.dtype.names:
            raise TypeError("a structured array needs an `obj_id` field (iolab.TRACE_DTYPE)")
        ids = _u64_array(a["obj_id"], "obj_id")
        size = _u64_array(a["size"], "size") if "size" in a.dtype.names else None
        nxt = None
        if "next_access" in a.dtype.names:
            nxt = np.ascontiguousarray(a["next_access"], dtype=np.int64)
        return ids, size, nxt
    return _u64_array(a, "object ids"), None, None


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


# ---------------------------------------------------------------------------------------
# Traces


def iter_trace(path, format=None, chunk=1 << 20):
    """Yields the trace at ``path`` as structured numpy arrays (``TRACE_DTYPE``) of up to
    ``chunk`` records each, read ahead on a thread of their own: a trace larger than memory
    streams. ``format`` names the format (default: detected: oracleGeneral, csv, cloudphysics,
    fio-iolog, msr, alibaba, tencent, blkparse, vscsi, txt)."""
    chunk = _count(chunk, "chunk")
    r = _native.TraceChunks(_path(path, "trace"), format, chunk)
    while True:
        b = r.next_chunk()
        if b is None:
            return
        yield b.view(TRACE_DTYPE)


def read_trace(path, format=None):
    """The whole trace at ``path`` as one structured numpy array (``TRACE_DTYPE``: time_ns,
    obj_id, offset and size in bytes, next_access, file, op), one element per record."""
    chunks = [c for c in iter_trace(path, format, chunk=1 << 22)]
    if not chunks:
        return np.empty(0, dtype=TRACE_DTYPE)
    if len(chunks) == 1:
        return chunks[0]
    return np.concatenate(chunks)


def trace_stat(path, format=None, block_size=4096, stream_window=256):
    """``iolab trace stat``'s statistics of the trace at ``path`` as a dict (the CLI's JSON
    document): requests, read/write mix, footprint and reuse at ``block_size`` bytes, sizes,
    sequential streams, and ``notes`` with the blender verdict (``is_blended`` and its reason
    under ``stats``)."""
    return _native.trace_stat(_path(path, "trace"), format, _count(block_size, "block_size"),
                              _count(stream_window, "stream_window"))


# ---------------------------------------------------------------------------------------
# Curves and simulations


class Curve:
    """A miss-ratio curve. ``sizes``: cache sizes in entries (uint64 array); ``miss_ratio``
    and ``byte_miss_ratio``: ratios in [0, 1] (float64 arrays, NaN where a sampled curve does
    not measure); ``policy``; ``report``: the CLI's JSON document (LRU) or None."""

    def __init__(self, policy, sizes, miss_ratio, byte_miss_ratio, report=None):
        self.policy = policy
        self.sizes = np.asarray(sizes, dtype=np.uint64)
        self.miss_ratio = np.asarray(miss_ratio, dtype=np.float64)
        self.byte_miss_ratio = np.asarray(byte_miss_ratio, dtype=np.float64)
        self.report = report

    def __len__(self):
        return len(self.sizes)

    def __repr__(self):
        return f"<iolab.Curve {self.policy}: {len(self)} sizes>"

    def to_pandas(self):
        """A DataFrame with columns policy, size (entries), miss_ratio, byte_miss_ratio."""
        return _pandas().DataFrame({
            "policy": [self.policy] * len(self), "size": self.sizes,
            "miss_ratio": self.miss_ratio, "byte_miss_ratio": self.byte_miss_ratio,
        })


def _curve_of_report(doc):
    nan = float("nan")
    pts = doc["points"]
    return Curve("lru", [p["cache_entries"] for p in pts],
                 [nan if p["miss_ratio"] is None else p["miss_ratio"] for p in pts],
                 [nan if p["byte_miss_ratio"] is None else p["byte_miss_ratio"] for p in pts],
                 doc)


def _lru_report(src, sizes, points, sample, format):
    if _is_path(src):
        return _native.mrc_path(_path(src, "trace"), format, sizes, points, sample)
    ids, size, _ = _requests(src)
    return _native.mrc_ids(ids, size, sizes, points, sample)


def mrc(path_or_array, policy="lru", sizes=None, points=40, sample=None, format=None):
    """The miss-ratio curve of a trace (a path, or an array from ``read_trace``, or an integer
    array of object ids), one entry per object (libCacheSim's view, ``iolab mrc``).

    ``policy="lru"`` (default) is ``iolab mrc``'s curve: exact (Mattson stack distances) or,
    with ``sample`` a rate in (0, 1], SHARDS-sampled; at ``points`` geometric sizes from 1 to
    the footprint, or at ``sizes`` (entries). Any other policy (``iolab sim --list``) is
    simulated at each size (``sizes``, default the LRU curve's). Returns a ``Curve``; a list
    of several policies returns a pandas DataFrame (policy, size, miss_ratio,
    byte_miss_ratio).

    The GIL is released for the whole pass. A trace file is read and decoded on a second
    thread while the calling one builds the curve, as ``iolab mrc`` does (about 1.15 cores a
    call): two threads calling ``mrc`` on two traces use both cores of a 2-core machine and
    finish in about 1.15x one call's time (docs/performance.md)."""
    if not isinstance(policy, str):
        policies = list(policy)
        if not policies:
            raise ValueError("policy: expected at least one policy name")
        curves = [mrc(path_or_array, p, sizes, points, sample, format) for p in policies]
        pd = _pandas()
        return pd.concat([c.to_pandas() for c in curves], ignore_index=True)
    if sizes is not None:
        sizes = [_count(s, "sizes[]") for s in np.asarray(sizes).ravel().tolist()] \
            if not isinstance(sizes, (int, np.integer)) else [_count(sizes, "sizes")]
    points = _count(points, "points", 2)
    if sample is not None:
        sample = _real(sample, "sample", 0.0, 1.0, lo_open=True)
    if policy.lower() == "lru":
        return _curve_of_report(_lru_report(path_or_array, sizes, points, sample, format))
    if sizes is None:
        lru = _curve_of_report(_lru_report(path_or_array, None, points, None, format))
        sizes = [int(s) for s in lru.sizes]
    rows = [simulate(path_or_array, policy, s, format=format) for s in sizes]
    return Curve(policy, sizes, [r.miss_ratio for r in rows], [r.byte_miss_ratio for r in rows])


class SimResult:
    """One policy at one cache size: ``requests``, ``misses`` (counts), ``miss_ratio``
    (misses/requests), ``bytes`` and ``byte_misses`` (the records' sizes in bytes, all and
    missed) and ``byte_miss_ratio``; ``policy``, ``cache_size`` (entries)."""

    def __init__(self, policy, cache_size, counts):
        self.policy, self.cache_size = policy, cache_size
        (self.requests, self.misses, self.bytes, self.byte_misses, self.miss_ratio,
         self.byte_miss_ratio) = counts

    def __repr__(self):
        return (f"<iolab.SimResult {self.policy} {self.cache_size}: {self.misses}/"
                f"{self.requests} misses, ratio {self.miss_ratio:.6f}>")


def simulate(path_or_array, policy, cache_size, format=None):
    """``policy`` with room for ``cache_size`` objects over a trace (path or array), every
    object one entry: ``iolab sim --object-level`` (libCacheSim's ``cachesim
    --ignore-obj-size 1``). Returns a ``SimResult`` whose requests, misses and miss_ratio are
    the CLI's; the offline policies (belady) need next-access times (oracleGeneral)."""
    if not isinstance(policy, str):
        raise TypeError(f"policy: expected a str, got {type(policy).__name__}")
    size = _count(cache_size, "cache_size")
    if _is_path(path_or_array):
        c = _native.simulate_path(_path(path_or_array, "trace"), policy, size, format)
    else:
        ids, b, nxt = _requests(path_or_array)
        c = _native.simulate_ids(ids, policy, size, b, nxt)
    return SimResult(policy, size, c)


class FillResult:
    """How long a cache of ``entries`` takes to fill under random reads: ``targets`` (the
    probabilities asked for that every entry is filled), ``reads`` (float64 array: expected
    reads to reach each) and ``passes`` (reads / entries); ``expected_reads``; ``table``
    (dict of arrays: passes, reads, filled_fraction, p_all_filled: the fill curve);
    ``report`` (``iolab fill --json``'s document)."""

    def __init__(self, entries, targets, reads, report):
        self.entries = entries
        self.targets = np.asarray(targets, dtype=np.float64)
        self.reads = np.asarray(reads, dtype=np.float64)
        self.passes = self.reads / entries
        self.report = report
        self.expected_reads = report["expected_reads"]
        rows = report["table"]
        self.table = {k: np.array([r[k] for r in rows], dtype=np.float64)
                      for k in ("passes", "reads", "filled_fraction", "p_all_filled")}

    def to_pandas(self):
        """The fill curve (``table``) as a DataFrame."""
        return _pandas().DataFrame(self.table)


def fill(entries, targets=(0.5, 0.9, 0.99, 0.999), pattern="uniform", iops=None,
         monte_carlo=0, seed=1):
    """``iolab fill``: reads until a cache of ``entries`` is full (coupon collector, or fio's
    random map with ``pattern="randommap"``, or ``"zipf:S"``), at each probability in
    ``targets`` that every entry is filled. Returns a ``FillResult`` (reads and passes arrays,
    one per target; the fill curve in ``table``)."""
    entries = _count(entries, "entries")
    ts = [_real(t, "targets[]", 0.0, 1.0, lo_open=True) for t in np.atleast_1d(targets).tolist()]
    if any(t >= 1.0 for t in ts):
        raise ValueError("targets: each must be below 1 (certainty takes unbounded reads)")
    if iops is not None:
        iops = _real(iops, "iops", 0.0, 1e12, lo_open=True)
    if not isinstance(pattern, str):
        raise TypeError("pattern: expected a str (uniform, randommap, zipf:S)")
    report, reads = _native.fill(entries, ts, pattern, iops, _count(monte_carlo, "monte_carlo", 0),
                                 _count(seed, "seed", 0))
    return FillResult(entries, ts, reads, report)


# ---------------------------------------------------------------------------------------
# Jobs, runs, results


def _job_args(job_or_path, options):
    """(path, text, fio-style args) from a job file path or job text and keyword options."""
    cmd = []
    for k, v in options.items():
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"{k}: NaN is not a value")
        cmd.append(f"--{k}={v}")
    if job_or_path is None:
        if not cmd:
            raise ValueError("nothing to parse: give a job file, job text or options")
        return None, None, cmd
    if isinstance(job_or_path, os.PathLike) or (
            isinstance(job_or_path, str) and "\n" not in job_or_path
            and "[" not in job_or_path):
        return _path(job_or_path, "job file"), None, cmd
    if isinstance(job_or_path, str):
        return None, job_or_path, cmd
    raise TypeError(f"job: expected a path or job-file text, got {type(job_or_path).__name__}")


def parse_job(text_or_path=None, **options):
    """The jobs as iolab (and fio) read them, without running: a list of dicts, one per job,
    with ``name``, ``options`` (option name -> typed value: sizes in bytes, times in the
    option's unit, as ``iolab parse`` prints them), ``detail`` (name -> {value, raw, origin})
    and ``warnings`` (the file's warnings, one line each). ``options`` given as keywords are
    fio ``--name=value`` options (``[global]`` when a job file is given)."""
    path, text, cmd = _job_args(text_or_path, options)
    doc = _native.parse_job(path, text, cmd)
    warnings = [f"{w['location']}: warning: {w['message']}" for w in doc["warnings"]]
    out = []
    for j in doc["jobs"]:
        detail = j.get("options", {})
        out.append({"name": j.get("name"), "options": {k: v["value"] for k, v in detail.items()},
                    "detail": detail, "warnings": warnings})
    return out


class Result:
    """A run's (or a simulation's, or a prediction's) result: ``json`` is fio's json+
    document (fio's keys; latencies in ns, bandwidth in bytes/s in ``bw_bytes``);
    ``to_pandas()`` is ``load_result``'s tidy table of it."""

    def __init__(self, doc):
        self.json = doc

    def to_pandas(self):
        """One row per job and direction (see ``load_result``)."""
        return _tidy(self.json)

    def __repr__(self):
        return f"<iolab.Result {len(self.json.get('jobs', []))} jobs>"


def run(job_or_path=None, **options):
    """Runs the jobs (real I/O, exactly as ``iolab run``) from a job file, job text or
    fio-style keyword options (``run(name="x", rw="randread", bs="4k", size="16m",
    filename="/tmp/f")``). Returns a ``Result``. The GIL is released while it runs; Ctrl-C
    (KeyboardInterrupt) stops the workers and is raised once they have ended."""
    path, text, cmd = _job_args(job_or_path, options)
    return Result(_native.run(path, text, cmd))


def sim(job_or_path=None, tiers=(), backing="hdd:7200", **options):
    """``iolab sim``: the jobs through cache ``tiers`` (``"ram:64MiB:lru"``, top first) over
    ``backing`` (a device preset or a calibrated profile file), simulated, no I/O. Returns a
    ``Result`` (the model's tiers and devices under ``json["iolab_sim"]``)."""
    if isinstance(tiers, str):
        tiers = [tiers]
    path, text, cmd = _job_args(job_or_path, options)
    return Result(_native.sim([str(t) for t in tiers], str(backing), path, text, cmd))


def predict(job, profile=""):
    """``iolab run --predict PROFILE`` without the run: the job (path, text or a dict of fio
    options) as the device ``profile`` (a TOML file, e.g. ``calibrate``'s ``toml`` written
    out; "" reads ``iolab-profile.toml`` in the current directory) would serve it. Returns a
    ``Result`` whose json is fio's (``iops`` per second, ``bw_bytes`` bytes/s, latencies in
    ns): the figures ``iolab run --predict`` prints as predicted."""
    if isinstance(job, dict):
        path, text, cmd = _job_args(None, job)
    else:
        path, text, cmd = _job_args(job, {})
    return Result(_native.predict(_path(profile, "profile") if profile else "", path, text, cmd))


def calibrate(target, budget=60.0, allow_write=False, max_depth=64, seed=0x5EED,
              size=256 << 20):
    """``iolab calibrate TARGET --budget SECS``: sweeps ``target`` for ``budget`` seconds with
    real I/O (O_DIRECT) and fits a device profile. ``target`` is an existing regular file
    (read only unless ``allow_write``; at least 4 MiB), a block device, a directory or a new
    path (iolab then creates a file of ``size`` bytes, at least 4 MiB, and removes it).
    ``max_depth``: the deepest queue swept (1 to 4096). Returns a dict: ``toml`` (the profile
    file's text: write it to a file for ``predict``), ``profile`` (the same as a dict: its
    ``name`` is the target's path, ``capacity`` the bytes swept, times in microseconds, rates
    per second) and ``elapsed_s`` (seconds). A read-only calibration measures no writes: its
    ``write_cache`` is ``"not measured"`` and its write section is copied from the read fit."""
    budget = _real(budget, "budget", 0.0, 86400.0, lo_open=True)
    max_depth = _count(max_depth, "max_depth")
    if max_depth > 4096:
        raise ValueError(f"max_depth {max_depth}: expected 1 to 4096")
    size = _count(size, "size", 4 << 20)
    if not isinstance(allow_write, bool):
        raise TypeError(f"allow_write: expected a bool, got {type(allow_write).__name__}")
    toml, profile, secs = _native.calibrate(_path(target, "target"), budget, allow_write,
                                            max_depth, _count(seed, "seed", 0), size)
    return {"toml": toml, "profile": profile, "elapsed_s": secs}


_DIRS = ("read", "write", "trim")
_PCTS = (("p50", "50.000000"), ("p99", "99.000000"), ("p99.9", "99.900000"))


def _lat_cols(row, prefix, lat):
    row[f"{prefix}_mean_ns"] = float(lat.get("mean", float("nan"))) if lat else float("nan")
    pct = (lat or {}).get("percentile") or {}
    hist = None
    for name, key in _PCTS:
        v = pct.get(key)
        if v is None and (lat or {}).get("bins"):
            hist = hist or Histogram.from_json_plus(lat)
            v = hist.percentile(float(key))
        row[f"{prefix}_{name}_ns"] = float("nan") if v is None else float(v)


def _tidy(doc):
    pd = _pandas()
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise ResultError("not a fio/iolab JSON result: no `jobs` list")
    rows = []
    for j in doc["jobs"]:
        host = j.get("hostname") or doc.get("hostname") or ""
        dirs = [d for d in _DIRS if d in j]
        active = [d for d in dirs if j[d].get("total_ios", 0) or j[d].get("io_bytes", 0)]
        for d in active or dirs[:1]:
            s = j[d]
            row = {"job": j.get("jobname", ""), "host": host, "direction": d,
                   "iops": float(s.get("iops", 0.0)), "bw_bytes": int(s.get("bw_bytes", 0))}
            _lat_cols(row, "lat", s.get("lat_ns"))
            _lat_cols(row, "clat", s.get("clat_ns"))
            rows.append(row)
    return pd.DataFrame(rows)


def _read_json(path):
    p = _path(path, "result")
    st = os.stat(p)
    if not _stat.S_ISREG(st.st_mode):
        raise InputError(f"result {p}: not a regular file; expected iolab's or fio's JSON")
    with open(p, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", errors="replace")
    # fio may print notes before its JSON document (``--output-format=json`` on stdout).
    start = text.find("{")
    if start < 0:
        raise ResultError(f"{p}: no JSON document")
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError as e:
        raise ResultError(f"{p}: not JSON: {e}") from None


def load_result(path):
    """fio's or iolab's JSON / json+ result at ``path`` as a tidy pandas DataFrame: one row
    per job (and host) and direction with I/O, columns ``job``, ``host``, ``direction``,
    ``iops`` (per second), ``bw_bytes`` (bytes/s) and ``lat``/``clat`` ``_mean_ns``,
    ``_p50_ns``, ``_p99_ns``, ``_p99.9_ns`` (nanoseconds, as the file reports them; from the
    json+ bins when the file lists no such percentile; NaN when neither)."""
    return _tidy(_read_json(path))


def load_intervals(path):
    """A per-interval series as a DataFrame: iolab's JSON Lines (``--output-format jsonl``:
    columns time_ms, job, jobidx, interval_ms, direction, io_bytes, total_ios, bw_bytes,
    iops, clat_mean_ns) or a fio log file (``write_bw_log``/``lat``/``iops``: time_ms,
    value, direction, bs, offset)."""
    pd = _pandas()
    p = _path(path, "intervals")
    if not _stat.S_ISREG(os.stat(p).st_mode):
        raise InputError(f"intervals {p}: not a regular file")
    with open(p, "r", encoding="utf-8", errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    rows = []
    if lines and lines[0].startswith("{"):
        for n, ln in enumerate(lines, 1):
            try:
                o = json.loads(ln)
            except ValueError:
                raise ResultError(f"{p}: line {n}: not JSON") from None
            for d in _DIRS:
                if d in o:
                    rows.append({"time_ms": o.get("time_ms"), "job": o.get("job"),
                                 "jobidx": o.get("jobidx"), "interval_ms": o.get("interval_ms"),
                                 "direction": d, **o[d]})
        return pd.DataFrame(rows)
    for n, ln in enumerate(lines, 1):
        f = [x.strip() for x in ln.split(",")]
        try:
            v = [int(x) for x in f[:5]]
        except ValueError:
            raise ResultError(f"{p}: line {n}: expected fio's log `msec, value, ddir, bs"
                              f"[, offset]`, found `{ln[:60]}`") from None
        if len(v) < 4:
            raise ResultError(f"{p}: line {n}: expected at least 4 fields, found {len(v)}")
        rows.append({"time_ms": v[0], "value": v[1],
                     "direction": OPS[v[2]] if 0 <= v[2] < 3 else str(v[2]),
                     "bs": v[3], "offset": v[4] if len(v) > 4 else None})
    return pd.DataFrame(rows)


class Histogram(_native.Histogram):
    """An exact latency histogram (ns): iolab's own (HdrHistogram buckets, 3 significant
    digits, 1 ns to 1 h; count, min, max and sum exact), so ``merge`` gives the histogram of
    all the samples and ``percentile(p)`` (p in percent) is what ``iolab run`` reports.
    ``record(ns, count=1)`` takes an int or an integer array of nanoseconds."""

    def record(self, ns, count=1):
        """Records ``ns`` (nanoseconds: an int, or an integer array, each ``count`` times)."""
        if isinstance(ns, (bool, float, np.floating)):
            raise TypeError(f"ns: expected an integer number of nanoseconds, got {ns!r}")
        if isinstance(ns, (int, np.integer)):
            return super().record(int(ns), _count(count, "count", 0))
        a = _u64_array(ns, "ns")
        if count != 1:
            raise ValueError("count: only 1 with an array")
        return super().record_array(a)

    def percentile(self, p):
        """The latency in ns (int) at percentile ``p`` in percent (50, 99.9)."""
        return super().percentile(_real(p, "p", 0.0, 100.0))

    @property
    def min(self):
        """The smallest sample, ns (0 when empty)."""
        return self.min_max[0]

    @property
    def max(self):
        """The largest sample, ns (0 when empty)."""
        return self.min_max[1]

    @classmethod
    def from_json_plus(cls, lat):
        """A histogram of fio's json+ ``bins`` (``{"latency_ns": count}``, a ``clat_ns`` /
        ``lat_ns`` section or the bins dict itself): each bin's latency recorded count times,
        so its percentiles are those of fio's own bins (at iolab's finer resolution)."""
        bins = lat.get("bins", lat) if isinstance(lat, dict) else None
        if not isinstance(bins, dict):
            raise TypeError("from_json_plus: expected fio's json+ `bins` dict or its section")
        h = cls()
        for k, c in bins.items():
            h.record(int(k), int(c))
        return h
