"""SAXPY (y = a*x + y) with the driver API: NVRTC compiles the kernel, kernel arguments are passed
as a numpy array holding the address of each argument's value.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
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
    n = 1 << 20
    a = 2.0
    block = 256
    grid = (n + block - 1) // block

    dev, _ctx = select_device(0)
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    module = load_module(SAXPY, dev, fmt="ptx")
    kernel = check(driver.cuModuleGetFunction(module, b"saxpy"))
    stream = check(driver.cuStreamCreate(0))

    rng = np.random.default_rng(0)
    hx = rng.random(n, dtype=np.float32)
    hy = rng.random(n, dtype=np.float32)
    nbytes = hx.nbytes
    dx = check(driver.cuMemAlloc(nbytes))
    dy = check(driver.cuMemAlloc(nbytes))
    check(driver.cuMemcpyHtoDAsync(dx, hx, nbytes, stream))
    check(driver.cuMemcpyHtoDAsync(dy, hy, nbytes, stream))

    # one small array per argument value, then an array of their addresses (the kernel's void*[])
    arg_values = [
        np.array([a], dtype=np.float32),
        np.array([int(dx)], dtype=np.uint64),
        np.array([int(dy)], dtype=np.uint64),
        np.array([n], dtype=np.uint64),
    ]
    kernel_args = np.array([v.ctypes.data for v in arg_values], dtype=np.uint64)
    check(driver.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, stream, kernel_args.ctypes.data, 0))

    out = np.empty_like(hy)
    check(driver.cuMemcpyDtoHAsync(out, dy, nbytes, stream))
    check(driver.cuStreamSynchronize(stream))

    expected = a * hx + hy
    good = np.allclose(out, expected, rtol=1e-6, atol=1e-6)
    print(f"saxpy on {name}: {n} elements, {grid} blocks of {block} threads, PTX via NVRTC, "
          f"numpy pointer-array arguments")
    print(f"max abs error {float(np.max(np.abs(out - expected))):.3g}: {'ok' if good else 'WRONG RESULT'}")

    check(driver.cuMemFree(dx))
    check(driver.cuMemFree(dy))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
