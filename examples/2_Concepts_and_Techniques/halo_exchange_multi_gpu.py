"""A 2-D Jacobi relaxation split over several GPUs, halo rows exchanged by peer copies after every
iteration: port of the single-threaded copy variant of NVIDIA's multi-GPU Jacobi solver
(multi-gpu-programming-models, single_threaded_copy/jacobi.cu).

The ny x nx mesh has fixed values on its left and right columns (sin(2 pi y / (ny - 1))) and is
periodic from top to bottom. Its ny - 2 inner rows are cut into one chunk per GPU; each GPU holds
its chunk plus a halo row above and below. One thread (this one) drives all GPUs: every iteration,
on each GPU, a kernel computes the new values and the squared residues of its rows (summed into
one float), then two more streams copy the GPU's first and last row into the halo rows of the GPUs
above and below it (cudaMemcpyAsync between devices, direct where peer access is enabled); events
order each GPU's next iteration after its neighbours' copies. The residue norm is read after every
iteration, as the sample does by default.

Deviations from the C program: its reference is the same solver on one GPU, here it is numpy (the
same float32 arithmetic, in the same order); the default mesh is 1024 x 1024, not 7168 x 7168, so
that numpy keeps up; the kernel sums the residues per warp before its atomicAdd instead of using
CUB.

    python halo_exchange_multi_gpu.py [-niter 1000] [-nccheck 1] [-nx 1024] [-ny 1024] [-csv] [-nop2p]

Exit status: 0 when the result matches numpy's, 1 when it does not, 3 with fewer than two GPUs.
"""
import argparse
import ctypes
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, requirement_not_met  # noqa: E402
from common.toolkit import host_array, rt_check, runtime_device_count  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

GPUS_NEEDED = 2  # read by tests/test_examples.py and scripts/gpu_check.sh: fewer is a skip there
MAX_NUM_DEVICES = 32
TOL = 1.0e-8                         # the solver stops when the residue norm drops below this
CHECK_TOL = 1.0e-5                   # largest difference from numpy's result accepted
PI = np.float32(2.0 * math.asin(1.0))
DIM_BLOCK_X, DIM_BLOCK_Y = 32, 4
FLOAT = 4                            # bytes

KERNELS = rb"""
extern "C" __global__ void initialize_boundaries(float *__restrict__ a_new, float *__restrict__ a,
                                                 const float pi, const int offset, const int nx,
                                                 const int my_ny, const int ny)
{
    // the left and right columns of this GPU's rows (halo rows included): sin(2 pi y / (ny - 1))
    for (int iy = blockIdx.x * blockDim.x + threadIdx.x; iy < my_ny; iy += blockDim.x * gridDim.x) {
        const float y0 = (float)sin(2.0 * (double)pi * (offset + iy) / (ny - 1));
        a[iy * nx] = y0;
        a[iy * nx + nx - 1] = y0;
        a_new[iy * nx] = y0;
        a_new[iy * nx + nx - 1] = y0;
    }
}

extern "C" __global__ void jacobi_kernel(float *__restrict__ a_new, const float *__restrict__ a,
                                         float *__restrict__ l2_norm, const int iy_start,
                                         const int iy_end, const int nx)
{
    const int iy = blockIdx.y * blockDim.y + threadIdx.y + iy_start;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
    float residue_sq = 0.0f;
    if (iy < iy_end && ix < nx - 1) {
        // the four neighbours, summed in this order (numpy's reference does the same)
        const float updated = 0.25f * (a[iy * nx + ix + 1] + a[iy * nx + ix - 1]
                                       + a[(iy + 1) * nx + ix] + a[(iy - 1) * nx + ix]);
        a_new[iy * nx + ix] = updated;
        const float residue = updated - a[iy * nx + ix];
        residue_sq = residue * residue;
    }
    // a block row of 32 threads is one warp: sum it, then one atomicAdd per warp
    for (int step = 16; step > 0; step /= 2)
        residue_sq += __shfl_down_sync(0xffffffffu, residue_sq, step);
    if (threadIdx.x == 0)
        atomicAdd(l2_norm, residue_sq);
}
"""

F = ctypes.c_void_p
I32 = ctypes.c_int


def jacobi_reference(nx, ny, iterations):
    """The same relaxation on the whole mesh with numpy: (final mesh, norm of the last residue)."""
    a = np.zeros((ny, nx), dtype=np.float32)
    y0 = np.sin(2.0 * np.float64(PI) * np.arange(ny) / (ny - 1)).astype(np.float32)
    a[:, 0] = y0
    a[:, nx - 1] = y0
    a_new = a.copy()
    quarter = np.float32(0.25)
    for _ in range(iterations):
        a_new[1:-1, 1:-1] = quarter * (((a[1:-1, 2:] + a[1:-1, :-2]) + a[2:, 1:-1]) + a[:-2, 1:-1])
        # periodic from top to bottom: the halo rows are the inner rows at the other end
        a_new[0, 1:-1] = a_new[ny - 2, 1:-1]
        a_new[ny - 1, 1:-1] = a_new[1, 1:-1]
        a, a_new = a_new, a
    residue = a[1:-1, 1:-1].astype(np.float64) - a_new[1:-1, 1:-1]
    return a, math.sqrt(float(np.sum(residue * residue)))


def parse_args():
    ap = argparse.ArgumentParser(description="2-D Jacobi relaxation over several GPUs with halo exchange")
    ap.add_argument("-niter", type=int, default=1000)
    ap.add_argument("-nccheck", type=int, default=1)
    ap.add_argument("-nx", type=int, default=1024)
    ap.add_argument("-ny", type=int, default=1024)
    ap.add_argument("-csv", action="store_true")
    ap.add_argument("-nop2p", action="store_true")
    return ap.parse_args()


def main():
    args = parse_args()
    iter_max, nccheck, nx, ny, csv, nop2p = args.niter, args.nccheck, args.nx, args.ny, args.csv, args.nop2p

    count = runtime_device_count(1)
    if count < GPUS_NEEDED:
        requirement_not_met(f"needs two GPUs, found {count}")
    num_devices = min(count, MAX_NUM_DEVICES)
    if ny - 2 < 2 * num_devices:
        print(f"the mesh needs at least {2 * num_devices + 2} rows for {num_devices} GPUs")
        return 1

    a: list[int] = [0] * num_devices
    a_new: list[int] = [0] * num_devices
    compute_stream: list[runtime.cudaStream_t] = []
    push_top_stream: list[runtime.cudaStream_t] = []
    push_bottom_stream: list[runtime.cudaStream_t] = []
    compute_done: list[runtime.cudaEvent_t] = []
    push_top_done: list[list[runtime.cudaEvent_t]] = [[], []]
    push_bottom_done: list[list[runtime.cudaEvent_t]] = [[], []]
    l2_norm_d: list[int] = []
    l2_norm_h: list[int] = []
    iy_start = [0] * num_devices
    iy_end = [0] * num_devices
    jacobi: list[driver.CUfunction] = []

    # the kernels: compiled by NVRTC once per architecture, one function per device's context
    check(driver.cuInit(0))
    libraries: dict[str, driver.CUlibrary] = {}

    # Ensure correctness if (ny - 2) % num_devices != 0
    chunk_size = -(-(ny - 2) // num_devices)
    a_h_ptr = 0
    for dev_id in range(num_devices):
        rt_check(runtime.cudaSetDevice(dev_id))
        rt_check(runtime.cudaFree(0))

        if dev_id == 0:
            a_h_ptr = rt_check(runtime.cudaMallocHost(nx * ny * FLOAT))

        prop = rt_check(runtime.cudaGetDeviceProperties(dev_id))
        arch = f"{prop.major}{prop.minor}"
        if arch not in libraries:
            image = compile_source(KERNELS, arch, fmt="cubin", name=b"jacobi.cu")
            libraries[arch] = check(driver.cuLibraryLoadData(image, [], [], 0, [], [], 0))
        kernel = check(driver.cuLibraryGetKernel(libraries[arch], b"jacobi_kernel"))
        jacobi.append(check(driver.cuKernelGetFunction(kernel)))
        init_kernel = check(driver.cuLibraryGetKernel(libraries[arch], b"initialize_boundaries"))
        initialize_boundaries = check(driver.cuKernelGetFunction(init_kernel))

        a[dev_id] = rt_check(runtime.cudaMalloc(nx * (chunk_size + 2) * FLOAT))
        a_new[dev_id] = rt_check(runtime.cudaMalloc(nx * (chunk_size + 2) * FLOAT))
        rt_check(runtime.cudaMemset(a[dev_id], 0, nx * (chunk_size + 2) * FLOAT))
        rt_check(runtime.cudaMemset(a_new[dev_id], 0, nx * (chunk_size + 2) * FLOAT))

        # this GPU's rows of the mesh
        iy_start_global = dev_id * chunk_size + 1
        iy_end_global = iy_start_global + chunk_size - 1
        # the boundary rows are not computed
        iy_end_global = min(iy_end_global, ny - 2)
        iy_start[dev_id] = 1
        iy_end[dev_id] = (iy_end_global - iy_start_global + 1) + iy_start[dev_id]

        # Dirichlet boundary conditions on the left and right columns
        init_args = ((a[dev_id], a_new[dev_id], float(PI), iy_start_global - 1, nx, chunk_size + 2, ny),
                     (F, F, ctypes.c_float, I32, I32, I32, I32))
        check(driver.cuLaunchKernel(initialize_boundaries, (ny // num_devices) // 128 + 1, 1, 1, 128, 1, 1,
                                    0, 0, init_args, 0))
        rt_check(runtime.cudaDeviceSynchronize())

        compute_stream.append(rt_check(runtime.cudaStreamCreate()))
        push_top_stream.append(rt_check(runtime.cudaStreamCreate()))
        push_bottom_stream.append(rt_check(runtime.cudaStreamCreate()))
        compute_done.append(rt_check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming)))
        for parity in (0, 1):
            push_top_done[parity].append(rt_check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming)))
            push_bottom_done[parity].append(rt_check(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming)))

        l2_norm_d.append(rt_check(runtime.cudaMalloc(FLOAT)))
        l2_norm_h.append(rt_check(runtime.cudaMallocHost(FLOAT)))

        if not nop2p:
            top = dev_id - 1 if dev_id > 0 else num_devices - 1
            if rt_check(runtime.cudaDeviceCanAccessPeer(dev_id, top)):
                rt_check(runtime.cudaDeviceEnablePeerAccess(top, 0))
            bottom = (dev_id + 1) % num_devices
            if top != bottom and rt_check(runtime.cudaDeviceCanAccessPeer(dev_id, bottom)):
                rt_check(runtime.cudaDeviceEnablePeerAccess(bottom, 0))
        rt_check(runtime.cudaDeviceSynchronize())

    d2d = runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice
    row_bytes = nx * FLOAT

    def neighbours(dev_id):
        """The GPUs above and below (periodic: the first GPU's "above" is the last)."""
        return (dev_id - 1 if dev_id > 0 else num_devices - 1), (dev_id + 1) % num_devices

    def push_top(dev_id, top):
        """This GPU's first row into the bottom halo row of the GPU above."""
        rt_check(runtime.cudaMemcpyAsync(a_new[top] + iy_end[top] * row_bytes,
                                         a_new[dev_id] + iy_start[dev_id] * row_bytes, row_bytes, d2d,
                                         push_top_stream[dev_id]))

    def push_bottom(dev_id, bottom):
        """This GPU's last row into the top halo row of the GPU below."""
        rt_check(runtime.cudaMemcpyAsync(a_new[bottom], a_new[dev_id] + (iy_end[dev_id] - 1) * row_bytes,
                                         row_bytes, d2d, push_bottom_stream[dev_id]))

    # fill the halo rows once before starting
    for _ in range(5):
        for dev_id in range(num_devices):
            rt_check(runtime.cudaSetDevice(dev_id))
            top, bottom = neighbours(dev_id)
            push_top(dev_id, top)
            push_bottom(dev_id, bottom)
        for dev_id in range(num_devices):
            rt_check(runtime.cudaSetDevice(dev_id))
            rt_check(runtime.cudaStreamSynchronize(push_top_stream[dev_id]))
            rt_check(runtime.cudaStreamSynchronize(push_bottom_stream[dev_id]))

    if not csv:
        print(f"Jacobi relaxation: {iter_max} iterations on {ny} x {nx} mesh with norm check every "
              f"{nccheck} iterations, {num_devices} GPUs, peer access {'off' if nop2p else 'on where possible'}")

    grid_x = (nx + DIM_BLOCK_X - 1) // DIM_BLOCK_X
    grid_y = (chunk_size + DIM_BLOCK_Y - 1) // DIM_BLOCK_Y
    norms = [host_array(p, 1, np.float32) for p in l2_norm_h]

    iteration = 0
    l2_norm = 1.0
    norm_iteration = -1              # the iteration whose residue l2_norm is
    for dev_id in range(num_devices):
        rt_check(runtime.cudaSetDevice(dev_id))
        rt_check(runtime.cudaDeviceSynchronize())
    start = time.perf_counter()
    while l2_norm > TOL and iteration < iter_max:
        norm_check = iteration % nccheck == 0 or (not csv and iteration % 100 == 0)
        for dev_id in range(num_devices):
            top, bottom = neighbours(dev_id)
            rt_check(runtime.cudaSetDevice(dev_id))

            rt_check(runtime.cudaMemsetAsync(l2_norm_d[dev_id], 0, FLOAT, compute_stream[dev_id]))

            # the halo rows this iteration reads come from the neighbours' last pushes
            rt_check(runtime.cudaStreamWaitEvent(compute_stream[dev_id], push_top_done[iteration % 2][bottom], 0))
            rt_check(runtime.cudaStreamWaitEvent(compute_stream[dev_id], push_bottom_done[iteration % 2][top], 0))

            kernel_args = ((a_new[dev_id], a[dev_id], l2_norm_d[dev_id], iy_start[dev_id], iy_end[dev_id], nx),
                           (F, F, F, I32, I32, I32))
            check(driver.cuLaunchKernel(jacobi[dev_id], grid_x, grid_y, 1, DIM_BLOCK_X, DIM_BLOCK_Y, 1, 0,
                                        compute_stream[dev_id], kernel_args, 0))
            rt_check(runtime.cudaEventRecord(compute_done[dev_id], compute_stream[dev_id]))

            if norm_check:
                rt_check(runtime.cudaMemcpyAsync(l2_norm_h[dev_id], l2_norm_d[dev_id], FLOAT,
                                                 runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                                                 compute_stream[dev_id]))

            # periodic boundary conditions: the new first and last rows to the neighbours
            rt_check(runtime.cudaStreamWaitEvent(push_top_stream[dev_id], compute_done[dev_id], 0))
            push_top(dev_id, top)
            rt_check(runtime.cudaEventRecord(push_top_done[(iteration + 1) % 2][dev_id], push_top_stream[dev_id]))

            rt_check(runtime.cudaStreamWaitEvent(push_bottom_stream[dev_id], compute_done[dev_id], 0))
            push_bottom(dev_id, bottom)
            rt_check(runtime.cudaEventRecord(push_bottom_done[(iteration + 1) % 2][dev_id],
                                             push_bottom_stream[dev_id]))

        if norm_check:
            total = 0.0
            for dev_id in range(num_devices):
                rt_check(runtime.cudaStreamSynchronize(compute_stream[dev_id]))
                total += float(norms[dev_id][0])
            l2_norm = math.sqrt(total)
            norm_iteration = iteration
            if not csv and iteration % 100 == 0:
                print(f"{iteration:5d}, {l2_norm:0.6f}")

        for dev_id in range(num_devices):
            a_new[dev_id], a[dev_id] = a[dev_id], a_new[dev_id]
        iteration += 1
    for dev_id in range(num_devices):
        rt_check(runtime.cudaSetDevice(dev_id))
        rt_check(runtime.cudaDeviceSynchronize())
    elapsed = time.perf_counter() - start

    # the inner rows of every GPU, back into one mesh
    a_h = host_array(a_h_ptr, nx * ny, np.float32)
    a_h[:] = 0
    offset = nx
    for dev_id in range(num_devices):
        elements = min(nx * ny - offset, nx * chunk_size)
        rt_check(runtime.cudaMemcpy(a_h_ptr + offset * FLOAT, a[dev_id] + nx * FLOAT, elements * FLOAT,
                                    runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        offset += min(chunk_size * nx, nx * ny - offset)

    t0 = time.perf_counter()
    ref, ref_norm = jacobi_reference(nx, ny, iteration)
    ref_seconds = time.perf_counter() - t0
    mesh = a_h.reshape(ny, nx)
    diff = np.abs(mesh[1:-1, 1:-1].astype(np.float64) - ref[1:-1, 1:-1])
    worst = float(diff.max())
    good = worst <= CHECK_TOL
    if not good:
        iy, ix = np.unravel_index(int(np.argmax(diff)), diff.shape)
        print(f"ERROR: a[{iy + 1} * {nx} + {ix + 1}] = {mesh[iy + 1, ix + 1]:.8f} does not match "
              f"{ref[iy + 1, ix + 1]:.8f} (numpy)")
    # (the norm of the last iteration, where it was read then; float atomics sum in any order)
    norm_ok = norm_iteration != iteration - 1 or math.isclose(l2_norm, ref_norm, rel_tol=1e-3, abs_tol=1e-7)
    if not norm_ok:
        print(f"ERROR: residue norm {l2_norm:.8f} on the GPUs, {ref_norm:.8f} with numpy")

    if csv:
        print(f"single_threaded_copy, {nx}, {ny}, {iter_max}, {nccheck}, {num_devices}, {elapsed:.4f}, {worst:.3g}")
    else:
        print(f"Num GPUs: {num_devices}. {ny}x{nx}, {iteration} iterations: {num_devices} GPUs {elapsed:8.4f} s, "
              f"numpy {ref_seconds:8.4f} s; largest difference from numpy {worst:.3g}, residue norm "
              f"{l2_norm:.6f} (numpy {ref_norm:.6f})")

    for dev_id in range(num_devices):
        rt_check(runtime.cudaSetDevice(dev_id))
        for event in (compute_done[dev_id], push_top_done[0][dev_id], push_top_done[1][dev_id],
                      push_bottom_done[0][dev_id], push_bottom_done[1][dev_id]):
            rt_check(runtime.cudaEventDestroy(event))
        for stream in (compute_stream[dev_id], push_top_stream[dev_id], push_bottom_stream[dev_id]):
            rt_check(runtime.cudaStreamDestroy(stream))
        rt_check(runtime.cudaFreeHost(l2_norm_h[dev_id]))
        rt_check(runtime.cudaFree(l2_norm_d[dev_id]))
        rt_check(runtime.cudaFree(a_new[dev_id]))
        rt_check(runtime.cudaFree(a[dev_id]))
    del norms, a_h, mesh
    rt_check(runtime.cudaFreeHost(a_h_ptr))
    for library in libraries.values():
        check(driver.cuLibraryUnload(library))

    print("Test passed" if good and norm_ok else "WRONG RESULT")
    return 0 if good and norm_ok else 1


if __name__ == "__main__":
    sys.exit(main())
