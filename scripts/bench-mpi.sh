#!/usr/bin/env bash
# The cost of running under MPI (issue 29), measured: a null-engine job's IOPS per rank under
# `mpirun -np N` against the same job run alone, medians of RUNS alternated whole processes
# (each a time_based run of SECS seconds), for N = 1 (MPI's own cost: the same CPU as alone,
# plus MPI_Init, the barrier, the start instant and the gather), N = 2 (fits a 2-core
# machine) and N = 4 (the issue's figure; on 2 cores four CPU-bound ranks share two cores, so
# each gets about half of one, and the per-rank ratio measures the cores, not MPI). Also the
# ranks' summed IOPS, the wall time of each whole process (mpirun's start-up and the gather
# included) and the load average (other work on the machine takes cores from the ranks).
# With CPU_SHARE=F (e.g. 0.4), every process that runs the job (the run alone and each rank)
# runs in its own cgroup (v1 `cpu` or v2) capped at F of one core, with a high weight, so each
# rank has the CPU one host would give it whatever else runs here: four ranks at 0.4 need
# 1.6 cores, and the per-rank ratio then measures MPI's cost, not how many cores there are.
# Usage: [CPU_SHARE=F] scripts/bench-mpi.sh [RUNS] [SECS]  with IOLAB_BIN = an `iolab` built
# with `--features mpi` (default target/release/iolab). CPU_SHARE needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
secs="${2:-3}"
bin="${IOLAB_BIN:-target/release/iolab}"
command -v mpirun >/dev/null || { echo "bench-mpi: mpirun not installed (apt-get install openmpi-bin)"; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/bench-mpi.XXXXXX")"
trap 'rm -rf "$work"' EXIT
share="${CPU_SHARE:-}"
cg=""
if [ -n "$share" ]; then
  if [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    cg="/sys/fs/cgroup/cpu/$(basename "$work")"
  elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    cg="/sys/fs/cgroup/$(basename "$work")"
    echo +cpu > /sys/fs/cgroup/cgroup.subtree_control
  else
    echo "bench-mpi: CPU_SHARE needs the cgroup cpu controller (v1 or v2)"; exit 1
  fi
  mkdir "$cg"
  if [ -f "$cg/cpu.shares" ]; then echo 262144 > "$cg/cpu.shares"; else echo 10000 > "$cg/cpu.weight"; fi
  trap 'for d in "$cg"/*/; do rmdir "$d"; done; rmdir "$cg"; rm -rf "$work"' EXIT
fi
python3 - "$runs" "$secs" "$bin" "$work" "$share" "$cg" <<'PYEOF'
import json, os, statistics, subprocess, sys, time

runs, secs, binary, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
share, cg = sys.argv[5], sys.argv[6]

def capped(slot):
    """The argv prefix that runs a process in cgroup `slot`, capped at `share` of one core."""
    if not share:
        return []
    d = os.path.join(cg, slot)
    os.makedirs(d, exist_ok=True)
    period = 100000
    quota = int(float(share) * period)
    if os.path.exists(os.path.join(cg, "cpu.cfs_quota_us")):
        open(os.path.join(d, "cpu.cfs_period_us"), "w").write(str(period))
        open(os.path.join(d, "cpu.cfs_quota_us"), "w").write(str(quota))
        open(os.path.join(d, "cpu.shares"), "w").write("262144")
    else:
        open(os.path.join(d, "cpu.max"), "w").write(f"{quota} {period}")
        open(os.path.join(d, "cpu.weight"), "w").write("10000")
    return ["sh", "-c", f'echo $$ > "{d}/cgroup.procs" 2>/dev/null || echo $$ > "{d}/tasks"; exec "$@"', "capped"]

def rank_capped():
    """Each rank into its own cgroup r<rank> (made beforehand for up to 4 ranks)."""
    if not share:
        return []
    for r in range(4):
        capped(f"r{r}")
    return ["sh", "-c", f'd="{cg}/r$OMPI_COMM_WORLD_RANK"; echo $$ > "$d/cgroup.procs" 2>/dev/null || echo $$ > "$d/tasks"; exec "$@"', "capped"]
job = ["run", "--name=n", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=1g",
       "--time_based", f"--runtime={secs}", "--output-format=json"]
mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np"]

def once(np):
    out = os.path.join(work, "r.json")
    cmd = ((capped("alone") + [binary]) if np == 0
           else mpirun + [str(np)] + rank_capped() + [binary]) + job + [f"--output={out}"]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    d = json.load(open(out))
    if np == 0:
        return d["jobs"][0]["read"]["iops"], d["jobs"][0]["read"]["iops"], wall
    hosts = [c for c in d["client_stats"] if c["jobname"] != "All clients"]
    assert len(hosts) == np, len(hosts)
    total = sum(h["read"]["iops"] for h in hosts)
    return total / np, total, wall

ns = (0, 1, 2, 4)
res = {n: [] for n in ns}
for _ in range(runs):
    for np in ns:
        res[np].append(once(np))
med = statistics.median
alone = med(i for i, _, _ in res[0])
cap = f", each process capped at {share} of a core" if share else ""
print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {runs} runs of {secs} s each{cap}")
print(f"{'run':<16}{'IOPS per rank':>16}{'vs alone':>10}{'all ranks':>14}{'wall s':>9}")
for np in ns:
    iops = med(i for i, _, _ in res[np])
    total = med(t for _, t, _ in res[np])
    wall = med(w for _, _, w in res[np])
    name = "alone" if np == 0 else f"mpirun -np {np}"
    print(f"{name:<16}{iops:>16,.0f}{iops / alone:>10.3f}{total:>14,.0f}{wall:>9.2f}")
PYEOF
