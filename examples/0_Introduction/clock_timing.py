"""Timing inside a kernel with the SM clock: every block reads its clock when it starts and when it
finishes a minimum reduction in shared memory, and the host averages the clock ticks per block.
The whole launch is also timed from the host side with CUDA events.

Each block reduces the same 2 * NUM_THREADS values (a shuffled 0, 1, 2, ...) to their minimum, so
every block's result must be 0; every block's clock difference must be positive.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, select_device  # noqa: E402
from common.cuda_extras import EventTimer, device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

# clock64() rather than the 32-bit clock(): a 64-bit counter does not wrap during the launch
TIMED_REDUCTION = b"""
extern "C" __global__ void timedReduction(const float *input, float *output, long long *timer)
{
    extern __shared__ float shared[];

    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    if (tid == 0) timer[bid] = clock64();

    // every thread copies two values into shared memory
    shared[tid] = input[tid];
    shared[tid + blockDim.x] = input[tid + blockDim.x];

    // halve the active range each step, keeping the smaller of each pair
    for (int d = blockDim.x; d > 0; d /= 2) {
        __syncthreads();
        if (tid < d) {
            float f0 = shared[tid];
            float f1 = shared[tid + d];
            if (f1 < f0) shared[tid] = f1;
        }
    }

    if (tid == 0) output[bid] = shared[0];

    __syncthreads();

    if (tid == 0) timer[bid + gridDim.x] = clock64();
}
"""

NUM_BLOCKS = 64
NUM_THREADS = 256
PTX_ARCH = "75"


def main():
    ptx = compile_source(TIMED_REDUCTION, PTX_ARCH, fmt="ptx", name=b"clock_kernel.cu")
    print(f"NVRTC compiled timedReduction to {len(ptx)} bytes of PTX (compute_{PTX_ARCH})")

    dev, _ctx = select_device(0)
    print(f"CUDA clock sample on {device_name(dev)}")
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"timedReduction"))
    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))

    rng = np.random.default_rng(2)
    h_input = rng.permutation(NUM_THREADS * 2).astype(np.float32)
    h_output = np.full(NUM_BLOCKS, -1.0, dtype=np.float32)
    h_timer = np.zeros(NUM_BLOCKS * 2, dtype=np.int64)

    d_input = check(driver.cuMemAlloc(h_input.nbytes))
    d_output = check(driver.cuMemAlloc(h_output.nbytes))
    d_timer = check(driver.cuMemAlloc(h_timer.nbytes))
    check(driver.cuMemcpyHtoD(d_input, h_input, h_input.nbytes))

    shared_bytes = ctypes.sizeof(ctypes.c_float) * 2 * NUM_THREADS
    args = ((d_input, d_output, d_timer), (None, None, None))

    timer = EventTimer()
    timer.start(stream)
    check(driver.cuLaunchKernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1,
                                shared_bytes, stream, args, 0))
    elapsed_ms = timer.stop(stream)

    check(driver.cuMemcpyDtoH(h_output, d_output, h_output.nbytes))
    check(driver.cuMemcpyDtoH(h_timer, d_timer, h_timer.nbytes))

    clocks = h_timer[NUM_BLOCKS:] - h_timer[:NUM_BLOCKS]
    avg_clocks = float(clocks.mean())
    print(f"{NUM_BLOCKS} blocks of {NUM_THREADS} threads, {shared_bytes} bytes of dynamic shared memory each")
    print(f"Average clocks/block = {avg_clocks:.1f} (min {int(clocks.min())}, max {int(clocks.max())})")
    print(f"Launch time measured with events: {elapsed_ms:.4f} ms")

    expected = float(h_input.min())
    good = bool(np.all(h_output == expected)) and bool(np.all(clocks > 0)) and elapsed_ms >= 0
    if not np.all(h_output == expected):
        wrong = np.flatnonzero(h_output != expected)
        print(f"WRONG RESULT: block {int(wrong[0])} found minimum {h_output[wrong[0]]}, expected {expected}")
    elif not np.all(clocks > 0):
        print("WRONG RESULT: a block's end clock is not after its start clock")
    else:
        print(f"every block found the minimum {expected}: ok")

    timer.destroy()
    check(driver.cuMemFree(d_input))
    check(driver.cuMemFree(d_output))
    check(driver.cuMemFree(d_timer))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
