"""cuda.bindings.checked: the tuple-style functions returning only their outputs and raising.

NVRTC runs here for real; the driver runs on the stand-in libcuda.so.1 of the conformance suite
(every entry point returns the status CUDA_STUB_STATUS), in child processes; the runtime needs a
GPU (marked)."""
import inspect
import pickle
import pydoc
import textwrap
import tracemalloc

import pytest

from _support import run_python, stand_in_env

from cuda.bindings import driver, nvrtc, runtime
from cuda.bindings import checked
from cuda.bindings.checked import driver as cdriver
from cuda.bindings.checked import nvrtc as cnvrtc
from cuda.bindings.checked import runtime as cruntime

GOOD = b'extern "C" __global__ void k(int *x) { x[0] = 1; }'
BAD = b'extern "C" __global__ void k(int *x) { x[0] = y; }'


def test_outputs_come_back_bare_none_or_as_a_tuple():
    assert cnvrtc.nvrtcVersion() == nvrtc.nvrtcVersion()[1:]          # two outputs: a tuple
    prog = cnvrtc.nvrtcCreateProgram(GOOD, b"k.cu", 0, [], [])         # one: bare
    assert isinstance(prog, nvrtc.nvrtcProgram)
    assert cnvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=compute_80"]) is None   # none: None
    size = cnvrtc.nvrtcGetPTXSize(prog)
    assert isinstance(size, int) and size > 0
    ptx = bytearray(size)
    assert cnvrtc.nvrtcGetPTX(prog, ptx) is None
    assert b".visible .entry k" in ptx
    assert cnvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION) == b"NVRTC_ERROR_COMPILATION"
    assert cnvrtc.nvrtcDestroyProgram(prog) is None


def test_a_failed_status_raises_the_library_exception_with_its_log():
    prog = cnvrtc.nvrtcCreateProgram(BAD, b"bad.cu", 0, [], [])
    with pytest.raises(checked.NVRTCError) as info:
        cnvrtc.nvrtcCompileProgram(prog, 0, [])
    e = info.value
    assert isinstance(e, checked.StatusError)
    assert e.status is nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION
    assert e.name == "NVRTC_ERROR_COMPILATION"
    assert e.message == "NVRTC_ERROR_COMPILATION"       # NVRTC's own text for it
    assert e.function == "nvrtcCompileProgram"
    assert 'identifier "y" is undefined' in e.log
    assert str(e).startswith("nvrtcCompileProgram: NVRTC_ERROR_COMPILATION (6)\n")
    assert e.log in str(e)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is checked.NVRTCError and again.status == e.status and again.log == e.log
    # the status of a call without a log
    with pytest.raises(checked.NVRTCError) as info:
        cnvrtc.nvrtcGetPTXSize(0)
    assert info.value.status is nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_PROGRAM
    assert info.value.log is None


def test_arguments_are_the_tuple_functions_own():
    prog = cnvrtc.nvrtcCreateProgram(GOOD, b"k.cu", 0, [], [])
    cnvrtc.nvrtcCompileProgram(prog=prog, numOptions=0, options=[])     # keywords pass through
    assert cnvrtc.nvrtcGetPTXSize(prog=prog) == nvrtc.nvrtcGetPTXSize(prog)[1]
    for call in (lambda: cnvrtc.nvrtcCreateProgram("not bytes", b"k.cu", 0, [], []),
                 lambda: cnvrtc.nvrtcGetPTXSize(prog, 1),
                 lambda: cnvrtc.nvrtcGetPTXSize(nope=prog)):
        with pytest.raises(TypeError) as mine:
            call()
        assert "checked" not in str(mine.value)


def test_every_other_name_is_the_tuple_modules_own():
    assert cnvrtc.nvrtcResult is nvrtc.nvrtcResult
    assert cnvrtc.nvrtcProgram is nvrtc.nvrtcProgram
    assert cdriver.CUDA_MEMCPY2D is driver.CUDA_MEMCPY2D
    assert cdriver.CU_IPC_HANDLE_SIZE == driver.CU_IPC_HANDLE_SIZE
    assert cruntime.make_cudaExtent is runtime.make_cudaExtent        # no status: not wrapped
    assert {n for n in dir(driver) if n.startswith("cu")} <= set(dir(cdriver))
    assert cnvrtc.NVRTCError is checked.NVRTCError
    with pytest.raises(AttributeError, match="cuda.bindings.checked.driver.*cuNoSuchCall"):
        cdriver.cuNoSuchCall
    # every function that returns a status has a checked form, and only those
    assert callable(cdriver.cuGetErrorName) and callable(cruntime.getLocalRuntimeVersion)
    assert cdriver.cuMemAlloc is cdriver.cuMemAlloc                  # made once


def test_introspection_help_and_pickling():
    f = cdriver.cuMemAlloc
    assert f.__name__ == "cuMemAlloc" and f.__module__ == "cuda.bindings.checked.driver"
    assert f.__wrapped__ is driver.cuMemAlloc
    assert inspect.signature(f) == inspect.signature(driver.cuMemAlloc)
    assert inspect.isroutine(f)
    assert repr(f) == "<checked function cuda.bindings.checked.driver.cuMemAlloc>"
    text = pydoc.render_doc(f, renderer=pydoc.plaintext)
    assert "cuMemAlloc(bytesize)" in text and "a failed status raises CUDAError" in text
    doc = inspect.getdoc(f).splitlines()
    assert doc[0] == "Allocates device memory." and doc[2].startswith("The checked form of cuda.bindings.driver.cuMemAlloc")
    assert "\nParameters\n----------\nbytesize : int\n" in inspect.getdoc(f)
    assert pickle.loads(pickle.dumps(f)) is f


def test_checked_calls_do_not_leak():
    prog = cnvrtc.nvrtcCreateProgram(GOOD, b"k.cu", 0, [], [])
    version, size_of = cnvrtc.nvrtcVersion, cnvrtc.nvrtcGetPTXSize

    def batch():
        for _ in range(20000):
            version()
            try:
                size_of(prog)        # not compiled: fails
            except checked.NVRTCError:
                pass
    batch()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    batch()
    batch()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 64 * 1024, f"{grown} bytes kept after 80,000 checked calls"


def _on_stand_in(folder, status, code):
    r = run_python(textwrap.dedent(code), env=stand_in_env(folder, status))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip().splitlines()


def test_driver_calls_on_the_stand_in_driver(stand_in_driver):
    out = _on_stand_in(stand_in_driver, 0, """
        from cuda.bindings import driver
        from cuda.bindings.checked import driver as d
        print(type(d.cuCtxGetCurrent()).__name__, d.cuDeviceGetCount(), d.cuInit(0))
        print(d.cuCtxGetStreamPriorityRange())
    """)
    assert out == ["CUcontext 0 None", "(0, 0)"]
    out = _on_stand_in(stand_in_driver, 2, """
        import pickle
        from cuda.bindings import driver
        from cuda.bindings.checked import driver as d, CUDAError
        try:
            d.cuMemAlloc(1 << 20)
        except CUDAError as e:
            print(e.status is driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, e.name, e.function, e.message)
            print(e)
        try:
            d.cuCtxSynchronize()
        except CUDAError as e:
            print(repr(pickle.loads(pickle.dumps(e)).status))
    """)
    # the stand-in's cuGetErrorString fails too: no description
    assert out == ["True CUDA_ERROR_OUT_OF_MEMORY cuMemAlloc None", "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)",
                   "<CUresult.CUDA_ERROR_OUT_OF_MEMORY: 2>"]
    out = _on_stand_in(stand_in_driver, 12345, """
        from cuda.bindings.checked import driver as d, CUDAError
        try:
            d.cuCtxGetCurrent()
        except CUDAError as e:
            print(e.status, e.name)
    """)
    assert out == ["12345 12345"]          # a status no enum member names


@pytest.mark.gpu
def test_runtime_and_driver_on_the_gpu():
    cdriver.cuInit(0)
    dev = cdriver.cuDeviceGet(0)
    assert isinstance(dev, driver.CUdevice)
    ptr = cruntime.cudaMalloc(1024)
    assert isinstance(ptr, int) and ptr
    cruntime.cudaMemset(ptr, 7, 1024)
    host = bytearray(16)
    cruntime.cudaMemcpy(host, ptr, 16, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost)
    assert host == b"\x07" * 16
    cruntime.cudaFree(ptr)
    with pytest.raises(checked.CUDARuntimeError) as info:
        cruntime.cudaMemcpy(host, 0, 16, 12345)
    assert info.value.status is runtime.cudaError_t.cudaErrorInvalidMemcpyDirection
    assert info.value.message == "invalid copy direction for memcpy"
    with pytest.raises(checked.CUDAError) as info:
        cdriver.cuDeviceGet(10 ** 6)
    assert info.value.status is driver.CUresult.CUDA_ERROR_INVALID_DEVICE
    assert info.value.message == "invalid device ordinal"
