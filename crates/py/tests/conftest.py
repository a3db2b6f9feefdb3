"""Shared fixtures: the repository, the bundled real trace (read in place from ../shared
beside the repository, never copied) and the ``iolab`` binary the CLI comparisons run
(``IOLAB_BIN``, else the workspace's target/{debug,release}/iolab; crates/py/test.sh builds
it)."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
TRACES = REPO.parent / "shared" / "traces"
ORACLE = TRACES / "cloudPhysicsIO.oracleGeneral.bin"
CSV = TRACES / "cloudPhysicsIO.csv"


def iolab_bin():
    cands = [os.environ.get("IOLAB_BIN")] + [str(REPO / "target" / p / "iolab")
                                             for p in ("debug", "release")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    raise RuntimeError("no iolab binary: set IOLAB_BIN or build it (crates/py/test.sh does)")


def cli(*args, check=True):
    """Runs ``iolab ARGS`` and returns its stdout."""
    p = subprocess.run([iolab_bin(), *map(str, args)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"iolab {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def cli_json(*args):
    return json.loads(cli(*args))


@pytest.fixture(scope="session")
def oracle():
    assert ORACLE.is_file(), f"the bundled trace is missing: {ORACLE}"
    return ORACLE
