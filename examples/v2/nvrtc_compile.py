"""Run-time compilation with NVRTC through the second API (`cuda.bindings._v2.nvrtc`): a templated
kernel compiled to PTX and to CUBIN, the mangled name of each instantiation found through name
expressions, a source with a mistake refused with the compiler's log, then both images loaded on
the device and the kernels found in them.

NVRTC needs no device: everything up to loading the images runs without one.

Exit status: 0 when every step gives what it should, 1 otherwise, 3 when no CUDA device is available.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common.v2_helpers import (PTX_TARGET, CompileError, compile_cuda, device_name,  # noqa: E402
                               device_target, first_device, release_primary_context, text,
                               use_primary_context)
import cuda.bindings._v2.driver as driver  # noqa: E402
import cuda.bindings._v2.nvrtc as nvrtc  # noqa: E402

FILL = b"""
template <typename T>
__global__ void fill(T *out, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
"""
INSTANCES = ["fill<float>", "fill<int>"]

# `count` is never declared: NVRTC refuses this and says so in its log
BROKEN = b"""
extern "C" __global__ void broken(float *out)
{
    out[threadIdx.x] = count;
}
"""


def main():
    ok = True
    major, minor = nvrtc.version()
    archs = list(nvrtc.get_supported_archs())
    print(f"NVRTC {major}.{minor}: {len(archs)} real architectures, sm_{archs[0]} to sm_{archs[-1]}")

    ptx, lowered = compile_cuda(FILL, PTX_TARGET, name=b"fill.cu", name_expressions=INSTANCES)
    ptx_text = text(ptx)
    print(f"PTX for {PTX_TARGET}: {len(ptx)} bytes; lowered names: "
          + ", ".join(f"{k} -> {v.decode()}" for k, v in lowered.items()))
    for expr, mangled in lowered.items():
        if f".entry {mangled.decode()}(" not in ptx_text:
            print(f"WRONG: the PTX has no entry {mangled.decode()} for {expr}")
            ok = False

    cubin, _ = compile_cuda(FILL, f"sm_{archs[0]}", name=b"fill.cu", name_expressions=INSTANCES)
    if cubin[:4] != b"\x7fELF":
        print(f"WRONG: the CUBIN for sm_{archs[0]} is not an ELF image")
        ok = False
    print(f"CUBIN for sm_{archs[0]}: {len(cubin)} bytes")

    # a failed compile raises CompilationError (an NvrtcError, whose status is the NVRTC result);
    # the program log says what is wrong
    prog = nvrtc.create_program(BROKEN, b"broken.cu")
    try:
        nvrtc.compile_program(prog, [f"--gpu-architecture={PTX_TARGET}".encode()])
        print("WRONG: the broken source compiled")
        ok = False
    except nvrtc.NvrtcError as e:
        log = text(nvrtc.get_program_log(prog))
        first = log.splitlines()[0] if log else ""
        print(f"broken.cu refused: {type(e).__name__}, status {nvrtc.Result(e.status).name}; log: {first}")
        if e.status != nvrtc.Result.ERROR_COMPILATION or '"count" is undefined' not in log:
            print(f"WRONG: expected ERROR_COMPILATION and a log naming `count`, got {e.status} and:\n{log}")
            ok = False
    finally:
        nvrtc.destroy_program(prog)

    # the same through the helper, which hands the log on in its exception
    try:
        compile_cuda(BROKEN, PTX_TARGET, name=b"broken.cu")
        print("WRONG: the broken source compiled through compile_cuda")
        ok = False
    except CompileError as e:
        if "broken.cu" not in e.log:
            print(f"WRONG: compile_cuda's error carries no log naming broken.cu:\n{e.log}")
            ok = False

    # the device: load the PTX (JIT-compiled by the driver) and a CUBIN for its own architecture
    dev = first_device(0)
    use_primary_context(dev)
    target = device_target(dev)
    native, native_names = compile_cuda(FILL, target, name=b"fill.cu", name_expressions=INSTANCES)
    for label, image, names in (("PTX", ptx, lowered), (f"CUBIN {target}", native, native_names)):
        module = driver.module_load_data(image)
        for expr, mangled in names.items():
            kernel = driver.module_get_function(module, mangled)
            regs = driver.func_get_attribute(driver.FunctionAttribute.NUM_REGS, kernel)
            print(f"{device_name(dev)}: {label} module has {expr} ({regs} registers)")
        driver.module_unload(module)
    release_primary_context(dev)
    print("ok" if ok else "WRONG RESULT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
