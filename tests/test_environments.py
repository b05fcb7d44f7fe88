"""Broken environments: each gives one error that says what is wrong and what to install or set.

Every case runs in a fresh interpreter in which the library search is confined to what the case
sets up ($CUDA_HOME): the pip wheels' folder and the system loader are taken out of the search, so
the machine's own libraries cannot hide the case.  The stand-in
libraries are compiled here from a few lines of C (each exports only its version query).
(The driver older than the headers is tests/test_loader.py's stand-in driver reporting 12.4.)"""
import subprocess

import pytest

from _support import run_python
from cuda.bindings import _libpaths
from cuda.bindings._version import CUDA_MAJOR, __cuda_version__

SO, WHEEL = _libpaths.SONAMES, _libpaths.WHEELS     # this build's library file names and wheels
OTHER_MAJOR = 12 if CUDA_MAJOR == 13 else 13

# Confines the library search of cuda.bindings to $CUDA_HOME and $CUDA_PATH: nothing from
# cuda-pathfinder, no wheel folder, nothing from the system loader.
CONFINE = """
from cuda.bindings import _libpaths
_libpaths._pathfinder = lambda libname: (None, "cuda-pathfinder: hidden by the test")
_libpaths.WHEEL_LIBS = dict.fromkeys(_libpaths.WHEEL_LIBS, "no-such-wheel-folder")
_libpaths._load = lambda soname: (None, "not found")
"""

STAND_INS = {   # soname (under $CUDA_HOME) -> C source
    f"lib64/{SO['nvrtc']}": f"int nvrtcVersion(int *a, int *b) {{ *a = {CUDA_MAJOR}; *b = 0; return 0; }}",
    f"lib64/{SO['cudart']}": f"int cudaRuntimeGetVersion(int *v) {{ *v = {CUDA_MAJOR}000; return 0; }}",
    f"lib64/{SO['nvJitLink']}":
        f"int nvJitLinkVersion(unsigned *a, unsigned *b) {{ *a = {CUDA_MAJOR}; *b = 0; return 0; }}",
    f"nvvm/lib64/{SO['nvvm']}": "int nvvmVersion(int *a, int *b) { *a = 2; *b = 0; return 0; }",
}


def _message(code, env):
    """The last line a child prints: `type: message` of the error the case raised."""
    r = run_python(CONFINE + code, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1]


CALL = """
try:
    {call}
except Exception as e:
    print(type(e).__name__ + ": " + str(e) + "".join(" | note: " + n for n in getattr(e, "__notes__", ()))
          + (" | detail: " + e.detail if getattr(e, "detail", None) else ""))
else:
    print("no error")
"""


def _env(home=None):
    env = {"CUDA_PATH": "", "CONDA_PREFIX": ""}
    env["CUDA_HOME"] = str(home) if home is not None else ""
    return env


def test_no_driver_says_to_install_one():
    code = ("import ctypes\n_real = ctypes.CDLL\n"
            "def _no_driver(name, *a, **k):\n"
            "    if name == 'libcuda.so.1':\n"
            "        raise OSError('libcuda.so.1: cannot open shared object file: No such file or directory')\n"
            "    return _real(name, *a, **k)\n"
            "ctypes.CDLL = _no_driver\n"
            "from cuda.bindings import driver\n" + CALL.format(call="driver.cuInit(0)"))
    m = _message(code, _env())
    print(m)
    assert m.startswith("NotSupportedError: libcuda.so.1 (the NVIDIA driver library) could not be loaded")
    assert "cuda.bindings.driver needs an installed NVIDIA driver" in m


@pytest.mark.parametrize("lib,module,call,wheel", [
    ("nvrtc", "nvrtc", "nvrtc.nvrtcVersion()", WHEEL["nvrtc"]),
    ("runtime", "runtime", "runtime.cudaRuntimeGetVersion()", WHEEL["cudart"]),
    ("nvjitlink", "nvjitlink", "nvjitlink.version()", WHEEL["nvJitLink"]),
    ("nvvm", "nvvm", "nvvm.version()", WHEEL["nvvm"]),
])
def test_missing_library_says_what_to_install(lib, module, call, wheel):
    m = _message(f"from cuda.bindings import {module}\n" + CALL.format(call=call), _env())
    print(m)
    assert m.startswith(f"NotSupportedError: the {lib} library (lib")
    assert f"was not found: install it with `pip install {wheel}~={__cuda_version__}`" in m
    assert f"or set CUDA_HOME to a CUDA {CUDA_MAJOR} toolkit. Looked in: " in m
    assert "$CUDA_HOME (not set)" in m


@pytest.fixture(scope="module")
def old_libraries(tmp_path_factory):
    """A CUDA_HOME whose NVRTC, runtime, nvJitLink and NVVM export only their version query."""
    home = tmp_path_factory.mktemp("cuda_home")
    for rel, src in STAND_INS.items():
        out = home / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        c = out.with_suffix(".c")
        c.write_text(src + "\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), str(c)], check=True)
    return home


@pytest.mark.parametrize("module,call,reports,wheel", [
    ("nvrtc", "nvrtc.nvrtcCreateProgram(b'', b'', 0, [], [])", f"CUDA {CUDA_MAJOR}.0", WHEEL["nvrtc"]),
    ("runtime", "runtime.cudaGetDeviceCount()", f"CUDA {CUDA_MAJOR}.0", WHEEL["cudart"]),
    ("nvjitlink", "nvjitlink.create(1, ['-arch=sm_90'])", f"CUDA {CUDA_MAJOR}.0", WHEEL["nvJitLink"]),
    ("nvvm", "nvvm.create_program()", "NVVM 2.0", WHEEL["nvvm"]),
])
@pytest.mark.parametrize("notes", ["", "1"])
def test_library_without_the_symbol_says_what_to_install(old_libraries, module, call, reports, wheel, notes):
    env = dict(_env(old_libraries), CUDA_BINDINGS_ERROR_NOTES=notes)
    m = _message(f"from cuda.bindings import {module}\n" + CALL.format(call=call), env)
    print(m)
    # NVIDIA's message, bare as there; ours (where the library came from, what to install) is the
    # error's `detail`, and a PEP 678 note too only where CUDA_BINDINGS_ERROR_NOTES=1 asks for it
    said, detail = m.split(" | detail: ")
    assert said.startswith("FunctionNotFoundError: function ") and said.endswith(" is not found" + (
        " | note: " + detail if notes else "")), m
    assert detail.startswith("Function ")
    assert str(old_libraries) in m                          # where the library came from
    assert f"this library reports {reports}; the function is newer than the library" in m
    assert f"install a newer one with `pip install {wheel}~={__cuda_version__}`" in m


def test_cuda_home_that_does_not_exist(tmp_path):
    m = _message("from cuda.bindings import nvrtc\n" + CALL.format(call="nvrtc.nvrtcVersion()"),
                 _env(tmp_path / "no-such-toolkit"))
    print(m)
    assert f"$CUDA_HOME={tmp_path / 'no-such-toolkit'} (no such folder)" in m
    assert f"install it with `pip install {WHEEL['nvrtc']}~={__cuda_version__}`" in m


def test_cuda_home_of_another_cuda_major(tmp_path):
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / f"libnvrtc.so.{OTHER_MAJOR}").write_bytes(b"")
    m = _message("from cuda.bindings import nvrtc\n" + CALL.format(call="nvrtc.nvrtcVersion()"), _env(tmp_path))
    print(m)
    assert (f"{tmp_path / 'lib64' / SO['nvrtc']} (absent; the folder has libnvrtc.so.{OTHER_MAJOR}: another CUDA "
            f"version)") in m


def test_cuda_home_with_a_damaged_library(tmp_path):
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / SO["nvrtc"]).write_text("not a library\n")
    m = _message("from cuda.bindings import nvrtc\n" + CALL.format(call="nvrtc.nvrtcVersion()"), _env(tmp_path))
    print(m)
    assert m.startswith(f"NotSupportedError: the nvrtc library could not be loaded from "
                        f"{tmp_path / 'lib64' / SO['nvrtc']} (found through $CUDA_HOME)")
    assert (f"The file is damaged or not a library for this machine: set $CUDA_HOME to a working CUDA {CUDA_MAJOR} "
            f"toolkit, or unset it and install the library with `pip install {WHEEL['nvrtc']}~={__cuda_version__}`") in m
