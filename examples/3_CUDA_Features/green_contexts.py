"""Green contexts: a context that owns only part of the device's SMs.

API area: device resources and green contexts: cuDeviceGetDevResource (the device's SMs),
cuDevSmResourceSplitByCount (a group of SMs split off), cuDevResourceGenerateDesc,
cuGreenCtxCreate, cuGreenCtxGetDevResource, cuGreenCtxStreamCreate, cuStreamGetGreenCtx and
cuCtxFromGreenCtx; kernels loaded once, for every context, with cuLibraryLoadData /
cuLibraryGetKernel.

cuda-samples has no program for green contexts; this one follows the CUDA Programming Guide's
steps: get the device's SM resource, split off a group of (at least) 16 SMs, make a resource
descriptor and a green context from it, create a stream in the green context and launch work
into it. The kernel computes y = 2x + 1 and records the SM each block ran on (%smid), keeping
each block resident for a few microseconds so that the blocks spread over every SM they may
use. The same launch runs in the device's primary context, for comparison. Checks: y is right
in both runs; the green context's blocks ran on no more distinct SMs than its group holds; the
green context reports the group's SM count; the stream belongs to the green context.

Run: python examples/3_CUDA_Features/green_contexts.py
Exit status: 0 on correct results, 1 on a wrong one, 3 when no CUDA device or no device that
supports green contexts is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, requirement_not_met, select_device  # noqa: E402
from common.drv_helpers import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

SM_KERNEL = b"""
// y = 2x + 1; thread 0 of each block records the block's SM and keeps the block resident for a
// while, so that later blocks are placed on other SMs
extern "C" __global__ void scaleAndRecordSm(float *y, const float *x, int n, unsigned int *smOfBlock)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i] + 1.0f;
    if (threadIdx.x == 0) {
        unsigned int smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        smOfBlock[blockIdx.x] = smid;
        __nanosleep(20000);
    }
}
"""

GROUP_MIN_SMS = 16
THREADS = 256


def run_on(ctx, stream, kernel, blocks):
    """Launch scaleAndRecordSm on `stream` with memory of `ctx` (made current); returns (y ok,
    the SM of each block)."""
    check(driver.cuCtxSetCurrent(ctx))
    n = blocks * THREADS
    h_x = np.arange(n, dtype=np.float32) / n
    d_x = check(driver.cuMemAlloc(n * 4))
    d_y = check(driver.cuMemAlloc(n * 4))
    d_sm = check(driver.cuMemAlloc(blocks * 4))
    check(driver.cuMemcpyHtoDAsync(d_x, h_x, n * 4, stream))
    # (CUfunction)kernel, as in C: a library's kernel may be launched in any context
    args = ((d_y, d_x, n, d_sm), (None, None, ctypes.c_int, None))
    check(driver.cuLaunchKernel(driver.CUfunction(int(kernel)), blocks, 1, 1, THREADS, 1, 1, 0, stream, args, None))
    h_y = np.empty(n, dtype=np.float32)
    h_sm = np.empty(blocks, dtype=np.uint32)
    check(driver.cuMemcpyDtoHAsync(h_y, d_y, n * 4, stream))
    check(driver.cuMemcpyDtoHAsync(h_sm, d_sm, blocks * 4, stream))
    check(driver.cuStreamSynchronize(stream))
    for d in (d_x, d_y, d_sm):
        check(driver.cuMemFree(d))
    return bool(np.array_equal(h_y, 2.0 * h_x + 1.0)), h_sm


def main():
    dev, primary = select_device(0)
    print(f"Green contexts on {device_name(dev)}")

    # the kernel, loaded as a library: its CUkernel serves every context of the device
    cubin = compile_source(SM_KERNEL, device_arch(dev), fmt="cubin", name=b"scaleAndRecordSm.cu")
    library = check(driver.cuLibraryLoadData(cubin, None, None, 0, None, None, 0))
    kernel = check(driver.cuLibraryGetKernel(library, b"scaleAndRecordSm"))

    # 1. the device's SMs, and a group of at least GROUP_MIN_SMS split off them
    err, sm_resource = driver.cuDeviceGetDevResource(dev, driver.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM)
    if err == driver.CUresult.CUDA_ERROR_NOT_SUPPORTED:
        requirement_not_met(f"device 0 ({device_name(dev)}) does not support green contexts")
    check((err,))
    assert sm_resource is not None
    total_sms = sm_resource.sm.smCount
    _, possible, _ = check(driver.cuDevSmResourceSplitByCount(0, sm_resource, 0, GROUP_MIN_SMS))
    groups, n_groups, remaining = check(driver.cuDevSmResourceSplitByCount(1, sm_resource, 0, GROUP_MIN_SMS))
    group = groups[0]
    print(f"  the device has {total_sms} SMs; {possible} groups of at least {GROUP_MIN_SMS} could be split off; "
          f"took {n_groups} of {group.sm.smCount} SMs, {remaining.sm.smCount} SMs remain")

    # 2. a resource descriptor, the green context and a stream in it
    desc = check(driver.cuDevResourceGenerateDesc([group], 1))
    green = check(driver.cuGreenCtxCreate(desc, dev, driver.CUgreenCtxCreate_flags.CU_GREEN_CTX_DEFAULT_STREAM))
    green_sms = check(driver.cuGreenCtxGetDevResource(
        green, driver.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM)).sm.smCount
    green_stream = check(driver.cuGreenCtxStreamCreate(green, driver.CUstream_flags.CU_STREAM_NON_BLOCKING, 0))
    owner = check(driver.cuStreamGetGreenCtx(green_stream))
    green_as_ctx = check(driver.cuCtxFromGreenCtx(green))
    print(f"  green context {int(green):#x}: {green_sms} SMs; its stream reports green context {int(owner):#x}")

    # 3. the same work in the green context and in the primary context
    blocks = 4 * total_sms
    green_ok, green_sm = run_on(green_as_ctx, green_stream, kernel, blocks)
    primary_stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    primary_ok, primary_sm = run_on(primary, primary_stream, kernel, blocks)
    green_distinct = len(np.unique(green_sm))
    primary_distinct = len(np.unique(primary_sm))
    print(f"  {blocks} blocks in the green context ran on {green_distinct} distinct SMs (its group has "
          f"{green_sms}); in the primary context on {primary_distinct}")

    checks = {
        "y = 2x + 1 in the green context": green_ok,
        "y = 2x + 1 in the primary context": primary_ok,
        "green context's blocks stayed within its SM count": 0 < green_distinct <= green_sms,
        "green context reports the group's SM count": green_sms == group.sm.smCount,
        "the stream belongs to the green context": int(owner) == int(green),
    }
    for what, good in checks.items():
        print(f"  {what}: {'ok' if good else 'WRONG'}")

    check(driver.cuStreamDestroy(primary_stream))
    check(driver.cuStreamDestroy(green_stream))
    check(driver.cuGreenCtxDestroy(green))
    check(driver.cuCtxSetCurrent(primary))
    check(driver.cuLibraryUnload(library))
    release_device(dev)
    ok = all(checks.values())
    print("Green contexts: " + ("all results ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
