#!/usr/bin/env bash
# The whole test suite, as the README gives it: every test binary runs even after a failure
# (--no-fail-fast), and the output ends with what was skipped and why. Tests that need root,
# loop devices, fio, XFS or chromium probe for them and print a line starting "skip" when
# they cannot run; libtest hides such lines unless a test fails, so the suite runs with
# --nocapture into a log and this script prints cargo's per-binary results, then the skips.
# The exit status is cargo's.
set -uo pipefail
cd "$(dirname "$0")/.."
log="${IOLAB_TEST_LOG:-$(mktemp "${TMPDIR:-/tmp}/iolab-test.XXXXXX")}"
cargo test --workspace --no-fail-fast "$@" -- --nocapture >"$log" 2>&1
rc=$?
# cargo's own lines: which binary ran and its result line; failures in full below. Every
# crate's integration tests are one binary, tests/it/main.rs (deps/it-HASH); it runs after its
# crate's unit tests, so it is labelled with the crate named on the preceding unittests line.
grep -E '^\s+Running |^test result:|^error(\[|:)|^warning: unused' "$log" \
  | awk '/Running unittests / && match($0, /deps\/[A-Za-z0-9_]+-/) {
           crate = substr($0, RSTART + 5, RLENGTH - 6) }
         /Running tests\// { $0 = $0 " [" crate "]" }
         { print }' || true
if [ "$rc" -ne 0 ]; then
  echo
  echo "=== FAILED (rc=$rc): the whole log follows ($log) ==="
  cat "$log"
fi
echo
skips=$(grep -E '^(note: )?skip(ped)?[: ]' "$log" | sort | uniq -c | sort -rn)
if [ -n "$skips" ]; then
  echo "=== skipped checks ($(printf '%s\n' "$skips" | wc -l) distinct reasons) ==="
  printf '%s\n' "$skips"
else
  echo "=== no checks were skipped ==="
fi
passed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' \
  | awk '{p+=$1; f+=$2} END {print p " passed, " f " failed"}')
echo "=== $passed (rc=$rc) ==="
[ -z "${IOLAB_TEST_LOG:-}" ] && [ "$rc" -eq 0 ] && rm -f "$log"
exit "$rc"
