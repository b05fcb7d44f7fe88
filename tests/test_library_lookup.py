"""Where the loader finds a library (cuda_bindings/_libpaths.py: NVIDIA's cuda-pathfinder first,
then its own search, only a library of this build's CUDA major), and what it says when it finds
none, for the libraries of nvFatbin, cuFile, NVML and cuDLA beside the older ones.

Each case runs in a fresh interpreter.  The pip wheels' folders are faked: `site.getsitepackages()`
(where cuda-pathfinder looks) returns the case's folders, which hold stand-in libraries compiled
here from a few lines of C.  The symbol tables of libraries this build has no bindings for yet are
faked the same way (`cuda.bindings._symbols_<lib>` modules of (name, 0, None, 0, C symbol) rows).
docs/loading.md says why the lookup is built this way."""
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from _support import run_python
from cuda.bindings import _libpaths, _loader
from cuda.bindings._version import CUDA_MAJOR, __cuda_version__

OTHER = 12 if CUDA_MAJOR == 13 else 13
LIBS = _libpaths.LIBRARIES

# C source of each stand-in, by library; {major} is the CUDA major it pretends to be of
SOURCES = {
    "nvfatbin": "int nvFatbinVersion(unsigned *a, unsigned *b) {{ *a = {major}; *b = 0; return 0; }}\n"
                "int nvFatbinSize(void *h, unsigned long *n) {{ *n = 0; return 0; }}",
    "cufile": "typedef struct {{ int err; int cu_err; }} status_t;\n"
              "status_t cuFileGetVersion(int *v) {{ status_t s = {{0, 0}}; *v = {major} == 13 ? 1150 : 1140; return s; }}",
    "cudla": "int cudlaGetVersion(unsigned long long *v) {{ *v = 1; return 0; }}",
    "nvvm": "int nvvmVersion(int *a, int *b) {{ *a = 2; *b = 0; return 0; }}",
    "nvml": "int nvmlInit_v2(void) {{ return 0; }}",
}

# The child's set-up, from environment variables (JSON): TEST_SITE_DIRS, the folders
# site.getsitepackages() gives (cuda-pathfinder's pip-wheel search); TEST_SYMBOL_TABLES, {lib:
# [C symbols]} faked as this build's symbol tables; TEST_HIDE: "pathfinder", "wheels" (the
# loader's own wheel search), "system" (the system loader) taken out of the search.
PRELUDE = r"""
import json, os, site, sys, types
_dirs = json.loads(os.environ.get("TEST_SITE_DIRS", "[]"))
site.getsitepackages = lambda prefixes=None: list(_dirs)
site.ENABLE_USER_SITE = False
from cuda.bindings import _libpaths, _loader
for _lib, _names in json.loads(os.environ.get("TEST_SYMBOL_TABLES", "{}")).items():
    _m = types.ModuleType(f"cuda.bindings._symbols_{_lib}")
    _m.SYMBOLS = tuple((n, 0, None, 0, n) for n in _names)
    sys.modules[_m.__name__] = _m
_hide = os.environ.get("TEST_HIDE", "").split()
if "pathfinder" in _hide:
    _libpaths._pathfinder = lambda libname: (None, "cuda-pathfinder: hidden by the test")
if "wheels" in _hide:
    _libpaths.WHEEL_LIBS = dict.fromkeys(_libpaths.WHEEL_LIBS, "no-such-wheel-folder")
if "system" in _hide:
    _libpaths._load = lambda soname: (None, "hidden by the test")
if os.environ.get("TEST_MACHINE"):
    _libpaths.machine = lambda: os.environ["TEST_MACHINE"]
def report(lib, call=None):
    out = {}
    try:
        found = _libpaths.locate(_loader._SONAMES[lib])
        out = {"path": found.path, "via": found.via, "tried": found.tried, "other": found.other_major}
        h = _loader.library(lib)
        out["loaded"] = h._name
        if call:
            out["call"] = call()
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
"""


def child(code, site_dirs=(), tables=None, hide="", env=None):
    e = {"CUDA_HOME": "", "CUDA_PATH": "", "CONDA_PREFIX": "", "TEST_SITE_DIRS": json.dumps([str(d) for d in site_dirs]),
         "TEST_SYMBOL_TABLES": json.dumps(tables or {}), "TEST_HIDE": hide}
    e.update(env or {})
    r = run_python(PRELUDE + code, env=e)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()


def result(code, **kw):
    return json.loads(child(code, **kw)[-1])


needs_pathfinder = pytest.mark.skipif(
    not __import__("importlib").util.find_spec("cuda.pathfinder"),
    reason="cuda-pathfinder is not installed here (a dependency of the package: `pip install cuda-pathfinder`)")


def pathfinder_via(lib, step, own):
    """How `locate` says it found `lib`: through cuda-pathfinder's `step` where the installed one
    knows the library (NVML from 1.4, cuDLA from 1.6; it names its steps from 1.4), else through
    the loader's own search (`own`).  Before 1.4 it looked for any major's file (`lib*.so*`) and
    knew other names: either may be the one."""
    import cuda.pathfinder as pf
    version = tuple(int(x) for x in pf.__version__.split(".")[:2])
    if version < (1, 4):
        return {f"cuda-pathfinder {pf.__version__}", own}
    if version < {"nvml": (1, 4), "cudla": (1, 6)}.get(lib, (1, 4)):
        return {own}
    return {f"cuda-pathfinder {pf.__version__}: {step}"}


def _build(lib, major, dest):
    dest.parent.mkdir(parents=True, exist_ok=True)
    import tempfile
    src = Path(tempfile.mkdtemp(prefix="stand-in-")) / f"{lib}.c"     # not beside the library: an
    src.write_text(SOURCES[lib].format(major=major) + "\n")         # old pathfinder globs lib*.so*
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(dest), str(src)], check=True)
    return dest


def wheel_site(root, major, libs):
    """A site-packages folder holding stand-ins of `libs` where CUDA `major`'s pip wheels put them."""
    for lib in libs:
        soname, _, _, folder = LIBS[major][lib]
        if folder:
            _build(lib, major, root.joinpath(*folder.split("/"), soname))
    return root


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Two fake site-packages folders: `own` with this build's major's stand-ins, `other` with the
    other major's (CUDA 12's per-wheel folders, CUDA 13's nvidia/cu13/lib)."""
    base = tmp_path_factory.mktemp("sites")
    libs = ("nvfatbin", "cufile", "cudla", "nvvm")
    return types.SimpleNamespace(own=wheel_site(base / "own", CUDA_MAJOR, libs),
                                 other=wheel_site(base / "other", OTHER, libs), base=base)


def own_path(site, lib):
    soname, _, _, folder = LIBS[CUDA_MAJOR][lib]
    return str(site.joinpath(*folder.split("/"), soname))


# --- what is part of a build --------------------------------------------------------------------

def test_import_of_cuda_bindings_imports_no_pathfinder():
    r = run_python("import sys, cuda.bindings, cuda.bindings.driver, cuda.bindings.nvrtc, cuda.bindings.utils\n"
                   "print('cuda.pathfinder' in sys.modules, 'cuda.bindings._libpaths' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


def test_which_libraries_a_build_has():
    for lib in ("driver", "runtime", "nvrtc", "nvjitlink", "nvvm"):
        assert _loader.in_build(lib)
    assert not _loader.in_build("nosuchlib")
    for lib in ("nvfatbin", "cufile", "nvml", "cudla"):
        present = os.path.exists(os.path.join(os.path.dirname(_loader.__file__), f"_symbols_{lib}.py"))
        assert _loader.in_build(lib) is present
    assert "they come with the CUDA 13.5 build" in _loader.not_in_build("cudla")


@pytest.mark.parametrize("lib", ["nvfatbin", "cufile", "nvml", "cudla"])
def test_internal_module_of_a_library_the_build_lacks_is_an_import_error(lib):
    code = (f"try:\n    from cuda.bindings._internal import {lib}\nexcept ImportError as e:\n    print('ImportError:', e)\n"
            "else:\n    print('imported')\n")
    out = child(code)[-1]
    if _loader.in_build(lib):
        assert out.startswith("imported"), out
    else:
        assert out.startswith(f"ImportError: this build of cuda.bindings (CUDA {__cuda_version__}) has no {lib} "
                              f"bindings"), out


# --- cuda-pathfinder finds them -------------------------------------------------------------------

@needs_pathfinder
@pytest.mark.parametrize("lib, csym", [("nvfatbin", "nvFatbinVersion"), ("cufile", "cuFileGetVersion")])
def test_pathfinder_finds_a_pip_wheel_library(sites, lib, csym):
    tables = {lib: [csym, "noSuchEntryPoint"]}
    code = f"""
from cuda.bindings._internal import {lib} as internal
report({lib!r}, lambda: internal._inspect_function_pointers())
"""
    out = result(code, site_dirs=[sites.own], tables=tables, hide="system")
    assert "error" not in out, out
    assert out["path"] == out["loaded"] == own_path(sites.own, lib)
    assert out["via"] in pathfinder_via(lib, "site-packages", "pip wheel"), out
    # the entry points by "__" and the C symbol; 0 where the library lacks one
    assert out["call"][f"__{csym}"] != 0 and out["call"]["__noSuchEntryPoint"] == 0, out


@needs_pathfinder
def test_pathfinder_offering_another_cuda_major_is_passed_over(sites):
    """A CUDA 13 build never takes the libnvfatbin.so.12 cuda-pathfinder offers (it looks for
    both majors), and a 12.9 build not the .so.13: it says what it found and what it needs."""
    # the loader's own wheel search is hidden too: it would find this environment's own nvFatbin
    # wheel (a test requirement)
    out = result("report('nvfatbin')", site_dirs=[sites.other], hide="system wheels")
    other = str(sites.other.joinpath(*LIBS[OTHER]["nvfatbin"][3].split("/"), LIBS[OTHER]["nvfatbin"][0]))
    assert out["path"] is None and out["other"] == [[other, OTHER]], out
    soname = LIBS[CUDA_MAJOR]["nvfatbin"][0]
    assert out["error"].startswith(
        f"NotSupportedError: the nvfatbin library ({soname}) was not found: {other} is a CUDA {OTHER} library, and "
        f"these bindings are built for CUDA {__cuda_version__}, which needs the CUDA {CUDA_MAJOR} one ({soname}); "
        f"install it with `pip install {LIBS[CUDA_MAJOR]['nvfatbin'][1]}~={__cuda_version__}`"), out
    assert f"{other} (found by cuda-pathfinder" in out["error"]
    assert f": a CUDA {OTHER} library; this build is for CUDA {CUDA_MAJOR})" in out["error"]


@needs_pathfinder
def test_with_both_majors_installed_the_build_takes_its_own(sites):
    # cuda-pathfinder looks in nvidia/cu13/lib first: a 13 build takes its offer, a 12.9 build
    # passes it over and finds the CUDA 12 wheel's on sys.path
    out = result("report('nvfatbin')", site_dirs=[sites.other, sites.own], hide="system",
                 env={"PYTHONPATH": os.pathsep.join([str(sites.other), str(sites.own)] + sys.path)})
    assert "error" not in out, out
    assert out["loaded"] == own_path(sites.own, "nvfatbin")
    if CUDA_MAJOR == 13:
        assert out["via"] in pathfinder_via("nvfatbin", "site-packages", "pip wheel"), out
        assert [m for _, m in out["other"]] in ([], [OTHER]), out
    else:
        assert out["via"] == "pip wheel" and [m for _, m in out["other"]] == [13], out


@needs_pathfinder
def test_nvvm_of_another_major_is_told_by_its_folder(sites):
    # libnvvm.so.4 is the file name of both majors: where it lies tells them apart
    out = result("report('nvvm')", site_dirs=[sites.other], hide="wheels system")
    assert out["path"] is None and [m for _, m in out["other"]] == [OTHER], out
    assert f"is a CUDA {OTHER} library, and these bindings are built for CUDA {__cuda_version__}" in out["error"]


@needs_pathfinder
def test_a_damaged_wheel_library(tmp_path):
    soname, wheel, _, folder = LIBS[CUDA_MAJOR]["nvfatbin"]
    lib = tmp_path.joinpath(*folder.split("/"), soname)
    lib.parent.mkdir(parents=True)
    lib.write_text("not a library\n")
    out = result("report('nvfatbin')", site_dirs=[tmp_path], hide="system",
                 env={"PYTHONPATH": os.pathsep.join([str(tmp_path)] + sys.path)})
    # cuda-pathfinder fails to load it; the loader's own search finds the file and says what it is
    assert any(t.startswith("cuda-pathfinder") and "RuntimeError" in t for t in out["tried"]), out
    assert out["error"].startswith(f"NotSupportedError: the nvfatbin library could not be loaded from {lib}: "), out
    assert out["error"].endswith(f"The file is damaged or not a library for this machine: reinstall it with "
                                 f"`pip install {wheel}~={__cuda_version__}` (or `pip install cuda-bindings[all]`)")


@needs_pathfinder
def test_nvml_through_the_system_loader(tmp_path):
    _build("nvml", CUDA_MAJOR, tmp_path / "libnvidia-ml.so.1")
    code = """
from cuda.bindings._internal import nvml
report('nvml', lambda: nvml._inspect_function_pointers())
"""
    out = result(code, tables={"nvml": ["nvmlInit_v2", "nvmlDeviceGetCount_v2"]},
                 env={"LD_LIBRARY_PATH": str(tmp_path)})
    assert out["loaded"] == out["path"] == str(tmp_path / "libnvidia-ml.so.1"), out
    assert out["via"] in pathfinder_via("nvml", "system-search", "system loader"), out
    assert out["call"]["__nvmlInit_v2"] != 0 and out["call"]["__nvmlDeviceGetCount_v2"] == 0


@needs_pathfinder
@pytest.mark.skipif(CUDA_MAJOR != 13, reason="cuDLA's pip wheel is CUDA 13's (nvidia-cudla)")
def test_cudla_from_its_wheel(sites):
    out = result("report('cudla')", site_dirs=[sites.own], hide="system",
                 env={"PYTHONPATH": os.pathsep.join([str(sites.own)] + sys.path)})
    assert out["loaded"] == own_path(sites.own, "cudla"), out
    assert out["via"] in pathfinder_via("cudla", "site-packages", "pip wheel"), out


# --- the loader's own search ---------------------------------------------------------------------

def test_without_pathfinder_the_loader_looks_itself():
    code = """
sys.modules["cuda.pathfinder"] = None          # as where it is not installed
report('nvrtc')
"""
    out = result(code)
    assert out["tried"][0] == "cuda-pathfinder: not installed (`pip install cuda-pathfinder`)", out
    assert out["path"] and out["loaded"] == out["path"] and "error" not in out, out


class _FakePathfinder(types.ModuleType):
    """A `cuda.pathfinder` module whose load_nvidia_dynamic_lib answers as an older or failing
    one would."""
    __version__ = "1.0.99"

    def __init__(self, answer):
        super().__init__("cuda.pathfinder")
        self.answer = answer

    def load_nvidia_dynamic_lib(self, name):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _named(kind, text):
    return type(kind, (RuntimeError,), {})(text)


@pytest.mark.parametrize("answer, expected", [
    (_named("DynamicLibUnknownError", "Unknown library name: 'cudla'. Known names: [...]"),
     (None, "cuda-pathfinder 1.0.99: does not know 'cudla' (a newer cuda-pathfinder does)")),
    (_named("DynamicLibNotFoundError", 'Failure finding "libcudla.so.1": ...\n  listdir(...)'),
     (None, "cuda-pathfinder 1.0.99: not found")),
    (RuntimeError("Failed to dlopen /x/libcudla.so.1: file too short"),
     (None, "cuda-pathfinder 1.0.99: RuntimeError: Failed to dlopen /x/libcudla.so.1: file too short")),
    (types.SimpleNamespace(abs_path="/x/libcudla.so.1", was_already_loaded_from_elsewhere=False),
     ("/x/libcudla.so.1", "cuda-pathfinder 1.0.99")),                       # before found_via (1.4)
    (types.SimpleNamespace(abs_path="/x/libcudla.so.1", found_via="conda"),
     ("/x/libcudla.so.1", "cuda-pathfinder 1.0.99: conda")),
])
def test_what_pathfinder_answers_becomes_a_line(monkeypatch, answer, expected):
    monkeypatch.setitem(sys.modules, "cuda.pathfinder", _FakePathfinder(answer))
    assert _libpaths._pathfinder("cudla") == expected


@pytest.mark.parametrize("name, folder, major", [
    ("libnvrtc.so.13", "/any/where", 13), ("libnvrtc.so.12", "/opt/cuda-13/lib64", 12),
    ("libnvrtc.so.12.9.86", "/usr/lib", 12), ("libnvJitLink.so.13", "/x", 13),
    ("libnvfatbin.so.12", "/x", 12), ("libcudart.so.13", "/x", 13),
])
def test_the_major_of_a_library_from_its_file_name(name, folder, major):
    lib = {"libnvrtc": "nvrtc", "libnvJitLink": "nvJitLink", "libnvfatbin": "nvfatbin", "libcudart": "cudart"}
    assert _libpaths.major_of(os.path.join(folder, name), lib[name.split(".so")[0]]) == major


def test_the_major_of_a_library_from_where_it_lies(tmp_path):
    site = tmp_path / "site-packages"
    assert _libpaths.major_of(str(site / "nvidia/cu13/lib/libnvvm.so.4"), "nvvm") == 13
    assert _libpaths.major_of(str(site / "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so.4"), "nvvm") == 12
    assert _libpaths.major_of(str(site / "nvidia/cufile/lib/libcufile.so.0"), "cufile") == 12
    assert _libpaths.major_of(str(site / "nvidia/cu13/lib/libcufile.so.0"), "cufile") == 13
    assert _libpaths.major_of("/usr/lib/x86_64-linux-gnu/libnvvm.so.4", "nvvm") is None
    # a toolkit: its version.json
    (tmp_path / "cuda-12.9" / "nvvm" / "lib64").mkdir(parents=True)
    (tmp_path / "cuda-12.9" / "version.json").write_text('{"cuda": {"name": "CUDA SDK", "version": "12.9.1"}}')
    assert _libpaths.major_of(str(tmp_path / "cuda-12.9/nvvm/lib64/libnvvm.so.4"), "nvvm") == 12
    (tmp_path / "cuda-13.0" / "targets" / "x86_64-linux" / "lib").mkdir(parents=True)
    (tmp_path / "cuda-13.0" / "version.json").write_text('{"cuda": {"version": "13.0.2"}}')
    assert _libpaths.major_of(str(tmp_path / "cuda-13.0/targets/x86_64-linux/lib/libcufile.so.0"), "cufile") == 13
    (tmp_path / "broken" / "lib64").mkdir(parents=True)
    (tmp_path / "broken" / "version.json").write_text("{")
    assert _libpaths.major_of(str(tmp_path / "broken/lib64/libcufile.so.0"), "cufile") is None


def test_a_cuda_home_of_another_major_by_its_version_json(tmp_path):
    home = tmp_path / "cuda"
    _build("nvvm", OTHER, home / "nvvm" / "lib64" / "libnvvm.so.4")
    (home / "version.json").write_text(json.dumps({"cuda": {"version": f"{OTHER}.9.0"}}))
    out = result("report('nvvm')", hide="pathfinder wheels system", env={"CUDA_HOME": str(home)})
    assert out["path"] is None, out
    assert (f"{home / 'nvvm' / 'lib64' / 'libnvvm.so.4'} ($CUDA_HOME: a CUDA {OTHER} library; this build is "
            f"for CUDA {CUDA_MAJOR})") in out["tried"], out
    (home / "version.json").write_text(json.dumps({"cuda": {"version": f"{CUDA_MAJOR}.0.0"}}))
    out = result("report('nvvm')", hide="pathfinder wheels system", env={"CUDA_HOME": str(home)})
    assert out["loaded"] == str(home / "nvvm" / "lib64" / "libnvvm.so.4") and out["via"] == "$CUDA_HOME", out


def test_cuda_path_comes_before_cuda_home(tmp_path):
    # cuda-pathfinder's order: $CUDA_PATH, then $CUDA_HOME
    for name in ("path", "home"):
        _build("nvfatbin", CUDA_MAJOR, tmp_path / name / "lib64" / LIBS[CUDA_MAJOR]["nvfatbin"][0])
    out = result("report('nvfatbin')", hide="pathfinder wheels system",
                 env={"CUDA_PATH": str(tmp_path / "path"), "CUDA_HOME": str(tmp_path / "home")})
    assert out["via"] == "$CUDA_PATH" and out["loaded"].startswith(str(tmp_path / "path")), out


def test_conda_prefix(tmp_path):
    _build("cufile", CUDA_MAJOR, tmp_path / "lib" / "libcufile.so.0")
    out = result("report('cufile')", hide="pathfinder wheels system", env={"CONDA_PREFIX": str(tmp_path)})
    assert out["via"] == "$CONDA_PREFIX" and out["loaded"] == str(tmp_path / "lib" / "libcufile.so.0"), out


# --- the messages ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lib", ["nvfatbin", "cufile"])
def test_missing_new_library_says_what_to_install(lib):
    soname, wheel, versioned, _ = LIBS[CUDA_MAJOR][lib]
    out = result(f"report({lib!r})", hide="pathfinder wheels system")
    spec = f"{wheel}~={__cuda_version__}" if versioned else wheel
    assert out["error"].startswith(
        f"NotSupportedError: the {lib} library ({soname}) was not found: install it with `pip install {spec}` "
        f"(or `pip install cuda-bindings[all]`), or set CUDA_HOME to a CUDA {CUDA_MAJOR} toolkit. Looked in: "
        "cuda-pathfinder: hidden by the test; "), out
    assert out["error"].endswith(f"$CUDA_PATH (not set); $CUDA_HOME (not set); {soname} via the system loader "
                                 "(hidden by the test)")


def test_missing_nvml_says_it_comes_with_the_driver():
    out = result("report('nvml')", hide="pathfinder system")
    assert out["error"] == (
        "NotSupportedError: the nvml library (libnvidia-ml.so.1) was not found: NVML comes with the NVIDIA driver "
        "(no pip wheel has it): install the NVIDIA driver, or add the folder that holds libnvidia-ml.so.1 to the "
        "system loader's path (ldconfig, LD_LIBRARY_PATH). Looked in: cuda-pathfinder: hidden by the test; "
        "libnvidia-ml.so.1 via the system loader (hidden by the test)"), out


def test_cudla_on_x86_64_says_dla_hardware_only():
    out = result("report('cudla')", hide="pathfinder wheels system", env={"TEST_MACHINE": "x86_64"})
    assert out["error"].startswith(
        "NotSupportedError: the cudla library (libcudla.so.1) was not found: cuDLA is for DLA hardware only "
        "(NVIDIA Jetson and DRIVE, aarch64); there is no libcudla.so.1 for x86_64, so cuda.bindings.cudla cannot "
        "load on this machine. Looked in: "), out


def test_cudla_on_aarch64_says_what_to_install():
    out = result("report('cudla')", hide="pathfinder wheels system", env={"TEST_MACHINE": "aarch64"})
    wheel = LIBS[CUDA_MAJOR]["cudla"][1]
    assert out["error"].startswith(
        "NotSupportedError: the cudla library (libcudla.so.1) was not found: cuDLA comes with JetPack and DRIVE OS"
        + (f"; install it with `pip install {wheel}~={__cuda_version__}`" if wheel else "")), out
    assert "DLA hardware only" not in out["error"]


SYMBOL = """
import json
from cuda.bindings._internal.utils import FunctionNotFoundError
try:
    _loader.symbol({lib!r}, ({name!r}, 0, None, 0, {csym!r}))
except FunctionNotFoundError as e:
    print(json.dumps([str(e), e.detail, getattr(e, "__notes__", None)]))
"""


@pytest.mark.parametrize("lib, name, csym, says", [
    ("nvfatbin", "nvFatbinCreate", "nvFatbinCreate",
     f"this library reports CUDA {CUDA_MAJOR}.0; the function is newer than the library (or the library is "
     f"damaged): these bindings are built from the CUDA {__cuda_version__} headers; install a newer one with "
     f"`pip install {LIBS[CUDA_MAJOR]['nvfatbin'][1]}~={__cuda_version__}`"),
    ("cufile", "cuFileDriverOpen", "cuFileDriverOpen",
     f"this library reports cuFile {'1.15' if CUDA_MAJOR == 13 else '1.14'}; the function is newer than the library"),
    ("nvml", "nvmlDeviceGetCount", "nvmlDeviceGetCount_v2",
     "NVML comes with the NVIDIA driver: install a newer driver"),
    ("cudla", "cudlaCreateDevice", "cudlaCreateDevice", "install a newer cuDLA: it comes with JetPack and DRIVE OS"),
])
def test_library_without_the_symbol_says_what_to_install(tmp_path, lib, name, csym, says):
    soname = LIBS[CUDA_MAJOR][lib][0]
    folder = tmp_path / ("lib64" if lib != "nvml" else "driver")
    _build(lib, CUDA_MAJOR, folder / soname)
    env = {"CUDA_HOME": str(tmp_path)} if lib != "nvml" else {"LD_LIBRARY_PATH": str(folder)}
    said, msg, notes = result(SYMBOL.format(lib=lib, name=name, csym=csym), hide="pathfinder wheels", env=env)
    assert said == f"function {name} is not found"          # NVIDIA's message, bare as there ...
    assert notes is None                                     # ... ours is the error's `detail`
    assert msg.startswith(f'Function "{name}" not found in {folder / soname} (dlsym({csym!r})); '), msg
    assert says in msg, msg


def test_python_m_cuda_bindings_lists_the_new_libraries(sites):
    tables = {lib: ["x"] for lib in ("nvfatbin", "cufile", "nvml", "cudla")}
    code = """
sys.modules["cuda.pathfinder"] = None
from cuda.bindings.__main__ import _libraries
_libraries(print)            # (the fake tables are no real modules' tables: no version calls)
"""
    lines = child(code, tables=tables, hide="system", env={
        "PYTHONPATH": os.pathsep.join([str(sites.own)] + sys.path), "TEST_MACHINE": "x86_64"})
    lib = {ln.split(":")[0].strip(): ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("  ")}
    assert lib["nvFatbin"] == f"{own_path(sites.own, 'nvfatbin')} (pip wheel)", lines
    assert lib["cuFile"] == f"{own_path(sites.own, 'cufile')} (pip wheel)", lines
    assert lib["NVML"].startswith("missing: the nvml library (libnvidia-ml.so.1) was not found: NVML comes with "
                                  "the NVIDIA driver"), lines
    if CUDA_MAJOR == 13:
        assert lib["cuDLA"] == f"{own_path(sites.own, 'cudla')} (pip wheel)", lines
    lines = child("from cuda.bindings.__main__ import _libraries\n_libraries(print)", hide="pathfinder wheels system",
                  env={"TEST_MACHINE": "x86_64"}, tables={"cudla": ["x"]})
    lib = {ln.split(":")[0].strip(): ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("  ")}
    assert "DLA hardware only" in lib["cuDLA"] and lib["cuDLA"].startswith("missing: "), lines
    for label, name in (("nvFatbin", "nvfatbin"), ("cuFile", "cufile"), ("NVML", "nvml")):
        if not _loader.in_build(name):
            assert lib[label] == f"not looked for: {_loader.not_in_build(name)}", lines


# --- on a machine with an NVIDIA driver -----------------------------------------------------------

REAL_DRIVER = """
import json, warnings
from cuda.bindings import _libpaths, _loader, driver
from cuda.bindings.utils import warn_if_cuda_major_version_mismatch
found = _libpaths.locate("nvml")
_loader.library("nvml")
init = _loader.symbol("nvml", ("nvmlInit", 0, None, 0, "nvmlInit_v2"))
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    warn_if_cuda_major_version_mismatch()
print(json.dumps({"path": found.path, "via": found.via, "init": init, "driver": driver.cuDriverGetVersion()[1],
                  "warned": [str(w.message) for w in seen if w.category is UserWarning]}))
"""


@pytest.mark.gpu
def test_the_drivers_nvml_and_the_major_version_check():
    r = run_python(REAL_DRIVER)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert os.path.basename(out["path"]) == "libnvidia-ml.so.1" and out["init"] != 0, out
    assert bool(out["warned"]) is (out["driver"] // 1000 < CUDA_MAJOR), out
