"""The Jacobi method with CUDA graphs updated between launches, the Python twin of the CUDA
sample jacobiCudaGraphs. API area: graphs built node by node (memset, kernel and memcpy nodes),
instantiated graphs changed in place (cudaGraphExecKernelNodeSetParams) or from a newly captured
graph (stream capture + cudaGraphExecUpdate), against plain stream launches.

A x = b is solved for a 512 x 512 diagonally dominant A (N + 1 on the diagonal, 1 elsewhere;
b = 2N, so x is all ones) by Jacobi iterations until the sum of |dx| falls below 1e-2. Each
iteration is one kernel (cooperative groups: a warp tile reduces each row's dot product, an
8-thread tile the block's |dx|) plus a memset of the sum before it and a copy of the sum to the
host after it; x and x_new swap roles every iteration. The sample runs the iterations one of
three ways (-gpumethod 0, 1 or 2); here all three run by default:
  0: one graph (memset -> kernel -> memcpy nodes), the kernel node's arguments switched with
     cudaGraphExecKernelNodeSetParams before each launch;
  1: each iteration captured from a stream, the instantiated graph updated with
     cudaGraphExecUpdate (instantiated again only if the update fails);
  2: the same work launched into a stream directly.
After convergence a second kernel computes the error sum of |x - 1|. The same iteration on the
CPU (numpy) gives the reference: each method's error must be within the threshold of the CPU's
(the sample's check), its x within the threshold of the CPU's x, its error sum equal to numpy's
on its x, and its iteration count within one of the CPU's.

Run: python examples/3_CUDA_Features/jacobi_cuda_graphs.py [--gpumethod 0|1|2]
Exit status: 0 when every method converges to the CPU's result, 1 otherwise, 3 when no CUDA
device (or no CUDA headers for <cooperative_groups.h>) is available.
"""
import argparse
import ctypes
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from common.toolkit import host_array  # noqa: E402
from cuda.bindings import runtime  # noqa: E402

N_ROWS = 512
ROWS_PER_CTA = 8  # rows of A per block: a power of two, at most 32

KERNELS = b"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define N_ROWS %d
#define ROWS_PER_CTA %d

// One Jacobi step for ROWS_PER_CTA rows: x_new = x + (b - A x) / diag(A); *sum += sum |dx|.
extern "C" __global__ void JacobiMethod(const float *A, const double *b, const float conv_threshold,
                                        double *x, double *x_new, double *sum)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ double x_shared[N_ROWS];
    __shared__ double b_shared[ROWS_PER_CTA + 1];  // this block's rows of b, then of b - A x

    for (int i = threadIdx.x; i < N_ROWS; i += blockDim.x)
        x_shared[i] = x[i];
    if (threadIdx.x < ROWS_PER_CTA) {
        int i = blockIdx.x * ROWS_PER_CTA + threadIdx.x;
        if (i < N_ROWS)
            b_shared[i %% (ROWS_PER_CTA + 1)] = b[i];
    }
    cg::sync(cta);

    // each row's dot product: strided over the block's threads, each warp's share reduced by
    // shuffles and taken off b_shared by the warp's first thread
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    for (int k = 0, i = blockIdx.x * ROWS_PER_CTA; k < ROWS_PER_CTA && i < N_ROWS; k++, i++) {
        double rowThreadSum = 0.0;
        for (int j = threadIdx.x; j < N_ROWS; j += blockDim.x)
            rowThreadSum += A[i * N_ROWS + j] * x_shared[j];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
            rowThreadSum += tile32.shfl_down(rowThreadSum, offset);
        if (tile32.thread_rank() == 0)
            atomicAdd(&b_shared[i %% (ROWS_PER_CTA + 1)], -rowThreadSum);
    }
    cg::sync(cta);

    // the first ROWS_PER_CTA threads update one row each and add up their |dx|
    if (threadIdx.x < ROWS_PER_CTA) {
        cg::thread_block_tile<ROWS_PER_CTA> tile8 = cg::tiled_partition<ROWS_PER_CTA>(cta);
        double temp_sum = 0.0;
        int i = blockIdx.x * ROWS_PER_CTA + threadIdx.x;
        if (i < N_ROWS) {
            double dx = b_shared[i %% (ROWS_PER_CTA + 1)] / A[i * N_ROWS + i];
            x_new[i] = x_shared[i] + dx;
            temp_sum = fabs(dx);
        }
        for (int offset = tile8.size() / 2; offset > 0; offset /= 2)
            temp_sum += tile8.shfl_down(temp_sum, offset);
        if (tile8.thread_rank() == 0)
            atomicAdd(sum, temp_sum);
    }
}

// *g_sum += sum |x - 1| (the exact solution is all ones); blockDim.x a multiple of 32
extern "C" __global__ void finalError(double *x, double *g_sum)
{
    cg::thread_block cta = cg::this_thread_block();
    extern __shared__ double warpSum[];
    double sum = 0.0;

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N_ROWS; i += blockDim.x * gridDim.x)
        sum += fabs(x[i] - 1.0);

    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
        sum += tile32.shfl_down(sum, offset);
    if (tile32.thread_rank() == 0)
        warpSum[threadIdx.x / warpSize] = sum;
    cg::sync(cta);

    double blockSum = threadIdx.x < (blockDim.x / warpSize) ? warpSum[threadIdx.x] : 0.0;
    if (threadIdx.x < 32) {
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
            blockSum += tile32.shfl_down(blockSum, offset);
        if (tile32.thread_rank() == 0)
            atomicAdd(g_sum, blockSum);
    }
}
""" % (N_ROWS, ROWS_PER_CTA)
HEADERS = ("cooperative_groups.h", "nv/target")

D2H = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost
H2D = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
JACOBI_TYPES = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "jacobi.cu", headers=HEADERS)


class Jacobi:
    """The GPU side: the two kernels and the three ways of running the iterations."""

    def __init__(self, jacobi_kernel, final_error_kernel):
        self.jacobi_kernel = jacobi_kernel
        self.final_error_kernel = final_error_kernel
        self.nthreads = dim3(256, 1, 1)
        self.nblocks = dim3(N_ROWS // ROWS_PER_CTA + 2, 1, 1)

    def final_error(self, x, d_sum, h_sum, stream, k):
        """The error sum |x - 1| of the converged x, into h_sum; prints it and returns
        (error, iterations, x copied to the host)."""
        check(runtime.cudaMemsetAsync(d_sum, 0, 8, stream))
        nblocks = dim3(N_ROWS // self.nthreads.x + 1)
        shared_mem_size = (self.nthreads.x // 32 + 1) * 8
        check(runtime.cudaLaunchKernel(self.final_error_kernel, nblocks, self.nthreads,
                                       ((x, d_sum), (ctypes.c_void_p, ctypes.c_void_p)), shared_mem_size, stream))
        check(runtime.cudaMemcpyAsync(h_sum.ctypes.data, d_sum, 8, D2H, stream))
        check(runtime.cudaStreamSynchronize(stream))
        print(f"GPU iterations : {k + 1}")
        print(f"GPU error : {float(h_sum[0]):.3e}")
        h_x = np.empty(N_ROWS, dtype=np.float64)
        check(runtime.cudaMemcpy(h_x, x, h_x.nbytes, D2H))
        return float(h_sum[0]), k + 1, h_x

    def graph_exec_kernel_set_params(self, A, b, conv_threshold, max_iter, x, x_new, stream):
        """Method 0: one instantiated graph whose kernel node alternates between two argument sets."""
        h_sum = np.zeros(1, dtype=np.float64)
        d_sum = check(runtime.cudaMalloc(8))

        memset_params = runtime.cudaMemsetParams()
        memset_params.dst = d_sum
        memset_params.value = 0
        memset_params.pitch = 0
        # elementSize is at most 4 bytes: a double is two of them
        memset_params.elementSize = 4
        memset_params.width = 2
        memset_params.height = 1

        graph = check(runtime.cudaGraphCreate(0))
        memset_node = check(runtime.cudaGraphAddMemsetNode(graph, None, 0, memset_params))

        node_params0 = runtime.cudaKernelNodeParams()
        node_params0.func = self.jacobi_kernel
        node_params0.gridDim = self.nblocks
        node_params0.blockDim = self.nthreads
        node_params0.sharedMemBytes = 0
        node_params0.kernelParams = ((A, b, conv_threshold, x, x_new, d_sum), JACOBI_TYPES)
        node_params0.extra = None
        jacobi_kernel_node = check(runtime.cudaGraphAddKernelNode(graph, [memset_node], 1, node_params0))

        memcpy_params = runtime.cudaMemcpy3DParms()
        memcpy_params.srcArray = None
        memcpy_params.srcPos = runtime.make_cudaPos(0, 0, 0)
        memcpy_params.srcPtr = runtime.make_cudaPitchedPtr(d_sum, 8, 1, 1)
        memcpy_params.dstArray = None
        memcpy_params.dstPos = runtime.make_cudaPos(0, 0, 0)
        memcpy_params.dstPtr = runtime.make_cudaPitchedPtr(h_sum, 8, 1, 1)
        memcpy_params.extent = runtime.make_cudaExtent(8, 1, 1)
        memcpy_params.kind = D2H
        check(runtime.cudaGraphAddMemcpyNode(graph, [jacobi_kernel_node], 1, memcpy_params))

        graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))

        node_params1 = runtime.cudaKernelNodeParams()
        node_params1.func = self.jacobi_kernel
        node_params1.gridDim = self.nblocks
        node_params1.blockDim = self.nthreads
        node_params1.sharedMemBytes = 0
        node_params1.kernelParams = ((A, b, conv_threshold, x_new, x, d_sum), JACOBI_TYPES)
        node_params1.extra = None

        result = None
        for k in range(max_iter):
            check(runtime.cudaGraphExecKernelNodeSetParams(graph_exec, jacobi_kernel_node,
                                                           node_params0 if k & 1 == 0 else node_params1))
            check(runtime.cudaGraphLaunch(graph_exec, stream))
            check(runtime.cudaStreamSynchronize(stream))
            if h_sum[0] <= conv_threshold:
                result = self.final_error(x_new if k & 1 == 0 else x, d_sum, h_sum, stream, k)
                break

        check(runtime.cudaGraphExecDestroy(graph_exec))
        check(runtime.cudaGraphDestroy(graph))
        check(runtime.cudaFree(d_sum))
        return result

    def graph_exec_update(self, A, b, conv_threshold, max_iter, x, x_new, stream):
        """Method 1: every iteration captured anew; the instantiated graph updated from it."""
        h_sum = np.zeros(1, dtype=np.float64)
        d_sum = check(runtime.cudaMalloc(8))
        graph_exec = None
        updates = reinstantiated = 0

        result = None
        for k in range(max_iter):
            check(runtime.cudaStreamBeginCapture(stream, runtime.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
            check(runtime.cudaMemsetAsync(d_sum, 0, 8, stream))
            args = (A, b, conv_threshold, x, x_new, d_sum) if k & 1 == 0 else (A, b, conv_threshold, x_new, x, d_sum)
            check(runtime.cudaLaunchKernel(self.jacobi_kernel, self.nblocks, self.nthreads, (args, JACOBI_TYPES), 0, stream))
            check(runtime.cudaMemcpyAsync(h_sum.ctypes.data, d_sum, 8, D2H, stream))
            graph = check(runtime.cudaStreamEndCapture(stream))

            if graph_exec is None:
                graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
            else:
                err, info = runtime.cudaGraphExecUpdate(graph_exec, graph)
                if err != runtime.cudaError_t.cudaSuccess or info is None or \
                        info.result != runtime.cudaGraphExecUpdateResult.cudaGraphExecUpdateSuccess:
                    print(f"k = {k} graph update failed with error - {info.result if info else err}")
                    check(runtime.cudaGraphExecDestroy(graph_exec))
                    graph_exec = check(runtime.cudaGraphInstantiate(graph, 0))
                    reinstantiated += 1
                else:
                    updates += 1
            check(runtime.cudaGraphDestroy(graph))
            check(runtime.cudaGraphLaunch(graph_exec, stream))
            check(runtime.cudaStreamSynchronize(stream))

            if h_sum[0] <= conv_threshold:
                print(f"(the instantiated graph was updated {updates} times, instantiated again {reinstantiated} times)")
                result = self.final_error(x_new if k & 1 == 0 else x, d_sum, h_sum, stream, k)
                break

        if graph_exec is not None:
            check(runtime.cudaGraphExecDestroy(graph_exec))
        check(runtime.cudaFree(d_sum))
        return result

    def stream_launches(self, A, b, conv_threshold, max_iter, x, x_new, stream):
        """Method 2: no graph, the same work launched into the stream every iteration."""
        h_sum = np.zeros(1, dtype=np.float64)
        d_sum = check(runtime.cudaMalloc(8))
        result = None
        for k in range(max_iter):
            check(runtime.cudaMemsetAsync(d_sum, 0, 8, stream))
            args = (A, b, conv_threshold, x, x_new, d_sum) if k & 1 == 0 else (A, b, conv_threshold, x_new, x, d_sum)
            check(runtime.cudaLaunchKernel(self.jacobi_kernel, self.nblocks, self.nthreads, (args, JACOBI_TYPES), 0, stream))
            check(runtime.cudaMemcpyAsync(h_sum.ctypes.data, d_sum, 8, D2H, stream))
            check(runtime.cudaStreamSynchronize(stream))
            if h_sum[0] <= conv_threshold:
                result = self.final_error(x_new if k & 1 == 0 else x, d_sum, h_sum, stream, k)
                break
        check(runtime.cudaFree(d_sum))
        return result


def create_linear_system(A, b):
    """A: N_ROWS + 1 on the diagonal, 1 elsewhere; b: 2 N_ROWS. The solution is all ones."""
    A[:] = 1.0
    np.fill_diagonal(A, N_ROWS + 1.0)
    b[:] = 2.0 * N_ROWS


def jacobi_method_cpu(A, b, conv_threshold, max_iter):
    """The same iteration on the host: returns (x, iterations)."""
    a64 = A.astype(np.float64)
    diag = np.diag(a64)
    x = np.zeros(N_ROWS, dtype=np.float64)
    k = 0
    for k in range(max_iter):
        dx = (b - a64 @ x) / diag
        x = x + dx
        if np.abs(dx).sum() <= conv_threshold:
            break
    return x, k + 1


METHODS = {0: ("cudaGraphExecKernelNodeSetParams", "graph_exec_kernel_set_params"),
           1: ("cudaGraphExecUpdate", "graph_exec_update"),
           2: ("stream launches, no graph", "stream_launches")}


def main():
    parser = argparse.ArgumentParser(description="jacobiCudaGraphs")
    parser.add_argument("--gpumethod", type=int, choices=sorted(METHODS), default=None,
                        help="0: cudaGraphExecKernelNodeSetParams, 1: cudaGraphExecUpdate, 2: no graph "
                             "(default: all three)")
    args = parser.parse_args()
    methods = sorted(METHODS) if args.gpumethod is None else [args.gpumethod]

    dev = find_cuda_device(0)
    library = build_library(compile_kernels(device_arch(dev)))
    jacobi = Jacobi(*get_kernels(library, "JacobiMethod", "finalError"))

    # A and b in pinned host memory, as the sample has them
    b_ptr = check(runtime.cudaMallocHost(N_ROWS * 8))
    a_ptr = check(runtime.cudaMallocHost(N_ROWS * N_ROWS * 4))
    b = host_array(b_ptr, N_ROWS, np.float64)
    A = host_array(a_ptr, N_ROWS * N_ROWS, np.float32).reshape(N_ROWS, N_ROWS)
    create_linear_system(A, b)

    conv_threshold = float(np.float32(1.0e-2))  # a float in the sample
    max_iter = 4 * N_ROWS * N_ROWS

    t0 = time.perf_counter()
    x, cnt = jacobi_method_cpu(A, b, conv_threshold, max_iter)
    sum_cpu = float(np.abs(x - 1.0).sum())
    print(f"CPU iterations : {cnt}")
    print(f"CPU error : {sum_cpu:.3e}")
    print(f"CPU Processing time: {(time.perf_counter() - t0) * 1e3:f} (ms)")

    stream1 = check(runtime.cudaStreamCreateWithFlags(runtime.cudaStreamNonBlocking))
    d_b = check(runtime.cudaMalloc(8 * N_ROWS))
    d_A = check(runtime.cudaMalloc(4 * N_ROWS * N_ROWS))
    d_x = check(runtime.cudaMalloc(8 * N_ROWS))
    d_x_new = check(runtime.cudaMalloc(8 * N_ROWS))
    check(runtime.cudaMemcpyAsync(d_A, a_ptr, 4 * N_ROWS * N_ROWS, H2D, stream1))
    check(runtime.cudaMemcpyAsync(d_b, b_ptr, 8 * N_ROWS, H2D, stream1))

    passed = True
    for method in methods:
        name, func = METHODS[method]
        print(f"\n-gpumethod={method}: {name}")
        # every method starts from x = 0
        check(runtime.cudaMemsetAsync(d_x, 0, 8 * N_ROWS, stream1))
        check(runtime.cudaMemsetAsync(d_x_new, 0, 8 * N_ROWS, stream1))
        check(runtime.cudaStreamSynchronize(stream1))
        t0 = time.perf_counter()
        result = getattr(jacobi, func)(d_A, d_b, conv_threshold, max_iter, d_x, d_x_new, stream1)
        print(f"GPU Processing time: {(time.perf_counter() - t0) * 1e3:f} (ms)")
        if result is None:
            print(f"did not converge in {max_iter} iterations: WRONG RESULT")
            passed = False
            continue
        sum_gpu, iterations, x_gpu = result
        # the sample's check, and more: the GPU's x itself against the CPU's, the finalError
        # kernel against numpy on that x, the iteration counts within one of each other
        checks = {
            "error against the CPU's": abs(sum_cpu - sum_gpu) < conv_threshold,
            "x against the CPU's": float(np.abs(x_gpu - x).max()) < conv_threshold,
            "finalError against numpy": math.isclose(sum_gpu, float(np.abs(x_gpu - 1.0).sum()), rel_tol=1e-9, abs_tol=1e-12),
            "iterations": abs(iterations - cnt) <= 1,
        }
        ok = all(checks.values())
        print("; ".join(f"{k}: {'ok' if v else 'WRONG'}" for k, v in checks.items()))
        passed = passed and ok
        passed = passed and ok

    for d in (d_b, d_A, d_x, d_x_new):
        check(runtime.cudaFree(d))
    del A, b
    check(runtime.cudaFreeHost(a_ptr))
    check(runtime.cudaFreeHost(b_ptr))
    check(runtime.cudaStreamDestroy(stream1))
    check(runtime.cudaLibraryUnload(library))
    print(f"&&&& jacobiCudaGraphs {'PASSED' if passed else 'FAILED'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
