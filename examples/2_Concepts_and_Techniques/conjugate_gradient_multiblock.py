"""Conjugate gradient solve in ONE kernel launch, port of the CUDA sample
conjugateGradientMultiBlockCG: every iteration's sparse matrix-vector product, dot products and
vector updates run inside a single cooperative kernel, separated by grid-wide barriers
(`cooperative_groups::this_grid().sync()`).

The kernel is compiled by NVRTC with the toolkit's <cooperative_groups.h> and launched with
cuLaunchCooperativeKernel; the grid is as large as can be resident at once (occupancy per SM times
the number of SMs), which a grid barrier requires. The matrix is a random symmetric, diagonally
dominant tridiagonal one in CSR form; the solution is checked against the right-hand side with a
numpy matrix-vector product.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when there is no CUDA device or it cannot
launch cooperative kernels.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import (check, compile_source, device_arch, release_device,  # noqa: E402
                    requirement_not_met, select_device)
from common.toolkit import cuda_include_options  # noqa: E402
from cuda.bindings import driver  # noqa: E402

THREADS_PER_BLOCK = 512

CG_KERNEL = rb"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// y = A * x for a CSR matrix; each thread of the grid takes rows in a grid-stride loop
__device__ void spmv(int n, const int *rowPtr, const int *colIdx, const float *val,
                     const float *x, float *y, const cg::grid_group &grid)
{
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        float sum = 0.0f;
        for (int k = rowPtr[i]; k < rowPtr[i + 1]; ++k)
            sum += val[k] * x[colIdx[k]];
        y[i] = sum;
    }
}

// Adds this thread's partial sum to *result: warp shuffles, then one value per warp in shared
// memory, then one atomicAdd per block. *result is complete after the next grid.sync().
__device__ void gridSum(double partial, double *result, const cg::thread_block &block)
{
    extern __shared__ double warpSums[];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (int offset = warp.size() / 2; offset > 0; offset /= 2)
        partial += warp.shfl_down(partial, offset);
    if (warp.thread_rank() == 0)
        warpSums[warp.meta_group_rank()] = partial;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int warps = warp.meta_group_size();
        double sum = warp.thread_rank() < warps ? warpSums[warp.thread_rank()] : 0.0;
        for (int offset = warp.size() / 2; offset > 0; offset /= 2)
            sum += warp.shfl_down(sum, offset);
        if (warp.thread_rank() == 0)
            atomicAdd(result, sum);
    }
    block.sync();
}

__device__ double readScalar(const double *p) { return *(volatile const double *)p; }

// Solves A x = b. On entry x holds the initial guess and r holds b; sums[0..1] are zero.
// sums[0] collects p.Ap and sums[1] collects r.r; each is cleared by thread 0 at a point of the
// iteration where every thread has already read it and nobody adds to it before the next barrier.
extern "C" __global__ void conjugateGradient(const int *rowPtr, const int *colIdx, const float *val,
                                             float *x, float *Ax, float *p, float *r,
                                             double *sums, int n, int maxIter, float tol,
                                             int *iterations)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    const int first = grid.thread_rank(), stride = grid.size();

    // r = b - A x, r1 = r.r
    spmv(n, rowPtr, colIdx, val, x, Ax, grid);
    double partial = 0.0;
    for (int i = first; i < n; i += stride) {
        r[i] -= Ax[i];
        partial += (double)r[i] * r[i];
    }
    gridSum(partial, &sums[1], block);
    grid.sync();
    double r1 = readScalar(&sums[1]), r0 = 0.0;

    int k = 1;
    while (r1 > (double)tol * tol && k <= maxIter) {
        // p = r + beta p (p = r on the first iteration)
        double beta = k > 1 ? r1 / r0 : 0.0;
        for (int i = first; i < n; i += stride)
            p[i] = k > 1 ? r[i] + (float)beta * p[i] : r[i];
        if (grid.thread_rank() == 0)
            sums[0] = 0.0;
        grid.sync();

        // Ax = A p, then p.Ap
        spmv(n, rowPtr, colIdx, val, p, Ax, grid);
        partial = 0.0;
        for (int i = first; i < n; i += stride)
            partial += (double)p[i] * Ax[i];
        if (grid.thread_rank() == 0)
            sums[1] = 0.0;
        gridSum(partial, &sums[0], block);
        grid.sync();

        // x += alpha p, r -= alpha Ap, then r.r
        float alpha = (float)(r1 / readScalar(&sums[0]));
        partial = 0.0;
        for (int i = first; i < n; i += stride) {
            x[i] += alpha * p[i];
            r[i] -= alpha * Ax[i];
            partial += (double)r[i] * r[i];
        }
        gridSum(partial, &sums[1], block);
        grid.sync();

        r0 = r1;
        r1 = readScalar(&sums[1]);
        ++k;
    }
    if (grid.thread_rank() == 0)
        *iterations = k - 1;
}
"""


def compile_kernel(arch):
    """NVRTC: the cooperative-groups kernel as a CUBIN for sm_ARCH; exits 3 without CUDA headers."""
    includes = cuda_include_options()
    if includes is None:
        requirement_not_met("the CUDA headers for <cooperative_groups.h> (set CUDA_HOME, or install "
                            "nvidia-cuda-runtime and nvidia-cuda-cccl)")
    return compile_source(CG_KERNEL, arch, fmt="cubin", name=b"conjugateGradient.cu",
                          options=includes + [b"--std=c++17"])


def gen_tridiag(n, rng):
    """A random symmetric tridiagonal matrix, diagonal = rand + 10 (so it is positive definite), as
    CSR arrays (rowPtr, colIdx, val), in the layout the C sample builds."""
    diag = rng.random(n, dtype=np.float32) + np.float32(10.0)
    off = rng.random(n - 1, dtype=np.float32)  # off[i] = A[i, i+1] = A[i+1, i]
    idx = np.arange(n)
    # entries of row i in column order: (i, i-1), (i, i), (i, i+1)
    rows = np.concatenate([idx[1:], idx, idx[:-1]])
    cols = np.concatenate([idx[:-1], idx, idx[1:]])
    vals = np.concatenate([off, diag, off])
    order = np.lexsort((cols, rows))
    col_idx = cols[order].astype(np.int32)
    val = vals[order].astype(np.float32)
    row_ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=row_ptr[1:])
    return row_ptr, col_idx, val


def main():
    n = 1 << 20
    max_iter = 10000
    tol = np.float32(1e-5)

    dev, _ctx = select_device(0)
    attr = driver.CUdevice_attribute
    if not check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev)):
        requirement_not_met("the device does not support cooperative launches "
                            "(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)")
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    sm_count = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))

    module = check(driver.cuModuleLoadData(compile_kernel(device_arch(dev))))
    kernel = check(driver.cuModuleGetFunction(module, b"conjugateGradient"))

    # one double per warp for the block reduction, plus one spare (as the sample reserves)
    shmem = 8 * (THREADS_PER_BLOCK // 32 + 1)
    per_sm = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, THREADS_PER_BLOCK, shmem))
    if per_sm < 1:
        requirement_not_met(f"the kernel cannot be resident with {THREADS_PER_BLOCK} threads per block")
    grid = per_sm * sm_count

    rng = np.random.default_rng(2024)
    row_ptr, col_idx, val = gen_tridiag(n, rng)
    nnz = len(val)
    rhs = np.ones(n, dtype=np.float32)
    x0 = np.zeros(n, dtype=np.float32)

    def upload(a):
        d = check(driver.cuMemAlloc(a.nbytes))
        check(driver.cuMemcpyHtoD(d, a, a.nbytes))
        return d

    d_row, d_col, d_val = upload(row_ptr), upload(col_idx), upload(val)
    d_x, d_r = upload(x0), upload(rhs)  # r starts as b; the kernel subtracts A x0
    d_ax = check(driver.cuMemAlloc(4 * n))
    d_p = check(driver.cuMemAlloc(4 * n))
    d_sums = upload(np.zeros(2, dtype=np.float64))
    d_iters = upload(np.zeros(1, dtype=np.int32))

    args = [np.array([int(p)], dtype=np.uint64)
            for p in (d_row, d_col, d_val, d_x, d_ax, d_p, d_r, d_sums)]
    args += [np.array([n], dtype=np.int32), np.array([max_iter], dtype=np.int32),
             np.array([tol], dtype=np.float32), np.array([int(d_iters)], dtype=np.uint64)]
    params = np.array([a.ctypes.data for a in args], dtype=np.uint64)

    stream = check(driver.cuStreamCreate(0))
    start = check(driver.cuEventCreate(0))
    stop = check(driver.cuEventCreate(0))
    check(driver.cuEventRecord(start, stream))
    check(driver.cuLaunchCooperativeKernel(kernel, grid, 1, 1, THREADS_PER_BLOCK, 1, 1, shmem, stream,
                                           params.ctypes.data))
    check(driver.cuEventRecord(stop, stream))
    check(driver.cuStreamSynchronize(stream))
    ms = check(driver.cuEventElapsedTime(start, stop))

    x = np.empty(n, dtype=np.float32)
    check(driver.cuMemcpyDtoH(x, d_x, x.nbytes))
    iters = np.empty(1, dtype=np.int32)
    check(driver.cuMemcpyDtoH(iters, d_iters, iters.nbytes))
    sums = np.empty(2, dtype=np.float64)
    check(driver.cuMemcpyDtoH(sums, d_sums, sums.nbytes))
    iterations = int(iters[0])

    # residual with numpy: (A x)_i = sum over the row's entries
    ax = np.add.reduceat(val.astype(np.float64) * x.astype(np.float64)[col_idx], row_ptr[:-1])
    err = float(np.max(np.abs(ax - rhs)))
    converged = iterations <= max_iter and sums[1] <= float(tol) ** 2
    good = converged and err < 1e-4

    print(f"conjugate gradient on {name}: N = {n}, nnz = {nnz}, one cooperative launch of "
          f"{grid} blocks x {THREADS_PER_BLOCK} threads ({per_sm} per SM x {sm_count} SMs)")
    print(f"iterations = {iterations}, final |r|^2 = {sums[1]:.3e} (tol^2 = {float(tol) ** 2:.1e}), "
          f"kernel time {ms:.3f} ms")
    print(f"max |A x - b| (numpy) = {err:.3e}: {'ok' if good else 'WRONG RESULT'}")

    for d in (d_row, d_col, d_val, d_x, d_r, d_ax, d_p, d_sums, d_iters):
        check(driver.cuMemFree(d))
    check(driver.cuEventDestroy(start))
    check(driver.cuEventDestroy(stop))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
