"""Work in a high-priority stream overtaking work in a low-priority one, the Python twin of the
CUDA sample StreamPriorities. API area: stream priorities (cudaDeviceGetStreamPriorityRange,
cudaStreamCreateWithPriority) and event timing across streams.

Two non-blocking streams, one at the lowest and one at the highest priority the device offers,
each copy 256 MiB with a grid-stride copy kernel, in two launches of 128 MiB issued alternately
(low, high, low, high). Blocks of the high-priority kernels are scheduled ahead of waiting blocks
of the low-priority ones, so the high-priority stream should finish first and take less time.

Checked: both copies equal their source (a failure exits 1). Printed, as in the sample: the time
each stream took; also how much earlier the high-priority stream finished. When it did not finish
first (a busy or shared GPU, or a device without priorities) the program says so as a warning,
without failing.

Run: python examples/0_Introduction/stream_priorities.py
Exit status: 0 when both copies are right, 1 otherwise, 3 when no CUDA device of compute
capability 3.5 or newer is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, requirement_not_met  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from cuda.bindings import runtime  # noqa: E402

TOTAL_SIZE = 256 * 1024 * 1024
EACH_SIZE = 128 * 1024 * 1024
TBLOCKS = 1024  # thread blocks
THREADS = 512

KERNELS = b"""
// copy n bytes of ints from src to dst, grid-stride
extern "C" __global__ void memcpy_kernel(int *dst, int *src, size_t n)
{
    int num = gridDim.x * blockDim.x;
    int id = blockDim.x * blockIdx.x + threadIdx.x;
    for (int i = id; i < n / sizeof(int); i += num)
        dst[i] = src[i];
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "StreamPriorities.cu")


def main():
    print(f"Starting [{os.path.basename(sys.argv[0])}]...")
    dev_id = find_cuda_device(0)
    device_prop = check(runtime.cudaGetDeviceProperties(dev_id))
    if (device_prop.major << 4) + device_prop.minor < 0x35:
        requirement_not_met("stream priorities need compute capability 3.5 or higher, the device has "
                            f"{device_prop.major}.{device_prop.minor}")

    library = build_library(compile_kernels(device_arch(dev_id)))
    (memcpy_kernel,) = get_kernels(library, "memcpy_kernel")

    # the range of priorities: [greatest_priority, lowest_priority]
    priority_low, priority_hi = check(runtime.cudaDeviceGetStreamPriorityRange())
    print(f"CUDA stream priority range: LOW: {priority_low} to HIGH: {priority_hi}")

    # streams with the lowest and the highest priority
    st_low = check(runtime.cudaStreamCreateWithPriority(runtime.cudaStreamNonBlocking, priority_low))
    st_hi = check(runtime.cudaStreamCreateWithPriority(runtime.cudaStreamNonBlocking, priority_hi))

    size = TOTAL_SIZE
    # host data
    h_src_low = np.arange(size // 4, dtype=np.int32)
    h_src_hi = np.arange(size // 4, dtype=np.int32)
    h_dst_low = np.zeros(size // 4, dtype=np.int32)
    h_dst_hi = np.zeros(size // 4, dtype=np.int32)

    # source data -> device
    h2d = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
    d_src_low = check(runtime.cudaMalloc(size))
    d_src_hi = check(runtime.cudaMalloc(size))
    check(runtime.cudaMemcpy(d_src_low, h_src_low, size, h2d))
    check(runtime.cudaMemcpy(d_src_hi, h_src_hi, size, h2d))

    # destinations of the copies
    d_dst_low = check(runtime.cudaMalloc(size))
    d_dst_hi = check(runtime.cudaMalloc(size))

    ev_start_low = check(runtime.cudaEventCreate())
    ev_start_hi = check(runtime.cudaEventCreate())
    ev_end_low = check(runtime.cudaEventCreate())
    ev_end_hi = check(runtime.cudaEventCreate())

    # the pair of kernels, repeatedly, in the two streams
    check(runtime.cudaEventRecord(ev_start_low, st_low))
    check(runtime.cudaEventRecord(ev_start_hi, st_hi))
    types = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    for i in range(0, TOTAL_SIZE, EACH_SIZE):
        check(runtime.cudaLaunchKernel(memcpy_kernel, dim3(TBLOCKS), dim3(THREADS),
                                       ((d_dst_low + i, d_src_low + i, EACH_SIZE), types), 0, st_low))
        check(runtime.cudaLaunchKernel(memcpy_kernel, dim3(TBLOCKS), dim3(THREADS),
                                       ((d_dst_hi + i, d_src_hi + i, EACH_SIZE), types), 0, st_hi))
    check(runtime.cudaEventRecord(ev_end_low, st_low))
    check(runtime.cudaEventRecord(ev_end_hi, st_hi))

    check(runtime.cudaEventSynchronize(ev_end_low))
    check(runtime.cudaEventSynchronize(ev_end_hi))

    d2h = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
    check(runtime.cudaMemcpy(h_dst_low, d_dst_low, size, d2h))
    check(runtime.cudaMemcpy(h_dst_hi, d_dst_hi, size, d2h))

    # the results of the kernels
    ok_low = bool(np.array_equal(h_dst_low, h_src_low))
    ok_hi = bool(np.array_equal(h_dst_hi, h_src_hi))

    # the timings
    ms_low = check(runtime.cudaEventElapsedTime(ev_start_low, ev_end_low))
    ms_hi = check(runtime.cudaEventElapsedTime(ev_start_hi, ev_end_hi))
    hi_ahead = check(runtime.cudaEventElapsedTime(ev_end_hi, ev_end_low))  # > 0: high finished first
    print(f"elapsed time of kernels launched to LOW priority stream: {ms_low:.3f} ms")
    print(f"elapsed time of kernels launched to HI  priority stream: {ms_hi:.3f} ms")
    if priority_low == priority_hi:
        print("WARNING: the device offers a single stream priority; both streams had the same one")
    elif hi_ahead > 0:
        print(f"the HI priority stream finished {hi_ahead:.3f} ms before the LOW priority stream")
    else:
        print(f"WARNING: the HI priority stream finished {-hi_ahead:.3f} ms after the LOW priority "
              "stream; the GPU may be shared or busy")
    print(f"copies of {TOTAL_SIZE >> 20} MiB: LOW {'ok' if ok_low else 'WRONG RESULT'}, "
          f"HI {'ok' if ok_hi else 'WRONG RESULT'}")

    for e in (ev_start_low, ev_start_hi, ev_end_low, ev_end_hi):
        check(runtime.cudaEventDestroy(e))
    for d in (d_src_low, d_src_hi, d_dst_low, d_dst_hi):
        check(runtime.cudaFree(d))
    check(runtime.cudaStreamDestroy(st_low))
    check(runtime.cudaStreamDestroy(st_hi))
    check(runtime.cudaLibraryUnload(library))
    return 0 if ok_low and ok_hi else 1


if __name__ == "__main__":
    sys.exit(main())
