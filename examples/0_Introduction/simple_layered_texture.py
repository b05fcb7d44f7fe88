"""Reading a layered 2D texture, the Python twin of the CUDA sample simpleLayeredTexture. API
area: layered CUDA arrays (cudaMalloc3DArray with cudaArrayLayered, filled with cudaMemcpy3D) and
texture objects read with tex2DLayered.

Five 512 x 512 layers of floats (each holding 0, 1, 2, ...) go into one layered array; a texture
object reads it with normalized coordinates, wrap addressing and linear filtering. A kernel
launched once per layer reads its layer at the texel centres (so filtering returns the texels
themselves) and writes -value + layer. The output is compared with the same transformation done
by numpy, with the sample's tolerance (relative L2 error below 5e-3); the largest difference is
printed too.

Run: python examples/0_Introduction/simple_layered_texture.py
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels, prop_name)
from cuda.bindings import runtime  # noqa: E402

MIN_EPSILON_ERROR = 5e-3

KERNELS = b"""
// Transform one layer of a layered 2D texture through texture lookups.
extern "C" __global__ void transformKernel(float *g_odata, int width, int height, int layer,
                                           cudaTextureObject_t tex)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;

    // the texel centre: with it, linear filtering returns the texel itself
    float u = (x + 0.5f) / (float)width;
    float v = (y + 0.5f) / (float)height;

    g_odata[layer * width * height + y * width + x] = -tex2DLayered<float>(tex, u, v, layer) + layer;
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleLayeredTexture.cu")


def compare_data(reference, data, epsilon):
    """The sample's compareData for floats: relative L2 error of `data` against `reference`."""
    ref = reference.astype(np.float64)
    err = float(np.linalg.norm(data.astype(np.float64) - ref))
    norm = float(np.linalg.norm(ref))
    return (err / norm if norm else err), float(np.max(np.abs(data - reference)))


def main():
    print("[simpleLayeredTexture] - Starting...")
    dev_id = find_cuda_device(0)
    device_props = check(runtime.cudaGetDeviceProperties(dev_id))
    print(f"CUDA device [{prop_name(device_props)}] has {device_props.multiProcessorCount} "
          f"Multi-Processors SM {device_props.major}.{device_props.minor}")

    library = build_library(compile_kernels(device_arch(dev_id)))
    (transform_kernel,) = get_kernels(library, "transformKernel")

    # input data for the layered texture
    width, height, num_layers = 512, 512, 5
    size = width * height * num_layers * 4
    h_data = np.tile(np.arange(width * height, dtype=np.float32), num_layers)

    # the expected transformation of the input data
    layer_of = np.repeat(np.arange(num_layers, dtype=np.float32), width * height)
    h_data_ref = -h_data + layer_of

    # device memory for the result
    d_data = check(runtime.cudaMalloc(size))

    # a layered array, and the image data copied into it
    channel_desc = check(runtime.cudaCreateChannelDesc(32, 0, 0, 0, runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    extent = runtime.make_cudaExtent(width, height, num_layers)
    cu_3darray = check(runtime.cudaMalloc3DArray(channel_desc, extent, runtime.cudaArrayLayered))
    myparms = runtime.cudaMemcpy3DParms()
    myparms.srcPos = runtime.make_cudaPos(0, 0, 0)
    myparms.dstPos = runtime.make_cudaPos(0, 0, 0)
    myparms.srcPtr = runtime.make_cudaPitchedPtr(h_data, width * 4, width, height)
    myparms.dstArray = cu_3darray
    myparms.extent = extent
    myparms.kind = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
    check(runtime.cudaMemcpy3D(myparms))

    tex_res = runtime.cudaResourceDesc()
    tex_res.resType = runtime.cudaResourceType.cudaResourceTypeArray
    tex_res.res.array.array = cu_3darray

    wrap = runtime.cudaTextureAddressMode.cudaAddressModeWrap
    tex_descr = runtime.cudaTextureDesc()
    tex_descr.normalizedCoords = 1
    tex_descr.filterMode = runtime.cudaTextureFilterMode.cudaFilterModeLinear
    tex_descr.addressMode = [wrap, wrap, wrap]  # (the third is unused by a 2D layered read)
    tex_descr.readMode = runtime.cudaTextureReadMode.cudaReadModeElementType
    tex = check(runtime.cudaCreateTextureObject(tex_res, tex_descr, None))

    dim_block = dim3(8, 8, 1)
    dim_grid = dim3(width // dim_block.x, height // dim_block.y, 1)
    print(f"Covering 2D data array of {width} x {height}: Grid size is {dim_grid.x} x {dim_grid.y}, "
          "each block has 8 x 8 threads")

    def transform(layer):
        args = ((d_data, width, height, layer, tex),
                (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, None))
        check(runtime.cudaLaunchKernel(transform_kernel, dim_grid, dim_block, args, 0, 0))

    transform(0)  # warm-up (for better timing)
    check(runtime.cudaGetLastError())
    check(runtime.cudaDeviceSynchronize())

    t0 = time.perf_counter()
    for layer in range(num_layers):
        transform(layer)
    check(runtime.cudaGetLastError())
    check(runtime.cudaDeviceSynchronize())
    ms = (time.perf_counter() - t0) * 1e3
    print(f"Processing time: {ms:.3f} msec")
    print(f"{width * height * num_layers / (ms / 1000.0) / 1e6:.2f} Mtexlookups/sec")

    # the result, back on the host
    h_odata = np.empty_like(h_data)
    check(runtime.cudaMemcpy(h_odata, d_data, size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))

    print("Comparing kernel output to expected data")
    rel_l2, max_abs = compare_data(h_data_ref, h_odata, MIN_EPSILON_ERROR)
    result = rel_l2 < MIN_EPSILON_ERROR
    print(f"relative L2 error {rel_l2:.3g} (tolerance {MIN_EPSILON_ERROR:g}), largest difference {max_abs:g}: "
          f"{'ok' if result else 'WRONG RESULT'}")

    check(runtime.cudaDestroyTextureObject(tex))
    check(runtime.cudaFree(d_data))
    check(runtime.cudaFreeArray(cu_3darray))
    check(runtime.cudaLibraryUnload(library))
    return 0 if result else 1


if __name__ == "__main__":
    sys.exit(main())
