"""NVIDIA's own tests of its second API, `cuda.bindings._v2` (driver and NVRTC), run against any
cuda.bindings: NVIDIA's 13.5.0 (the twin) and ours, in one invocation, side by side.

    python scripts/v2_tests.py [--dir .ref/nvidia-v2-tests] [--fetch]     check DIR against the list
    python scripts/v2_tests.py --pack .carry/v2-tests.tar.xz              check, then pack DIR
    python scripts/v2_tests.py --run nvidia=DIR --run ours=DIR [--tests DIR|ARCHIVE]
                               [--deps DIR] [--preload LIBS] [--out DIR] [--timeout S]
    python scripts/v2_tests.py --carry .carry/cuda-13.5/carry.tar.xz --run ours=DIR --tests .carry/v2-tests.tar.xz

The tests are NVIDIA's (public repository NVIDIA/cuda-python): since the `_v2` modules appeared
(13.4), cuda_bindings/tests/ tests them and its tuple-style tests live in tests/legacy_api/. They
are never committed here: they live in the git-ignored folder DIR (tests/ holds
cuda_bindings/tests/X, site/ the import folder of the test helper package cuda_python_test_helpers
that they import), which a GPU run carries as one archive. scripts/v2_tests.json lists each file:
its path in that repository, the commit of the copy (where known), the copy's length in characters
and where it goes in DIR. The copies were taken from a stored copy of the repository that names the
commit of some files only (the others by the store's id):

  cuda_bindings/tests/conftest.py       8b799a3187b165d7adc102f6e567263a0a004b1a (its fixtures
                                        on _v2.driver: init, device_get, ctx_create_v4)
  cuda_bindings/tests/pytest.ini        057f3de55f615dfe3da6e4fa3a0a54458d4a29d3
  cuda_bindings/tests/test_cuda.py      commit not named (store id 61071857750), 39065 characters
  cuda_bindings/tests/test_kernelParams.py   commit not named (61050065753), 22520 characters
  cuda_bindings/tests/test_nvrtc.py     commit not named (61162269455), 1624 characters
  cuda_python_test_helpers/cuda_python_test_helpers/: __init__.py (61034258192),
      _pytest_plugin.py and marks.py (0770ab6ced8931ae8b6c6e5f622f48cb07ea99fa),
      mempool.py (3cf7641f8f79c27e74db71084b26e75dc6259301)

Those are all the stored files that import cuda.bindings._v2. The other tests that gained a
tuple-style copy in legacy_api/ (test_cudart, test_cufile, test_interoperability, test_nvfatbin,
test_nvjitlink, nvml/test_cuda) were presumably ported too, but the store holds no _v2 version of
them (the list's "not_gathered"). The files are not all of one commit, and some use names another
release of `_v2` has (test_cuda.py: MemsetNodeParams_v1, Memcpy3d_v2, Memorytype, where 13.5.0 has
MemSetNodeParams_v1, MemCpy3d_v2, MemoryType): such a test fails on NVIDIA's 13.5.0 as on ours,
which the comparison shows as such.

Without options this checks DIR against the list (every file there, with its length) and writes
DIR/SOURCES.md. --fetch downloads a missing file from GitHub at its commit (a machine that reaches
github.com; files without a commit cannot be fetched). --pack FILE packs the checked folder into
one xz archive (a few tens of KiB) for a GPU run.

--run LABEL=DIR (repeatable) runs the tests with pytest once per package, all at once, with DIR
first on PYTHONPATH (a `pip install --target` folder holding a cuda.bindings), then --deps, then
the test helpers; --tests is the folder or an archive made by --pack (checked after unpacking).
The first LABEL is the reference (NVIDIA's), unless --reference names another. --carry takes an
archive made by scripts/client_carry.py for 13.5 instead: its site/ is NVIDIA's package
(LABEL nvidia, unless --run gives one) and --deps, its ours/ (if any) LABEL ours, its preload
list --preload. A test that passes under the reference but not under another package is run again
alone under both, within --rerun-budget seconds. Per package: passed, failed, errors (a module
that cannot be collected counts one, as FILE::(collection)), skipped, and the tests that pass
under the reference but not under it; junit XML, logs and results.json go to --out; the summary
is printed last. Without a GPU every test stops at NVIDIA's conftest (its autouse module fixture
makes a context) or at collection (test_cuda.py asks the driver's version at import), so only the
harness itself is shown working there.

Exit status: 0; 1 if a test passes under the reference but not under another package (also when
run alone); 2 if a package's DIR is not where its cuda.bindings is imported from, the tests
folder does not match the list, or the reference gave no test result (its conftest failed to
import: nothing was compared).
"""
import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from client_check import PASSING, environment  # noqa: E402
from client_suites import KINDS, parse_junit, pytest_run  # noqa: E402

LIST = REPO / "scripts" / "v2_tests.json"
RAW = "https://raw.githubusercontent.com/NVIDIA/cuda-python/{commit}/{path}"
PARTS = ("tests", "site")


# --- the folder -----------------------------------------------------------------------------------
def listed():
    return json.loads(LIST.read_text())["files"]


def check(folder, fetch=False, quiet=False):
    """Compare DIR with the list; write DIR/SOURCES.md. 0 if every file is there, whole."""
    files = listed()
    missing, wrong, fetched = [], [], 0
    for e in files:
        target = folder / e["dest"]
        if not target.exists() and fetch and e["commit"]:
            with urllib.request.urlopen(RAW.format(**e), timeout=60) as r:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(r.read())
            fetched += 1
        if not target.exists():
            missing.append(e["dest"])
        elif len(target.read_text(encoding="utf-8")) != e["chars"]:
            wrong.append(e["dest"])
    names = {e["dest"] for e in files}
    extra = sorted(str(p.relative_to(folder)) for part in PARTS for p in (folder / part).glob("**/*")
                   if p.is_file() and "__pycache__" not in p.parts and str(p.relative_to(folder)) not in names)
    lines = ["# Where these files came from", "",
             "NVIDIA's public repository NVIDIA/cuda-python; put together for scripts/v2_tests.py "
             "(never committed).", "", "| file here | path in the repository | commit |", "| --- | --- | --- |"]
    lines += [f"| {e['dest']} | {e['path']} | {e['commit'] or 'not named by the stored copy (id ' + str(e['id']) + ')'} |"
              for e in files]
    if folder.is_dir():
        (folder / "SOURCES.md").write_text("\n".join(lines) + "\n")
    modules = sum(1 for e in files if Path(e["dest"]).name.startswith("test_"))
    if not quiet or missing or wrong:
        print(f"NVIDIA's _v2 tests in {folder}: {len(files)} files listed ({modules} test modules), "
              f"{len(files) - len(missing) - len(wrong)} present and whole, {len(missing)} missing, "
              f"{len(wrong)} of another length, {fetched} fetched, {len(extra)} not listed")
        for name, items in (("missing", missing), ("another length", wrong), ("not listed", extra)):
            for i in items:
                print(f"  {name}: {i}")
    return 1 if missing or wrong else 0


def pack(folder, archive):
    Path(archive).parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "w:xz") as t:
        for name in (*PARTS, "SOURCES.md"):
            t.add(folder / name, arcname=name, filter=lambda i: None if "__pycache__" in i.name else i)
    print(f"packed into {archive}: {Path(archive).stat().st_size / 2 ** 10:.0f} KiB")


def unpack(archive, into):
    with tarfile.open(archive) as t:
        if hasattr(tarfile, "data_filter"):          # Python 3.12 and later, and 3.11.4+
            t.extractall(into, filter="data")
        else:
            t.extractall(into)
    return Path(into)


# --- the runs -------------------------------------------------------------------------------------
def which(env):
    """(file of the cuda.bindings imported, its version, whether cuda.bindings._v2.driver and .nvrtc import)."""
    code = ("import cuda.bindings as b\nv2 = 'yes'\n"
            "try:\n    import cuda.bindings._v2.driver, cuda.bindings._v2.nvrtc\n"
            "except Exception as e:\n    v2 = f'no ({type(e).__name__}: {e})'\n"
            "try:\n    import cuda.pathfinder as p\n    v2 += f'; cuda-pathfinder {p.__version__}'\n"
            "except Exception as e:\n    v2 += f'; no cuda.pathfinder ({e})'\n"
            "print(b.__file__); print(getattr(b, '__version__', '?')); print(v2)")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    out = p.stdout.splitlines()
    return (out + ["", "", ""])[:3] if len(out) >= 3 else (f"import failed: {p.stderr.strip()[-300:]}", "", "")


def named(tests):
    """A module that could not be collected reads FILE::FILE-stem in junit: call it FILE::(collection)."""
    out = {}
    for t, k in tests.items():
        f, _, rest = t.partition("::")
        out[f"{f}::(collection)" if rest == Path(f).stem else t] = k
    return out


def run_package(env, tests_dir, xml, log, timeout):
    t0 = time.time()
    rc = pytest_run(env, [str(tests_dir)], xml, log, timeout, cwd=str(tests_dir))
    tests = named(parse_junit(xml))
    # no result at all (a conftest that cannot be imported): the log's own words say why
    why = "" if tests else next((line.strip() for line in reversed(Path(log).read_text(errors="replace").splitlines())
                                 if line.startswith("E ")), "")
    return {"exit": rc, "seconds": round(time.time() - t0, 1), "tests": tests, "no_result": why}


def rerun(env, tests_dir, test, timeout):
    """One test alone (a module's collection: the module alone): its outcome."""
    target = test.split("::", 1)[0] if test.endswith("::(collection)") else test
    with tempfile.TemporaryDirectory(prefix="v2_rerun.") as tmp:
        xml = Path(tmp) / "one.xml"
        rc = pytest_run(env, [target], xml, Path(tmp) / "log", timeout, cwd=str(tests_dir))
        got = named(parse_junit(xml))
    return got.get(test) or (next(iter(got.values())) if len(got) == 1 else f"exit {rc}")


def counts(tests):
    c = dict.fromkeys(KINDS, 0)
    for k in tests.values():
        c[k if k in c else "error"] += 1
    return c


def fmt(c):
    return f"{sum(c.values())} run: {c['passed']} passed, {c['failed']} failed, {c['error']} errors, {c['skipped']} skipped"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/v2_tests.py")
    ap.add_argument("--dir", default=str(REPO / ".ref" / "nvidia-v2-tests"), help="the tests folder to check or pack")
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--pack", metavar="FILE")
    ap.add_argument("--run", action="append", default=[], metavar="LABEL=DIR")
    ap.add_argument("--carry", metavar="ARCHIVE", help="scripts/client_carry.py's archive of the release")
    ap.add_argument("--tests", help="the tests folder or --pack archive to run (default: --dir)")
    ap.add_argument("--reference", help="the LABEL whose passing tests the others must pass (default: the first)")
    ap.add_argument("--deps", default=None, help="a folder put after each package on PYTHONPATH")
    ap.add_argument("--preload", default="", help="shared libraries every run loads first (':'-separated)")
    ap.add_argument("--out", default="/tmp/v2_tests")
    ap.add_argument("--timeout", type=int, default=420, help="seconds for each package's run (they run at once)")
    ap.add_argument("--rerun-budget", type=int, default=90, help="seconds for the reruns alone")
    a = ap.parse_args(argv)

    if not a.run and not a.carry:
        folder = Path(a.dir)
        status = check(folder, a.fetch)
        if a.pack and status == 0:
            pack(folder, a.pack)
        return status

    work = Path(tempfile.mkdtemp(prefix="v2_tests."))
    packages = dict(r.split("=", 1) for r in a.run)
    deps, preload = a.deps, [p for p in a.preload.split(":") if p]
    if a.carry:
        carry = unpack(a.carry, work / "carry")
        packages.setdefault("nvidia", str(carry / "site"))
        if (carry / "ours" / "cuda" / "bindings").is_dir():
            packages.setdefault("ours", str(carry / "ours"))
        packages = {k: packages[k] for k in sorted(packages, key=lambda k: k != "nvidia")}
        deps = deps or str(carry / "site")
        if (carry / "preload").is_file():
            preload += [str(carry / p) for p in (carry / "preload").read_text().split() if p]
    source = Path(a.tests or a.dir)
    tests_root = unpack(source, work / "tests") if source.is_file() else source
    if check(tests_root, quiet=True):
        print(f"the tests in {source} do not match scripts/v2_tests.json")
        return 2
    tests_dir = tests_root / "tests"
    reference = a.reference or next(iter(packages))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    site = work / "sitecustomize"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import ctypes as _ctypes\n" + "".join(f"_ctypes.CDLL({p!r}, mode=_ctypes.RTLD_GLOBAL)\n" for p in preload))
    envs = {}
    for label, path in packages.items():
        env = environment(site, str(Path(path).resolve()), deps, [tests_root / "site"])
        env["PYTHONDONTWRITEBYTECODE"] = "1"           # the tests folder stays as it was checked
        envs[label] = env
    where = {label: which(env) for label, env in envs.items()}
    lines = [f"NVIDIA's _v2 tests: {len(listed())} files of NVIDIA/cuda-python (scripts/v2_tests.json), from {source}"]
    bad = []
    for label, (f, version, v2) in where.items():
        lines.append(f"cuda.bindings: {label}: {f} {version} (_v2: {v2})")
        if not f.startswith(str(Path(packages[label]).resolve())):
            bad.append(label)
    if bad:
        print("\n".join(lines) + f"\nnot the cuda.bindings of the DIR given: {', '.join(bad)}")
        return 2
    with ThreadPoolExecutor(len(envs)) as ex:
        futs = {label: ex.submit(run_package, env, tests_dir, out / f"{label}.xml", out / f"{label}.log", a.timeout)
                for label, env in envs.items()}
        runs = {label: f.result() for label, f in futs.items()}
    ref = runs[reference]["tests"]
    if not ref:
        lines.append(f"nothing compared: the reference ({reference}) gave no test result")
    lost_total = 0
    deadline = time.time() + a.rerun_budget
    report = {"source": str(source), "bindings": {k: list(v) for k, v in where.items()}, "reference": reference,
              "runs": {}, "compared": {}}
    for label, r in runs.items():
        lines.append(f"{label:7}: {fmt(counts(r['tests']))}; exit {r['exit']}, {r['seconds']} s"
                     + (f"; no result: {r['no_result']}" if r["no_result"] else ""))
        report["runs"][label] = r
    for label, r in runs.items():
        if label == reference:
            continue
        only_ref = sorted(t for t, k in ref.items() if k == "passed" and r["tests"].get(t) != "passed")
        only_this = sorted(t for t, k in r["tests"].items() if k == "passed" and ref.get(t) != "passed")
        alone = {}
        for t in only_ref:
            left = deadline - time.time()
            alone[t] = ({p: rerun(envs[p], tests_dir, t, left) for p in (reference, label)} if left > 5
                        else {label: "not rerun (rerun budget spent)"})
        lost = [t for t in only_ref if alone[t].get(label) not in PASSING]
        lost_total += len(lost)
        lines.append(f"  passing on {reference} but not on {label}: {len(only_ref)} in the run, {len(lost)} also alone")
        for t in only_ref[:40]:
            lines.append(f"    {t}: {label} {r['tests'].get(t, 'absent')}, alone {alone[t]}")
        lines.append(f"  passing on {label} but not on {reference}: {len(only_this)}")
        for t in only_this[:10]:
            lines.append(f"    {t}: {reference} {ref.get(t, 'absent')}")
        report["compared"][label] = {"only_reference": {t: {label: r["tests"].get(t, "absent"), "alone": alone[t]}
                                                        for t in only_ref},
                                     "lost": lost, "only_this": only_this}
    (out / "results.json").write_text(json.dumps(report, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    print("\n==== NVIDIA's _v2 tests summary (logs and junit XML in " + str(out) + ")\n" + "\n".join(lines))
    return 2 if not ref else 1 if lost_total else 0


if __name__ == "__main__":
    sys.exit(main())
