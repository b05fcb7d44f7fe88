"""Asynchronous copies from global to shared memory in a tiled matrix multiply (C = A * B).

Each block computes a 32 x 32 tile of C, walking along A's rows and B's columns one 32 x 32 tile
at a time. The baseline kernel loads each tile into shared memory with ordinary loads and waits for
them; the other kernels start copying tile t+1 into a second shared buffer (`cp.async`, which
bypasses the registers) while they multiply tile t, so the copies overlap the arithmetic. The same
double-buffered kernel is written three ways:

  * `cp.async` in inline PTX (needs no header, always built);
  * the `__pipeline_memcpy_async` / `__pipeline_commit` / `__pipeline_wait_prior` primitives of
    `<cuda_pipeline_primitives.h>`;
  * `cuda::memcpy_async` with a `cuda::pipeline` (`<cuda/pipeline>`, from libcu++).
NVRTC needs `-I` options for the CUDA headers; a variant whose headers cannot be found (no CUDA
toolkit, no NVIDIA runtime wheel) is skipped with a note.

Every kernel's C is checked against numpy, and timed with events.

Exit status: 0 on correct results, 1 on a wrong one, 3 when no CUDA device of compute capability
8.0 or newer (the first with cp.async) is available.
"""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, release_device, requirement_not_met, select_device  # noqa: E402
from common.cuda_extras import EventTimer, cuda_include_roots, device_name, include_options_for  # noqa: E402
from cuda.bindings import driver  # noqa: E402

BLOCK = 32
PTX_ARCH = "80"  # cp.async needs compute capability 8.0
NITER = 10

TILE_INDEXING = b"""
#define BS %d
#define TILE_SETUP                                   \\
    __shared__ float As[2][BS][BS];                  \\
    __shared__ float Bs[2][BS][BS];                  \\
    const int tx = threadIdx.x, ty = threadIdx.y;    \\
    const int row = blockIdx.y * BS + ty;            \\
    const int col = blockIdx.x * BS + tx;            \\
    const int tiles = wA / BS;                       \\
    float Csub = 0.0f;
// where this thread's element of A's and B's tile t lies in global memory
#define A_AT(t) (&A[row * wA + (t) * BS + tx])
#define B_AT(t) (&B[((t) * BS + ty) * wB + col])
#define MULTIPLY_TILE(buf)                           \\
    _Pragma("unroll")                                \\
    for (int k = 0; k < BS; ++k) Csub += As[buf][ty][k] * Bs[buf][k][tx];
""" % BLOCK

NAIVE = TILE_INDEXING + b"""
extern "C" __global__ void MatrixMulNaive(float *C, const float *A, const float *B, int wA, int wB)
{
    TILE_SETUP
    for (int t = 0; t < tiles; ++t) {
        As[0][ty][tx] = *A_AT(t);
        Bs[0][ty][tx] = *B_AT(t);
        __syncthreads();
        MULTIPLY_TILE(0)
        __syncthreads();
    }
    C[row * wB + col] = Csub;
}
"""

# the double-buffered kernel, over three macros: COPY4(shared dst, global src) starts a 4-byte
# copy, COMMIT() closes the group of copies started so far, WAIT_PRIOR_1() waits until every group
# but the newest has landed
DOUBLE_BUFFERED = b"""
extern "C" __global__ void MatrixMulAsyncCopy(float *C, const float *A, const float *B, int wA, int wB)
{
    TILE_SETUP
    COPY4(&As[0][ty][tx], A_AT(0));
    COPY4(&Bs[0][ty][tx], B_AT(0));
    COMMIT();
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) {
            // the other buffer was last read in iteration t-1, which ended with __syncthreads()
            COPY4(&As[cur ^ 1][ty][tx], A_AT(t + 1));
            COPY4(&Bs[cur ^ 1][ty][tx], B_AT(t + 1));
        }
        COMMIT();          // an empty group after the last tile keeps the count uniform
        WAIT_PRIOR_1();    // tile t has landed (for this thread's copies)
        __syncthreads();   // ... and for every thread's
        MULTIPLY_TILE(cur)
        __syncthreads();
    }
    C[row * wB + col] = Csub;
}
"""

INLINE_PTX = TILE_INDEXING + b"""
__device__ __forceinline__ void copy4(void *shared_dst, const void *global_src)
{
    unsigned dst = (unsigned)__cvta_generic_to_shared(shared_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\\n" :: "r"(dst), "l"(global_src) : "memory");
}
#define COPY4(dst, src) copy4(dst, src)
#define COMMIT() asm volatile("cp.async.commit_group;\\n" ::: "memory")
#define WAIT_PRIOR_1() asm volatile("cp.async.wait_group 1;\\n" ::: "memory")
""" + DOUBLE_BUFFERED

PRIMITIVES = b"""
#include <cuda_pipeline_primitives.h>
""" + TILE_INDEXING + b"""
#define COPY4(dst, src) __pipeline_memcpy_async(dst, src, sizeof(float))
#define COMMIT() __pipeline_commit()
#define WAIT_PRIOR_1() __pipeline_wait_prior(1)
""" + DOUBLE_BUFFERED

CUDA_PIPELINE = b"""
#include <cuda/pipeline>
""" + TILE_INDEXING + b"""
extern "C" __global__ void MatrixMulAsyncCopy(float *C, const float *A, const float *B, int wA, int wB)
{
    TILE_SETUP
    // a pipeline of this thread's own copies; each producer_commit() closes a stage and
    // consumer_wait() waits for the oldest stage not yet released
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto one_float = cuda::aligned_size_t<alignof(float)>(sizeof(float));
    pipe.producer_acquire();
    cuda::memcpy_async(&As[0][ty][tx], A_AT(0), one_float, pipe);
    cuda::memcpy_async(&Bs[0][ty][tx], B_AT(0), one_float, pipe);
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&As[cur ^ 1][ty][tx], A_AT(t + 1), one_float, pipe);
            cuda::memcpy_async(&Bs[cur ^ 1][ty][tx], B_AT(t + 1), one_float, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();
        MULTIPLY_TILE(cur)
        __syncthreads();
        pipe.consumer_release();
    }
    C[row * wB + col] = Csub;
}
"""


def build_variants():
    """Compile every variant whose headers can be found: [(label, kernel name, ptx)], [notes]."""
    variants, notes = [], []
    plans = [
        ("synchronous loads (baseline)", NAIVE, b"MatrixMulNaive", ()),
        ("cp.async, inline PTX", INLINE_PTX, b"MatrixMulAsyncCopy", ()),
        ("__pipeline_memcpy_async primitives", PRIMITIVES, b"MatrixMulAsyncCopy",
         ("cuda_pipeline_primitives.h",)),
        ("cuda::memcpy_async + cuda::pipeline", CUDA_PIPELINE, b"MatrixMulAsyncCopy",
         ("cuda/pipeline",)),
    ]
    for label, source, kernel, headers in plans:
        options = [b"-std=c++17"]
        if headers:
            includes = include_options_for(*headers)
            if includes is None:
                looked = ", ".join(cuda_include_roots()) or "none found"
                notes.append(f"skipped {label}: no CUDA include folder holds {', '.join(headers)} "
                             f"(looked in: {looked}; set CUDA_HOME to a CUDA 13 toolkit)")
                continue
            options += includes
        ptx = compile_source(source, PTX_ARCH, fmt="ptx", name=b"globalToShmemAsyncCopy.cu",
                             options=options)
        variants.append((label, kernel, ptx))
    return variants, notes


def main():
    variants, notes = build_variants()
    print(f"NVRTC compiled {len(variants)} matrix-multiply kernels to PTX (compute_{PTX_ARCH})")
    for note in notes:
        print(f"  {note}")

    dev, _ctx = select_device(0)
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    if major < 8:
        requirement_not_met(f"device 0 ({device_name(dev)}) is older than compute capability 8.0 "
                            "and has no asynchronous global-to-shared copies")
    print(f"Device 0: {device_name(dev)}")

    h_a, w_a, w_b = 1024, 1280, 768  # A is h_a x w_a, B is w_a x w_b: multiples of the tile
    print(f"MatrixA({h_a},{w_a}), MatrixB({w_a},{w_b}), {BLOCK}x{BLOCK} tiles")
    rng = np.random.default_rng(7)
    A = rng.random((h_a, w_a), dtype=np.float32)
    B = rng.random((w_a, w_b), dtype=np.float32)
    reference = A.astype(np.float64) @ B.astype(np.float64)
    C = np.empty((h_a, w_b), dtype=np.float32)

    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    d_A = check(driver.cuMemAlloc(A.nbytes))
    d_B = check(driver.cuMemAlloc(B.nbytes))
    d_C = check(driver.cuMemAlloc(C.nbytes))
    check(driver.cuMemcpyHtoD(d_A, A, A.nbytes))
    check(driver.cuMemcpyHtoD(d_B, B, B.nbytes))

    timer = EventTimer()
    flops = 2.0 * h_a * w_a * w_b
    args = ((d_C, d_A, d_B, w_a, w_b), (None, None, None, ctypes.c_int, ctypes.c_int))
    grid = (w_b // BLOCK, h_a // BLOCK)
    ok = True
    modules = []
    for label, kernel_name, ptx in variants:
        module = check(driver.cuModuleLoadData(ptx))
        modules.append(module)
        kernel = check(driver.cuModuleGetFunction(module, kernel_name))
        check(driver.cuMemsetD32Async(d_C, 0, C.size, stream))

        def launch():
            check(driver.cuLaunchKernel(kernel, grid[0], grid[1], 1, BLOCK, BLOCK, 1, 0, stream, args, 0))

        launch()  # warm-up, and the result that is checked
        check(driver.cuStreamSynchronize(stream))
        check(driver.cuMemcpyDtoH(C, d_C, C.nbytes))
        error = float(np.max(np.abs(C - reference)) / np.max(np.abs(reference)))
        good = error < 1e-5
        ok = ok and good

        timer.start(stream)
        for _ in range(NITER):
            launch()
        ms = timer.stop(stream) / NITER
        print(f"  {label:38s} {ms:8.4f} ms  {flops / ms / 1e6:8.1f} GFLOP/s  "
              f"max relative error {error:.2e}: {'ok' if good else 'WRONG RESULT'}")

    timer.destroy()
    for module in modules:
        check(driver.cuModuleUnload(module))
    for d in (d_A, d_B, d_C):
        check(driver.cuMemFree(d))
    check(driver.cuStreamDestroy(stream))
    release_device(dev)
    print("asynchronous global-to-shared copies: " + ("all results ok" if ok else "WRONG RESULT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
