#!/usr/bin/env bash
# The test suite, as the README gives it.
#
#   bash scripts/test.sh            every test of every crate
#   bash scripts/test.sh --quick    the fast tier for an edit-test loop: no real-I/O
#                                   calibration sweeps, no browser, no slow hostile families
#                                   (IOLAB_TEST_QUICK=1; those tests print `skip: quick tier…`)
#   bash scripts/test.sh [--quick] FILTER…   only tests whose names contain FILTER
#
# With cargo-nextest installed (.ci/run installs it) every test is its own process and the
# output is one line per test as it ends, the slow ones named (SLOW after 60 s), the failing
# tests' output once at the end, then nextest's summary. Without it, cargo test runs and the
# script shows each test binary's result as it ends. Either way the script ends with the
# checks that skipped and why (tests that need root, loop devices, fio, XFS or chromium
# probe for them and print `skip: reason`), the ten slowest tests and one summary line.
# Cargo's compile lines show from the start. The exit status is the runner's.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
args=()
for a in "$@"; do
  if [ "$a" = --quick ]; then quick=1; else args+=("$a"); fi
done
if [ "$quick" = 1 ]; then
  export IOLAB_TEST_QUICK=1
else
  unset IOLAB_TEST_QUICK
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/iolab-test.XXXXXX")
# MPI (issue 29): with an MPI library (mpicc) and mpirun the suite builds and tests iolab with
# its `mpi` feature (crates/cli/tests/it/mpi.rs runs mpirun); without, it says why not.
features=()
mpi_skip=""
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  features=(--features iolab-cli/mpi)
  echo "=== with the mpi feature (mpicc and mpirun found) ==="
else
  mpi_skip="skip: no mpicc/mpirun (apt-get install openmpi-bin libopenmpi-dev libclang-dev): built and tested without the mpi feature"
  echo "$mpi_skip"
fi
log="$work/log"
start=$(date +%s)

# The skip lines of a nextest JUnit report (passing tests' output is stored there).
junit_skips() {
  python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
for el in ET.parse(sys.argv[1]).iter():
    if el.tag in ("system-out", "system-err") and el.text:
        for line in el.text.splitlines():
            s = line.strip()
            if s.startswith(("skip:", "skip ", "skipped:", "skipped ", "note: skip")):
                print(s)
EOF
}

# The ten slowest tests of a nextest JUnit report.
junit_slowest() {
  python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
cases = [(float(c.get("time", 0)), c.get("classname", ""), c.get("name", ""))
         for c in ET.parse(sys.argv[1]).iter("testcase")]
for t, cls, name in sorted(cases, reverse=True)[:10]:
    print(f"{t:8.1f} s  {cls} {name}")
EOF
}

if cargo nextest --version >/dev/null 2>&1 && [ -z "${IOLAB_TEST_NO_NEXTEST:-}" ]; then
  runner=nextest
  profile=default
  [ "$quick" = 1 ] && profile=quick
  # nextest's own lines go to stderr; both go to the terminal and the log.
  cargo nextest run --workspace "${features[@]}" --no-fail-fast --profile "$profile" \
    --color "${CARGO_TERM_COLOR:-auto}" "${args[@]}" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # nextest does not run doctests (the examples in the crates' docs): cargo does, after it
  # (the full tier, or when filters were given: they name tests, not docs).
  if [ "$quick" = 0 ] && [ "${#args[@]}" -eq 0 ]; then
    echo "=== doctests (cargo test --doc) ==="
    cargo test --workspace --doc 2>&1 | tee "$work/doc" \
      | grep --line-buffered -E '^\s+(Compiling|Doc-tests) |^test result:|FAILED|panicked'
    doc_rc=${PIPESTATUS[0]}
    [ "$doc_rc" -ne 0 ] && { rc=$doc_rc; grep -A30 -E '^---- |^failures:' "$work/doc" | head -200; }
  fi
  junit="target/nextest/$profile/junit.xml"
  if [ -f "$junit" ] && command -v python3 >/dev/null; then
    junit_skips "$junit" >"$work/skips"
    slowest=$(junit_slowest "$junit")
  else
    grep -hE '^\s*(note: )?skip(ped)?[: ]' "$log" >"$work/skips" || true
    slowest=""
  fi
else
  runner="cargo test"
  # --nocapture: the skip lines reach the log; the terminal gets cargo's lines (compiling,
  # each binary as it starts) and each binary's result line as it ends.
  cargo test --workspace "${features[@]}" --no-fail-fast "${args[@]}" -- --nocapture 2>&1 | tee "$log" \
    | grep --line-buffered -E '^\s+(Compiling|Finished|Running|Doc-tests) |^test result:|^error(\[|:)|^warning: unused'
  rc=${PIPESTATUS[0]}
  grep -E '^\s*(note: )?skip(ped)?[: ]' "$log" | sed -E 's/^\s+//' >"$work/skips" || true
  slowest=""
  if [ "$rc" -ne 0 ]; then
    echo
    echo "=== failures: each panic with the 30 lines after it (whole log: $log) ==="
    grep -nE "panicked at|^failures:|^    [a-z_:]+$|^error" "$log" | head -200
    grep -A30 "panicked at" "$log" | head -400
  fi
fi

# The Python package (crates/py): built as a user installs it, in a fresh venv, and its pytest
# suite run (full tier, no filter). It fails the run like a failing Rust test.
if [ "$quick" = 0 ] && [ "${#args[@]}" -eq 0 ]; then
  echo
  echo "=== the Python package: pip install ./crates/py in a fresh venv, then pytest ==="
  if python3 -c 'import venv, ensurepip' 2>/dev/null; then
    IOLAB_BIN="$PWD/target/debug/iolab" bash crates/py/test.sh 2>&1 | tail -n 40
    py_rc=${PIPESTATUS[0]}
    [ "$py_rc" -ne 0 ] && echo "=== the Python package's tests FAILED (rc=$py_rc) ===" && rc=1
  else
    echo "skip: python3 without venv/ensurepip; the Python package is not tested" | tee -a "$work/skips"
  fi
fi
[ -n "$mpi_skip" ] && echo "$mpi_skip" >>"$work/skips"
echo
skips=$(sort "$work/skips" | uniq -c | sort -rn)
if [ -n "$skips" ]; then
  echo "=== skipped checks ($(printf '%s\n' "$skips" | wc -l) distinct reasons) ==="
  printf '%s\n' "$skips"
else
  echo "=== no checks were skipped ==="
fi
if [ -n "$slowest" ]; then
  echo "=== the ten slowest tests ==="
  printf '%s\n' "$slowest"
fi
secs=$(($(date +%s) - start))
if [ "$runner" = nextest ]; then
  summary=$(grep -E '^\s*Summary \[' "$log" | tail -1 | sed -E 's/^\s+//')
else
  summary=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' \
    | awk '{p+=$1; f+=$2} END {print p " passed, " f " failed"}')
fi
tier=full
[ "$quick" = 1 ] && tier=quick
echo "=== $tier tier by $runner in ${secs} s: ${summary:-no summary} (rc=$rc) ==="
if [ "$rc" -eq 0 ] && [ -z "${IOLAB_TEST_KEEP:-}" ]; then
  rm -rf "$work"
else
  echo "(log kept in $log)"
fi
exit "$rc"
