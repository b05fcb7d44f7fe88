"""Differential conformance: run every probe under our package and under NVIDIA's cuda-bindings of
the same CUDA release (its twin, TWINS below), compare, and write a summary.

    python -m tests.conformance [--out DIR] [--jobs N]      (from the repository root)

The release is the one the imported cuda.bindings was built for (`__cuda_version__`).  Steps:
build the generator's model of that release (parse its pinned headers), write the probe list
(spec.py), compile a stand-in libcuda.so.1 (stub.py), install the twin into its own folder (once),
run probe.py under each package (in parallel shards), compare the observations (the departures
listed for this release apart), and write DIR/summary.txt and DIR/summary.json (DIR defaults to
build/conformance/cuda-<release>).  The last line printed is the one-line total.

Environment:
  CUDA_BINDINGS_REFERENCE_DIR  an existing `pip install --target` folder holding the twin and
                               cuda-pathfinder (for offline machines); "{twin}" in it is replaced
                               by the twin's version (/opt/ref-{twin} serves every release)
  CUDA_STUB_STATUS             the status the stand-in driver returns (default 999)
"""
import argparse
import collections
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import spec, stub
from .departures import DEPARTURES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "build" / "conformance"
#: NVIDIA's cuda-bindings release each pinned CUDA release is compared with: its twin in
#: headers/pins.json (the newest NVIDIA release of that CUDA version on PyPI), also the package version
TWINS = {v: entry["twin"] for v, entry in json.loads((ROOT / "headers" / "pins.json").read_text())["versions"].items()}
PATHFINDER = "cuda-pathfinder==1.9.0"
CHILD_TIMEOUT = 900
EXAMPLES = 3


class SetupError(RuntimeError):
    """The suite could not be set up (no reference, no compiler, ...): a failure, never a skip."""


# ---------------------------------------------------------------------------------------------
# the reference package

def build_release():
    """The CUDA release the imported cuda.bindings was built for."""
    import cuda.bindings
    return cuda.bindings.__cuda_version__


def twin(release):
    if release not in TWINS:
        raise SetupError(f"no NVIDIA release named for CUDA {release}: give it a twin in headers/pins.json")
    return TWINS[release]


def reference_dir(release, out=OUT):
    """A folder holding NVIDIA's twin of `release`: CUDA_BINDINGS_REFERENCE_DIR, or
    out/reference-<twin>, installed there with pip on first use."""
    version = twin(release)
    given = os.environ.get("CUDA_BINDINGS_REFERENCE_DIR")
    env = {}
    if given:
        env["CUDA_BINDINGS_REFERENCE_DIR"] = given.replace("{twin}", version)
    path = pip_target(Path(out) / f"reference-{version}", (f"cuda-bindings=={version}", PATHFINDER),
                      "CUDA_BINDINGS_REFERENCE_DIR", "cuda/bindings/__init__.py",
                      f"NVIDIA's cuda-bindings {version} for the conformance suite", environ=env)
    found = installed_version(path)
    if found != version:
        raise SetupError(f"{path} holds cuda-bindings {found}, not {version} (NVIDIA's twin of CUDA {release})")
    return path


def installed_version(folder):
    """The cuda-bindings version a `pip install --target` folder holds (from its dist-info)."""
    for d in Path(folder).glob("cuda_bindings-*.dist-info"):
        return d.name[len("cuda_bindings-"):-len(".dist-info")]
    return None


def pip_target(path, requirements, env_var, probe, what, environ=None):
    """A folder holding `requirements` (`pip install --no-deps --target`): the one the environment
    variable `env_var` names (looked up in `environ`, default os.environ), else `path`, installed
    there on first use.  `probe` is a file the folder must hold; a SetupError says how to make the
    folder on a machine without network."""
    given = (os.environ if environ is None else environ).get(env_var)
    path = Path(given) if given else Path(path)
    if (path / probe).exists():
        return path
    if given:
        raise SetupError(f"{env_var}={given} holds no {probe}; install it with "
                         f"`python -m pip install --no-deps --target {given} {' '.join(requirements)}`")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=path.name + ".", dir=path.parent))
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
           "--target", str(tmp), *requirements]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SetupError(f"could not install {what}:\n  " + " ".join(cmd) + "\n" + (proc.stderr or proc.stdout)[-3000:]
                         + f"\nOn a machine without network, install it elsewhere and set {env_var}.")
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    return path


# ---------------------------------------------------------------------------------------------
# running the probes

def stand_ins(libs, folder):
    """The stand-in libraries (tests/stand_in.py: every entry point returns success and writes
    nothing) of the probed libraries that need one here: NVML (the driver's), cuDLA (DLA hardware
    only) and cuFile (the real one needs GPUDirect Storage, and its calls with made-up handles
    are not safe); both packages take them, loaded before the package (probe.py)."""
    sys.path.insert(0, str(HERE.parent))
    import stand_in
    try:
        return [str(stand_in.build(lib, Path(folder))) for lib in libs if lib in ("cufile", "nvml", "cudla")]
    except (OSError, subprocess.CalledProcessError) as e:
        raise SetupError(f"could not build the stand-in libraries: {e}") from None


#: The toolkit libraries probed with real files (the driver is the stub, the others stand-ins).
REAL_LIBS = ("nvrtc", "nvjitlink", "nvvm", "nvfatbin")

_RESOLVE = """
import glob, json, os, sys
from cuda.bindings import _libpaths, _loader
paths = []
for lib in sys.argv[1:]:
    path = _libpaths.locate(_loader._SONAMES[lib]).path
    if path and os.path.isabs(path):
        if lib == "nvrtc":   # its builtins first, from the same folder, as our loader does
            paths += sorted(glob.glob(os.path.join(glob.escape(os.path.dirname(path)), "libnvrtc-builtins.so.*")))[:1]
        paths.append(path)
print(json.dumps(paths))
"""


def real_libraries(libs, pythonpath):
    """The files our loader takes for the probed toolkit libraries (REAL_LIBS), to be loaded first
    in both packages' probe processes.  NVIDIA's loader (cuda-pathfinder) takes a library already
    loaded under one of its names; left to search on its own, it may find another release's wheel
    in the same site-packages (the CUDA 13 nvrtc beside the CUDA 12 one) and the two packages would
    be probing different libraries."""
    wanted = [lib for lib in libs if lib in REAL_LIBS]
    if not wanted:
        return []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath))
    proc = subprocess.run([sys.executable, "-c", _RESOLVE, *wanted], capture_output=True, text=True, env=env,
                          cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SetupError(f"could not resolve the libraries {wanted} with our loader:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def _env(pythonpath, stubdir, tmp, preload=()):
    # the defaults: the legacy default stream, and no opt-in PEP 678 notes (CUDA_BINDINGS_ERROR_NOTES)
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "CUDA_BINDINGS_ERROR_NOTES")}
    env["CONFORMANCE_PRELOAD"] = os.pathsep.join(preload)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(stubdir), env.get("LD_LIBRARY_PATH")]))
    env.setdefault("CUDA_STUB_STATUS", "999")
    env["CONFORMANCE_TMP"] = str(tmp)
    return env


def _ours_path(ref_dir):
    """sys.path without the reference folder: where our package is imported from."""
    return [p for p in sys.path if p and Path(p).resolve() != Path(ref_dir).resolve()]


def run_probes(spec_path, stubdir, ref_dir, out, jobs, preload=()):
    """Run probe.py under both packages; returns {package: {probe id: observation}}, logs."""
    ours_path = _ours_path(ref_dir)
    packages = {"ours": (ours_path, ["--expect-not-under", str(ref_dir)]),
                "reference": ([ref_dir] + ours_path, ["--expect-under", str(ref_dir)])}
    shards = max(1, jobs // 2)
    tmp = Path(out) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    procs = []
    for name, (path, check) in packages.items():
        for k in range(shards):
            res, log = Path(out) / f"{name}.{k}.jsonl", Path(out) / f"{name}.{k}.log"
            cmd = [sys.executable, str(HERE / "probe.py"), str(spec_path), str(res), "--shard", f"{k}/{shards}", *check]
            # a folder of its own: probes given relative paths (nvrtcInstallBundledHeaders("x") and
            # nvrtcRemoveBundledHeaders("x")) must not see what the other package's probes made
            cwd = tmp / f"{name}.{k}"
            shutil.rmtree(cwd, ignore_errors=True)
            cwd.mkdir()
            with open(log, "w") as fh:
                p = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=_env(path, stubdir, tmp, preload), cwd=cwd,
                                     start_new_session=True)
            procs.append((name, p, res, log))
    results = {name: {} for name in packages}
    problems = []
    deadline = time.time() + CHILD_TIMEOUT
    for name, p, res, log in procs:
        try:
            p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)      # the runner and the worker it forked
            p.wait()
        done = False
        if res.exists():
            for line in res.read_text().splitlines():
                obs = json.loads(line)
                done = done or "__done__" in obs
                results[name].update({k: v for k, v in obs.items() if not k.startswith("__")})
        if not done:
            tail = log.read_text()[-2000:] if log.exists() else ""
            problems.append(f"{name}: the probe runner stopped early (exit {p.returncode}); {log}:\n{tail}")
    return results, problems


def has_v2(ref_dir):
    """Whether NVIDIA's twin has cuda.bindings._v2 (13.4 on; 12.9.10 and 13.0.3 have none, and
    their builds' _v2 is not probed)."""
    return (Path(ref_dir) / "cuda" / "bindings" / "_v2").is_dir()


def run_v2_probes(stubdir, ref_dir, out, preload=()):
    """v2probe.py under both packages at once (docs/conformance.md, "_v2"); returns
    ({package: {probe id: observation}}, problems)."""
    ours_path = _ours_path(ref_dir)
    tmp = Path(out) / "tmp"
    procs = {}
    for name, path in (("ours", ours_path), ("reference", [ref_dir] + ours_path)):
        res, cwd = Path(out) / f"{name}.v2.jsonl", tmp / f"{name}.v2"
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        with open(Path(out) / f"{name}.v2.log", "w") as fh:
            procs[name] = (subprocess.Popen([sys.executable, str(HERE / "v2probe.py"), str(res)], stdout=fh,
                                            stderr=subprocess.STDOUT, env=_env(path, stubdir, tmp, preload), cwd=cwd,
                                            start_new_session=True), res)
    results, problems = {}, []
    for name, (p, res) in procs.items():
        try:
            p.wait(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        results[name] = {}
        lines = res.read_text().splitlines() if res.exists() else []
        for line in lines:
            results[name].update({k: v for k, v in json.loads(line).items() if not k.startswith("__")})
        if not any("__done__" in line for line in lines):
            problems.append(f"{name}: the _v2 probes stopped early (exit {p.returncode})")
    v2_absent(results)
    return results, problems


def v2_absent(results):
    """The _v2 probes of a function one package lacks, marked missing on that side: its `name`
    probe reports it once (ours's missing functions are listed, departures.V2_MISSING), and its
    calls are not comparable."""
    for name, other in (("ours", "reference"), ("reference", "ours")):
        for pid in set(results[name]) - set(results[other]):
            lib, fam, fn = pid.split(".")[:3]
            if lib.startswith("v2_") and fam == "fn" and f"{lib}.name.{fn}" not in results[other]:
                results[other][pid] = {"missing": f"_v2.{lib[3:]} has no {fn}"}


# ---------------------------------------------------------------------------------------------
# comparing

def _match(pattern, pid):
    return re.search(pattern[3:], pid) is not None if pattern.startswith("re:") else fnmatch.fnmatchcase(pid, pattern)


def _fits(pattern, obs):
    """None fits anything; a dict fits an observation holding each of its keys with that value."""
    if pattern is None:
        return True
    return isinstance(obs, dict) and all(k in obs and obs[k] == v for k, v in pattern.items())


def covers(entry, release):
    """Whether a departures.py entry is listed for CUDA `release` (None: any release)."""
    releases = entry[2]
    return release is None or releases == "all" or release in releases.split()


# ---------------------------------------------------------------------------------------------
# the kinds of departure (docs/conformance.md, "The rule"): a departure may only add.  Each entry of
# departures.py names its kind, and every difference it covers must be of that kind.

#: Python's own exceptions: what a package raises when it refuses an argument.  A library's status
#: error (nvvmError, NvmlError, ...) is not one: where NVIDIA's raises it, the input was accepted.
REFUSALS = frozenset({"TypeError", "ValueError", "OverflowError", "AttributeError", "IndexError", "KeyError",
                      "BufferError", "UnicodeDecodeError", "UnicodeEncodeError", "NotImplementedError",
                      "RuntimeError"})


def refused(x):
    """An observation of an input refused before the library saw it: one of Python's exceptions,
    and (where the stand-in library says which entry point was reached) no call."""
    return isinstance(x, dict) and x.get("exc") in REFUSALS and not x.get("sym")


def crashed(x):
    return isinstance(x, dict) and ("crash" in x or "hang" in x)


def absent(x):
    return x is None or (isinstance(x, dict) and "missing" in x)


def _reached_then_failed(x):
    """NVIDIA's package called the library and then raised one of Python's exceptions on what came
    back (an enum made of memory nothing wrote)."""
    return isinstance(x, dict) and x.get("exc") in REFUSALS and bool(x.get("sym"))


_ZEROED = ("0", "0.0", "''", "False")       # a field of zeroed memory, as a probe shows it
#: the argument forms that are an address in the first page of memory (int 1, float 1.5) or NULL
#: (an options list given as bytes of NULs is one of NULL options)
_NULL_PAGE_FORMS = r":((handle|handle_ref|struct_ptr|cstr|strlist|buf_w|voidp)=(int|float|none|null|handle)|strlist=bytes|arg=int)$"
#: the _v2 probes' -1 where an address is wanted: in the upper half of the address space (negative
#: as an intptr_t), the kernel's, never a process's memory
_UPPER_HALF_FORMS = r":arg=neg$"

def _more_members(pid, o, r):
    """An enum's member count, where ours has members NVIDIA's lacks (more of them, nothing else)."""
    return (family(pid)[1] == "enum" and pid.endswith(".members") and isinstance(o, dict) and isinstance(r, dict)
            and set(o) == set(r) == {"count", "iter"} and o["count"] == o["iter"] and r["count"] == r["iter"]
            and o["count"] > r["count"])


def _callback_nulled(pid, o, r):
    """A driver call given None for a callback parameter (the probe form `:handle=none`) that returns
    the same in both, where the stand-in saw NULL from ours and another address from NVIDIA's."""
    m = re.search(r"\.(\w+):handle=none$", pid)
    if not (m and isinstance(o, dict) and isinstance(r, dict) and "ret" in o and o.get("ret") == r.get("ret")
            and o.get("sym") and o.get("sym") == r.get("sym")):
        return False
    ours, ref = str(o.get("args", "")).split(", "), str(r.get("args", "")).split(", ")
    return f"{m[1]}=NULL" in ours and f"{m[1]}=<ptr>" in ref and \
        [a for a in ours if not a.startswith(m[1] + "=")] == [a for a in ref if not a.startswith(m[1] + "=")]


#: kind -> (test on (probe id, ours, reference), what it means)
KINDS = {
    "accepts-more": (lambda pid, o, r: refused(r) and not (refused(o) or crashed(o) or absent(o)),
                     "ours takes an input NVIDIA's refuses before its library sees it"),
    "refuses-otherwise": (lambda pid, o, r: refused(r) and refused(o),
                          "both refuse the input before the library sees it, with another exception class"),
    "avoids-crash": (lambda pid, o, r: crashed(r) and not crashed(o),
                     "NVIDIA's crashes or hangs on the input; ours raises or returns"),
    "adds-name": (lambda pid, o, r: (absent(r) and not absent(o)) or _more_members(pid, o, r),
                  "ours has a name (function, class, member, field) NVIDIA's lacks (and an enum with such "
                  "members counts more)"),
    "newer-header": (lambda pid, o, r: family(pid)[1] in ("const", "enum") and not absent(o) and not absent(r)
                     and "exc" not in o and "exc" not in r,
                     "a value or member count from the pinned header, which is newer than the one NVIDIA's "
                     "release was generated from"),
    "avoids-library-crash": (lambda pid, o, r: (re.search(_NULL_PAGE_FORMS, pid) or re.search(_UPPER_HALF_FORMS, pid))
                             is not None and isinstance(o, dict) and o.get("exc") == "ValueError" and not refused(r),
                             "ours refuses (ValueError) a handle or an address in the first page of memory (the "
                             "probes' 1 and 1.5), in the upper half of the address space (the _v2 probes' -1) "
                             "or NULL, which NVIDIA's passes to a library that crashes on "
                             "it: reading or writing there faults; for handles and NULL buffers, what the real "
                             "library does is measured (scripts/handle_probe.py, docs/reliability.md); the "
                             "stand-in the suite calls cannot show it"),
    "avoids-overrun": (lambda pid, o, r: re.search(r":scalar=(handle|int|float)$", pid) is not None
                       and isinstance(o, dict) and o.get("exc") == "RuntimeError" and not refused(r),
                       "ours refuses a count larger than the list it counts (RuntimeError); NVIDIA's passes "
                       "the count on with the list, and the library reads past the array's end (nvJitLink "
                       "crashes on it; the driver reads handles that are none)"),
    "avoids-undefined": (lambda pid, o, r: re.search(r":structptr\.set=(list_int|list_handle|bytes|str)$", pid)
                         is not None and refused(o),
                         "ours refuses a value that NVIDIA's reads as memory of another kind (the items of a "
                         "list of ints, handles or characters read as C structs): what NVIDIA's makes of it is "
                         "undefined (13.0.3 segfaults on the same inputs)"),
    "equivalent-arguments": (lambda pid, o, r: isinstance(o, dict) and isinstance(r, dict) and "ret" in o
                             and o.get("ret") == r.get("ret") and o.get("sym") == r.get("sym")
                             and o.get("args") != r.get("args"),
                             "the call returns the same; only the C arguments the stand-in driver records "
                             "differ, in a way that means the same to the driver (the entry says why)"),
    "avoids-callback-crash": (lambda pid, o, r: _callback_nulled(pid, o, r),
                              "a callback given as None: ours passes NULL, which the driver refuses "
                              "(CUDA_ERROR_INVALID_VALUE); NVIDIA's passes its own trampoline, which calls the "
                              "NULL function when the driver runs it (a segfault, seen with the real driver); "
                              "the stand-in driver runs no callback, so it shows only the argument"),
    "defined-output": (lambda pid, o, r: _reached_then_failed(r) and "exc" not in o and not crashed(o),
                       "NVIDIA's reads memory the library never wrote and fails on it; ours returns the "
                       "zeroed output"),
    "uninitialised-memory": (lambda pid, o, r: family(pid)[1] == "record" and isinstance(o, dict) and isinstance(r, dict)
                             and ((pid.endswith(".eq") and o == {"eq": "True"} and r == {"eq": "False"})
                                  or (pid.endswith(".get") and o.get("get") in _ZEROED and "get" in r)),
                             "NVIDIA's new struct object holds uninitialised memory, which ours zeroes: a "
                             "field reads as whatever was there, two new objects differ"),
    "reference-internal": (lambda pid, o, r: family(pid)[1] == "name" and absent(o) and not absent(r),
                           "a name of NVIDIA's package's own machinery, not of the CUDA API"),
    "missing-in-ours": (lambda pid, o, r: family(pid)[1] == "name" and absent(o) and not absent(r),
                        "a function NVIDIA's has that ours does not have yet (a shape the generator does not make): "
                        "a gap, not a departure the rule allows, listed one entry per function "
                        "(departures.V2_MISSING) so that it stays in sight and a new one fails the test"),
}


def kind_fits(entry, pid, ours, ref):
    """Whether the difference (ours, ref) at `pid` is of the kind the entry names."""
    test = KINDS.get(entry[3])
    return test is not None and test[0](pid, ours, ref)


def departure(pid, ours, ref, table=DEPARTURES, release=None):
    """The table entry covering this difference (among those listed for `release`): one whose
    pattern and observations match, and whose kind the difference is of; else None.  A second
    value says which entry matched but named another kind (None when none did)."""
    misfit = None
    for entry in table:
        pattern, expected = entry[:2]
        if not covers(entry, release):
            continue
        if _match(pattern, pid) and (expected is None or (_fits(expected[0], ours) and _fits(expected[1], ref))):
            if kind_fits(entry, pid, ours, ref):
                return entry, None
            misfit = misfit or entry
    return None, misfit


def family(pid):
    """(lib, family, what): what names the kind of probe without the subject's name."""
    lib, fam, rest = pid.split(".", 2)
    last = rest.rsplit(".", 1)[-1]
    if fam == "fn" and "=" in last:
        what = "arg:" + last.split(":", 1)[-1]
    elif fam == "field":
        what = rest.split(":", 1)[-1].replace(".", " ")
    elif fam == "enum" and ".member." in rest:
        what = "member"
    elif fam in ("name", "const"):
        what = fam
    else:
        what = last
    return lib, fam, what


def diff_kind(o, r):
    if o is None or r is None:
        return f"observed only in {'reference' if o is None else 'ours'}"
    for side, x in (("ours", o), ("reference", r)):
        if "crash" in x or "hang" in x:
            return f"{side} {'crashes' if 'crash' in x else 'hangs'}"
    if "exc" in o and "exc" in r:
        return f"raises {o['exc']} (reference {r['exc']})"
    if "exc" in o:
        return f"ours raises {o['exc']}, reference does not"
    if "exc" in r:
        return f"reference raises {r['exc']}, ours does not"
    return "differs in " + ", ".join(sorted(k for k in set(o) | set(r) if o.get(k) != r.get(k)))


def _absent(pid, o, r):
    """A probe of a name one package lacks: the name probe (family `name`) reports that once."""
    return family(pid)[1] != "name" and any(x is not None and "missing" in x for x in (o, r))


def compare(ours, ref, table=DEPARTURES, release=None):
    res = {"probes": 0, "identical": 0, "absent": 0, "departures": [], "differences": [], "misfits": [],
           "crashes": {"ours": sorted(k for k, v in ours.items() if "crash" in v or "hang" in v),
                       "reference": sorted(k for k, v in ref.items() if "crash" in v or "hang" in v)}}
    for key in ("probes_by_lib", "identical_by_lib", "absent_by_lib"):
        res[key] = collections.Counter()
    for pid in sorted(set(ours) | set(ref)):
        o, r = ours.get(pid), ref.get(pid)
        lib = pid.split(".")[0]
        res["probes"] += 1
        res["probes_by_lib"][lib] += 1
        if o == r:
            res["identical"] += 1
            res["identical_by_lib"][lib] += 1
        elif _absent(pid, o, r):
            res["absent"] += 1
            res["absent_by_lib"][lib] += 1
        else:
            entry, misfit = departure(pid, o, r, table, release)
            if entry is not None:
                res["departures"].append([pid, o, r, entry[-1]])
            else:
                res["differences"].append([pid, o, r])
                if misfit is not None:
                    res["misfits"].append([pid, misfit[3], misfit[-1]])
    return res


def _obs(x, width=160):
    """One line per observation: long values cut, line breaks shown as \\n."""
    def short(v):
        text = str(v).replace("\n", "\\n")
        return text if len(text) <= width else text[:width] + "..."
    if x is None:
        return "-"
    return ", ".join(f"{k}={short(v)}" for k, v in x.items()) if isinstance(x, dict) else short(x)


def grouped(diffs):
    groups = collections.defaultdict(list)
    for pid, o, r in diffs:
        lib, fam, what = family(pid)
        groups[(lib, fam, what, diff_kind(o, r))].append((pid, o, r))
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def by_kind(res, table=DEPARTURES):
    """{kind: departures of that kind} of a comparison."""
    kinds = {entry[-1]: entry[3] for entry in table}
    return dict(collections.Counter(kinds.get(reason, "?") for *_, reason in res["departures"]).most_common())


def by_module(res, table=DEPARTURES):
    """{lib: {probes, identical, departures by kind, unlisted}} of a comparison."""
    kinds = {entry[-1]: entry[3] for entry in table}
    out = collections.defaultdict(lambda: {"probes": 0, "identical": 0, "departures": collections.Counter(),
                                           "unlisted": 0, "not comparable": 0})
    for lib, n in res.get("probes_by_lib", {}).items():
        out[lib]["probes"] = n
    for lib, n in res.get("identical_by_lib", {}).items():
        out[lib]["identical"] = n
    for lib, n in res.get("absent_by_lib", {}).items():
        out[lib]["not comparable"] = n
    for pid, *_, reason in res["departures"]:
        out[pid.split(".")[0]]["departures"][kinds.get(reason, "?")] += 1
    for pid, *_ in res["differences"]:
        out[pid.split(".")[0]]["unlisted"] += 1
    return {lib: dict(v, departures=dict(v["departures"].most_common())) for lib, v in sorted(out.items())}


def module_table(res):
    """Lines of a table: per module, probes, identical, not comparable, departures by kind, unlisted."""
    lines = ["| module | probes | identical | not comparable | departures (by kind) | unlisted |",
             "| --- | ---: | ---: | ---: | --- | ---: |"]
    for lib, v in by_module(res).items():
        kinds = ", ".join(f"{k} {n}" for k, n in v["departures"].items()) or "-"
        lines.append(f"| {lib} | {v['probes']} | {v['identical']} | {v['not comparable']} | {kinds} | {v['unlisted']} |")
    return lines


def total_line(res):
    who = f" (CUDA {res['release']} vs NVIDIA's {res['twin']})" if "release" in res else ""
    kinds = ", ".join(f"{k} {n}" for k, n in by_kind(res).items())
    return (f"conformance{who}: {res['probes']} probes, {res['identical']} identical, "
            f"{len(res['departures'])} listed departures ({kinds}), {len(res['differences'])} unlisted differences, "
            f"{res['absent']} not comparable (name absent in one package); crashes: "
            f"ours {len(res['crashes']['ours'])}, reference {len(res['crashes']['reference'])}")


def summary_text(res, examples=EXAMPLES, limit=None, totals=True):
    lines = ["Unlisted differences (ours vs reference), by library, family, probe kind and kind of difference:"]
    by_family = collections.Counter(family(pid)[:2] for pid, _, _ in res["differences"])
    lines.append("  per family: " + ", ".join(f"{lib}.{fam} {n}" for (lib, fam), n in sorted(by_family.items())))
    groups = grouped(res["differences"])
    for i, ((lib, fam, what, kind), items) in enumerate(groups):
        if limit is not None and i >= limit:
            lines.append(f"  ... {len(groups) - limit} more groups (see summary.txt)")
            break
        lines.append(f"  [{len(items)}] {lib} {fam} {what}: {kind}")
        for pid, o, r in items[:examples]:
            lines.append(f"      {pid}: ours {_obs(o)} | reference {_obs(r)}")
    if res.get("misfits"):
        lines.append(f"Differences that match a departure entry but are not of its kind ({len(res['misfits'])}):")
        shown = collections.Counter()
        for pid, kind, reason in res["misfits"]:
            shown[reason] += 1
            if shown[reason] <= examples:
                lines.append(f"  {pid}: not {kind} ({reason[:80]})")
    if not totals:
        return "\n".join(lines)
    for side in ("ours", "reference"):
        crashed = res["crashes"][side]
        if crashed:
            lines.append(f"Crashes/hangs of {side} ({len(crashed)}): " + ", ".join(crashed[:10])
                         + (" ..." if len(crashed) > 10 else ""))
    lines.append(total_line(res))
    return "\n".join(lines)


def write_summary(res, out, meta):
    out = Path(out)
    (out / "summary.txt").write_text(summary_text(res) + "\n\nPer module:\n" + "\n".join(module_table(res)) + "\n")
    data = dict(meta, probes=res["probes"], identical=res["identical"], absent=res["absent"],
                departures=len(res["departures"]), departures_by_kind=by_kind(res), modules=by_module(res),
                differences=len(res["differences"]), misfits=res.get("misfits", []),
                crashes={k: len(v) for k, v in res["crashes"].items()},
                groups=[{"lib": k[0], "family": k[1], "probe": k[2], "kind": k[3], "count": len(v),
                         "examples": [{"id": p, "ours": o, "reference": r} for p, o, r in v[:EXAMPLES]]}
                        for k, v in grouped(res["differences"])],
                crashed=res["crashes"])
    (out / "summary.json").write_text(json.dumps(data, indent=1))
    with open(out / "differences.jsonl", "w") as fh:
        for row in res["differences"]:
            fh.write(json.dumps(row) + "\n")


# ---------------------------------------------------------------------------------------------

def run(out=None, jobs=None, models=None, log=print, release=None):
    """The whole suite for `release` (default: the imported build's); returns the comparison (see
    compare) plus 'problems', 'meta', 'release' and 'twin'."""
    release = release or build_release()
    out = Path(out) if out else OUT / f"cuda-{release}"
    out.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 2
    t0 = time.time()
    ref = reference_dir(release, OUT)
    models = models or spec.load_models(release, jobs)
    t1 = time.time()
    n = spec.write(models, out / "spec.json")
    try:
        stubdir = stub.build(models["driver"], out / "stub")
    except (OSError, RuntimeError) as e:
        raise SetupError(str(e)) from None
    log(f"conformance: CUDA {release}: model and {n} probes in {t1 - t0:.1f}s; NVIDIA's {twin(release)} at {ref}")
    preload = real_libraries(list(models), _ours_path(ref)) + stand_ins(list(models), out / "stand-ins")
    results, problems = run_probes(out / "spec.json", stubdir, ref, out, jobs, preload)
    t2 = time.time()
    if has_v2(ref) != spec.has_v2(release):
        problems.append(f"NVIDIA's {twin(release)} {'has' if has_v2(ref) else 'lacks'} cuda.bindings._v2, which "
                        f"spec.V2_FROM says it {'lacks' if has_v2(ref) else 'has'}")
    if has_v2(ref):
        v2, v2_problems = run_v2_probes(stubdir, ref, out, preload)
        for name in results:
            results[name].update(v2[name])
        problems += v2_problems
    t3 = time.time()
    res = compare(results["ours"], results["reference"], release=release)
    res["release"], res["twin"] = release, twin(release)
    meta = {"release": release, "twin": twin(release),
            "seconds": {"setup": round(t1 - t0, 1), "probes": round(t2 - t1, 1), "v2 probes": round(t3 - t2, 1)},
            "reference": str(ref),
            "problems": problems}
    write_summary(res, out, meta)
    res["problems"], res["meta"] = problems, meta
    return res


def recompare(out=None, release=None):
    """The last run's observations (out/ours.N.jsonl, reference.N.jsonl) compared again, with the
    departures table as it is now: no probes run (for editing departures.py)."""
    release = release or build_release()
    out = Path(out) if out else OUT / f"cuda-{release}"
    results = {}
    for name in ("ours", "reference"):
        results[name] = {}
        for f in sorted(out.glob(f"{name}.*.jsonl")):
            for line in f.read_text().splitlines():
                results[name].update({k: v for k, v in json.loads(line).items() if not k.startswith("__")})
    if not results["ours"] or not results["reference"]:
        raise SetupError(f"no observations in {out}: run the suite first")
    v2_absent(results)
    res = compare(results["ours"], results["reference"], release=release)
    res["release"], res["twin"], res["problems"] = release, twin(release), []
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.conformance")
    ap.add_argument("--out", default=None, help="default: build/conformance/cuda-<release>")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--groups", type=int, default=40, help="difference groups printed (all are in summary.txt)")
    ap.add_argument("--recompare", action="store_true",
                    help="compare the last run's observations again with departures.py as it is now")
    a = ap.parse_args(argv)
    try:
        res = recompare(a.out) if a.recompare else run(a.out, a.jobs)
    except SetupError as e:
        print(f"conformance: setup failed: {e}", file=sys.stderr)
        print("conformance: not run (setup failed)")
        return 2
    for p in res["problems"]:
        print("PROBLEM:", p)
    print(summary_text(res, limit=a.groups))
    return 1 if res["differences"] or res["problems"] else 0
