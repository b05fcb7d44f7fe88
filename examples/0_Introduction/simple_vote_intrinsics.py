"""Warp vote functions __any_sync and __all_sync, port of the CUDA sample
simpleVoteIntrinsics_nvrtc.

API area: NVRTC-compiled kernels run through the driver API (cuModuleLoadData, cuMemAlloc,
cuMemcpyHtoD/DtoH, cuLaunchKernel with an argument array), and the warp-wide vote intrinsics.

Three tests, as in the sample, on one block of warps:
  1. VoteAnyKernel1: each thread gets __any_sync over its warp's inputs; the input pattern makes
     the first warp all zero, and the other three warps have at least one non-zero lane;
  2. VoteAllKernel2: __all_sync over the same pattern: only the last warp is all non-zero;
  3. VoteAnyKernel3: three warps vote on whether the lane's index is in the upper half of the
     block, per thread and per warp.
Each result is compared with what the pattern implies, worked out with numpy.

Run: python examples/0_Introduction/simple_vote_intrinsics.py
Exit status: 0 on correct results, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

VOTE_KERNELS = b"""
#define FULL_MASK 0xffffffffu

// 1: non-zero in every lane of a warp that has at least one non-zero input
extern "C" __global__ void VoteAnyKernel1(unsigned int *input, unsigned int *result, int size)
{
    int tx = threadIdx.x;
    result[tx] = __any_sync(FULL_MASK, input[tx]);
}

// 2: non-zero in every lane of a warp whose inputs are all non-zero
extern "C" __global__ void VoteAllKernel2(unsigned int *input, unsigned int *result, int size)
{
    int tx = threadIdx.x;
    result[tx] = __all_sync(FULL_MASK, input[tx]);
}

// 3: three flags per thread about the predicate "tx is in the upper half of 3 warps":
//    [0] whether any lane of the warp has it, [1] whether this lane has it, [2] set only when
//    every lane of the warp has it (left untouched otherwise)
extern "C" __global__ void VoteAnyKernel3(bool *info, int warp_size)
{
    int tx = threadIdx.x;
    bool upper = tx >= (warp_size * 3) / 2;
    bool *mine = info + tx * 3;
    mine[0] = __any_sync(FULL_MASK, upper);
    mine[1] = upper;
    if (__all_sync(FULL_MASK, upper))
        mine[2] = true;
}
"""

VOTE_DATA_GROUP = 4


def gen_vote_test_pattern(size):
    """genVoteTestPattern: quarter 1 zero; quarter 2 non-zero in odd lanes; quarter 3 non-zero in
    even lanes; quarter 4 all ones."""
    i = np.arange(size, dtype=np.uint32)
    pattern = np.zeros(size, dtype=np.uint32)
    q = size // 4
    pattern[q:2 * q] = np.where(i[q:2 * q] & 1, i[q:2 * q], 0)
    pattern[2 * q:3 * q] = np.where(i[2 * q:3 * q] & 1, 0, i[2 * q:3 * q])
    pattern[3 * q:] = 0xFFFFFFFF
    return pattern


def warp_vote(values, warp_size, reduce):
    """Every lane gets `reduce` (np.any or np.all) of its warp's values, as 0 or 1."""
    per_warp = reduce(values.reshape(-1, warp_size) != 0, axis=1)
    return np.repeat(per_warp, warp_size).astype(np.uint32)


def report(name, got, expected):
    bad = np.flatnonzero(got != expected)
    if bad.size:
        print(f"\t<{name}> {bad.size} values FAILED, first at {int(bad[0])}: "
              f"{int(got[bad[0]])} != {int(expected[bad[0]])}")
        print("\tERROR")
    else:
        print("\tOK")
    return int(bad.size)


def launch(module, name, block, args):
    kernel = check(driver.cuModuleGetFunction(module, name))
    check(driver.cuLaunchKernel(kernel, 1, 1, 1, block, 1, 1, 0, None, args, None))
    check(driver.cuCtxSynchronize())


def main():
    dev, _ctx = select_device(0)
    cubin = compile_source(VOTE_KERNELS, device_arch(dev), fmt="cubin", name=b"simpleVote_kernel.cuh")
    module = check(driver.cuModuleLoadData(cubin))
    print("[simpleVoteIntrinsics_nvrtc]")
    print(f"> Using CUDA device [0]: {device_name(dev)}")

    warp_size = 32
    size = VOTE_DATA_GROUP * warp_size
    nbytes = size * 4
    h_input = gen_vote_test_pattern(size)
    h_result = np.zeros(size, dtype=np.uint32)
    d_input = check(driver.cuMemAlloc(nbytes))
    d_result = check(driver.cuMemAlloc(nbytes))
    check(driver.cuMemcpyHtoD(d_input, h_input, nbytes))
    errors = [0, 0, 0]

    print("[VOTE Kernel Test 1/3]")
    print("\tRunning <<Vote.Any>> kernel1 ...")
    launch(module, b"VoteAnyKernel1", size, ((d_input, d_result, size), (None, None, ctypes.c_int)))
    check(driver.cuMemcpyDtoH(h_result, d_result, nbytes))
    errors[0] = report("Vote.Any", h_result != 0, warp_vote(h_input, warp_size, np.any) != 0)

    print("\n[VOTE Kernel Test 2/3]")
    print("\tRunning <<Vote.All>> kernel2 ...")
    launch(module, b"VoteAllKernel2", size, ((d_input, d_result, size), (None, None, ctypes.c_int)))
    check(driver.cuMemcpyDtoH(h_result, d_result, nbytes))
    errors[1] = report("Vote.All", h_result != 0, warp_vote(h_input, warp_size, np.all) != 0)

    # test 3 works on bools (one byte each), three per thread, all false to start with
    n_info = warp_size * 3 * 3
    h_info = np.zeros(n_info, dtype=np.bool_)
    d_info = check(driver.cuMemAlloc(n_info))
    check(driver.cuMemcpyHtoD(d_info, h_info, n_info))

    print("\n[VOTE Kernel Test 3/3]")
    print("\tRunning <<Vote.Any>> kernel3 ...")
    launch(module, b"VoteAnyKernel3", warp_size * 3, ((d_info, warp_size), (None, ctypes.c_int)))
    check(driver.cuMemcpyDtoH(h_info, d_info, n_info))
    # checkResultsVoteAnyKernel3: entry i of the flat array holds flag i % 3 of thread i // 3
    i = np.arange(n_info)
    threshold = np.select([i % 3 == 0, i % 3 == 1], [warp_size * 3, warp_size * 3 * 3 // 2],
                          warp_size * 3 * 2)
    errors[2] = report("Vote.Any/All", h_info, i >= threshold)

    check(driver.cuMemFree(d_input))
    check(driver.cuMemFree(d_result))
    check(driver.cuMemFree(d_info))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("\tShutting down...")
    ok = errors == [0, 0, 0]
    print("simpleVoteIntrinsics: " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
