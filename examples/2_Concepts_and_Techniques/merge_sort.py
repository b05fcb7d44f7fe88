"""Sorting key-value pairs with a GPU merge sort, the Python twin of the CUDA sample mergeSort.
API area: a multi-kernel algorithm driven from the host (many cudaLaunchKernel calls with
changing grids, device-to-device cudaMemcpy between them), templated kernels instantiated for
both sort directions.

4M keys below 65536 (values: their original positions) are sorted in ascending order as the
sample does (Satish, Harris and Garland's merge sort): each block of 512 threads first sorts
1024 pairs in shared memory by merging runs of 1, 2, 4, ... with binary searches; then runs
of 1024, 2048, ... are merged pairwise over the whole array, each merge in three kernels: the
ranks of every 128th key of each run in the other run, those ranks merged into the limits of
elementary intervals, and the intervals merged in shared memory. Two buffers take turns as
input and output.

Checked with numpy, as the sample's validation does (keys in order and the same multiset of
keys as the input; every value the index of a source element with that key) and more: the
merge sort is stable, so the values must equal numpy's stable argsort of the keys.

The sample's template kernels are instantiated here as extern "C" kernels, one per sort direction
(`..._1` ascending, `..._0` descending); its bitonic variants (bitonic.cu), unused by its
mergeSort(), are left out.

Run: python examples/2_Concepts_and_Techniques/merge_sort.py
Exit status: 0 on a correct sort, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from cuda.bindings import runtime  # noqa: E402

SHARED_SIZE_LIMIT = 1024
SAMPLE_STRIDE = 128
MAX_SAMPLE_COUNT = 32768

KERNELS = b"""
#define SHARED_SIZE_LIMIT 1024U
#define SAMPLE_STRIDE 128
typedef unsigned int uint;

static __device__ uint iDivUp(uint a, uint b) { return (a + b - 1) / b; }
static __device__ uint getSampleCount(uint dividend) { return iDivUp(dividend, SAMPLE_STRIDE); }

// the smallest power of two >= x (for x >= 1)
static __device__ uint nextPowerOfTwo(uint x) { return 1U << (32 - __clz(x - 1)); }

// does `a` go before `b` in the sort direction (ascending when sortDir is 1)? `orEqual`: also
// when they are equal
template <uint sortDir, bool orEqual>
static __device__ bool before(uint a, uint b)
{
    if (orEqual)
        return sortDir ? a <= b : a >= b;
    return sortDir ? a < b : a > b;
}

// How many of the L sorted values in data go before val: counting equal ones (inclusive) or not
// (exclusive). stride: a power of two >= L, the first step of the search.
template <uint sortDir, bool inclusive>
static __device__ uint binarySearch(uint val, const uint *data, uint L, uint stride)
{
    if (L == 0)
        return 0;
    uint pos = 0;
    for (; stride > 0; stride >>= 1) {
        uint next = umin(pos + stride, L);
        if (before<sortDir, inclusive>(data[next - 1], val))
            pos = next;
    }
    return pos;
}

// Bottom level: each block sorts SHARED_SIZE_LIMIT pairs in shared memory. Each step merges
// pairs of sorted runs of `stride` elements: thread t places element t of run A and element t of
// run B at their final positions, found by binary search in the other run (A's before B's on
// equal keys, which keeps the sort stable).
template <uint sortDir>
static __device__ void mergeSortShared(uint *d_DstKey, uint *d_DstVal, const uint *d_SrcKey,
                                       const uint *d_SrcVal, uint arrayLength)
{
    __shared__ uint s_key[SHARED_SIZE_LIMIT];
    __shared__ uint s_val[SHARED_SIZE_LIMIT];
    const uint half = SHARED_SIZE_LIMIT / 2;
    const uint base = blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;

    s_key[threadIdx.x] = d_SrcKey[base];
    s_val[threadIdx.x] = d_SrcVal[base];
    s_key[threadIdx.x + half] = d_SrcKey[base + half];
    s_val[threadIdx.x + half] = d_SrcVal[base + half];

    for (uint stride = 1; stride < arrayLength; stride <<= 1) {
        uint lPos = threadIdx.x & (stride - 1);
        uint *baseKey = s_key + 2 * (threadIdx.x - lPos);
        uint *baseVal = s_val + 2 * (threadIdx.x - lPos);

        __syncthreads();
        uint keyA = baseKey[lPos], valA = baseVal[lPos];
        uint keyB = baseKey[lPos + stride], valB = baseVal[lPos + stride];
        uint posA = binarySearch<sortDir, false>(keyA, baseKey + stride, stride, stride) + lPos;
        uint posB = binarySearch<sortDir, true>(keyB, baseKey, stride, stride) + lPos;

        __syncthreads();
        baseKey[posA] = keyA;
        baseVal[posA] = valA;
        baseKey[posB] = keyB;
        baseVal[posB] = valB;
    }

    __syncthreads();
    d_DstKey[base] = s_key[threadIdx.x];
    d_DstVal[base] = s_val[threadIdx.x];
    d_DstKey[base + half] = s_key[threadIdx.x + half];
    d_DstVal[base + half] = s_val[threadIdx.x + half];
}

// Merge step 1: for each pair of runs (A, B) of `stride` elements, the rank of every
// SAMPLE_STRIDE-th key of A in B and of every SAMPLE_STRIDE-th key of B in A.
template <uint sortDir>
static __device__ void generateSampleRanks(uint *d_RanksA, uint *d_RanksB, const uint *d_SrcKey,
                                           uint stride, uint N, uint threadCount)
{
    uint pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= threadCount)
        return;

    const uint i = pos & ((stride / SAMPLE_STRIDE) - 1);
    const uint segmentBase = (pos - i) * (2 * SAMPLE_STRIDE);
    d_SrcKey += segmentBase;
    d_RanksA += segmentBase / SAMPLE_STRIDE;
    d_RanksB += segmentBase / SAMPLE_STRIDE;

    const uint elementsA = stride;
    const uint elementsB = umin(stride, N - segmentBase - stride);
    const uint samplesA = getSampleCount(elementsA);
    const uint samplesB = getSampleCount(elementsB);

    if (i < samplesA) {
        d_RanksA[i] = i * SAMPLE_STRIDE;
        d_RanksB[i] = binarySearch<sortDir, false>(d_SrcKey[i * SAMPLE_STRIDE], d_SrcKey + stride,
                                                   elementsB, nextPowerOfTwo(elementsB));
    }
    if (i < samplesB) {
        d_RanksB[(stride / SAMPLE_STRIDE) + i] = i * SAMPLE_STRIDE;
        d_RanksA[(stride / SAMPLE_STRIDE) + i] = binarySearch<sortDir, true>(
            d_SrcKey[stride + i * SAMPLE_STRIDE], d_SrcKey, elementsA, nextPowerOfTwo(elementsA));
    }
}

// Merge step 2: the sample ranks of A and of B, each sorted, merged into one sorted list of
// interval limits (called once for the A side and once for the B side).
extern "C" __global__ void mergeRanksAndIndicesKernel(uint *d_Limits, const uint *d_Ranks, uint stride,
                                                      uint N, uint threadCount)
{
    uint pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= threadCount)
        return;

    const uint i = pos & ((stride / SAMPLE_STRIDE) - 1);
    const uint segmentBase = (pos - i) * (2 * SAMPLE_STRIDE);
    d_Ranks += (pos - i) * 2;
    d_Limits += (pos - i) * 2;

    const uint elementsB = umin(stride, N - segmentBase - stride);
    const uint samplesA = getSampleCount(stride);
    const uint samplesB = getSampleCount(elementsB);

    if (i < samplesA) {
        uint dstPos = binarySearch<1U, false>(d_Ranks[i], d_Ranks + samplesA, samplesB,
                                              nextPowerOfTwo(samplesB)) + i;
        d_Limits[dstPos] = d_Ranks[i];
    }
    if (i < samplesB) {
        uint dstPos = binarySearch<1U, true>(d_Ranks[samplesA + i], d_Ranks, samplesA,
                                             nextPowerOfTwo(samplesA)) + i;
        d_Limits[dstPos] = d_Ranks[samplesA + i];
    }
}

// Merge step 3: each block merges one elementary interval (at most SAMPLE_STRIDE keys from A
// and as many from B) in shared memory and writes it to its place in the output.
template <uint sortDir>
static __device__ void mergeElementaryIntervals(uint *d_DstKey, uint *d_DstVal, const uint *d_SrcKey,
                                                const uint *d_SrcVal, const uint *d_LimitsA,
                                                const uint *d_LimitsB, uint stride, uint N)
{
    __shared__ uint s_key[2 * SAMPLE_STRIDE];
    __shared__ uint s_val[2 * SAMPLE_STRIDE];
    __shared__ uint startSrcA, startSrcB, lenSrcA, lenSrcB, startDstA, startDstB;

    const uint intervalI = blockIdx.x & ((2 * stride) / SAMPLE_STRIDE - 1);
    const uint segmentBase = (blockIdx.x - intervalI) * SAMPLE_STRIDE;
    d_SrcKey += segmentBase;
    d_SrcVal += segmentBase;
    d_DstKey += segmentBase;
    d_DstVal += segmentBase;

    if (threadIdx.x == 0) {
        uint elementsA = stride;
        uint elementsB = umin(stride, N - segmentBase - stride);
        uint samples = getSampleCount(elementsA) + getSampleCount(elementsB);
        bool last = intervalI + 1 >= samples;

        startSrcA = d_LimitsA[blockIdx.x];
        startSrcB = d_LimitsB[blockIdx.x];
        lenSrcA = (last ? elementsA : d_LimitsA[blockIdx.x + 1]) - startSrcA;
        lenSrcB = (last ? elementsB : d_LimitsB[blockIdx.x + 1]) - startSrcB;
        startDstA = startSrcA + startSrcB;
        startDstB = startDstA + lenSrcA;
    }
    __syncthreads();

    // load the interval's keys: A's part at the front, B's at SAMPLE_STRIDE
    if (threadIdx.x < lenSrcA) {
        s_key[threadIdx.x] = d_SrcKey[startSrcA + threadIdx.x];
        s_val[threadIdx.x] = d_SrcVal[startSrcA + threadIdx.x];
    }
    if (threadIdx.x < lenSrcB) {
        s_key[threadIdx.x + SAMPLE_STRIDE] = d_SrcKey[stride + startSrcB + threadIdx.x];
        s_val[threadIdx.x + SAMPLE_STRIDE] = d_SrcVal[stride + startSrcB + threadIdx.x];
    }
    __syncthreads();

    // merge the two parts in shared memory: each thread places one key of A and one of B
    uint keyA, valA, keyB, valB, dstPosA, dstPosB;
    if (threadIdx.x < lenSrcA) {
        keyA = s_key[threadIdx.x];
        valA = s_val[threadIdx.x];
        dstPosA = binarySearch<sortDir, false>(keyA, s_key + SAMPLE_STRIDE, lenSrcB, SAMPLE_STRIDE) + threadIdx.x;
    }
    if (threadIdx.x < lenSrcB) {
        keyB = s_key[SAMPLE_STRIDE + threadIdx.x];
        valB = s_val[SAMPLE_STRIDE + threadIdx.x];
        dstPosB = binarySearch<sortDir, true>(keyB, s_key, lenSrcA, SAMPLE_STRIDE) + threadIdx.x;
    }
    __syncthreads();
    if (threadIdx.x < lenSrcA) {
        s_key[dstPosA] = keyA;
        s_val[dstPosA] = valA;
    }
    if (threadIdx.x < lenSrcB) {
        s_key[dstPosB] = keyB;
        s_val[dstPosB] = valB;
    }
    __syncthreads();

    // store the merged interval
    if (threadIdx.x < lenSrcA) {
        d_DstKey[startDstA + threadIdx.x] = s_key[threadIdx.x];
        d_DstVal[startDstA + threadIdx.x] = s_val[threadIdx.x];
    }
    if (threadIdx.x < lenSrcB) {
        d_DstKey[startDstB + threadIdx.x] = s_key[lenSrcA + threadIdx.x];
        d_DstVal[startDstB + threadIdx.x] = s_val[lenSrcA + threadIdx.x];
    }
}

// the templates, instantiated for both directions under names the host can look up
#define BOTH_DIRECTIONS(DIR)                                                                         \\
extern "C" __global__ void mergeSortSharedKernel_##DIR(uint *dk, uint *dv, const uint *sk,          \\
                                                       const uint *sv, uint arrayLength)            \\
{ mergeSortShared<DIR>(dk, dv, sk, sv, arrayLength); }                                              \\
extern "C" __global__ void generateSampleRanksKernel_##DIR(uint *ra, uint *rb, const uint *sk,      \\
                                                           uint stride, uint N, uint threadCount)   \\
{ generateSampleRanks<DIR>(ra, rb, sk, stride, N, threadCount); }                                   \\
extern "C" __global__ void mergeElementaryIntervalsKernel_##DIR(uint *dk, uint *dv, const uint *sk, \\
        const uint *sv, const uint *la, const uint *lb, uint stride, uint N)                       \\
{ mergeElementaryIntervals<DIR>(dk, dv, sk, sv, la, lb, stride, N); }
BOTH_DIRECTIONS(0)
BOTH_DIRECTIONS(1)
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "mergeSort.cu")


def i_div_up(a, b):
    return (a + b - 1) // b


def get_sample_count(dividend):
    return i_div_up(dividend, SAMPLE_STRIDE)


UINT = ctypes.c_uint
PTR = ctypes.c_void_p


class MergeSort:
    """The sample's initMergeSort / mergeSort / closeMergeSort, with its kernels."""

    def __init__(self, library):
        self.k = {}
        for direction in (0, 1):
            for name in ("mergeSortSharedKernel", "generateSampleRanksKernel", "mergeElementaryIntervalsKernel"):
                (self.k[name, direction],) = get_kernels(library, f"{name}_{direction}")
        (self.merge_ranks_and_indices_kernel,) = get_kernels(library, "mergeRanksAndIndicesKernel")
        nbytes = MAX_SAMPLE_COUNT * 4
        self.d_ranks_a = check(runtime.cudaMalloc(nbytes))
        self.d_ranks_b = check(runtime.cudaMalloc(nbytes))
        self.d_limits_a = check(runtime.cudaMalloc(nbytes))
        self.d_limits_b = check(runtime.cudaMalloc(nbytes))

    def close(self):
        for d in (self.d_ranks_a, self.d_ranks_b, self.d_limits_b, self.d_limits_a):
            check(runtime.cudaFree(d))

    @staticmethod
    def launch(kernel, blocks, threads, values, types):
        check(runtime.cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), (values, types), 0, 0))

    def merge_sort_shared(self, d_dst_key, d_dst_val, d_src_key, d_src_val, batch_size, array_length, sort_dir):
        if array_length < 2:
            return
        assert SHARED_SIZE_LIMIT % array_length == 0
        assert (batch_size * array_length) % SHARED_SIZE_LIMIT == 0
        block_count = batch_size * array_length // SHARED_SIZE_LIMIT
        thread_count = SHARED_SIZE_LIMIT // 2
        self.launch(self.k["mergeSortSharedKernel", sort_dir], block_count, thread_count,
                    (d_dst_key, d_dst_val, d_src_key, d_src_val, array_length), (PTR, PTR, PTR, PTR, UINT))

    @staticmethod
    def sample_thread_count(stride, n):
        last_segment_elements = n % (2 * stride)
        if last_segment_elements > stride:
            return (n + 2 * stride - last_segment_elements) // (2 * SAMPLE_STRIDE)
        return (n - last_segment_elements) // (2 * SAMPLE_STRIDE)

    def generate_sample_ranks(self, d_src_key, stride, n, sort_dir):
        thread_count = self.sample_thread_count(stride, n)
        self.launch(self.k["generateSampleRanksKernel", sort_dir], i_div_up(thread_count, 256), 256,
                    (self.d_ranks_a, self.d_ranks_b, d_src_key, stride, n, thread_count),
                    (PTR, PTR, PTR, UINT, UINT, UINT))

    def merge_ranks_and_indices(self, stride, n):
        thread_count = self.sample_thread_count(stride, n)
        for limits, ranks in ((self.d_limits_a, self.d_ranks_a), (self.d_limits_b, self.d_ranks_b)):
            self.launch(self.merge_ranks_and_indices_kernel, i_div_up(thread_count, 256), 256,
                        (limits, ranks, stride, n, thread_count), (PTR, PTR, UINT, UINT, UINT))

    def merge_elementary_intervals(self, d_dst_key, d_dst_val, d_src_key, d_src_val, stride, n, sort_dir):
        last_segment_elements = n % (2 * stride)
        merge_pairs = (get_sample_count(n) if last_segment_elements > stride
                       else (n - last_segment_elements) // SAMPLE_STRIDE)
        self.launch(self.k["mergeElementaryIntervalsKernel", sort_dir], merge_pairs, SAMPLE_STRIDE,
                    (d_dst_key, d_dst_val, d_src_key, d_src_val, self.d_limits_a, self.d_limits_b, stride, n),
                    (PTR, PTR, PTR, PTR, PTR, PTR, UINT, UINT))

    def sort(self, d_dst_key, d_dst_val, d_buf_key, d_buf_val, d_src_key, d_src_val, n, sort_dir):
        stage_count = 0
        stride = SHARED_SIZE_LIMIT
        while stride < n:
            stride <<= 1
            stage_count += 1

        # the buffers alternate so that the last stage writes into dst
        if stage_count & 1:
            ikey, ival, okey, oval = d_buf_key, d_buf_val, d_dst_key, d_dst_val
        else:
            ikey, ival, okey, oval = d_dst_key, d_dst_val, d_buf_key, d_buf_val

        assert n <= SAMPLE_STRIDE * MAX_SAMPLE_COUNT
        assert n % SHARED_SIZE_LIMIT == 0
        self.merge_sort_shared(ikey, ival, d_src_key, d_src_val, n // SHARED_SIZE_LIMIT, SHARED_SIZE_LIMIT, sort_dir)

        stride = SHARED_SIZE_LIMIT
        while stride < n:
            last_segment_elements = n % (2 * stride)
            # the sample ranks, for the limiters' merge
            self.generate_sample_ranks(ikey, stride, n, sort_dir)
            # the ranks merged into interval limits
            self.merge_ranks_and_indices(stride, n)
            # the elementary intervals merged
            self.merge_elementary_intervals(okey, oval, ikey, ival, stride, n, sort_dir)
            if last_segment_elements <= stride:
                # the last segment is a single run: it is copied through as it is
                offset = (n - last_segment_elements) * 4
                d2d = runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice
                check(runtime.cudaMemcpy(okey + offset, ikey + offset, last_segment_elements * 4, d2d))
                check(runtime.cudaMemcpy(oval + offset, ival + offset, last_segment_elements * 4, d2d))
            ikey, okey = okey, ikey
            ival, oval = oval, ival
            stride <<= 1


def validate_sorted_keys(res_key, src_key, num_values, sort_dir):
    """Keys in order, and each key as often as in the input."""
    print("...inspecting keys array: ", end="")
    steps = np.diff(res_key.astype(np.int64))
    ordered = bool(np.all(steps >= 0) if sort_dir else np.all(steps <= 0))
    same_keys = bool(np.array_equal(np.bincount(res_key, minlength=num_values),
                                    np.bincount(src_key, minlength=num_values)))
    print("OK" if ordered and same_keys else
          f"{'' if ordered else 'not in order; '}{'' if same_keys else 'not the input keys'}")
    return ordered and same_keys


def validate_sorted_values(res_key, res_val, src_key):
    """Each value is the position of a source element with that key; and the order is stable."""
    print("...inspecting keys and values array: ", end="")
    in_range = bool(np.all(res_val < src_key.size))
    matches = in_range and bool(np.array_equal(src_key[np.minimum(res_val, src_key.size - 1)], res_key))
    stable = bool(np.array_equal(res_val, np.argsort(src_key, kind="stable")))
    print("OK" if matches and stable else ("values do not match the keys" if not matches else "not stable"))
    return matches and stable


def main():
    n = 4 * 1048576
    sort_dir = 1
    num_values = 65536

    print(f"{os.path.basename(sys.argv[0])} Starting...\n")
    dev = find_cuda_device(0)
    library = build_library(compile_kernels(device_arch(dev)))

    print("Allocating and initializing host arrays...\n")
    rng = np.random.default_rng(2009)
    h_src_key = rng.integers(0, num_values, n, dtype=np.uint32)
    h_src_val = np.arange(n, dtype=np.uint32)  # fillValues
    h_dst_key = np.empty(n, dtype=np.uint32)
    h_dst_val = np.empty(n, dtype=np.uint32)

    print("Allocating and initializing CUDA arrays...\n")
    nbytes = n * 4
    d_dst_key, d_dst_val, d_buf_key, d_buf_val, d_src_key, d_src_val = (
        check(runtime.cudaMalloc(nbytes)) for _ in range(6))
    h2d = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
    check(runtime.cudaMemcpy(d_src_key, h_src_key, nbytes, h2d))
    check(runtime.cudaMemcpy(d_src_val, h_src_val, nbytes, h2d))

    print("Initializing GPU merge sort...")
    merge_sort = MergeSort(library)

    print("Running GPU merge sort...")
    check(runtime.cudaDeviceSynchronize())
    t0 = time.perf_counter()
    merge_sort.sort(d_dst_key, d_dst_val, d_buf_key, d_buf_val, d_src_key, d_src_val, n, sort_dir)
    check(runtime.cudaDeviceSynchronize())
    print(f"Time: {(time.perf_counter() - t0) * 1e3:f} ms")

    print("Reading back GPU merge sort results...")
    d2h = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
    check(runtime.cudaMemcpy(h_dst_key, d_dst_key, nbytes, d2h))
    check(runtime.cudaMemcpy(h_dst_val, d_dst_val, nbytes, d2h))

    print("Inspecting the results...")
    keys_flag = validate_sorted_keys(h_dst_key, h_src_key, num_values, sort_dir)
    values_flag = validate_sorted_values(h_dst_key, h_dst_val, h_src_key)

    print("Shutting down...")
    merge_sort.close()
    for d in (d_src_val, d_src_key, d_buf_val, d_buf_key, d_dst_val, d_dst_key):
        check(runtime.cudaFree(d))
    check(runtime.cudaLibraryUnload(library))
    ok = keys_flag and values_flag
    print(f"{n} pairs sorted: {'ok' if ok else 'WRONG RESULT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
