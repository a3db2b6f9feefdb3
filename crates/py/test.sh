#!/usr/bin/env bash
# Builds the Python package as a user installs it (`pip install ./crates/py` in a fresh
# venv: maturin compiles the extension in release) and runs its pytest suite. pytest's exit 5
# (no test collected) fails like any other failure. The CLI comparisons need the `iolab`
# binary: IOLAB_BIN, else the workspace's target/debug/iolab (built here if absent).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
py="${PYTHON:-python3}"
if ! command -v "$py" >/dev/null; then
  echo "crates/py/test.sh: no python3; the Python package cannot be tested" >&2
  exit 1
fi
if [ -z "${IOLAB_BIN:-}" ]; then
  [ -x target/debug/iolab ] || cargo build -q -p iolab-cli
  export IOLAB_BIN="$repo/target/debug/iolab"
fi
venv="$(mktemp -d "${TMPDIR:-/tmp}/iolab-py-venv.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
"$py" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
# The package builds under the root target/ (its workspace is not the root's).
export CARGO_TARGET_DIR="${IOLAB_PY_TARGET:-$repo/target/py}"
start=$(date +%s)
"$venv/bin/pip" install -q ./crates/py
echo "crates/py/test.sh: pip install ./crates/py took $(( $(date +%s) - start )) s"
"$venv/bin/pip" install -q pytest pandas
cd crates/py/tests
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "crates/py/test.sh: pytest collected no test" >&2
  exit 1
fi
exit "$rc"
