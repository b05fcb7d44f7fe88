"""NVIDIA's own tests of cuda.bindings.nvvm, nvjitlink and nvrtc, run against each of our builds and
against its twin (NVIDIA's cuda-bindings of the same release), on the CPU.

    python scripts/nvidia_lib_tests.py [--releases 12.9,13.0,13.5] [--ours 13.0=/tmp/b130 ...] [--build]
    python scripts/nvidia_lib_tests.py --check          (only the copies in DIR against the list)

The tests are NVIDIA's (public repository NVIDIA/cuda-python, cuda_bindings/tests); they are never
committed here. scripts/nvidia_lib_tests.json lists each file: its path in that repository, the
commit of the stored copy it was taken from, its length in characters, the releases it is run for
and why that version; the copies live in the git-ignored DIR (.ref/nvidia-lib-tests/files/).
Without network to GitHub the copies are put there by hand; this script checks their lengths.

For each release it needs:
* our build of it, installed in a folder of its own (`pip install --no-build-isolation --no-deps
  --target FOLDER .` with CUDA_BINDINGS_CUDA_VERSION=<release>): `--ours RELEASE=FOLDER`, default
  build/nvidia-lib-tests/ours-<release>, which `--build` makes where it is missing (minutes);
* the twin, from the conformance suite's folder (build/conformance/reference-<twin>, installed with
  pip on first use: tests/conformance/run.py);
* the release's NVRTC, nvJitLink and NVVM library wheels (headers/pins.json), installed with pip
  into build/nvidia-lib-tests/libs-<release> on first use. Both packages' test processes load these
  files before importing cuda.bindings, so both test the same libraries (NVIDIA's loader takes a
  library already loaded; left to itself it may take another release's wheel from site-packages).

Each test file runs in a pytest process of its own, once per package, from a folder of its own
(DIR/run-<release>: the files, the test helper package, and a pytest.ini that keeps this
repository's pytest settings and conftest.py out). No test here needs a GPU: NVIDIA's conftest.py,
whose autouse fixture makes a CUDA context for every test, is not taken (the json says why).
Printed per release and package, for ours and the twin: passed, failed, errors, skipped, and the
tests that pass only on NVIDIA's (each named); the summary is last. Exit status 1 where a test
passes only on NVIDIA's, a copy is missing or of another length, or a run could not be made.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIST = REPO / "scripts" / "nvidia_lib_tests.json"
OUT = REPO / "build" / "nvidia-lib-tests"
RELEASES = ("12.9", "13.0", "13.5")
PACKAGES = ("nvvm", "nvjitlink", "nvrtc")
#: The library wheels each package's tests load (by project name, from the release's pins).
LIB_WHEELS = ("nvrtc", "nvjitlink", "nvvm", "nvcc")
#: The library files to load first, by glob under the wheels' folder (NVRTC's builtins before NVRTC).
LIB_FILES = ("libnvrtc-builtins.so.*", "libnvrtc.so.*", "libnvJitLink.so.*", "libnvvm.so*")

# The child process: load the libraries, check which cuda.bindings it imports, then either print
# the libraries' versions or run pytest.
CHILD = r"""
import ctypes, json, os, sys
for path in filter(None, os.environ["NVLT_PRELOAD"].split(os.pathsep)):
    ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
import cuda.bindings
where = os.path.abspath(cuda.bindings.__file__)
if not where.startswith(os.environ["NVLT_UNDER"]):
    sys.exit(f"cuda.bindings was imported from {where}, not from under {os.environ['NVLT_UNDER']}")
if sys.argv[1] == "--versions":
    from cuda.bindings import nvjitlink, nvrtc, nvvm
    print(json.dumps({"bindings": where, "nvrtc": list(nvrtc.nvrtcVersion()[1:]),
                      "nvjitlink": list(nvjitlink.version()), "nvvm": list(nvvm.version())}))
    sys.exit(0)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""

HELPER_MARKER = ('"""Package marker written by scripts/nvidia_lib_tests.py in place of NVIDIA\'s __init__.py, which\n'
                 'imports cuda.core for GPU helpers the NVVM tests do not use."""\n')


class Problem(Exception):
    pass


def listed():
    return json.loads(LIST.read_text())["files"]


def check(folder):
    """Every listed copy present in `folder` with its length; the problems found."""
    problems = []
    for e in listed():
        target = folder / e["dest"]
        if not target.exists():
            problems.append(f"missing: {e['dest']} ({e['path']} at {e['commit']})")
        elif len(target.read_text(encoding="utf-8")) != e["chars"]:
            problems.append(f"another length: {e['dest']} ({len(target.read_text(encoding='utf-8'))}, "
                            f"listed {e['chars']})")
    return problems


def assemble(folder, release):
    """DIR/run-<release>: the release's test files (tests/), the helper package (site/) and a
    pytest.ini; {package: test file}."""
    run = folder / f"run-{release}"
    shutil.rmtree(run, ignore_errors=True)
    (run / "tests").mkdir(parents=True)
    (run / "pytest.ini").write_text("[pytest]\n")
    files = {}
    for e in listed():
        if release not in e["releases"]:
            continue
        src = folder / e["dest"]
        if e["package"] == "helper":
            dest = run / "site" / Path(e["path"]).relative_to("cuda_python_test_helpers")
            dest.parent.mkdir(parents=True, exist_ok=True)
            (dest.parent / "__init__.py").write_text(HELPER_MARKER)
        else:
            dest = run / "tests" / Path(e["path"]).name
            files[e["package"]] = dest
        shutil.copyfile(src, dest)
    return run, files


def twin_folder(release):
    sys.path.insert(0, str(REPO / "tests"))
    from conformance import run
    try:
        return run.twin(release), Path(run.reference_dir(release))
    except run.SetupError as e:
        raise Problem(str(e)) from None


def pip_target(path, requirements):
    if path.exists():
        return path
    tmp = path.with_name(path.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
           "--target", str(tmp), *requirements]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Problem("could not install " + " ".join(requirements) + ":\n" + proc.stderr[-2000:])
    tmp.rename(path)
    return path


def libraries(release):
    """The release's NVRTC, nvJitLink and NVVM files (pinned wheels, installed on first use)."""
    pins = json.loads((REPO / "headers" / "pins.json").read_text())["versions"][release]["wheels"]
    wanted = [f"{p['project']}=={p['version']}" for p in pins
              if any(w in p["project"].split("-") for w in LIB_WHEELS)]
    folder = pip_target(OUT / f"libs-{release}", wanted)
    paths = []
    for pattern in LIB_FILES:
        found = sorted(p for p in glob.glob(str(folder / "**" / pattern), recursive=True) if os.path.isfile(p))
        if not found:
            raise Problem(f"no {pattern} in {folder} ({', '.join(wanted)})")
        paths.append(min(found, key=len))
    return paths


def ours_folder(release, given, build):
    path = Path(given).resolve() if given else OUT / f"ours-{release}"
    if not (path / "cuda" / "bindings" / "__init__.py").exists():
        if not build or given:
            raise Problem(f"no build of CUDA {release} in {path}: make one with `CUDA_BINDINGS_CUDA_VERSION={release} "
                          f"python -m pip install --no-build-isolation --no-deps --target {path} .` (or pass --build)")
        env = dict(os.environ, CUDA_BINDINGS_CUDA_VERSION=release)
        print(f"building CUDA {release} into {path} (several minutes)", flush=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
                               "--target", str(path), str(REPO)], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise Problem(f"the CUDA {release} build failed:\n{proc.stderr[-3000:]}")
    return path


def child(side, preload, extra, args, cwd, log=None):
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_BINDINGS_ERROR_NOTES", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(side), *map(str, extra)])
    env["NVLT_PRELOAD"] = os.pathsep.join(preload)
    env["NVLT_UNDER"] = os.path.join(os.path.abspath(side), "")
    proc = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800)
    if log is not None:
        log.write_text(proc.stdout + proc.stderr)
    return proc


def outcomes(xml):
    """{test id: passed | failed | error | skipped} from a JUnit XML report."""
    seen = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        tid = f"{case.get('classname')}::{case.get('name')}"
        kinds = {c.tag for c in case}
        state = ("error" if "error" in kinds else "failed" if "failure" in kinds
                 else "skipped" if "skipped" in kinds else "passed")
        if seen.get(tid) in ("failed", "error"):     # a test that fails and then errors in teardown
            continue
        seen[tid] = state
    return seen


def counts(res):
    return {k: sum(1 for v in res.values() if v == k) for k in ("passed", "failed", "error", "skipped")}


def fmt(c):
    return f"{c['passed']} passed, {c['failed']} failed, {c['error']} errors, {c['skipped']} skipped"


def run_release(folder, release, ours_given, build):
    twin, ref = twin_folder(release)
    ours = ours_folder(release, ours_given, build)
    preload = libraries(release)
    run, files = assemble(folder, release)
    # the helper package, and the wheels' folder (where both loaders look for a wheel's library)
    extra = [run / "site", OUT / f"libs-{release}"]
    result = {"release": release, "twin": twin, "files": {}, "packages": {}, "libraries": preload}
    for e in listed():
        if release in e["releases"]:
            result["files"][e["path"]] = e["commit"]
    for name, side in (("ours", ours), ("reference", ref)):
        proc = child(side, preload, extra, ["--versions"], run)
        if proc.returncode != 0:
            raise Problem(f"CUDA {release} {name}: {proc.stderr[-2000:] or proc.stdout[-2000:]}")
        result[f"{name}_versions"] = json.loads(proc.stdout.splitlines()[-1])
    for pkg in PACKAGES:
        per = {}
        for name, side in (("ours", ours), ("reference", ref)):
            xml = OUT / f"{release}-{pkg}-{name}.xml"
            xml.unlink(missing_ok=True)
            proc = child(side, preload, extra,
                         ["-c", str(run / "pytest.ini"), "-p", "no:cacheprovider", "-q", "-rfE",
                          f"--junitxml={xml}", str(files[pkg])], run, log=OUT / f"{release}-{pkg}-{name}.log")
            if not xml.exists():
                raise Problem(f"CUDA {release} {pkg} ({name}): pytest wrote no report (exit {proc.returncode}):\n"
                              + (proc.stdout + proc.stderr)[-2000:])
            per[name] = outcomes(xml)
        only = sorted(t for t, v in per["reference"].items() if v == "passed" and per["ours"].get(t) != "passed")
        result["packages"][pkg] = {"file": files[pkg].name, "ours": counts(per["ours"]),
                                   "reference": counts(per["reference"]), "only_nvidia": only,
                                   "ours_not_passed": {t: v for t, v in per["ours"].items() if v != "passed"}}
    return result


def report(res):
    rel, twin = res["release"], res["twin"]
    v = res["ours_versions"]
    print(f"CUDA {rel} (ours) vs NVIDIA's cuda-bindings {twin}; libraries: NVRTC {'.'.join(map(str, v['nvrtc']))}, "
          f"nvJitLink {'.'.join(map(str, v['nvjitlink']))}, NVVM {'.'.join(map(str, v['nvvm']))}")
    for pkg, p in res["packages"].items():
        print(f"  {pkg:<9} {p['file']}")
        print(f"    ours:      {fmt(p['ours'])}")
        print(f"    NVIDIA's:  {fmt(p['reference'])}")
        print(f"    pass only on NVIDIA's: {len(p['only_nvidia'])}")
        for t in p["only_nvidia"]:
            print(f"      {t}")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/nvidia_lib_tests.py")
    ap.add_argument("--dir", default=str(REPO / ".ref" / "nvidia-lib-tests"))
    ap.add_argument("--releases", default=",".join(RELEASES))
    ap.add_argument("--ours", action="append", default=[], metavar="RELEASE=FOLDER")
    ap.add_argument("--build", action="store_true", help="build a missing release into build/nvidia-lib-tests")
    ap.add_argument("--check", action="store_true", help="only check the copies against the list")
    a = ap.parse_args(argv)
    folder = Path(a.dir)
    problems = check(folder)
    for p in problems:
        print(p)
    if a.check or problems:
        print(f"{len(listed())} files listed, {len(problems)} problems")
        return 1 if problems else 0
    given = dict(x.split("=", 1) for x in a.ours)
    OUT.mkdir(parents=True, exist_ok=True)
    results, failed = [], []
    for release in a.releases.split(","):
        try:
            res = run_release(folder, release, given.get(release), a.build)
        except Problem as e:
            print(f"CUDA {release}: {e}")
            failed.append(release)
            continue
        report(res)
        results.append(res)
        (OUT / f"results-{release}.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    print("\nSummary (passed/failed/errors/skipped; ours | NVIDIA's; tests passing only on NVIDIA's)")
    only = 0
    for res in results:
        for pkg, p in res["packages"].items():
            o, r = p["ours"], p["reference"]
            print(f"  CUDA {res['release']} vs {res['twin']:<8} {pkg:<9} "
                  f"{o['passed']}/{o['failed']}/{o['error']}/{o['skipped']} | "
                  f"{r['passed']}/{r['failed']}/{r['error']}/{r['skipped']} | {len(p['only_nvidia'])}")
            only += len(p["only_nvidia"])
    for release in failed:
        print(f"  CUDA {release}: not run (see above)")
    print(f"tests passing only on NVIDIA's: {only}" + (f"; releases not run: {', '.join(failed)}" if failed else ""))
    return 1 if only or failed else 0


if __name__ == "__main__":
    sys.exit(main())
