"""Matrix multiply-accumulate on tensor cores with the WMMA API, the Python twin of the CUDA sample
cudaTensorCoreGemm. API area: warp matrix functions (nvcuda::wmma from <mma.h>, compiled by
NVRTC against the CUDA headers), dynamic shared memory above 48 KiB
(cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)), launches with
cudaLaunchKernel, event timing.

D = alpha * A * B + beta * C for 4096 x 4096 matrices: A row-major and B column-major in half
precision, C and D in float, accumulated in float. As in the sample:
  * compute_gemm (used when a multiprocessor has the 64 KiB of shared memory it asks for): one
    block of 8 warps per multiprocessor walks over 128 x 128 tiles of D; for each it stages the
    C tile in shared memory, loads it into accumulator fragments, streams chunks of A's rows and
    B's columns through shared memory (with a 16-half skew against bank conflicts) and runs
    mma_sync on 16 x 16 x 16 fragments, each warp computing 2 x 4 of the 8 x 8 subtiles, then
    stores the scaled result through shared memory to D;
  * simple_wmma_gemm: one 16 x 16 output tile per warp, straight from global memory (the
    sample's fallback; here it also runs after the fast kernel, for comparison).
The inputs are the sample's: small integers (0, 1 or 2), exact in half precision. Each result is
compared with numpy in float32 (A @ B.T from the same half values, alpha and beta applied) at a
tolerance suited to half inputs with float accumulation: |D - ref| <= 1e-3 |ref| + 1e-2.

Run: python examples/3_CUDA_Features/cuda_tensor_core_gemm.py
Exit status: 0 when both kernels' results match numpy, 1 otherwise, 3 when no CUDA device of
compute capability 7.0 or newer (or no CUDA headers for <mma.h>) is available.
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

# MMA tile dimensions, the number of tiles per dimension, the global matrix sizes
M = N = K = 16
M_TILES = N_TILES = K_TILES = 256
M_GLOBAL, N_GLOBAL, K_GLOBAL = M * M_TILES, N * N_TILES, K * K_TILES

WARP_SIZE = 32
WARPS_PER_BLOCK = 8
THREADS_PER_BLOCK = WARP_SIZE * WARPS_PER_BLOCK
CHUNK_K = 4  # the sample's choice for 64 KiB of shared memory
SKEW_HALF = 16
BLOCK_ROW_WARPS, BLOCK_COL_WARPS = 2, 4
WARP_ROW_TILES, WARP_COL_TILES = 4, 2
BLOCK_ROW_TILES = WARP_ROW_TILES * BLOCK_ROW_WARPS
BLOCK_COL_TILES = WARP_COL_TILES * BLOCK_COL_WARPS

# shared memory for compute_gemm: the larger of the A and B chunks and the C/D tile of a block
SHMEM_SZ = max(2 * (BLOCK_COL_TILES * M) * (CHUNK_K * K + SKEW_HALF) * 2,
               M * (BLOCK_ROW_WARPS * WARP_ROW_TILES) * N * (BLOCK_COL_WARPS * WARP_COL_TILES) * 4)

RTOL, ATOL = 1e-3, 1e-2

KERNELS = b"""
#include <mma.h>
using namespace nvcuda;

#define WARP_SIZE 32
#define M 16
#define N 16
#define K 16
#define M_TILES %(m_tiles)d
#define N_TILES %(n_tiles)d
#define K_TILES %(k_tiles)d
#define M_GLOBAL (M * M_TILES)
#define N_GLOBAL (N * N_TILES)
#define K_GLOBAL (K * K_TILES)
#define WARPS_PER_BLOCK 8
#define CHUNK_K %(chunk_k)d
#define SKEW_HALF %(skew)d
#define BLOCK_ROW_WARPS 2
#define BLOCK_COL_WARPS 4
#define WARP_ROW_TILES 4
#define WARP_COL_TILES 2
#define BLOCK_ROW_TILES (WARP_ROW_TILES * BLOCK_ROW_WARPS)
#define BLOCK_COL_TILES (WARP_COL_TILES * BLOCK_COL_WARPS)
#define GLOBAL_MEM_STRIDE N_GLOBAL
#define SHMEM_STRIDE (N * BLOCK_ROW_TILES)   // floats per row of the block's C/D tile in shared memory
#define SHMEM_OFFSET (N * WARP_ROW_TILES)    // columns between the two warps of a row of warps

// copying A and B chunks: a row of a chunk is CHUNK_K * K halves; a warp moves 32 x 16 bytes at once
#define CHUNK_LINE_BYTES (CHUNK_K * K * sizeof(half))
#define WARP_COPY_BYTES (WARP_SIZE * sizeof(int4))
#define CHUNK_COPY_LINES_PER_WARP (WARP_COPY_BYTES / CHUNK_LINE_BYTES)
#define CHUNK_COPY_LINE_LANES (WARP_SIZE / CHUNK_COPY_LINES_PER_WARP)

typedef wmma::fragment<wmma::matrix_a, M, N, K, half, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, M, N, K, half, wmma::col_major> FragB;
typedef wmma::fragment<wmma::accumulator, M, N, K, float> FragC;

extern "C" __global__ void compute_gemm(const half *A, const half *B, const float *C, float *D,
                                        float alpha, float beta)
{
    // rows of CHUNK_K * K halves plus the skew; the same memory holds the float C/D tile
    extern __shared__ half shmem[][CHUNK_K * K + SKEW_HALF];

    const unsigned int warpId = threadIdx.x / WARP_SIZE;
    const unsigned int laneId = threadIdx.x %% WARP_SIZE;

    // B's chunk follows A's 128 rows
    const size_t shmem_idx_b_off = BLOCK_COL_TILES * M;

    // where this warp's 2 x 4 subtiles of the C/D tile lie in shared memory
    float *shmem_warp_tile_ptr = (float *)&shmem[0][0] + (warpId / 2) * SHMEM_STRIDE * K * 2
                                 + (warpId %% 2) * SHMEM_OFFSET;
    // the 16 rows of the C/D tile this warp moves between global and shared memory
    float *shmem_warp_stream_ptr = (float *)&shmem[0][0] + warpId * SHMEM_STRIDE * K;

    // D = alpha * (A B + (beta / alpha) C): C is scaled first, alpha applied at the end
    beta /= alpha;

    // the block walks over the 128 x 128 tiles of D, row by row, a grid's width at a time
    for (unsigned int block_pos = blockIdx.x;; block_pos += gridDim.x) {
        const unsigned int block_tile_i = ((block_pos * BLOCK_ROW_TILES) / N_TILES) * BLOCK_COL_TILES;
        const unsigned int block_tile_j = (block_pos * BLOCK_COL_TILES) %% N_TILES;
        if (block_tile_i >= M_TILES)
            break;

        // this warp's 16 rows of the C tile into shared memory, 16 bytes a lane
        const size_t gmem_idx = (block_tile_i + warpId) * M * GLOBAL_MEM_STRIDE + block_tile_j * N;
        const float *src_gmem_warp_stream_ptr = &C[gmem_idx];
#pragma unroll
        for (int i = 0; i < K; i++)
            ((int4 *)(shmem_warp_stream_ptr + SHMEM_STRIDE * i))[laneId] =
                ((const int4 *)(src_gmem_warp_stream_ptr + GLOBAL_MEM_STRIDE * i))[laneId];
        __syncthreads();

        // the accumulators start from this warp's subtiles of C, scaled by beta / alpha
        FragC c[WARP_COL_TILES][WARP_ROW_TILES];
#pragma unroll
        for (int i = 0; i < WARP_COL_TILES; i++)
#pragma unroll
            for (int j = 0; j < WARP_ROW_TILES; j++)
                wmma::load_matrix_sync(c[i][j], shmem_warp_tile_ptr + i * SHMEM_STRIDE * K + j * N,
                                       SHMEM_STRIDE, wmma::mem_row_major);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < WARP_COL_TILES; i++)
#pragma unroll
            for (int j = 0; j < WARP_ROW_TILES; j++)
#pragma unroll
                for (int t = 0; t < c[i][j].num_elements; t++)
                    c[i][j].x[t] *= beta;

        // warps 0-3 copy two tiles' worth of A's rows each, warps 4-7 of B's columns
        const half *warp_ptr = (warpId < 4)
            ? &A[block_tile_i * M * K_GLOBAL] + M * K_GLOBAL * (warpId %% 4) * 2
            : &B[block_tile_j * N * K_GLOBAL] + N * K_GLOBAL * (warpId %% 4) * 2;

        // along K, CHUNK_K tiles at a time
#pragma unroll
        for (int tile_k = 0; tile_k < K_TILES; tile_k += CHUNK_K) {
            size_t shmem_idx = warpId < (WARPS_PER_BLOCK / 2)
                ? (M * (warpId %% (WARPS_PER_BLOCK / 2)) * 2)
                : (N * (warpId %% (WARPS_PER_BLOCK / 2)) * 2 + shmem_idx_b_off);

            // each group of CHUNK_COPY_LINE_LANES lanes copies one line (row of A / column of B)
            const int4 *lane_ptr = (const int4 *)(warp_ptr + tile_k * K + (laneId / CHUNK_COPY_LINE_LANES) * K_GLOBAL)
                                   + (laneId %% CHUNK_COPY_LINE_LANES);
            shmem_idx += laneId / CHUNK_COPY_LINE_LANES;
#pragma unroll
            for (int i = 0; i < ((WARP_SIZE / 2) / CHUNK_COPY_LINES_PER_WARP) * 2; i++) {
                ((int4 *)&shmem[shmem_idx][0])[laneId %% CHUNK_COPY_LINE_LANES] = *lane_ptr;
                lane_ptr = (const int4 *)((const half *)lane_ptr + K_GLOBAL * CHUNK_COPY_LINES_PER_WARP);
                shmem_idx += CHUNK_COPY_LINES_PER_WARP;
            }
            __syncthreads();

            // this warp's 2 x 4 subtiles: each A fragment meets each B fragment
#pragma unroll
            for (int k_step = 0; k_step < CHUNK_K; k_step++) {
                FragA a[WARP_COL_TILES];
                FragB b[WARP_ROW_TILES];
#pragma unroll
                for (int i = 0; i < WARP_COL_TILES; i++) {
                    size_t shmem_idx_a = (warpId / 2) * M * 2 + (i * M);
                    wmma::load_matrix_sync(a[i], &shmem[shmem_idx_a][k_step * K], K * CHUNK_K + SKEW_HALF);
#pragma unroll
                    for (int j = 0; j < WARP_ROW_TILES; j++) {
                        if (i == 0) {
                            // each B fragment is loaded once and used with both A fragments
                            size_t shmem_idx_b = shmem_idx_b_off + (WARP_ROW_TILES * N) * (warpId %% 2) + (j * N);
                            wmma::load_matrix_sync(b[j], &shmem[shmem_idx_b][k_step * K], K * CHUNK_K + SKEW_HALF);
                        }
                        wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
                    }
                }
            }
            __syncthreads();
        }

        // the D subtiles, scaled by alpha, into shared memory (a uniform operation on every
        // element of a fragment is well defined whatever the element order)
#pragma unroll
        for (int i = 0; i < WARP_COL_TILES; i++)
#pragma unroll
            for (int j = 0; j < WARP_ROW_TILES; j++) {
#pragma unroll
                for (int t = 0; t < c[i][j].num_elements; t++)
                    c[i][j].x[t] *= alpha;
                wmma::store_matrix_sync(shmem_warp_tile_ptr + i * SHMEM_STRIDE * K + j * N, c[i][j],
                                        SHMEM_STRIDE, wmma::mem_row_major);
            }
        __syncthreads();

        // and from shared memory to D, 16 rows per warp
        float *dst_gmem_warp_stream_ptr = &D[gmem_idx];
#pragma unroll
        for (int i = 0; i < K; i++)
            ((int4 *)(dst_gmem_warp_stream_ptr + GLOBAL_MEM_STRIDE * i))[laneId] =
                ((const int4 *)(shmem_warp_stream_ptr + SHMEM_STRIDE * i))[laneId];
        __syncthreads();
    }
}

// D = alpha * A B + beta * C with one warp per 16 x 16 tile of D, from global memory only.
// Packed matrices, dimensions multiples of 16; A row-major, B column-major.
extern "C" __global__ void simple_wmma_gemm(const half *a, const half *b, const float *c, float *d,
                                            int m_ld, int n_ld, int k_ld, float alpha, float beta)
{
    int lda = k_ld, ldb = k_ld, ldc = n_ld;

    // the warp's tile, on a 2D grid
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;

    FragA a_frag;
    FragB b_frag;
    FragC acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);

    for (int i = 0; i < k_ld; i += K) {
        int aRow = warpM * M, aCol = i;
        int bRow = i, bCol = warpN * N;
        if (aRow < m_ld && aCol < k_ld && bRow < k_ld && bCol < n_ld) {
            wmma::load_matrix_sync(a_frag, a + aCol + aRow * lda, lda);
            wmma::load_matrix_sync(b_frag, b + bRow + bCol * ldb, ldb);
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
    }

    // blend with C, scaled, and store
    int cRow = warpM * M, cCol = warpN * N;
    if (cRow < m_ld && cCol < n_ld) {
        wmma::load_matrix_sync(c_frag, c + cCol + cRow * ldc, ldc, wmma::mem_row_major);
        for (int i = 0; i < c_frag.num_elements; i++)
            c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
        wmma::store_matrix_sync(d + cCol + cRow * ldc, c_frag, ldc, wmma::mem_row_major);
    }
}
""" % {b"m_tiles": M_TILES, b"n_tiles": N_TILES, b"k_tiles": K_TILES, b"chunk_k": CHUNK_K, b"skew": SKEW_HALF}
HEADERS = ("mma.h", "crt/mma.h", "cuda_fp16.h")


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "cudaTensorCoreGemm.cu", headers=HEADERS)


def init_host_matrices(rng):
    """The sample's inputs: values 0, 1 or 2. A is M x K row-major, B is stored as N x K (its
    columns are rows: column-major K x N), C is M x N."""
    a = rng.integers(0, 3, (M_GLOBAL, K_GLOBAL)).astype(np.float16)
    b = rng.integers(0, 3, (N_GLOBAL, K_GLOBAL)).astype(np.float16)
    c = rng.integers(0, 3, (M_GLOBAL, N_GLOBAL)).astype(np.float32)
    return a, b, c


def compare(result, reference):
    err = np.abs(result - reference)
    ok = bool(np.all(err <= RTOL * np.abs(reference) + ATOL))
    return ok, float(err.max())


def main():
    print("Initializing...")
    dev = find_cuda_device(0)
    device_prop = check(runtime.cudaGetDeviceProperties(dev))
    # tensor cores came with Volta (compute capability 7.0)
    if device_prop.major < 7:
        requirement_not_met(f"cudaTensorCoreGemm needs compute capability 7.0 or higher for tensor cores, "
                            f"the device has {device_prop.major}.{device_prop.minor}")
    print(f"M: {M_GLOBAL} ({M} x {M_TILES})")
    print(f"N: {N_GLOBAL} ({N} x {N_TILES})")
    print(f"K: {K_GLOBAL} ({K} x {K_TILES})")

    library = build_library(compile_kernels(device_arch(dev)))
    compute_gemm, simple_wmma_gemm = get_kernels(library, "compute_gemm", "simple_wmma_gemm")

    a_h, b_h, c_h = init_host_matrices(np.random.default_rng(1))
    A = check(runtime.cudaMalloc(a_h.nbytes))
    B = check(runtime.cudaMalloc(b_h.nbytes))
    C = check(runtime.cudaMalloc(c_h.nbytes))
    D = check(runtime.cudaMalloc(c_h.nbytes))
    for ptr in (A, B, C, D):
        assert ptr % 128 == 0

    print("Preparing data for GPU...")
    h2d = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
    check(runtime.cudaMemcpy(A, a_h, a_h.nbytes, h2d))
    check(runtime.cudaMemcpy(B, b_h, b_h.nbytes, h2d))
    check(runtime.cudaMemcpy(C, c_h, c_h.nbytes, h2d))
    check(runtime.cudaMemset(D, 0, c_h.nbytes))

    print(f"Required shared memory size: {SHMEM_SZ // 1024} Kb")
    alpha, beta = 1.1, 1.2
    reference = (np.float32(alpha) * (a_h.astype(np.float32) @ b_h.astype(np.float32).T)
                 + np.float32(beta) * c_h)
    result = np.empty_like(c_h)
    start = check(runtime.cudaEventCreate())
    stop = check(runtime.cudaEventCreate())
    flops = 2.0 * M_GLOBAL * N_GLOBAL * K_GLOBAL

    def run(label, launch):
        check(runtime.cudaMemset(D, 0, c_h.nbytes))
        check(runtime.cudaEventRecord(start, 0))
        launch()
        check(runtime.cudaGetLastError())
        check(runtime.cudaEventRecord(stop, 0))
        check(runtime.cudaEventSynchronize(stop))
        ms = check(runtime.cudaEventElapsedTime(start, stop))
        check(runtime.cudaMemcpy(result, D, result.nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        ok, max_err = compare(result, reference)
        print(f"Time: {ms:f} ms")
        print(f"TFLOPS: {flops / (ms / 1000.0) / 1e12:.2f}")
        print(f"{label}: largest difference to numpy {max_err:.3g}: {'ok' if ok else 'WRONG RESULT'}")
        return ok

    def launch_compute_gemm():
        check(runtime.cudaFuncSetAttribute(compute_gemm, runtime.cudaFuncAttribute.cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           SHMEM_SZ))
        args = ((A, B, C, D, alpha, beta), (ctypes.c_void_p,) * 4 + (ctypes.c_float,) * 2)
        check(runtime.cudaLaunchKernel(compute_gemm, dim3(device_prop.multiProcessorCount), dim3(THREADS_PER_BLOCK),
                                       args, SHMEM_SZ, 0))

    def launch_simple_wmma_gemm():
        # blockDim.x a multiple of the warp size: 128 x 4 threads are 16 warps, a 64 x 64 tile of D
        block_dim = dim3(128, 4)
        grid_dim = dim3((M_GLOBAL + (M * block_dim.x // 32 - 1)) // (M * block_dim.x // 32),
                        (N_GLOBAL + N * block_dim.y - 1) // (N * block_dim.y))
        args = ((A, B, C, D, M_GLOBAL, N_GLOBAL, K_GLOBAL, alpha, beta),
                (ctypes.c_void_p,) * 4 + (ctypes.c_int,) * 3 + (ctypes.c_float,) * 2)
        check(runtime.cudaLaunchKernel(simple_wmma_gemm, grid_dim, block_dim, args, 0, 0))

    ok = True
    if device_prop.sharedMemPerMultiprocessor >= SHMEM_SZ:
        print("Computing... using high performance kernel compute_gemm")
        ok = run("compute_gemm", launch_compute_gemm) and ok
        print("Computing... using simple_wmma_gemm kernel (for comparison)")
    else:
        print("Computing... using simple_wmma_gemm kernel")
    ok = run("simple_wmma_gemm", launch_simple_wmma_gemm) and ok

    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(stop))
    for ptr in (A, B, C, D):
        check(runtime.cudaFree(ptr))
    check(runtime.cudaLibraryUnload(library))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
