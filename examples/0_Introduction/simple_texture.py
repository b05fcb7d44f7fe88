"""Rotating an image through a 2D texture object, port of the CUDA sample simpleTexture.

The image lives in a CUDA array (cudaMallocArray + cudaMemcpy2DToArray); a texture object
(cudaResourceDesc + cudaTextureDesc + cudaCreateTextureObject) reads it with normalized
coordinates, wrap addressing and bilinear filtering, and a kernel compiled by NVRTC samples it
with tex2D<float> at rotated coordinates. The sample reads a picture from disk; here the image is a
smooth periodic pattern made with numpy, and the result is checked against the same rotation with
bilinear filtering computed by numpy.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import ctypes
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, select_device  # noqa: E402
from common.toolkit import rt_check  # noqa: E402
from cuda.bindings import driver, runtime  # noqa: E402

TRANSFORM_KERNEL = b"""
// Each thread writes one output pixel: the texture read at the pixel's coordinates rotated by
// `theta` about the image centre (normalized coordinates, so the texture wraps outside [0, 1)).
extern "C" __global__ void transformKernel(float *outputData, int width, int height, float theta,
                                           cudaTextureObject_t tex)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    float u = (float)x / (float)width - 0.5f;
    float v = (float)y / (float)height - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;

    outputData[y * width + x] = tex2D<float>(tex, tu, tv);
}
"""


def compile_kernel(arch):
    return compile_source(TRANSFORM_KERNEL, arch, fmt="cubin", name=b"simpleTexture.cu")


def make_image(width, height):
    """A smooth pattern that is periodic in both directions, values in [0, 1]."""
    y, x = np.mgrid[0:height, 0:width]
    img = (0.5 + 0.25 * np.sin(2 * np.pi * 3 * x / width) * np.cos(2 * np.pi * y / height)
           + 0.25 * np.cos(2 * np.pi * 2 * y / height + 2 * np.pi * x / width))
    return img.astype(np.float32)


def reference_rotate(img, theta):
    """What the kernel computes: bilinear filtering, wrap addressing, normalized coordinates."""
    h, w = img.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u = x / w - 0.5
    v = y / h - 0.5
    tu = u * math.cos(theta) - v * math.sin(theta) + 0.5
    tv = v * math.cos(theta) + u * math.sin(theta) + 0.5
    # texel space: texel centres at i + 0.5
    fx = tu * w - 0.5
    fy = tv * h - 0.5
    x0 = np.floor(fx)
    y0 = np.floor(fy)
    a = fx - x0
    b = fy - y0
    x0 = x0.astype(np.int64)
    y0 = y0.astype(np.int64)
    xa, xb = x0 % w, (x0 + 1) % w
    ya, yb = y0 % h, (y0 + 1) % h
    img = img.astype(np.float64)
    return ((1 - a) * (1 - b) * img[ya, xa] + a * (1 - b) * img[ya, xb]
            + (1 - a) * b * img[yb, xa] + a * b * img[yb, xb])


def main():
    width = height = 512
    angle = 0.5  # radians

    dev, _ctx = select_device(0)
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    rt_check(runtime.cudaSetDevice(int(dev)))  # the runtime uses the same (primary) context

    module = check(driver.cuModuleLoadData(compile_kernel(device_arch(dev))))
    kernel = check(driver.cuModuleGetFunction(module, b"transformKernel"))

    h_data = make_image(width, height)
    size = h_data.nbytes

    # output buffer
    d_data = rt_check(runtime.cudaMalloc(size))

    # CUDA array holding the image, 32-bit float texels
    channel_desc = rt_check(runtime.cudaCreateChannelDesc(
        32, 0, 0, 0, runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    cu_array = rt_check(runtime.cudaMallocArray(channel_desc, width, height, 0))
    row_bytes = width * h_data.itemsize
    rt_check(runtime.cudaMemcpy2DToArray(cu_array, 0, 0, h_data, row_bytes, row_bytes, height,
                                         runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))

    res_desc = runtime.cudaResourceDesc()
    res_desc.resType = runtime.cudaResourceType.cudaResourceTypeArray
    res_desc.res.array.array = cu_array

    wrap = runtime.cudaTextureAddressMode.cudaAddressModeWrap
    tex_desc = runtime.cudaTextureDesc()
    tex_desc.normalizedCoords = 1
    tex_desc.filterMode = runtime.cudaTextureFilterMode.cudaFilterModeLinear
    tex_desc.addressMode = [wrap, wrap, wrap]
    tex_desc.readMode = runtime.cudaTextureReadMode.cudaReadModeElementType

    tex = rt_check(runtime.cudaCreateTextureObject(res_desc, tex_desc, None))

    block = (8, 8, 1)
    grid = (width // block[0], height // block[1], 1)
    # arguments as (values, types): a device pointer, ints, a float and the texture object
    # (None: a binding object passed by value)
    args = ((d_data, width, height, angle, tex),
            (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_float, None))

    # warm-up launch, then a timed one (the sample times the second)
    check(driver.cuLaunchKernel(kernel, *grid, *block, 0, 0, args, 0))
    rt_check(runtime.cudaDeviceSynchronize())
    start = rt_check(runtime.cudaEventCreate())
    stop = rt_check(runtime.cudaEventCreate())
    rt_check(runtime.cudaEventRecord(start, 0))
    check(driver.cuLaunchKernel(kernel, *grid, *block, 0, 0, args, 0))
    rt_check(runtime.cudaEventRecord(stop, 0))
    rt_check(runtime.cudaEventSynchronize(stop))
    ms = rt_check(runtime.cudaEventElapsedTime(start, stop))

    h_out = np.empty_like(h_data)
    rt_check(runtime.cudaMemcpy(h_out, d_data, size, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))

    expected = reference_rotate(h_data, angle)
    diff = np.abs(h_out.astype(np.float64) - expected)
    # the texture unit keeps 8 fractional bits of the filter weights; on this smooth image that
    # is far below the tolerance, while sampling half a texel off is far above it
    good = bool(np.all(np.isfinite(h_out))) and float(diff.max()) < 1e-3

    print(f"simpleTexture on {name}: {width}x{height} float image in a CUDA array, texture object "
          f"(normalized coordinates, wrap, bilinear), rotated by {angle} rad")
    print(f"kernel time {ms:.3f} ms, {width * height / (ms / 1e3) / 1e6:.2f} Mpixels/sec")
    print(f"max abs difference to the numpy reference {float(diff.max()):.3g}, "
          f"mean {float(diff.mean()):.3g}: {'ok' if good else 'WRONG RESULT'}")

    rt_check(runtime.cudaDestroyTextureObject(tex))
    rt_check(runtime.cudaFreeArray(cu_array))
    rt_check(runtime.cudaFree(d_data))
    rt_check(runtime.cudaEventDestroy(start))
    rt_check(runtime.cudaEventDestroy(stop))
    check(driver.cuModuleUnload(module))
    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
