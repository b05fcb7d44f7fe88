"""A device-side assert() that fails, and recovering from it, port of the CUDA sample
simpleAssert_nvrtc.

API area: error handling of asynchronous launches: a failed device assertion makes the launch fail
with CUDA_ERROR_ASSERT, reported by the next synchronisation (cuCtxSynchronize), and the error is
sticky.

As in the sample, testKernel runs 2 blocks of 32 threads and asserts that each thread's global
index is below 60, so four threads fail (the device prints their assertion messages when the
context synchronises) and cuCtxSynchronize returns CUDA_ERROR_ASSERT. The sample stops there; this
port then recovers. The driver's documentation says the failed context must be destroyed and a new
one made; the R580 driver keeps CUDA_ERROR_ASSERT for the whole process (a context made after
cuCtxDestroy, or the primary context after cuDevicePrimaryCtxReset, returns it too), so the
failing launch runs in a child process (this script with --assert), which also tries to recover in
place and says what the driver answered. The parent then makes a new context, loads the module
again and runs the kernel with a bound every thread meets, checking that each thread got past its
assertion.

Run: python examples/0_Introduction/simple_assert.py
Exit status: 0 when the assertion is reported and the second run succeeds, 1 otherwise, 3 when no
CUDA device is available.
"""
import ctypes
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, cu13, device_arch, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

ASSERT_KERNEL = b"""
// Every thread whose global index is not below N fails its assertion; the others mark that they
// got past it.
extern "C" __global__ void testKernel(int N, int *passed)
{
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    assert(gtid < N);
    passed[gtid] = 1;
}
"""

N_BLOCKS = 2
N_THREADS = 32


def load_kernel(cubin):
    module = check(driver.cuModuleLoadData(cubin))
    return module, check(driver.cuModuleGetFunction(module, b"testKernel"))


def launch(kernel, count, d_passed):
    """testKernel<<<2, 32>>>(count, passed): returns what cuCtxSynchronize returns."""
    args = ((count, d_passed), (ctypes.c_int, None))
    check(driver.cuLaunchKernel(kernel, N_BLOCKS, 1, 1, N_THREADS, 1, 1, 0, None, args, None))
    sys.stdout.flush()  # the device's assertion messages go straight to the process's stdout
    return driver.cuCtxSynchronize()[0]


def assert_run():
    """The sample's run (this script with --assert): the kernel fails its assertion; then an attempt
    to go on in this process after resetting the primary context."""
    dev, ctx = select_device(0)
    print(f"> Using CUDA device [0]: {device_name(dev)}")
    cubin = compile_source(ASSERT_KERNEL, device_arch(dev), fmt="cubin", name=b"simpleAssert_kernel.cu")
    module, kernel = load_kernel(cubin)
    n = N_BLOCKS * N_THREADS
    d_passed = check(driver.cuMemAlloc(n * 4))
    check(driver.cuMemsetD32(d_passed, 0, n))

    print("Launch kernel to generate assertion failures")
    print("\n-- Begin assert output\n")
    res = launch(kernel, 60, d_passed)
    print("\n-- End assert output\n")
    if res != driver.CUresult.CUDA_ERROR_ASSERT:
        print(f"WRONG: cuCtxSynchronize returned {res!r}, expected CUDA_ERROR_ASSERT")
        return 1
    print("Device assert failed as expected")

    # the error sticks to the context: later calls fail the same way
    err, _ = driver.cuMemAlloc(4)
    print(f"cuMemAlloc in the failed context returns {err.name}")
    # the documented way on: destroy the context (for the primary one: reset it) and make a new one
    check(driver.cuDevicePrimaryCtxReset(dev))
    err, _ = driver.cuDevicePrimaryCtxRetain(dev)
    print(f"cuDevicePrimaryCtxRetain after cuDevicePrimaryCtxReset returns {err.name}"
          + (": the driver keeps the error for the whole process" if err != driver.CUresult.CUDA_SUCCESS else ""))
    return 0


def main():
    if "--assert" in sys.argv[1:]:
        return assert_run()
    print("simpleAssert_nvrtc starting...")
    dev, ctx = select_device(0)   # exits 3 where there is no device, before the child starts
    release_device(dev)

    sys.stdout.flush()
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--assert"])
    asserted = child.returncode == 0
    print(f"The launch that fails its assertion ran in a child process: exit {child.returncode} "
          f"({'as expected' if asserted else 'WRONG'})")

    # start again with a new context, the module loaded again
    dev, _ = select_device(0)
    ctx = check(cu13.cuCtxCreate(None, 0, dev))
    print("Made a new context and loaded the module again")
    cubin = compile_source(ASSERT_KERNEL, device_arch(dev), fmt="cubin", name=b"simpleAssert_kernel.cu")
    module, kernel = load_kernel(cubin)
    n = N_BLOCKS * N_THREADS
    d_passed = check(driver.cuMemAlloc(n * 4))
    check(driver.cuMemsetD32(d_passed, 0, n))

    res = launch(kernel, n, d_passed)
    h_passed = np.zeros(n, dtype=np.int32)
    if res == driver.CUresult.CUDA_SUCCESS:
        check(driver.cuMemcpyDtoH(h_passed, d_passed, n * 4))
    recovered = res == driver.CUresult.CUDA_SUCCESS and bool(np.all(h_passed == 1))
    print(f"Second launch with N = {n}: cuCtxSynchronize returned {res.name}, "
          f"{int(np.count_nonzero(h_passed == 1))} of {n} threads passed their assertion: "
          f"{'ok' if recovered else 'WRONG'}")

    check(driver.cuMemFree(d_passed))
    check(driver.cuModuleUnload(module))
    check(driver.cuCtxDestroy(ctx))
    release_device(dev)
    ok = asserted and recovered
    print("simpleAssert: " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
