"""Stream-ordered memory allocation with the CUDA runtime: `cudaMallocAsync` / `cudaFreeAsync` put
allocations and frees in a stream, between the copies and kernels that use the memory.

  1. basic: allocate, copy in, add, free the inputs, copy out, free the output, all in one stream;
  2. the device's default memory pool keeps freed memory when its release threshold
     (`cudaMemPoolAttrReleaseThreshold`) is raised, so later iterations of the same work allocate
     without going back to the operating system; the pool's counters say how much it holds;
  3. an explicit pool (`cudaMemPoolCreate`), used through `cudaMallocFromPoolAsync` and as the
     device's current pool (`cudaDeviceSetMemPool`), then trimmed and destroyed.

The kernel is compiled by NVRTC and loaded with `cudaLibraryLoadData`; the runtime kernel handle is
launched with the driver's `cuLaunchKernel`, in the runtime's stream: the CUDA runtime's own launch
call, `cudaLaunchKernel`, is in this package's runtime module but not in NVIDIA's (12.9 to 13.5), and
the program runs on either.

Exit status: 0 on correct results, 1 on a wrong one, 3 when no CUDA device with memory pools is
available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, requirement_not_met  # noqa: E402
from common.cuda_extras import select_runtime_device  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

VECTOR_ADD_GPU = b"""
extern "C" __global__ void vectorAddGPU(const float *a, const float *b, float *c, int N)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) c[idx] = a[idx] + b[idx];
}
"""

PTX_ARCH = "75"
MAX_ITER = 20
UINT64_MAX = (1 << 64) - 1

H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
Attr = runtime.cudaMemPoolAttr


def launch_add(kernel, d_a, d_b, d_c, nelem, stream):
    block = 256
    grid = (nelem + block - 1) // block
    args = ((d_a, d_b, d_c, nelem), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    check(driver.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, stream, args, 0))


def add_in_stream(kernel, a, b, c, stream, alloc):
    """One round of the sample's work: allocate, copy in, add, free, copy out, free."""
    nbytes = a.nbytes
    d_a = alloc(nbytes)
    d_b = alloc(nbytes)
    d_c = alloc(nbytes)
    check(runtime.cudaMemcpyAsync(d_a, a, nbytes, H2D, stream))
    check(runtime.cudaMemcpyAsync(d_b, b, nbytes, H2D, stream))
    launch_add(kernel, d_a, d_b, d_c, a.size, stream)
    check(runtime.cudaFreeAsync(d_a, stream))
    check(runtime.cudaFreeAsync(d_b, stream))
    check(runtime.cudaMemcpyAsync(c, d_c, nbytes, D2H, stream))
    check(runtime.cudaFreeAsync(d_c, stream))


def correct(a, b, c):
    return bool(np.all(np.abs(a + b - c) <= 1e-6))


def pool_bytes(pool, attr):
    return int(check(runtime.cudaMemPoolGetAttribute(pool, attr)))


def main():
    ptx = compile_source(VECTOR_ADD_GPU, PTX_ARCH, fmt="ptx", name=b"streamOrderedAllocation.cu")
    print(f"NVRTC compiled vectorAddGPU to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev = select_runtime_device(0)
    pools = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrMemoryPoolsSupported, dev))
    if not pools:
        requirement_not_met("device 0 does not support memory pools (cudaMallocAsync)")
    name = check(runtime.cudaGetDeviceProperties(dev)).name.split(b"\0", 1)[0].decode()
    print(f"Device 0: {name} supports stream-ordered allocation")

    library = check(runtime.cudaLibraryLoadData(ptx, None, None, 0, None, None, 0))
    kernel = check(runtime.cudaLibraryGetKernel(library, b"vectorAddGPU"))
    stream = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))

    nelem = 1 << 22
    nbytes = nelem * 4
    rng = np.random.default_rng(5)
    a = rng.random(nelem, dtype=np.float32)
    b = rng.random(nelem, dtype=np.float32)
    results = {}

    def from_current_pool(size):
        return check(runtime.cudaMallocAsync(size, stream))

    # 1. basic stream-ordered allocation
    c = np.zeros_like(a)
    add_in_stream(kernel, a, b, c, stream, from_current_pool)
    check(runtime.cudaStreamSynchronize(stream))
    results["basic"] = correct(a, b, c)
    print(f"1. cudaMallocAsync/cudaFreeAsync in one stream, {nelem} elements: "
          f"{'ok' if results['basic'] else 'WRONG RESULT'}")

    # 2. the default pool keeps its memory across synchronizations once the threshold is raised
    default_pool = check(runtime.cudaDeviceGetDefaultMemPool(dev))
    check(runtime.cudaMemPoolSetAttribute(default_pool, Attr.cudaMemPoolAttrReleaseThreshold,
                                          driver.cuuint64_t(UINT64_MAX)))
    threshold = pool_bytes(default_pool, Attr.cudaMemPoolAttrReleaseThreshold)
    start = check(runtime.cudaEventCreate())
    end = check(runtime.cudaEventCreate())
    check(runtime.cudaEventRecord(start, stream))
    ok = True
    for _ in range(MAX_ITER):
        c = np.zeros_like(a)
        add_in_stream(kernel, a, b, c, stream, from_current_pool)
        check(runtime.cudaStreamSynchronize(stream))  # without the threshold this would give memory back
        ok = ok and correct(a, b, c)
    check(runtime.cudaEventRecord(end, stream))
    check(runtime.cudaEventSynchronize(end))
    ms = check(runtime.cudaEventElapsedTime(start, end))
    reserved = pool_bytes(default_pool, Attr.cudaMemPoolAttrReservedMemCurrent)
    used = pool_bytes(default_pool, Attr.cudaMemPoolAttrUsedMemCurrent)
    used_high = pool_bytes(default_pool, Attr.cudaMemPoolAttrUsedMemHigh)
    # all freed, but the pool still holds at least one round's worth of memory
    results["post-sync"] = ok and threshold == UINT64_MAX and used == 0 and reserved >= 3 * nbytes \
        and used_high >= 3 * nbytes
    print(f"2. default pool, release threshold {threshold:#x}: {MAX_ITER} rounds with a stream "
          f"synchronize each took {ms:.3f} ms ({ms / MAX_ITER:.3f} ms a round); pool reserves "
          f"{reserved} bytes, {used} in use, high-water mark {used_high}: "
          f"{'ok' if results['post-sync'] else 'WRONG RESULT'}")
    check(runtime.cudaMemPoolSetAttribute(default_pool, Attr.cudaMemPoolAttrReleaseThreshold,
                                          driver.cuuint64_t(0)))
    check(runtime.cudaMemPoolTrimTo(default_pool, 0))
    print(f"   after the threshold went back to 0 and cudaMemPoolTrimTo(pool, 0): "
          f"{pool_bytes(default_pool, Attr.cudaMemPoolAttrReservedMemCurrent)} bytes reserved")

    # 3. an explicit pool of device memory
    props = runtime.cudaMemPoolProps()
    props.allocType = runtime.cudaMemAllocationType.cudaMemAllocationTypePinned
    props.location.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    props.location.id = dev
    pool = check(runtime.cudaMemPoolCreate(props))
    check(runtime.cudaMemPoolSetAttribute(pool, Attr.cudaMemPoolAttrReleaseThreshold,
                                          driver.cuuint64_t(4 * nbytes)))

    c = np.zeros_like(a)
    add_in_stream(kernel, a, b, c, stream,
                  lambda size: check(runtime.cudaMallocFromPoolAsync(size, pool, stream)))
    check(runtime.cudaStreamSynchronize(stream))
    ok_from_pool = correct(a, b, c)
    high = pool_bytes(pool, Attr.cudaMemPoolAttrUsedMemHigh)

    # the same pool as the device's current pool: plain cudaMallocAsync now draws from it
    check(runtime.cudaDeviceSetMemPool(dev, pool))
    current_is_pool = check(runtime.cudaDeviceGetMemPool(dev)) == pool
    c = np.zeros_like(a)
    add_in_stream(kernel, a, b, c, stream, from_current_pool)
    check(runtime.cudaStreamSynchronize(stream))
    ok_current = correct(a, b, c)
    check(runtime.cudaDeviceSetMemPool(dev, default_pool))

    reserved = pool_bytes(pool, Attr.cudaMemPoolAttrReservedMemCurrent)
    check(runtime.cudaMemPoolTrimTo(pool, 0))
    trimmed = pool_bytes(pool, Attr.cudaMemPoolAttrReservedMemCurrent)
    results["explicit pool"] = ok_from_pool and ok_current and current_is_pool and high >= 3 * nbytes \
        and trimmed <= reserved
    print(f"3. explicit pool: cudaMallocFromPoolAsync {'ok' if ok_from_pool else 'WRONG RESULT'}, "
          f"as the device's current pool ({'set' if current_is_pool else 'NOT SET'}) "
          f"{'ok' if ok_current else 'WRONG RESULT'}; high-water mark {high} bytes; reserved "
          f"{reserved} bytes, {trimmed} after trimming")
    check(runtime.cudaMemPoolDestroy(pool))

    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(end))
    check(runtime.cudaStreamDestroy(stream))
    check(runtime.cudaLibraryUnload(library))
    good = all(results.values())
    print("stream-ordered allocation: " + ("all results ok" if good else
          "WRONG RESULT in " + ", ".join(k for k, v in results.items() if not v)))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
