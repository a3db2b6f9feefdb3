#!/usr/bin/env python3
"""fio conformance: fio's own tests and example job files, run against the installed fio and
against iolab in fio's place, side by side.

The tests are the installed fio's own: Debian's source package of the installed fio version is
fetched at run time with `apt-get source --download-only` through a private sources list (a
temporary deb-src entry used for that call only; /etc/apt is not touched), unpacked into a
temporary directory and deleted afterwards. Nothing of fio's is kept in this repository.

What runs, each once with fio and once with iolab (a symlink named `fio` to the iolab binary,
first on PATH and passed as the scripts' `-f`/fio argument):
  t/<script>.py   fio's Python test scripts that need no special hardware;
  t/jobs/tNNNN    fio's job tests through fio's own t/run-fio-tests.py (one test per call);
  examples/X.fio  fio's example job files, shrunk: a copy in a scratch directory with sizes
                  capped at 4 MiB, runtimes at 1 s, numjobs at 2 and devices/directories
                  replaced by files there (fio lets a job file's options win over the command
                  line, so a copy is rewritten; --size/--runtime on the command line cover jobs
                  that set neither). An example passes when it exits 0; where neither run is
                  time-based, the per-direction I/O counts (total_ios) are compared too.

It prints a table test -> fio verdict -> iolab verdict and exits 1 when iolab fails where fio
passes, except for the cases in EXCEPTIONS (each with its reason). Exit 3 with a `skip:` line
means the suite could not run here (no fio 3.33, no apt-get/dpkg-source, no network).

Usage: scripts/fio-conformance.py --iolab target/debug/iolab [--full] [--markdown FILE]
       [--only REGEX] [--src DIR]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

WANT_VERSION = "fio-3.33"
SKIP_EXIT = 3

# fio 3.33's t/ Python tests that need no special hardware, with their arguments. verify.py and
# random_seed.py are not in 3.33 (they came with fio 3.35/3.36); the table says so.
T_SCRIPTS = {
    "readonly.py": ["-f", "{fio}"],
    "strided.py": ["{fio}"],
    "latency_percentiles.py": ["-f", "{fio}", "-a", "{art}"],
    "jsonplus2csv_test.py": ["-f", "{fio}", "-s", "{src}/tools/fio_jsonplus_clat2csv"],
    "log_compression.py": ["-f", "{fio}"],
    "steadystate_tests.py": ["{fio}"],
    "verify.py": ["-f", "{fio}"],
    "random_seed.py": ["-f", "{fio}"],
}
# Python modules a script needs; without them the script is skipped for both binaries.
T_NEEDS = {"steadystate_tests.py": "scipy"}

# fio's job tests (t/run-fio-tests.py ids) run by default: the ones that finish in seconds. The
# rest (1 GiB-10 GiB files, 10-60 s runtimes) run with --full.
JOB_TESTS_QUICK = [1, 3, 4, 5, 7, 8, 13, 15, 16, 17, 19, 20, 21, 22, 23, 24, 25]
JOB_TESTS_ALL = list(range(1, 27))

# Examples that need hardware, a remote service or an engine Debian's fio is built without are
# recognised from fio's own refusal, so they need no entry here. Entries here are differences
# iolab keeps on purpose: test -> reason.
EXCEPTIONS = {
    "t/latency_percentiles.py": "cmdprio*: no per-priority latencies (`prios` in the JSON); "
                                "the tests without cmdprio pass",
    "t/jobs/t0007-37cf9e3c.fio": "rw=read:512k with bs=1m: the bytes read differ from fio's "
                                 "(the skip's accounting)",
    "t/jobs/t0013.fio": "io_submit_mode=offload is refused",
    "t/jobs/t0020.fio": "random offsets with the null engine and no file: fio's check of "
                        "consecutive offsets fails on iolab's stream",
    "examples/surface-scan.fio": "fill_device is refused (it would fill the file system)",
    "t/jobs/t0025.fio": "experimental_verify is refused",
    "examples/butterfly.fio": "flow/flow_sleep (flow control between jobs) are refused",
    "examples/flow.fio": "flow/flow_sleep (flow control between jobs) are refused",
    "examples/cross-stripe-verify.fio": "rw=write:112k with offset= and verify: the blocks "
                                        "written differ from fio 3.33's (this copy: fio 256, "
                                        "iolab 1024; alone, --rw=write:112k --bs=16k --size=4m "
                                        "--offset=120k --verify=crc32c: fio 128, iolab 32; "
                                        "without verify 32 both); verify_backlog itself agrees "
                                        "(t0005, t0008)",
    "examples/dedupe-global.fio": "dedupe_global is refused: dedupe pools are per job",
    "examples/latency-profile.fio": "latency_target is refused",
    "examples/netio.fio": "the net engine is not implemented",
    "examples/netio_multicast.fio": "the net engine is not implemented",
    "examples/exec.fio": "fio's exec engine carries on when its program (turbostat, absent "
                         "here) cannot start; iolab fails the job",
    "examples/cmdprio-bssplit.fio": "cmdprio_bssplit's draws come from iolab's generator: "
                                    "the per-direction counts differ by 1",
    "examples/iometer-file-access-server.fio": "bssplit sizes and the rw mix are drawn by "
                                               "iolab's generator, not fio 3.33's",
    "examples/jesd219.fio": "bssplit sizes and the rw mix are drawn by iolab's generator, "
                            "not fio 3.33's",
}

CAP_SIZE = 4 << 20
CAP_RUNTIME = "1"
CAP_NUMJOBS = 2
CAP_NRFILES = 100
RUN_TIMEOUT = 30


def run(cmd, cwd=None, env=None, timeout=RUN_TIMEOUT):
    """Runs cmd; returns (exit code or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode(errors="replace") if isinstance(err.stdout, bytes) else ""
        return None, out or "", "", time.monotonic() - start


def skip(reason):
    print(f"skip: {reason}")
    sys.exit(SKIP_EXIT)


def fetch_source(tmp):
    """Downloads and unpacks Debian's source of the installed fio; returns the source dir."""
    for tool in ("apt-get", "dpkg-source", "dpkg-query"):
        if shutil.which(tool) is None:
            skip(f"{tool} not found")
    code, ver, _, _ = run(["dpkg-query", "-W", "-f", "${Version}", "fio"])
    if code != 0 or not ver.strip():
        skip("fio is not installed from a Debian package")
    ver = ver.strip()
    apt = os.path.join(tmp, "apt")
    lists = os.path.join(apt, "lists")
    os.makedirs(os.path.join(lists, "partial"))
    os.makedirs(os.path.join(apt, "cache", "archives", "partial"))
    code, osrel, _, _ = run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"])
    suite = osrel.strip() or "bookworm"
    srclist = os.path.join(apt, "sources.list")
    with open(srclist, "w", encoding="ascii") as out:
        out.write("deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
                  f"http://deb.debian.org/debian {suite} main\n")
    opts = ["-q", "-o", f"Dir::Etc::SourceList={srclist}",
            "-o", "Dir::Etc::SourceParts=/nonexistent", "-o", f"Dir::State::Lists={lists}",
            "-o", f"Dir::Cache={apt}/cache", "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root"]
    code, _, err, _ = run(["apt-get"] + opts + ["update"], timeout=120)
    if code != 0:
        skip(f"apt-get update for the deb-src entry failed (network?): {err.strip()[-200:]}")
    dl = os.path.join(tmp, "dl")
    os.makedirs(dl)
    code, _, err, _ = run(["apt-get"] + opts + ["source", "--download-only", f"fio={ver}"],
                          cwd=dl, timeout=180)
    if code != 0:
        skip(f"apt-get source fio={ver} failed: {err.strip()[-200:]}")
    dscs = [f for f in os.listdir(dl) if f.endswith(".dsc")]
    if len(dscs) != 1:
        skip(f"apt-get source fio={ver} gave no single .dsc: {dscs}")
    src = os.path.join(tmp, "fio-src")
    code, _, err, _ = run(["dpkg-source", "--no-check", "-x", dscs[0], src], cwd=dl)
    if code != 0:
        skip(f"dpkg-source -x failed: {err.strip()[-200:]}")
    return src


def counts_line(text):
    """The last 'N tests passed, M failed[, K skipped]' line of a t/ script, as a dict."""
    found = None
    for m in re.finditer(r"(\d+) tests?(?:\(s\))? passed,? (\d+)(?: tests?(?:\(s\))?)? failed"
                         r"(?:, (\d+) skipped)?", text, re.IGNORECASE):
        found = m
    if not found:
        return None
    return {"passed": int(found.group(1)), "failed": int(found.group(2)),
            "skipped": int(found.group(3) or 0)}


class Side:
    """One binary under test: its `fio` path and the environment that puts it first on PATH."""

    def __init__(self, label, fio):
        self.label = label
        self.fio = fio
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.dirname(fio) + os.pathsep + self.env.get("PATH", "")


def t_script(side, name, src, work):
    script = os.path.join(src, "t", name)
    if not os.path.exists(script):
        return {"verdict": "absent", "ok": None, "note": "not in this fio's source"}
    need = T_NEEDS.get(name)
    if need and run([sys.executable, "-c", f"import {need}"])[0] != 0:
        return {"verdict": f"skip (no python3 {need})", "ok": None}
    cwd = tempfile.mkdtemp(prefix=f"{side.label}-", dir=work)
    # fio's scripts create their artifact directory themselves.
    art = os.path.join(cwd, "artifacts")
    args = [a.format(fio=side.fio, art=art, src=src) for a in T_SCRIPTS[name]]
    code, out, err, secs = run([sys.executable, script] + args, cwd=cwd, env=side.env,
                               timeout=600)
    counts = counts_line(out + err)
    if code is None:
        return {"verdict": "timeout", "ok": False, "secs": secs, "counts": counts}
    ok = code == 0
    verdict = "pass" if ok else f"FAIL (exit {code})"
    if counts:
        total = counts["passed"] + counts["failed"]
        verdict = f"{'pass' if ok else 'FAIL'} {counts['passed']}/{total}"
    return {"verdict": verdict, "ok": ok, "secs": secs, "counts": counts,
            "tail": (out + err).strip().splitlines()[-3:]}


def job_test(side, test_id, src, work):
    cwd = tempfile.mkdtemp(prefix=f"{side.label}-t{test_id}-", dir=work)
    cmd = [sys.executable, os.path.join(src, "t", "run-fio-tests.py"), "-k", "-r", src,
           "-f", side.fio, "-a", os.path.join(cwd, "artifacts"), "-o", str(test_id)]
    code, out, err, secs = run(cmd, cwd=cwd, env=side.env, timeout=300)
    if code is None:
        return {"verdict": "timeout", "ok": False, "secs": secs}
    m = re.search(rf"^Test {test_id} (PASSED|FAILED|SKIPPED)(.*)$", out, re.MULTILINE)
    if not m:
        return {"verdict": f"FAIL (no result, exit {code})", "ok": False, "secs": secs,
                "tail": (out + err).strip().splitlines()[-3:]}
    if m.group(1) == "SKIPPED":
        return {"verdict": "skip", "ok": None, "secs": secs}
    ok = m.group(1) == "PASSED"
    return {"verdict": "pass" if ok else "FAIL", "ok": ok, "secs": secs,
            "tail": [m.group(2).strip()]}


SIZE_KEYS = ("size", "filesize", "io_size", "io_limit", "offset_increment")
SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def parse_size(text):
    m = re.fullmatch(r"(\d+)([kmgtp]?)(i?b)?", text.strip().lower())
    if not m:
        return None
    return int(m.group(1)) * SUFFIX[m.group(2)]


def shrink_line(line, workdir):
    """One job-file line with sizes, runtimes, job counts and device paths shrunk."""
    body = re.split(r"[;#]", line, maxsplit=1)[0].strip()
    m = re.fullmatch(r"([A-Za-z_]+)\s*=\s*(.*)", body)
    if not m:
        return line
    key, value = m.group(1).lower(), m.group(2).strip()
    if key in SIZE_KEYS:
        parts = value.split("-")
        sizes = [parse_size(p) for p in parts]
        if all(s is not None for s in sizes) and max(sizes) > CAP_SIZE:
            capped = [str(min(s, CAP_SIZE // (2 if len(sizes) > 1 and i == 0 else 1)))
                      for i, s in enumerate(sizes)]
            return f"{key}={'-'.join(capped)}"
    elif key in ("runtime", "ramp_time", "ss_dur"):
        return f"{key}={CAP_RUNTIME}"
    elif key == "numjobs" and value.isdigit() and int(value) > CAP_NUMJOBS:
        return f"{key}={CAP_NUMJOBS}"
    elif key == "nrfiles" and value.isdigit() and int(value) > CAP_NRFILES:
        return f"{key}={CAP_NRFILES}"
    elif key in ("filename", "directory") and value.startswith("/"):
        if key == "directory":
            return f"directory={workdir}"
        names = [re.sub(r"[^A-Za-z0-9_.-]", "_", p.strip("/")) for p in value.split(":")]
        return "filename=" + ":".join(os.path.join(workdir, n) for n in names)
    return line


def example(side, path, work):
    name = os.path.basename(path)
    wd = tempfile.mkdtemp(prefix=f"{side.label}-{name}-", dir=work)
    with open(path, encoding="utf-8", errors="replace") as inp:
        lines = [shrink_line(line.rstrip("\n"), wd) for line in inp]
    job = os.path.join(wd, name)
    with open(job, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    cmd = [side.fio, "--size=4m", f"--runtime={CAP_RUNTIME}", "--output-format=json", job]
    code, out, err, secs = run(cmd, cwd=wd, env=side.env)
    res = {"secs": secs, "code": code, "err": first_error(out, err).replace(wd + "/", "")}
    if code is None:
        res.update(verdict="timeout", ok=False)
        return res
    res["ok"] = code == 0
    res["counts"], res["timed"] = job_counts(out)
    # Counts are the job's own only when it ran to its size: not time-based, not cut short by
    # the capped runtime.
    res["timed"] = res["timed"] or any(
        re.match(r"\s*time_based", line) for line in lines)
    res["verdict"] = "runs" if code == 0 else f"FAIL (exit {code}: {res['err'][:60]})"
    return res


def first_error(out, err):
    """The line that says why a run failed: fio's and iolab's errors go to stderr, or to
    stdout before the JSON."""
    head = out[:out.find("{")] if "{" in out else out
    lines = [l.strip() for l in (err + "\n" + head).splitlines() if l.strip()]
    for line in lines:
        low = line.lower()
        if "error" in low or "fio:" in low or "bad option" in low or "refus" in low:
            return line
    return lines[0] if lines else ""


def job_counts(out):
    """Per-job, per-direction total_ios from fio's JSON, and whether any job is time-based."""
    start = out.find("{")
    try:
        doc = json.loads(out[start:]) if start >= 0 else None
    except json.JSONDecodeError:
        doc = None
    if not isinstance(doc, dict):
        return None, True
    counts, timed = [], "time_based" in json.dumps(doc.get("global options", {}))
    for job in doc.get("jobs", []):
        opts = job.get("job options", {})
        timed = timed or "time_based" in opts
        timed = timed or job.get("job_runtime", 0) >= int(CAP_RUNTIME) * 1000 * 8 // 10
        counts.append(tuple(job.get(d, {}).get("total_ios", 0) for d in ("read", "write",
                                                                          "trim")))
    return counts, timed


def compare_example(fio_res, io_res):
    """iolab's verdict against fio's: runs and (when comparable) the same counts."""
    if not io_res.get("ok") or not fio_res.get("ok"):
        return io_res
    if fio_res.get("timed") or io_res.get("timed"):
        io_res["verdict"] = "runs (time-bound: counts not compared)"
        fio_res["verdict"] = "runs (time-bound)"
        return io_res
    fc, ic = fio_res.get("counts"), io_res.get("counts")
    total = sum(sum(c) for c in fc or [])
    fio_res["verdict"] = f"runs, {total} I/Os"
    if fc == ic:
        io_res["verdict"] = f"runs, same counts ({total} I/Os)"
    else:
        io_res["ok"] = False
        io_res["verdict"] = f"DIFFERS: counts {ic} vs fio {fc}"
    return io_res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iolab", required=True, help="the built iolab binary")
    ap.add_argument("--fio", default=shutil.which("fio"), help="the installed fio")
    ap.add_argument("--src", help="an unpacked fio source tree (default: fetch Debian's)")
    ap.add_argument("--full", action="store_true", help="all job tests, not only the quick")
    ap.add_argument("--only", help="run only tests whose name matches this regex")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    args = ap.parse_args()
    if not args.fio:
        skip("fio not installed")
    code, ver, _, _ = run([args.fio, "--version"])
    if code != 0 or ver.strip() != WANT_VERSION:
        skip(f"installed fio is {ver.strip() or 'unknown'}, the suite is for {WANT_VERSION}")
    iolab = os.path.abspath(args.iolab)
    if not os.access(iolab, os.X_OK):
        sys.exit(f"fio-conformance: --iolab {iolab}: not an executable")
    with tempfile.TemporaryDirectory(prefix="fio-conformance-") as tmp:
        src = os.path.abspath(args.src) if args.src else fetch_source(tmp)
        shim = os.path.join(tmp, "iolab-as-fio")
        os.makedirs(shim)
        os.symlink(iolab, os.path.join(shim, "fio"))
        sides = [Side("fio", os.path.abspath(args.fio)), Side("iolab", os.path.join(shim, "fio"))]
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        rows = collect(args, src, sides, work)
    return report(rows, args.markdown)


def collect(args, src, sides, work):
    only = re.compile(args.only) if args.only else None
    rows = []

    def want(name):
        return only is None or only.search(name)

    for name in T_SCRIPTS:
        if want(f"t/{name}"):
            res = [t_script(s, name, src, work) for s in sides]
            rows.append((f"t/{name}", res[0], res[1]))
            progress(rows[-1])
    for tid in JOB_TESTS_ALL if args.full else JOB_TESTS_QUICK:
        jobs = [f for f in os.listdir(os.path.join(src, "t", "jobs"))
                if f.startswith(f"t{tid:04d}")]
        name = f"t/jobs/{sorted(jobs)[0] if jobs else tid}"
        if want(name):
            res = [job_test(s, tid, src, work) for s in sides]
            rows.append((name, res[0], res[1]))
            progress(rows[-1])
    exdir = os.path.join(src, "examples")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name in sorted(f for f in os.listdir(exdir) if f.endswith(".fio")):
            if not want(f"examples/{name}"):
                continue
            path = os.path.join(exdir, name)
            fio_res, io_res = pool.map(lambda s, p=path: example(s, p, work), sides)
            rows.append((f"examples/{name}", fio_res, compare_example(fio_res, io_res)))
            progress(rows[-1])
    return rows


def progress(row):
    name, fio_res, io_res = row
    print(f"  {name}: fio {fio_res['verdict']} ({fio_res.get('secs', 0):.1f} s); "
          f"iolab {io_res['verdict']} ({io_res.get('secs', 0):.1f} s)", file=sys.stderr,
          flush=True)


def report(rows, markdown):
    regressions, lines = [], []
    lines.append("| test | fio 3.33 | iolab as fio | note |")
    lines.append("|---|---|---|---|")
    for name, fio_res, io_res in rows:
        note = ""
        if fio_res.get("ok") and not io_res.get("ok"):
            if name in EXCEPTIONS:
                note = f"exception: {EXCEPTIONS[name]}"
            else:
                note = "REGRESSION: iolab fails where fio passes"
                tail = "; ".join(io_res.get("tail") or [io_res.get("err", "")])
                regressions.append(f"{name}: {io_res['verdict']} :: {tail[:200]}")
        elif fio_res.get("ok") is False and name.startswith("examples/"):
            note = "fio refuses here (engine, hardware or service missing)"
        elif fio_res.get("verdict") == "absent":
            note = "not in fio 3.33's source (added in a later fio)"
        lines.append(f"| {name} | {fio_res['verdict']} | {io_res['verdict']} | {note} |")
    fio_ok = sum(1 for _, f, _ in rows if f.get("ok"))
    both_ok = sum(1 for _, f, i in rows if f.get("ok") and i.get("ok"))
    summary = (f"{len(rows)} tests: fio passes {fio_ok}; iolab passes {both_ok} of those; "
               f"{len(regressions)} regressions")
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    print(text)
    for reg in regressions:
        print(f"regression: {reg}")
    if markdown:
        tmp = markdown + ".tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, markdown)
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
