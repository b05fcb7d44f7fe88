"""The clients' own test suites, whole, under NVIDIA's package and under ours in one run.

    python scripts/client_suites.py --ours DIR [--deps DIR] [--core-tests DIR] [--out DIR]
                                    [--preload LIBS] [--budget SECONDS] [--jobs N]

1. numba-cuda's whole bundled test package, `numba.cuda.tests` (cudadrv, cudapy, cudasim,
   doc_examples, nocuda, ...): every test module in a process of its own, `python -m
   numba.runtests -v MODULE`, so no module is lost to the parallel runner (it cannot pickle some
   results under CUDA 12, nor start the modules that spawn processes from its workers); the
   pytest functions of the few modules that have them run under pytest (numba_module says how
   and why); the modules are spread
   over --jobs workers per package;
2. cuda.core's own pytest suite, a copy put together by scripts/core_tests.py (--core-tests: the
   folder holding its tests/ and site/), with pytest-xdist (`-n`, one file per worker) where the
   machine has it.
All four runs (two suites, two packages) go at once. Where the machine has two GPUs or more, all
of them are visible to every run, so the multi-device tests (numba-cuda's test_multigpu, peer and
IPC tests; cuda.core's peer-access and multi-device tests) run instead of skipping; the summary
has a row for those modules of their own.

A test that passes under NVIDIA's package but not under ours is then run again alone under both
(what the parallel run loses to load or to a neighbour is told apart from a real difference).
Per test module: passed/failed/errors/skipped for both packages, in suites.json and suites.md
under --out; the summary is printed last. Exit status 1 if a test passes under NVIDIA's but not
under ours also when run alone, 2 if DIR's build is not the cuda.bindings imported.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
from client_check import PASSING, environment, which_bindings  # noqa: E402
from ipc_clients import run_module  # noqa: E402
from tests.clients import ROW_STACK_ALIAS  # noqa: E402

PACKAGES = ("nvidia", "ours")
KINDS = ("passed", "failed", "error", "skipped")
ORDER = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}     # the worse outcome wins
# the modules that need two devices, or hand memory between processes or devices
MULTI_DEVICE = re.compile(r"multigpu|multi_gpu|multi_device|peer|ipc|context_stack", re.I)


# --- numba-cuda -----------------------------------------------------------------------------------
def numba_modules(env):
    """[(module, file)] of numba.cuda.tests, every test_*.py below it."""
    code = ("import os, numba.cuda.tests as t\n"
            "root = os.path.dirname(t.__file__)\n"
            "for d, _, fs in sorted(os.walk(root)):\n"
            "    for f in sorted(fs):\n"
            "        if f.startswith('test_') and f.endswith('.py'):\n"
            "            rel = os.path.relpath(os.path.join(d, f[:-3]), root).replace(os.sep, '.')\n"
            "            print('numba.cuda.tests.' + rel, os.path.join(d, f))\n")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    return [tuple(line.split(" ", 1)) for line in p.stdout.splitlines() if " " in line]


def pytest_run(env, target, xml, log, timeout, extra=(), cwd=None):
    """`python -m pytest TARGET` with its results in junit XML; the exit status, or "timeout"."""
    args = [sys.executable, "-m", "pytest", *target, "-p", "no:cacheprovider", "-q", "-rN",
            "--continue-on-collection-errors", f"--junitxml={xml}", "-o", "junit_family=xunit1", *extra]
    if "pytest_timeout" in pytest_plugins(env):
        args += ["--timeout", "240"]
    with open(log, "w") as f:
        try:
            return subprocess.run(args, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                  cwd=cwd or tempfile.gettempdir()).returncode
        except subprocess.TimeoutExpired:
            return "timeout"


def numba_ids(module, tests):
    """Test ids of one numba-cuda module: MODULE::[Class::]test."""
    out = {}
    for t, k in tests.items():
        m = re.match(r"^(.+?) \(([\w.]+)\)", t)          # numba's runner: name (module.Class.name) [subtest]
        if m:
            rest = t[m.end():].strip()
            t = "::".join(m[2].split(".")[len(module.split(".")):]) + (f" {rest}" if rest else "")
        elif "::" in t:                                    # pytest: file::[Class::]name
            t = t.split("::", 1)[1]
        out[f"{module}::{t}"] = {"expected failure": "passed", "unexpected success": "failed"}.get(k, k)
    return out


def numba_module(env, module, path, logdir, timeout):
    """One numba-cuda test module in processes of its own.  Its unittest classes run in numba's
    own runner (`python -m numba.runtests -v MODULE`); its pytest functions (a few modules have
    them, three nothing else) under pytest, from a copy of the file outside the package: numba's
    runner does not run them (given a module of functions alone it runs numba's default suite
    instead), and pytest, collecting a file inside numba_cuda/numba/cuda/, puts numba_cuda/numba on
    sys.path, where `cuda` is then numba.cuda."""
    t0 = time.time()
    if timeout <= 0:
        return {"tests": {}, "exit": "not started (budget spent)", "seconds": 0, "runner": None}
    src = Path(path).read_text(errors="replace")
    tests, rc, runners = {}, 0, []
    if "TestCase" in src:
        runners.append("numba")
        out = []
        r = run_module(env, module, out, timeout)
        (logdir / f"{module}.log").write_text(out[0])
        found, rc = r["tests"], r["exit"]
        tests.update(numba_ids(module, {t: k for t, k in found.items() if f"({module}." in t}))
        if any("(unittest.loader._FailedTest." in t for t in found):     # the module did not import
            tests[f"{module}::(import)"] = "error"
    if re.search(r"^def test_", src, re.M):
        runners.append("pytest")
        with tempfile.TemporaryDirectory(prefix="numba_pytest.") as tmp:
            copy = Path(tmp) / Path(path).name
            copy.write_text(src)
            xml = logdir / f"{module}.xml"
            prc = pytest_run(env, [str(copy)], xml, logdir / f"{module}.pytest.log",
                             max(1, timeout - (time.time() - t0)), cwd=tmp)
            functions = {t: k for t, k in numba_ids(module, parse_junit(xml)).items() if t.count("::") == 1}
        tests.update(functions)
        rc = rc or prc
    return {"tests": tests, "exit": rc, "seconds": round(time.time() - t0, 1), "runner": "+".join(runners)}


def run_numba(env, logdir, jobs, timeout, deadline):
    logdir.mkdir(parents=True, exist_ok=True)
    modules = numba_modules(env)
    with ThreadPoolExecutor(jobs) as ex:
        futs = {m: ex.submit(lambda m=m, p=p: numba_module(env, m, p, logdir, min(timeout, deadline - time.time())))
                for m, p in modules}
        return {m: f.result() for m, f in futs.items()}, dict(modules)


def numba_rerun(env, test, paths, timeout):
    module = test.split("::", 1)[0]
    with tempfile.TemporaryDirectory(prefix="numba_rerun.") as tmp:
        got = numba_module(env, module, paths[module], Path(tmp), timeout)["tests"]
    return got.get(test, "absent when its module ran alone")


# --- cuda.core ------------------------------------------------------------------------------------
def pytest_plugins(env):
    code = "import importlib.util as u; print(*(m for m in ('xdist', 'pytest_timeout') if u.find_spec(m)))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.split()


def run_core(env, tests, xml, log, jobs, timeout):
    t0 = time.time()
    xdist = "xdist" in pytest_plugins(env) and jobs > 1
    rc = pytest_run(env, [str(tests)], xml, log, timeout, ["-n", str(jobs), "--dist", "loadfile"] if xdist else [],
                    cwd=str(tests))
    return {"exit": rc, "seconds": round(time.time() - t0, 1), "xdist": xdist}


def parse_junit(xml):
    """{test id: kind} from pytest's junit XML (xunit1: a testcase's file attribute names its module)."""
    tests = {}
    if not Path(xml).exists():
        return tests
    for case in ET.parse(xml).getroot().iter("testcase"):
        module = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        cls = case.get("classname", "")
        name = f"{module}::{cls.rsplit('.', 1)[-1] + '::' if cls and not cls.endswith(Path(module).stem) else ''}{case.get('name')}"
        # the worst of its outcomes (a test that fails and then errors in teardown: error)
        kind = "passed"
        for child in case:
            got = {"failure": "failed", "error": "error",
                   "skipped": "passed" if child.get("type") == "pytest.xfail" else "skipped"}.get(child.tag)
            if got and ORDER[got] > ORDER[kind]:
                kind = got
        if name not in tests or ORDER[kind] > ORDER[tests[name]]:
            tests[name] = kind
    return tests


def core_rerun(env, tests_dir, test, timeout):
    with tempfile.TemporaryDirectory(prefix="core_rerun.") as tmp:
        xml = Path(tmp) / "one.xml"
        rc = pytest_run(env, [test], xml, Path(tmp) / "log", timeout, cwd=str(tests_dir))
        got = parse_junit(xml)
    return got.get(test) or (next(iter(got.values())) if len(got) == 1 else f"exit {rc}")


# --- tables ---------------------------------------------------------------------------------------
def module_of(suite, test):
    module = test.split("::")[0]
    return module[len("numba.cuda.tests."):] if suite == "numba" and module.startswith("numba.cuda.tests.") else module


def table(suite, results):
    rows = {}
    for pkg in PACKAGES:
        for test, kind in results[pkg].items():
            row = rows.setdefault(module_of(suite, test), {p: dict.fromkeys(KINDS, 0) for p in PACKAGES})
            row[pkg][kind if kind in KINDS else "error"] += 1
    return dict(sorted(rows.items()))


def total(rows, pkg, only=None):
    t = dict.fromkeys(KINDS, 0)
    for mod, row in rows.items():
        if only is None or only(mod):
            for k in KINDS:
                t[k] += row[pkg][k]
    return t


def fmt(c):
    return f"{sum(c.values())} run: {c['passed']} passed, {c['failed']} failed, {c['error']} errors, {c['skipped']} skipped"


def markdown(suite, rows):
    out = [f"| {suite} module | NVIDIA's: passed / failed / errors / skipped | ours: passed / failed / errors / skipped |",
           "| --- | --- | --- |"]
    for mod, row in rows.items():
        cells = [" / ".join(str(row[p][k]) for k in KINDS) for p in PACKAGES]
        flag = " **differs**" if row["nvidia"] != row["ours"] else ""
        out.append(f"| `{mod}`{flag} | {cells[0]} | {cells[1]} |")
    for name, only in (("all", None), ("multi-device and IPC modules", lambda m: bool(MULTI_DEVICE.search(m)))):
        cells = [" / ".join(str(total(rows, p, only)[k]) for k in KINDS) for p in PACKAGES]
        out.append(f"| **{name}** | {cells[0]} | {cells[1]} |")
    return "\n".join(out)


def gpu_count():
    try:
        n = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60).stdout.count("GPU ")
    except (OSError, subprocess.TimeoutExpired):
        return 0
    vis = os.environ.get("CUDA_VISIBLE_DEVICES")
    return min(n, len([d for d in vis.split(",") if d.strip()])) if vis is not None else n


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/client_suites.py")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--deps", default=None, help="packages after the build on both paths (a twin, cuda-core)")
    ap.add_argument("--core-tests", default=str(REPO / ".ref" / "cuda-core-tests"))
    ap.add_argument("--out", default="/tmp/client_suites")
    ap.add_argument("--preload", default="", help="shared libraries both runs load first (':'-separated)")
    ap.add_argument("--budget", type=int, default=480, help="seconds for the four runs, reruns excluded")
    ap.add_argument("--rerun-budget", type=int, default=60, help="seconds for the reruns alone")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 4) // 4), help="workers per run")
    ap.add_argument("--suite", action="append", choices=["numba", "core"], help="default: both")
    a = ap.parse_args(argv)
    suites = a.suite or ["numba", "core"]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix="suites_site."))
    preload = [p for p in (a.preload or "").split(":") if p]
    (site / "sitecustomize.py").write_text(
        "import ctypes as _ctypes\n"
        + "".join(f"_ctypes.CDLL({p!r}, mode=_ctypes.RTLD_GLOBAL)\n" for p in preload) + ROW_STACK_ALIAS)
    core = Path(a.core_tests)
    core_site = core / "site" if (core / "site").is_dir() else None
    envs = {p: environment(site, ours, a.deps, [core_site]) for p, ours in (("nvidia", None), ("ours", a.ours))}
    where = {p: which_bindings(e) for p, e in envs.items()}
    if not where["ours"].startswith(str(Path(a.ours).resolve())) and not where["ours"].startswith(a.ours):
        print(f"our build is not the cuda.bindings imported: {where}")
        return 2
    gpus = gpu_count()
    lines = [f"cuda.bindings: {p}: {w}" for p, w in where.items()] + [f"GPUs visible to every run: {gpus}"]
    if "core" in suites and not (core / "tests" / "conftest.py").exists():
        lines.append(f"cuda.core's tests: none in {core}/tests (scripts/core_tests.py puts them there): not run")
        suites.remove("core")
    deadline = time.time() + a.budget
    results, runs = {s: {} for s in suites}, {}
    with ThreadPoolExecutor(4) as ex:
        futs = {}
        for pkg, env in envs.items():
            if "numba" in suites:
                futs[("numba", pkg)] = ex.submit(run_numba, env, out / f"numba_{pkg}", a.jobs, a.budget, deadline)
            if "core" in suites:
                futs[("core", pkg)] = ex.submit(run_core, env, core / "tests", out / f"core_{pkg}.xml",
                                                out / f"core_{pkg}.log", a.jobs, a.budget)
        for (suite, pkg), f in futs.items():
            r = f.result()
            if suite == "numba":
                r, numba_paths = r
                results[suite][pkg] = {t: k for m in r.values() for t, k in m["tests"].items()}
                bad = {m: v["exit"] for m, v in r.items() if not v["tests"] and v["exit"] not in (0, 5)}
                runs[(suite, pkg)] = {"modules": len(r), "seconds": max([v["seconds"] for v in r.values()] or [0]),
                                      "modules_without_result": bad,
                                      "under_pytest": sorted(m for m, v in r.items() if "pytest" in (v["runner"] or ""))}
            else:
                results[suite][pkg] = parse_junit(out / f"core_{pkg}.xml")
                runs[(suite, pkg)] = r
    report = {"bindings": where, "gpus": gpus, "runs": {f"{s}/{p}": v for (s, p), v in runs.items()}, "suites": {}}
    md = []
    rerun_deadline = time.time() + a.rerun_budget
    lost_total = 0
    for suite in suites:
        res = results[suite]
        rows = table(suite, res)
        only_nv = sorted(t for t, k in res["nvidia"].items() if k == "passed" and res["ours"].get(t) != "passed")
        only_ours = sorted(t for t, k in res["ours"].items() if k == "passed" and res["nvidia"].get(t) != "passed")
        alone = {}
        for t in only_nv:
            left = rerun_deadline - time.time()
            if left < 5:
                alone[t] = {"ours": "not rerun (rerun budget spent)"}
                continue
            rerun = (lambda e, t=t: numba_rerun(e, t, numba_paths, left)) if suite == "numba" else \
                (lambda e, t=t: core_rerun(e, core / "tests", t, left))
            alone[t] = {p: rerun(envs[p]) for p in PACKAGES}
        lost = [t for t in only_nv if alone[t].get("ours") not in PASSING]
        lost_total += len(lost)
        name = {"numba": "numba-cuda (numba.cuda.tests)", "core": "cuda.core's own tests"}[suite]
        for pkg in PACKAGES:
            r = runs[(suite, pkg)]
            extra = (f"; {r['modules']} modules ({len(r['under_pytest'])} with pytest functions, run under pytest), "
                     f"longest {r['seconds']} s" + (
                f", {len(r['modules_without_result'])} without a result: {r['modules_without_result']}"
                if r["modules_without_result"] else "")) if suite == "numba" else \
                f"; {r['seconds']} s, exit {r['exit']}{', xdist' if r['xdist'] else ''}"
            lines.append(f"{name} on {pkg:6}: {fmt(total(rows, pkg))}{extra}")
        multi = lambda m: bool(MULTI_DEVICE.search(m))  # noqa: E731
        for pkg in PACKAGES:
            lines.append(f"  multi-device and IPC modules on {pkg:6} ({gpus} GPUs): {fmt(total(rows, pkg, multi))}")
        lines.append(f"  passing on NVIDIA's but not on ours: {len(only_nv)} in the run, {len(lost)} also alone")
        for t in only_nv[:40]:
            lines.append(f"    {t}: ours {res['ours'].get(t, 'absent')}, alone {alone[t]}")
        lines.append(f"  passing on ours but not on NVIDIA's: {len(only_ours)}")
        for t in only_ours[:10]:
            lines.append(f"    {t}: nvidia {res['nvidia'].get(t, 'absent')}")
        report["suites"][suite] = {"modules": rows, "only_nvidia": {t: {"ours": res["ours"].get(t, "absent"),
                                                                        "alone": alone[t]} for t in only_nv},
                                   "only_ours": only_ours, "tests": res}
        md.append(f"### {name}\n\n{markdown(suite, rows)}\n")
    (out / "suites.json").write_text(json.dumps(report, indent=1))
    (out / "suites.md").write_text("\n".join(md))
    print("\n==== client suites summary\n" + "\n".join(lines))
    return 1 if lost_total else 0


if __name__ == "__main__":
    sys.exit(main())
