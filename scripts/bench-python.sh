#!/usr/bin/env bash
# The Python binding's cost, measured (issue 30): medians of alternated runs.
#  1. iolab.mrc inside Python vs the `iolab mrc` process on the bundled trace (the call's wall
#     time, and the whole `python -c` process beside it);
#  2. read_trace of a 20M-request oracleGeneral trace into numpy vs libCacheSim's Python
#     reader (`pip install libcachesim`) filling numpy arrays, whole processes;
#  3. two threads calling iolab.mrc on two traces at once vs one call.
# Sections 1 and 3 (short, timing-sensitive) run under SCHED_FIFO priority 10 when allowed
# (root): on a machine shared with compilers, a woken thread otherwise waits for a core and
# the figures measure the other load, not the binding (at load 8 on 2 cores, two threads took
# 2.5x one call without it, 1.17x with it). Each section prints whether it had the priority
# and the load average. NO_RT=1 measures without it.
# Usage: scripts/bench-python.sh [RUNS]  with PY = a python that has iolab (pip install
# ./crates/py) and libcachesim, IOLAB_BIN = a release `iolab` (cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"
py="${PY:-python3}"
bin="${IOLAB_BIN:-target/release/iolab}"
trace="${TRACE:-../shared/traces/cloudPhysicsIO.oracleGeneral.bin}"
work="$(mktemp -d "${TMPDIR:-/tmp}/bench-python.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$py" - "$runs" "$bin" "$trace" "$work" <<'PYEOF'
import contextlib, os, statistics, subprocess, sys, threading, time
import numpy as np
import iolab

runs, binary, trace, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
py = sys.executable
med = statistics.median

def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - t

def call(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t

@contextlib.contextmanager
def priority():
    """SCHED_FIFO 10 for this thread and what it starts (threads and processes inherit it)."""
    got = False
    if not os.environ.get("NO_RT"):
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            got = True
        except (OSError, AttributeError):
            pass
    try:
        yield "SCHED_FIFO 10" if got else "no real-time priority"
    finally:
        if got:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))

def load():
    return "load %.1f" % os.getloadavg()[0]

# 1. mrc (a 20 ms call: 4x the runs)
cli, inproc, proc = [], [], []
with priority() as prio:
    iolab.mrc(trace)
    for _ in range(4 * runs):
        cli.append(wall([binary, "mrc", trace, "--output-format", "json"]))
        inproc.append(call(lambda: iolab.mrc(trace)))
        proc.append(wall([py, "-c", f"import iolab; iolab.mrc({trace!r})"]))
print(f"mrc {trace}: iolab mrc process {med(cli)*1e3:.1f} ms; iolab.mrc call "
      f"{med(inproc)*1e3:.1f} ms ({med(inproc)/med(cli):.3f}x); whole python process "
      f"{med(proc)*1e3:.1f} ms (numpy and iolab imports included) [{4 * runs} runs, {prio}, "
      f"{load()}]")

# 2. read_trace of 20M requests vs libCacheSim's reader
n = 20_000_000
big = f"{work}/big.oracleGeneral.bin"
rng = np.random.default_rng(42)
rec = np.zeros(n, dtype=[("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
rec["t"] = np.arange(n, dtype=np.uint32) // 1000
rec["id"] = rng.zipf(1.2, n).astype(np.uint64)
rec["size"] = 4096
rec["next"] = -1
rec.tofile(big)
del rec
ours = f"import iolab; a = iolab.read_trace({big!r}); assert len(a) == {n}"
lcs = f"""
import numpy as np, libcachesim as lcs
r = lcs.TraceReader({big!r}, lcs.TraceType.ORACLE_GENERAL_TRACE)
n = {n}
t, ids, size, nxt = (np.empty(n, np.int64) for _ in range(4))
i = 0
for req in r:
    t[i] = req.clock_time; ids[i] = req.obj_id; size[i] = req.obj_size; nxt[i] = req.next_access_vtime
    i += 1
assert i == n, i
"""
a, b = [], []
for _ in range(max(1, runs // 2)):
    a.append(wall([py, "-c", ours]))
    b.append(wall([py, "-c", lcs]))
print(f"read_trace {n} requests: iolab {med(a):.2f} s, libCacheSim's reader {med(b):.2f} s "
      f"({med(b)/med(a):.1f}x) [runs: {[round(x, 2) for x in a]} vs {[round(x, 2) for x in b]}, "
      f"{load()}]")

# 3. two threads
half = n // 4
t1, t2 = f"{work}/t1.bin", f"{work}/t2.bin"
for path, seed in ((t1, 1), (t2, 2)):
    r = np.zeros(half, dtype=[("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    r["id"] = np.random.default_rng(seed).zipf(1.1, half).astype(np.uint64)
    r["size"], r["next"] = 4096, -1
    r.tofile(path)
def both():
    ts = [threading.Thread(target=iolab.mrc, args=(p,)) for p in (t1, t2)]
    [x.start() for x in ts]
    [x.join() for x in ts]

one, two, cpu1, cpu2 = [], [], [], []
with priority() as prio:
    iolab.mrc(t1)
    for _ in range(runs):
        c = time.process_time()
        one.append(call(lambda: iolab.mrc(t1)))
        cpu1.append(time.process_time() - c)
        c = time.process_time()
        two.append(call(both))
        cpu2.append(time.process_time() - c)
print(f"two threads, mrc of two {half}-request traces: one call {med(one):.3f} s "
      f"({med(cpu1):.3f} s CPU), both at once {med(two):.3f} s ({med(cpu2):.3f} s CPU) "
      f"({med(two)/med(one):.2f}x) [{prio}, {load()}]")
PYEOF
