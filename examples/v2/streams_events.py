"""Streams and events with the second API, `cuda.bindings._v2.driver`: work split over two
non-blocking streams, copies from page-locked memory, one stream waiting for an event the other
records (so its kernel sees the first kernel's result), and the time each stage took on the
device, from pairs of events.

Stream 1 copies x to the device and doubles it; stream 2 waits for that, adds 1, and copies the
result back: every element must read 2 * x + 1. Handles (streams, events) are plain ints.

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

KERNELS = b"""
extern "C" __global__ void scale(float *x, float a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] *= a;
}
extern "C" __global__ void add(float *x, float b, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] += b;
}
"""


def main():
    ptx, _ = compile_cuda(KERNELS, PTX_TARGET, name=b"stages.cu")

    dev = first_device(0)
    use_primary_context(dev)
    module = driver.module_load_data(ptx)
    scale = driver.module_get_function(module, b"scale")
    add = driver.module_get_function(module, b"add")

    n = 1 << 22
    nbytes = n * 4
    # page-locked host buffers, so the copies are asynchronous with respect to the host
    h_in = driver.mem_alloc_host_v2(nbytes)
    h_out = driver.mem_alloc_host_v2(nbytes)
    x = np.ctypeslib.as_array((ctypes.c_float * n).from_address(h_in))
    out = np.ctypeslib.as_array((ctypes.c_float * n).from_address(h_out))
    x[:] = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    out[:] = 0
    d_x = driver.mem_alloc_v2(nbytes)

    flags = int(driver.StreamFlags.NON_BLOCKING)
    s1, s2 = driver.stream_create(flags), driver.stream_create(flags)
    marks = {name: driver.event_create(int(driver.EventFlags.DEFAULT))
             for name in ("start", "copied_in", "scaled", "added", "copied_out")}

    grid, block = 256, 256
    arg_types = (ctypes.c_void_p, ctypes.c_float, ctypes.c_int)
    driver.event_record(marks["start"], s1)
    driver.memcpy_htod_async_v2(d_x, h_in, nbytes, s1)
    driver.event_record(marks["copied_in"], s1)
    driver.launch_kernel(scale, grid, 1, 1, block, 1, 1, 0, s1, ((d_x, 2.0, n), arg_types), 0)
    driver.event_record(marks["scaled"], s1)

    driver.stream_wait_event(s2, marks["scaled"], 0)      # stream 2 starts once x is doubled
    driver.launch_kernel(add, grid, 1, 1, block, 1, 1, 0, s2, ((d_x, 1.0, n), arg_types), 0)
    driver.event_record(marks["added"], s2)
    driver.memcpy_dtoh_async_v2(h_out, d_x, nbytes, s2)
    driver.event_record(marks["copied_out"], s2)

    driver.event_synchronize(marks["copied_out"])
    driver.stream_query(s1)                                # both streams are idle now: no raise
    driver.stream_query(s2)
    stages = list(marks)
    times = {f"{a} -> {b}": driver.event_elapsed_time_v2(marks[a], marks[b]) for a, b in zip(stages, stages[1:])}
    total = driver.event_elapsed_time_v2(marks["start"], marks["copied_out"])

    expected = 2.0 * x + 1.0
    err = float(np.max(np.abs(out - expected)))
    good = err <= 1e-6 and all(t >= 0 for t in times.values()) and total >= max(times.values())
    print(f"{device_name(dev)}: {n} floats through two streams, {total:.3f} ms in all")
    for stage, ms in times.items():
        print(f"  {stage}: {ms:.3f} ms")
    print(f"max abs error of 2x+1: {err:.3g}: {'ok' if good else 'WRONG RESULT'}")

    for e in marks.values():
        driver.event_destroy_v2(e)
    driver.stream_destroy_v2(s1)
    driver.stream_destroy_v2(s2)
    driver.mem_free_v2(d_x)
    driver.mem_free_host(h_in)
    driver.mem_free_host(h_out)
    driver.module_unload(module)
    release_primary_context(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
