"""Rotating an image through a texture object on a CUDA array, driver API, port of the CUDA sample
simpleTextureDrv.

API area: CUDA arrays (cuArrayCreate, cuMemcpy2D from host memory into the array) and texture
objects (CUDA_RESOURCE_DESC + CUDA_TEXTURE_DESC -> cuTexObjectCreate), read in a kernel with
tex2D<float> using normalized coordinates, wrap addressing and bilinear filtering.

The sample reads teapot512.pgm and compares with a reference picture on disk; here the 512 x 512
image is a smooth periodic pattern made with numpy and the reference is the same rotation with
bilinear filtering computed by numpy. The kernel runs once to warm up and once more timed, as in
the sample.

Run: python examples/0_Introduction/simple_texture_drv.py
Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source  # noqa: E402
from common import cu13  # noqa: E402
from common.drv_helpers import compute_capability, device_name, find_device  # noqa: E402
from cuda.bindings import driver  # noqa: E402

TRANSFORM_KERNEL = b"""
// One thread per output pixel: read the texture at the pixel's position rotated by theta about
// the image centre, in normalized coordinates (the texture wraps outside [0, 1)).
extern "C" __global__ void transformKernel(float *g_odata, int width, int height, float theta,
                                           cudaTextureObject_t tex)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= (unsigned int)width || y >= (unsigned int)height)
        return;

    float u = (float)x - 0.5f * (float)width;
    float v = (float)y - 0.5f * (float)height;
    float c = cosf(theta), s = sinf(theta);
    float tu = (u * c - v * s) / (float)width;
    float tv = (v * c + u * s) / (float)height;

    g_odata[y * width + x] = tex2D<float>(tex, tu + 0.5f, tv + 0.5f);
}
"""

ANGLE = 0.5  # radians
MIN_EPSILON_ERROR = 5e-3


def make_image(width, height):
    """A smooth image, periodic in x and y (so wrap addressing has no seam), values in [0, 1]."""
    y, x = np.mgrid[0:height, 0:width] / np.array([height, width]).reshape(2, 1, 1)
    img = 0.5 + 0.3 * np.sin(2 * np.pi * (2 * x + y)) * np.cos(2 * np.pi * 3 * y) + 0.2 * np.cos(2 * np.pi * x)
    return (img / img.max()).astype(np.float32)


def rotate_reference(img, theta):
    """The kernel's result computed in float64: normalized, wrapped, bilinearly filtered reads."""
    h, w = img.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = x - 0.5 * w, y - 0.5 * h
    tu = (u * math.cos(theta) - v * math.sin(theta)) / w + 0.5
    tv = (v * math.cos(theta) + u * math.sin(theta)) / h + 0.5
    # texel i covers [i, i+1) and is centred at i + 0.5
    fx, fy = tu * w - 0.5, tv * h - 0.5
    x0, y0 = np.floor(fx), np.floor(fy)
    ax, ay = fx - x0, fy - y0
    x0, y0 = x0.astype(np.int64) % w, y0.astype(np.int64) % h
    x1, y1 = (x0 + 1) % w, (y0 + 1) % h
    src = img.astype(np.float64)
    return ((1 - ax) * (1 - ay) * src[y0, x0] + ax * (1 - ay) * src[y0, x1]
            + (1 - ax) * ay * src[y1, x0] + ax * ay * src[y1, x1])


def init_cuda():
    """initCUDA: the device, a context, the module and its transformKernel."""
    dev = find_device(0)
    major, minor = compute_capability(dev)
    print(f"> Using CUDA device [0]: {device_name(dev)}")
    print(f"> GPU Device has SM {major}.{minor} compute capability")
    ctx = check(cu13.cuCtxCreate(driver.CUctxCreateParams(), 0, dev))
    cubin = compile_source(TRANSFORM_KERNEL, f"{major}{minor}", fmt="cubin", name=b"simpleTexture_kernel.cu")
    print(f"> initCUDA loading module: NVRTC cubin for sm_{major}{minor} ({len(cubin)} bytes)")
    module = check(driver.cuModuleLoadData(cubin))
    transform = check(driver.cuModuleGetFunction(module, b"transformKernel"))
    return ctx, module, transform


def main():
    print("simpleTextureDrv (Driver API) starting...")
    ctx, module, transform = init_cuda()

    width = height = 512
    h_data = make_image(width, height)
    size = h_data.nbytes
    print(f"Made a {width} x {height} pixel image")
    h_data_ref = rotate_reference(h_data, ANGLE)

    # device memory for the result
    d_data = check(driver.cuMemAlloc(size))

    # the CUDA array, filled from host memory with a 2D copy
    desc = driver.CUDA_ARRAY_DESCRIPTOR()
    desc.Format = driver.CUarray_format.CU_AD_FORMAT_FLOAT
    desc.NumChannels = 1
    desc.Width = width
    desc.Height = height
    # (one descriptor, as in C; the stub declares a list of them)
    cu_array = check(driver.cuArrayCreate(desc))  # type: ignore[arg-type]

    copy_param = driver.CUDA_MEMCPY2D()
    copy_param.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    copy_param.dstArray = cu_array
    copy_param.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy_param.srcHost = h_data
    copy_param.srcPitch = width * h_data.itemsize
    copy_param.WidthInBytes = copy_param.srcPitch
    copy_param.Height = height
    check(driver.cuMemcpy2D(copy_param))

    # the texture object reading the array
    res_desc = driver.CUDA_RESOURCE_DESC()
    res_desc.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res_desc.res.array.hArray = cu_array

    wrap = driver.CUaddress_mode.CU_TR_ADDRESS_MODE_WRAP
    tex_desc = driver.CUDA_TEXTURE_DESC()
    tex_desc.addressMode = [wrap, wrap, wrap]
    tex_desc.filterMode = driver.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
    tex_desc.flags = driver.CU_TRSF_NORMALIZED_COORDINATES

    tex_object = check(driver.cuTexObjectCreate(res_desc, tex_desc, None))

    # void *args[5] = {&d_data, &width, &height, &angle, &TexObject}
    block_size = 8
    grid = (width // block_size, height // block_size, 1)
    block = (block_size, block_size, 1)
    args = ((d_data, width, height, ANGLE, tex_object),
            (None, ctypes.c_int, ctypes.c_int, ctypes.c_float, None))
    check(driver.cuLaunchKernel(transform, *grid, *block, 0, None, args, None))
    check(driver.cuCtxSynchronize())

    # launch again for the time
    start = time.perf_counter()
    check(driver.cuLaunchKernel(transform, *grid, *block, 0, None, args, None))
    check(driver.cuCtxSynchronize())
    ms = (time.perf_counter() - start) * 1e3
    print(f"Processing time: {ms:f} (ms)")
    print(f"{width * height / (ms / 1e3) / 1e6:.2f} Mpixels/sec")

    h_odata = np.empty_like(h_data)
    check(driver.cuMemcpyDtoH(h_odata, d_data, size))

    # the sample's compareData: at most 15% of the pixels may differ by more than epsilon; the
    # texture unit's 8-bit filter weights keep every pixel of this smooth image far closer
    diff = np.abs(h_odata.astype(np.float64) - h_data_ref)
    differing = int(np.count_nonzero(~(diff <= MIN_EPSILON_ERROR)))
    ok = bool(np.all(np.isfinite(h_odata))) and differing == 0 and float(diff.max()) < 1e-3
    print(f"Comparing with the numpy rotation: max abs difference {float(diff.max()):.3g}, "
          f"{differing} pixels off by more than {MIN_EPSILON_ERROR}: {'PASSED' if ok else 'FAILED'}")

    check(driver.cuTexObjectDestroy(tex_object))
    check(driver.cuMemFree(d_data))
    check(driver.cuArrayDestroy(cu_array))
    check(driver.cuModuleUnload(module))
    check(driver.cuCtxDestroy(ctx))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
