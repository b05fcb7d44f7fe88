"""Small programs written against cuda.core and numba-cuda, the libraries built on cuda.bindings.

Each program uses the client library's public API only; the client's compiled modules reach
cuda.bindings through its Cython C-API (cydriver, cynvrtc, cynvjitlink, cynvvm) and its Python
modules.  A program raises on a wrong result.

    python -m tests.clients.programs [--gpu] [NAME ...]

prints one JSON line first with the cuda.bindings in use, then one per program:
{"name": ..., "ok": true|false, "error": "..."}.  Without --gpu only the programs that need no
GPU run (compilation and linking: NVRTC, nvJitLink, NVVM); with --gpu all of them.  Run it under
two packages (PYTHONPATH) to compare them: tests/test_clients.py does so without a GPU and
scripts/client_check.sh on a GPU machine.
"""
import ctypes
import json
import struct
import sys
import traceback

PROGRAMS = []          # (name, needs_gpu, function)

ARCH = "sm_90"         # the CPU programs' target; the GPU programs use the device's own

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void add_one(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}
'''

# Two translation units joined by nvJitLink: the kernel calls a device function of the other.
LTO_LIB = 'extern "C" __device__ float twice(float x) { return 2.0f * x; }'
LTO_KERNEL = r'''
extern "C" __device__ float twice(float x);
extern "C" __global__ void apply_twice(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = twice(y[i]);
}
'''

# NVVM IR (the LLVM 7 dialect libNVVM reads: typed pointers): a kernel storing 42 in *p.
NVVM_IR = '''target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define void @store42(float* %p) {
  store float 4.200000e+01, float* %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (float*)* @store42, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0, i32 3, i32 2}
'''


def program(needs_gpu):
    def register(fn):
        PROGRAMS.append((fn.__name__, needs_gpu, fn))
        return fn
    return register


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ------------------------------------------------------------------------------------------------
# no GPU needed: compilers and the linker


@program(needs_gpu=False)
def core_compile_cpp_to_cubin(arch=ARCH):
    from cuda.core import Program, ProgramOptions
    prog = Program(SAXPY, "c++", ProgramOptions(arch=arch, name="saxpy.cu", std="c++17"))
    cubin = prog.compile("cubin", name_expressions=("saxpy",))
    check(cubin.code[:4] == b"\x7fELF", "a cubin is an ELF image")
    check(b"saxpy" in cubin.code and b"add_one" in cubin.code, "both kernels are in the cubin")
    prog.close()
    return cubin


@program(needs_gpu=False)
def core_link_lto_with_nvjitlink(arch=ARCH):
    from cuda.core import Linker, LinkerOptions, Program, ProgramOptions
    opts = ProgramOptions(arch=arch, link_time_optimization=True, relocatable_device_code=True)
    lib = Program(LTO_LIB, "c++", opts).compile("ltoir")
    kern = Program(LTO_KERNEL, "c++", opts).compile("ltoir")
    check(lib.code_type == "ltoir" and len(lib.code) > 0, "LTO-IR out of NVRTC")
    cubin = Linker(lib, kern, options=LinkerOptions(arch=arch, link_time_optimization=True)).link("cubin")
    check(cubin.code[:4] == b"\x7fELF", "nvJitLink gives an ELF cubin")
    return cubin


@program(needs_gpu=False)
def core_compile_nvvm_ir_to_ptx(arch=ARCH):
    from cuda.core import Program, ProgramOptions
    obj = Program(NVVM_IR, "nvvm", ProgramOptions(arch=arch)).compile("ptx")
    text = obj.code.decode() if isinstance(obj.code, bytes) else obj.code
    check(".entry store42" in text and f".target {arch}" in text, "NVVM's PTX holds the kernel for the arch")
    return obj


@program(needs_gpu=False)
def core_compile_errors_carry_the_log(arch=ARCH):
    from cuda.core import Program, ProgramOptions
    try:
        Program('__global__ void k() { undeclared_name; }', "c++", ProgramOptions(arch=arch)).compile("cubin")
    except Exception as e:                       # cuda.core's NVRTCError
        check("undeclared_name" in str(e), f"the NVRTC log is in the error: {e}")
    else:
        raise AssertionError("bad C++ compiled")
    from cuda.bindings.nvvm import nvvmError
    try:
        Program(NVVM_IR.replace("ret void", "ret i32 0"), "nvvm", ProgramOptions(arch=arch)).compile("ptx")
    except nvvmError as e:
        check("ERROR" in str(e), f"the NVVM status is in the error: {e}")
    else:
        raise AssertionError("bad NVVM IR compiled")


@program(needs_gpu=False)
def numba_compile_kernel_to_ptx(arch=ARCH):
    from numba import cuda, float32

    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = a * x[i] + y[i]

    ptx, resty = cuda.compile_ptx(axpy, (float32, float32[:], float32[:]), cc=(9, 0))
    check(".target sm_90" in ptx and ".entry" in ptx and "fma.rn.f32" in ptx, "numba-cuda's PTX through NVVM")
    return ptx


# ------------------------------------------------------------------------------------------------
# on a GPU: cuda.core end to end


def _device():
    from cuda.core import Device
    dev = Device(0)
    dev.set_current()
    return dev


def _host_floats(buf, n):
    """A ctypes float array over a host-accessible (pinned) cuda.core Buffer."""
    return (ctypes.c_float * n).from_address(int(buf.handle))


def _pinned(n, values, stream):
    from cuda.core import PinnedMemoryResource
    buf = PinnedMemoryResource().allocate(4 * n, stream=stream)
    stream.sync()
    arr = _host_floats(buf, n)
    for i, v in enumerate(values):
        arr[i] = v
    return buf, arr


def _on_device(dev, values, stream):
    """A device buffer holding `values` (float32), with its pinned host copy: (device, host, array
    over host).  Read back with _read."""
    host, arr = _pinned(len(values), values, stream)
    dbuf = dev.allocate(4 * len(values), stream=stream)
    dbuf.copy_from(host, stream=stream)
    return dbuf, host, arr


def _read(dbuf, host, arr, stream):
    dbuf.copy_to(host, stream=stream)
    stream.sync()
    return arr


def _kernels(dev, code=SAXPY, fmt="cubin"):
    from cuda.core import ObjectCode, Program, ProgramOptions
    out = Program(code, "c++", ProgramOptions(arch=f"sm_{dev.arch}")).compile(fmt)
    if fmt == "ptx":
        out = ObjectCode.from_ptx(out.code)
    return out


@program(needs_gpu=True)
def core_launch_scalars_and_buffers():
    from cuda.core import LaunchConfig, launch
    dev = _device()
    s = dev.create_stream()
    n = 1000
    hx, _ = _pinned(n, [float(i) for i in range(n)], s)
    hy, y = _pinned(n, [1.0] * n, s)
    dx, dy = dev.allocate(4 * n, stream=s), dev.allocate(4 * n, stream=s)
    dx.copy_from(hx, stream=s)
    dy.copy_from(hy, stream=s)
    k = _kernels(dev).get_kernel("saxpy")
    check(k.num_arguments == 4, f"saxpy has 4 parameters, cuda.core read {k.num_arguments}")
    import numpy as np
    launch(s, LaunchConfig(grid=(n + 127) // 128, block=128), k, np.float32(3.0), dx, dy, np.int32(n))
    dy.copy_to(hy, stream=s)
    s.sync()
    check(all(y[i] == 3.0 * i + 1.0 for i in range(n)), f"saxpy result {list(y[:4])}")


@program(needs_gpu=True)
def core_load_ptx_and_launch():
    from cuda.core import LaunchConfig, launch
    import numpy as np
    dev = _device()
    s = dev.create_stream()
    n = 256
    dy, hy, y = _on_device(dev, [5.0] * n, s)
    k = _kernels(dev, fmt="ptx").get_kernel("add_one")
    launch(s, LaunchConfig(grid=1, block=n), k, dy, np.int32(n))
    _read(dy, hy, y, s)
    check(all(v == 6.0 for v in y), f"add_one through PTX {list(y[:4])}")


@program(needs_gpu=True)
def core_link_lto_and_launch():
    from cuda.core import LaunchConfig, launch
    import numpy as np
    dev = _device()
    s = dev.create_stream()
    n = 64
    dy, hy, y = _on_device(dev, [float(i) for i in range(n)], s)
    cubin = core_link_lto_with_nvjitlink(arch=f"sm_{dev.arch}")
    launch(s, LaunchConfig(grid=1, block=n), cubin.get_kernel("apply_twice"), dy, np.int32(n))
    _read(dy, hy, y, s)
    check(all(y[i] == 2.0 * i for i in range(n)), f"apply_twice after nvJitLink {list(y[:4])}")


@program(needs_gpu=True)
def core_nvvm_ir_launch():
    from cuda.core import LaunchConfig, launch
    dev = _device()
    s = dev.create_stream()
    dy, hy, y = _on_device(dev, [0.0], s)
    ptx = core_compile_nvvm_ir_to_ptx(arch=f"sm_{dev.arch}")
    launch(s, LaunchConfig(grid=1, block=1), ptx.get_kernel("store42"), dy)
    _read(dy, hy, y, s)
    check(y[0] == 42.0, f"store42 through NVVM wrote {y[0]}")


@program(needs_gpu=True)
def core_memory_resources_and_copies():
    from cuda.core import DeviceMemoryResource, PinnedMemoryResource
    dev = _device()
    s = dev.create_stream()
    n = 4096
    mr = DeviceMemoryResource(dev)
    check(mr.is_device_accessible and not mr.is_host_accessible, "device memory resource flags")
    a, b = mr.allocate(4 * n, stream=s), dev.memory_resource.allocate(4 * n, stream=s)
    check(a.size == 4 * n and a.device_id == dev.device_id, "buffer size and device")
    a.fill(struct.pack("<f", 1.0), stream=s)     # a 4-byte pattern: 1.0f in every word
    a.copy_to(b, stream=s)
    host = PinnedMemoryResource().allocate(4 * n, stream=s)
    check(host.is_host_accessible, "pinned memory is host accessible")
    b.copy_to(host, stream=s)
    s.sync()
    h = _host_floats(host, n)
    check(all(v == 1.0 for v in h), f"fill/copy round trip {list(h[:4])}")
    for buf in (a, b, host):
        buf.close(s)
    s.sync()


@program(needs_gpu=True)
def core_events_and_streams():
    from cuda.core import EventOptions, LaunchConfig, launch
    import numpy as np
    dev = _device()
    s1, s2 = dev.create_stream(), dev.create_stream()
    n = 1 << 16
    dy, hy, y = _on_device(dev, [0.0] * n, s1)
    k = _kernels(dev).get_kernel("add_one")
    timing = EventOptions(timing_enabled=True)
    start = s1.record(options=timing)
    for _ in range(10):
        launch(s1, LaunchConfig(grid=n // 256, block=256), k, dy, np.int32(n))
    done1 = s1.record(options=timing)
    s2.wait(done1)                               # s2's launch runs after s1's ten
    launch(s2, LaunchConfig(grid=n // 256, block=256), k, dy, np.int32(n))
    done2 = s2.record(options=timing)
    done2.sync()
    _read(dy, hy, y, s2)
    check(done1.is_done and done2.is_done, "events complete")
    check(done1 - start >= 0.0, "elapsed time of s1's work")
    check(y[0] == 11.0 and y[n - 1] == 11.0, f"ordered across streams: {y[0]}, {y[n - 1]}")
    check(int(s1.handle) != int(s2.handle), "two streams")


@program(needs_gpu=True)
def core_graph_capture_and_replay():
    from cuda.core import LaunchConfig, launch
    import numpy as np
    dev = _device()
    s = dev.create_stream()
    n = 512
    dy, hy, y = _on_device(dev, [0.0] * n, s)
    s.sync()
    k = _kernels(dev).get_kernel("add_one")
    gb = dev.create_graph_builder().begin_building()
    launch(gb, LaunchConfig(grid=2, block=256), k, dy, np.int32(n))
    launch(gb, LaunchConfig(grid=2, block=256), k, dy, np.int32(n))
    graph = gb.end_building().complete()
    for _ in range(3):
        graph.launch(s)
    _read(dy, hy, y, s)
    check(all(v == 6.0 for v in y), f"3 replays of a 2-launch graph: {list(y[:4])}")


@program(needs_gpu=True)
def core_occupancy_and_attributes():
    dev = _device()
    k = _kernels(dev).get_kernel("saxpy")
    blocks = k.occupancy.max_active_blocks_per_multiprocessor(256, 0)
    check(blocks >= 1, f"active blocks per SM {blocks}")
    best = k.occupancy.max_potential_block_size(0, 0)
    check(best.max_block_size >= 32 and best.min_grid_size >= 1, f"potential block size {best}")
    check(k.attributes.max_threads_per_block >= 256 and k.attributes.num_regs > 0, "kernel attributes")
    check(dev.properties.multiprocessor_count > 0 and dev.compute_capability.major >= 7, "device properties")


@program(needs_gpu=True)
def core_launch_errors():
    from cuda.core import LaunchConfig, launch
    import numpy as np
    dev = _device()
    s = dev.create_stream()
    k = _kernels(dev).get_kernel("add_one")
    dy = dev.allocate(4, stream=s)
    try:
        launch(s, LaunchConfig(grid=1, block=4096), k, dy, np.int32(1))     # over 1024 threads
        s.sync()
    except Exception as e:                      # cuda.core's CUDAError, or its ValueError check
        check("4096" in str(e) or "CUDA_ERROR" in str(e), f"launch error names the cause: {e}")
    else:
        raise AssertionError("a 4096-thread block launched")
    s.sync()                                    # the stream is still usable


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    gpu = "--gpu" in args
    names = [a for a in args if not a.startswith("--")]
    import cuda.bindings
    print(json.dumps({"cuda.bindings": cuda.bindings.__file__, "version": cuda.bindings.__version__}), flush=True)
    failed = 0
    for name, needs_gpu, fn in PROGRAMS:
        if (names and name not in names) or (needs_gpu and not gpu):
            continue
        try:
            fn()
        except BaseException as e:
            failed += 1
            tb = traceback.format_exc(limit=-3)
            print(json.dumps({"name": name, "ok": False, "error": f"{type(e).__name__}: {e}"[:2000],
                              "traceback": tb[-3000:]}), flush=True)
        else:
            print(json.dumps({"name": name, "ok": True}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
