"""Exclusive prefix sums of many arrays at once, port of the CUDA sample scan, through the driver
API (the sample uses the runtime).

API area: several kernels of one module chained on the default stream (cuLaunchKernel with an
argument tuple), device scratch memory kept between calls, cuCtxSynchronize around timed loops.

As in the sample, an input of 13 * 2^20 / 2 random 32-bit words is cut into arrays of one length
and every array is scanned:
  * short arrays (4 to 1024 elements): one kernel, each block scanning 1024 elements held four per
    thread (uint4), arrays being power-of-two groups of threads;
  * large arrays (2048 to 262144 elements): the same kernel on 1024-element chunks, a second kernel
    scanning the chunk totals of each array, and a third adding those offsets back.
Each length runs 100 times for the time, then the result is compared with numpy (sums wrap
around at 2^32, as unsigned ints do).

The kernels are this port's own: the scan within a group of threads is done with warp shuffles
and one shared-memory step between warps (the sample uses a shared-memory scan throughout).

Run: python examples/2_Concepts_and_Techniques/scan.py
Exit status: 0 when every length matches numpy, 1 otherwise, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

THREADBLOCK_SIZE = 256

SCAN_KERNELS = b"""
#define THREADBLOCK_SIZE %d
typedef unsigned int uint;

// Inclusive scan of one value per thread over each group of `width` consecutive threads of the
// block (width a power of two, 1 to THREADBLOCK_SIZE): a shuffle scan within each warp, then the
// totals of the earlier warps of the group added through shared memory. Every thread of the
// block must call it.
__device__ uint scanGroupInclusive(uint value, uint width)
{
    __shared__ uint warpTotals[THREADBLOCK_SIZE / 32];
    const uint lane = threadIdx.x & 31;
    const uint warp = threadIdx.x >> 5;
    const uint laneWidth = width < 32 ? width : 32;

    for (uint offset = 1; offset < laneWidth; offset <<= 1) {
        uint below = __shfl_up_sync(0xffffffffu, value, offset, laneWidth);
        if ((lane & (laneWidth - 1)) >= offset)
            value += below;
    }
    if (width > 32) {
        if (lane == 31)
            warpTotals[warp] = value;
        __syncthreads();
        const uint firstWarpOfGroup = warp & ~(width / 32 - 1);
        for (uint w = firstWarpOfGroup; w < warp; ++w)
            value += warpTotals[w];
        __syncthreads();  // warpTotals is written again by the next call
    }
    return value;
}

// Exclusive scan of arrays of `size` elements (4 to 4 * THREADBLOCK_SIZE, a power of two), four
// consecutive elements per thread.
extern "C" __global__ void scanExclusiveShared(uint4 *d_Dst, const uint4 *d_Src, uint size)
{
    const uint pos = blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 in = d_Src[pos];

    // inclusive sums within the thread, then the exclusive sum of the threads before it
    const uint s1 = in.x, s2 = s1 + in.y, s3 = s2 + in.z, s4 = s3 + in.w;
    const uint before = scanGroupInclusive(s4, size / 4) - s4;

    d_Dst[pos] = make_uint4(before, before + s1, before + s2, before + s3);
}

// Exclusive scan of the totals of the 4 * THREADBLOCK_SIZE-element chunks, in groups of
// `arrayLength` chunks (one group per array); N is the number of chunks.
extern "C" __global__ void scanExclusiveShared2(uint *d_Buf, const uint *d_Dst, const uint *d_Src,
                                                uint N, uint arrayLength)
{
    const uint pos = blockIdx.x * blockDim.x + threadIdx.x;
    const uint last = (4 * THREADBLOCK_SIZE) * pos + (4 * THREADBLOCK_SIZE) - 1;

    // a chunk's total: the exclusive sum at its last element plus that element
    const uint total = pos < N ? d_Dst[last] + d_Src[last] : 0;
    const uint before = scanGroupInclusive(total, arrayLength) - total;
    if (pos < N)
        d_Buf[pos] = before;
}

// Add each chunk's offset within its array to the chunk's elements.
extern "C" __global__ void uniformUpdate(uint4 *d_Data, const uint *d_Buffer)
{
    __shared__ uint offset;
    const uint pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        offset = d_Buffer[blockIdx.x];
    __syncthreads();

    uint4 data = d_Data[pos];
    data.x += offset;
    data.y += offset;
    data.z += offset;
    data.w += offset;
    d_Data[pos] = data;
}
""" % THREADBLOCK_SIZE

# implementation limits, as the sample defines them
MAX_BATCH_ELEMENTS = 64 * 1048576
MIN_SHORT_ARRAY_SIZE = 4
MAX_SHORT_ARRAY_SIZE = 4 * THREADBLOCK_SIZE
MIN_LARGE_ARRAY_SIZE = 8 * THREADBLOCK_SIZE
MAX_LARGE_ARRAY_SIZE = 4 * THREADBLOCK_SIZE * THREADBLOCK_SIZE

U = ctypes.c_uint


def is_power_of_two(n):
    return n > 0 and n & (n - 1) == 0


def i_div_up(a, b):
    return -(-a // b)


class Scan:
    """initScan / scanExclusiveShort / scanExclusiveLarge / closeScan."""

    def __init__(self, module):
        self.shared = check(driver.cuModuleGetFunction(module, b"scanExclusiveShared"))
        self.shared2 = check(driver.cuModuleGetFunction(module, b"scanExclusiveShared2"))
        self.uniform_update = check(driver.cuModuleGetFunction(module, b"uniformUpdate"))
        # internal buffer: one offset per 4 * THREADBLOCK_SIZE-element chunk
        self.d_buf = check(driver.cuMemAlloc(MAX_BATCH_ELEMENTS // (4 * THREADBLOCK_SIZE) * 4))

    def close(self):
        check(driver.cuMemFree(self.d_buf))

    def exclusive_short(self, d_dst, d_src, batch_size, array_length):
        assert is_power_of_two(array_length)
        assert MIN_SHORT_ARRAY_SIZE <= array_length <= MAX_SHORT_ARRAY_SIZE
        assert batch_size * array_length <= MAX_BATCH_ELEMENTS
        assert batch_size * array_length % (4 * THREADBLOCK_SIZE) == 0
        blocks = batch_size * array_length // (4 * THREADBLOCK_SIZE)
        check(driver.cuLaunchKernel(self.shared, blocks, 1, 1, THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((d_dst, d_src, array_length), (None, None, U)), None))
        return THREADBLOCK_SIZE

    def exclusive_large(self, d_dst, d_src, batch_size, array_length):
        assert is_power_of_two(array_length)
        assert MIN_LARGE_ARRAY_SIZE <= array_length <= MAX_LARGE_ARRAY_SIZE
        assert batch_size * array_length <= MAX_BATCH_ELEMENTS
        chunks = batch_size * array_length // (4 * THREADBLOCK_SIZE)
        check(driver.cuLaunchKernel(self.shared, chunks, 1, 1, THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((d_dst, d_src, 4 * THREADBLOCK_SIZE), (None, None, U)), None))
        # not every block of this one is full: threads past the last chunk just add nothing
        check(driver.cuLaunchKernel(
            self.shared2, i_div_up(chunks, THREADBLOCK_SIZE), 1, 1, THREADBLOCK_SIZE, 1, 1, 0, None,
            ((self.d_buf, d_dst, d_src, chunks, array_length // (4 * THREADBLOCK_SIZE)), (None, None, None, U, U)),
            None))
        check(driver.cuLaunchKernel(self.uniform_update, chunks, 1, 1, THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((d_dst, self.d_buf), (None, None)), None))
        return THREADBLOCK_SIZE


def scan_exclusive_host(src, batch_size, array_length):
    """scanExclusiveHost: the exclusive prefix sums of each array, wrapping at 2^32."""
    arrays = src.reshape(batch_size, array_length)
    return (np.cumsum(arrays, axis=1, dtype=np.uint32) - arrays).reshape(-1)


def run_lengths(lengths, scan_fn, d_output, d_input, h_input, N, i_cycles):
    ok = True
    for array_length in lengths:
        batch = N // array_length
        print(f"Running scan for {array_length} elements ({batch} arrays)...")
        check(driver.cuCtxSynchronize())
        start = time.perf_counter()
        workgroup = 0
        for _ in range(i_cycles):
            workgroup = scan_fn(d_output, d_input, batch, array_length)
        check(driver.cuCtxSynchronize())
        seconds = (time.perf_counter() - start) / i_cycles

        print("Validating the results...")
        print("...reading back GPU results")
        h_output_gpu = np.empty(N, dtype=np.uint32)
        check(driver.cuMemcpyDtoH(h_output_gpu, d_output, N * 4))
        print(" ...scanExclusiveHost()")
        h_output_cpu = scan_exclusive_host(h_input, batch, array_length)
        print(" ...comparing the results")
        local = bool(np.array_equal(h_output_cpu, h_output_gpu))
        print(" ...Results " + ("Match" if local else "DON'T Match !!!") + "\n")
        ok = ok and local
        if array_length == lengths[-1]:
            print(f"\nscan, Throughput = {1e-6 * array_length / seconds:.4f} MElements/s, Time = {seconds:.5f} s, "
                  f"Size = {array_length} Elements, NumDevsUsed = 1, Workgroup = {workgroup}\n")
    return ok


def main():
    print(f"{sys.argv[0]} Starting...\n")
    dev, _ctx = select_device(0)
    print(f"> Using CUDA device [0]: {device_name(dev)}")
    cubin = compile_source(SCAN_KERNELS, device_arch(dev), fmt="cubin", name=b"scan.cu")
    module = check(driver.cuModuleLoadData(cubin))

    N = 13 * 1048576 // 2
    print("Allocating and initializing host arrays...")
    rng = np.random.default_rng(2009)
    h_input = rng.integers(0, 2**31, size=N, dtype=np.uint32)  # rand()'s range

    print("Allocating and initializing CUDA arrays...")
    d_input = check(driver.cuMemAlloc(N * 4))
    d_output = check(driver.cuMemAlloc(N * 4))
    check(driver.cuMemcpyHtoD(d_input, h_input, N * 4))

    print("Initializing CUDA-C scan...\n")
    scan = Scan(module)
    i_cycles = 100

    print(f"*** Running GPU scan for short arrays ({i_cycles} identical iterations)...\n")
    short = [1 << k for k in range(MIN_SHORT_ARRAY_SIZE.bit_length() - 1, MAX_SHORT_ARRAY_SIZE.bit_length())]
    ok = run_lengths(short, scan.exclusive_short, d_output, d_input, h_input, N, i_cycles)

    print(f"***Running GPU scan for large arrays ({i_cycles} identical iterations)...\n")
    large = [1 << k for k in range(MIN_LARGE_ARRAY_SIZE.bit_length() - 1, MAX_LARGE_ARRAY_SIZE.bit_length())]
    ok = run_lengths(large, scan.exclusive_large, d_output, d_input, h_input, N, i_cycles) and ok

    print("Shutting down...")
    scan.close()
    check(driver.cuMemFree(d_output))
    check(driver.cuMemFree(d_input))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("scan: " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
