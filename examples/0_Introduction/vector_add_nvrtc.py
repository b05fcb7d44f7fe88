"""Vector addition (C = A + B) through the driver API, the kernel compiled at run time by NVRTC to
PTX, which the driver JIT-compiles for the device when the module is loaded. The kernel arguments
are passed the way C does it: an array holding the address of each argument's value.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

VECTOR_ADD = b"""
extern "C" __global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) {
        C[i] = A[i] + B[i];
    }
}
"""

# PTX for the oldest architecture CUDA 13 supports runs on every newer device through the JIT
PTX_ARCH = "75"


def main():
    # compile first: NVRTC needs no device
    ptx = compile_source(VECTOR_ADD, PTX_ARCH, fmt="ptx", name=b"vectorAdd_kernel.cu")
    print(f"NVRTC compiled vectorAdd to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev, _ctx = select_device(0)
    print(f"> Using CUDA device [0]: {device_name(dev)}")
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"vectorAdd"))

    num_elements = 50000
    size = num_elements * np.dtype(np.float32).itemsize
    print(f"[Vector addition of {num_elements} elements]")

    rng = np.random.default_rng(1)
    h_A = rng.random(num_elements, dtype=np.float32)
    h_B = rng.random(num_elements, dtype=np.float32)
    h_C = np.zeros(num_elements, dtype=np.float32)

    d_A = check(driver.cuMemAlloc(size))
    d_B = check(driver.cuMemAlloc(size))
    d_C = check(driver.cuMemAlloc(size))

    print("Copy input data from the host memory to the CUDA device")
    check(driver.cuMemcpyHtoD(d_A, h_A, size))
    check(driver.cuMemcpyHtoD(d_B, h_B, size))

    threads_per_block = 256
    blocks_per_grid = (num_elements + threads_per_block - 1) // threads_per_block
    print(f"CUDA kernel launch with {blocks_per_grid} blocks of {threads_per_block} threads")

    # void *arr[] = {&d_A, &d_B, &d_C, &numElements}: a CUdeviceptr's getPtr() is the address of
    # the pointer value it holds, just like &d_A in C
    n_arg = ctypes.c_int(num_elements)
    arr = np.array([d_A.getPtr(), d_B.getPtr(), d_C.getPtr(), ctypes.addressof(n_arg)], dtype=np.uint64)
    check(driver.cuLaunchKernel(kernel, blocks_per_grid, 1, 1, threads_per_block, 1, 1,
                                0, 0, arr.ctypes.data, 0))
    check(driver.cuCtxSynchronize())

    print("Copy output data from the CUDA device to the host memory")
    check(driver.cuMemcpyDtoH(h_C, d_C, size))

    bad = np.flatnonzero(~(np.abs(h_A + h_B - h_C) <= 1e-5))  # NaN counts as wrong
    if bad.size:
        i = int(bad[0])
        print(f"Result verification failed at element {i}: {h_A[i]} + {h_B[i]} != {h_C[i]} "
              f"({bad.size} wrong elements)")
    else:
        print("Test PASSED")

    check(driver.cuMemFree(d_A))
    check(driver.cuMemFree(d_B))
    check(driver.cuMemFree(d_C))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    print("Done")
    return 1 if bad.size else 0


if __name__ == "__main__":
    sys.exit(main())
