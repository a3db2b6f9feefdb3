#!/usr/bin/env bash
# Compare iolab with libCacheSim on one seeded Zipf trace, whole processes as a user times them
# (start to exit: trace reading, simulation, output), tools alternated run by run, medians of
# RUNS (default 5), peak RSS from wait4:
#   * LRU and S3-FIFO replay of a 20 M-request Zipf(0.9) trace over 2 M objects (oracleGeneral,
#     every object size 1), cache = 200,000 objects, against libCacheSim;
#   * iolab's exact LRU MRC (all sizes) against one iolab LRU simulation of the same trace
#     (goal: <= 2 simulations), and SHARDS 1 % against the exact MRC.
# libCacheSim is its native `cachesim` (the binary named by $CACHESIM, else `cachesim` on PATH;
# built by hand, this script builds none), else the Python package
# (`pip install 'libcachesim<0.4'`, the 0.3.x binding); the script says which. The trace is
# written once by the seeded `zipf_trace` example, so both tools read the same bytes.
# Usage: [CACHESIM=path] [ONLY=curves] scripts/bench-libcachesim.sh [REQUESTS] [OBJECTS] [CACHE] [ALPHA] [RUNS]
# ONLY=curves runs only the last row (every policy's curve against one cachesim LRU run).
set -euo pipefail
cd "$(dirname "$0")/.."
REQ=${1:-20000000}; OBJ=${2:-2000000}; CACHE=${3:-200000}; ALPHA=${4:-0.9}; RUNS=${5:-5}
SEED=42
TRACE=${TMPDIR:-/tmp}/iolab-zipf-$REQ-$OBJ-$ALPHA-$SEED.oracleGeneral.bin
TD=${CARGO_TARGET_DIR:-target}
cargo build -q --release -p iolab-cli --bin iolab
cargo build -q --release -p iolab-model --example zipf_trace
[ -f "$TRACE" ] || "$TD"/release/examples/zipf_trace "$TRACE" "$REQ" "$OBJ" "$ALPHA" "$SEED"
IOLAB="$TD/release/iolab"

CACHESIM=${CACHESIM:-$(command -v cachesim || true)}
if [ -n "$CACHESIM" ]; then
  [ -x "$CACHESIM" ] || { echo "CACHESIM=$CACHESIM: not an executable" >&2; exit 2; }
  LCS="native cachesim ($CACHESIM)"
  # run from the temp dir: cachesim writes a <trace>.cachesim result file into its cwd
  lcs() { echo "cd '${TMPDIR:-/tmp}' && '$CACHESIM' '$TRACE' oracleGeneral $1 $CACHE --ignore-obj-size 1"; }
elif python3 -c 'import libcachesim' 2>/dev/null; then
  LCS="Python libcachesim $(python3 -c 'import importlib.metadata as m; print(m.version("libcachesim"))')"
  LCSPY=$(mktemp --suffix=.py); trap 'rm -f "$LCSPY"' EXIT
  cat > "$LCSPY" <<'PY'
import sys, libcachesim as lcs
path, pol, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
reader = lcs.TraceReader(trace=path, trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE)
cache = {"lru": lcs.LRU, "s3fifo": lcs.S3FIFO}[pol](cache_size=size)
mr = cache.process_trace(reader)
print(mr[0] if isinstance(mr, (tuple, list)) else mr)
PY
  lcs() { echo "python3 $LCSPY $TRACE $1 $CACHE"; }
else
  echo "no libCacheSim: neither \`cachesim\` on PATH nor the Python package" \
       "(pip install 'libcachesim<0.4'); iolab-only rows follow" >&2
  LCS=""
fi

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $TRACE ($REQ requests, $OBJ objects, Zipf $ALPHA, seed $SEED); cache $CACHE objects"
echo "libCacheSim: ${LCS:-absent}; iolab: $("$IOLAB" --version); medians of $RUNS, alternated"

sim() { echo "$IOLAB sim --trace $TRACE --object-level --policy $1 --cache-size $CACHE --output-format json"; }
OUT=$(mktemp); trap 'rm -f "$OUT" ${LCSPY:-}' EXIT
echo
echo "| path | anchor | iolab | ratio now | goal |"
echo "|---|---|---|---|---|"
if [ "${ONLY:-}" != curves ]; then
for P in lru s3fifo; do
  args=("iolab=$(sim $P)")
  [ -n "$LCS" ] && args+=("libcachesim=$(lcs $P)")
  python3 scripts/bench_alternate.py "$RUNS" "${args[@]}" > "$OUT"
  python3 - "$P" "$OUT" "$REQ" "$OBJ" "$CACHE" "$ALPHA" <<'PY'
import json, re, sys
pol, r = sys.argv[1], json.load(open(sys.argv[2]))
req, obj, cache, alpha = (int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
name = {"lru": "LRU", "s3fifo": "S3-FIFO"}[pol]
goal = {"lru": 6, "s3fifo": 8}[pol]
i = r["iolab"]
mr_i = json.loads(i["stdout"])[0]["miss_ratio"]
spread = f"runs {min(i['walls']):.2f}-{max(i['walls']):.2f} s, cpu {min(i['cpus']):.2f}-{max(i['cpus']):.2f} s"
me = f"{i['wall']:.2f} s (cpu {i['cpu']:.2f} s; {spread}), {i['rss_kb']/1024:.0f} MB, miss ratio {mr_i:.8f}"
path = f"{name}, {req/1e6:g} M-request Zipf({alpha}) trace, {obj/1e6:g} M objects, {cache/1e3:g} k-entry cache"
if "libcachesim" in r:
    l = r["libcachesim"]
    m = re.findall(r"miss ratio\s*([0-9.]+)|^([0-9.]+)\s*$", l["stdout"], re.M)
    mr_l = next((a or b for a, b in m), "?")
    anchor = f"libCacheSim: {l['wall']:.2f} s, {l['rss_kb']/1024:.0f} MB, miss ratio {mr_l}"
    ratio = l["wall"] / i["wall"]
    met = "met" if ratio >= goal else "NOT met"
    print(f"| {path} | {anchor} | {me} | {ratio:.2f}x, 1/{l['rss_kb']/max(i['rss_kb'],1):.0f} memory | >= {goal}x ({met}) |")
else:
    print(f"| {path} | (no libCacheSim) | {me} | - | >= {goal}x |")
PY
done

# Exact MRC and SHARDS against one LRU simulation, same trace, whole processes.
python3 scripts/bench_alternate.py "$RUNS" "sim=$(sim lru)" \
  "exact=$IOLAB mrc $TRACE --points 40" "shards=$IOLAB mrc $TRACE --shards 0.01 --points 40" > "$OUT"
python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, e, h = r["sim"], r["exact"], r["shards"]
sims = e["wall"] / s["wall"]
# Both are memory-bound and their runs spread widely on a shared host: the spreads go beside
# the medians so a reader can tell a miss from a noisy moment.
def spread(x):
    return f"runs {min(x['walls']):.2f}-{max(x['walls']):.2f} s"
print(f"| exact LRU MRC, all sizes, same trace | one LRU simulation: {s['wall']:.2f} s (cpu {s['cpu']:.2f} s; "
      f"{spread(s)}) | {e['wall']:.2f} s (cpu {e['cpu']:.2f} s; {spread(e)}), {e['rss_kb']/1024:.0f} MB "
      f"| {sims:.2f} simulations (cpu {e['cpu']/s['cpu']:.2f}) | <= 2 simulations ({'met' if sims <= 2 else 'NOT met'}) |")
print(f"| SHARDS 1 % MRC | exact: {e['wall']:.2f} s | {h['wall']:.2f} s (cpu {h['cpu']:.2f} s), "
      f"{h['rss_kb']/1024:.0f} MB | {e['wall']/h['wall']:.1f}x faster | keep; no bias at small sizes |")
PY
fi

# Every policy's curve (`mrc --policy`, issue 31): the nine curves at 40 points in one process
# against ONE native cachesim LRU run at one size, alternated; then the curves' error against
# full simulations of the same sizes (`--exact`, run once: minutes).
NINE=lru,fifo,clock,sieve,s3fifo,arc,2q,lirs,wtinylfu
CURVES=$(mktemp); trap 'rm -f "$OUT" "$CURVES" ${LCSPY:-}' EXIT
args=("curves=$IOLAB mrc $TRACE --policy=$NINE --points 40 --json")
[ -n "$LCS" ] && args+=("libcachesim=$(lcs lru)")
python3 scripts/bench_alternate.py "$RUNS" "${args[@]}" > "$OUT"
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["curves"]["stdout"])' "$OUT" > "$CURVES"
SIZES=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print(",".join(str(p["cache_entries"]) for p in d["points"] if p["measured"]))' "$CURVES")
EXACT=$(mktemp); trap 'rm -f "$OUT" "$CURVES" "$EXACT" ${LCSPY:-}' EXIT
/usr/bin/time -f '%e %M' -o "$EXACT.time" "$IOLAB" mrc "$TRACE" --policy=$NINE --sizes "$SIZES" --exact --json > "$EXACT"
python3 - "$OUT" "$CURVES" "$EXACT" "$EXACT.time" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
est, full = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
ex_wall, ex_rss = open(sys.argv[4]).read().split()
c = r["curves"]
fp = full[0]["footprint_entries"]
errs, band = {}, {}
for e, f in zip(est, full):
    fm = {p["cache_entries"]: p["miss_ratio"] for p in f["points"]}
    d = [(p["cache_entries"], abs(p["miss_ratio"] - fm[p["cache_entries"]]), p["expected_error"])
         for p in e["points"] if p["measured"]]
    errs[e["policy"]] = d
    band[e["policy"]] = [x for x in d if 0.01 * fp <= x[0] <= 0.5 * fp]
allp = [x for d in errs.values() for x in d]
inb = [x for d in band.values() for x in d]
cover = sum(1 for x in allp if x[1] <= x[2]) / max(len(allp), 1)
worst = max(band, key=lambda k: max((x[1] for x in band[k]), default=0))
me = f"{c['wall']:.2f} s (cpu {c['cpu']:.2f} s; runs {min(c['walls']):.2f}-{max(c['walls']):.2f} s), {c['rss_kb']/1024:.0f} MB, {est[0]['method']}"
acc = (f"error vs full simulations ({ex_wall} s, {int(ex_rss)/1024:.0f} MB): 1-50 % of the footprint mean "
       f"{sum(x[1] for x in inb)/max(len(inb),1):.4f}, max {max(x[1] for x in inb):.4f} ({worst}); all points mean "
       f"{sum(x[1] for x in allp)/max(len(allp),1):.4f}, max {max(x[1] for x in allp):.4f}; stated error covers {cover:.0%}")
if "libcachesim" in r:
    l = r["libcachesim"]
    ratio = l["wall"] / c["wall"]
    print(f"| 9 policies' MRCs, 40 points, one process | `cachesim` LRU at one size: {l['wall']:.2f} s (runs "
          f"{min(l['walls']):.2f}-{max(l['walls']):.2f} s) | {me}; {acc} | {ratio:.2f}x | < one cachesim run ({'met' if ratio > 1 else 'NOT met'}) |")
else:
    print(f"| 9 policies' MRCs, 40 points | (no libCacheSim) | {me}; {acc} | - | < one cachesim run |")
PY
rm -f "$EXACT.time"
