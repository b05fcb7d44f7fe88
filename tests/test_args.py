"""Argument conversion happens before the driver is needed: wrong Python types raise TypeError
even on a machine without libcuda.so.1 (no GPU needed)."""
import ctypes
import json
import re

import pytest

from _support import driver, nvrtc, run_python, runtime, stand_in_env


@pytest.mark.parametrize(
    "call",
    [
        lambda: driver.cuDeviceGetName("x", 0),
        lambda: driver.cuDeviceGetName(128, "device zero"),
        lambda: driver.cuStreamQuery("abc"),
        lambda: driver.cuStreamSynchronize(object()),
        lambda: driver.cuMemAlloc("lots"),
        lambda: driver.cuModuleGetFunction(driver.CUmodule(), 42),
        lambda: driver.cuCtxSetCurrent([1]),
    ],
    ids=[
        "cuDeviceGetName-length",
        "cuDeviceGetName-dev",
        "cuStreamQuery",
        "cuStreamSynchronize",
        "cuMemAlloc",
        "cuModuleGetFunction-name",
        "cuCtxSetCurrent",
    ],
)
def test_driver_wrong_python_type_raises_typeerror(call):
    with pytest.raises(TypeError):
        call()


def test_nvrtc_wrong_python_type_raises_typeerror():
    with pytest.raises(TypeError):
        nvrtc.nvrtcCreateProgram("source as str, not bytes", b"k.cu", 0, [], [])
    with pytest.raises(TypeError):
        nvrtc.nvrtcGetPTXSize("not a program")


# --- memory a call writes --------------------------------------------------------------------------

def _read_only_views():
    # (a bytes object is taken, as NVIDIA's package takes it: see the stand-in driver's test below)
    import numpy as np
    frozen = np.zeros(16, dtype=np.uint8)
    frozen.flags.writeable = False
    return [("memoryview", memoryview(bytearray(16)).toreadonly()), ("ndarray", frozen)]


@pytest.mark.parametrize("call, argument", [
    (lambda buf: driver.cuMemcpyDtoH(buf, 0x1000, 16), "cuMemcpyDtoH() argument 'dstHost'"),
    (lambda buf: driver.cuMemcpyDtoHAsync(buf, 0x1000, 16, None), "cuMemcpyDtoHAsync() argument 'dstHost'"),
    (lambda buf: driver.cuMemcpyAtoH(buf, None, 0, 16), "cuMemcpyAtoH() argument 'dstHost'"),
    (lambda buf: runtime.cudaMemcpy(buf, 0x1000, 16, 2), "cudaMemcpy() argument 'dst'"),
    (lambda buf: runtime.cudaMemcpyAsync(buf, 0x1000, 16, 2, None), "cudaMemcpyAsync() argument 'dst'"),
    (lambda buf: runtime.cudaMemcpy2D(buf, 16, 0x1000, 16, 16, 1, 2), "cudaMemcpy2D() argument 'dst'"),
    (lambda buf: runtime.cudaMemcpyFromSymbol(buf, 0x1000, 16, 0, 2), "cudaMemcpyFromSymbol() argument 'dst'"),
    (lambda buf: runtime.cudaMemset(buf, 0, 16), "cudaMemset() argument 'devPtr'"),
    (lambda buf: driver.cuLogsDumpToMemory(None, buf, 16, 0), "cuLogsDumpToMemory() argument 'buffer'"),
    *([(lambda buf: runtime.cudaLogsDumpToMemory(None, buf, 16, 0), "cudaLogsDumpToMemory() argument 'buffer'")]
      if hasattr(runtime, "cudaLogsDumpToMemory") else []),    # the runtime's logs API came after 12.9
], ids=lambda x: "" if callable(x) else x.split("(")[0])
def test_memory_a_call_writes_must_be_writable(call, argument):
    """A memcpy's destination, a memset's target and a log buffer are written by the library:
    a read-only view or array raises TypeError naming the argument before any library is needed.
    (A bytes object is written in place, as NVIDIA's package does.)"""
    for kind, buf in _read_only_views():
        with pytest.raises(TypeError, match=rf"^{re.escape(argument)}: the call writes into this buffer, "
                                            rf"which is read-only \({kind}\)"):
            call(buf)
        assert bytes(buf) == bytes(16), kind


def test_memory_a_call_only_reads_may_be_read_only():
    for kind, buf in _read_only_views():
        try:
            driver.cuMemcpyHtoD(0, buf, 16)               # the source: read, so read-only is fine
        except (RuntimeError, TypeError) as e:         # no driver here: what it raises is not a TypeError
            assert not isinstance(e, TypeError), (kind, e)


def test_log_buffer_must_hold_the_size_it_is_given():
    with pytest.raises(ValueError, match=r"^cuLogsDumpToMemory\(\) argument 'buffer': holds 8 bytes, fewer than size = 16$"):
        driver.cuLogsDumpToMemory(None, bytearray(8), 16, 0)


def test_nvrtc_getters_still_fill_bytes_and_spare_the_shared_one_byte_object():
    """NVIDIA's documented idiom `log = b" " * size; nvrtcGetProgramLog(prog, log)` fills a bytes
    object in place.  A log of size 1 (a successful compile: only the NUL) makes `b" " * 1`, which
    CPython shares: the NUL goes to a scratch byte, not into every b" " of the process."""
    err, prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])
    try:
        assert int(nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=compute_75"])[0]) == 0
        err, size = nvrtc.nvrtcGetProgramLogSize(prog)
        assert size == 1
        log = b" " * size
        assert int(nvrtc.nvrtcGetProgramLog(prog, log)[0]) == 0
        assert log[0] == 32 and bytes([32])[0] == 32
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * size
        assert int(nvrtc.nvrtcGetPTX(prog, ptx)[0]) == 0
        assert b".entry" in ptx and ptx.endswith(b"\0")              # filled in place
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


WRITES_ARRIVE = r"""
import ctypes, json
import numpy as np
from cuda.bindings import driver as d
stub = ctypes.CDLL("libcuda.so.1")
out = {}
for kind, make in (("bytearray", lambda: bytearray(16)), ("ndarray", lambda: np.zeros(16, np.uint8)),
                   ("bytes", lambda: bytes(16))):       # (bytes: written in place, as NVIDIA's package does)
    buf = make()
    stub.cuStubFill(1, 8)                      # the log buffer is the second argument
    err, it, size = d.cuLogsDumpToMemory(None, buf, 16, 0)
    out["logs " + kind] = [err.name, bytes(buf).hex()]
    buf = make()
    stub.cuStubFill(0, 8)                      # the destination is the first
    err, = d.cuMemcpyDtoH(buf, 0x1000, 8)
    out["dtoh " + kind] = [err.name, bytes(buf).hex()]
    stub.cuStubFill(-1, 0)
print(json.dumps(out))
"""


def test_what_the_driver_writes_arrives_in_the_callers_buffer(stand_in_driver):
    """The stand-in writes 8 pattern bytes where the call points it: into the caller's own buffer
    (cuLogsDumpToMemory wrote into a copy of a bytearray, so the caller saw nothing)."""
    proc = run_python(WRITES_ARRIVE, env=stand_in_env(stand_in_driver, 0))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    written = (bytes(range(1, 9)) + bytes(8)).hex()
    assert got == {f"{call} {kind}": ["CUDA_SUCCESS", written]
                   for call in ("logs", "dtoh") for kind in ("bytearray", "ndarray", "bytes")}


# --- arguments as NVIDIA's package takes them, and what the driver receives --------------------------

DRIVER_RECEIVES = r"""
import ctypes, json
from cuda.bindings import driver as d, _version
stub = ctypes.CDLL("libcuda.so.1")
stub.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
def regs(n):
    a = stub.cuStubArgs()
    return [a[i] for i in range(n)]
out = {}
d.cuStreamQuery(1.7)
out["float handle"] = regs(1)
d.cuGraphicsMapResources(2, None, 16)
out["none with a count"] = regs(3)
d.cuGraphicsMapResources(2, [], 16)
out["empty with a count"] = regs(3)
d.cuLinkCreate(0, None, None)
out["jit values none"] = regs(3)[2] != 0
d.cuLinkCreate(0, [], "abc")
out["jit values str"] = regs(3)[2] != 0
d.cuTexRefSetBorderColor(16, 2.5)
out["border color"] = ctypes.c_float.from_address(regs(2)[1]).value
b = bytes(16)
d.cuMemcpyDtoH(b, 0x1000, 16)
out["bytes destination"] = regs(1)[0] == ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value
d.cuMemRangeGetAttributes(bytes([4]), [d.CUmem_range_attribute(1)], 1, 0x1000, 4)
out["sizes from bytes"] = ctypes.c_size_t.from_address(regs(2)[1]).value
try:
    d.cuMemcpyHtoD(0x1000, 16.9, 1)
    out["float void*"] = regs(2)[1]
except TypeError:
    out["float void*"] = "TypeError"
out["float address"] = bool(getattr(_version, "FLOAT_ADDRESS", False))
print(json.dumps(out))
"""


def test_what_the_driver_receives_for_the_inputs_nvidias_package_takes(stand_in_driver):
    """A float handle is its int; None and an empty list are NULL with the count given (the
    driver checks it); JIT option values None or a str (no options) are an empty array; one
    float for the border color is its address; a bytes object is written in place; a float
    `void*` is an address where NVIDIA's package of the release takes one (12.9.10, 13.5.0)."""
    proc = run_python(DRIVER_RECEIVES, env=stand_in_env(stand_in_driver, 0))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["float handle"] == [1]
    assert got["none with a count"] == got["empty with a count"] == [2, 0, 16]
    assert got["jit values none"] and got["jit values str"]
    assert got["border color"] == 2.5
    assert got["bytes destination"] and got["sizes from bytes"] == 4
    assert got["float void*"] == (16 if got["float address"] else "TypeError")


HANDLE_REFS = r"""
import ctypes, json
from cuda.bindings import driver as d
stub = ctypes.CDLL("libcuda.so.1")
stub.cuStubArgs.restype = ctypes.POINTER(ctypes.c_uint64)
def reg0():
    return stub.cuStubArgs()[0]
out = {}
conn = d.CUeglStreamConnection(5)
d.cuEGLStreamConsumerDisconnect(conn)
out["object"] = reg0() == conn.getPtr()
cell = ctypes.c_void_p(7)
d.cuEGLStreamConsumerDisconnect(ctypes.addressof(cell))
out["address"] = reg0() == ctypes.addressof(cell)
d.cuEGLStreamConsumerDisconnect(None)
out["none"] = reg0()
d.cuEGLStreamConsumerDisconnect(0)
out["zero"] = reg0()
err, it = d.cuLogsDumpToFile(None, b"log.txt", 0)
out["iterator none"] = [reg0(), it is None]
mine = d.CUlogIterator(3)
err, it = d.cuLogsDumpToFile(mine, b"log.txt", 0)
out["iterator object"] = [reg0() == mine.getPtr(), it is mine]
err, it = d.cuLogsDumpToFile(3, b"log.txt", 0)
out["iterator int"] = [reg0() != 0, repr(it)]
print(json.dumps(out))
"""


def test_pointer_to_handle_and_log_iterator_arguments(stand_in_driver):
    """A pointer-to-handle argument (the EGL calls' `CUeglStreamConnection *conn`) is a handle
    object's own storage, or, as NVIDIA's tuple-style package takes it, an int: the address of
    the handle (None and 0: NULL).  A log iterator is its object's storage (the call advances it,
    and returns it), None is NULL (returned as None), an int a value passed by reference."""
    proc = run_python(HANDLE_REFS, env=stand_in_env(stand_in_driver, 0))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"object": True, "address": True, "none": 0, "zero": 0, "iterator none": [0, True],
                   "iterator object": [True, True], "iterator int": [True, "<CUlogIterator 3>"]}


def test_nvrtc_program_given_by_address():
    """nvrtcDestroyProgram takes the program object, or (as NVIDIA's) the address of a program
    variable, which it clears; an address in the first page holds none (ValueError, where the
    library would crash), and a variable holding NULL is the library's to refuse."""
    err, prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])
    cell = ctypes.c_void_p(int(prog))
    assert nvrtc.nvrtcDestroyProgram(ctypes.addressof(cell)) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
    assert cell.value is None
    assert nvrtc.nvrtcDestroyProgram(ctypes.addressof(cell))[0] == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM
    assert nvrtc.nvrtcDestroyProgram(None)[0] == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM
    with pytest.raises(ValueError, match="not the address of an NVRTC program"):
        nvrtc.nvrtcDestroyProgram(16)


def test_nvrtc_flow_callback_is_an_address():
    """nvrtcSetFlowCallback's callback (`int (*)(void*, void*)`, no typedef) is a void*, as in
    NVIDIA's package: a ctypes function, an int address or a buffer."""
    import ctypes
    cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(lambda a, b: 0)
    err, prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])
    try:
        for callback in (cb, ctypes.cast(cb, ctypes.c_void_p).value, bytes(8)):
            assert nvrtc.nvrtcSetFlowCallback(prog, callback, None) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
        assert nvrtc.nvrtcSetFlowCallback(prog, None, None)[0] == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    # NVRTC refuses a NULL callback before it reads the program, so a program in the first page
    # gets that status, as through NVIDIA's (overrides.HANDLE_READ_UNLESS_NULL); with a callback
    # NVRTC would read it and crash, which ours refuses
    assert nvrtc.nvrtcSetFlowCallback(1, None, None) == (nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT,)
    with pytest.raises(ValueError, match="prog 0x1 is not an NVRTC program"):
        nvrtc.nvrtcSetFlowCallback(1, cb, None)


def test_what_nvidias_package_refuses_is_still_refused():
    # a list shorter than its count: the driver would read past the copy (NVIDIA's reads past it)
    with pytest.raises(RuntimeError, match="resources has 1 items, fewer than count = 5"):
        driver.cuGraphicsMapResources(5, [driver.CUgraphicsResource(2)], 16)
    with pytest.raises(TypeError, match="optionValues must be a list, not str"):
        driver.cuLinkCreate(1, [driver.CUjit_option.CU_JIT_MAX_REGISTERS], "abc")
    with pytest.raises(TypeError):
        driver.cuLinkCreate(0, [], 2.5)                       # not a list of values
    if hasattr(runtime, "cudaMemDiscardBatchAsync"):           # (CUDA 13)
        with pytest.raises(TypeError, match="dptrs must be a list, not float"):
            runtime.cudaMemDiscardBatchAsync(2.5, [1], 1, 0, None)   # a counted void**
    with pytest.raises(TypeError):
        driver.cuEGLStreamConsumerDisconnect(1.5)             # a pointer to a handle
    with pytest.raises(TypeError, match="kernelParams"):
        driver.cuLaunchKernel(16, 1, 1, 1, 1, 1, 1, 0, None, 2.5, None)
    with pytest.raises(TypeError):
        driver.cuStreamQuery("1")


def test_the_float_handle_and_text_sequence_rules_stay_in_the_tuple_style_modules():
    import ctypes
    from cuda.bindings import nvjitlink
    with pytest.raises(TypeError):
        nvjitlink.get_error_log_size(1.5)        # NVIDIA's nvJitLink takes an int handle only
    with pytest.raises(TypeError):
        nvjitlink.destroy(1.5)
    with pytest.raises(nvjitlink.nvJitLinkError):
        nvjitlink.create(1, (ctypes.c_char * 3)())   # one-character options, as NVIDIA's reads them
    # NVRTC, as NVIDIA's, iterates a sequence of text: a ctypes char array's items are bytes
    err, prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, (ctypes.c_char * 3)(), [])
    assert int(err) == 0
    nvrtc.nvrtcDestroyProgram(prog)
