#!/usr/bin/env bash
# bench-vs-fio.sh: fio and iolab on the same job text, whole processes as a user times them
# (start to exit, via wait4: wall time, CPU user+sys, peak RSS), the tools alternated run by
# run, medians of RUNS (default 5), ratios printed against issue 15's goals:
#
#   null 4k randread QD1, 10 M I/Os                         fio wall / iolab wall  >= 5
#   null 4k randread QD32, iodepth_batch=32, complete_min=32 (10 M I/Os)            >= 5
#   null 4k randwrite, refill_buffers, 2 M I/Os                                      >= 4
#   io_uring 4k randread QD32, batch 8, O_DIRECT file (1 M I/Os): CPU per I/O
#     (iolab <= 1.15x t/io_uring's when `io_uring` (fio's t/io_uring) is on PATH; fio's else)
#
# A fixed I/O count (io_size), not a runtime, so both processes do the same work and the wall
# time includes start-up, setup and exit as a user sees them.
#
# Usage: scripts/bench-vs-fio.sh [DIR] [RUNS]
#   DIR   where the io_uring test file goes (default: a temp dir under the current directory)
# Needs: fio, python3, and a release build (cargo build --release -p iolab-cli), or set IOLAB.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
IOLAB="${IOLAB:-${CARGO_TARGET_DIR:-$here/target}/release/iolab}"
dir="${1:-}"
RUNS="${2:-5}"
command -v fio >/dev/null || { echo "fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$IOLAB" ] || { echo "no iolab binary at $IOLAB: cargo build --release -p iolab-cli" >&2; exit 2; }
if [ -z "$dir" ]; then dir="$(mktemp -d ./.bench-vs-fio.XXXXXX)"; trap 'rm -rf "$dir"' EXIT; fi
mkdir -p "$dir"
ALT="python3 $here/scripts/bench_alternate.py $RUNS"

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fio: $(fio --version)   iolab: $("$IOLAB" --version)   medians of $RUNS, alternated"
printf '%-52s %10s %10s %8s %-6s %s\n' "job (whole process, wall s)" "fio" "iolab" "ratio" "goal" \
  "(CPU s: fio, iolab, ratio)"

# One row: the same options to both tools; prints the fio/iolab wall ratio.
row() { # label goal options...
  local label="$1" goal="$2"; shift 2
  local opts="$*"
  $ALT "fio=fio $opts --output-format=json --output=$dir/fio.json" \
       "iolab=$IOLAB run $opts --output-format=json --output=$dir/iolab.json" > "$dir/r.json"
  python3 - "$dir/r.json" "$label" "$goal" <<'PY'
import json, sys
r, label, goal = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
f, i = r["fio"]["wall"], r["iolab"]["wall"]
fc, ic = r["fio"]["cpu"], r["iolab"]["cpu"]
print(f"{label:52s} {f:10.2f} {i:10.2f} {f/i:7.2f}x >= {goal:3s} ({fc:.2f}, {ic:.2f}, {fc/ic:.2f}x)")
PY
}

common="--name=null --ioengine=null --bs=4k --size=1g --norandommap --thread"
row "null 4k randread QD1, 10 M I/Os" 5 $common --rw=randread --io_size=40000000k
row "null 4k randread QD32 batch 32 complete_min 32, 10 M" 5 $common --rw=randread \
    --io_size=40000000k --iodepth=32 --iodepth_batch=32 --iodepth_batch_complete_min=32
row "null 4k randwrite refill_buffers, 2 M I/Os" 4 $common --rw=randwrite --io_size=8000000k \
    --refill_buffers=1

# io_uring on a laid-out file (written, not sparse, so neither tool reads holes).
file="$dir/bench.dat"
fio --name=layout --rw=write --bs=1m --size=1g --filename="$file" --output=/dev/null
uring="--name=uring --ioengine=io_uring --rw=randread --bs=4k --iodepth=32 --iodepth_batch=8 \
--direct=1 --size=1g --io_size=4g --filename=$file --norandommap --thread"
cmds=("fio=fio $uring --output-format=json --output=$dir/fio.{run}.json"
      "iolab=$IOLAB run $uring --output-format=json --output=$dir/iolab.{run}.json")
if command -v io_uring >/dev/null; then
  # fio's t/io_uring with its own defaults where they apply to this job: registered files
  # (-F1), registered buffers (-B1), registered ring (-X1), no SQPOLL; polled completions off
  # (-p0: the file is not on a poll queue), O_DIRECT (-O1), random (-R1), one thread; depth 32,
  # submit batches of 8 as the job's iodepth_batch. It runs for -r seconds and prints IOPS
  # once a second (the last second is not printed), so its CPU per I/O is its CPU per wall
  # second over its mean IOPS line. The anchor waits for 8 completions per enter (-c8); the
  # job waits for one (iodepth_batch_complete_min=1, fio's default), so two more pairs show
  # each tool at the other's wait: iolab with iodepth_batch_complete_min=8, t/io_uring -c1.
  tio="io_uring -d32 -s8 -b4096 -p0 -B1 -F1 -X1 -O1 -R1 -n1 -r4 $file"
  cmds+=("t_io_uring=$tio -c8" "t_io_uring_c1=$tio -c1"
         "iolab_c8=$IOLAB run $uring --iodepth_batch_complete_min=8 --output-format=json --output=$dir/iolab_c8.{run}.json")
  echo "t/io_uring: $(command -v io_uring) -d32 -s8 -c8 -b4096 -p0 -B1 -F1 -X1 -O1 -R1 -n1 -r4"
fi
$ALT "${cmds[@]}" > "$dir/r.json"
python3 - "$dir/r.json" "$dir" <<'PY2'
import json, re, statistics, sys
r, d = json.load(open(sys.argv[1])), sys.argv[2]
runs = len(r["iolab"]["cpus"])
# IOPS: the median over the runs, each run's own JSON ({run} in its --output).
# The spread (lowest-highest run) goes beside each median: at this row's IOPS the tools are
# within a few per cent of each other, the order of a run's noise.
each = {k: [json.load(open(f"{d}/{k}.{n}.json"))["jobs"][0]["read"]["iops"] for n in range(runs)]
        for k in ("fio", "iolab")}
iops = {k: statistics.median(v) for k, v in each.items()}
ios = 4 * 1024 * 1024 // 4  # io_size 4 GiB of 4 KiB reads
f, i = r["fio"]["cpu"] / ios * 1e6, r["iolab"]["cpu"] / ios * 1e6
print(f"{'io_uring 4k randread QD32 batch 8 O_DIRECT: CPU us/I/O':52s} {f:10.2f} {i:10.2f} "
      f"{i/f:7.2f}x of fio (lower is better)")
print(f"{'  IOPS (median of the runs)':52s} {iops['fio']:10.0f} {iops['iolab']:10.0f} "
      f"(runs: fio {min(each['fio']):.0f}-{max(each['fio']):.0f}, "
      f"iolab {min(each['iolab']):.0f}-{max(each['iolab']):.0f})")


def t_io_uring(t):
    """Per run: its CPU per wall second over the mean of its IOPS lines; then the medians and
    the spreads (lowest and highest IOPS, lowest and highest CPU per I/O)."""
    unit = {"": 1, "K": 1e3, "M": 1e6}
    rates, per_io = [], []
    for out, cpu, wall in zip(t["stdouts"], t["cpus"], t["walls"]):
        lines = [float(v) * unit[u] for v, u in re.findall(r"IOPS=([0-9.]+)([KM]?),", out)]
        if lines:
            rates.append(sum(lines) / len(lines))
            per_io.append(cpu / wall / rates[-1] * 1e6)
    if not rates:
        return None, None, None
    spread = (min(rates), max(rates), min(per_io), max(per_io))
    return statistics.median(per_io), statistics.median(rates), spread


if "t_io_uring" in r:
    tc, rate, spread = t_io_uring(r["t_io_uring"])
    if tc:
        print(f"{'  t/io_uring -c8 CPU us/I/O, IOPS (medians of the runs)':52s} {tc:10.2f} {rate:10.0f} "
              f"iolab {i/tc:.2f}x of it (goal <= 1.15), IOPS {iops['iolab']/rate:.2f}x (goal >= 1)")
        lo, hi, clo, chi = spread
        ic = [c / ios * 1e6 for c in r["iolab"]["cpus"]]
        print(f"    runs: t/io_uring {clo:.2f}-{chi:.2f} us, {lo:.0f}-{hi:.0f} IOPS; "
              f"iolab {min(ic):.2f}-{max(ic):.2f} us")
    # The same wait on both sides: the job at complete_min=8 against -c8, -c1 against the job.
    i8 = r["iolab_c8"]["cpu"] / ios * 1e6
    iops8 = statistics.median(json.load(open(f"{d}/iolab_c8.{n}.json"))["jobs"][0]["read"]["iops"]
                              for n in range(runs))
    t1, rate1, _ = t_io_uring(r["t_io_uring_c1"])
    if tc:
        print(f"{'  same wait: iolab complete_min=8 vs t/io_uring -c8':52s} {i8:10.2f} {iops8:10.0f} "
              f"CPU {i8/tc:.2f}x, IOPS {iops8/rate:.2f}x")
    if t1:
        print(f"{'  same wait: iolab (complete_min=1) vs t/io_uring -c1':52s} {t1:10.2f} {rate1:10.0f} "
              f"CPU {i/t1:.2f}x, IOPS {iops['iolab']/rate1:.2f}x")
else:
    print("  (t/io_uring not on PATH as io_uring: fio's CPU per I/O is the anchor)")
PY2
