"""CPU and GPU working at the same time, the Python twin of the CUDA sample asyncAPI. API area:
asynchronous copies and launches in the default stream, events for GPU timing and for polling
(cudaEventQuery), and a profiling range (cudaProfilerStart / cudaProfilerStop).

A 64 MiB array of zeros in pinned host memory goes to the device, a kernel adds 26 to every
element and the array comes back, all queued without waiting (cudaMemcpyAsync,
cudaLaunchKernel, cudaMemcpyAsync into stream 0) between two events. The queueing is the profiled
range, timed on the CPU; the CPU then counts how often it can poll the stop event before the GPU
is done. The result is checked element by element (every value must be 26).

Run: python examples/0_Introduction/async_api.py
(under Nsight Systems, `nsys profile --capture-range=cudaProfilerApi python ...` records only the
range between cudaProfilerStart and cudaProfilerStop.)
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels, prop_name)
from common.toolkit import host_array  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

KERNELS = b"""
extern "C" __global__ void increment_kernel(int *g_data, int inc_value)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    g_data[idx] = g_data[idx] + inc_value;
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "asyncAPI.cu")


def correct_output(data, x):
    wrong = np.flatnonzero(data != x)
    if wrong.size:
        i = int(wrong[0])
        print(f"Error! data[{i}] = {int(data[i])}, ref = {x} ({wrong.size} elements wrong)")
        return False
    return True


def main():
    print(f"[{os.path.basename(sys.argv[0])}] - Starting...")
    dev_id = find_cuda_device(0)
    device_props = check(runtime.cudaGetDeviceProperties(dev_id))
    print(f"CUDA device [{prop_name(device_props)}]")

    library = build_library(compile_kernels(device_arch(dev_id)))
    (increment_kernel,) = get_kernels(library, "increment_kernel")

    n = 16 * 1024 * 1024
    nbytes = n * 4
    value = 26

    # allocate host memory
    a_ptr = check(runtime.cudaMallocHost(nbytes))
    a = host_array(a_ptr, n, np.int32)
    a[:] = 0

    # allocate device memory
    d_a = check(runtime.cudaMalloc(nbytes))
    check(runtime.cudaMemset(d_a, 255, nbytes))

    # set kernel launch configuration
    threads = dim3(512, 1)
    blocks = dim3(n // threads.x, 1)

    # create cuda event handles
    start = check(runtime.cudaEventCreate())
    stop = check(runtime.cudaEventCreate())

    check(runtime.cudaDeviceSynchronize())

    # asynchronously issue work to the GPU (all to stream 0)
    check(runtime.cudaProfilerStart())
    t0 = time.perf_counter()
    check(runtime.cudaEventRecord(start, 0))
    check(runtime.cudaMemcpyAsync(d_a, a_ptr, nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, 0))
    check(runtime.cudaLaunchKernel(increment_kernel, blocks, threads,
                                   ((d_a, value), (ctypes.c_void_p, ctypes.c_int)), 0, 0))
    check(runtime.cudaMemcpyAsync(a_ptr, d_a, nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, 0))
    check(runtime.cudaEventRecord(stop, 0))
    cpu_ms = (time.perf_counter() - t0) * 1e3
    check(runtime.cudaProfilerStop())

    # have the CPU do some work while waiting for the GPU to finish
    counter = 0
    while runtime.cudaEventQuery(stop)[0] == runtime.cudaError_t.cudaErrorNotReady:
        counter += 1
    check(runtime.cudaEventQuery(stop))  # the work ended without an error

    gpu_time = check(runtime.cudaEventElapsedTime(start, stop))

    # print the cpu and gpu times
    print(f"time spent executing by the GPU: {gpu_time:.2f}")
    print(f"time spent by CPU in CUDA calls: {cpu_ms:.2f}")
    print(f"CPU executed {counter} iterations while waiting for GPU to finish")

    # check the output for correctness
    final_results = correct_output(a, value)
    print(f"{n} elements of 0 + {value}: {'ok' if final_results else 'WRONG RESULT'}")

    # release resources
    del a
    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(stop))
    check(runtime.cudaFreeHost(a_ptr))
    check(runtime.cudaFree(d_a))
    check(runtime.cudaLibraryUnload(library))
    return 0 if final_results else 1


if __name__ == "__main__":
    sys.exit(main())
