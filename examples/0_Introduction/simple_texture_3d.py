"""Slices through a volume read with a 3D texture, the Python twin of the CUDA sample
simpleTexture3D (its non-interactive test path: the sample's window, OpenGL buffer and key
handling are left out). API area: 3D CUDA arrays (cudaMalloc3DArray, cudaMemcpy3D) and texture
objects with trilinear filtering (cudaCreateTextureObject, tex3D<float>).

A 32^3 volume of unsigned bytes (the sample reads Bucky.raw; here a smooth periodic pattern made
with numpy) is copied into a 3D CUDA array and read through a texture object with normalized
coordinates, wrap addressing, linear filtering and cudaReadModeNormalizedFloat (bytes read as
0..1). A kernel renders a 512 x 512 slice at depth w, writing voxel * 255 as an unsigned int per
pixel. Rendered: the slice at w = 0.5 (the sample's test image) and the next frames of its
animation (w += 0.01); then, as the sample's 'f' key does, the texture object is destroyed and
made again with point filtering (setTextureFilterMode) and a slice rendered with it.

Checked against numpy: trilinear (or nearest-texel) sampling of the same bytes with wrap
addressing, the same truncation to an integer; the texture unit's 8-bit filter weights and
float rounding allow the pixels to differ by at most 2 (of 255), and with point filtering a
pixel exactly on a texel boundary may take either neighbour.

Run: python examples/0_Introduction/simple_texture_3d.py
Exit status: 0 when every slice matches, 1 otherwise, 3 when no CUDA device is available.
"""
import ctypes
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check  # noqa: E402
from common.rt_helpers import (build_library, compile_cubin, device_arch, dim3,  # noqa: E402
                               find_cuda_device, get_kernels)
from cuda.bindings import runtime  # noqa: E402

VOLUME_SIZE = (32, 32, 32)  # width, height, depth
WIDTH = HEIGHT = 512
BLOCK_SIZE = (16, 16)
MAX_PIXEL_DIFF = 2

KERNELS = b"""
typedef unsigned int uint;

extern "C" __global__ void d_render(uint *d_output, uint imageW, uint imageH, float w,
                                    cudaTextureObject_t texObj)
{
    uint x = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    uint y = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;

    float u = x / (float)imageW;
    float v = y / (float)imageH;
    // read from the 3D texture
    float voxel = tex3D<float>(texObj, u, v, w);

    if ((x < imageW) && (y < imageH)) {
        uint i = __umul24(y, imageW) + x;
        d_output[i] = voxel * 255;
    }
}
"""


def compile_kernels(arch):
    return compile_cubin(KERNELS, arch, "simpleTexture3D_kernel.cu")


def make_volume():
    """A smooth volume, periodic in all three directions (wrap addressing joins it up), as bytes
    indexed [z, y, x]."""
    d, h, w = VOLUME_SIZE[2], VOLUME_SIZE[1], VOLUME_SIZE[0]
    z, y, x = np.mgrid[0:d, 0:h, 0:w].astype(np.float64)
    v = (0.5 + 0.25 * np.sin(2 * np.pi * x / w) * np.cos(2 * np.pi * y / h)
         + 0.2 * np.cos(2 * np.pi * (z / d + x / w)))
    return np.clip(np.round(v * 255), 0, 255).astype(np.uint8)


class Volume:
    """The sample's initCuda / setTextureFilterMode / cleanupCuda around one 3D array."""

    def __init__(self, h_volume):
        w, h, d = VOLUME_SIZE
        volume_size = runtime.make_cudaExtent(w, h, d)
        # create the 3D array
        channel_desc = check(runtime.cudaCreateChannelDesc(
            8, 0, 0, 0, runtime.cudaChannelFormatKind.cudaChannelFormatKindUnsigned))
        self.array = check(runtime.cudaMalloc3DArray(channel_desc, volume_size, 0))

        # copy the data into it
        copy_params = runtime.cudaMemcpy3DParms()
        copy_params.srcPtr = runtime.make_cudaPitchedPtr(h_volume, w * 1, w, h)
        copy_params.dstArray = self.array
        copy_params.extent = volume_size
        copy_params.kind = runtime.cudaMemcpyKind.cudaMemcpyHostToDevice
        check(runtime.cudaMemcpy3D(copy_params))

        self.tex: runtime.cudaTextureObject_t | None = None
        self.set_texture_filter_mode(True)

    def set_texture_filter_mode(self, linear_filter):
        if self.tex is not None:
            check(runtime.cudaDestroyTextureObject(self.tex))
        tex_res = runtime.cudaResourceDesc()
        tex_res.resType = runtime.cudaResourceType.cudaResourceTypeArray
        tex_res.res.array.array = self.array

        wrap = runtime.cudaTextureAddressMode.cudaAddressModeWrap
        tex_descr = runtime.cudaTextureDesc()
        tex_descr.normalizedCoords = 1  # access with normalized texture coordinates
        tex_descr.filterMode = (runtime.cudaTextureFilterMode.cudaFilterModeLinear if linear_filter
                                else runtime.cudaTextureFilterMode.cudaFilterModePoint)
        tex_descr.addressMode = [wrap, wrap, wrap]  # wrap texture coordinates
        tex_descr.readMode = runtime.cudaTextureReadMode.cudaReadModeNormalizedFloat
        self.tex = check(runtime.cudaCreateTextureObject(tex_res, tex_descr, None))

    def cleanup(self):
        if self.tex is not None:
            check(runtime.cudaDestroyTextureObject(self.tex))
        check(runtime.cudaFreeArray(self.array))


def sample_reference(volume, w, linear, shift=0.0):
    """What d_render computes, in float64: tex3D at (x/W, y/H, w) with wrap addressing, as
    voxel * 255 truncated; `shift` moves the coordinates by that many texels (for the boundary
    cases of point filtering)."""
    d, h, wd = volume.shape
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    coords = [x / WIDTH * wd + shift, y / HEIGHT * h + shift, np.full_like(x, np.float32(w) * d + shift)]
    vol = volume.astype(np.float64) / 255.0
    if not linear:
        ix, iy, iz = (np.floor(c).astype(np.int64) for c in coords)
        voxel = vol[iz % d, iy % h, ix % wd]
    else:
        # texel centres sit at i + 0.5: interpolate between floor(c - 0.5) and the next texel
        base = [c - 0.5 for c in coords]
        i0 = [np.floor(b).astype(np.int64) for b in base]
        frac = [b - np.floor(b) for b in base]
        voxel = np.zeros_like(x)
        for dz in (0, 1):
            for dy in (0, 1):
                for dx in (0, 1):
                    weight = ((frac[0] if dx else 1 - frac[0]) * (frac[1] if dy else 1 - frac[1])
                              * (frac[2] if dz else 1 - frac[2]))
                    voxel += weight * vol[(i0[2] + dz) % d, (i0[1] + dy) % h, (i0[0] + dx) % wd]
    return np.trunc(voxel * 255.0)


def compare(h_output, volume, w, linear):
    """Largest pixel difference to the reference (with point filtering, to the nearer of the two
    readings of a coordinate that falls on a texel boundary)."""
    got = h_output.reshape(HEIGHT, WIDTH).astype(np.float64)
    diff = np.abs(got - sample_reference(volume, w, linear))
    if not linear:
        diff = np.minimum(diff, np.abs(got - sample_reference(volume, w, linear, shift=-1e-3)))
    return float(diff.max())


def main():
    print("simpleTexture3D Starting...\n")
    dev = find_cuda_device(0)
    library = build_library(compile_kernels(device_arch(dev)))
    (d_render,) = get_kernels(library, "d_render")

    h_volume = make_volume()
    print(f"Made a {VOLUME_SIZE[0]}x{VOLUME_SIZE[1]}x{VOLUME_SIZE[2]} volume, {h_volume.nbytes} bytes")
    volume = Volume(h_volume)

    out_bytes = WIDTH * HEIGHT * 4
    d_output = check(runtime.cudaMalloc(out_bytes))
    h_output = np.empty(WIDTH * HEIGHT, dtype=np.uint32)
    grid_size = dim3(WIDTH // BLOCK_SIZE[0], HEIGHT // BLOCK_SIZE[1])
    block_size = dim3(BLOCK_SIZE[0], BLOCK_SIZE[1])
    start = check(runtime.cudaEventCreate())
    stop = check(runtime.cudaEventCreate())

    def render(w):
        args = ((d_output, WIDTH, HEIGHT, w, volume.tex),
                (ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_float, None))
        check(runtime.cudaEventRecord(start, 0))
        check(runtime.cudaLaunchKernel(d_render, grid_size, block_size, args, 0, 0))
        check(runtime.cudaEventRecord(stop, 0))
        check(runtime.cudaDeviceSynchronize())
        check(runtime.cudaMemcpy(h_output, d_output, out_bytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
        return check(runtime.cudaEventElapsedTime(start, stop))

    ok = True
    frames = [(0.5 + 0.01 * k, True) for k in range(4)] + [(0.5, False), (0.53, False)]
    for i, (w, linear) in enumerate(frames):
        if i > 0 and linear != frames[i - 1][1]:
            volume.set_texture_filter_mode(linear)
            print("filter mode switched to point sampling (texture object made again)")
        ms = render(w)
        worst = compare(h_output, h_volume, w, linear)
        good = worst <= MAX_PIXEL_DIFF and math.isfinite(worst)
        ok = ok and good
        print(f"slice w = {w:.2f} ({'linear' if linear else 'point'} filtering): {ms:.3f} ms, "
              f"mean pixel {float(h_output.mean()):.1f}, largest difference to numpy {worst:g}: "
              f"{'ok' if good else 'WRONG RESULT'}")

    check(runtime.cudaEventDestroy(start))
    check(runtime.cudaEventDestroy(stop))
    check(runtime.cudaFree(d_output))
    volume.cleanup()
    check(runtime.cudaLibraryUnload(library))
    print("simpleTexture3D " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
