"""Tile copies by the Tensor Memory Accelerator (TMA), described by cuTensorMapEncodeTiled.

API area: tensor maps: cuTensorMapEncodeTiled builds a CUtensorMap (the 128-byte descriptor of a
2D tiled view of global memory, tile shape, out-of-bounds fill, L2 promotion), which is passed to
the kernel by value as a __grid_constant__ parameter. Needs compute capability 9.0.

cuda-samples has no driver-API program for TMA; this one follows the CUDA Programming Guide's
pattern for moving multi-dimensional tiles with TMA: thread 0 of each block initialises a
shared-memory barrier and has the TMA unit copy a 32 x 32 tile of ints from global into shared
memory (cp.async.bulk.tensor, completion counted in bytes on the barrier); all threads wait on
the barrier, update the tile (v -> 2v + 1), fence the shared memory for the async proxy, and
thread 0 has the TMA unit store the tile through a second tensor map into the output array. The
kernel uses inline PTX, so needs no CUDA headers.

The 1000 x 1000 arrays are not a whole number of tiles: the edge tiles are partly out of bounds,
read as zeros and clipped when stored. The output is compared with numpy's 2 * in + 1, and the
words just after the output must be untouched.

Run: python examples/3_CUDA_Features/tma_copy.py
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no device of compute capability 9.0
or newer is available.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, select_device  # noqa: E402
from common.drv_helpers import device_name, require_compute_capability  # noqa: E402
from cuda.bindings import driver  # noqa: E402

GMEM_WIDTH = 1000
GMEM_HEIGHT = 1000
SMEM_WIDTH = 32
SMEM_HEIGHT = 32
THREADS = 256
GUARD = 1024  # ints after the output that must stay untouched

TMA_KERNEL = b"""
#define SMEM_WIDTH %d
#define SMEM_HEIGHT %d
typedef unsigned int u32;

// cuda.h's CUtensorMap: 128 opaque bytes, 64-byte aligned
struct __align__(64) TensorMap { unsigned long long opaque[16]; };

__device__ __forceinline__ u32 smemAddress(const void *p)
{
    return (u32)__cvta_generic_to_shared(p);
}

extern "C" __global__ void tmaTileUpdate(const __grid_constant__ TensorMap src,
                                         const __grid_constant__ TensorMap dst)
{
    __shared__ __align__(128) int tile[SMEM_HEIGHT][SMEM_WIDTH];
    __shared__ __align__(8) unsigned long long barrier;
    const int x = blockIdx.x * SMEM_WIDTH;   // tile origin: column
    const int y = blockIdx.y * SMEM_HEIGHT;  // and row
    const u32 bar = smemAddress(&barrier);

    if (threadIdx.x == 0) {
        // one arrival per thread completes the barrier's phase, with the tile's bytes
        asm volatile("mbarrier.init.shared::cta.b64 [%%0], %%1;" :: "r"(bar), "r"(blockDim.x) : "memory");
        // make the initialised barrier visible to the TMA unit (the async proxy)
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();

    unsigned long long token;
    if (threadIdx.x == 0) {
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%%0], [%%1, {%%2, %%3}], [%%4];"
            :: "r"(smemAddress(tile)), "l"(&src), "r"(x), "r"(y), "r"(bar) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %%0, [%%1], %%2;"
                     : "=l"(token) : "r"(bar), "r"((u32)sizeof(tile)) : "memory");
    } else {
        asm volatile("mbarrier.arrive.shared::cta.b64 %%0, [%%1];" : "=l"(token) : "r"(bar) : "memory");
    }
    // wait for phase 0 to complete: every thread arrived and the tile's bytes landed
    u32 done = 0;
    while (!done) {
        asm volatile("{\\n\\t.reg .pred p;\\n\\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%%1], 0;\\n\\t"
                     "selp.u32 %%0, 1, 0, p;\\n\\t}"
                     : "=r"(done) : "r"(bar) : "memory");
    }

    for (int i = threadIdx.x; i < SMEM_WIDTH * SMEM_HEIGHT; i += blockDim.x) {
        int *v = &tile[i / SMEM_WIDTH][i %% SMEM_WIDTH];
        *v = 2 * *v + 1;
    }
    // the threads' writes must be visible to the TMA unit before it reads the tile
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%%0, {%%1, %%2}], [%%3];"
                     :: "l"(&dst), "r"(x), "r"(y), "r"(smemAddress(tile)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        // the tile (shared memory) must stay until the TMA unit has read it
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%%0];" :: "r"(bar) : "memory");
    }
}
""" % (SMEM_WIDTH, SMEM_HEIGHT)


def encode_tiled(d_ptr):
    """A CUtensorMap of the GMEM_HEIGHT x GMEM_WIDTH int array at d_ptr, tiles of SMEM_HEIGHT x
    SMEM_WIDTH; dimensions innermost first, strides in bytes for all but the innermost one."""
    return check(driver.cuTensorMapEncodeTiled(
        driver.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_INT32,
        2,                                   # rank
        d_ptr,                               # global address
        [GMEM_WIDTH, GMEM_HEIGHT],           # global dimensions
        [GMEM_WIDTH * 4],                    # stride of a row, bytes (a multiple of 16)
        [SMEM_WIDTH, SMEM_HEIGHT],           # box (tile) dimensions
        [1, 1],                              # element strides
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))


def main():
    dev, _ctx = select_device(0)
    major, minor = require_compute_capability(dev, 9, 0, "the Tensor Memory Accelerator")
    print(f"TMA tile copies on {device_name(dev)} (compute capability {major}.{minor})")
    cubin = compile_source(TMA_KERNEL, f"{major}{minor}", fmt="cubin", name=b"tmaTileUpdate.cu")
    module = check(driver.cuModuleLoadData(cubin))
    kernel = check(driver.cuModuleGetFunction(module, b"tmaTileUpdate"))

    n = GMEM_WIDTH * GMEM_HEIGHT
    h_src = np.random.default_rng(3).integers(-1 << 20, 1 << 20, size=(GMEM_HEIGHT, GMEM_WIDTH), dtype=np.int32)
    d_src = check(driver.cuMemAlloc(n * 4))
    d_dst = check(driver.cuMemAlloc((n + GUARD) * 4))
    check(driver.cuMemcpyHtoD(d_src, h_src, n * 4))
    check(driver.cuMemsetD32(d_dst, 0xDEADBEEF, n + GUARD))

    src_map = encode_tiled(d_src)
    dst_map = encode_tiled(d_dst)
    print(f"  tensor maps: {GMEM_HEIGHT} x {GMEM_WIDTH} int32, {SMEM_HEIGHT} x {SMEM_WIDTH} tiles, "
          f"{driver.sizeof(driver.CUtensorMap)}-byte descriptors passed by value")

    grid = (-(-GMEM_WIDTH // SMEM_WIDTH), -(-GMEM_HEIGHT // SMEM_HEIGHT), 1)
    args = ((src_map, dst_map), (None, None))
    check(driver.cuLaunchKernel(kernel, *grid, THREADS, 1, 1, 0, None, args, None))
    check(driver.cuCtxSynchronize())
    print(f"  tmaTileUpdate: {grid[0]} x {grid[1]} blocks of {THREADS} threads")

    h_dst = np.empty(n + GUARD, dtype=np.int32)
    check(driver.cuMemcpyDtoH(h_dst, d_dst, h_dst.nbytes))
    h_src_after = np.empty_like(h_src)
    check(driver.cuMemcpyDtoH(h_src_after, d_src, n * 4))

    expected = 2 * h_src + 1
    got = h_dst[:n].reshape(GMEM_HEIGHT, GMEM_WIDTH)
    bad = np.argwhere(got != expected)
    result_ok = bad.size == 0
    guard_ok = bool(np.all(h_dst[n:].view(np.uint32) == 0xDEADBEEF))
    source_ok = bool(np.array_equal(h_src_after, h_src))
    if result_ok:
        print("  output = 2 * input + 1 everywhere: ok")
    else:
        r, c = (int(v) for v in bad[0])
        print(f"  WRONG at [{r}, {c}]: {int(got[r, c])}, expected {int(expected[r, c])} ({len(bad)} wrong)")
    print(f"  nothing written past the array (clipped edge tiles): {'ok' if guard_ok else 'WRONG'}")
    print(f"  input unchanged: {'ok' if source_ok else 'WRONG'}")

    check(driver.cuMemFree(d_src))
    check(driver.cuMemFree(d_dst))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    ok = result_ok and guard_ok and source_ok
    print("TMA copy: " + ("all results ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
