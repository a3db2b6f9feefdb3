"""iolab.calibrate and iolab.predict: a short read-only calibration of a small regular file,
then a prediction from its profile, equal to what ``iolab run --predict`` prints as
predicted."""

import errno
import math
import os
import stat

import pytest

import iolab
from conftest import cli_json

JOB = {"name": "p", "rw": "randread", "bs": "4k", "size": "8m", "number_ios": 300,
       "ioengine": "psync"}


def direct_io_or_skip(path):
    """calibrate sweeps with O_DIRECT; a filesystem without it (tmpfs) cannot be swept."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as e:
        if e.errno == errno.EINVAL:
            pytest.skip(f"skip: {path.parent} does not support O_DIRECT (tmpfs?)")
        raise
    os.close(fd)


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    d = tmp_path_factory.mktemp("cal")
    dev = d / "dev.dat"
    dev.write_bytes(os.urandom(16 << 20))
    direct_io_or_skip(dev)
    before = dev.read_bytes()
    # A short budget and shallow queues; 20 s as the CLI's own calibrate test: on a loaded
    # machine 8 s ran out with two points left (calibrate then fails, naming them).
    cal = iolab.calibrate(dev, budget=20, max_depth=4)
    assert dev.read_bytes() == before, "a read-only calibration wrote to the file"
    prof = d / "profile.toml"
    prof.write_text(cal["toml"])
    return dev, cal, prof


def test_the_profile_names_its_target_and_is_read_only(calibrated):
    dev, cal, _ = calibrated
    p = cal["profile"]
    assert p["name"] == str(dev)
    assert p["source"] == "calibrated"
    assert p["capacity"] == dev.stat().st_size == 16 << 20
    # Read-only (no allow_write): no write point, and the profile says so.
    assert p["write_cache"] == "not measured"
    assert set(p["write"]) == set(p["read"])
    # The fitted service times (us) and rate (bytes/s) are real numbers a device could have.
    for k in ("base_us", "seq_base_us", "seek_sqrt_us"):
        assert 0 <= p["read"][k] < 1e6 and math.isfinite(p["read"][k]), k
    assert 0 < p["read"]["xfer_bytes_per_sec"] < 1e12
    # Every sweep point read the file (no write point) and measured I/O at its depth.
    pts = p["point"]
    assert pts and all(pt["rw"] in ("randread", "read") for pt in pts), pts
    assert {pt["iodepth"] for pt in pts} <= {1, 2, 4}
    assert all(pt["measured_iops"] > 0 and pt["predicted_iops"] > 0 for pt in pts)
    assert all(pt["span"] <= 16 << 20 for pt in pts)
    assert 0 < cal["elapsed_s"] < 20 * 2, cal["elapsed_s"]
    assert cal["toml"].startswith("#") and f'name = "{dev}"' in cal["toml"]


def test_predict_from_the_profile_equals_the_cli(calibrated):
    dev, _, prof = calibrated
    job = dict(JOB, filename=str(dev))
    r = iolab.predict(job, prof)
    rd = r.json["jobs"][0]["read"]
    assert rd["total_ios"] == 300
    assert math.isfinite(rd["iops"]) and rd["iops"] > 0
    p99 = rd["clat_ns"]["percentile"]["99.000000"]
    assert 0 < p99 < 10e9
    # The same job run by the CLI with --predict: the predicted result it adds to its
    # document is the call's, figure for figure.
    doc = cli_json("run", *[f"--{k}={v}" for k, v in job.items()], f"--predict={prof}",
                   "--output-format=json")
    pred = doc["iolab_predict"]["result"]["jobs"][0]["read"]
    for k in ("total_ios", "io_bytes", "runtime", "iops", "bw_bytes"):
        assert pred[k] == rd[k], k
    assert pred["clat_ns"]["percentile"] == rd["clat_ns"]["percentile"]
    assert pred["lat_ns"]["mean"] == rd["lat_ns"]["mean"]
    # Its predicted-vs-measured row: the same p99; IOPS from the unrounded runtime (fio's
    # `iops` divides by whole milliseconds), so within a millisecond of the result's.
    # The row judges total latency (submission to completion, issue 32) and gives clat
    # beside it: its clat p99 is the result's, its total p99 at least that.
    row = doc["iolab_predict"]["rows"][0]
    pr = row["predicted"]
    assert row["dir"] == "read" and pr["clat_p99_us"] == p99 / 1000
    lat_pct = rd["lat_ns"].get("percentile")
    if lat_pct:
        assert pr["p99_us"] == lat_pct["99.000000"] / 1000
    assert pr["p99_us"] >= pr["clat_p99_us"]
    assert abs(300 / row["predicted"]["iops"] * 1000 - rd["runtime"]) <= 1
    # The table of the prediction has the same IOPS.
    assert r.to_pandas()["iops"].tolist() == [rd["iops"]]


def test_calibrate_refuses_a_fifo_and_a_small_file_up_front(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(iolab.InputError) as e:
        iolab.calibrate(fifo, budget=5)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == f"target {fifo}: not a regular file, block device or directory"
    small = tmp_path / "small.dat"
    small.write_bytes(b"\0" * 4096)
    with pytest.raises(iolab.CalibrateError) as e:
        iolab.calibrate(small, budget=5)
    assert "expected at least 4 MiB" in str(e.value)
    assert stat.S_ISREG(small.stat().st_mode) and small.stat().st_size == 4096


@pytest.mark.parametrize("kw", [{"max_depth": 0}, {"max_depth": 5000}, {"size": 1 << 20},
                                {"size": -1}, {"size": 2.5}, {"allow_write": "yes"},
                                {"seed": -1}])
def test_bad_calibrate_arguments(tmp_path, kw):
    with pytest.raises((ValueError, TypeError)):
        iolab.calibrate(tmp_path / "new.dat", budget=5, **kw)
    assert not (tmp_path / "new.dat").exists()


def test_predict_refuses_a_fifo_profile_up_front(tmp_path):
    fifo = tmp_path / "p.toml"
    os.mkfifo(fifo)
    with pytest.raises(iolab.InputError) as e:
        iolab.predict(JOB, fifo)
    assert isinstance(e.value, ValueError) and "FIFO" in str(e.value)
    assert str(fifo) in str(e.value)
    with pytest.raises(iolab.InputError):
        iolab.sim(name="s", rw="randread", size="8m", number_ios=10, backing=str(fifo))
    with pytest.raises(iolab.InputError):
        iolab.predict(JOB, tmp_path)
