"""Vector addition (c = a + b) with the second API, `cuda.bindings._v2`: NVRTC compiles the kernel
to PTX, the driver loads it as a module, and `launch_kernel` runs it twice, its arguments given
each way the API takes them: as (values, ctypes types), and as a numpy array holding the address
of each argument's value (C's `void *args[]`). Device pointers are plain ints.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common.v2_helpers import (PTX_TARGET, compile_cuda, device_name, first_device,  # noqa: E402
                               release_primary_context, use_primary_context)
import cuda.bindings._v2.driver as driver  # noqa: E402

VECTOR_ADD = b"""
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def main():
    ptx, _ = compile_cuda(VECTOR_ADD, PTX_TARGET, name=b"vector_add.cu")
    print(f"NVRTC compiled vector_add to {len(ptx)} bytes of PTX ({PTX_TARGET})")

    dev = first_device(0)
    use_primary_context(dev)
    module = driver.module_load_data(ptx)
    kernel = driver.module_get_function(module, b"vector_add")

    n = 50_000
    block = 256
    grid = (n + block - 1) // block
    rng = np.random.default_rng(7)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    d_a, d_b, d_c = (driver.mem_alloc_v2(a.nbytes) for _ in range(3))
    driver.memcpy_htod_v2(d_a, a, a.nbytes)
    driver.memcpy_htod_v2(d_b, b, b.nbytes)

    results = []
    # 1. (values, types): each value packed as its ctypes type; a device pointer is c_void_p
    params = ((d_a, d_b, d_c, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    driver.launch_kernel(kernel, grid, 1, 1, block, 1, 1, 0, 0, params, 0)
    c = np.zeros_like(a)
    driver.memcpy_dtoh_v2(c, d_c, c.nbytes)
    results.append(("(values, types)", c))

    # 2. the void*[] of C: one small array per argument value, then an array of their addresses;
    # the values must stay alive until the launch has read them
    driver.memset_d32_v2(d_c, 0, n)
    values = [np.array([d_a], np.uint64), np.array([d_b], np.uint64), np.array([d_c], np.uint64),
              np.array([n], np.int32)]
    addresses = np.array([v.ctypes.data for v in values], dtype=np.uint64)
    driver.launch_kernel(kernel, grid, 1, 1, block, 1, 1, 0, 0, addresses, 0)
    driver.ctx_synchronize()
    c2 = np.zeros_like(a)
    driver.memcpy_dtoh_v2(c2, d_c, c2.nbytes)
    results.append(("address array", c2))

    expected = a + b
    good = True
    print(f"vector_add on {device_name(dev)}: {n} elements, {grid} blocks of {block} threads")
    for how, got in results:
        err = float(np.max(np.abs(got - expected)))
        good = good and err <= 1e-6
        print(f"  arguments as {how}: max abs error {err:.3g}")
    print("ok" if good else "WRONG RESULT")

    for p in (d_a, d_b, d_c):
        driver.mem_free_v2(p)
    driver.module_unload(module)
    release_primary_context(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
