"""Many streams feeding the GPU at once (HyperQ), the Python twin of the CUDA sample simpleHyperQ.
API area: concurrent kernels in many streams, event timing, a device attribute
(cudaDevAttrClockRate) and cooperative groups in a kernel.

32 streams each get a pair of single-thread kernels, kernel_A then kernel_B, each spinning for
10 ms of GPU clock ticks (clock()) and storing the ticks it counted. kernel_B depends on kernel_A
only within its own stream; with HyperQ the device runs the 32 pairs side by side, so the whole
takes about 2 x 10 ms instead of 32 x 20 ms. A one-warp `sum` kernel adds up the 64 tick counts.

Checked: the sum of the ticks the kernels counted is at least the ticks they were asked to spin
(the result of the work itself; a failure exits 1). The timing is what the sample prints; when the
measured time is not below the serial lower bound (the kernels did not overlap, as on a busy or
shared GPU) the program says so as a warning, without failing.

Run: python examples/0_Introduction/simple_hyper_q.py [--nstreams N]
Exit status: 0 on a correct sum, 1 on a wrong one, 3 when no CUDA device (or no CUDA headers for
<cooperative_groups.h>) is available.
"""
import argparse
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from common.toolkit import host_array  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

KERNELS = b"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

static_assert(sizeof(clock_t) == 8, "the host reads clock_t as a 64-bit integer");

// Does no real work but runs for at least clock_count ticks of the SM clock.
__device__ void clock_block(clock_t *d_o, clock_t clock_count)
{
    unsigned int start_clock = (unsigned int)clock();
    clock_t clock_offset = 0;
    while (clock_offset < clock_count) {
        unsigned int end_clock = (unsigned int)clock();
        // unsigned subtraction stays right when the 32-bit counter wraps around
        clock_offset = (clock_t)(end_clock - start_clock);
    }
    d_o[0] = clock_offset;
}

// Two identical kernels, so a profile timeline shows that kernel_B waits for kernel_A of its
// own stream only.
extern "C" __global__ void kernel_A(clock_t *d_o, clock_t clock_count) { clock_block(d_o, clock_count); }
extern "C" __global__ void kernel_B(clock_t *d_o, clock_t clock_count) { clock_block(d_o, clock_count); }

// Single-warp sum of N values into d_clocks[0] (simple rather than fast).
extern "C" __global__ void sum(clock_t *d_clocks, int N)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ clock_t s_clocks[32];

    clock_t my_sum = 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        my_sum += d_clocks[i];
    s_clocks[threadIdx.x] = my_sum;
    cg::sync(cta);

    for (int i = warpSize / 2; i > 0; i /= 2) {
        if (threadIdx.x < i)
            s_clocks[threadIdx.x] += s_clocks[threadIdx.x + i];
        cg::sync(cta);
    }
    if (threadIdx.x == 0)
        d_clocks[0] = s_clocks[0];
}
"""
HEADERS = ("cooperative_groups.h", "nv/target")


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleHyperQ.cu", headers=HEADERS)


def main():
    parser = argparse.ArgumentParser(description="simpleHyperQ")
    parser.add_argument("--nstreams", type=int, default=32, help="one stream for each pair of kernels")
    nstreams = parser.parse_args().nstreams
    kernel_time = 10.0  # time each kernel should run, in ms

    print("starting hyperQ...")
    cuda_device = find_cuda_device(0)
    cuda_device = check(runtime.cudaGetDevice())
    device_prop = check(runtime.cudaGetDeviceProperties(cuda_device))

    # the device clock rate, in kHz
    clock_rate = check(runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrClockRate, cuda_device))

    # HyperQ came with compute capability 3.5
    if device_prop.major < 3 or (device_prop.major == 3 and device_prop.minor < 5):
        if device_prop.concurrentKernels == 0:
            print("> GPU does not support concurrent kernel execution (SM 3.5 or higher required)")
            print("  CUDA kernel runs will be serialized")
        else:
            print("> GPU does not support HyperQ")
            print("  CUDA kernel runs will have limited concurrency")
    print(f"> Detected Compute SM {device_prop.major}.{device_prop.minor} hardware with "
          f"{device_prop.multiProcessorCount} multi-processors")

    library = build_library(compile_kernels(device_arch(cuda_device)))
    kernel_a, kernel_b, sum_kernel = get_kernels(library, "kernel_A", "kernel_B", "sum")

    # host memory for the output (reduced to a single value)
    a_ptr = check(runtime.cudaMallocHost(8))
    a = host_array(a_ptr, 1, np.int64)
    a[0] = 0

    # device memory for the output (one value for each kernel)
    d_a = check(runtime.cudaMalloc(2 * nstreams * 8))

    streams = [check(runtime.cudaStreamCreate()) for _ in range(nstreams)]
    start_event = check(runtime.cudaEventCreate())
    stop_event = check(runtime.cudaEventCreate())

    # target number of ticks = target time x clock frequency (kHz: ticks per ms)
    time_clocks = int(kernel_time * clock_rate)
    total_clocks = 0

    check(runtime.cudaEventRecord(start_event, 0))
    # queue pairs of {kernel_A, kernel_B} in separate streams
    one = dim3(1)
    for i in range(nstreams):
        args = ((d_a + 2 * i * 8, time_clocks), (ctypes.c_void_p, ctypes.c_longlong))
        check(runtime.cudaLaunchKernel(kernel_a, one, one, args, 0, streams[i]))
        total_clocks += time_clocks
        args = ((d_a + (2 * i + 1) * 8, time_clocks), (ctypes.c_void_p, ctypes.c_longlong))
        check(runtime.cudaLaunchKernel(kernel_b, one, one, args, 0, streams[i]))
        total_clocks += time_clocks
    # stop the clock in stream 0 (the legacy default stream waits for every other stream)
    check(runtime.cudaEventRecord(stop_event, 0))

    # the CPU could do other work now; here it waits for the sum through a blocking copy
    check(runtime.cudaLaunchKernel(sum_kernel, one, dim3(32), ((d_a, 2 * nstreams), (ctypes.c_void_p, ctypes.c_int)),
                                   0, 0))
    check(runtime.cudaMemcpy(a_ptr, d_a, 8, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    check(runtime.cudaEventSynchronize(stop_event))
    elapsed_time = check(runtime.cudaEventElapsedTime(start_event, stop_event))

    serial_low = (nstreams + 1) * kernel_time / 1000.0
    serial_high = 2 * nstreams * kernel_time / 1000.0
    concurrent = 2 * kernel_time / 1000.0
    measured = elapsed_time / 1000.0
    print(f"Expected time for serial execution of {nstreams} sets of kernels is between approx. "
          f"{serial_low:.3f}s and {serial_high:.3f}s")
    print(f"Expected time for fully concurrent execution of {nstreams} sets of kernels is approx. {concurrent:.3f}s")
    print(f"Measured time for sample = {measured:.3f}s")
    if measured >= serial_low:
        print(f"WARNING: the kernels did not run concurrently ({measured:.3f}s is not below the serial "
              f"{serial_low:.3f}s); the GPU may be shared or busy")
    else:
        print(f"the {2 * nstreams} kernels overlapped: {serial_high / measured:.1f}x faster than back to back")

    counted = int(a[0])
    test_result = counted >= total_clocks
    print(f"the kernels counted {counted} clock ticks, asked for {total_clocks}: "
          f"{'ok' if test_result else 'WRONG RESULT'}")

    # release resources
    del a
    for s in streams:
        check(runtime.cudaStreamDestroy(s))
    check(runtime.cudaEventDestroy(start_event))
    check(runtime.cudaEventDestroy(stop_event))
    check(runtime.cudaFreeHost(a_ptr))
    check(runtime.cudaFree(d_a))
    check(runtime.cudaLibraryUnload(library))
    return 0 if test_result else 1


if __name__ == "__main__":
    sys.exit(main())
