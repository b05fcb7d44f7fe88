"""Matrix multiplication C = A * B through the driver API, port of the CUDA sample matrixMulDrv.

API area: contexts (cuCtxCreate/cuCtxDestroy), modules, occupancy-based kernel choice
(cuOccupancyMaxPotentialBlockSize) and both ways of passing kernel arguments to cuLaunchKernel:
an array of argument pointers, and one packed buffer through `extra`
(CU_LAUNCH_PARAM_BUFFER_POINTER / CU_LAUNCH_PARAM_BUFFER_SIZE).

As in the sample, initCUDA makes a context on the device, loads the module (here compiled at run
time by NVRTC for the device's architecture instead of read from a fatbin file) and picks the
largest tile size (32, 16 or 8) whose block fits on the device; A is all ones and B all 0.01, so
every element of C must be WA * 0.01. The sample launches with the argument array; this port
then launches again with the packed buffer and checks both results.

Run: python examples/0_Introduction/matrix_mul_drv.py
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source  # noqa: E402
from common import cu13  # noqa: E402
from common.drv_helpers import compute_capability, device_name, find_device  # noqa: E402
from cuda.bindings import driver  # noqa: E402

MATRIX_MUL_KERNEL = b"""
// C = A * B for row-major matrices whose sizes are multiples of BLOCK: each block computes one
// BLOCK x BLOCK tile of C, walking along A's rows and B's columns one tile at a time through
// shared memory.
template <int BLOCK, typename size_type>
__device__ void matrixMulTiled(float *C, const float *A, const float *B, size_type wA, size_type wB)
{
    __shared__ float tileA[BLOCK][BLOCK];
    __shared__ float tileB[BLOCK][BLOCK];

    const size_type tx = threadIdx.x, ty = threadIdx.y;
    const size_type row = (size_type)blockIdx.y * BLOCK + ty;
    const size_type col = (size_type)blockIdx.x * BLOCK + tx;

    float sum = 0.0f;
    for (size_type k0 = 0; k0 < wA; k0 += BLOCK) {
        tileA[ty][tx] = A[row * wA + k0 + tx];
        tileB[ty][tx] = B[(k0 + ty) * wB + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK; ++k)
            sum += tileA[ty][k] * tileB[k][tx];
        __syncthreads();
    }
    C[row * wB + col] = sum;
}

extern "C" __global__ void matrixMul_bs8_64bit(float *C, float *A, float *B, size_t wA, size_t wB)
{
    matrixMulTiled<8, size_t>(C, A, B, wA, wB);
}

extern "C" __global__ void matrixMul_bs16_64bit(float *C, float *A, float *B, size_t wA, size_t wB)
{
    matrixMulTiled<16, size_t>(C, A, B, wA, wB);
}

extern "C" __global__ void matrixMul_bs32_64bit(float *C, float *A, float *B, size_t wA, size_t wB)
{
    matrixMulTiled<32, size_t>(C, A, B, wA, wB);
}
"""

KERNELS = [b"matrixMul_bs32_64bit", b"matrixMul_bs16_64bit", b"matrixMul_bs8_64bit"]
FLOAT = np.dtype(np.float32).itemsize


def init_cuda():
    """initCUDA: the device, a new context, the module, and the kernel of the largest tile size
    that fits. Returns (context, module, kernel, block size)."""
    dev = find_device(0)
    major, minor = compute_capability(dev)
    name = device_name(dev)
    print(f"> Using CUDA device [0]: {name}")
    print(f"> GPU Device has SM {major}.{minor} compute capability")
    total_global_mem = check(driver.cuDeviceTotalMem(dev))
    print(f"  Total amount of global memory:     {total_global_mem} bytes")

    ctx_params = driver.CUctxCreateParams()  # all zero, as CUctxCreateParams ctxCreateParams = {}
    ctx = check(cu13.cuCtxCreate(ctx_params, 0, dev))

    cubin = compile_source(MATRIX_MUL_KERNEL, f"{major}{minor}", fmt="cubin", name=b"matrixMul_kernel.cu")
    print(f"> initCUDA loading module: NVRTC cubin for sm_{major}{minor} ({len(cubin)} bytes)")
    module = check(driver.cuModuleLoadData(cubin))

    block_size = 32
    function = None
    for kernel_name in KERNELS:
        function = check(driver.cuModuleGetFunction(module, kernel_name))
        _blocks_per_grid, threads_per_block = check(driver.cuOccupancyMaxPotentialBlockSize(
            function, None, 2 * block_size * block_size * FLOAT, 0))
        if block_size * block_size <= threads_per_block:
            print(f"> {block_size} block size selected")
            break
        block_size //= 2
    assert function is not None
    return ctx, module, function, block_size


def check_result(h_C, expected):
    """The sample's check: every element within 1e-5 of WA * valB (NaN counts as wrong)."""
    bad = np.flatnonzero(~(np.abs(h_C - expected) <= 1e-5))
    for i in bad[:10]:
        print(f"Error! Matrix[{int(i):05d}]={float(h_C[i]):.8f}, ref={expected:.8f} error term is > 1e-5")
    return bad.size == 0


def main():
    print("[ matrixMulDrv (Driver API) ]")
    ctx, module, matrix_mul, block_size = init_cuda()

    WA, HA = 4 * block_size, 6 * block_size
    WB, HB = 4 * block_size, WA
    WC, HC = WB, HA

    # host matrices: A all ones, B all valB
    val_b = 0.01
    h_A = np.full(WA * HA, 1.0, dtype=np.float32)
    h_B = np.full(WB * HB, val_b, dtype=np.float32)
    mem_size_A, mem_size_B = h_A.nbytes, h_B.nbytes

    d_A = check(driver.cuMemAlloc(mem_size_A))
    d_B = check(driver.cuMemAlloc(mem_size_B))
    check(driver.cuMemcpyHtoD(d_A, h_A, mem_size_A))
    check(driver.cuMemcpyHtoD(d_B, h_B, mem_size_B))

    mem_size_C = WC * HC * FLOAT
    d_C = check(driver.cuMemAlloc(mem_size_C))
    h_C = np.empty(WC * HC, dtype=np.float32)

    block = (block_size, block_size, 1)
    grid = (WC // block_size, HC // block_size, 1)
    shared_bytes = 2 * block_size * block_size * FLOAT
    expected = float(np.float32(WA * val_b))

    # 1. the simpler method: void *args[5] = {&d_C, &d_A, &d_B, &Matrix_Width_A, &Matrix_Width_B}
    start = time.perf_counter()
    matrix_width_a = ctypes.c_size_t(WA)
    matrix_width_b = ctypes.c_size_t(WB)
    args = np.array([d_C.getPtr(), d_A.getPtr(), d_B.getPtr(),
                     ctypes.addressof(matrix_width_a), ctypes.addressof(matrix_width_b)], dtype=np.uint64)
    check(driver.cuLaunchKernel(matrix_mul, *grid, *block, shared_bytes, None, args.ctypes.data, None))
    check(driver.cuMemcpyDtoH(h_C, d_C, mem_size_C))
    elapsed = (time.perf_counter() - start) * 1e3
    print(f"Processing time: {elapsed:f} (ms)")
    print(f"C ({WC} x {HC}) = A ({WA} x {HA}) * B ({WB} x {HB}), grid {grid[0]} x {grid[1]}, "
          f"block {block[0]} x {block[1]}")
    print("Checking computed result for correctness: ", end="")
    correct = check_result(h_C, expected)
    print("Result = PASS" if correct else "Result = FAIL")

    # 2. the advanced method: the arguments packed into one buffer, passed through `extra`
    check(driver.cuMemsetD32(d_C, 0, WC * HC))
    arg_buffer = bytearray(256)
    offset = 0
    for value in (int(d_C), int(d_A), int(d_B), WA, WB):  # three CUdeviceptr, two size_t
        arg_buffer[offset:offset + 8] = value.to_bytes(8, sys.byteorder)
        offset += 8
    buffer_size = ctypes.c_size_t(offset)
    kernel_launch_config = [driver.CU_LAUNCH_PARAM_BUFFER_POINTER, arg_buffer,
                            driver.CU_LAUNCH_PARAM_BUFFER_SIZE, buffer_size,
                            driver.CU_LAUNCH_PARAM_END]
    check(driver.cuLaunchKernel(matrix_mul, *grid, *block, shared_bytes, None, None, kernel_launch_config))
    h_C[:] = 0
    check(driver.cuMemcpyDtoH(h_C, d_C, mem_size_C))
    print("Checking the result of the launch with CU_LAUNCH_PARAM_BUFFER_POINTER: ", end="")
    correct_extra = check_result(h_C, expected)
    print("Result = PASS" if correct_extra else "Result = FAIL")

    print("\nNOTE: The CUDA Samples are not meant for performance measurements. "
          "Results may vary when GPU Boost is enabled.")

    check(driver.cuMemFree(d_A))
    check(driver.cuMemFree(d_B))
    check(driver.cuMemFree(d_C))
    check(driver.cuModuleUnload(module))
    check(driver.cuCtxDestroy(ctx))
    return 0 if correct and correct_extra else 1


if __name__ == "__main__":
    sys.exit(main())
