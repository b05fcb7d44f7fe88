"""Matrix transpose, kernel by kernel towards full memory bandwidth, the Python twin of the CUDA
sample transpose. API area: memory-bound kernels timed with events over many launches
(cudaLaunchKernel in a loop, cudaEventElapsedTime), shared-memory tiling with cooperative-groups
block barriers.

Each block moves a 32 x 32 tile with 32 x 16 threads (two elements a thread). Eight kernels run
on a square float matrix (1024 x 1024 on GPUs with many cores, as the sample sizes it):
  simple copy and shared memory copy (the best a transpose can hope for);
  naive (reads coalesced, writes strided), coalesced (through a shared tile, with bank
  conflicts), optimized (the tile padded by a column: no bank conflicts), diagonal (blocks
  taken along diagonals, against partition camping);
  coarse-grained and fine-grained: the two halves of a transpose (moving tiles to their
  transposed places / transposing within a tile), to time each part alone.
Each kernel is warmed up, launched 100 times between two events, and its output compared with
numpy: the copies with the input, the transposes with input.T, and the two partial transposes
with their own numpy equivalents (the sample skips their check). Effective bandwidth is
2 x matrix bytes / time per launch.

Run: python examples/6_Performance/transpose.py [--dimX N --dimY N]
Exit status: 0 when every kernel's output is right, 1 otherwise (or for a non-square or
non-multiple-of-32 size), 3 when no CUDA device (or no CUDA headers for
<cooperative_groups.h>) is available.
"""
import argparse
import ctypes
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, cores_per_sm, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels, prop_name)
from cuda.bindings import runtime  # noqa: E402

TILE_DIM = 32
BLOCK_ROWS = 16  # TILE_DIM must be a multiple of it
NUM_REPS = 100
MATRIX_SIZE_X = MATRIX_SIZE_Y = 1024


def floor_to(a, b):
    return a - a % b


# the tiles needed to show the performance effects on SM 2.0 and later hardware
MAX_TILES = (floor_to(MATRIX_SIZE_X, 512) * floor_to(MATRIX_SIZE_Y, 512)) // (TILE_DIM * TILE_DIM)

KERNELS = b"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TILE_DIM %d
#define BLOCK_ROWS %d

// ---- copies (width and height multiples of TILE_DIM) ----

extern "C" __global__ void copy(float *odata, const float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index = xIndex + width * yIndex;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index + i * width] = idata[index + i * width];
}

extern "C" __global__ void copySharedMem(float *odata, const float *idata, int width, int height)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index = xIndex + width * yIndex;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
    cg::sync(cta);
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index + i * width] = tile[threadIdx.y + i][threadIdx.x];
}

// ---- transposes (width and height multiples of TILE_DIM) ----

extern "C" __global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i] = idata[index_in + i * width];
}

// the tile read by rows and written by columns of a shared tile; PAD 0 has bank conflicts
// (coalesced), PAD 1 avoids them (optimized). blockX/blockY: the tile this block moves.
template <int PAD>
__device__ void transposeTile(float *odata, const float *idata, int width, int height, int blockX, int blockY)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];

    int xIndex = blockX * TILE_DIM + threadIdx.x;
    int yIndex = blockY * TILE_DIM + threadIdx.y;
    int index_in = xIndex + yIndex * width;

    xIndex = blockY * TILE_DIM + threadIdx.x;
    yIndex = blockX * TILE_DIM + threadIdx.y;
    int index_out = xIndex + yIndex * height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    cg::sync(cta);
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

extern "C" __global__ void transposeCoalesced(float *odata, const float *idata, int width, int height)
{
    transposeTile<0>(odata, idata, width, height, blockIdx.x, blockIdx.y);
}

extern "C" __global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height)
{
    transposeTile<1>(odata, idata, width, height, blockIdx.x, blockIdx.y);
}

// blocks reordered along diagonals of the matrix: blockIdx.x is the distance along a diagonal,
// blockIdx.y picks the diagonal; the rest is the bank-conflict-free transpose
extern "C" __global__ void transposeDiagonal(float *odata, const float *idata, int width, int height)
{
    int blockIdx_x, blockIdx_y;
    if (width == height) {
        blockIdx_y = blockIdx.x;
        blockIdx_x = (blockIdx.x + blockIdx.y) %% gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        blockIdx_y = bid %% gridDim.y;
        blockIdx_x = ((bid / gridDim.y) + blockIdx_y) %% gridDim.x;
    }
    transposeTile<1>(odata, idata, width, height, blockIdx_x, blockIdx_y);
}

// ---- partial transposes: each does half the work of a transpose, so their output is not the
// transpose; they time the parts of one ----

// each tile transposed, but written back to its own place
extern "C" __global__ void transposeFineGrained(float *odata, const float *idata, int width, int height)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float block[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index = xIndex + yIndex * width;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        block[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
    cg::sync(cta);
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index + i * height] = block[threadIdx.x][threadIdx.y + i];
}

// each tile moved to its transposed place, its contents not transposed
extern "C" __global__ void transposeCoarseGrained(float *odata, const float *idata, int width, int height)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float block[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + yIndex * width;

    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + yIndex * height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        block[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    cg::sync(cta);
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i * height] = block[threadIdx.y + i][threadIdx.x];
}
""" % (TILE_DIM, BLOCK_ROWS)
HEADERS = ("cooperative_groups.h", "nv/target")


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "transpose.cu", headers=HEADERS)


def tiles(matrix):
    """The matrix as [tile row, row in tile, tile column, column in tile]."""
    h, w = matrix.shape
    return matrix.reshape(h // TILE_DIM, TILE_DIM, w // TILE_DIM, TILE_DIM)


def references(h_idata):
    """What each kernel must write: (label, kernel name, expected output)."""
    full = np.ascontiguousarray(h_idata.T)
    # within each tile transposed, tiles in place / tiles moved, contents kept
    fine = np.ascontiguousarray(tiles(h_idata).transpose(0, 3, 2, 1)).reshape(h_idata.shape)
    coarse = np.ascontiguousarray(tiles(h_idata).transpose(2, 1, 0, 3)).reshape(h_idata.shape)
    return [
        ("simple copy       ", "copy", h_idata),
        ("shared memory copy", "copySharedMem", h_idata),
        ("naive             ", "transposeNaive", full),
        ("coalesced         ", "transposeCoalesced", full),
        ("optimized         ", "transposeNoBankConflicts", full),
        ("coarse-grained    ", "transposeCoarseGrained", coarse),
        ("fine-grained      ", "transposeFineGrained", fine),
        ("diagonal          ", "transposeDiagonal", full),
    ]


def main():
    parser = argparse.ArgumentParser(description="Transpose")
    parser.add_argument("--dimX", type=int, default=0, help="matrix row dimension")
    parser.add_argument("--dimY", type=int, default=0, help="matrix column dimension")
    args = parser.parse_args()

    print("Transpose Starting...\n")
    dev_id = find_cuda_device(0)
    dev_id = check(runtime.cudaGetDevice())
    device_prop = check(runtime.cudaGetDeviceProperties(dev_id))

    # the scaling factor, for GPUs with fewer multiprocessors
    cores = cores_per_sm(device_prop.major, device_prop.minor)
    scale_factor = max(192.0 / (cores * device_prop.multiProcessorCount), 1.0)
    print(f'> Device {dev_id}: "{prop_name(device_prop)}"')
    print(f"> SM Capability {device_prop.major}.{device_prop.minor} detected:")

    # the matrix size for the performance test, rounded down to a multiple of 512
    matrix_size_test = 512
    total_tiles = MAX_TILES / scale_factor
    max_matrix_dim = floor_to(int(math.floor(math.sqrt(total_tiles)) * TILE_DIM), matrix_size_test)
    if max_matrix_dim == 0:
        max_matrix_dim = matrix_size_test
    print(f"> [{prop_name(device_prop)}] has {device_prop.multiProcessorCount} MP(s) x {cores} (Cores/MP) = "
          f"{cores * device_prop.multiProcessorCount} (Cores)")
    print(f"> Compute performance scaling factor = {scale_factor:4.2f}")

    size_x = args.dimX or floor_to(max_matrix_dim, 512)
    size_y = args.dimY or floor_to(max_matrix_dim, 512)
    if size_x != size_y:
        print(f"\n[Transpose] does not support non-square matrices (row_dim_size({size_x}) != "
              f"col_dim_size({size_y}))\nExiting...\n")
        return 1
    if size_x % TILE_DIM or size_y % TILE_DIM:
        print("[Transpose] Matrix size must be integral multiple of tile size\nExiting...\n")
        return 1

    # execution configuration
    grid = dim3(size_x // TILE_DIM, size_y // TILE_DIM)
    threads = dim3(TILE_DIM, BLOCK_ROWS)
    mem_size = 4 * size_x * size_y
    if 2 * mem_size > device_prop.totalGlobalMem:
        print("Input matrix size is larger than the available device memory!")
        return 1

    library = build_library(compile_kernels(device_arch(dev_id)))

    # host and device memory; the input is 0, 1, 2, ... row by row
    h_idata = np.arange(size_x * size_y, dtype=np.float32).reshape(size_y, size_x)
    h_odata = np.empty_like(h_idata)
    d_idata = check(runtime.cudaMalloc(mem_size))
    d_odata = check(runtime.cudaMalloc(mem_size))
    check(runtime.cudaMemcpy(d_idata, h_idata, mem_size, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

    print(f"\nMatrix size: {size_x}x{size_y} ({size_x // TILE_DIM}x{size_y // TILE_DIM} tiles), tile size: "
          f"{TILE_DIM}x{TILE_DIM}, block size: {TILE_DIM}x{BLOCK_ROWS}\n")

    start = check(runtime.cudaEventCreate())
    stop = check(runtime.cudaEventCreate())
    kernel_args = ((d_odata, d_idata, size_x, size_y), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))

    success = True
    for kernel_name, name, gold in references(h_idata):
        (kernel,) = get_kernels(library, name)
        check(runtime.cudaMemset(d_odata, 0, mem_size))
        check(runtime.cudaGetLastError())  # clear the error status

        # warm-up, to keep start-up costs out of the timing
        check(runtime.cudaLaunchKernel(kernel, grid, threads, kernel_args, 0, 0))

        # the time of NUM_REPS launches
        check(runtime.cudaEventRecord(start, 0))
        for _ in range(NUM_REPS):
            check(runtime.cudaLaunchKernel(kernel, grid, threads, kernel_args, 0, 0))
            check(runtime.cudaGetLastError())  # no launch failure
        check(runtime.cudaEventRecord(stop, 0))
        check(runtime.cudaEventSynchronize(stop))
        kernel_time = check(runtime.cudaEventElapsedTime(start, stop))

        check(runtime.cudaMemcpy(h_odata, d_odata, mem_size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        if not np.array_equal(h_odata, gold):
            print(f"*** {kernel_name} kernel FAILED ***")
            success = False

        # effective bandwidth: a read and a write of the matrix per launch
        kernel_bandwidth = 2.0 * 1000.0 * mem_size / (1024 * 1024 * 1024) / (kernel_time / NUM_REPS)
        print(f"transpose {kernel_name}, Throughput = {kernel_bandwidth:.4f} GB/s, Time = "
              f"{kernel_time / NUM_REPS:.5f} ms, Size = {size_x * size_y} fp32 elements, NumDevsUsed = 1, "
              f"Workgroup = {TILE_DIM * BLOCK_ROWS}")

    check(runtime.cudaFree(d_idata))
    check(runtime.cudaFree(d_odata))
    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(stop))
    check(runtime.cudaLibraryUnload(library))
    if not success:
        print("Test failed!")
        return 1
    print("Test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
