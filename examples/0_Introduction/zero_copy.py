"""Zero-copy: a kernel reads and writes page-locked host memory mapped into the device's address
space, with no cudaMemcpy at all.

Two ways of getting such memory are shown, as in the C sample:
  1. `cuMemHostAlloc(..., CU_MEMHOSTALLOC_DEVICEMAP)` allocates mapped pinned memory;
  2. `cuMemHostRegister(..., CU_MEMHOSTREGISTER_DEVICEMAP)` pins and maps an existing, page-aligned
     host buffer (here a numpy array).
In both cases `cuMemHostGetDevicePointer` gives the address the kernel uses, and the host sees
what the kernel wrote once the context has been synchronized.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device (or one that cannot map
host memory) is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, requirement_not_met, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

VECTOR_ADD_GPU = b"""
extern "C" __global__ void vectorAddGPU(const float *a, const float *b, float *c, int N)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) c[idx] = a[idx] + b[idx];
}
"""

PTX_ARCH = "75"
PAGE = 4096


def host_array(address, n):
    """A numpy float32 view of `n` floats of host memory at `address`."""
    return np.ctypeslib.as_array((ctypes.c_float * n).from_address(address))


def aligned_empty(n, align=PAGE):
    """A float32 numpy array of `n` elements whose data starts on an `align`-byte boundary."""
    raw = np.empty(n * 4 + align, dtype=np.uint8)
    offset = (-raw.ctypes.data) % align
    return raw[offset:offset + n * 4].view(np.float32)


def add_on_device(kernel, a_host, b_host, c_host, nelem):
    """Get the device addresses of the three mapped host buffers and run the kernel on them."""
    d_a = check(driver.cuMemHostGetDevicePointer(a_host, 0))
    d_b = check(driver.cuMemHostGetDevicePointer(b_host, 0))
    d_c = check(driver.cuMemHostGetDevicePointer(c_host, 0))
    block = 256
    grid = (nelem + block - 1) // block
    args = ((d_a, d_b, d_c, nelem), (None, None, None, ctypes.c_int))
    check(driver.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, 0, args, 0))
    check(driver.cuCtxSynchronize())
    return grid, block


def error_norm(a, b, c):
    ref = a.astype(np.float64) + b.astype(np.float64)
    return float(np.sqrt(np.sum((c - ref) ** 2)) / np.sqrt(np.sum(ref ** 2)))


def main():
    ptx = compile_source(VECTOR_ADD_GPU, PTX_ARCH, fmt="ptx", name=b"simpleZeroCopy.cu")
    print(f"NVRTC compiled vectorAddGPU to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev, _ctx = select_device(0)
    can_map = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, dev))
    if not can_map:
        requirement_not_met(f"device 0 ({device_name(dev)}) cannot map host memory")
    print(f"Device 0: {device_name(dev)} can map host memory")
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"vectorAddGPU"))

    nelem = 1 << 20
    nbytes = nelem * 4
    rng = np.random.default_rng(3)
    results = []

    # 1. memory allocated mapped and pinned by the driver
    print(f"> cuMemHostAlloc(DEVICEMAP): 3 x {nbytes} bytes")
    flags = driver.CU_MEMHOSTALLOC_DEVICEMAP
    p_a = check(driver.cuMemHostAlloc(nbytes, flags))
    p_b = check(driver.cuMemHostAlloc(nbytes, flags))
    p_c = check(driver.cuMemHostAlloc(nbytes, flags))
    got_flags = check(driver.cuMemHostGetFlags(p_a))
    a, b, c = host_array(p_a, nelem), host_array(p_b, nelem), host_array(p_c, nelem)
    a[:] = rng.random(nelem, dtype=np.float32)
    b[:] = rng.random(nelem, dtype=np.float32)
    c[:] = -1.0
    grid, block = add_on_device(kernel, p_a, p_b, p_c, nelem)
    err = error_norm(a, b, c)
    print(f"  flags reported by cuMemHostGetFlags: {got_flags:#x}; kernel: {grid} blocks of {block} "
          f"threads; relative error norm {err:.3g}")
    results.append(err < 1e-6 and bool(got_flags & flags))
    del a, b, c  # views of memory about to be freed
    for p in (p_a, p_b, p_c):
        check(driver.cuMemFreeHost(p))

    # 2. ordinary (page-aligned) host memory, pinned and mapped after the fact
    print(f"> cuMemHostRegister(DEVICEMAP) of numpy arrays: 3 x {nbytes} bytes")
    a, b, c = aligned_empty(nelem), aligned_empty(nelem), aligned_empty(nelem)
    a[:] = rng.random(nelem, dtype=np.float32)
    b[:] = rng.random(nelem, dtype=np.float32)
    c[:] = -1.0
    for arr in (a, b, c):
        check(driver.cuMemHostRegister(arr, nbytes, driver.CU_MEMHOSTREGISTER_DEVICEMAP))
    grid, block = add_on_device(kernel, a, b, c, nelem)
    err = error_norm(a, b, c)
    print(f"  kernel: {grid} blocks of {block} threads; relative error norm {err:.3g}")
    results.append(err < 1e-6)
    for arr in (a, b, c):
        check(driver.cuMemHostUnregister(arr))

    check(driver.cuModuleUnload(module))
    release_device(dev)
    good = all(results)
    print("zero-copy vector addition: " + ("ok" if good else "WRONG RESULT"))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
