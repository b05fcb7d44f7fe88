"""SAXPY (y = a*x + y) with the driver API: NVRTC compiles the kernel to a CUBIN, kernel arguments
are passed as a `(values, types)` pair, the types being ctypes types (or None for binding objects
such as CUdeviceptr, passed by value).

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, load_module, release_device, select_device  # noqa: E402
from cuda.bindings import driver  # noqa: E402

SAXPY = b"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main():
    n = 1_000_003  # not a multiple of the block size: the bounds check matters
    a = -0.5
    block = 128
    grid = (n + block - 1) // block

    dev, _ctx = select_device(0)
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    module = load_module(SAXPY, dev, fmt="cubin")
    kernel = check(driver.cuModuleGetFunction(module, b"saxpy"))
    stream = check(driver.cuStreamCreate(0))

    hx = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    hy = np.full(n, 3.0, dtype=np.float32)
    nbytes = hx.nbytes
    dx = check(driver.cuMemAlloc(nbytes))
    dy = check(driver.cuMemAlloc(nbytes))
    check(driver.cuMemcpyHtoD(dx, hx, nbytes))
    check(driver.cuMemcpyHtoD(dy, hy, nbytes))

    args = ((a, dx, dy, n), (ctypes.c_float, None, None, ctypes.c_size_t))
    check(driver.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, stream, args, 0))
    check(driver.cuStreamSynchronize(stream))

    out = np.empty_like(hy)
    check(driver.cuMemcpyDtoH(out, dy, nbytes))

    expected = a * hx + hy
    good = np.allclose(out, expected, rtol=1e-6, atol=1e-6)
    print(f"saxpy on {name}: {n} elements, {grid} blocks of {block} threads, CUBIN via NVRTC, "
          f"(values, ctypes types) arguments")
    print(f"max abs error {float(np.max(np.abs(out - expected))):.3g}: {'ok' if good else 'WRONG RESULT'}")

    check(driver.cuMemFree(dx))
    check(driver.cuMemFree(dy))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
