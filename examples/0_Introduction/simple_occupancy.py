"""Choosing a block size by occupancy, the Python twin of the CUDA sample simpleOccupancy. API
area: the occupancy calculator (cudaOccupancyMaxActiveBlocksPerMultiprocessor) and the
occupancy-based launch configurator (cudaOccupancyMaxPotentialBlockSize).

A kernel squares a million ints, launched twice: with a hand-picked block size of 32 threads
(too small: the number of resident blocks per multiprocessor is capped, so few threads run at
once) and with the block size the launch configurator suggests. For each, the potential
occupancy (active warps / maximum warps per multiprocessor) and the kernel time are printed.

cudaOccupancyMaxPotentialBlockSize is a C++ template in cuda_runtime.h; its search, written in
Python over cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, is
common.rt_helpers.occupancy_max_potential_block_size. Its suggestion is compared with the
driver's own configurator (cuOccupancyMaxPotentialBlockSize on the kernel's CUfunction): both
must reach the same occupancy.

Checked: every element equals i * i (as 32-bit ints, with numpy), and the two configurators
agree on the occupancy they reach.

Run: python examples/0_Introduction/simple_occupancy.py
Exit status: 0 when both runs are right, 1 otherwise, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels, occupancy_max_potential_block_size)
from cuda.bindings import driver, runtime  # noqa: E402

MANUAL_BLOCK_SIZE = 32

KERNELS = b"""
// Squares each element. Each thread finds its element from threadIdx and blockIdx, so any
// launch configuration works, including whatever the configurator suggests.
extern "C" __global__ void square(int *array, int arrayCount)
{
    extern __shared__ int dynamicSmem[];
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < arrayCount)
        array[idx] *= array[idx];
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleOccupancy.cu")


def report_potential_occupancy(kernel, block_size, dynamic_smem):
    """Occupancy of `kernel` at this block size: active warps / maximum warps per multiprocessor."""
    device = check(runtime.cudaGetDevice())
    prop = check(runtime.cudaGetDeviceProperties(device))
    num_blocks = check(runtime.cudaOccupancyMaxActiveBlocksPerMultiprocessor(kernel, block_size, dynamic_smem))
    active_warps = num_blocks * block_size // prop.warpSize
    max_warps = prop.maxThreadsPerMultiProcessor // prop.warpSize
    return active_warps / max_warps


def configurators_agree(kernel, dynamic_smem, limit, block_size):
    """The driver's configurator on the same kernel: does its block size reach the same occupancy?"""
    func = check(driver.cuKernelGetFunction(driver.CUkernel(kernel)))
    min_grid, drv_block = check(driver.cuOccupancyMaxPotentialBlockSize(func, None, dynamic_smem, limit))
    ours = report_potential_occupancy(kernel, block_size, dynamic_smem)
    theirs = report_potential_occupancy(kernel, drv_block, dynamic_smem)
    print(f"Driver's cuOccupancyMaxPotentialBlockSize: block size {drv_block}, minimum grid size "
          f"{min_grid} (occupancy {theirs * 100:g}%)")
    return ours == theirs


def launch_config(square, array, array_count, automatic):
    """Configure the launch (by hand or by occupancy), run and time it, report the occupancy."""
    dynamic_smem_usage = 0
    agree = True
    start = check(runtime.cudaEventCreate())
    end = check(runtime.cudaEventCreate())

    if automatic:
        min_grid_size, block_size = occupancy_max_potential_block_size(square, dynamic_smem_usage, array_count)
        print(f"Suggested block size: {block_size}")
        print(f"Minimum grid size for maximum occupancy: {min_grid_size}")
        agree = configurators_agree(square, dynamic_smem_usage, array_count, block_size)
    else:
        # too small: with a limited number of resident blocks per multiprocessor, the number
        # of resident threads is too low for full occupancy
        block_size = MANUAL_BLOCK_SIZE

    grid_size = (array_count + block_size - 1) // block_size  # round up

    # launch and time
    check(runtime.cudaEventRecord(start, 0))
    check(runtime.cudaLaunchKernel(square, dim3(grid_size), dim3(block_size),
                                   ((array, array_count), (ctypes.c_void_p, ctypes.c_int)), dynamic_smem_usage, 0))
    check(runtime.cudaEventRecord(end, 0))
    check(runtime.cudaDeviceSynchronize())

    potential_occupancy = report_potential_occupancy(square, block_size, dynamic_smem_usage)
    print(f"Potential occupancy: {potential_occupancy * 100:g}%")
    elapsed_time = check(runtime.cudaEventElapsedTime(start, end))
    print(f"Elapsed time: {elapsed_time:g}ms")
    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(end))
    return agree


def test(square, automatic_launch_config, count=1000000):
    """Square an array on the GPU and compare with numpy; returns 0 on success."""
    array = np.arange(count, dtype=np.int32)
    size = array.nbytes
    d_array = check(runtime.cudaMalloc(size))
    check(runtime.cudaMemcpy(d_array, array, size, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    array[:] = 0

    agree = launch_config(square, d_array, count, automatic_launch_config)

    check(runtime.cudaMemcpy(array, d_array, size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    check(runtime.cudaFree(d_array))

    # verify: i * i in 32-bit arithmetic (it wraps past 46340, on the GPU as in numpy)
    i = np.arange(count, dtype=np.int32)
    expected = i * i
    wrong = np.flatnonzero(array != expected)
    if wrong.size:
        k = int(wrong[0])
        print(f"element {k} expected {int(expected[k])} actual {int(array[k])}")
        return 1
    if not agree:
        print("the two configurators' suggestions reach different occupancies")
        return 1
    return 0


def main():
    print("starting Simple Occupancy\n")
    dev = find_cuda_device(0)
    library = build_library(compile_kernels(device_arch(dev)))
    (square,) = get_kernels(library, "square")

    print(f"[ Manual configuration with {MANUAL_BLOCK_SIZE} threads per block ]")
    if test(square, False):
        print("Test failed\n", file=sys.stderr)
        return 1
    print()
    print("[ Automatic, occupancy-based configuration ]")
    if test(square, True):
        print("Test failed\n", file=sys.stderr)
        return 1
    print()
    check(runtime.cudaLibraryUnload(library))
    print("Test PASSED\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
