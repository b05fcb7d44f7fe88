"""Driver API against a real device (skipped with the reason when no GPU is usable)."""
import ctypes
import threading
import time

import numpy as np
import pytest

from cuda.bindings._version import CUDA_MAJOR

from _support import assert_failed, ok

pytestmark = pytest.mark.gpu

KERNELS = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void noop() {}

extern "C" __global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"""

N = 1 << 16
BLOCK = 256


@pytest.fixture(params=["ptx", "cubin"])
def module(request, cu, nvrtc_compile):
    image = nvrtc_compile(KERNELS, cu.arch, fmt=request.param)
    if request.param == "cubin":
        assert image[:4] == b"\x7fELF"
    else:
        assert b".entry" in image
    mod = ok(cu.driver.cuModuleLoadData(image))
    assert isinstance(mod, cu.driver.CUmodule) and int(mod) != 0
    yield mod
    ok(cu.driver.cuModuleUnload(mod))


@pytest.fixture
def cubin_module(cu, nvrtc_compile):
    mod = ok(cu.driver.cuModuleLoadData(nvrtc_compile(KERNELS, cu.arch, fmt="cubin")))
    yield mod
    ok(cu.driver.cuModuleUnload(mod))


@pytest.fixture
def stream(cu):
    s = ok(cu.driver.cuStreamCreate(cu.driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    assert isinstance(s, cu.driver.CUstream) and int(s) != 0
    yield s
    ok(cu.driver.cuStreamDestroy(s))


class DeviceArrays:
    """x and y on the device, filled from host arrays; freed by the fixture."""

    def __init__(self, driver, n):
        self.driver = driver
        self.n = n
        self.nbytes = n * 4
        rng = np.random.default_rng(1234)
        self.hx = rng.standard_normal(n).astype(np.float32)
        self.hy = rng.standard_normal(n).astype(np.float32)
        self.dx = ok(driver.cuMemAlloc(self.nbytes))
        self.dy = ok(driver.cuMemAlloc(self.nbytes))
        ok(driver.cuMemcpyHtoD(self.dx, self.hx, self.nbytes))
        ok(driver.cuMemcpyHtoD(self.dy, self.hy, self.nbytes))

    def result_y(self):
        out = np.empty(self.n, dtype=np.float32)
        ok(self.driver.cuMemcpyDtoH(out, self.dy, self.nbytes))
        return out

    def free(self):
        ok(self.driver.cuMemFree(self.dx))
        ok(self.driver.cuMemFree(self.dy))


@pytest.fixture
def arrays(cu):
    a = DeviceArrays(cu.driver, N)
    yield a
    a.free()


def launch_saxpy(driver, func, stream, params, n=N):
    grid = (n + BLOCK - 1) // BLOCK
    return driver.cuLaunchKernel(func, grid, 1, 1, BLOCK, 1, 1, 0, stream, params, 0)


def saxpy_pointer_array(a, dx, dy, n):
    """Kernel arguments the numpy way: one array per value, then an array of their addresses."""
    holders = [
        np.array([a], dtype=np.float32),
        np.array([int(dx)], dtype=np.uint64),
        np.array([int(dy)], dtype=np.uint64),
        np.array([n], dtype=np.uint64),
    ]
    ptrs = np.array([h.ctypes.data for h in holders], dtype=np.uint64)
    return holders, ptrs


# --- kernels, modules, launches ------------------------------------------------------------------


def test_saxpy_numpy_pointer_array(cu, module, stream, arrays):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(module, b"saxpy"))
    assert isinstance(func, d.CUfunction) and int(func) != 0
    holders, ptrs = saxpy_pointer_array(2.5, arrays.dx, arrays.dy, N)
    ok(launch_saxpy(d, func, stream, ptrs))
    ok(d.cuStreamSynchronize(stream))
    expected = 2.5 * arrays.hx + arrays.hy
    np.testing.assert_allclose(arrays.result_y(), expected, rtol=1e-6, atol=1e-5)
    # the same arguments given as an int address of the void*[]
    ok(launch_saxpy(d, func, stream, ptrs.ctypes.data))
    ok(d.cuStreamSynchronize(stream))
    np.testing.assert_allclose(arrays.result_y(), 2.5 * arrays.hx + expected, rtol=1e-5, atol=1e-5)
    del holders


def test_saxpy_values_and_ctypes_types(cu, module, stream, arrays):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(module, b"saxpy"))
    params = ((-1.5, arrays.dx, arrays.dy, N), (ctypes.c_float, None, None, ctypes.c_size_t))
    ok(launch_saxpy(d, func, stream, params))
    ok(d.cuStreamSynchronize(stream))
    np.testing.assert_allclose(arrays.result_y(), -1.5 * arrays.hx + arrays.hy, rtol=1e-6, atol=1e-5)


def test_saxpy_partial_n_leaves_rest_untouched(cu, cubin_module, stream, arrays):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(cubin_module, b"saxpy"))
    half = N // 2
    params = ((3.0, int(arrays.dx), int(arrays.dy), half), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t))
    ok(launch_saxpy(d, func, stream, params))
    ok(d.cuStreamSynchronize(stream))
    y = arrays.result_y()
    np.testing.assert_allclose(y[:half], 3.0 * arrays.hx[:half] + arrays.hy[:half], rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(y[half:], arrays.hy[half:])


@pytest.mark.parametrize("no_args", [None, 0])
def test_launch_without_arguments_on_the_legacy_stream(cu, cubin_module, no_args):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(cubin_module, b"noop"))
    ok(d.cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, d.CU_STREAM_LEGACY, no_args, 0))
    ok(d.cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, None, no_args, 0))
    ok(d.cuCtxSynchronize())


def test_func_get_attribute(cu, cubin_module):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(cubin_module, b"saxpy"))
    value = ok(d.cuFuncGetAttribute(d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, func))
    assert isinstance(value, int) and value > 0


def test_missing_function_is_not_found_with_none_output(cu, cubin_module):
    d = cu.driver
    assert_failed(d.cuModuleGetFunction(cubin_module, b"nope"), d.CUresult.CUDA_ERROR_NOT_FOUND)


# --- memory ----------------------------------------------------------------------------------------


def test_mem_alloc_free_and_sync_copies(cu):
    d = cu.driver
    dptr = ok(d.cuMemAlloc(4096))
    assert isinstance(dptr, d.CUdeviceptr) and int(dptr) != 0
    try:
        src = np.arange(1024, dtype=np.uint32)
        ok(d.cuMemcpyHtoD(dptr, src, src.nbytes))
        back = np.zeros_like(src)
        ok(d.cuMemcpyDtoH(back, dptr, back.nbytes))
        np.testing.assert_array_equal(back, src)
        # int addresses and bytes-like objects are void* too
        raw = bytearray(16)
        ok(d.cuMemcpyDtoH(raw, dptr, 16))
        assert bytes(raw) == src[:4].tobytes()
        out = np.zeros(4, dtype=np.uint32)
        ok(d.cuMemcpyDtoH(out.ctypes.data, int(dptr) + 16, 16))
        np.testing.assert_array_equal(out, src[4:8])
        ok(d.cuMemsetD32(dptr, 0xABCD1234, 1024))
        ok(d.cuMemcpyDtoH(back, dptr, back.nbytes))
        assert (back == 0xABCD1234).all()
    finally:
        ok(d.cuMemFree(dptr))


def test_async_copies_on_a_stream(cu, stream):
    d = cu.driver
    n = 1 << 20
    src = np.arange(n, dtype=np.float32)
    back = np.zeros_like(src)
    dptr = ok(d.cuMemAlloc(src.nbytes))
    try:
        ok(d.cuMemcpyHtoDAsync(dptr, src, src.nbytes, stream))
        ok(d.cuMemcpyDtoHAsync(back, dptr, back.nbytes, stream))
        ok(d.cuStreamSynchronize(stream))
        np.testing.assert_array_equal(back, src)
    finally:
        ok(d.cuMemFree(dptr))


def test_memcpy2d_pitched(cu):
    d = cu.driver
    height, width = 33, 50
    host = np.arange(height * width, dtype=np.float32).reshape(height, width)
    row_bytes = width * 4
    dptr, pitch = ok(d.cuMemAllocPitch(row_bytes, height, 4))
    assert pitch >= row_bytes
    try:
        ok(d.cuMemsetD8(dptr, 0, pitch * height))
        up = d.CUDA_MEMCPY2D()
        up.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_HOST
        up.srcHost = host
        up.srcPitch = row_bytes
        up.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
        up.dstDevice = dptr
        up.dstPitch = pitch
        up.WidthInBytes = row_bytes
        up.Height = height
        ok(d.cuMemcpy2D(up))

        # the whole pitched block, linear: rows at `pitch` strides, padding still zero
        flat = np.zeros(pitch * height, dtype=np.uint8)
        ok(d.cuMemcpyDtoH(flat, dptr, flat.nbytes))
        rows = flat.reshape(height, pitch)
        np.testing.assert_array_equal(rows[:, :row_bytes].view(np.float32), host)
        assert not rows[:, row_bytes:].any()

        back = np.zeros_like(host)
        down = d.CUDA_MEMCPY2D()
        down.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
        down.srcDevice = dptr
        down.srcPitch = pitch
        down.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_HOST
        down.dstHost = back
        down.dstPitch = row_bytes
        down.WidthInBytes = row_bytes
        down.Height = height
        ok(d.cuMemcpy2D(down))
        np.testing.assert_array_equal(back, host)
    finally:
        ok(d.cuMemFree(dptr))


def test_pointer_attributes(cu):
    d = cu.driver
    dptr = ok(d.cuMemAlloc(256))
    try:
        mem_type = ok(d.cuPointerGetAttribute(d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr))
        assert mem_type == d.CUmemorytype.CU_MEMORYTYPE_DEVICE
        ordinal = ok(d.cuPointerGetAttribute(d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr))
        assert isinstance(ordinal, int) and ordinal == 0
    finally:
        ok(d.cuMemFree(dptr))


def test_pointer_attribute_of_unknown_address_fails_with_none(cu):
    d = cu.driver
    res = d.cuPointerGetAttribute(d.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, 0x10)
    assert isinstance(res, tuple) and len(res) == 2
    assert isinstance(res[0], d.CUresult) and res[0] != d.CUresult.CUDA_SUCCESS, res
    assert res[1] is None, res


# --- streams, events, host callbacks, the GIL --------------------------------------------------------


def test_stream_lifecycle(cu, cubin_module):
    d = cu.driver
    s = ok(d.cuStreamCreate(0))
    assert isinstance(s, d.CUstream) and int(s) != 0
    assert d.cuStreamQuery(s) == (d.CUresult.CUDA_SUCCESS,)
    spin = ok(d.cuModuleGetFunction(cubin_module, b"spin"))
    ok(d.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, ((200_000_000,), (ctypes.c_uint64,)), 0))
    assert d.cuStreamQuery(s) == (d.CUresult.CUDA_ERROR_NOT_READY,)
    ok(d.cuStreamSynchronize(s))
    assert d.cuStreamQuery(s) == (d.CUresult.CUDA_SUCCESS,)
    ok(d.cuStreamDestroy(s))


def test_events_and_elapsed_time(cu, cubin_module, stream):
    d = cu.driver
    start = ok(d.cuEventCreate(d.CUevent_flags.CU_EVENT_DEFAULT))
    end = ok(d.cuEventCreate(d.CUevent_flags.CU_EVENT_DEFAULT))
    assert isinstance(start, d.CUevent) and int(start) != 0
    try:
        spin = ok(d.cuModuleGetFunction(cubin_module, b"spin"))
        ok(d.cuEventRecord(start, stream))
        ok(d.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, ((20_000_000,), (ctypes.c_uint64,)), 0))
        ok(d.cuEventRecord(end, stream))
        ok(d.cuEventSynchronize(end))
        assert d.cuEventQuery(end) == (d.CUresult.CUDA_SUCCESS,)
        ms = ok(d.cuEventElapsedTime(start, end))
        assert isinstance(ms, float)
        assert 15.0 <= ms < 5000.0, ms  # the kernel spins for 20 ms
    finally:
        ok(d.cuEventDestroy(start))
        ok(d.cuEventDestroy(end))


HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def test_host_callback(cu, stream):
    d = cu.driver
    seen = []
    done = threading.Event()

    def on_host(user_data):
        seen.append(user_data)
        done.set()

    callback = HOST_FN(on_host)  # kept alive by this frame until the stream is synchronised
    fn = d.CUhostFn(ctypes.cast(callback, ctypes.c_void_p).value)
    ok(d.cuLaunchHostFunc(stream, fn, 0x5EED))
    # wait without holding the GIL in a C call, so a wrong binding cannot deadlock the suite
    assert done.wait(30), "the host function did not run"
    ok(d.cuStreamSynchronize(stream))
    assert seen == [0x5EED]


def test_stream_synchronize_releases_the_gil(cu, cubin_module, stream):
    d = cu.driver
    spin = ok(d.cuModuleGetFunction(cubin_module, b"spin"))
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        ok(d.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, ((400_000_000,), (ctypes.c_uint64,)), 0))
        t0 = time.monotonic()
        ok(d.cuStreamSynchronize(stream))
        t1 = time.monotonic()
    finally:
        stop.set()
        thread.join()
    assert t1 - t0 > 0.2, f"the kernel should keep the stream busy for ~0.4 s, sync took {t1 - t0:.3f} s"
    margin = (t1 - t0) / 4
    inside = [t for t in ticks if t0 + margin < t < t1 - margin]
    assert len(inside) >= 10, f"other threads ran only {len(inside)} times during cuStreamSynchronize"


# --- graphs ---------------------------------------------------------------------------------------


def test_stream_capture_graph(cu, cubin_module, stream, arrays):
    d = cu.driver
    func = ok(d.cuModuleGetFunction(cubin_module, b"saxpy"))
    params = ((2.0, arrays.dx, arrays.dy, N), (ctypes.c_float, None, None, ctypes.c_size_t))
    ok(d.cuStreamBeginCapture(stream, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    ok(launch_saxpy(d, func, stream, params))
    graph = ok(d.cuStreamEndCapture(stream))
    assert isinstance(graph, d.CUgraph) and int(graph) != 0
    # capture only records: y is unchanged so far
    np.testing.assert_array_equal(arrays.result_y(), arrays.hy)
    graph_exec = ok(d.cuGraphInstantiate(graph, 0))
    assert isinstance(graph_exec, d.CUgraphExec) and int(graph_exec) != 0
    try:
        ok(d.cuGraphLaunch(graph_exec, stream))
        ok(d.cuGraphLaunch(graph_exec, stream))
        ok(d.cuStreamSynchronize(stream))
        np.testing.assert_allclose(arrays.result_y(), 4.0 * arrays.hx + arrays.hy, rtol=1e-5, atol=1e-5)
    finally:
        ok(d.cuGraphExecDestroy(graph_exec))
        ok(d.cuGraphDestroy(graph))


# --- contexts and devices --------------------------------------------------------------------------


def test_primary_context_retain_release(cu):
    d = cu.driver
    ctx = ok(d.cuDevicePrimaryCtxRetain(cu.dev))
    assert isinstance(ctx, d.CUcontext)
    assert ctx == cu.ctx
    assert ok(d.cuCtxGetCurrent()) == cu.ctx
    ok(d.cuDevicePrimaryCtxRelease(cu.dev))


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (cuCtxCreate takes ctxCreateParams); the 12.x one differs (docs/cuda-changelog.md)")
def test_created_context_push_pop(cu):
    d = cu.driver
    ctx = ok(d.cuCtxCreate(None, 0, cu.dev))
    assert isinstance(ctx, d.CUcontext) and int(ctx) != 0
    try:
        assert ctx != cu.ctx
        assert ok(d.cuCtxGetCurrent()) == ctx
        popped = ok(d.cuCtxPopCurrent())
        assert popped == ctx
        assert ok(d.cuCtxGetCurrent()) == cu.ctx
        ok(d.cuCtxPushCurrent(ctx))
        assert ok(d.cuCtxGetCurrent()) == ctx
        dptr = ok(d.cuMemAlloc(64))  # allocations work in the pushed context
        ok(d.cuMemFree(dptr))
        assert ok(d.cuCtxPopCurrent()) == ctx
    finally:
        ok(d.cuCtxDestroy(ctx))
    assert ok(d.cuCtxGetCurrent()) == cu.ctx


def test_device_name_and_count(cu):
    d = cu.driver
    assert ok(d.cuDeviceGetCount()) >= 1
    name = ok(d.cuDeviceGetName(128, cu.dev))
    assert isinstance(name, bytes) and len(name) == 128
    text = name.split(b"\0", 1)[0]  # NUL-terminated; what follows the NUL is padding
    assert text and text.isascii() and text.strip() == text, name
    version = ok(d.cuDriverGetVersion())
    assert version >= 13000


# --- errors ---------------------------------------------------------------------------------------


def test_error_name_and_string(cu):
    d = cu.driver
    assert d.cuGetErrorName(d.CUresult.CUDA_ERROR_INVALID_VALUE) == (d.CUresult.CUDA_SUCCESS, b"CUDA_ERROR_INVALID_VALUE")
    err, text = d.cuGetErrorString(d.CUresult.CUDA_ERROR_INVALID_VALUE)
    assert err == d.CUresult.CUDA_SUCCESS
    assert isinstance(text, bytes) and b"invalid" in text.lower()


def test_unknown_error_code(cu):
    d = cu.driver
    assert_failed(d.cuGetErrorName(9999), d.CUresult.CUDA_ERROR_INVALID_VALUE)
    assert_failed(d.cuGetErrorString(9999), d.CUresult.CUDA_ERROR_INVALID_VALUE)


def test_free_of_bad_pointer_fails(cu):
    d = cu.driver
    res = d.cuMemFree(d.CUdeviceptr(0x10))
    assert res[0] != d.CUresult.CUDA_SUCCESS
    assert len(res) == 1 and isinstance(res[0], d.CUresult)
