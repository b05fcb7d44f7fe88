"""Separate compilation and run-time linking with NVRTC and nvJitLink, in the spirit of the CUDA
samples that link at run time (jitLto, and the separate-compilation samples).

Two CUDA C++ programs are compiled separately by NVRTC as relocatable device code (-rdc=true):
one holds the kernel, which calls an `extern __device__` function; the other defines that
function. nvJitLink resolves the call and writes one CUBIN, which is loaded and launched.

 1. relocatable code: the kernel as PTX and the function as a relocatable CUBIN, linked;
 2. link-time optimisation: both compiled to LTO-IR (-dlto, nvrtcGetLTOIR), linked with -lto, so
    nvJitLink optimises across the two programs (the call is inlined) before writing the CUBIN.

Each result is checked against numpy.

Exit status: 0 on a correct result, 1 on a wrong one, 3 when no CUDA device is available.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import CudaError, check, device_arch, release_device, select_device  # noqa: E402
from cuda.bindings import driver, nvjitlink, nvrtc  # noqa: E402

KERNEL_SOURCE = b"""
// defined in another program, resolved by the linker
extern __device__ float combine(float a, float b);

extern "C" __global__ void apply(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = combine(x[i], y[i]);
}
"""

FUNCTION_SOURCE = b"""
__device__ float combine(float a, float b)
{
    return a * a + 2.0f * b;
}
"""


def nvrtc_compile(source, name, options, output):
    """Compile one program; output is "ptx", "cubin" or "ltoir"; returns the image (bytes)."""
    prog = check(nvrtc.nvrtcCreateProgram(source, name, 0, [], []))
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        if int(err) != 0:
            log = bytearray(check(nvrtc.nvrtcGetProgramLogSize(prog)))
            check(nvrtc.nvrtcGetProgramLog(prog, log))
            raise CudaError(f"NVRTC could not compile {name.decode()}:\n"
                            f"{bytes(log).decode(errors='replace')}")
        size_fn, get_fn = {
            "ptx": (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX),
            "cubin": (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN),
            "ltoir": (nvrtc.nvrtcGetLTOIRSize, nvrtc.nvrtcGetLTOIR),
        }[output]
        image = bytearray(check(size_fn(prog)))
        check(get_fn(prog, image))
        return bytes(image)
    finally:
        check(nvrtc.nvrtcDestroyProgram(prog))


def jit_link(inputs, options):
    """Link [(InputType, bytes, name)] with nvJitLink (options and names are str, as
    cuda.bindings.nvjitlink takes them); returns (cubin, info log)."""
    handle = nvjitlink.create(len(options), options)
    try:
        try:
            for kind, data, name in inputs:
                nvjitlink.add_data(handle, kind, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = bytearray(nvjitlink.get_error_log_size(handle))
            nvjitlink.get_error_log(handle, log)
            raise CudaError(f"nvJitLink failed ({e}):\n{bytes(log).decode(errors='replace')}") from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        info = bytearray(nvjitlink.get_info_log_size(handle))
        nvjitlink.get_info_log(handle, info)
        return bytes(cubin), bytes(info).rstrip(b"\0").decode(errors="replace")
    finally:
        nvjitlink.destroy(handle)


def build_rdc(arch):
    """Variant 1: the kernel as relocatable PTX, the function as a relocatable CUBIN, linked."""
    ptx = nvrtc_compile(KERNEL_SOURCE, b"kernel.cu",
                        [f"--gpu-architecture=compute_{arch}".encode(), b"-rdc=true"], "ptx")
    obj = nvrtc_compile(FUNCTION_SOURCE, b"combine.cu",
                        [f"--gpu-architecture=sm_{arch}".encode(), b"-rdc=true"], "cubin")
    cubin, info = jit_link([(nvjitlink.InputType.PTX, ptx, "kernel.ptx"),
                            (nvjitlink.InputType.CUBIN, obj, "combine.cubin")],
                           [f"-arch=sm_{arch}"])
    return cubin, f"PTX ({len(ptx)} bytes) + relocatable CUBIN ({len(obj)} bytes)", info


def build_lto(arch):
    """Variant 2: both programs as LTO-IR, linked with link-time optimisation."""
    opts = [f"--gpu-architecture=compute_{arch}".encode(), b"-rdc=true", b"-dlto"]
    ir_kernel = nvrtc_compile(KERNEL_SOURCE, b"kernel.cu", opts, "ltoir")
    ir_function = nvrtc_compile(FUNCTION_SOURCE, b"combine.cu", opts, "ltoir")
    cubin, info = jit_link([(nvjitlink.InputType.LTOIR, ir_kernel, "kernel.ltoir"),
                            (nvjitlink.InputType.LTOIR, ir_function, "combine.ltoir")],
                           [f"-arch=sm_{arch}", "-lto"])
    return cubin, f"LTO-IR ({len(ir_kernel)} bytes) + LTO-IR ({len(ir_function)} bytes)", info


def run(cubin, hx, hy):
    """Load a linked CUBIN, launch apply() on (hx, hy) and return the output."""
    n = hx.size
    module = check(driver.cuModuleLoadData(cubin))
    kernel = check(driver.cuModuleGetFunction(module, b"apply"))
    dx = check(driver.cuMemAlloc(hx.nbytes))
    dy = check(driver.cuMemAlloc(hy.nbytes))
    dout = check(driver.cuMemAlloc(hx.nbytes))
    check(driver.cuMemcpyHtoD(dx, hx, hx.nbytes))
    check(driver.cuMemcpyHtoD(dy, hy, hy.nbytes))
    args = [np.array([int(dx)], dtype=np.uint64), np.array([int(dy)], dtype=np.uint64),
            np.array([int(dout)], dtype=np.uint64), np.array([n], dtype=np.int32)]
    params = np.array([a.ctypes.data for a in args], dtype=np.uint64)
    block = 256
    check(driver.cuLaunchKernel(kernel, (n + block - 1) // block, 1, 1, block, 1, 1, 0, 0,
                                params.ctypes.data, 0))
    out = np.empty_like(hx)
    check(driver.cuMemcpyDtoH(out, dout, out.nbytes))  # synchronous: waits for the kernel
    for d in (dx, dy, dout):
        check(driver.cuMemFree(d))
    check(driver.cuModuleUnload(module))
    return out


def main():
    n = 100_000
    dev, _ctx = select_device(0)
    name = check(driver.cuDeviceGetName(128, dev)).split(b"\0", 1)[0].decode()
    arch = device_arch(dev)
    major, minor = nvjitlink.version()
    print(f"jit_link on {name} (sm_{arch}), nvJitLink {major}.{minor}")

    rng = np.random.default_rng(7)
    hx = rng.standard_normal(n, dtype=np.float32)
    hy = rng.standard_normal(n, dtype=np.float32)
    expected = hx * hx + np.float32(2.0) * hy

    good = True
    for label, build in (("relocatable device code", build_rdc), ("link-time optimisation", build_lto)):
        cubin, inputs, info = build(arch)
        out = run(cubin, hx, hy)
        ok = np.allclose(out, expected, rtol=1e-5, atol=1e-5)
        good = good and ok
        print(f"{label}: {inputs} -> linked CUBIN of {len(cubin)} bytes; {n} elements, "
              f"max abs error {float(np.max(np.abs(out - expected))):.3g}: {'ok' if ok else 'WRONG RESULT'}")
        if info.strip():
            print("  nvJitLink info: " + info.strip().replace("\n", "\n  "))

    release_device(dev)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
