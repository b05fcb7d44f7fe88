"""A sum over a whole array in one kernel launch, the Python twin of the CUDA sample
reductionMultiBlockCG. API area: cooperative launches (cudaLaunchCooperativeKernel) with a
grid-wide barrier (cooperative_groups::this_grid().sync()), sized with the occupancy API
(cudaOccupancyMaxPotentialBlockSize, cudaOccupancyMaxActiveBlocksPerMultiprocessor).

Every thread of the grid adds up a strided share of 2^25 floats in shared memory (as doubles);
each block reduces its shares with cg::reduce over warp tiles and writes one partial sum; after
a grid-wide barrier, the grid's first thread adds the blocks' partial sums. A grid barrier needs
every block resident at once, so the grid is at most the blocks per multiprocessor that the
occupancy calculator allows times the number of multiprocessors. The reduction runs 100 times
(timed); the result is compared with numpy's sum (in float64), to the sample's tolerance
(1e-8 x the number of elements).

The kernel is compiled by NVRTC with the CUDA headers for <cooperative_groups.h> and
<cooperative_groups/reduce.h>.

Run: python examples/2_Concepts_and_Techniques/reduction_multi_block_cg.py [--n N] [--threads T]
         [--maxblocks B]
Exit status: 0 on a correct sum, 1 on a wrong one, 3 when no CUDA device with cooperative launch
(or no CUDA headers) is available.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, requirement_not_met  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels, occupancy_max_potential_block_size)
from cuda.bindings import runtime  # noqa: E402

KERNELS = b"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// Sum sdata[0 .. blockDim.x) into sdata[0]: each warp tile reduces its values with cg::reduce,
// then the block's first thread adds the tiles' sums.
__device__ void reduceBlock(double *sdata, const cg::thread_block &cta)
{
    const unsigned int tid = cta.thread_rank();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);

    sdata[tid] = cg::reduce(tile32, sdata[tid], cg::plus<double>());
    cg::sync(cta);

    if (cta.thread_rank() == 0) {
        double beta = 0.0;
        for (int i = 0; i < blockDim.x; i += tile32.size())
            beta += sdata[i];
        sdata[0] = beta;
    }
    cg::sync(cta);
}

// Reduces an array of any size in one launch (a cooperative one: it waits on the whole grid).
extern "C" __global__ void reduceSinglePassMultiBlockCG(const float *g_idata, float *g_odata, unsigned int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    extern double __shared__ sdata[];

    // stride over the grid, adding into this thread's shared-memory slot
    sdata[block.thread_rank()] = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        sdata[block.thread_rank()] += g_idata[i];
    cg::sync(block);

    // reduce each block, and write its sum to global memory
    reduceBlock(sdata, block);
    if (block.thread_rank() == 0)
        g_odata[blockIdx.x] = sdata[0];
    cg::sync(grid);

    if (grid.thread_rank() == 0) {
        for (int b = 1; b < gridDim.x; b++)
            g_odata[0] += g_odata[b];
    }
}
"""
HEADERS = ("cooperative_groups.h", "cooperative_groups/reduce.h", "nv/target")


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "reductionMultiBlockCG.cu", headers=HEADERS)


def call_reduce_single_pass_multi_block_cg(kernel, size, threads, num_blocks, d_idata, d_odata):
    smem_size = threads * 8
    kernel_args = ((d_idata, d_odata, size), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint))
    check(runtime.cudaLaunchCooperativeKernel(kernel, dim3(num_blocks), dim3(threads), kernel_args, smem_size, 0))


def get_num_blocks_and_threads(kernel, n, max_blocks, max_threads):
    """(blocks, threads): the occupancy configurator's choice, at most max_blocks blocks."""
    if n == 1:
        threads = blocks = 1
    else:
        blocks, threads = occupancy_max_potential_block_size(kernel, 0, max_threads)
    return min(max_blocks, blocks), threads


def benchmark_reduce(kernel, n, num_threads, num_blocks, test_iterations, d_idata, d_odata):
    """Run the reduction test_iterations times; return (its result, mean milliseconds)."""
    print("\nLaunching SinglePass Multi Block Cooperative Groups kernel")
    total = 0.0
    for _ in range(test_iterations):
        t0 = time.perf_counter()
        call_reduce_single_pass_multi_block_cg(kernel, n, num_threads, num_blocks, d_idata, d_odata)
        check(runtime.cudaDeviceSynchronize())
        total += time.perf_counter() - t0
    # the final sum, from the device
    gpu_result = np.empty(1, dtype=np.float32)
    check(runtime.cudaMemcpy(gpu_result, d_odata, 4, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    return float(gpu_result[0]), total / test_iterations * 1e3


def run_test(args, device, kernel):
    size = args.n
    print(f"{size} elements")
    check(runtime.cudaSetDevice(device))
    prop = check(runtime.cudaGetDeviceProperties(device))

    # random input, kept small so that the sum loses nothing to truncation
    rng = np.random.default_rng(2024)
    h_idata = (rng.integers(0, 256, size) / np.float32(2**31 - 1)).astype(np.float32)

    # the launch configuration (threads, blocks)
    max_threads = args.threads or prop.maxThreadsPerBlock
    max_blocks = args.maxblocks or prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor // prop.maxThreadsPerBlock)
    num_blocks, num_threads = get_num_blocks_and_threads(kernel, size, max_blocks, max_threads)

    # how many blocks fit on the GPU at once
    num_blocks_per_sm = check(runtime.cudaOccupancyMaxActiveBlocksPerMultiprocessor(kernel, num_threads, num_threads * 8))
    num_sms = prop.multiProcessorCount
    num_blocks = min(num_blocks, num_blocks_per_sm * num_sms)
    print(f"numThreads: {num_threads}")
    print(f"numBlocks: {num_blocks}")

    nbytes = size * 4
    d_idata = check(runtime.cudaMalloc(nbytes))
    d_odata = check(runtime.cudaMalloc(num_blocks * 4))
    h2d = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
    check(runtime.cudaMemcpy(d_idata, h_idata, nbytes, h2d))
    check(runtime.cudaMemcpy(d_odata, h_idata, num_blocks * 4, h2d))

    gpu_result, reduce_time = benchmark_reduce(kernel, size, num_threads, num_blocks, 100, d_idata, d_odata)
    print(f"Average time: {reduce_time:f} ms")
    print(f"Bandwidth:    {size * 4 / (reduce_time * 1.0e6):f} GB/s\n")

    # the reference
    cpu_result = float(np.sum(h_idata, dtype=np.float64))
    print(f"GPU result = {gpu_result:0.12f}")
    print(f"CPU result = {cpu_result:0.12f}")
    threshold = 1e-8 * size
    diff = abs(gpu_result - cpu_result)
    passed = diff < threshold
    print(f"difference {diff:.3g} (tolerance {threshold:.3g}): {'ok' if passed else 'WRONG RESULT'}")

    check(runtime.cudaFree(d_idata))
    check(runtime.cudaFree(d_odata))
    return passed


def main():
    parser = argparse.ArgumentParser(description="reductionMultiBlockCG")
    parser.add_argument("--n", type=int, default=1 << 25, help="number of elements to reduce")
    parser.add_argument("--threads", type=int, default=0, help="most threads per block (default: the device's)")
    parser.add_argument("--maxblocks", type=int, default=0, help="most thread blocks (default: what fits the device)")
    args = parser.parse_args()

    print("reductionMultiBlockCG Starting...\n")
    dev = find_cuda_device(0)
    device_prop = check(runtime.cudaGetDeviceProperties(dev))
    if not device_prop.cooperativeLaunch:
        requirement_not_met(f"the selected GPU ({dev}) does not support cooperative kernel launch")

    library = build_library(compile_kernels(device_arch(dev)))
    (kernel,) = get_kernels(library, "reduceSinglePassMultiBlockCG")
    passed = run_test(args, dev, kernel)
    check(runtime.cudaLibraryUnload(library))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
