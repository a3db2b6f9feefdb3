#!/usr/bin/env bash
# Compare iolab's cache policies with libCacheSim on the same 20 M-request Zipf(1.0) trace of
# 1 M objects (oracleGeneral, every object size 1), cache = 100,000 objects: miss ratio,
# requests/s (one thread, trace reading included in both) and peak RSS (/usr/bin/time -v).
# Needs `pip install libcachesim`; skips with a message if it is not importable.
# Usage: scripts/bench-libcachesim.sh [REQUESTS] [OBJECTS] [CACHE]
set -euo pipefail
cd "$(dirname "$0")/.."
REQ=${1:-20000000}; OBJ=${2:-1000000}; CACHE=${3:-100000}
TRACE=${TMPDIR:-/tmp}/iolab-zipf-$REQ-$OBJ.oracleGeneral.bin
if ! python3 -c 'import libcachesim' 2>/dev/null; then
  echo "libcachesim (python) not importable; try: pip install libcachesim" >&2; exit 0
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time) for peak memory" >&2; exit 1; }
TD=${CARGO_TARGET_DIR:-target}
cargo build -q --release -p iolab-cli --bin iolab
cargo build -q --release -p iolab-model --example zipf_trace
[ -f "$TRACE" ] || "$TD"/release/examples/zipf_trace "$TRACE" "$REQ" "$OBJ" 1.0 42
peak() { grep 'Maximum resident set size' "$1" | awk '{print $NF}'; }
for P in lru s3fifo; do
  /usr/bin/time -v -o /tmp/iolab.time "$TD"/release/iolab sim --trace "$TRACE" \
    --object-level --policy $P --cache-size "$CACHE" --output-format json > /tmp/iolab.json
  /usr/bin/time -v -o /tmp/lcs.time python3 - "$TRACE" "$P" "$CACHE" > /tmp/lcs.json <<'PY'
import json, sys, time, libcachesim as lcs
path, pol, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
reader = lcs.TraceReader(trace=path, trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE)
cache = {"lru": lcs.LRU, "s3fifo": lcs.S3FIFO}[pol](cache_size=size)
t = time.time(); mr = cache.process_trace(reader); dt = time.time() - t
mr = mr[0] if isinstance(mr, (tuple, list)) else mr
print(json.dumps({"miss_ratio": mr, "seconds": dt}))
PY
  python3 - "$P" "$REQ" "$(peak /tmp/iolab.time)" "$(peak /tmp/lcs.time)" <<'PY'
import json, sys
pol, req, rss_i, rss_l = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
i = json.load(open("/tmp/iolab.json"))[0]; l = json.load(open("/tmp/lcs.json"))
lrps = req / l["seconds"]
print(f"{pol:7s} miss ratio iolab {i['miss_ratio']:.4f} libCacheSim {l['miss_ratio']:.4f} | "
      f"req/s iolab {i['requests_per_sec']/1e6:.1f}M libCacheSim {lrps/1e6:.1f}M "
      f"(x{i['requests_per_sec']/lrps:.2f}) | peak RSS iolab {rss_i/1024:.0f} MiB "
      f"libCacheSim {rss_l/1024:.0f} MiB (x{rss_i/rss_l:.2f})")
PY
done
