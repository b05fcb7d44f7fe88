"""Peer-to-peer copies and peer memory access between two GPUs, port of the CUDA sample simpleP2P.

The first two devices that can access each other's memory (cudaDeviceCanAccessPeer both ways) get
peer access enabled (cudaDeviceEnablePeerAccess). Then:
  1. cudaMemcpyPeer copies a 64 MiB buffer back and forth between them, timed with CUDA events;
  2. a kernel on GPU 1 reads GPU 0's buffer and writes its own (x2), then a kernel on GPU 0 reads
     GPU 1's buffer and writes its own (x2 again): each reads the other GPU's memory directly,
     through unified addressing;
  3. the result, copied back to the host, must be four times the input.

The kernel is compiled by NVRTC once and loaded as a context-independent library
(cuLibraryLoadData); cuKernelGetFunction gives its function in each device's context.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when there are fewer than two GPUs, no pair
of them with peer access, or no unified addressing.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, requirement_not_met  # noqa: E402
from common.toolkit import host_array, rt_check, runtime_device_count  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

GPUS_NEEDED = 2  # read by tests/test_examples.py and scripts/gpu_check.sh: fewer is a skip there

SIMPLE_KERNEL = b"""
extern "C" __global__ void SimpleKernel(const float *src, float *dst)
{
    // a pure copy kernel would be faster; the point is that src lives on the other GPU
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    dst[idx] = src[idx] * 2.0f;
}
"""


def compile_kernel(arch):
    return compile_source(SIMPLE_KERNEL, arch, fmt="cubin", name=b"simpleP2P.cu")


def main():
    print("simpleP2P: checking for multiple GPUs...")
    count = runtime_device_count(1)
    print(f"CUDA-capable device count: {count}")
    if count < GPUS_NEEDED:
        requirement_not_met(f"needs two GPUs (with peer-to-peer access), found {count}")

    props = [rt_check(runtime.cudaGetDeviceProperties(i)) for i in range(count)]
    names = [p.name.split(b"\0", 1)[0].decode() for p in props]

    # the first pair of GPUs that can access each other both ways
    pair = None
    print("Checking GPU(s) for support of peer-to-peer memory access...")
    for i in range(count):
        for j in range(count):
            if i == j:
                continue
            can = rt_check(runtime.cudaDeviceCanAccessPeer(i, j))
            print(f"> Peer access from {names[i]} (GPU{i}) -> {names[j]} (GPU{j}) : {'Yes' if can else 'No'}")
            if can and pair is None and rt_check(runtime.cudaDeviceCanAccessPeer(j, i)):
                pair = (i, j)
    if pair is None:
        requirement_not_met("no two GPUs can access each other's memory (peer-to-peer)")
    g0, g1 = pair
    for g in pair:
        if not props[g].unifiedAddressing:
            requirement_not_met(f"GPU{g} does not support unified addressing")
    if props[g0].major != props[g1].major or props[g0].minor != props[g1].minor:
        print("note: the two GPUs differ in compute capability; the kernel is built for each")

    print(f"Enabling peer access between GPU{g0} and GPU{g1}...")
    rt_check(runtime.cudaSetDevice(g0))
    rt_check(runtime.cudaDeviceEnablePeerAccess(g1, 0))
    rt_check(runtime.cudaSetDevice(g1))
    rt_check(runtime.cudaDeviceEnablePeerAccess(g0, 0))

    # the kernel: one library per architecture, then its function in each device's context
    check(driver.cuInit(0))
    libraries, functions = {}, {}
    for g in pair:
        arch = f"{props[g].major}{props[g].minor}"
        if arch not in libraries:
            libraries[arch] = check(driver.cuLibraryLoadData(compile_kernel(arch), [], [], 0,
                                                             [], [], 0))
        kernel = check(driver.cuLibraryGetKernel(libraries[arch], b"SimpleKernel"))
        rt_check(runtime.cudaSetDevice(g))  # makes g's primary context current
        functions[g] = check(driver.cuKernelGetFunction(kernel))

    n = 1024 * 1024 * 16
    buf_size = n * 4
    print(f"Allocating buffers ({buf_size // (1 << 20)} MiB on GPU{g0}, GPU{g1} and CPU host)...")
    rt_check(runtime.cudaSetDevice(g0))
    d0 = rt_check(runtime.cudaMalloc(buf_size))
    rt_check(runtime.cudaSetDevice(g1))
    d1 = rt_check(runtime.cudaMalloc(buf_size))
    h_ptr = rt_check(runtime.cudaMallocHost(buf_size))
    h0 = host_array(h_ptr, n, np.float32)

    print("Creating event handles...")
    rt_check(runtime.cudaSetDevice(g0))
    start = rt_check(runtime.cudaEventCreate())
    stop = rt_check(runtime.cudaEventCreate())

    rt_check(runtime.cudaEventRecord(start, 0))
    for i in range(100):
        # ping-pong the buffer between the GPUs
        if i % 2 == 0:
            rt_check(runtime.cudaMemcpyPeer(d1, g1, d0, g0, buf_size))
        else:
            rt_check(runtime.cudaMemcpyPeer(d0, g0, d1, g1, buf_size))
    rt_check(runtime.cudaEventRecord(stop, 0))
    rt_check(runtime.cudaEventSynchronize(stop))
    ms = rt_check(runtime.cudaEventElapsedTime(start, stop))
    bandwidth = 100 * buf_size / (ms / 1e3) / 1e9 if ms > 0 else 0.0
    print(f"cudaMemcpyPeer between GPU{g0} and GPU{g1}: {bandwidth:.2f} GB/s")

    print(f"Preparing host buffer and memcpy to GPU{g0}...")
    h0[:] = (np.arange(n) % 4096).astype(np.float32)
    rt_check(runtime.cudaMemcpy(d0, h_ptr, buf_size, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

    threads = 512
    blocks = n // threads
    print(f"Run kernel on GPU{g1}, taking source data from GPU{g0} and writing to GPU{g1}...")
    rt_check(runtime.cudaSetDevice(g1))
    check(driver.cuLaunchKernel(functions[g1], blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d0, d1), (ctypes.c_void_p, ctypes.c_void_p)), 0))
    rt_check(runtime.cudaDeviceSynchronize())

    print(f"Run kernel on GPU{g0}, taking source data from GPU{g1} and writing to GPU{g0}...")
    rt_check(runtime.cudaSetDevice(g0))
    check(driver.cuLaunchKernel(functions[g0], blocks, 1, 1, threads, 1, 1, 0, 0,
                                ((d1, d0), (ctypes.c_void_p, ctypes.c_void_p)), 0))
    rt_check(runtime.cudaDeviceSynchronize())

    print(f"Copy data back to host from GPU{g0} and verify results...")
    rt_check(runtime.cudaMemcpy(h_ptr, d0, buf_size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    expected = (np.arange(n) % 4096).astype(np.float32) * 4.0
    wrong = np.flatnonzero(h0 != expected)
    for i in wrong[:10]:
        print(f"Verification error @ element {i}: val = {h0[i]}, ref = {expected[i]}")
    good = wrong.size == 0 and bandwidth > 0

    print("Disabling peer access...")
    rt_check(runtime.cudaSetDevice(g0))
    rt_check(runtime.cudaDeviceDisablePeerAccess(g1))
    rt_check(runtime.cudaSetDevice(g1))
    rt_check(runtime.cudaDeviceDisablePeerAccess(g0))

    print("Shutting down...")
    rt_check(runtime.cudaEventDestroy(start))
    rt_check(runtime.cudaEventDestroy(stop))
    del h0
    rt_check(runtime.cudaFreeHost(h_ptr))
    rt_check(runtime.cudaSetDevice(g0))
    rt_check(runtime.cudaFree(d0))
    rt_check(runtime.cudaSetDevice(g1))
    rt_check(runtime.cudaFree(d1))
    for lib in libraries.values():
        check(driver.cuLibraryUnload(lib))

    print(f"{n} elements, {wrong.size} wrong: {'Test passed' if good else 'WRONG RESULT'}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
