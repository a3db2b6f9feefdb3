"""parse_job, run, sim, predict, load_result on fio's own json+ and iolab's JSON,
load_intervals."""

import json
import shutil
import subprocess

import pytest

import iolab
from conftest import cli

pd = pytest.importorskip("pandas")


def test_parse_job_types_sizes_in_bytes_and_keeps_warnings(tmp_path):
    p = tmp_path / "j.fio"
    p.write_text("[global]\nbs=4k\nsize=1m\n[a]\nrw=randread\n[b]\nrw=write\nbs=64k\n")
    jobs = iolab.parse_job(p)
    assert [j["name"] for j in jobs] == ["a", "b"]
    assert jobs[0]["options"]["size"] == 1 << 20
    assert jobs[1]["options"]["bs"] == 65536 or jobs[1]["options"]["bs"][0] == 65536
    assert jobs[0]["detail"]["rw"]["origin"].endswith("j.fio:5")
    kw = iolab.parse_job(name="x", rw="randread", size="2m")
    assert kw[0]["name"] == "x" and kw[0]["options"]["size"] == 2 << 20


def test_parse_job_errors_are_the_cli_lines(tmp_path):
    p = tmp_path / "bad.fio"
    p.write_text("[a]\nrw=randread\nbogus_option=1\n")
    with pytest.raises(iolab.JobError) as e:
        iolab.parse_job(p)
    msg = str(e.value)
    assert "bad.fio:3" in msg and "bogus_option" in msg
    assert "\n" not in msg


def test_run_gives_a_result_whose_table_matches_its_json(tmp_path):
    f = tmp_path / "data"
    r = iolab.run(name="py", rw="randread", bs="4k", size="4m", filename=str(f),
                  number_ios=500, ioengine="psync")
    j = r.json["jobs"][0]
    assert j["jobname"] == "py" and j["read"]["total_ios"] == 500
    df = r.to_pandas()
    assert df["direction"].tolist() == ["read"]
    assert df["iops"][0] == j["read"]["iops"]
    assert df["clat_p99_ns"][0] == j["read"]["clat_ns"]["percentile"]["99.000000"]


def test_sim_and_predict_return_results(tmp_path):
    r = iolab.sim(name="s", rw="randread", bs="4k", size="64m", number_ios=3000,
                  tiers=["ram:16MiB:lru"], backing="hdd:7200")
    j = r.json["jobs"][0]
    assert j["read"]["total_ios"] == 3000
    tier = r.json["iolab_sim"]["tiers"][0]
    assert 0 < tier["hit_ratio"] < 1 if "hit_ratio" in tier else tier
    with pytest.raises(iolab.CalibrateError) as e:
        iolab.predict({"name": "p", "rw": "randread", "size": "64m"}, tmp_path / "none.toml")
    assert "none.toml" in str(e.value)


def fio_json_plus(tmp_path):
    if shutil.which("fio") is None:
        pytest.skip("skip: fio is not installed (apt-get install fio)")
    out = tmp_path / "fio.json"
    subprocess.run(["fio", "--name=f", f"--filename={tmp_path / 'f.dat'}", "--size=8m",
                    "--rw=randrw", "--bs=4k", "--number_ios=4000", "--ioengine=psync",
                    "--lat_percentiles=1", "--output-format=json+", f"--output={out}"],
                   check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    return out


def test_load_result_on_fios_json_plus_gives_the_files_figures(tmp_path):
    out = fio_json_plus(tmp_path)
    doc = json.loads(out.read_text())
    df = iolab.load_result(out)
    assert df["direction"].tolist() == ["read", "write"]
    for _, row in df.iterrows():
        s = doc["jobs"][0][row["direction"]]
        assert row["job"] == "f"
        assert row["iops"] == s["iops"] and row["bw_bytes"] == s["bw_bytes"]
        assert row["clat_mean_ns"] == s["clat_ns"]["mean"]
        for name, key in (("p50", "50.000000"), ("p99", "99.000000"), ("p99.9", "99.900000")):
            assert row[f"clat_{name}_ns"] == s["clat_ns"]["percentile"][key]
            assert row[f"lat_{name}_ns"] == s["lat_ns"]["percentile"][key]
        # fio's json+ bins through the exact histogram: the same count.
        h = iolab.Histogram.from_json_plus(s["clat_ns"])
        assert h.count == s["clat_ns"]["N"]


def test_load_result_on_iolabs_json_and_its_intervals(tmp_path):
    args = ["run", "--name=i", f"--filename={tmp_path / 'd'}", "--size=4m", "--rw=randread",
            "--bs=4k", "--number_ios=600", "--ioengine=psync"]
    out, jl = tmp_path / "r.json", tmp_path / "r.jsonl"
    cli(*args, "--output-format=json", f"--output={out}")
    doc = json.loads(out.read_text())
    df = iolab.load_result(out)
    s = doc["jobs"][0]["read"]
    assert df["iops"].tolist() == [s["iops"]]
    assert df["clat_p50_ns"][0] == s["clat_ns"]["percentile"]["50.000000"]
    cli(*args, "--output-format=jsonl", f"--output={jl}")
    iv = iolab.load_intervals(jl)
    assert set(iv["direction"]) == {"read"}
    assert iv["total_ios"].sum() == 600


def test_load_intervals_reads_fio_logs(tmp_path):
    p = tmp_path / "x_bw.1.log"
    p.write_text("100, 2048, 0, 4096, 0\n200, 4096, 1, 4096, 8192\n")
    df = iolab.load_intervals(p)
    assert df["time_ms"].tolist() == [100, 200]
    assert df["direction"].tolist() == ["read", "write"]
    assert df["value"].tolist() == [2048, 4096]
