#!/usr/bin/env bash
# bench-vs-fio.sh: run fio and iolab on the same jobs, in one go, and print ratios.
#
#   1. ioengine=null, 4 KiB randread, one job, iodepth 1 and iodepth 32 (batch 32): I/Os per
#      CPU-second of the job's thread (DESIGN.md budget: iolab >= 3x fio). Per CPU-second, not
#      per wall second, so other load on the machine does not skew the ratio.
#   1c. ioengine=null, 4 KiB randwrite with refill_buffers=1 (write-buffer generation cost),
#      I/Os per CPU-second (target >= 3x fio).
#   2. ioengine=io_uring, 4 KiB randread, QD32, direct=1, iodepth_batch=8, on a file: IOPS
#      (>= 1.0x fio) and CPU per I/O (<= 0.8x fio).
#   2b. the same with fio's default iodepth_batch=1 (no batching allowed: iolab then submits
#      one unit per completion exactly as fio does), printed for comparison.
#
# Usage: scripts/bench-vs-fio.sh [DIR] [SECONDS]
#   DIR      where the test file goes (default: a temp dir under the current directory)
#   SECONDS  per run (default 5)
# Needs: fio, python3, and a release build (cargo build --release -p iolab-cli), or set IOLAB.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
IOLAB="${IOLAB:-${CARGO_TARGET_DIR:-$here/target}/release/iolab}"
dir="${1:-}"
secs="${2:-5}"
command -v fio >/dev/null || { echo "fio not found (apt-get install fio)" >&2; exit 2; }
[ -x "$IOLAB" ] || { echo "no iolab binary at $IOLAB: cargo build --release -p iolab-cli" >&2; exit 2; }
if [ -z "$dir" ]; then dir="$(mktemp -d ./.bench-vs-fio.XXXXXX)"; trap 'rm -rf "$dir"' EXIT; fi
mkdir -p "$dir"

# Both tools get the same job text on the command line; only the JSON is read back.
run() { # tool name args...
  local tool="$1" name="$2"; shift 2
  local out="$dir/$tool-$name.json"
  if [ "$tool" = fio ]; then
    fio "$@" --output-format=json --output="$out" >/dev/null
  else
    "$IOLAB" run "$@" --output-format=json --output="$out" 2>/dev/null
  fi
  echo "$out"
}

# IOPS, CPU seconds (usr+sys, from the job's own rusage) and I/Os from a fio-format JSON.
summarize() {
  python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = sum(j[d]["total_ios"] for d in ("read", "write"))
rt = max(j[d]["runtime"] for d in ("read", "write")) / 1000.0
cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * rt
print(f"{ios / rt:.0f} {cpu:.3f} {ios}")
PY
}

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.2f}' if b else 'inf')" "$1" "$2"; }

echo "fio: $(fio --version)   iolab: $("$IOLAB" --version)   kernel: $(uname -r)   cpus: $(nproc)"
echo

# 1. null engine overhead.
null=(--name=null --ioengine=null --rw=randread --bs=4k --size=1g --time_based --runtime="$secs" --norandommap --thread)
read -r f_iops f_cpu f_ios < <(summarize "$(run fio null "${null[@]}")")
read -r i_iops i_cpu i_ios < <(summarize "$(run iolab null "${null[@]}")")
f_pc=$(python3 -c "print(f'{$f_ios/max($f_cpu,1e-9):.0f}')")
i_pc=$(python3 -c "print(f'{$i_ios/max($i_cpu,1e-9):.0f}')")
printf '%-44s %14s %14s %8s\n' "job" "fio" "iolab" "ratio"
printf '%-44s %14s %14s %8s\n' "null 4k randread QD1: IOPS" "$f_iops" "$i_iops" "$(ratio "$i_iops" "$f_iops")"
printf '%-44s %14s %14s %8s  (target >= 3)\n' "null 4k randread QD1: I/Os per CPU-second" "$f_pc" "$i_pc" "$(ratio "$i_pc" "$f_pc")"

# 1b. null engine at QD32 with batched submit/complete (fio's null engine batches too).
null32=(--name=null32 --ioengine=null --rw=randread --bs=4k --size=1g --time_based --runtime="$secs" --norandommap --thread
        --iodepth=32 --iodepth_batch=32 --iodepth_batch_complete_min=32)
read -r f_iops f_cpu f_ios < <(summarize "$(run fio null32 "${null32[@]}")")
read -r i_iops i_cpu i_ios < <(summarize "$(run iolab null32 "${null32[@]}")")
f_pc=$(python3 -c "print(f'{$f_ios/max($f_cpu,1e-9):.0f}')")
i_pc=$(python3 -c "print(f'{$i_ios/max($i_cpu,1e-9):.0f}')")
printf '%-44s %14s %14s %8s  (target >= 3)\n' "null 4k randread QD32: I/Os per CPU-second" "$f_pc" "$i_pc" "$(ratio "$i_pc" "$f_pc")"

# 1c. null engine, 4 KiB randwrite with refill_buffers: every write buffer regenerated (fio
#     refills with its random generator; iolab with the data crate's keyed generator).
nullw=(--name=nullw --ioengine=null --rw=randwrite --bs=4k --size=1g --time_based --runtime="$secs" --norandommap --thread
       --refill_buffers=1)
read -r f_iops f_cpu f_ios < <(summarize "$(run fio nullw "${nullw[@]}")")
read -r i_iops i_cpu i_ios < <(summarize "$(run iolab nullw "${nullw[@]}")")
f_pc=$(python3 -c "print(f'{$f_ios/max($f_cpu,1e-9):.0f}')")
i_pc=$(python3 -c "print(f'{$i_ios/max($i_cpu,1e-9):.0f}')")
printf '%-44s %14s %14s %8s  (target >= 3)\n' "null 4k randwrite refill: I/Os per CPU-sec" "$f_pc" "$i_pc" "$(ratio "$i_pc" "$f_pc")"

# 2. io_uring on a file, QD32 direct.
uring=(--name=uring --ioengine=io_uring --rw=randread --bs=4k --iodepth=32 --iodepth_batch=8
       --direct=1 --size=1g --filename="$dir/bench.dat" --time_based --runtime="$secs" --norandommap --thread)
# Lay the file out once (written, not sparse) so neither tool reads holes.
"$IOLAB" run --name=layout --rw=write --bs=1m --size=1g --filename="$dir/bench.dat" --output-format=json --output="$dir/layout.json" 2>/dev/null
# One io_uring comparison: IOPS and CPU per I/O of both tools on the same job.
uring_pair() { # name label iops-target cpu-target args...
  local name="$1" label="$2" t_iops="$3" t_cpu="$4"; shift 4
  read -r f_iops f_cpu f_ios < <(summarize "$(run fio "$name" "$@")")
  read -r i_iops i_cpu i_ios < <(summarize "$(run iolab "$name" "$@")")
  f_cpi=$(python3 -c "print(f'{$f_cpu/max($f_ios,1)*1e9:.0f}')")
  i_cpi=$(python3 -c "print(f'{$i_cpu/max($i_ios,1)*1e9:.0f}')")
  printf '%-44s %14s %14s %8s%s\n' "$label: IOPS" "$f_iops" "$i_iops" "$(ratio "$i_iops" "$f_iops")" "$t_iops"
  printf '%-44s %14s %14s %8s%s\n' "$label: CPU ns per I/O" "$f_cpi" "$i_cpi" "$(ratio "$i_cpi" "$f_cpi")" "$t_cpu"
}
uring_pair uring "io_uring 4k randread QD32 direct" "  (target >= 1.0)" "  (target <= 0.8)" "${uring[@]}"

# 2b. The same job with fio's default iodepth_batch (1).
uring1=()
for a in "${uring[@]}"; do [ "$a" = --iodepth_batch=8 ] || uring1+=("$a"); done
uring_pair uring1 "  same, iodepth_batch=1" "" "" "${uring1[@]}"
