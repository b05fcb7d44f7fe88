"""Writing a CUDA array from a kernel through a surface, then reading it as a texture, the Python
twin of the CUDA sample simpleSurfaceWrite. API area: CUDA arrays with
cudaArraySurfaceLoadStore (cudaMallocArray), surface objects (cudaCreateSurfaceObject,
surf2Dwrite) and texture objects over the same array (cudaCreateTextureObject, tex2D).

The image (the sample reads a 512 x 512 picture; here a smooth periodic pattern made with numpy)
is copied to device memory; a kernel stores every pixel into the CUDA array with surf2Dwrite
(the step that differs from simpleTexture, which copies into the array). A texture object then
reads the array with normalized coordinates, wrap addressing and bilinear filtering, and a
second kernel writes the image rotated by 0.5 rad. Checked against numpy: the array's contents
(copied back with cudaMemcpy2DFromArray) must equal the image exactly, and the rotated image must
match the same rotation computed with bilinear filtering, with the sample's tolerance (relative
L2 error below 5e-3); the largest difference is printed too.

Run: python examples/0_Introduction/simple_surface_write.py
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import math
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
ANGLE = 0.5  # radians to rotate the image by

KERNELS = b"""
// Write to a CUDA array (the texture's data) through a surface.
extern "C" __global__ void surfaceWriteKernel(float *gIData, int width, int height,
                                              cudaSurfaceObject_t outputSurface)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    // the x coordinate of a surface is in bytes
    surf2Dwrite(gIData[y * width + x], outputSurface, x * 4, y, cudaBoundaryModeTrap);
}

// Rotate the image by theta about its centre, through texture lookups.
extern "C" __global__ void transformKernel(float *gOData, int width, int height, float theta,
                                           cudaTextureObject_t tex)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;

    float u = x / (float)width - 0.5f;
    float v = y / (float)height - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;

    gOData[y * width + x] = tex2D<float>(tex, tu, tv);
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleSurfaceWrite.cu")


def make_image(width, height):
    """Values in [0, 1], smooth, periodic in x and y (so wrap addressing has no seam)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    img = 0.5 + 0.3 * np.cos(2 * np.pi * (2 * x / width + y / height)) * np.sin(2 * np.pi * 3 * y / height)
    return img.astype(np.float32)


def rotate_reference(image, theta):
    """transformKernel in float64: bilinear filtering with wrap addressing at the rotated
    normalized coordinates (texel centres at i + 0.5)."""
    h, w = image.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = x / w - 0.5, y / h - 0.5
    c, s = math.cos(theta), math.sin(theta)
    px = (u * c - v * s + 0.5) * w - 0.5
    py = (v * c + u * s + 0.5) * h - 0.5
    x0, y0 = np.floor(px), np.floor(py)
    fx, fy = px - x0, py - y0
    xi, yi = x0.astype(np.int64), y0.astype(np.int64)
    img = image.astype(np.float64)

    def at(dy, dx):
        return img[(yi + dy) % h, (xi + dx) % w]

    return (1 - fy) * ((1 - fx) * at(0, 0) + fx * at(0, 1)) + fy * ((1 - fx) * at(1, 0) + fx * at(1, 1))


def main():
    print("simpleSurfaceWrite starting...")
    dev_id = find_cuda_device(0)
    device_props = check(runtime.cudaGetDeviceProperties(dev_id))
    print(f"CUDA device [{prop_name(device_props)}] has {device_props.multiProcessorCount} "
          f"Multi-Processors, SM {device_props.major}.{device_props.minor}")

    library = build_library(compile_kernels(device_arch(dev_id)))
    surface_write_kernel, transform_kernel = get_kernels(library, "surfaceWriteKernel", "transformKernel")

    width = height = 512
    h_data = make_image(width, height)
    size = h_data.nbytes
    print(f"Made a {width} x {height} pixel image")

    # device memory for the result
    d_data = check(runtime.cudaMalloc(size))

    # an array that kernels can write through a surface
    channel_desc = check(runtime.cudaCreateChannelDesc(32, 0, 0, 0, runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    cu_array = check(runtime.cudaMallocArray(channel_desc, width, height, runtime.cudaArraySurfaceLoadStore))

    dim_block = dim3(8, 8, 1)
    dim_grid = dim3(width // dim_block.x, height // dim_block.y, 1)

    surf_res = runtime.cudaResourceDesc()
    surf_res.resType = runtime.cudaResourceType.cudaResourceTypeArray
    surf_res.res.array.array = cu_array
    output_surface = check(runtime.cudaCreateSurfaceObject(surf_res))

    # the image goes to device memory, and from there into the array through the surface
    check(runtime.cudaMemcpy(d_data, h_data, size, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
    check(runtime.cudaLaunchKernel(surface_write_kernel, dim_grid, dim_block,
                                   ((d_data, width, height, output_surface),
                                    (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, None)), 0, 0))

    tex_res = runtime.cudaResourceDesc()
    tex_res.resType = runtime.cudaResourceType.cudaResourceTypeArray
    tex_res.res.array.array = cu_array

    wrap = runtime.cudaTextureAddressMode.cudaAddressModeWrap
    tex_descr = runtime.cudaTextureDesc()
    tex_descr.normalizedCoords = 1
    tex_descr.filterMode = runtime.cudaTextureFilterMode.cudaFilterModeLinear
    tex_descr.addressMode = [wrap, wrap, wrap]
    tex_descr.readMode = runtime.cudaTextureReadMode.cudaReadModeElementType
    tex = check(runtime.cudaCreateTextureObject(tex_res, tex_descr, None))

    args = ((d_data, width, height, ANGLE, tex), (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_float, None))
    # warm-up
    check(runtime.cudaLaunchKernel(transform_kernel, dim_grid, dim_block, args, 0, 0))
    check(runtime.cudaDeviceSynchronize())

    t0 = time.perf_counter()
    check(runtime.cudaLaunchKernel(transform_kernel, dim_grid, dim_block, args, 0, 0))
    check(runtime.cudaGetLastError())
    check(runtime.cudaDeviceSynchronize())
    ms = (time.perf_counter() - t0) * 1e3
    print(f"Processing time: {ms:f} (ms)")
    print(f"{width * height / (ms / 1000.0) / 1e6:.2f} Mpixels/sec")

    # what the surface wrote into the array
    h_array = np.empty_like(h_data)
    row = width * 4
    # (C converts cudaArray_t to the cudaArray_const_t parameter by itself; the type stubs want
    # the conversion spelt out)
    check(runtime.cudaMemcpy2DFromArray(h_array, row, runtime.cudaArray_const_t(cu_array), 0, 0, row, height,
                                        runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    surface_ok = bool(np.array_equal(h_array, h_data))
    print(f"the array written through the surface equals the image: {'ok' if surface_ok else 'WRONG RESULT'}")

    # the rotated image
    h_odata = np.empty_like(h_data)
    check(runtime.cudaMemcpy(h_odata, d_data, size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    reference = rotate_reference(h_data, ANGLE)
    rel_l2 = float(np.linalg.norm(h_odata - reference) / np.linalg.norm(reference))
    max_abs = float(np.max(np.abs(h_odata - reference)))
    rotate_ok = rel_l2 < MIN_EPSILON_ERROR
    print(f"rotated by {ANGLE} rad: relative L2 error to numpy {rel_l2:.3g} (tolerance {MIN_EPSILON_ERROR:g}), "
          f"largest difference {max_abs:.3g}: {'ok' if rotate_ok else 'WRONG RESULT'}")

    test_result = surface_ok and rotate_ok
    check(runtime.cudaDestroySurfaceObject(output_surface))
    check(runtime.cudaDestroyTextureObject(tex))
    check(runtime.cudaFree(d_data))
    check(runtime.cudaFreeArray(cu_array))
    check(runtime.cudaLibraryUnload(library))
    print(f"simpleSurfaceWrite completed, returned {'OK' if test_result else 'ERROR!'}")
    return 0 if test_result else 1


if __name__ == "__main__":
    sys.exit(main())
