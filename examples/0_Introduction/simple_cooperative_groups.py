"""Cooperative groups inside a thread block, the Python twin of the CUDA sample
simpleCooperativeGroups. API area: a kernel using <cooperative_groups.h> (thread_block,
tiled_partition, the type-erased thread_group), compiled by NVRTC against the CUDA headers and
launched with cudaLaunchKernel with dynamic shared memory.

One block of 64 threads makes a group of the whole block and sums the threads' ranks with a
generic reduction that works on any thread_group (shared-memory workspace, g.sync() between
steps); then it splits the block into tiles of 16 threads with tiled_partition<16> and each tile
sums its own ranks with the same function. The sample prints the sums from the kernel; here the
kernel stores them and the host prints them beside the expected values (n - 1) * n / 2, which
they must equal.

Run: python examples/0_Introduction/simple_cooperative_groups.py
Exit status: 0 when every sum is right, 1 otherwise, 3 when no CUDA device (or no CUDA headers
for <cooperative_groups.h>) is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from cuda.bindings import runtime  # noqa: E402

TILE = 16

KERNELS = b"""
#include <cooperative_groups.h>
using namespace cooperative_groups;

// The sum of val over the group g; the workspace x must hold g.size() ints. The group's
// thread of rank 0 gets the sum, the others -1.
__device__ int sumReduction(thread_group g, int *x, int val)
{
    int lane = g.thread_rank();
    // each step halves the number of active threads; an active thread adds its partner's value
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i)
            val += x[lane + i];
        g.sync();
    }
    return g.thread_rank() == 0 ? val : -1;
}

// blockSum[0]: the sum of the ranks in the whole block; tileSums[t]: the sum of the ranks
// within tile t of 16 threads
extern "C" __global__ void cgkernel(int *blockSum, int *tileSums)
{
    thread_block threadBlockGroup = this_thread_block();
    extern __shared__ int workspace[];

    // the input of each thread: its rank in the group
    int output = sumReduction(threadBlockGroup, workspace, threadBlockGroup.thread_rank());
    if (threadBlockGroup.thread_rank() == 0)
        blockSum[0] = output;
    threadBlockGroup.sync();

    thread_block_tile<16> tiledPartition16 = tiled_partition<16>(threadBlockGroup);
    // each tile reduces in its own part of the workspace
    int workspaceOffset = threadBlockGroup.thread_rank() - tiledPartition16.thread_rank();
    output = sumReduction(tiledPartition16, workspace + workspaceOffset, tiledPartition16.thread_rank());
    if (tiledPartition16.thread_rank() == 0)
        tileSums[threadBlockGroup.thread_rank() / 16] = output;
}
"""
HEADERS = ("cooperative_groups.h", "nv/target")


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleCooperativeGroups.cu", headers=HEADERS)


def main():
    dev = find_cuda_device(0)
    library = build_library(compile_kernels(device_arch(dev)))
    (cgkernel,) = get_kernels(library, "cgkernel")

    blocks_per_grid = 1
    threads_per_block = 64
    n_tiles = threads_per_block // TILE
    d_block_sum = check(runtime.cudaMalloc(4))
    d_tile_sums = check(runtime.cudaMalloc(4 * n_tiles))
    check(runtime.cudaMemset(d_block_sum, 0xFF, 4))
    check(runtime.cudaMemset(d_tile_sums, 0xFF, 4 * n_tiles))

    print(f"\nLaunching a single block with {threads_per_block} threads...\n")
    # the dynamic shared memory is the reduction's workspace
    args = ((d_block_sum, d_tile_sums), (ctypes.c_void_p, ctypes.c_void_p))
    check(runtime.cudaLaunchKernel(cgkernel, dim3(blocks_per_grid), dim3(threads_per_block), args,
                                   threads_per_block * 4, 0))
    err = runtime.cudaDeviceSynchronize()[0]
    if err != runtime.cudaError_t.cudaSuccess:
        print(f"Failed to launch kernel (error code {check(runtime.cudaGetErrorString(err)).decode()})!",
              file=sys.stderr)
        return 1

    block_sum = np.empty(1, dtype=np.int32)
    tile_sums = np.empty(n_tiles, dtype=np.int32)
    check(runtime.cudaMemcpy(block_sum, d_block_sum, 4, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    check(runtime.cudaMemcpy(tile_sums, d_tile_sums, 4 * n_tiles, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))

    expected_block = (threads_per_block - 1) * threads_per_block // 2
    expected_tile = (TILE - 1) * TILE // 2
    ok = int(block_sum[0]) == expected_block
    print(f" Sum of all ranks 0..{threads_per_block - 1} in threadBlockGroup is {int(block_sum[0])} "
          f"(expected {expected_block})\n")
    print(f" Now creating {n_tiles} groups, each of size {TILE} threads:\n")
    for t in range(n_tiles):
        ok = ok and int(tile_sums[t]) == expected_tile
        print(f"   Sum of all ranks 0..{TILE - 1} in this tiledPartition16 group is {int(tile_sums[t])} "
              f"(expected {expected_tile})")

    check(runtime.cudaFree(d_block_sum))
    check(runtime.cudaFree(d_tile_sums))
    check(runtime.cudaLibraryUnload(library))
    print(f"\n...Done: {'every sum is right' if ok else 'WRONG RESULT'}.\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
