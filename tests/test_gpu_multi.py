"""Several devices in one process: peer access and peer copies, a stream per device and events
across devices, memory pools and virtual memory mapped for two devices, a graph whose nodes run on
both.

The tests marked `two_gpus` need devices 0 and 1 (skipped with "needs 2 CUDA devices, found N" on
fewer, failed instead when CUDA_BINDINGS_REQUIRE_GPUS promises two: tests/conftest.py); those that
also need the devices to reach each other's memory skip with that reason where cuDeviceCanAccessPeer
says no. The tests marked only `gpu` call the same functions on one device (a peer copy within a
context, the documented refusals for a device paired with itself).
"""
import ctypes
import time

import numpy as np
import pytest

from _support import assert_failed, ok

KERNELS = r"""
extern "C" __global__ void scale_from(const float *src, float *dst, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = a * src[i];
}

extern "C" __global__ void fill(float *p, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

extern "C" __global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"""

N = 1 << 20
BLOCK = 256
F32 = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_int)


# --- helpers -------------------------------------------------------------------------------------

class Kernels:
    """The kernels above, loaded once as a context-independent library per architecture; fn(i,
    name) is the function in device i's primary context."""

    def __init__(self, env, nvrtc_compile):
        self.env = env
        d = env.driver
        self.libraries = {}
        for arch in set(env.archs):
            image = nvrtc_compile(KERNELS, arch, fmt="cubin")
            self.libraries[arch] = ok(d.cuLibraryLoadData(image, [], [], 0, [], [], 0))

    def kernel(self, i, name):
        return ok(self.env.driver.cuLibraryGetKernel(self.libraries[self.env.archs[i]], name.encode()))

    def fn(self, i, name):
        self.env.use(i)
        return ok(self.env.driver.cuKernelGetFunction(self.kernel(i, name)))

    def unload(self):
        for lib in self.libraries.values():
            ok(self.env.driver.cuLibraryUnload(lib))


def grid(n):
    return (n + BLOCK - 1) // BLOCK


def launch(d, func, n, stream, values, types):
    ok(d.cuLaunchKernel(func, grid(n), 1, 1, BLOCK, 1, 1, 0, stream, (values, types), 0))


def launch_spin(d, func, stream, ns):
    ok(d.cuLaunchKernel(func, 1, 1, 1, 1, 1, 1, 0, stream, ((ns,), (ctypes.c_uint64,)), 0))


def read_floats(d, ptr, n):
    out = np.empty(n, dtype=np.float32)
    ok(d.cuMemcpyDtoH(out, ptr, out.nbytes))
    return out


def write_floats(d, ptr, values):
    values = np.ascontiguousarray(values, dtype=np.float32)
    ok(d.cuMemcpyHtoD(ptr, values, values.nbytes))


@pytest.fixture
def kernels(two_gpus, nvrtc_compile):
    k = Kernels(two_gpus, nvrtc_compile)
    yield k
    k.unload()


@pytest.fixture
def peers(two_gpus):
    """Peer access enabled both ways (disabled again after the test, where this fixture enabled it)."""
    if not two_gpus.peer:
        pytest.skip(f"devices 0 and 1 cannot access each other's memory (cuDeviceCanAccessPeer: "
                    f"0->1 {two_gpus.can_access_peer[0][1]}, 1->0 {two_gpus.can_access_peer[1][0]})")
    d = two_gpus.driver
    enabled = []
    for i, j in ((0, 1), (1, 0)):
        two_gpus.use(i)
        err = d.cuCtxEnablePeerAccess(two_gpus.ctxs[j], 0)[0]
        assert err in (d.CUresult.CUDA_SUCCESS, d.CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED), err
        if err == d.CUresult.CUDA_SUCCESS:
            enabled.append((i, j))
    two_gpus.use(0)
    yield two_gpus
    for i, j in enabled:
        two_gpus.use(i)
        ok(d.cuCtxDisablePeerAccess(two_gpus.ctxs[j]))


class PerDevice:
    """A non-blocking stream and a buffer of n floats on each device."""

    def __init__(self, env, n):
        d = env.driver
        self.env, self.n = env, n
        self.streams, self.bufs = [], []
        for i in (0, 1):
            env.use(i)
            self.streams.append(ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING)))
            self.bufs.append(ok(d.cuMemAlloc(4 * n)))
            ok(d.cuMemsetD32(self.bufs[i], 0, n))

    def free(self):
        d = self.env.driver
        for i in (0, 1):
            self.env.use(i)
            ok(d.cuStreamSynchronize(self.streams[i]))
            ok(d.cuStreamDestroy(self.streams[i]))
            ok(d.cuMemFree(self.bufs[i]))
        self.env.use(0)


@pytest.fixture
def per_device(two_gpus):
    p = PerDevice(two_gpus, N)
    yield p
    p.free()


# --- one device: the same calls within a context ----------------------------------------------------


@pytest.mark.gpu
def test_cuMemcpyPeer_within_one_context(cu):
    d = cu.driver
    n = 4096
    src, dst = ok(d.cuMemAlloc(4 * n)), ok(d.cuMemAlloc(4 * n))
    try:
        values = np.arange(n, dtype=np.float32) * 0.5
        write_floats(d, src, values)
        ok(d.cuMemcpyPeer(dst, cu.ctx, src, cu.ctx, 4 * n))
        assert np.array_equal(read_floats(d, dst, n), values)
        stream = ok(d.cuStreamCreate(0))
        ok(d.cuMemsetD32(dst, 0, n))
        ok(d.cuMemcpyPeerAsync(dst, cu.ctx, src, cu.ctx, 4 * n, stream))
        ok(d.cuStreamSynchronize(stream))
        ok(d.cuStreamDestroy(stream))
        assert np.array_equal(read_floats(d, dst, n), values)
    finally:
        ok(d.cuMemFree(src))
        ok(d.cuMemFree(dst))


@pytest.mark.gpu
def test_cudaMemcpyPeer_within_one_device(cu):
    from cuda.bindings import runtime
    n = 4096
    ok(runtime.cudaSetDevice(0))
    src, dst = ok(runtime.cudaMalloc(4 * n)), ok(runtime.cudaMalloc(4 * n))
    try:
        values = np.arange(n, dtype=np.float32) + 7
        ok(runtime.cudaMemcpy(src, values, values.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
        ok(runtime.cudaMemcpyPeer(dst, 0, src, 0, values.nbytes))
        out = np.empty_like(values)
        ok(runtime.cudaMemcpy(out, dst, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        assert np.array_equal(out, values)
        stream = ok(runtime.cudaStreamCreate())
        ok(runtime.cudaMemset(dst, 0, values.nbytes))
        ok(runtime.cudaMemcpyPeerAsync(dst, 0, src, 0, values.nbytes, stream))
        ok(runtime.cudaStreamSynchronize(stream))
        ok(runtime.cudaStreamDestroy(stream))
        out[:] = 0
        ok(runtime.cudaMemcpy(out, dst, out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        assert np.array_equal(out, values)
    finally:
        ok(runtime.cudaFree(src))
        ok(runtime.cudaFree(dst))


@pytest.mark.gpu
def test_a_device_is_not_its_own_peer(cu):
    """The documented refusals: a P2P attribute of a device with itself (CUDA_ERROR_INVALID_DEVICE,
    cudaErrorInvalidDevice), peer access from a context to itself."""
    from cuda.bindings import runtime
    d = cu.driver
    attr = d.CUdevice_P2PAttribute.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED
    assert_failed(d.cuDeviceGetP2PAttribute(attr, cu.dev, cu.dev), d.CUresult.CUDA_ERROR_INVALID_DEVICE)
    assert_failed(runtime.cudaDeviceGetP2PAttribute(runtime.cudaDeviceP2PAttr.cudaDevP2PAttrAccessSupported, 0, 0),
                  runtime.cudaError_t.cudaErrorInvalidDevice)
    # both documented refusals apply (the peer is the current context; a device cannot access
    # itself as a peer): which the driver checks first is not documented
    res = d.cuCtxEnablePeerAccess(cu.ctx, 0)
    assert res[0] in (d.CUresult.CUDA_ERROR_INVALID_CONTEXT, d.CUresult.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED), res
    assert_failed(res, res[0])


# --- two devices: peer access -----------------------------------------------------------------------


@pytest.mark.two_gpus
def test_peer_queries_agree_between_driver_and_runtime(two_gpus):
    from cuda.bindings import runtime
    d = two_gpus.driver
    A, R = d.CUdevice_P2PAttribute, runtime.cudaDeviceP2PAttr
    pairs = {
        A.CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: R.cudaDevP2PAttrPerformanceRank,
        A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: R.cudaDevP2PAttrAccessSupported,
        A.CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: R.cudaDevP2PAttrNativeAtomicSupported,
        A.CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: R.cudaDevP2PAttrCudaArrayAccessSupported,
    }
    for i, j in ((0, 1), (1, 0)):
        can = ok(d.cuDeviceCanAccessPeer(two_gpus.devs[i], two_gpus.devs[j]))
        assert type(can) is int and can in (0, 1)
        assert ok(runtime.cudaDeviceCanAccessPeer(i, j)) == can
        for a, r in pairs.items():
            value = ok(d.cuDeviceGetP2PAttribute(a, two_gpus.devs[i], two_gpus.devs[j]))
            assert type(value) is int and value >= 0, (a, value)
            if a != A.CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
                assert value in (0, 1), (a, value)
            assert ok(runtime.cudaDeviceGetP2PAttribute(r, i, j)) == value, a
        access = ok(d.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
                                              two_gpus.devs[i], two_gpus.devs[j]))
        assert access == can


@pytest.mark.two_gpus
def test_enable_and_disable_peer_access_report_each_state(two_gpus):
    if not two_gpus.peer:
        pytest.skip("devices 0 and 1 cannot access each other's memory")
    d = two_gpus.driver
    R = d.CUresult
    peer = two_gpus.ctxs[0]
    two_gpus.use(1)
    start = d.cuCtxDisablePeerAccess(peer)[0]              # from "not enabled", whatever came before
    assert start in (R.CUDA_SUCCESS, R.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED), start
    assert_failed(d.cuCtxEnablePeerAccess(peer, 1), R.CUDA_ERROR_INVALID_VALUE)
    assert d.cuCtxEnablePeerAccess(peer, 0) == (R.CUDA_SUCCESS,)
    assert_failed(d.cuCtxEnablePeerAccess(peer, 0), R.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    assert d.cuCtxDisablePeerAccess(peer) == (R.CUDA_SUCCESS,)
    assert_failed(d.cuCtxDisablePeerAccess(peer), R.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)


@pytest.mark.two_gpus
def test_cuMemcpyPeer_and_async_both_ways(two_gpus, per_device):
    """Copies between the devices' contexts need no peer access (the driver stages them)."""
    d, (b0, b1), (s0, s1) = two_gpus.driver, per_device.bufs, per_device.streams
    values = np.random.default_rng(7).standard_normal(N).astype(np.float32)
    two_gpus.use(0)
    write_floats(d, b0, values)
    ok(d.cuMemcpyPeer(b1, two_gpus.ctxs[1], b0, two_gpus.ctxs[0], 4 * N))
    two_gpus.use(1)
    assert np.array_equal(read_floats(d, b1, N), values)
    # and back, on a stream of device 1, into a second buffer on device 0
    two_gpus.use(0)
    back = ok(d.cuMemAlloc(4 * N))
    try:
        ok(d.cuMemsetD32(back, 0, N))
        two_gpus.use(1)
        ok(d.cuMemcpyPeerAsync(back, two_gpus.ctxs[0], b1, two_gpus.ctxs[1], 4 * N, s1))
        ok(d.cuStreamSynchronize(s1))
        two_gpus.use(0)
        assert np.array_equal(read_floats(d, back, N), values)
    finally:
        two_gpus.use(0)
        ok(d.cuMemFree(back))


@pytest.mark.two_gpus
def test_cudaMemcpyPeer_and_async_between_devices(two_gpus):
    from cuda.bindings import runtime
    values = np.arange(N, dtype=np.float32) * 3
    ptrs = []
    for i in (0, 1):
        ok(runtime.cudaSetDevice(i))
        ptrs.append(ok(runtime.cudaMalloc(values.nbytes)))
    try:
        ok(runtime.cudaSetDevice(0))
        ok(runtime.cudaMemcpy(ptrs[0], values, values.nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
        ok(runtime.cudaMemcpyPeer(ptrs[1], 1, ptrs[0], 0, values.nbytes))
        ok(runtime.cudaSetDevice(1))
        out = np.zeros_like(values)
        ok(runtime.cudaMemcpy(out, ptrs[1], out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        assert np.array_equal(out, values)
        # device 1 scribbles its copy, then an async peer copy on a device-1 stream brings device 0's back
        ok(runtime.cudaMemset(ptrs[1], 0, values.nbytes))
        stream = ok(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
        ok(runtime.cudaMemcpyPeerAsync(ptrs[1], 1, ptrs[0], 0, values.nbytes, stream))
        ok(runtime.cudaStreamSynchronize(stream))
        ok(runtime.cudaStreamDestroy(stream))
        out[:] = 0
        ok(runtime.cudaMemcpy(out, ptrs[1], out.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        assert np.array_equal(out, values)
    finally:
        for i in (0, 1):
            ok(runtime.cudaSetDevice(i))
            ok(runtime.cudaFree(ptrs[i]))
        ok(runtime.cudaSetDevice(0))


@pytest.mark.two_gpus
def test_kernel_on_device1_reads_device0_memory(peers, kernels, per_device):
    d, (b0, b1), (s0, s1) = peers.driver, per_device.bufs, per_device.streams
    values = np.linspace(-1, 1, N, dtype=np.float32)
    peers.use(0)
    write_floats(d, b0, values)
    f1 = kernels.fn(1, "scale_from")                 # device 1's context is current now
    launch(d, f1, N, s1, (int(b0), int(b1), 2.0, N), F32)
    ok(d.cuStreamSynchronize(s1))
    assert np.array_equal(read_floats(d, b1, N), values * 2)
    # and the other way: device 0 reads device 1's result
    f0 = kernels.fn(0, "scale_from")
    launch(d, f0, N, s0, (int(b1), int(b0), 0.5, N), F32)
    ok(d.cuStreamSynchronize(s0))
    assert np.array_equal(read_floats(d, b0, N), values)


# --- two devices: streams and events ------------------------------------------------------------------


@pytest.mark.two_gpus
def test_work_on_both_devices_runs_at_once(two_gpus, kernels, per_device):
    """A 0.4 s kernel on each device's stream: queued together they take about 0.4 s, not 0.8."""
    d, streams = two_gpus.driver, per_device.streams
    spin = [kernels.fn(i, "spin") for i in (0, 1)]
    ns = 400_000_000
    for i in (0, 1):                                   # warm up (module load, first launch)
        two_gpus.use(i)
        launch_spin(d, spin[i], streams[i], 1000)
        ok(d.cuStreamSynchronize(streams[i]))
    t0 = time.perf_counter()
    for i in (0, 1):
        two_gpus.use(i)
        launch_spin(d, spin[i], streams[i], ns)
    for i in (0, 1):
        two_gpus.use(i)
        ok(d.cuStreamSynchronize(streams[i]))
    both = time.perf_counter() - t0
    assert 0.39 <= both < 0.7, f"two 0.4 s kernels on two devices took {both:.3f} s"


@pytest.mark.two_gpus
def test_stream_on_device1_waits_for_an_event_recorded_on_device0(two_gpus, kernels, per_device):
    """Device 0: spin 0.3 s, then fill its buffer with 5; event. Device 1: wait for the event, then
    copy device 0's buffer into its own (a peer copy, no kernel reading peer memory). Without the
    wait the copy would find zeros."""
    d, (b0, b1), (s0, s1) = two_gpus.driver, per_device.bufs, per_device.streams
    spin0, fill0 = kernels.fn(0, "spin"), kernels.fn(0, "fill")
    two_gpus.use(0)
    event = ok(d.cuEventCreate(d.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    try:
        launch_spin(d, spin0, s0, 300_000_000)
        launch(d, fill0, N, s0, (int(b0), 5.0, N), (ctypes.c_void_p, ctypes.c_float, ctypes.c_int))
        ok(d.cuEventRecord(event, s0))
        two_gpus.use(1)
        ok(d.cuStreamWaitEvent(s1, event, 0))
        ok(d.cuMemcpyPeerAsync(b1, two_gpus.ctxs[1], b0, two_gpus.ctxs[0], 4 * N, s1))
        assert d.cuEventQuery(event)[0] == d.CUresult.CUDA_ERROR_NOT_READY    # device 0 still spinning
        ok(d.cuStreamSynchronize(s1))
        assert d.cuEventQuery(event) == (d.CUresult.CUDA_SUCCESS,)
        got = read_floats(d, b1, N)
        assert np.all(got == 5.0), f"device 1 copied before device 0 filled: {got[:4]}"
    finally:
        two_gpus.use(0)
        ok(d.cuEventDestroy(event))


# --- two devices: memory pools and virtual memory ------------------------------------------------------


def _device_location(d, ordinal):
    loc = d.CUmemLocation()
    loc.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = ordinal
    return loc


def _access(d, ordinal, flags):
    desc = d.CUmemAccessDesc()
    desc.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = ordinal
    desc.flags = flags
    return desc


@pytest.mark.two_gpus
def test_memory_pool_of_device0_shared_with_device1(peers, kernels, per_device):
    d, (b0, b1), (s0, s1) = peers.driver, per_device.bufs, per_device.streams
    attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    if not ok(d.cuDeviceGetAttribute(attr, peers.devs[0])):
        pytest.skip("device 0 has no stream-ordered memory pools")
    RW = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    props = d.CUmemPoolProps()
    props.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.handleTypes = d.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE
    props.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = 0
    peers.use(0)
    pool = ok(d.cuMemPoolCreate(props))
    try:
        assert ok(d.cuMemPoolGetAccess(pool, _device_location(d, 0))) == RW
        assert ok(d.cuMemPoolGetAccess(pool, _device_location(d, 1))) == \
            d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE
        ok(d.cuMemPoolSetAccess(pool, [_access(d, 1, RW)], 1))
        got = ok(d.cuMemPoolGetAccess(pool, _device_location(d, 1)))
        assert got == RW and isinstance(got, d.CUmemAccess_flags)

        ptr = ok(d.cuMemAllocFromPoolAsync(4 * N, pool, s0))
        ok(d.cuMemsetD32Async(ptr, 0, N, s0))
        ok(d.cuStreamSynchronize(s0))
        values = np.arange(N, dtype=np.float32)
        peers.use(1)
        write_floats(d, b1, values)
        f1 = kernels.fn(1, "scale_from")               # device 1 writes into device 0's pool memory
        launch(d, f1, N, s1, (int(b1), int(ptr), 3.0, N), F32)
        ok(d.cuStreamSynchronize(s1))
        peers.use(0)
        assert np.array_equal(read_floats(d, ptr, N), values * 3)
        ok(d.cuMemFreeAsync(ptr, s0))
        ok(d.cuStreamSynchronize(s0))
    finally:
        peers.use(0)
        ok(d.cuMemPoolDestroy(pool))


@pytest.mark.two_gpus
def test_virtual_memory_mapped_for_both_devices(peers, kernels, per_device):
    d, (b0, b1), (s0, s1) = peers.driver, per_device.bufs, per_device.streams
    attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
    if not ok(d.cuDeviceGetAttribute(attr, peers.devs[0])):
        pytest.skip("device 0 has no virtual memory management")
    RW = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    prop = d.CUmemAllocationProp()
    prop.type = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 0
    granularity = ok(d.cuMemGetAllocationGranularity(
        prop, d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    size = -(-4 * N // granularity) * granularity
    peers.use(0)
    handle = ok(d.cuMemCreate(size, prop, 0))
    ptr = ok(d.cuMemAddressReserve(size, 0, 0, 0))
    mapped = False
    try:
        ok(d.cuMemMap(ptr, size, 0, handle, 0))
        mapped = True
        ok(d.cuMemSetAccess(ptr, size, [_access(d, 0, RW), _access(d, 1, RW)], 2))
        for i in (0, 1):
            assert ok(d.cuMemGetAccess(_device_location(d, i), ptr)) == RW
        values = np.arange(N, dtype=np.float32) - 100
        peers.use(0)
        write_floats(d, b0, values)
        f1 = kernels.fn(1, "scale_from")               # device 1: b0 (peer) -> the mapping on device 0
        launch(d, f1, N, s1, (int(b0), int(ptr), -1.0, N), F32)
        ok(d.cuStreamSynchronize(s1))
        f0 = kernels.fn(0, "scale_from")               # device 0 reads the mapping back into b0
        launch(d, f0, N, s0, (int(ptr), int(b0), 2.0, N), F32)
        ok(d.cuStreamSynchronize(s0))
        assert np.array_equal(read_floats(d, b0, N), values * -2)
    finally:
        peers.use(0)
        if mapped:
            ok(d.cuMemUnmap(ptr, size))
        ok(d.cuMemAddressFree(ptr, size))
        ok(d.cuMemRelease(handle))


# --- two devices: one graph, nodes on both --------------------------------------------------------------


def _kernel_node_params(d, kernel, ctx, n, values, types):
    p = d.CUDA_KERNEL_NODE_PARAMS()
    p.kern = kernel
    p.ctx = ctx
    p.gridDimX, p.gridDimY, p.gridDimZ = grid(n), 1, 1
    p.blockDimX, p.blockDimY, p.blockDimZ = BLOCK, 1, 1
    p.sharedMemBytes = 0
    p.kernelParams = (values, types)
    return p


@pytest.mark.two_gpus
def test_graph_with_nodes_on_both_devices(peers, kernels, per_device):
    """fill on device 0 -> peer memcpy node 0 -> 1 -> scale_from on device 1 (each kernel node a
    context-independent kernel with the context of its device), launched twice from a stream of
    device 0."""
    d, (b0, b1), (s0, s1) = peers.driver, per_device.bufs, per_device.streams
    peers.use(1)
    out1 = ok(d.cuMemAlloc(4 * N))
    peers.use(0)
    graph = ok(d.cuGraphCreate(0))
    exe = None
    try:
        fill = _kernel_node_params(d, kernels.kernel(0, "fill"), peers.ctxs[0], N,
                                   (int(b0), 1.5, N), (ctypes.c_void_p, ctypes.c_float, ctypes.c_int))
        n_fill = ok(d.cuGraphAddKernelNode(graph, None, 0, fill))

        copy = d.CUDA_MEMCPY3D()
        copy.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
        copy.srcDevice = b0
        copy.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
        copy.dstDevice = b1
        copy.WidthInBytes, copy.Height, copy.Depth = 4 * N, 1, 1
        copy.srcPitch = copy.dstPitch = 4 * N
        copy.srcHeight = copy.dstHeight = 1
        n_copy = ok(d.cuGraphAddMemcpyNode(graph, [n_fill], 1, copy, peers.ctxs[1]))

        scale = _kernel_node_params(d, kernels.kernel(1, "scale_from"), peers.ctxs[1], N,
                                    (int(b1), int(out1), 4.0, N), F32)
        n_scale = ok(d.cuGraphAddKernelNode(graph, [n_copy], 1, scale))

        nodes, count = ok(d.cuGraphGetNodes(graph, 3))
        assert count == 3 and {int(n) for n in nodes} == {int(n_fill), int(n_copy), int(n_scale)}
        types = [ok(d.cuGraphNodeGetType(n)) for n in (n_fill, n_copy, n_scale)]
        T = d.CUgraphNodeType
        assert types == [T.CU_GRAPH_NODE_TYPE_KERNEL, T.CU_GRAPH_NODE_TYPE_MEMCPY, T.CU_GRAPH_NODE_TYPE_KERNEL]

        exe = ok(d.cuGraphInstantiate(graph, 0))
        for _ in range(2):
            peers.use(1)
            ok(d.cuMemsetD32(out1, 0, N))
            peers.use(0)
            ok(d.cuGraphLaunch(exe, s0))
            ok(d.cuStreamSynchronize(s0))
            peers.use(1)
            got = read_floats(d, out1, N)
            assert np.all(got == 6.0), f"graph result on device 1: {got[:4]}"
        peers.use(0)
        assert np.all(read_floats(d, b0, N) == 1.5)
    finally:
        peers.use(0)
        if exe is not None:
            ok(d.cuGraphExecDestroy(exe))
        ok(d.cuGraphDestroy(graph))
        peers.use(1)
        ok(d.cuMemFree(out1))
        peers.use(0)
