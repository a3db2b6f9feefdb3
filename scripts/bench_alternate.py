#!/usr/bin/env python3
"""Whole-process timing for scripts/bench-vs-fio.sh and scripts/bench-libcachesim.sh.

Runs each named command RUNS times, alternating the tools run by run (A B A B ...) so a change
in the machine's load hits both alike, and measures each process from start to exit as a user
timing it would: wall time, CPU (user + system, from wait4's rusage, children included) and
peak RSS. Prints one JSON object: {name: {"wall": median, "cpu": median, "rss_kb": median,
"walls": [...], "cpus": [...], "stdouts": [...], "stdout": last run's stdout}}: the per-run
lists show the spread the medians hide (a replay whose tables fill much of the last-level cache moves with what else
uses that cache, not with its own instructions).

Usage: bench_alternate.py RUNS NAME=SHELL-COMMAND [NAME=SHELL-COMMAND ...]
`{run}` in a command is replaced by the run's number (0 to RUNS-1), so each run can keep its
own output file.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.stdout.read(), p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"command failed ({status}): {cmd}\n{err.decode(errors='replace')[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out.decode(errors="replace")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    if runs < 1:
        sys.exit("RUNS must be at least 1")
    cmds = []
    for a in sys.argv[2:]:
        name, sep, cmd = a.partition("=")
        if not sep:
            sys.exit(f"expected NAME=COMMAND, got {a!r}")
        cmds.append((name, cmd))
    res = {n: {"walls": [], "cpus": [], "rss": [], "stdouts": []} for n, _ in cmds}
    for i in range(runs):
        # Alternate the order too, so neither tool always runs right after the other.
        order = cmds if i % 2 == 0 else list(reversed(cmds))
        for name, cmd in order:
            wall, cpu, rss, out = run_once(cmd.replace("{run}", str(i)))
            r = res[name]
            r["walls"].append(round(wall, 4))
            r["cpus"].append(round(cpu, 4))
            r["rss"].append(rss)
            r["stdouts"].append(out)
    summary = {
        n: {
            "wall": statistics.median(r["walls"]),
            "cpu": statistics.median(r["cpus"]),
            "rss_kb": statistics.median(r["rss"]),
            "walls": r["walls"],
            "cpus": r["cpus"],
            "stdouts": r["stdouts"],
            "stdout": r["stdouts"][-1],
        }
        for n, r in res.items()
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
