"""A million calls leak nothing: representative functions (handle outputs, struct arguments and
outputs, strings, kernel parameters in every form, graph and NVRTC objects, failed calls and the
checked style's exceptions) called in a child process on the stand-in libcuda.so.1 (status 0, so
the wrappers build every output), with the resident set size and the number of live Python
objects read after a warm-up and at the end."""
import json
import textwrap

import pytest

from _support import run_python, stand_in_env

CALLS = 1_000_000
RSS_BOUND = 2 * 1024 * 1024     # bytes the process may grow by after the warm-up
OBJECTS_BOUND = 100             # live objects (gc-tracked) it may gain

# The end of each program: `warm` calls from its list `calls` (free lists, caches, lazy classes
# settle), then as many as the command line says, with the RSS and live objects read in between.
MEASURE = textwrap.dedent('''
    def rss():
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * 4096

    def run(n):
        for _ in range(n // len(calls)):
            for c in calls:
                c()

    run(warm)
    gc.collect()
    r0, o0 = rss(), len(gc.get_objects())
    run(int(sys.argv[1]))
    gc.collect()
    print(json.dumps({"rss": rss() - r0, "objects": len(gc.get_objects()) - o0, "kinds": len(calls)}))
''')


def _measure(tmp_path, program, what, env=None, timeout=600):
    """Run `program` + MEASURE for CALLS calls; assert the growth is inside the bounds."""
    script = tmp_path / "leaks.py"
    script.write_text(program + MEASURE)
    r = run_python([str(script), str(CALLS)], env=env, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    grown = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"{what}: {CALLS:,} calls of {grown['kinds']} kinds: RSS {grown['rss']:+,} bytes, "
          f"objects {grown['objects']:+,}")
    assert grown["rss"] <= RSS_BOUND, grown
    assert grown["objects"] <= OBJECTS_BOUND, grown


PROGRAM = textwrap.dedent('''
    import ctypes, gc, json, sys
    import numpy as np
    from cuda.bindings import driver as D, nvrtc, runtime
    from cuda.bindings.checked import driver as CD, nvrtc as CN, NVRTCError

    D.cuInit(0)
    prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])[1]
    copy = D.CUDA_MEMCPY2D()
    host = np.zeros(16, np.float32)
    table = np.array([host.ctypes.data] * 4, np.uint64)
    params = ((D.CUdeviceptr(1 << 20), 2.0, 7, host.ctypes.data),
              (None, ctypes.c_float, ctypes.c_int, ctypes.c_void_p))
    attrs = D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    calls = [
        lambda: D.cuStreamCreate(0),                     # a handle output
        lambda: D.cuCtxGetCurrent(),
        lambda: D.cuMemAlloc(64),                        # an integer-type output
        lambda: D.cuDeviceGetAttribute(attrs, 0),
        lambda: D.cuMemcpy2D(copy),                      # a struct argument
        lambda: D.cuPointerGetAttributes(2, [D.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT,
                                             D.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER], 0),
        lambda: D.cuDeviceGetName(64, 0),                # a string output
        lambda: D.cuGetErrorString(D.CUresult.CUDA_ERROR_INVALID_VALUE),
        lambda: D.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, params, 0),   # kernel parameters:
        lambda: D.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, table, 0),    # every form
        lambda: D.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, table.ctypes.data, 0),
        lambda: D.cuGraphCreate(0),                      # graph objects
        lambda: D.cuGraphAddEmptyNode(0, [D.CUgraphNode(), D.CUgraphNode()], 2),
        lambda: nvrtc.nvrtcGetProgramLogSize(prog),      # NVRTC, real library
        lambda: nvrtc.nvrtcGetPTXSize(0),                # a failed call: a status
        lambda: CD.cuCtxGetCurrent(),                    # the checked style
        lambda: CN.nvrtcVersion(),
    ]

    def failing():
        try:
            CN.nvrtcGetPTXSize(0)                        # a failed checked call: an exception
        except NVRTCError:
            pass
    calls.append(failing)
    warm = 100_000
''')


def test_a_million_calls_leak_nothing(stand_in_driver, tmp_path):
    _measure(tmp_path, PROGRAM, "leaks", env=stand_in_env(stand_in_driver, 0))


GPU_PROGRAM = textwrap.dedent('''
    import ctypes, gc, json, sys
    import numpy as np
    from cuda.bindings import driver as D, nvrtc, runtime
    from cuda.bindings.checked import driver as CD, CUDAError

    def ok(r):
        assert r[0] == 0, r
        return r[1] if len(r) == 2 else None

    ok(D.cuInit(0))
    dev = ok(D.cuDeviceGet(0))
    ctx = ok(D.cuDevicePrimaryCtxRetain(dev))
    ok(D.cuCtxSetCurrent(ctx))
    cc = [ok(D.cuDeviceGetAttribute(a, dev)) for a in (
        D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
        D.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)]
    src = b'extern "C" __global__ void k(float *x, float a, int n) { if (threadIdx.x < n) x[threadIdx.x] *= a; }'
    prog = ok(nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], []))
    ok(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{cc[0]}{cc[1]}".encode()]))
    cubin = bytearray(ok(nvrtc.nvrtcGetCUBINSize(prog)))
    ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
    mod = ok(D.cuModuleLoadData(bytes(cubin)))
    k = ok(D.cuModuleGetFunction(mod, b"k"))
    stream = ok(D.cuStreamCreate(0))
    dptr = ok(D.cuMemAlloc(64 * 4))
    host = np.ones(64, np.float32)
    x, a, n = ctypes.c_uint64(int(dptr)), ctypes.c_float(1.0), ctypes.c_int(64)
    table = np.array([ctypes.addressof(x), ctypes.addressof(a), ctypes.addressof(n)], np.uint64)
    params = ((dptr, 1.0, 64), (None, ctypes.c_float, ctypes.c_int))
    graph = ok(D.cuGraphCreate(0))
    ok(D.cuGraphAddEmptyNode(graph, None, 0))
    graph_exec = ok(D.cuGraphInstantiate(graph, 0))

    def stream_cycle():
        ok(D.cuStreamDestroy(ok(D.cuStreamCreate(0))))

    def event_cycle():
        e = ok(D.cuEventCreate(0))
        ok(D.cuEventRecord(e, stream))
        D.cuEventQuery(e)
        ok(D.cuEventDestroy(e))

    def graph_cycle():
        g = ok(D.cuGraphCreate(0))
        ok(D.cuGraphAddEmptyNode(g, None, 0))
        ok(D.cuGraphDestroy(g))

    def program_cycle():
        p = ok(nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], []))
        ok(nvrtc.nvrtcGetProgramLogSize(p))
        ok(nvrtc.nvrtcDestroyProgram(p))

    def failing_checked():
        try:
            CD.cuEventQuery(None)                         # a failed checked call: an exception
        except CUDAError:
            pass

    calls = [
        lambda: ok(D.cuMemFree(ok(D.cuMemAlloc(256)))),  # integer-type outputs, real allocations
        stream_cycle, event_cycle, graph_cycle, program_cycle,   # handle outputs, graph, NVRTC objects
        lambda: ok(D.cuMemcpyHtoDAsync(dptr, host, host.nbytes, stream)),
        lambda: ok(D.cuMemcpyDtoHAsync(host, dptr, host.nbytes, stream)),
        lambda: ok(D.cuLaunchKernel(k, 1, 1, 1, 64, 1, 1, 0, stream, params, 0)),   # kernel parameters:
        lambda: ok(D.cuLaunchKernel(k, 1, 1, 1, 64, 1, 1, 0, stream, table, 0)),    # every form
        lambda: ok(D.cuLaunchKernel(k, 1, 1, 1, 64, 1, 1, 0, stream, table.ctypes.data, 0)),
        lambda: ok(D.cuGraphLaunch(graph_exec, stream)),
        lambda: ok(D.cuFuncGetAttribute(D.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, k)),
        lambda: ok(D.cuDeviceGetName(64, dev)),          # a string output
        lambda: ok(runtime.cudaGetDeviceProperties(0)),  # a struct output
        lambda: D.cuEventQuery(None),                    # a failed call: a status
        failing_checked,
        lambda: ok(D.cuStreamSynchronize(stream)),
    ]
    warm = 50_000
''')


@pytest.mark.gpu
def test_a_million_calls_on_the_gpu_leak_nothing(tmp_path):
    """The same on a GPU with the real driver: objects made and destroyed, copies, launches in
    every kernel-parameter form, graphs, NVRTC programs, failed calls."""
    _measure(tmp_path, GPU_PROGRAM, "leaks on the GPU", timeout=900)
