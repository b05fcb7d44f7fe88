"""Runtime API (and its interplay with the driver API and nvJitLink) against a real device.

Skipped with the reason when no GPU is usable. Kernels come from NVRTC as cubins and are loaded
with `cudaLibraryLoadData`; a `cudaKernel_t` is then launched through `driver.cuLaunchKernel`
(the two handle types are one C type), a graph kernel node, or a runtime launch function where
this build has one. The reference module has no `cudaLaunchKernel` (it takes a host symbol).
"""
import ctypes
import inspect
import types

import numpy as np
import pytest

from _support import LazyModule, ok

pytestmark = pytest.mark.gpu

runtime = LazyModule("cuda.bindings.runtime")
driver = LazyModule("cuda.bindings.driver")
nvrtc = LazyModule("cuda.bindings.nvrtc")
nvjitlink = LazyModule("cuda.bindings.nvjitlink")

KERNELS = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void scale(float *x, float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

extern "C" __global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

extern "C" __global__ void tex_read(cudaTextureObject_t tex, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}
"""

BLOCK = 256


def S(name):
    return getattr(runtime.cudaError_t, name)


def dim3(x, y=1, z=1):
    d = runtime.dim3()
    d.x, d.y, d.z = x, y, z
    return d


def blocks(n, block=BLOCK):
    return (n + block - 1) // block


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def rt():
    """Device 0 selected through the runtime; its primary context is current on this thread."""
    ok(runtime.cudaSetDevice(0))
    ok(runtime.cudaFree(0))  # the usual way to make the runtime initialise its context now
    return runtime


@pytest.fixture(scope="module")
def device_arch():
    ok(runtime.cudaSetDevice(0))
    prop = ok(runtime.cudaGetDeviceProperties(0))
    return f"{prop.major}{prop.minor}"


@pytest.fixture(scope="module")
def library(device_arch, nvrtc_compile):
    """The test kernels as a runtime library: (library, {name: cudaKernel_t})."""
    ok(runtime.cudaSetDevice(0))
    cubin = nvrtc_compile(KERNELS, f"sm_{device_arch}", fmt="cubin")
    assert cubin[:4] == b"\x7fELF"
    lib = ok(runtime.cudaLibraryLoadData(cubin, None, None, 0, None, None, 0))
    assert isinstance(lib, runtime.cudaLibrary_t) and int(lib) != 0
    kernels = {}
    for name in ("saxpy", "scale", "spin", "tex_read"):
        k = ok(runtime.cudaLibraryGetKernel(lib, name.encode()))
        assert isinstance(k, runtime.cudaKernel_t) and int(k) != 0
        kernels[name] = k
    yield types.SimpleNamespace(lib=lib, k=kernels, cubin=cubin)
    ok(runtime.cudaLibraryUnload(lib))


@pytest.fixture
def stream(rt):
    s = ok(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    assert isinstance(s, runtime.cudaStream_t) and int(s) != 0
    yield s
    ok(runtime.cudaStreamDestroy(s))


@pytest.fixture
def dmem(rt):
    """dmem(nbytes) -> int device address, freed after the test."""
    made = []

    def alloc(nbytes):
        addr = ok(runtime.cudaMalloc(nbytes))
        assert isinstance(addr, int) and addr != 0
        made.append(addr)
        return addr

    yield alloc
    for addr in made:
        ok(runtime.cudaFree(addr))


def launch(kernel, grid, block, stream, args, shared=0):
    """A cudaKernel_t (or CUfunction) through the driver; grid and block are (x, y, z) or ints."""
    g = grid if isinstance(grid, tuple) else (grid, 1, 1)
    b = block if isinstance(block, tuple) else (block, 1, 1)
    return driver.cuLaunchKernel(kernel, *g, *b, shared, stream, args, 0)


def H2D():
    return runtime.cudaMemcpyKind.cudaMemcpyHostToDevice


def D2H():
    return runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost


def host_view(addr, nbytes, dtype):
    """A numpy array over host memory at an int address (pinned or managed)."""
    return np.frombuffer((ctypes.c_char * nbytes).from_address(addr), dtype=dtype)


# --- device ------------------------------------------------------------------------------------


def test_device_count_and_versions(rt):
    assert ok(runtime.cudaGetDeviceCount()) >= 1
    from cuda.bindings._version import CUDA_MAJOR
    assert ok(runtime.cudaRuntimeGetVersion()) // 1000 == CUDA_MAJOR
    assert ok(runtime.cudaDriverGetVersion()) >= 13000
    assert ok(runtime.cudaGetDevice()) == 0


def test_device_properties_every_field_readable(rt):
    prop = ok(runtime.cudaGetDeviceProperties(0))
    assert isinstance(prop, runtime.cudaDeviceProp)
    names = [n for n in dir(prop) if not n.startswith("_") and n != "getPtr"]
    assert len(names) >= 90, names
    values = {}
    for name in names:
        values[name] = getattr(prop, name)  # none may raise
    assert isinstance(values["name"], bytes)
    text = values["name"].split(b"\0", 1)[0]
    assert text and text.isascii(), values["name"]
    assert prop.major >= 7 and prop.minor >= 0
    assert prop.warpSize == 32
    assert prop.multiProcessorCount > 0
    assert prop.totalGlobalMem > (1 << 30)
    assert len(prop.maxThreadsDim) == 3 and prop.maxThreadsDim[0] >= 1024
    assert len(prop.maxGridSize) == 3 and prop.maxGridSize[0] >= 2**31 - 1
    assert prop.maxThreadsPerBlock >= 1024
    assert isinstance(prop.uuid.bytes, bytes) and len(prop.uuid.bytes) == 16 and any(prop.uuid.bytes)
    assert "major" in repr(prop)
    # the same facts through other calls
    attr = runtime.cudaDeviceAttr
    assert ok(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrMultiProcessorCount, 0)) == prop.multiProcessorCount
    assert ok(runtime.cudaDeviceGetAttribute(attr.cudaDevAttrComputeCapabilityMajor, 0)) == prop.major
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    assert ok(driver.cuDeviceGetName(256, dev)).split(b"\0", 1)[0] == text
    assert ok(driver.cuDeviceTotalMem(dev)) == prop.totalGlobalMem


def test_mem_get_info(rt):
    free, total = ok(runtime.cudaMemGetInfo())
    assert 0 < free <= total


# --- memory ------------------------------------------------------------------------------------


def test_memcpy_sync_and_memset(rt, dmem):
    src = np.arange(4096, dtype=np.uint32)
    a = dmem(src.nbytes)
    b = dmem(src.nbytes)
    ok(runtime.cudaMemcpy(a, src, src.nbytes, H2D()))
    back = np.zeros_like(src)
    ok(runtime.cudaMemcpy(back, a, back.nbytes, D2H()))
    np.testing.assert_array_equal(back, src)
    # device to device, then read through an int host address and into a bytearray
    ok(runtime.cudaMemcpy(b, a, src.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice))
    out = np.zeros(8, dtype=np.uint32)
    ok(runtime.cudaMemcpy(out.ctypes.data, b + 16, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDefault))
    np.testing.assert_array_equal(out, src[4:12])
    raw = bytearray(16)
    ok(runtime.cudaMemcpy(raw, b, 16, D2H()))
    assert bytes(raw) == src[:4].tobytes()
    ok(runtime.cudaMemset(a, 0xAB, src.nbytes))
    ok(runtime.cudaMemcpy(back, a, back.nbytes, D2H()))
    assert (back == 0xABABABAB).all()


def test_failed_call_returns_status_and_none(rt):
    runtime.cudaGetLastError()  # clear what earlier calls left
    res = runtime.cudaMalloc(1 << 62)
    assert res[0] == S("cudaErrorMemoryAllocation") and res[1] is None
    assert runtime.cudaGetLastError()[0] == S("cudaErrorMemoryAllocation")  # reading clears it
    assert runtime.cudaGetLastError() == (S("cudaSuccess"),)


def test_memcpy_async_on_a_stream(rt, stream, dmem):
    n = 1 << 20
    src = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    back = np.zeros_like(src)
    d = dmem(src.nbytes)
    ok(runtime.cudaMemcpyAsync(d, src, src.nbytes, H2D(), stream))
    ok(runtime.cudaMemsetAsync(d, 0, 64, stream))
    ok(runtime.cudaMemcpyAsync(back, d, back.nbytes, D2H(), stream))
    ok(runtime.cudaStreamSynchronize(stream))
    assert runtime.cudaStreamQuery(stream) == (S("cudaSuccess"),)
    assert not back[:16].any()
    np.testing.assert_array_equal(back[16:], src[16:])


def test_memcpy_2d_pitched(rt):
    height, width = 33, 50
    host = np.arange(height * width, dtype=np.float32).reshape(height, width)
    row = width * 4
    dptr, pitch = ok(runtime.cudaMallocPitch(row, height))
    assert isinstance(dptr, int) and dptr != 0
    assert pitch >= row and pitch % 32 == 0
    try:
        ok(runtime.cudaMemset2D(dptr, pitch, 0, pitch, height))
        ok(runtime.cudaMemcpy2D(dptr, pitch, host, row, row, height, H2D()))
        flat = np.zeros(pitch * height, dtype=np.uint8)
        ok(runtime.cudaMemcpy(flat, dptr, flat.nbytes, D2H()))
        rows = flat.reshape(height, pitch)
        np.testing.assert_array_equal(rows[:, :row].view(np.float32), host)
        assert not rows[:, row:].any()  # the padding stays as set
        # a sub-rectangle back: rows 3..9, columns 5..14
        sub = np.zeros((7, 10), dtype=np.float32)
        ok(runtime.cudaMemcpy2D(sub, 40, dptr + 3 * pitch + 5 * 4, pitch, 40, 7, D2H()))
        np.testing.assert_array_equal(sub, host[3:10, 5:15])
    finally:
        ok(runtime.cudaFree(dptr))


def test_memcpy_3d(rt):
    depth, height, width = 3, 5, 24
    host = np.arange(depth * height * width, dtype=np.float32).reshape(depth, height, width)
    row = width * 4
    extent = runtime.make_cudaExtent(row, height, depth)
    pitched = ok(runtime.cudaMalloc3D(extent))
    assert isinstance(pitched, runtime.cudaPitchedPtr)
    assert pitched.ptr != 0 and pitched.pitch >= row
    assert (pitched.xsize, pitched.ysize) == (row, height)
    try:
        ok(runtime.cudaMemset3D(pitched, 0, runtime.make_cudaExtent(pitched.pitch, height, depth)))
        up = runtime.cudaMemcpy3DParms()
        up.srcPtr = runtime.make_cudaPitchedPtr(host, row, width, height)
        up.srcPos = runtime.make_cudaPos(0, 0, 0)
        up.dstPtr = pitched
        up.dstPos = runtime.make_cudaPos(0, 0, 0)
        up.extent = extent
        up.kind = H2D()
        ok(runtime.cudaMemcpy3D(up))

        # the layout on the device: slices of `height` rows, rows at `pitch` strides
        flat = np.zeros(pitched.pitch * height * depth, dtype=np.uint8)
        ok(runtime.cudaMemcpy(flat, pitched.ptr, flat.nbytes, D2H()))
        blocks3 = flat.reshape(depth, height, pitched.pitch)
        np.testing.assert_array_equal(blocks3[:, :, :row].view(np.float32), host)

        # a box back: z 1..2, y 1..3, x 4..11 (positions of linear memory are in bytes)
        box = np.zeros((2, 3, 8), dtype=np.float32)
        down = runtime.cudaMemcpy3DParms()
        down.srcPtr = pitched
        down.srcPos = runtime.make_cudaPos(4 * 4, 1, 1)
        down.dstPtr = runtime.make_cudaPitchedPtr(box, 8 * 4, 8, 3)
        down.dstPos = runtime.make_cudaPos(0, 0, 0)
        down.extent = runtime.make_cudaExtent(8 * 4, 3, 2)
        down.kind = D2H()
        ok(runtime.cudaMemcpy3D(down))
        np.testing.assert_array_equal(box, host[1:3, 1:4, 4:12])
    finally:
        ok(runtime.cudaFree(pitched.ptr))


def test_pinned_host_memory(rt, stream, dmem):
    n = 1 << 16
    nbytes = n * 4
    src_addr = ok(runtime.cudaMallocHost(nbytes))
    dst_addr = ok(runtime.cudaHostAlloc(nbytes, runtime.cudaHostAllocDefault))
    assert isinstance(src_addr, int) and src_addr != 0 and isinstance(dst_addr, int) and dst_addr != 0
    try:
        src = host_view(src_addr, nbytes, np.float32)
        dst = host_view(dst_addr, nbytes, np.float32)
        src[:] = np.arange(n, dtype=np.float32)
        dst[:] = -1
        attrs = ok(runtime.cudaPointerGetAttributes(src_addr))
        assert attrs.type == runtime.cudaMemoryType.cudaMemoryTypeHost
        d = dmem(nbytes)
        ok(runtime.cudaMemcpyAsync(d, src_addr, nbytes, H2D(), stream))
        ok(runtime.cudaMemcpyAsync(dst_addr, d, nbytes, D2H(), stream))
        ok(runtime.cudaStreamSynchronize(stream))
        np.testing.assert_array_equal(dst, np.arange(n, dtype=np.float32))
        del src, dst
    finally:
        ok(runtime.cudaFreeHost(src_addr))
        ok(runtime.cudaFreeHost(dst_addr))


def test_mapped_pinned_memory_has_a_device_pointer(rt):
    addr = ok(runtime.cudaHostAlloc(4096, runtime.cudaHostAllocMapped))
    try:
        dptr = ok(runtime.cudaHostGetDevicePointer(addr, 0))
        assert isinstance(dptr, int) and dptr != 0
        host_view(addr, 4096, np.uint8)[:] = 7
        back = np.zeros(4096, dtype=np.uint8)
        ok(runtime.cudaMemcpy(back, dptr, 4096, D2H()))
        assert (back == 7).all()
    finally:
        ok(runtime.cudaFreeHost(addr))


def test_managed_memory_written_by_host_scaled_by_kernel(rt, library, stream):
    n = 1024  # 4 KiB: managed memory stays small
    addr = ok(runtime.cudaMallocManaged(n * 4, runtime.cudaMemAttachGlobal))
    assert isinstance(addr, int) and addr != 0
    try:
        (ctypes.c_float * n).from_address(addr)[:] = [float(i) for i in range(n)]
        ok(launch(library.k["scale"], blocks(n), BLOCK, stream, ((addr, 3.0, n), (ctypes.c_void_p, ctypes.c_float, ctypes.c_uint))))
        ok(runtime.cudaStreamSynchronize(stream))
        got = list((ctypes.c_float * n).from_address(addr))
        assert got == [3.0 * i for i in range(n)]
        attrs = ok(runtime.cudaPointerGetAttributes(addr))
        assert attrs.type == runtime.cudaMemoryType.cudaMemoryTypeManaged
    finally:
        ok(runtime.cudaFree(addr))


# --- streams and events --------------------------------------------------------------------------


def test_events_and_elapsed_time(rt, library, stream):
    start = ok(runtime.cudaEventCreate())
    end = ok(runtime.cudaEventCreateWithFlags(runtime.cudaEventDefault))
    assert isinstance(start, runtime.cudaEvent_t) and int(start) != 0
    try:
        ok(runtime.cudaEventRecord(start, stream))
        ok(launch(library.k["spin"], 1, 1, stream, ((20_000_000,), (ctypes.c_uint64,))))
        ok(runtime.cudaEventRecord(end, stream))
        assert runtime.cudaEventQuery(end) == (S("cudaErrorNotReady"),)
        ok(runtime.cudaEventSynchronize(end))
        assert runtime.cudaEventQuery(end) == (S("cudaSuccess"),)
        ms = ok(runtime.cudaEventElapsedTime(start, end))
        assert isinstance(ms, float)
        assert 15.0 <= ms < 5000.0, ms  # the kernel spins for 20 ms
    finally:
        ok(runtime.cudaEventDestroy(start))
        ok(runtime.cudaEventDestroy(end))


def test_stream_wait_event_orders_two_streams(rt, library, stream, dmem):
    other = ok(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    ev = ok(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming))
    try:
        n = 4096
        d = dmem(n * 4)
        ones = np.ones(n, dtype=np.float32)
        ok(launch(library.k["spin"], 1, 1, stream, ((30_000_000,), (ctypes.c_uint64,))))
        ok(runtime.cudaMemcpyAsync(d, ones, ones.nbytes, H2D(), stream))
        ok(runtime.cudaEventRecord(ev, stream))
        ok(runtime.cudaStreamWaitEvent(other, ev, 0))
        ok(launch(library.k["scale"], blocks(n), BLOCK, other, ((d, 5.0, n), (ctypes.c_void_p, ctypes.c_float, ctypes.c_uint))))
        out = np.zeros(n, dtype=np.float32)
        ok(runtime.cudaMemcpyAsync(out, d, out.nbytes, D2H(), other))
        ok(runtime.cudaStreamSynchronize(other))
        assert (out == 5.0).all()  # the scale ran after the upload on the other stream
    finally:
        ok(runtime.cudaEventDestroy(ev))
        ok(runtime.cudaStreamDestroy(other))


# --- kernels -------------------------------------------------------------------------------------


def test_library_kernels_and_their_attributes(rt, library):
    assert ok(runtime.cudaLibraryGetKernelCount(library.lib)) == 4
    attrs = ok(runtime.cudaFuncGetAttributes(library.k["saxpy"]))
    assert isinstance(attrs, runtime.cudaFuncAttributes)
    assert attrs.maxThreadsPerBlock >= 256 and attrs.numRegs > 0
    per_sm = ok(runtime.cudaOccupancyMaxActiveBlocksPerMultiprocessor(library.k["saxpy"], BLOCK, 0))
    assert isinstance(per_sm, int) and per_sm >= 1
    res = runtime.cudaLibraryGetKernel(library.lib, b"no_such_kernel")
    assert res[0] != S("cudaSuccess") and res[1] is None


def saxpy_data(n, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_kernel_launch_through_the_driver_with_a_runtime_kernel(rt, library, stream, dmem):
    n = 50_000
    hx, hy = saxpy_data(n)
    dx, dy = dmem(hx.nbytes), dmem(hy.nbytes)
    ok(runtime.cudaMemcpy(dx, hx, hx.nbytes, H2D()))
    ok(runtime.cudaMemcpy(dy, hy, hy.nbytes, H2D()))
    # (values, types)
    args = ((2.5, dx, dy, n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t))
    ok(launch(library.k["saxpy"], blocks(n), BLOCK, stream, args))
    ok(runtime.cudaStreamSynchronize(stream))
    out = np.zeros_like(hy)
    ok(runtime.cudaMemcpy(out, dy, out.nbytes, D2H()))
    expected = 2.5 * hx + hy
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)
    # a numpy array of argument addresses
    holders = [np.array([-1.0], np.float32), np.array([dx], np.uint64), np.array([dy], np.uint64), np.array([n], np.uint64)]
    ptrs = np.array([h.ctypes.data for h in holders], dtype=np.uint64)
    ok(launch(library.k["saxpy"], blocks(n), BLOCK, stream, ptrs))
    ok(runtime.cudaStreamSynchronize(stream))
    ok(runtime.cudaMemcpy(out, dy, out.nbytes, D2H()))
    np.testing.assert_allclose(out, expected - hx, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["cudaLaunchKernel", "cudaLaunchCooperativeKernel"])
def test_kernel_launch_through_a_runtime_launch_function(rt, library, stream, dmem, name):
    fn = getattr(runtime, name, None)
    if fn is None:
        pytest.skip(f"runtime.{name} is not in this build (nor in the reference 13.0.3 module)")
    assert str(inspect.signature(fn)) == "(func, gridDim, blockDim, args, sharedMem, stream)"
    n = 8192  # 32 blocks: a cooperative grid must fit on the device at once
    hx, hy = saxpy_data(n, seed=5)
    dx, dy = dmem(hx.nbytes), dmem(hy.nbytes)
    ok(runtime.cudaMemcpy(dx, hx, hx.nbytes, H2D()))
    ok(runtime.cudaMemcpy(dy, hy, hy.nbytes, H2D()))
    args = ((0.5, dx, dy, n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t))
    ok(fn(library.k["saxpy"], dim3(blocks(n)), dim3(BLOCK), args, 0, stream))
    ok(runtime.cudaStreamSynchronize(stream))
    out = np.zeros_like(hy)
    ok(runtime.cudaMemcpy(out, dy, out.nbytes, D2H()))
    np.testing.assert_allclose(out, 0.5 * hx + hy, rtol=1e-6, atol=1e-5)


def test_graph_kernel_node(rt, library, stream, dmem):
    n = 10_000
    host = np.arange(n, dtype=np.float32)
    d = dmem(host.nbytes)
    ok(runtime.cudaMemcpy(d, host, host.nbytes, H2D()))
    holders = [np.array([d], np.uint64), np.array([2.0], np.float32), np.array([n], np.uint32)]
    ptrs = np.array([h.ctypes.data for h in holders], dtype=np.uint64)
    params = runtime.cudaKernelNodeParams()
    params.func = library.k["scale"]  # a cudaKernel_t is accepted as the node's function
    params.gridDim = dim3(blocks(n))
    params.blockDim = dim3(BLOCK)
    params.sharedMemBytes = 0
    params.kernelParams = ptrs
    # a second node after it, its arguments given as (values, types): x = 1.0 * x + x
    params2 = runtime.cudaKernelNodeParams()
    params2.func = library.k["saxpy"]
    params2.gridDim = dim3(blocks(n))
    params2.blockDim = dim3(BLOCK)
    params2.kernelParams = ((1.0, d, d, n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t))
    graph = ok(runtime.cudaGraphCreate(0))
    try:
        node = ok(runtime.cudaGraphAddKernelNode(graph, None, 0, params))
        assert isinstance(node, runtime.cudaGraphNode_t) and int(node) != 0
        node2 = ok(runtime.cudaGraphAddKernelNode(graph, [node], 1, params2))
        assert int(node2) != 0 and node2 != node
        graph_exec = ok(runtime.cudaGraphInstantiate(graph, 0))
        try:
            ok(runtime.cudaGraphLaunch(graph_exec, stream))
            ok(runtime.cudaGraphLaunch(graph_exec, stream))
            ok(runtime.cudaStreamSynchronize(stream))
        finally:
            ok(runtime.cudaGraphExecDestroy(graph_exec))
    finally:
        ok(runtime.cudaGraphDestroy(graph))
    out = np.zeros_like(host)
    ok(runtime.cudaMemcpy(out, d, out.nbytes, D2H()))
    # each launch: x *= 2, then x += x; launched twice
    np.testing.assert_array_equal(out, 16.0 * host)
    del holders


# In a child: an in/out count that is wrong (used before it is set, or used to read a NULL
# buffer) corrupts memory rather than failing cleanly.
_GRAPH_NODES = r"""
import json, traceback
from cuda.bindings import runtime
out = {}
try:
    assert int(runtime.cudaSetDevice(0)[0]) == 0
    err, graph = runtime.cudaGraphCreate(0)
    assert int(err) == 0, err
    nodes = []
    for _ in range(3):
        deps = nodes[-1:]
        err, node = runtime.cudaGraphAddEmptyNode(graph, deps, len(deps))
        assert int(err) == 0, err
        nodes.append(node)
    out["made"] = [int(n) for n in nodes]
    err, listed, count = runtime.cudaGraphGetNodes(graph, 0)
    out["count_query"] = [int(err), listed, count]
    err, listed, count = runtime.cudaGraphGetNodes(graph, 3)
    out["full"] = [int(err), sorted(int(n) for n in listed), count]
    err, listed, count = runtime.cudaGraphGetRootNodes(graph, 0)
    out["roots_query"] = [int(err), listed, count]
    err, listed, count = runtime.cudaGraphGetRootNodes(graph, 3)
    out["roots"] = [int(err), [int(n) for n in listed if int(n)], count]
    runtime.cudaGraphDestroy(graph)
except Exception:
    out["error"] = traceback.format_exc()
print(json.dumps(out))
"""


def test_graph_get_nodes_with_count_query():
    import json

    from _support import run_python

    proc = run_python(_GRAPH_NODES)
    assert proc.returncode == 0, f"rc {proc.returncode}:\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "error" not in info, info.get("error")
    made = info["made"]
    # a count query (0 entries asked) gives no nodes and the count
    assert info["count_query"][0] == 0 and info["count_query"][1] in (None, []) and info["count_query"][2] == 3, info
    assert info["full"] == [0, sorted(made), 3], info
    assert info["roots_query"][0] == 0 and info["roots_query"][1] in (None, []) and info["roots_query"][2] == 1, info
    assert info["roots"][0] == 0 and info["roots"][1] == made[:1] and info["roots"][2] == 1, info


def test_stream_capture_graph_launched_by_runtime_and_driver(rt, cu, library, stream, dmem):
    n = 4096
    nbytes = n * 4
    d = dmem(nbytes)
    start = np.linspace(1.0, 2.0, n, dtype=np.float32)
    ok(runtime.cudaMemcpy(d, start, nbytes, H2D()))
    out_addr = ok(runtime.cudaMallocHost(nbytes))  # captured copies go to pinned memory
    try:
        out = host_view(out_addr, nbytes, np.float32)
        out[:] = 0
        mode = runtime.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
        ok(runtime.cudaStreamBeginCapture(stream, mode))
        assert ok(runtime.cudaStreamIsCapturing(stream)) == runtime.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive
        ok(launch(library.k["scale"], blocks(n), BLOCK, stream, ((d, 2.0, n), (ctypes.c_void_p, ctypes.c_float, ctypes.c_uint))))
        ok(runtime.cudaMemcpyAsync(out_addr, d, nbytes, D2H(), stream))
        graph = ok(runtime.cudaStreamEndCapture(stream))
        assert isinstance(graph, runtime.cudaGraph_t) and int(graph) != 0
        assert not out.any()  # capture records, nothing ran
        try:
            graph_exec = ok(runtime.cudaGraphInstantiate(graph, 0))
            assert isinstance(graph_exec, runtime.cudaGraphExec_t) and int(graph_exec) != 0
            try:
                ok(runtime.cudaGraphLaunch(graph_exec, stream))
                ok(runtime.cudaStreamSynchronize(stream))
                np.testing.assert_array_equal(out, 2.0 * start)
                ok(runtime.cudaGraphLaunch(graph_exec, stream))
                # the runtime graph and stream through the driver
                ok(driver.cuGraphLaunch(graph_exec, stream))
                ok(driver.cuStreamSynchronize(stream))
                np.testing.assert_array_equal(out, 8.0 * start)
            finally:
                ok(runtime.cudaGraphExecDestroy(graph_exec))
        finally:
            ok(runtime.cudaGraphDestroy(graph))
        del out
    finally:
        ok(runtime.cudaFreeHost(out_addr))


# --- memory pools --------------------------------------------------------------------------------


def device_pool_props():
    props = runtime.cudaMemPoolProps()
    props.allocType = runtime.cudaMemAllocationType.cudaMemAllocationTypePinned
    props.location.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    props.location.id = 0
    return props


@pytest.fixture
def pool(rt):
    p = ok(runtime.cudaMemPoolCreate(device_pool_props()))
    assert isinstance(p, runtime.cudaMemPool_t) and int(p) != 0
    yield p
    ok(runtime.cudaMemPoolDestroy(p))


def test_memory_pool(rt, pool, stream):
    A = runtime.cudaMemPoolAttr
    ok(runtime.cudaMemPoolSetAttribute(pool, A.cudaMemPoolAttrReleaseThreshold, 1 << 20))
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolAttrReleaseThreshold))) == 1 << 20
    ok(runtime.cudaMemPoolSetAttribute(pool, A.cudaMemPoolAttrReleaseThreshold, driver.cuuint64_t(3 << 20)))
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolAttrReleaseThreshold))) == 3 << 20
    # an int-typed attribute
    ok(runtime.cudaMemPoolSetAttribute(pool, A.cudaMemPoolReuseAllowOpportunistic, 0))
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolReuseAllowOpportunistic))) == 0
    ok(runtime.cudaMemPoolSetAttribute(pool, A.cudaMemPoolReuseAllowOpportunistic, 1))
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolReuseAllowOpportunistic))) == 1

    n = 1 << 16
    src = np.arange(n, dtype=np.int32)
    ptr = ok(runtime.cudaMallocFromPoolAsync(src.nbytes, pool, stream))
    assert isinstance(ptr, int) and ptr != 0
    back = np.zeros_like(src)
    ok(runtime.cudaMemcpyAsync(ptr, src, src.nbytes, H2D(), stream))
    ok(runtime.cudaMemcpyAsync(back, ptr, back.nbytes, D2H(), stream))
    ok(runtime.cudaStreamSynchronize(stream))
    np.testing.assert_array_equal(back, src)
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolAttrUsedMemCurrent))) >= src.nbytes
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolAttrReservedMemCurrent))) >= src.nbytes
    ok(runtime.cudaFreeAsync(ptr, stream))
    ok(runtime.cudaStreamSynchronize(stream))
    assert int(ok(runtime.cudaMemPoolGetAttribute(pool, A.cudaMemPoolAttrUsedMemCurrent))) == 0


def test_memory_pool_used_by_the_driver(rt, cu, pool, stream):
    n = 4096
    src = np.arange(n, dtype=np.uint8)
    dptr = ok(driver.cuMemAllocFromPoolAsync(n, pool, stream))  # runtime pool and stream
    assert isinstance(dptr, driver.CUdeviceptr) and int(dptr) != 0
    back = np.zeros_like(src)
    ok(runtime.cudaMemcpyAsync(dptr, src, n, H2D(), stream))  # a CUdeviceptr as the runtime's void*
    ok(driver.cuMemcpyDtoHAsync(back, dptr, n, stream))
    ok(driver.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(back, src)
    used = ok(runtime.cudaMemPoolGetAttribute(pool, runtime.cudaMemPoolAttr.cudaMemPoolAttrUsedMemCurrent))
    assert int(used) >= n
    ok(driver.cuMemFreeAsync(dptr, stream))
    ok(runtime.cudaStreamSynchronize(stream))


# --- textures ------------------------------------------------------------------------------------


def test_texture_object_read_by_a_kernel(rt, library, stream, dmem):
    width, height = 40, 12
    host = (np.arange(width * height, dtype=np.float32).reshape(height, width) * 0.25) - 7.0
    # cudaCreateChannelDesc is an inline C function: the descriptor is built by hand
    desc = runtime.cudaChannelFormatDesc()
    desc.x, desc.y, desc.z, desc.w = 32, 0, 0, 0
    desc.f = runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat
    if hasattr(runtime, "cudaCreateChannelDesc"):  # an inline C function, implemented by the bindings
        made = ok(runtime.cudaCreateChannelDesc(32, 0, 0, 0, runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat))
        assert ctypes.string_at(made.getPtr(), 20) == ctypes.string_at(desc.getPtr(), 20)
    arr = ok(runtime.cudaMallocArray(desc, width, height, runtime.cudaArrayDefault))
    assert isinstance(arr, runtime.cudaArray_t) and int(arr) != 0
    tex = None
    try:
        row = width * 4
        ok(runtime.cudaMemcpy2DToArray(arr, 0, 0, host, row, row, height, H2D()))
        back = np.zeros_like(host)
        ok(runtime.cudaMemcpy2DFromArray(back, row, arr, 0, 0, row, height, D2H()))
        np.testing.assert_array_equal(back, host)
        got_desc = ok(runtime.cudaGetChannelDesc(arr))
        assert (got_desc.x, got_desc.y, int(got_desc.f)) == (32, 0, int(runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat))

        res = runtime.cudaResourceDesc()
        res.resType = runtime.cudaResourceType.cudaResourceTypeArray
        res.res.array.array = arr
        td = runtime.cudaTextureDesc()
        clamp = runtime.cudaTextureAddressMode.cudaAddressModeClamp
        td.addressMode = [clamp, clamp, clamp]
        assert list(td.addressMode) == [clamp] * 3
        td.filterMode = runtime.cudaTextureFilterMode.cudaFilterModePoint
        td.readMode = runtime.cudaTextureReadMode.cudaReadModeElementType
        td.normalizedCoords = 0
        tex = ok(runtime.cudaCreateTextureObject(res, td, None))
        assert isinstance(tex, runtime.cudaTextureObject_t) and int(tex) != 0

        again = ok(runtime.cudaGetTextureObjectResourceDesc(tex))
        assert int(again.resType) == int(runtime.cudaResourceType.cudaResourceTypeArray)
        assert int(again.res.array.array) == int(arr)

        out_d = dmem(host.nbytes)
        ok(runtime.cudaMemset(out_d, 0, host.nbytes))
        args = ((tex, out_d, width, height), (ctypes.c_ulonglong, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
        ok(launch(library.k["tex_read"], (blocks(width, 32), height, 1), (32, 1, 1), stream, args))
        ok(runtime.cudaStreamSynchronize(stream))
        out = np.zeros_like(host)
        ok(runtime.cudaMemcpy(out, out_d, out.nbytes, D2H()))
        np.testing.assert_array_equal(out, host)
    finally:
        if tex is not None:
            ok(runtime.cudaDestroyTextureObject(tex))
        ok(runtime.cudaFreeArray(arr))


# --- runtime and driver handles used across the two APIs ----------------------------------------


def test_runtime_stream_in_driver_calls(rt, cu, dmem):
    s = ok(runtime.cudaStreamCreate())
    try:
        n = 1 << 20
        src = np.arange(n, dtype=np.float32)
        back = np.zeros_like(src)
        d = dmem(src.nbytes)
        ok(driver.cuMemcpyHtoDAsync(d, src, src.nbytes, s))  # a cudaMalloc address, a cudaStream_t
        ok(runtime.cudaMemcpyAsync(back, d, back.nbytes, D2H(), s))
        ok(driver.cuStreamSynchronize(s))
        assert driver.cuStreamQuery(s) == (driver.CUresult.CUDA_SUCCESS,)
        np.testing.assert_array_equal(back, src)
        assert ok(driver.cuStreamGetFlags(s)) == ok(runtime.cudaStreamGetFlags(s))
    finally:
        ok(runtime.cudaStreamDestroy(s))


def test_driver_stream_in_runtime_calls(rt, cu, library):
    s = ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    try:
        ok(launch(library.k["spin"], 1, 1, s, ((50_000_000,), (ctypes.c_uint64,))))
        assert runtime.cudaStreamQuery(s) == (S("cudaErrorNotReady"),)
        ok(runtime.cudaStreamSynchronize(s))
        assert runtime.cudaStreamQuery(s) == (S("cudaSuccess"),)
        assert ok(runtime.cudaStreamGetFlags(s)) == runtime.cudaStreamNonBlocking
    finally:
        ok(driver.cuStreamDestroy(s))


def test_events_across_the_two_apis(rt, cu, library, stream):
    rt_start = ok(runtime.cudaEventCreate())
    drv_end = ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    try:
        ok(driver.cuEventRecord(rt_start, stream))  # a cudaEvent_t and a cudaStream_t in the driver
        ok(launch(library.k["spin"], 1, 1, stream, ((20_000_000,), (ctypes.c_uint64,))))
        ok(runtime.cudaEventRecord(drv_end, stream))  # a CUevent in the runtime
        ok(runtime.cudaEventSynchronize(drv_end))
        assert driver.cuEventQuery(rt_start) == (driver.CUresult.CUDA_SUCCESS,)
        ms_rt = ok(runtime.cudaEventElapsedTime(rt_start, drv_end))
        ms_drv = ok(driver.cuEventElapsedTime(rt_start, drv_end))
        assert 15.0 <= ms_rt < 5000.0
        assert ms_rt == pytest.approx(ms_drv)
    finally:
        ok(runtime.cudaEventDestroy(rt_start))
        ok(driver.cuEventDestroy(drv_end))


def test_memory_across_the_two_apis(rt, cu):
    n = 1024
    src = np.arange(n, dtype=np.uint32)
    back = np.zeros_like(src)
    # a cudaMalloc address in driver copies
    addr = ok(runtime.cudaMalloc(src.nbytes))
    try:
        ok(driver.cuMemcpyHtoD(addr, src, src.nbytes))
        ok(driver.cuMemcpyDtoH(back, addr, back.nbytes))
        np.testing.assert_array_equal(back, src)
        ok(driver.cuMemsetD32(addr, 9, n))
        ok(runtime.cudaMemcpy(back, addr, back.nbytes, D2H()))
        assert (back == 9).all()
    finally:
        ok(runtime.cudaFree(addr))
    # a driver CUdeviceptr in runtime copies
    dptr = ok(driver.cuMemAlloc(src.nbytes))
    try:
        ok(runtime.cudaMemcpy(dptr, src, src.nbytes, H2D()))
        back[:] = 0
        ok(runtime.cudaMemcpy(back, dptr, back.nbytes, D2H()))
        np.testing.assert_array_equal(back, src)
        ok(driver.cuMemcpyDtoH(back, dptr, back.nbytes))
        np.testing.assert_array_equal(back, src)
        attrs = ok(runtime.cudaPointerGetAttributes(dptr))
        assert attrs.type == runtime.cudaMemoryType.cudaMemoryTypeDevice and attrs.device == 0
    finally:
        ok(driver.cuMemFree(dptr))


def test_same_primary_context(rt, cu):
    assert ok(driver.cuCtxGetCurrent()) == cu.ctx
    assert ok(runtime.cudaGetDevice()) == 0


# --- LTO: NVRTC -> LTO-IR -> nvJitLink -> cubin -> driver launch --------------------------------


LTO_HELPER = b'extern "C" __device__ float helper(float v) { return v * 3.0f + 1.0f; }'
LTO_KERNEL = b"""
extern "C" __device__ float helper(float v);
extern "C" __global__ void apply(float *x, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = helper(x[i]);
}
"""


def nvrtc_ltoir(source, name, arch):
    prog = ok(nvrtc.nvrtcCreateProgram(source, name, 0, [], []))
    try:
        opts = [b"-dlto", b"-rdc=true", f"--gpu-architecture=compute_{arch}".encode()]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            log = bytearray(ok(nvrtc.nvrtcGetProgramLogSize(prog)))
            nvrtc.nvrtcGetProgramLog(prog, log)
            pytest.fail(f"NVRTC failed: {res!r}\n{bytes(log).decode(errors='replace')}")
        out = bytearray(ok(nvrtc.nvrtcGetLTOIRSize(prog)))
        ok(nvrtc.nvrtcGetLTOIR(prog, out))
        return bytes(out)
    finally:
        ok(nvrtc.nvrtcDestroyProgram(prog))


def test_lto_end_to_end(cu, device_arch):
    d = cu.driver
    helper = nvrtc_ltoir(LTO_HELPER, b"helper.cu", device_arch)
    kernel = nvrtc_ltoir(LTO_KERNEL, b"apply.cu", device_arch)
    opts = [f"-arch=sm_{device_arch}".encode(), b"-lto"]
    h = nvjitlink.create(len(opts), opts)
    try:
        nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, helper, len(helper), b"helper.ltoir")
        nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, kernel, len(kernel), b"apply.ltoir")
        nvjitlink.complete(h)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(h))
        nvjitlink.get_linked_cubin(h, cubin)
    finally:
        nvjitlink.destroy(h)
    assert cubin[:4] == b"\x7fELF"
    mod = ok(d.cuModuleLoadData(bytes(cubin)))
    try:
        func = ok(d.cuModuleGetFunction(mod, b"apply"))
        n = 3000
        host = np.linspace(-4.0, 4.0, n, dtype=np.float32)
        dptr = ok(d.cuMemAlloc(host.nbytes))
        try:
            ok(d.cuMemcpyHtoD(dptr, host, host.nbytes))
            ok(d.cuLaunchKernel(func, blocks(n), 1, 1, BLOCK, 1, 1, 0, None, ((dptr, n), (None, ctypes.c_uint)), 0))
            ok(d.cuCtxSynchronize())
            out = np.zeros_like(host)
            ok(d.cuMemcpyDtoH(out, dptr, out.nbytes))
            np.testing.assert_allclose(out, host * 3.0 + 1.0, rtol=1e-6, atol=1e-6)
        finally:
            ok(d.cuMemFree(dptr))
    finally:
        ok(d.cuModuleUnload(mod))
