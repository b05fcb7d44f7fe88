"""The libraries built on cuda.bindings, on a GPU machine, under NVIDIA's package and ours in one run.

    python scripts/client_check.py --ours DIR [--deps DIR] [--out DIR] [--jobs N]

DIR is a `pip install --target` folder holding our build (scripts/gpu_check.sh makes it and calls
this with GPU_CHECK_CLIENTS=1); NVIDIA's package is the one the machine's Python imports when
DIR is not on the path.  --deps is a folder of extra wheels' contents (filecheck, which numba-cuda's
test helpers import), put on the path of both runs.

1. numba-cuda's own bundled test suite, `python -m numba.runtests -m N -v numba.cuda.tests.cudadrv
   numba.cuda.tests.cudapy`, under both packages at the same time (half the cores each);
   a test that passes under NVIDIA's but not under ours is run again alone under both, so a test
   that only fails in the parallel runner is told apart from a real difference;
2. tests/clients/programs.py --gpu (cuda.core: compile, link, NVVM, launches, memory resources,
   events and streams, graphs, occupancy, errors) under both.
numba-cuda 0.30.4 calls numpy.row_stack, gone from numpy >= 2.4: both runs get a sitecustomize.py
that aliases it to numpy.vstack.  --preload names shared libraries (separated by ':') that the
same sitecustomize.py loads first in both runs, so both packages use those copies (a CUDA
library of another release than the machine's wheels: scripts/client_releases.sh).  Logs and
clients.json go to --out; the summary is printed last.
Exit status 1 if a test or program passes under NVIDIA's but not under ours.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.clients import ROW_STACK_ALIAS  # noqa: E402
from tests.clients.programs import PROGRAMS  # noqa: E402
SUITE = ["numba.cuda.tests.cudadrv", "numba.cuda.tests.cudapy"]
RESULT = re.compile(r"^(?P<test>.+?) \.\.\. (?P<status>ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
RAN = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s")
PASSING = ("passed", "expected failure")


def environment(site, ours, deps, extra=(REPO,)):
    """The environment of a client run: PYTHONPATH site (its sitecustomize.py), our build (None:
    NVIDIA's package), deps, then `extra` (this checkout, for tests.clients)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CUDA_BINDINGS_EXPECT_PREFIX")}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in [site, ours, deps, *extra] if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def which_bindings(env):
    return subprocess.run([sys.executable, "-c", "import cuda.bindings as b; print(b.__file__, b.__version__)"],
                          env=env, capture_output=True, text=True, timeout=120).stdout.strip()


def kind(status):
    if status.startswith("skipped"):
        return "skipped"
    return {"ok": "passed", "expected failure": "expected failure", "FAIL": "failed", "ERROR": "error",
            "unexpected success": "unexpected success"}[status]


def parse_suite(log):
    """{test: status} from a verbose unittest log (the worst status where a test has several), and
    the runner's own count."""
    order = {"passed": 0, "expected failure": 0, "skipped": 1, "unexpected success": 2, "failed": 3, "error": 4}
    tests, ran = {}, None
    for line in log.splitlines():
        m = RESULT.match(line)
        if m:
            k = kind(m["status"])
            old = tests.get(m["test"])
            if old is None or order[k] > order[old]:
                tests[m["test"]] = k
        m = RAN.match(line)
        if m:
            ran = int(m[1])
    return tests, ran


def counts(tests):
    c = {}
    for k in tests.values():
        c[k] = c.get(k, 0) + 1
    return c


def run_suite(env, jobs, log_path, timeout):
    t0 = time.time()
    with open(log_path, "w") as f:
        try:
            rc = subprocess.run([sys.executable, "-m", "numba.runtests", "-m", str(jobs), "-v", *SUITE], env=env,
                                stdout=f, stderr=subprocess.STDOUT, timeout=timeout, cwd=tempfile.gettempdir()).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, round(time.time() - t0, 1)


def test_id(test):
    m = re.search(r"\(([\w.]+)\)$", test)
    return m[1] if m else None


def rerun_alone(env, test, timeout=300):
    tid = test_id(test)
    if tid is None:
        return "not rerunnable"
    try:
        p = subprocess.run([sys.executable, "-m", "numba.runtests", "-v", tid], env=env, capture_output=True,
                           text=True, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return "timeout"
    tests, _ = parse_suite(p.stdout + "\n" + p.stderr)
    return tests.get(test) or ("passed" if p.returncode == 0 else f"exit {p.returncode}")


def run_programs(env, log_path, timeout=300):
    """Each program of tests/clients/programs.py in a process of its own (a kernel fault spoils
    its process's context, and would fail the programs after it)."""
    results, log = {}, []
    for name, _, _ in PROGRAMS:
        try:
            p = subprocess.run([sys.executable, "-m", "tests.clients.programs", "--gpu", name], env=env,
                               capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
            out, err = p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            out, err = (e.stdout or b"").decode(), "timeout"
        log.append(f"### {name}\n{out}\n---- stderr\n{err}")
        rows = [json.loads(l) for l in out.splitlines() if l.startswith("{")][1:]
        results[name] = rows[0] if rows else {"name": name, "ok": False, "error": f"no result: {err[-500:]}"}
    Path(log_path).write_text("\n".join(log))
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/client_check.py")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--deps", default=None)
    ap.add_argument("--out", default="/tmp/client_check")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--suite-timeout", type=int, default=480)
    ap.add_argument("--max-reruns", type=int, default=30, help="tests rerun alone, at most")
    ap.add_argument("--rerun-timeout", type=int, default=300, help="seconds for one test rerun alone")
    ap.add_argument("--preload", default="", help="shared libraries both runs load first (':'-separated)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="client_site."))
    preload = [p for p in (a.preload or "").split(":") if p]
    (site / "sitecustomize.py").write_text(
        "import ctypes as _ctypes\n"
        + "".join(f"_ctypes.CDLL({p!r}, mode=_ctypes.RTLD_GLOBAL)\n" for p in preload)
        + ROW_STACK_ALIAS)
    envs = {"nvidia": environment(site, None, a.deps), "ours": environment(site, a.ours, a.deps)}
    report = {"bindings": {p: which_bindings(e) for p, e in envs.items()}}
    if not report["bindings"]["ours"].startswith(str(Path(a.ours).resolve())) and \
            not report["bindings"]["ours"].startswith(a.ours):
        print(f"our build is not the cuda.bindings imported: {report['bindings']}")
        return 2
    lines = [f"cuda.bindings: {p}: {w}" for p, w in report["bindings"].items()]

    # 1. numba-cuda's suite, both packages at once
    with ThreadPoolExecutor(2) as ex:
        futs = {p: ex.submit(run_suite, e, a.jobs, out / f"numba_{p}.log", a.suite_timeout) for p, e in envs.items()}
        runs = {p: f.result() for p, f in futs.items()}
    suites = {}
    for p in envs:
        tests, ran = parse_suite((out / f"numba_{p}.log").read_text(errors="replace"))
        suites[p] = tests
        c = counts(tests)
        rc, secs = runs[p]
        report[f"numba_{p}"] = {"ran": ran, "counts": c, "exit": rc, "seconds": secs}
        lines.append(f"numba-cuda suite on {p:6}: ran {ran}, passed {c.get('passed', 0)}, failed {c.get('failed', 0)}, "
                     f"errors {c.get('error', 0)}, skipped {c.get('skipped', 0)}, expected failures "
                     f"{c.get('expected failure', 0)} ({secs} s, exit {rc})")
        if ran is None and rc != 0:      # the runner stopped before any test: what it said last
            tail = (out / f"numba_{p}.log").read_text(errors="replace").strip().splitlines()[-4:]
            lines.append(f"    its last lines: {' | '.join(tail)}")
    only_nvidia = sorted(t for t, k in suites["nvidia"].items() if k in PASSING and suites["ours"].get(t) not in PASSING)
    only_ours = sorted(t for t, k in suites["ours"].items() if k in PASSING and suites["nvidia"].get(t) not in PASSING)
    reruns = {t: ({p: rerun_alone(envs[p], t, a.rerun_timeout) for p in envs} if i < a.max_reruns
                  else {"ours": "not rerun"})
              for i, t in enumerate(only_nvidia)}
    lost = [t for t in only_nvidia if reruns[t]["ours"] not in PASSING]
    report["numba_only_nvidia"] = {t: {"ours": suites["ours"].get(t, "absent"), "alone": reruns[t]} for t in only_nvidia}
    report["numba_only_ours"] = only_ours
    lines.append(f"numba-cuda tests passing on NVIDIA's but not on ours: {len(only_nvidia)} in the parallel run, "
                 f"{len(lost)} of them also when run alone")
    for t in only_nvidia:
        lines.append(f"    {t}: ours {suites['ours'].get(t, 'absent')}, alone: {reruns[t]}")
    lines.append(f"numba-cuda tests passing on ours but not on NVIDIA's (parallel run): {len(only_ours)}")
    for t in only_ours[:20]:
        lines.append(f"    {t}: nvidia {suites['nvidia'].get(t, 'absent')}")

    # 2. cuda.core programs
    progs = {p: run_programs(e, out / f"programs_{p}.log") for p, e in envs.items()}
    report["programs"] = {p: {n: r["ok"] for n, r in res.items()} for p, res in progs.items()}
    names = sorted(set(progs["nvidia"]) | set(progs["ours"]))
    prog_lost = [n for n in names if progs["nvidia"].get(n, {}).get("ok") and not progs["ours"].get(n, {}).get("ok")]
    for p in envs:
        okn = sum(1 for r in progs[p].values() if r["ok"])
        bad = [f"{n}: {r['error']}" for n, r in progs[p].items() if not r["ok"]]
        lines.append(f"client programs on {p:6}: {okn}/{len(names)} passed" + "".join(f"\n    FAILED {b}" for b in bad))
    lines.append(f"client programs passing on NVIDIA's but not on ours: {len(prog_lost)} {prog_lost or ''}")

    (out / "clients.json").write_text(json.dumps(report, indent=1))
    print("\n==== client check summary\n" + "\n".join(lines))
    ours_ok = all(r["ok"] for r in progs["ours"].values()) and len(progs["ours"]) == len(names) and names
    return 1 if lost or prog_lost or not ours_ok else 0


if __name__ == "__main__":
    sys.exit(main())
