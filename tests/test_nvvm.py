"""NVVM (libNVVM) for real: NVVM IR compiled to PTX on the CPU (no GPU needed).

libNVVM 13.0 reads LLVM 7 style IR: typed pointers (`float*`), the NVPTX data layout, kernels
named in `!nvvm.annotations`, and the IR version in `!nvvmir.version`.
"""
import inspect
import json
import os
import pickle
import re
import traceback

import numpy as np
import pytest

from _support import LazyModule, run_python

nvvm = LazyModule("cuda.bindings.nvvm")

HEAD = """\
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
"""
VERSION = """\
!nvvmir.version = !{!9}
!9 = !{i32 2, i32 0, i32 3, i32 2}
"""

# x[threadIdx.x] *= 2.0f
SCALE = HEAD + """
define void @scale(float* %x) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %p = getelementptr float, float* %x, i64 %i
  %v = load float, float* %p
  %w = fmul float %v, 2.0
  store float %w, float* %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @scale, !"kernel", i32 1}
""" + VERSION

# *x = sinf(*x), with sinf from libdevice
SINE = HEAD + """
declare float @__nv_sinf(float)

define void @sine(float* %x) {
entry:
  %v = load float, float* %x
  %s = call float @__nv_sinf(float %v)
  store float %s, float* %x
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @sine, !"kernel", i32 1}
""" + VERSION

BROKEN = "define void @broken( {\n"      # the parser expects a type where the brace is


@pytest.fixture
def programs():
    """Collects program handles; destroys them after the test."""
    made = []
    yield made
    for p in made:
        nvvm.destroy_program(p)


def new_program(programs, *modules):
    p = nvvm.create_program()
    assert type(p) is int and p != 0
    programs.append(p)
    for name, text in modules:
        data = text.encode()
        nvvm.add_module_to_program(p, data, len(data), name)
    return p


def compiled_result(p):
    size = nvvm.get_compiled_result_size(p)
    assert type(size) is int and size > 1
    buf = bytearray(size)
    assert nvvm.get_compiled_result(p, buf) is None
    assert buf[-1] == 0           # the size counts the closing NUL
    return bytes(buf[:-1]).decode()


def program_log(p):
    size = nvvm.get_program_log_size(p)
    buf = bytearray(size)
    nvvm.get_program_log(p, buf)
    return bytes(buf).rstrip(b"\0").decode()


def libdevice_path():
    from cuda.bindings import _libpaths
    lib, tried = _libpaths.find("nvvm")
    assert lib is not None and os.path.isabs(lib), f"libnvvm not found: {tried}"
    here = os.path.dirname(lib)
    # the wheel: nvidia/cu13/lib/libnvvm.so.4, nvidia/cu13/nvvm/libdevice; a toolkit: nvvm/lib64, nvvm/libdevice
    for cand in (os.path.join(here, "..", "nvvm", "libdevice"), os.path.join(here, "..", "libdevice")):
        path = os.path.normpath(os.path.join(cand, "libdevice.10.bc"))
        if os.path.isfile(path):
            return path
    pytest.fail(f"no libdevice.10.bc next to {lib}")


# --- the module -------------------------------------------------------------------------------


def test_versions_are_tuples_of_ints():
    v, ir = nvvm.version(), nvvm.ir_version()
    assert v == (2, 0) and all(type(x) is int for x in v)
    # NVVM IR 2.0, debug metadata 3.2: what `!nvvmir.version` above declares
    assert ir == (2, 0, 3, 2) and all(type(x) is int for x in ir)


def test_result_enum_and_error_strings():
    R = nvvm.Result
    assert [(m.name, int(m)) for m in R] == [
        ("SUCCESS", 0), ("ERROR_OUT_OF_MEMORY", 1), ("ERROR_PROGRAM_CREATION_FAILURE", 2),
        ("ERROR_IR_VERSION_MISMATCH", 3), ("ERROR_INVALID_INPUT", 4), ("ERROR_INVALID_PROGRAM", 5),
        ("ERROR_INVALID_IR", 6), ("ERROR_INVALID_OPTION", 7), ("ERROR_NO_MODULE_IN_PROGRAM", 8),
        ("ERROR_COMPILATION", 9), ("ERROR_CANCELLED", 10)]
    assert R(5) is R.ERROR_INVALID_PROGRAM
    with pytest.raises(ValueError):
        R(12345)
    assert nvvm.nvvmResult.NVVM_ERROR_COMPILATION == R.ERROR_COMPILATION   # the C names too
    assert nvvm.get_error_string(R.SUCCESS) == "NVVM_SUCCESS"
    assert nvvm.get_error_string(9) == "NVVM_ERROR_COMPILATION"
    assert nvvm.get_error_string(99) == "NVVM_ERROR not found"     # the library's own answer


def test_signatures_match_the_reference():
    expected = {
        "version": [], "ir_version": [], "create_program": [], "destroy_program": ["prog"],
        "add_module_to_program": ["prog", "buffer", "size", "name"],
        "lazy_add_module_to_program": ["prog", "buffer", "size", "name"],
        "compile_program": ["prog", "num_options", "options"],
        "verify_program": ["prog", "num_options", "options"],
        "get_compiled_result_size": ["prog"], "get_compiled_result": ["prog", "buffer"],
        "get_program_log_size": ["prog"], "get_program_log": ["prog", "buffer"],
        "get_error_string": ["result"],
    }
    for name, params in expected.items():
        fn = getattr(nvvm, name)
        assert list(inspect.signature(fn).parameters) == params, name
    assert issubclass(nvvm.nvvmError, Exception)


def test_inspect_function_pointer_sees_the_loaded_library():
    # numba-cuda's check that libNVVM is usable
    from cuda.bindings._internal import nvvm as internal
    assert internal._inspect_function_pointer("__nvvmCreateProgram") != 0
    from cuda.bindings._symbols_nvvm import SYMBOLS
    table = internal._inspect_function_pointers()
    assert len(table) == len(SYMBOLS)
    # every libNVVM 2.0 has the 13 functions of CUDA 12.9 and 13.0 (13.5 added nvvmLLVMVersion)
    assert sum(1 for v in table.values() if v) >= 13, table


# --- compiling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", [None, "compute_80", "compute_90", "compute_120"])
def test_compile_to_ptx(programs, arch):
    p = new_program(programs, ("scale.ll", SCALE))
    options = [f"-arch={arch}"] if arch else []
    assert nvvm.verify_program(p, len(options), options) is None
    assert nvvm.compile_program(p, len(options), options) is None
    ptx = compiled_result(p)
    assert ".visible .entry scale(" in ptx
    from cuda.bindings._version import CUDA_MAJOR
    default = "compute_75" if CUDA_MAJOR >= 13 else "compute_52"   # libNVVM 13's default; 12's
    sm = "sm_" + (arch or default).split("_")[1]
    assert re.search(r"^\.target (\S+)$", ptx, re.M).group(1) == sm
    assert ".address_size 64" in ptx and "%tid.x" in ptx
    assert "mul.f32" in ptx or "add.f32" in ptx                 # x * 2.0 (as x + x)
    assert program_log(p) == ""


def test_options_as_bytes_and_a_tuple(programs):
    p = new_program(programs, ("scale.ll", SCALE))
    nvvm.compile_program(p, 2, (b"-arch=compute_90", "-opt=0"))
    assert ".target sm_90" in compiled_result(p)


def test_buffers_of_every_kind(programs):
    data = SCALE.encode()
    for buf in (bytearray(data), memoryview(data), np.frombuffer(data, dtype=np.uint8)):
        p = new_program(programs)
        nvvm.add_module_to_program(p, buf, len(data), "scale.ll")
        nvvm.compile_program(p, 0, [])
        expected = compiled_result(p)
        assert ".entry scale(" in expected
    # output into a numpy array and to an int address (its size is the caller's business)
    size = nvvm.get_compiled_result_size(p)
    arr = np.zeros(size, dtype=np.uint8)
    nvvm.get_compiled_result(p, arr)
    assert arr.tobytes()[:-1].decode() == expected
    arr2 = np.zeros(size, dtype=np.uint8)
    nvvm.get_compiled_result(p, arr2.ctypes.data)
    assert arr2.tobytes() == arr.tobytes()


def test_lazy_module_gives_only_what_is_used(programs):
    with open(libdevice_path(), "rb") as f:
        libdevice = f.read()
    assert libdevice[:4] == b"BC\xc0\xde"            # LLVM bitcode, what lazy loading takes
    p = new_program(programs, ("sine.ll", SINE))
    assert nvvm.lazy_add_module_to_program(p, libdevice, len(libdevice), "libdevice") is None
    nvvm.compile_program(p, 1, ["-arch=compute_80"])
    ptx = compiled_result(p)
    assert ".visible .entry sine(" in ptx
    assert "__nv_sinf" not in ptx and ".func" not in ptx    # resolved and inlined, nothing else kept
    assert len(ptx) < len(libdevice) // 20
    # without libdevice the call stays an unresolved external
    q = new_program(programs, ("sine.ll", SINE))
    nvvm.compile_program(q, 1, ["-arch=compute_80"])
    assert ".extern .func  (.param .b32 func_retval0) __nv_sinf" in compiled_result(q)


def test_a_program_of_lazy_modules_only_has_no_module(programs):
    with open(libdevice_path(), "rb") as f:
        libdevice = f.read()
    p = new_program(programs)
    nvvm.lazy_add_module_to_program(p, libdevice, len(libdevice), "libdevice")
    with pytest.raises(nvvm.nvvmError) as excinfo:
        nvvm.compile_program(p, 0, [])
    assert excinfo.value.status == nvvm.Result.ERROR_NO_MODULE_IN_PROGRAM


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("call, status", [("verify_program", "ERROR_INVALID_IR"),
                                          ("compile_program", "ERROR_COMPILATION")])
def test_bad_ir_raises_with_the_program_log(programs, call, status):
    p = new_program(programs, ("broken.ll", BROKEN))     # text IR is parsed when it is used
    with pytest.raises(nvvm.nvvmError) as excinfo:
        getattr(nvvm, call)(p, 0, [])
    err = excinfo.value
    assert type(err.status) is int and err.status == getattr(nvvm.Result, status)
    log = program_log(p)
    assert "broken.ll" in log and "expected type" in log, log
    assert str(err) == f"{status} ({err.status})"          # NVIDIA's message, word for word ...
    assert not hasattr(err, "__notes__")                 # ... and, as there, no note
    assert err.program_log == log                        # the log is an attribute
    assert log not in "".join(traceback.format_exception(err))
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is nvvm.nvvmError and again.status == err.status and str(again) == str(err)


def test_unknown_option_names_it(programs):
    p = new_program(programs, ("scale.ll", SCALE))
    with pytest.raises(nvvm.nvvmError) as excinfo:
        nvvm.compile_program(p, 1, ["-no-such-option"])
    assert excinfo.value.status == nvvm.Result.ERROR_INVALID_OPTION
    assert "-no-such-option" in excinfo.value.program_log
    assert not hasattr(excinfo.value, "__notes__")


def test_null_program_is_invalid():
    for call, args in [("get_program_log_size", ()), ("compile_program", (0, [])), ("destroy_program", ()),
                       ("add_module_to_program", (b"x", 1, "x"))]:
        with pytest.raises(nvvm.nvvmError) as excinfo:
            getattr(nvvm, call)(0, *args)
        assert excinfo.value.status == nvvm.Result.ERROR_INVALID_PROGRAM, call
        assert str(excinfo.value) == "ERROR_INVALID_PROGRAM (5)"


def test_wrong_python_types_raise_clear_errors(programs):
    p = new_program(programs)
    data = SCALE.encode()
    cases = [
        (TypeError, lambda: nvvm.get_compiled_result_size(None)),
        (TypeError, lambda: nvvm.get_compiled_result_size("prog")),
        (TypeError, lambda: nvvm.get_compiled_result_size(1.5)),
        (OverflowError, lambda: nvvm.get_compiled_result_size(-1)),
        (ValueError, lambda: nvvm.add_module_to_program(p, SCALE, len(data), "scale.ll")),   # str: not a buffer
        (ValueError, lambda: nvvm.add_module_to_program(p, object(), len(data), "scale.ll")),
        (ValueError, lambda: nvvm.add_module_to_program(p, data, len(data) + 1, "scale.ll")),
        (OverflowError, lambda: nvvm.add_module_to_program(p, data, -1, "scale.ll")),
        (TypeError, lambda: nvvm.add_module_to_program(p, data, len(data), None)),
        (TypeError, lambda: nvvm.add_module_to_program(p, data, len(data), 5)),
        (TypeError, lambda: nvvm.compile_program(p, 1, [1.5])),                            # not an option
        (ValueError, lambda: nvvm.compile_program(p, 1, [90])),      # an address in the first page
        (RuntimeError, lambda: nvvm.compile_program(p, 2, ["-arch=compute_90"])),          # fewer than counted
        (TypeError, lambda: nvvm.get_error_string(None)),
        (TypeError, lambda: nvvm.get_error_string("NVVM_SUCCESS")),
    ]
    for exc, call in cases:
        with pytest.raises(exc):
            call()
    # nothing above reached the program: it still compiles
    nvvm.add_module_to_program(p, data, len(data), "scale.ll")
    nvvm.compile_program(p, 0, [])
    for bad in ("x" * 4096, object()):
        with pytest.raises(ValueError, match="^buf must be "):        # NVIDIA's buffer error
            nvvm.get_compiled_result(p, bad)
    with pytest.raises(ValueError, match="buffer has 16 bytes; nvvmGetCompiledResult needs"):
        nvvm.get_compiled_result(p, bytearray(16))      # refused before the library writes past it
    with pytest.raises(ValueError, match="nvvmGetProgramLog needs 1"):
        nvvm.get_program_log(p, bytearray(0))


# Run in a child: if the bindings let a destroyed program through, libNVVM reads freed memory and
# the interpreter dies (the reference package crashes on each of these calls).
_DESTROYED = r"""
import json
from cuda.bindings import nvvm
p = nvvm.create_program()
nvvm.destroy_program(p)
out = {}
ir = b"x"
for name, call in [("destroy", lambda: nvvm.destroy_program(p)),
                   ("add", lambda: nvvm.add_module_to_program(p, ir, 1, "x")),
                   ("compile", lambda: nvvm.compile_program(p, 0, [])),
                   ("log_size", lambda: nvvm.get_program_log_size(p))]:
    try:
        call()
        out[name] = "no error"
    except Exception as e:
        out[name] = type(e).__name__ + ": " + str(e)
q = nvvm.create_program()          # glibc hands the freed block back: the same address, live again
out["reused"] = q == p
out["new"] = nvvm.get_program_log_size(q)
nvvm.destroy_program(q)
print(json.dumps(out))
"""


def test_destroyed_program_raises_instead_of_crashing():
    proc = run_python(_DESTROYED)
    assert proc.returncode == 0, f"the child crashed (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("destroy", "add", "compile", "log_size"):
        assert re.match(r"ValueError: prog 0x[0-9a-f]+ was destroyed", out[name]), out
    assert out["new"] == 1, out        # a fresh program's empty log: its NUL


_NOT_FOUND = r"""
import json, os, sys
from cuda.bindings import _libpaths, nvvm
_libpaths._pathfinder = lambda libname: (None, "cuda-pathfinder: hidden by the test")
_libpaths.WHEEL_LIBS = dict.fromkeys(_libpaths.WHEEL_LIBS, os.path.join("no", "such", "folder"))      # hide the wheel's copy
if _libpaths._load("libnvvm.so.4")[0]:                          # and a system-wide one
    _libpaths._load = lambda soname: (None, "hidden by the test")
try:
    nvvm.version()
except Exception as e:
    print(json.dumps({"exc": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__], "msg": str(e)}))
else:
    print(json.dumps({"exc": None}))
"""


def test_missing_library_is_a_clear_error(tmp_path):
    proc = run_python(_NOT_FOUND, env={"CUDA_HOME": str(tmp_path), "CUDA_PATH": "",
                                       "CONDA_PREFIX": "", "LD_LIBRARY_PATH": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["exc"] == "NotSupportedError" and "RuntimeError" in out["mro"], out
    msg = out["msg"]
    assert "nvvm" in msg and "was not found" in msg, msg
    assert os.path.join(str(tmp_path), "nvvm", "lib64", "libnvvm.so.4") in msg, msg   # the toolkit's place
    assert "libnvvm.so.4 via the system loader" in msg, msg


_FROM_CUDA_HOME = r"""
import json, os
from cuda.bindings import _libpaths
real = os.environ["REAL_LIBNVVM"]
home = os.environ["CUDA_HOME"]
os.makedirs(os.path.join(home, "nvvm", "lib64"))
os.symlink(real, os.path.join(home, "nvvm", "lib64", "libnvvm.so.4"))
_libpaths._pathfinder = lambda libname: (None, "cuda-pathfinder: hidden by the test")
_libpaths.WHEEL_LIBS = dict.fromkeys(_libpaths.WHEEL_LIBS, os.path.join("no", "such", "folder"))
from cuda.bindings import _loader, nvvm
print(json.dumps({"version": nvvm.version(), "path": _loader.library("nvvm")._name}))
"""


def test_library_from_cuda_home_nvvm_lib64(tmp_path):
    # a CUDA_HOME holding (a link to) the libnvvm this machine has, wherever it was found
    from cuda.bindings import _libpaths
    real, tried = _libpaths.find("nvvm")
    if real is None or not os.path.isabs(real):
        pytest.skip(f"libnvvm is not a file found by path here ({real!r}; {tried})")
    proc = run_python(_FROM_CUDA_HOME, env={"CUDA_HOME": str(tmp_path / "cuda"), "CUDA_PATH": "",
                                               "CONDA_PREFIX": "", "REAL_LIBNVVM": real})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"version": [2, 0], "path": str(tmp_path / "cuda" / "nvvm" / "lib64" / "libnvvm.so.4")}


def test_destroying_a_handle_object_clears_it(programs):
    # the C call clears the caller's handle; a handle object is given by reference, so it reads 0
    # afterwards and the library refuses it as NULL (no program was freed twice)
    p = nvvm.nvvmProgram(nvvm.create_program())
    nvvm.destroy_program(p)
    assert int(p) == 0
    with pytest.raises(nvvm.nvvmError) as excinfo:
        nvvm.get_program_log_size(p)
    assert excinfo.value.status == nvvm.Result.ERROR_INVALID_PROGRAM
    with pytest.raises(nvvm.nvvmError):
        nvvm.get_program_log_size(0)                 # 0 is NULL, not a destroyed program


def test_null_buffers_as_in_nvidias_package(programs):
    # NVVM IR given as 0 (NULL), or as None where NVIDIA's package of the release takes it
    # (12.9.10, 13.5.0; 13.0.3 refuses None with ValueError, as ours does there): libNVVM says
    from cuda.bindings import __cuda_version__
    p = new_program(programs)
    for null in [0] if __cuda_version__ == "13.0" else [0, None]:
        for add in (nvvm.add_module_to_program, nvvm.lazy_add_module_to_program):
            with pytest.raises(nvvm.nvvmError) as e:
                add(p, null, 0, "m")
            assert str(e.value) == "ERROR_INVALID_INPUT (4)"
    if __cuda_version__ == "13.0":
        with pytest.raises(ValueError, match="^buf must be ") as e:      # NVIDIA's message ...
            nvvm.add_module_to_program(p, None, 0, "m")
        assert "not None" in e.value.detail                               # ... ours in `detail`
    # a NULL buffer to fill crashes libNVVM (a fresh, a compiled and a failed program alike):
    # refused, where NVIDIA's package passes it on
    q = new_program(programs, ("scale.ll", SCALE))
    nvvm.compile_program(q, 0, [])
    for getter in (nvvm.get_program_log, nvvm.get_compiled_result):
        for null in (None, 0):
            with pytest.raises(ValueError, match="crashes on a NULL buffer"):
                getter(q, null)


def test_options_as_an_address_or_a_sequence(programs):
    # NVIDIA's package takes the options as an int address of a C string array (0: none) or a
    # sequence of str and C string addresses
    import ctypes
    opt = ctypes.create_string_buffer(b"-opt=0")
    for options in (0, [], ("-opt=0",), [ctypes.addressof(opt)]):
        p = new_program(programs, ("scale.ll", SCALE))
        nvvm.compile_program(p, 0 if options in (0, []) else 1, options)
        assert ".entry scale" in compiled_result(p)


BUFFER_ERRORS = {      # NVIDIA's package's buffer error, by release
    "12.9": "buf must be None, a Python int representing the pointer address to a valid buffer, or a 1D "
            "contiguous {adj}buffer, of size {size}",
    "13.0": "buf must be either a Python int representing the pointer address to a valid buffer, or a 1D "
            "contiguous {adj}buffer, of size bytes",
    "13.5": "buf must be None, a Python int representing the pointer address to a valid buffer, or a "
            "contiguous {adj}buffer (a ctypes object, NumPy array, bytes, ...), of size {size}",
}


def test_a_refused_buffer_raises_nvidias_error_with_ours_in_detail(programs):
    # NVIDIA's package refuses every buffer it cannot take with one ValueError, its message the
    # same whatever was wrong, and no note; ours raises that, and says what was wrong, naming the
    # argument, in the error's `detail` attribute
    from cuda.bindings import __cuda_version__
    p = new_program(programs)
    data = SCALE.encode()
    expected = BUFFER_ERRORS[__cuda_version__]
    cases = [(lambda: nvvm.add_module_to_program(p, SCALE, 4, "x"), "", 4, "not str"),
             (lambda: nvvm.add_module_to_program(p, 1.5, 4, "x"), "", 4, "not float"),
             (lambda: nvvm.add_module_to_program(p, data[:2], 4, "x"), "", 4, "has 2 bytes, fewer than size = 4"),
             (lambda: nvvm.lazy_add_module_to_program(p, object(), 3, "x"), "", 3, "not object"),
             (lambda: nvvm.get_program_log(p, "x"), "writable ", -1, "")]
    if __cuda_version__ == "13.0":      # 13.0.3 refuses None; the others pass it as NULL
        cases.append((lambda: nvvm.add_module_to_program(p, None, 4, "x"), "", 4, "not None"))
    for call, adj, size, detail in cases:
        with pytest.raises(ValueError) as excinfo:
            call()
        assert str(excinfo.value) == expected.format(adj=adj, size=size)
        assert not hasattr(excinfo.value, "__notes__")      # NVIDIA's raises it bare
        assert "argument 'buffer'" in excinfo.value.detail and detail in excinfo.value.detail
