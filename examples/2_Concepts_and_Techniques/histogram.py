"""64-bin and 256-bin histograms of 64 MiB of bytes, port of the CUDA sample histogram, through the
driver API (the sample uses the runtime).

API area: two-pass GPU reductions with module kernels: many blocks each build a partial histogram
in shared memory (shared-memory atomics, per-warp sub-histograms), then a merge kernel adds the
partial histograms bin by bin; launched with cuLaunchKernel, timed between cuCtxSynchronize calls.

As in the sample: the 64-bin histogram counts the upper six bits of each byte, reading the data
16 bytes (uint4) per thread, with one partial histogram per block of 64 threads and as many
blocks as histogram64() computes from the byte count; the 256-bin histogram reads 32-bit words,
with 240 blocks of 6 warps. Each runs once to warm up and 16 times for the time; the results are
compared with numpy's bincount. The kernels are this port's own.

Run: python examples/2_Concepts_and_Techniques/histogram.py
Exit status: 0 when both histograms match numpy, 1 otherwise, 3 when no CUDA device is available.
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

HISTOGRAM64_BIN_COUNT = 64
HISTOGRAM256_BIN_COUNT = 256
WARP_SIZE = 32
HISTOGRAM64_THREADBLOCK_SIZE = 64
WARP_COUNT = 6
HISTOGRAM256_THREADBLOCK_SIZE = WARP_COUNT * WARP_SIZE
MERGE_THREADBLOCK_SIZE = 256
MAX_PARTIAL_HISTOGRAM64_COUNT = 32768
PARTIAL_HISTOGRAM256_COUNT = 240
DATA_T_SIZE = 16  # histogram64 reads uint4

HISTOGRAM_KERNELS = b"""
#define HISTOGRAM64_BIN_COUNT %d
#define HISTOGRAM256_BIN_COUNT %d
#define HISTOGRAM64_THREADBLOCK_SIZE %d
#define HISTOGRAM256_THREADBLOCK_SIZE %d
#define MERGE_THREADBLOCK_SIZE %d
#define WARP_SIZE 32
typedef unsigned int uint;

// Count the four bytes of a word into a warp's sub-histogram; `shift` drops low bits of each byte
// (2 for 64 bins, 0 for 256).
__device__ __forceinline__ void countWord(uint *warpHist, uint word, uint shift, uint binMask)
{
    atomicAdd(warpHist + ((word >> (0 + shift)) & binMask), 1u);
    atomicAdd(warpHist + ((word >> (8 + shift)) & binMask), 1u);
    atomicAdd(warpHist + ((word >> (16 + shift)) & binMask), 1u);
    atomicAdd(warpHist + ((word >> (24 + shift)) & binMask), 1u);
}

// Sum a bin over the block's warps and write the block's partial histogram.
template <int BINS, int WARPS>
__device__ void writePartial(uint *d_PartialHistograms, const uint *s_Hist)
{
    for (uint bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        uint sum = 0;
        for (int w = 0; w < WARPS; ++w)
            sum += s_Hist[w * BINS + bin];
        d_PartialHistograms[blockIdx.x * BINS + bin] = sum;
    }
}

// One 64-bin partial histogram per block, from 16-byte loads (grid-stride loop).
extern "C" __global__ void histogram64Kernel(uint *d_PartialHistograms, const uint4 *d_Data,
                                             uint dataCount)
{
    const int WARPS = HISTOGRAM64_THREADBLOCK_SIZE / WARP_SIZE;
    __shared__ uint s_Hist[WARPS * HISTOGRAM64_BIN_COUNT];
    for (uint i = threadIdx.x; i < WARPS * HISTOGRAM64_BIN_COUNT; i += blockDim.x)
        s_Hist[i] = 0;
    __syncthreads();

    uint *warpHist = s_Hist + (threadIdx.x / WARP_SIZE) * HISTOGRAM64_BIN_COUNT;
    for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
        const uint4 data = d_Data[pos];
        countWord(warpHist, data.x, 2, 0x3FU);
        countWord(warpHist, data.y, 2, 0x3FU);
        countWord(warpHist, data.z, 2, 0x3FU);
        countWord(warpHist, data.w, 2, 0x3FU);
    }
    __syncthreads();
    writePartial<HISTOGRAM64_BIN_COUNT, WARPS>(d_PartialHistograms, s_Hist);
}

// One 256-bin partial histogram per block, from 4-byte loads.
extern "C" __global__ void histogram256Kernel(uint *d_PartialHistograms, const uint *d_Data,
                                              uint dataCount)
{
    const int WARPS = HISTOGRAM256_THREADBLOCK_SIZE / WARP_SIZE;
    __shared__ uint s_Hist[WARPS * HISTOGRAM256_BIN_COUNT];
    for (uint i = threadIdx.x; i < WARPS * HISTOGRAM256_BIN_COUNT; i += blockDim.x)
        s_Hist[i] = 0;
    __syncthreads();

    uint *warpHist = s_Hist + (threadIdx.x / WARP_SIZE) * HISTOGRAM256_BIN_COUNT;
    for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x)
        countWord(warpHist, d_Data[pos], 0, 0xFFU);
    __syncthreads();
    writePartial<HISTOGRAM256_BIN_COUNT, WARPS>(d_PartialHistograms, s_Hist);
}

// One block per bin adds that bin over all partial histograms (a shared-memory tree at the end).
template <int BINS>
__device__ void mergeBin(uint *d_Histogram, const uint *d_PartialHistograms, uint histogramCount)
{
    __shared__ uint data[MERGE_THREADBLOCK_SIZE];
    uint sum = 0;
    for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
        sum += d_PartialHistograms[i * BINS + blockIdx.x];
    data[threadIdx.x] = sum;
    for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride)
            data[threadIdx.x] += data[threadIdx.x + stride];
    }
    if (threadIdx.x == 0)
        d_Histogram[blockIdx.x] = data[0];
}

extern "C" __global__ void mergeHistogram64Kernel(uint *d_Histogram, const uint *d_PartialHistograms,
                                                  uint histogramCount)
{
    mergeBin<HISTOGRAM64_BIN_COUNT>(d_Histogram, d_PartialHistograms, histogramCount);
}

extern "C" __global__ void mergeHistogram256Kernel(uint *d_Histogram, const uint *d_PartialHistograms,
                                                   uint histogramCount)
{
    mergeBin<HISTOGRAM256_BIN_COUNT>(d_Histogram, d_PartialHistograms, histogramCount);
}
""" % (HISTOGRAM64_BIN_COUNT, HISTOGRAM256_BIN_COUNT, HISTOGRAM64_THREADBLOCK_SIZE,
       HISTOGRAM256_THREADBLOCK_SIZE, MERGE_THREADBLOCK_SIZE)

NUM_RUNS = 16
U = ctypes.c_uint


def i_div_up(a, b):
    return -(-a // b)


def i_snap_down(a, b):
    return a - a % b


class Histogram64:
    """initHistogram64 / histogram64 / closeHistogram64."""

    def __init__(self, module):
        self.kernel = check(driver.cuModuleGetFunction(module, b"histogram64Kernel"))
        self.merge = check(driver.cuModuleGetFunction(module, b"mergeHistogram64Kernel"))
        self.d_partial = check(driver.cuMemAlloc(MAX_PARTIAL_HISTOGRAM64_COUNT * HISTOGRAM64_BIN_COUNT * 4))

    def __call__(self, d_histogram, d_data, byte_count):
        # the sample's partial count: each thread of the sample's kernel may count at most 255
        # bytes into its byte-sized counters
        histogram_count = i_div_up(byte_count, HISTOGRAM64_THREADBLOCK_SIZE * i_snap_down(255, DATA_T_SIZE))
        assert byte_count % DATA_T_SIZE == 0
        assert histogram_count <= MAX_PARTIAL_HISTOGRAM64_COUNT
        check(driver.cuLaunchKernel(self.kernel, histogram_count, 1, 1, HISTOGRAM64_THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((self.d_partial, d_data, byte_count // DATA_T_SIZE), (None, None, U)), None))
        check(driver.cuLaunchKernel(self.merge, HISTOGRAM64_BIN_COUNT, 1, 1, MERGE_THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((d_histogram, self.d_partial, histogram_count), (None, None, U)), None))

    def close(self):
        check(driver.cuMemFree(self.d_partial))


class Histogram256:
    """initHistogram256 / histogram256 / closeHistogram256."""

    def __init__(self, module):
        self.kernel = check(driver.cuModuleGetFunction(module, b"histogram256Kernel"))
        self.merge = check(driver.cuModuleGetFunction(module, b"mergeHistogram256Kernel"))
        self.d_partial = check(driver.cuMemAlloc(PARTIAL_HISTOGRAM256_COUNT * HISTOGRAM256_BIN_COUNT * 4))

    def __call__(self, d_histogram, d_data, byte_count):
        assert byte_count % 4 == 0
        check(driver.cuLaunchKernel(self.kernel, PARTIAL_HISTOGRAM256_COUNT, 1, 1, HISTOGRAM256_THREADBLOCK_SIZE, 1, 1,
                                    0, None, ((self.d_partial, d_data, byte_count // 4), (None, None, U)), None))
        check(driver.cuLaunchKernel(self.merge, HISTOGRAM256_BIN_COUNT, 1, 1, MERGE_THREADBLOCK_SIZE, 1, 1, 0, None,
                                    ((d_histogram, self.d_partial, PARTIAL_HISTOGRAM256_COUNT), (None, None, U)),
                                    None))

    def close(self):
        check(driver.cuMemFree(self.d_partial))


def run(name, histogram, bins, threadblock_size, d_histogram, d_data, h_data, byte_count):
    print(f"Running {name} GPU histogram for {byte_count} bytes ({NUM_RUNS} runs)...\n")
    start = 0.0
    for it in range(-1, NUM_RUNS):  # iteration -1 warms up
        if it == 0:
            check(driver.cuCtxSynchronize())
            start = time.perf_counter()
        histogram(d_histogram, d_data, byte_count)
    check(driver.cuCtxSynchronize())
    avg = (time.perf_counter() - start) / NUM_RUNS
    print(f"{name}() time (average) : {avg:.5f} sec, {byte_count * 1e-6 / avg:.4f} MB/sec\n")
    print(f"{name}, Throughput = {1e-6 * byte_count / avg:.4f} MB/s, Time = {avg:.5f} s, Size = {byte_count} Bytes, "
          f"NumDevsUsed = 1, Workgroup = {threadblock_size}")

    print("\nValidating GPU results...")
    print(" ...reading back GPU results")
    h_histogram_gpu = np.empty(bins, dtype=np.uint32)
    check(driver.cuMemcpyDtoH(h_histogram_gpu, d_histogram, bins * 4))
    print(f" ...{name}CPU()")
    h_histogram_cpu = np.bincount(h_data >> (8 - (bins.bit_length() - 1)), minlength=bins)
    print(" ...comparing the results")
    ok = bool(np.array_equal(h_histogram_cpu, h_histogram_gpu))
    print(f" ...{bins}-bin histograms match\n" if ok else f" ***{bins}-bin histograms do not match!!!***\n")
    return ok


def main():
    print("[[histogram]] - Starting...")
    dev, _ctx = select_device(0)
    sm_count = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))
    arch = device_arch(dev)
    print(f"CUDA device [{device_name(dev)}] has {sm_count} Multi-Processors, Compute {arch[:-1]}.{arch[-1]}")
    cubin = compile_source(HISTOGRAM_KERNELS, arch, fmt="cubin", name=b"histogram.cu")
    module = check(driver.cuModuleLoadData(cubin))

    byte_count = 64 * 1048576
    print("Initializing data...")
    print("...allocating CPU memory.")
    print("...generating input data")
    h_data = np.random.default_rng(2009).integers(0, 256, size=byte_count, dtype=np.uint8)
    print("...allocating GPU memory and copying input data\n")
    d_data = check(driver.cuMemAlloc(byte_count))
    d_histogram = check(driver.cuMemAlloc(HISTOGRAM256_BIN_COUNT * 4))
    check(driver.cuMemcpyHtoD(d_data, h_data, byte_count))

    print("Starting up 64-bin histogram...\n")
    h64 = Histogram64(module)
    ok64 = run("histogram64", h64, HISTOGRAM64_BIN_COUNT, HISTOGRAM64_THREADBLOCK_SIZE,
               d_histogram, d_data, h_data, byte_count)
    print("Shutting down 64-bin histogram...\n\n")
    h64.close()

    print("Initializing 256-bin histogram...")
    h256 = Histogram256(module)
    ok256 = run("histogram256", h256, HISTOGRAM256_BIN_COUNT, HISTOGRAM256_THREADBLOCK_SIZE,
                d_histogram, d_data, h_data, byte_count)
    print("Shutting down 256-bin histogram...\n\n")
    h256.close()

    print("Shutting down...")
    check(driver.cuMemFree(d_histogram))
    check(driver.cuMemFree(d_data))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("[histogram] - Test Summary")
    ok = ok64 and ok256
    print("Test passed" if ok else "Test failed!")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
