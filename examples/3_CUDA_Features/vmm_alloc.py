"""Virtual memory management: build device buffers out of separately created physical allocations
mapped into one reserved range of virtual addresses, then use them from a kernel (C = A + B).

For each buffer:
  * `cuMemGetAllocationGranularity` gives the size unit of physical allocations;
  * `cuMemAddressReserve` reserves a virtual address range;
  * `cuMemCreate` creates physical chunks (here CHUNKS of them, a "stripe" each) and `cuMemMap`
    maps them one after the other into the range; `cuMemRelease` can be called right away, the
    mapping keeps the memory alive;
  * `cuMemSetAccess` makes the whole range readable and writable from the device;
and at the end `cuMemUnmap` frees the physical memory and `cuMemAddressFree` the range.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device with virtual memory
management is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, requirement_not_met, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

VECTOR_ADD = b"""
extern "C" __global__ void vectorAdd(const float *A, const float *B, float *C, size_t numElements)
{
    size_t i = blockDim.x * (size_t)blockIdx.x + threadIdx.x;
    if (i < numElements) C[i] = A[i] + B[i];
}
"""

PTX_ARCH = "75"
CHUNKS = 2  # physical allocations behind each buffer


def round_up(x, unit):
    return (x + unit - 1) // unit * unit


def vmm_alloc(size, dev):
    """Reserve, back with CHUNKS physical allocations and map `size` bytes (rounded up).

    Returns (ptr, reserved size, granularity, stripe size).
    """
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = int(dev)

    granularity = check(driver.cuMemGetAllocationGranularity(
        prop, driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    # each chunk is a whole number of granules, and all chunks are the same size
    stripe = round_up((size + CHUNKS - 1) // CHUNKS, granularity)
    size = stripe * CHUNKS

    ptr = check(driver.cuMemAddressReserve(size, 0, 0, 0))
    try:
        for i in range(CHUNKS):
            handle = check(driver.cuMemCreate(stripe, prop, 0))
            check(driver.cuMemMap(driver.CUdeviceptr(int(ptr) + i * stripe), stripe, 0, handle, 0))
            # the mapping holds the physical memory from here on
            check(driver.cuMemRelease(handle))

        access = driver.CUmemAccessDesc()
        access.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = int(dev)
        access.flags = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        check(driver.cuMemSetAccess(ptr, size, [access], 1))
    except Exception:
        driver.cuMemUnmap(ptr, size)
        driver.cuMemAddressFree(ptr, size)
        raise
    return ptr, size, granularity, stripe


def vmm_free(ptr, size):
    check(driver.cuMemUnmap(ptr, size))
    check(driver.cuMemAddressFree(ptr, size))


def main():
    ptx = compile_source(VECTOR_ADD, PTX_ARCH, fmt="ptx", name=b"vectorAdd_kernel.cu")
    print(f"NVRTC compiled vectorAdd to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev, _ctx = select_device(0)
    vmm = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev))
    if not vmm:
        requirement_not_met(f"device 0 ({device_name(dev)}) does not support virtual memory management")
    print(f"Device 0: {device_name(dev)} supports virtual memory management")
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"vectorAdd"))

    n = 5_000_000  # 20 MB a buffer: not a whole number of granules
    nbytes = n * 4
    rng = np.random.default_rng(4)
    h_A = rng.random(n, dtype=np.float32)
    h_B = rng.random(n, dtype=np.float32)
    h_C = np.zeros(n, dtype=np.float32)

    buffers = []
    for label in "ABC":
        ptr, size, gran, stripe = vmm_alloc(nbytes, dev)
        buffers.append((ptr, size, stripe))
        print(f"  {label}: reserved {size} bytes at {int(ptr):#x} for {nbytes} asked "
              f"(granularity {gran}), backed by {CHUNKS} chunks of {stripe} bytes")
    (d_A, _, _), (d_B, _, _), (d_C, size_C, stripe_C) = buffers

    # what the device may do with the range, as the driver reports it
    where = driver.CUmemLocation()
    where.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    where.id = int(dev)
    flags = check(driver.cuMemGetAccess(where, d_C))
    print(f"  access of device {int(dev)} to C: {flags:#x}")
    access_ok = flags == int(driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE)

    # the reserved range is one ordinary device range to the rest of the API
    check(driver.cuMemcpyHtoD(d_A, h_A, nbytes))
    check(driver.cuMemcpyHtoD(d_B, h_B, nbytes))
    check(driver.cuMemsetD8(d_C, 0xFF, size_C))

    block = 256
    grid = (n + block - 1) // block
    args = ((d_A, d_B, d_C, n), (None, None, None, ctypes.c_size_t))
    check(driver.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, 0, args, 0))
    check(driver.cuCtxSynchronize())
    check(driver.cuMemcpyDtoH(h_C, d_C, nbytes))
    print(f"vectorAdd over the mapped buffers: {grid} blocks of {block} threads")

    bad = np.flatnonzero(~(np.abs(h_A + h_B - h_C) <= 1e-5))  # NaN counts as wrong
    if bad.size:
        i = int(bad[0])
        print(f"WRONG RESULT at element {i} (chunk {i * 4 // stripe_C}): "
              f"{h_A[i]} + {h_B[i]} != {h_C[i]} ({bad.size} wrong elements)")
    else:
        print("result ok across every chunk boundary")

    if not access_ok:
        print("WRONG RESULT: the range is not readable and writable from the device")

    for ptr, size, _ in buffers:
        vmm_free(ptr, size)
    print("unmapped the chunks and freed the address ranges")
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 1 if bad.size or not access_ok else 0


if __name__ == "__main__":
    sys.exit(main())
