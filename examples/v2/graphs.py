"""CUDA graphs with the second API, `cuda.bindings._v2.driver`: a stream's work (a copy in, two
kernels, a copy out) captured into a graph, instantiated once and launched three times, each time
on new input written to the same page-locked buffer the graph copies from. The graph, its
executable form and its nodes are plain ints.

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
extern "C" __global__ void square(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}
extern "C" __global__ void offset(float *x, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += b;
}
"""


def main():
    ptx, _ = compile_cuda(KERNELS, PTX_TARGET, name=b"graph_kernels.cu")

    dev = first_device(0)
    use_primary_context(dev)
    module = driver.module_load_data(ptx)
    square = driver.module_get_function(module, b"square")
    offset = driver.module_get_function(module, b"offset")

    n, block = 100_000, 256
    grid = (n + block - 1) // block
    nbytes = n * 4
    h_in, h_out = driver.mem_alloc_host_v2(nbytes), driver.mem_alloc_host_v2(nbytes)
    x = np.ctypeslib.as_array((ctypes.c_float * n).from_address(h_in))
    out = np.ctypeslib.as_array((ctypes.c_float * n).from_address(h_out))
    d_x = driver.mem_alloc_v2(nbytes)
    stream = driver.stream_create(int(driver.StreamFlags.NON_BLOCKING))

    # capture: nothing runs now, each call becomes a node of the graph
    driver.stream_begin_capture_v2(stream, driver.StreamCaptureMode.GLOBAL)
    capturing = driver.stream_is_capturing(stream)
    driver.memcpy_htod_async_v2(d_x, h_in, nbytes, stream)
    driver.launch_kernel(square, grid, 1, 1, block, 1, 1, 0, stream, ((d_x, n), (ctypes.c_void_p, ctypes.c_int)), 0)
    driver.launch_kernel(offset, grid, 1, 1, block, 1, 1, 0, stream,
                         ((d_x, 0.5, n), (ctypes.c_void_p, ctypes.c_float, ctypes.c_int)), 0)
    driver.memcpy_dtoh_async_v2(h_out, d_x, nbytes, stream)
    graph = driver.stream_end_capture(stream)
    graph_exec = driver.graph_instantiate_with_flags(graph, 0)

    good = capturing == int(driver.StreamCaptureStatus.ACTIVE)
    rng = np.random.default_rng(3)
    for launch in range(3):
        x[:] = rng.standard_normal(n, dtype=np.float32)
        out[:] = 0
        driver.graph_launch(graph_exec, stream)
        driver.stream_synchronize(stream)
        err = float(np.max(np.abs(out - (x * x + 0.5))))
        good = good and err <= 1e-6
        print(f"  launch {launch + 1}: max abs error of x*x + 0.5: {err:.3g}")
    print(f"{device_name(dev)}: one graph of a captured stream (copy in, 2 kernels, copy out), "
          f"launched 3 times: {'ok' if good else 'WRONG RESULT'}")

    driver.graph_exec_destroy(graph_exec)
    driver.graph_destroy(graph)
    driver.stream_destroy_v2(stream)
    driver.mem_free_v2(d_x)
    driver.mem_free_host(h_in)
    driver.mem_free_host(h_out)
    driver.module_unload(module)
    release_primary_context(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
