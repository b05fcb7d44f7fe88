"""The loader's choices that can be checked without a GPU: the per-thread default stream switch
and the symbol tables it reads (API name, ABI version, per-thread suffix, C symbol)."""
import pytest

from cuda.bindings._version import CUDA_MAJOR

from _support import run_python

from cuda.bindings import __cuda_version__, _loader, _version, _symbols_driver, _symbols_runtime, _symbols_nvjitlink, _symbols_nvvm


@pytest.mark.parametrize("value, expected", [(None, False), ("", False), ("0", False), ("1", True), (" 1 ", True),
                                             ("false", False), ("Off", False), ("true", True), ("2", True)])
def test_per_thread_default_stream_switch(monkeypatch, value, expected):
    if __cuda_version__ == "13.0":      # NVIDIA's 13.0.3: any value but the empty one is on
        assert _version.PTDS_ANY_VALUE
        expected = bool(value)
    if value is None:
        monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    else:
        monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", value)
    assert _loader.per_thread_default_stream() is expected


def _table(mod):
    return {name: (ver, suffix, ptds_ver, csym) for name, ver, suffix, ptds_ver, csym in mod.SYMBOLS}


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (cuCtxCreate is cuCtxCreate_v4, ABI 12050); the 12.x one differs (docs/cuda-changelog.md)")
def test_driver_symbols_carry_abi_versions_and_per_thread_variants():
    t = _table(_symbols_driver)
    # versioned C names and the ABI version cudaTypedefs.h gives for the declared signature
    assert t["cuMemAlloc"][0] == 3020 and t["cuMemAlloc"][3] == "cuMemAlloc_v2"
    assert t["cuCtxCreate"][0] == 12050          # the 4-parameter prototype, not the 3020 one
    # per-thread default stream variants, with their own ABI version
    assert t["cuMemcpyAsync"][1] == "_ptsz" and t["cuMemcpyAsync"][2] == 7000
    assert t["cuMemcpyHtoD"][1] == "_ptds"
    assert t["cuInit"][1] == ""                   # no stream: no variant
    # cuda.h #defines cuGraphInstantiate to cuGraphInstantiateWithFlags (3 parameters); the name
    # cuGraphInstantiate itself has only the 5-parameter ABI: the entry point is asked for by the
    # name whose signature is declared
    assert t["cuGraphInstantiateWithFlags"] == (11040, "", 0, "cuGraphInstantiateWithFlags")
    assert "cuGraphInstantiate" not in t


def test_runtime_nvjitlink_and_nvvm_symbols():
    rt = _table(_symbols_runtime)
    assert rt["cudaMemcpy"][1] == "_ptds" and rt["cudaStreamQuery"][1] == "_ptsz"
    assert rt["cudaMalloc"][1] == ""
    nj = _table(_symbols_nvjitlink)
    # the header's inline functions call the versioned entry points
    assert nj["nvJitLinkCreate"][3] == "__nvJitLinkCreate_" + __cuda_version__.replace(".", "_")
    assert nj["nvJitLinkVersion"][3] == "nvJitLinkVersion"
    nv = _table(_symbols_nvvm)
    # libnvvm exports the header's names as they are, unversioned
    assert len(nv) >= 13 and all(v == (0, "", 0, name) for name, v in nv.items()), nv


def test_inspect_function_pointers_of_nvrtc_nvjitlink_and_nvvm():
    # the private modules other libraries probe, at the reference package's paths
    from cuda.bindings._bindings import cynvrtc
    from cuda.bindings._internal import nvjitlink
    table = nvjitlink._inspect_function_pointers()
    assert set(table) == {"__" + name for name, *_ in _symbols_nvjitlink.SYMBOLS}
    assert table["__nvJitLinkCreate"] != 0 and nvjitlink._inspect_function_pointer("__nvJitLinkVersion") != 0
    assert cynvrtc._inspect_function_pointer("__nvrtcCreateProgram") != 0
    table["__nvJitLinkCreate"] = 0           # a copy: the module's own table is not changed
    assert nvjitlink._inspect_function_pointer("__nvJitLinkCreate") != 0
    with pytest.raises(KeyError):
        nvjitlink._inspect_function_pointer("nvJitLinkCreate")
    from cuda.bindings._internal import nvvm
    assert set(nvvm._inspect_function_pointers()) == {"__" + name for name, *_ in _symbols_nvvm.SYMBOLS}
    assert nvvm._inspect_function_pointer("__nvvmCreateProgram") != 0     # numba-cuda's probe


def test_inspect_function_pointers_without_a_driver_names_the_library():
    from _support import run_python
    code = ("from cuda.bindings._bindings import cydriver\n"
            "try:\n    cydriver._inspect_function_pointer('__cuInit')\n"
            "except RuntimeError as e:\n    print(type(e).__name__, e)\n"
            "else:\n    print('found')\n")
    out = run_python(code, timeout=60).stdout
    assert out.startswith("found") or ("NotSupportedError" in out and "libcuda.so.1" in out), out


def test_missing_library_and_symbol_raise_the_classes_clients_catch(monkeypatch):
    # numba-cuda and cuda.core catch these two (RuntimeError subclasses) by their import path
    from cuda.bindings._internal.utils import FunctionNotFoundError, NotSupportedError
    from cuda.bindings import _libpaths
    monkeypatch.setitem(_loader._SONAMES, "nosuchlib", "nosuchlib")
    monkeypatch.setitem(_libpaths.SONAMES, "nosuchlib", "libnosuchlib.so.1")
    monkeypatch.setattr(_libpaths, "locate", lambda name: _libpaths.Located(None, "", [f"{name} in /nowhere"], []))
    with pytest.raises(NotSupportedError, match="libnosuchlib.*/nowhere"):
        _loader.library("nosuchlib")
    assert "nosuchlib" not in _loader._libs
    with pytest.raises(FunctionNotFoundError, match="nvrtcNoSuchEntryPoint"):
        _loader.symbol("nvrtc", ("nvrtcNoSuchEntryPoint", 0, "", 0, "nvrtcNoSuchEntryPoint"))
    assert issubclass(NotSupportedError, RuntimeError) and issubclass(FunctionNotFoundError, RuntimeError)


def test_nvvm_is_looked_for_where_the_toolkit_keeps_it(monkeypatch, tmp_path):
    # a toolkit keeps libnvvm in $CUDA_HOME/nvvm/lib64, not in lib64 with the other libraries
    from cuda.bindings import _libpaths
    monkeypatch.setattr(_libpaths, "_pathfinder", lambda name: (None, "cuda-pathfinder: hidden by the test"))
    monkeypatch.setattr(_libpaths, "WHEEL_LIBS", dict.fromkeys(_libpaths.WHEEL_LIBS, "no-such-folder"))
    monkeypatch.setattr(_libpaths, "_load", lambda soname: (None, "absent"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    lib = tmp_path / "nvvm" / "lib64" / "libnvvm.so.4"
    path, tried = _libpaths.find("nvvm")
    assert path is None and str(lib) in tried and str(tmp_path / "lib64" / "libnvvm.so.4") not in tried, tried
    assert tried[-1] == "libnvvm.so.4 via the system loader (absent)"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    assert _libpaths.find("nvvm") == (str(lib), tried[:tried.index(str(lib)) + 1])


OLD_DRIVER = r"""
int cuDriverGetVersion(int *v) { *v = 12040; return 0; }
int cuInit(unsigned int flags) { return 0; }
"""


def test_a_driver_older_than_the_headers_says_which_driver_a_call_needs(tmp_path):
    """A libcuda.so.1 that reports CUDA 12.4 and exports only cuInit and cuDriverGetVersion:
    import works, the calls it has run, a call it lacks says what is needed."""
    import subprocess
    (tmp_path / "old.c").write_text(OLD_DRIVER)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "libcuda.so.1"), str(tmp_path / "old.c")],
                   check=True)
    code = """
import warnings
from cuda.bindings import driver
from cuda.bindings._internal.utils import FunctionNotFoundWarning
print(driver.cuInit(0)[0].name, driver.cuDriverGetVersion()[1])
for call in (lambda: driver.cuLogsCurrent(0), lambda: driver.cuMemAlloc(16), lambda: driver.cuLogsCurrent(0)):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        status = call()[0]
    said = [str(w.message) for w in seen if w.category is FunctionNotFoundWarning]
    print(status.name, "|", said[0] if said else "no warning")
"""
    r = run_python(code, env={"LD_LIBRARY_PATH": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "CUDA_SUCCESS 12040"
    # a call newer than the driver returns the not-found status and warns: which CUDA it needs,
    # which the driver is, what to install, what this build needs for every call
    status, said = out[1].split(" | ")
    assert status == "CUDA_ERROR_NOT_FOUND"
    assert said.startswith('Function "cuLogsCurrent" not found in libcuda.so.1'), said
    assert ("it needs a driver for CUDA 12.9 (R575) or newer, and this driver is CUDA 12.4 (cuDriverGetVersion = "
            "12040): install a newer NVIDIA driver") in said
    assert f"these bindings are built for CUDA {__cuda_version__}" in said
    assert said.endswith("the call returns CUDA_ERROR_NOT_FOUND")
    # a call the reported version should have: the library is not what it says
    assert out[2].startswith("CUDA_ERROR_NOT_FOUND | ")
    assert "this driver reports CUDA 12.4 (cuDriverGetVersion = 12040), which should have it (since CUDA 3.2)" in out[2]
    # once per function: the second call returns the status without a second warning
    assert out[3] == "CUDA_ERROR_NOT_FOUND | no warning"
    # python -m cuda.bindings lists the driver calls this driver cannot run, by the driver they need
    r = run_python("from cuda.bindings.__main__ import main; main()", env={"LD_LIBRARY_PATH": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = [ln for ln in lines if ln.startswith(f"  older than this build's CUDA {__cuda_version__}: ")]
    assert len(head) == 1 and "came with a newer CUDA and return CUDA_ERROR_NOT_FOUND here" in head[0], r.stdout
    need = [ln for ln in lines if ln.strip().split(" need ")[-1].startswith("a driver for CUDA 12.9 (R575) or newer: ")]
    assert len(need) == 1 and "cuLogsCurrent" in need[0].split(": ", 1)[1].split(", "), r.stdout


def test_runtime_per_thread_variants_follow_the_switch_and_the_ptds_layer():
    # the runtime's `_ptsz` symbols where CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM says so (as
    # the driver's), and always for the private `_ptds` layer (symbol(..., ptds=True)); a function
    # without a variant is the same symbol either way
    code = (
        "import ctypes, os\n"
        "from cuda.bindings import _loader, _symbols_runtime as s\n"
        "t = {e[0]: e for e in s.SYMBOLS}\n"
        "h = _loader.library('runtime')\n"
        "addr = lambda n: ctypes.cast(getattr(h, n), ctypes.c_void_p).value\n"
        "print(_loader.symbol('runtime', t['cudaMemcpyAsync']) == addr("
        "'cudaMemcpyAsync_ptsz' if _loader.per_thread_default_stream() else 'cudaMemcpyAsync'),"
        " _loader.symbol('runtime', t['cudaMemcpyAsync'], ptds=True) == addr('cudaMemcpyAsync_ptsz'),"
        " _loader.symbol('runtime', t['cudaMalloc'], ptds=True) == addr('cudaMalloc'),"
        " addr('cudaMemcpyAsync_ptsz') != addr('cudaMemcpyAsync'))\n")
    for env in ({}, {"CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM": "1"}):
        proc = run_python(["-c", code], env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["True"] * 4, (env, proc.stdout)


# A stand-in libcuda.so.1 that writes down what it is asked for (name, version, flags) and hands
# out a function that returns 0.
ASKING_DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static int ok(void) { return 0; }
int cuDriverGetVersion(int *v) { *v = 13050; return 0; }
int cuInit(unsigned int flags) { return 0; }
int cuGetProcAddress_v2(const char *name, void **fn, int version, uint64_t flags, int *status) {
    FILE *f = fopen(getenv("ASKED_LOG"), "a");
    fprintf(f, "%s %d %llu\n", name, version, (unsigned long long)flags);
    fclose(f);
    *fn = (void *)ok;
    if (status) *status = 0;
    return 0;
}
"""

INSPECT = ("import importlib\n"
           "for m in ('_internal.driver', '_bindings.cydriver'):\n"
           "    try:\n"
           "        d = importlib.import_module('cuda.bindings.' + m)\n"
           "    except ImportError:\n"
           "        continue\n"
           "    d._inspect_function_pointers()\n"
           "    break\n")


def _asked(driver, log, per_thread, path=None):
    env = {"LD_LIBRARY_PATH": str(driver), "ASKED_LOG": str(log), "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM": per_thread}
    if path:
        env["PYTHONPATH"] = path
    r = run_python(INSPECT, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return {(n, int(v), int(f)) for n, v, f in (line.split() for line in log.read_text().splitlines())}


@pytest.fixture(scope="module")
def asking_driver(tmp_path_factory):
    from _support import build_stand_in_driver
    return build_stand_in_driver(tmp_path_factory.mktemp("asking-driver"), ASKING_DRIVER)


def _typedefs():
    """(name, version, suffix) of every PFN typedef in this build's headers, as codegen reads them."""
    from headers.fetch import include_dir
    from codegen import libs, parse
    inc = include_dir(__cuda_version__)
    if not (inc / "cudaTypedefs.h").is_file():
        pytest.skip(f"no CUDA {__cuda_version__} headers in {inc}")
    text = "\n".join((inc / f).read_text(errors="replace") for f in libs.LIBS["driver"]["typedef_headers"])
    return {(n, v, s) for n, vs in parse.pfn_versions(text).items() for v, s, _ in vs}


@pytest.mark.parametrize("per_thread", ["", "1"])       # off and on in every build (13.0's "0" is on)
def test_cuGetProcAddress_is_asked_for_base_names_at_the_headers_abi_versions(asking_driver, tmp_path, per_thread):
    # cuGetProcAddress knows a function by its base name, the version picking the variant
    # (cuStreamGetCtx at 12050 is cuStreamGetCtx_v2); each name and version asked is one of the
    # headers' typedefs (PFN_cuStreamGetCtx_v12050), none left to the build's CUDA version; with
    # the per-thread default stream chosen every entry point is asked for with the per-thread flag
    # (as NVIDIA's asks: the driver knows which have a per-thread variant), and one that has such
    # a variant at that variant's own version (cuStreamGetCtx's at 9020, the two-parameter one)
    asked = _asked(asking_driver, tmp_path / "asked.txt", per_thread)
    table = _symbols_driver.SYMBOLS
    assert len({(n, v) for n, v, _ in asked}) == len(table), (len(asked), len(table))
    assert {f for _, _, f in asked} == {2 if per_thread else 0}
    assert not [n for n, _, _ in asked if _loader._base_name(n) != n]
    typedefs = _typedefs()
    plain = {(n, v) for n, v, s in typedefs if not s}
    variants = {(n, v) for n, v, s in typedefs if s}
    per_thread_entries = {_loader._base_name(e[0]) for e in table if e[2]} if per_thread else set()
    assert sorted((n, v) for n, v, _ in asked
                  if (n, v) not in (variants if n in per_thread_entries else plain)) == []
    if CUDA_MAJOR >= 13:
        if per_thread:
            assert ("cuStreamGetCtx", 9020, 2) in asked and ("cuStreamGetCtx", 12050, 2) in asked
            assert ("cuLaunchHostFunc", 10000, 2) in asked
        assert ("cuCtxSynchronize", 13000, 2 if per_thread else 0) in asked     # cuCtxSynchronize_v2


# Where NVIDIA's twin asks for an entry point at another version than the headers' typedef, per
# release: 13.5.0 asks these at a later one (13041 for PFN_..._v13040, 13020 for _v13010, 13000
# for cuGreenCtxGetId's _v12090), which gives the same function (the driver hands out the newest
# variant up to the version asked); 12.9.10 asks cuLogs* at 12080, before PFN_cuLogsCurrent_v12090
# (the driver would not have them at 12080: ours asks the headers' version)
ASKED_OTHERWISE_BY_NVIDIAS = {
    "13.5": (1, {"cuCheckpointOperationComplete", "cuDeviceGetCliqueCount", "cuDeviceGetCliqueInfo",
                 "cuDeviceGetFabricClusterUuid", "cuGraphAddNode", "cuGraphNodeSetParams", "cuGreenCtxGetId",
                 "cuLaunchHostFunc", "cuMemGetLocationInfo", "cuStreamBeginCaptureToCig", "cuStreamEndCaptureToCig"}),
    "12.9": (-1, {"cuLogsCurrent", "cuLogsDumpToFile", "cuLogsDumpToMemory", "cuLogsRegisterCallback",
                  "cuLogsUnregisterCallback"}),
}


@pytest.mark.parametrize("per_thread", ["0", "1"])
def test_cuGetProcAddress_is_asked_what_nvidias_asks(asking_driver, tmp_path, per_thread):
    if __cuda_version__ not in ASKED_OTHERWISE_BY_NVIDIAS:
        pytest.skip(f"NVIDIA's twin of CUDA {__cuda_version__} asks for the per-thread flag only where a variant "
                    "is named (the flag alone is compared below)")
    from conformance.run import reference_dir
    ours = _asked(asking_driver, tmp_path / "ours.txt", per_thread)
    nvidia = _asked(asking_driver, tmp_path / "nvidia.txt", per_thread, str(reference_dir(__cuda_version__)))
    side, names = ASKED_OTHERWISE_BY_NVIDIAS[__cuda_version__]
    assert {n for n, _, _ in ours ^ nvidia} == names
    for n in names:      # one version of each differs, NVIDIA's on the side given
        (o,), (v,) = [x for x in ours - nvidia if x[0] == n], [x for x in nvidia - ours if x[0] == n]
        assert (v[1] - o[1]) * side > 0 and o[2] == v[2], (o, v)


@pytest.mark.parametrize("value", ["", "0", "1", "2"])
def test_the_per_thread_switch_reads_as_nvidias(asking_driver, tmp_path, value):
    # whether cuEventRecord (which has a per-thread variant) is asked for with the per-thread flag,
    # ours against NVIDIA's twin of the build's release, for the values both accept (NVIDIA's
    # 12.9.10 and 13.5.0 raise ValueError for the empty value and for a word such as "false",
    # which ours reads as utils.envvar_bool does; 13.0.3 takes any value but the empty one as on)
    if value == "" and __cuda_version__ != "13.0":
        pytest.skip(f"NVIDIA's twin of CUDA {__cuda_version__} refuses the empty value (int(''))")
    from conformance.run import reference_dir
    ours = _asked(asking_driver, tmp_path / "ours.txt", value)
    nvidia = _asked(asking_driver, tmp_path / "nvidia.txt", value, str(reference_dir(__cuda_version__)))
    flag = lambda asked: {f for n, _, f in asked if n == "cuEventRecord"}  # noqa: E731
    assert flag(ours) == flag(nvidia) and len(flag(ours)) == 1, (flag(ours), flag(nvidia))
