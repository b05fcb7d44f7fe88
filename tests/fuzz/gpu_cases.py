"""Documented-invalid inputs handed to the real driver and runtime, on a GPU:

    python -m tests.fuzz.gpu_cases [CASE ...]

NULL handles, handles after their destroy call, sizes past an allocation and devices that do not
exist, each where the CUDA documentation lists an error for it.  Each case is a call that our
wrappers pass through to the library (they are well-formed arguments: only the library can tell
that the object behind them is gone or too small).  The protocol is tests/fuzz/cases.py's: one
JSON line names the case before it runs, one says how it ended (["status", name] for a returned
status, ["raised", exception class] for a Python exception), and "DONE" ends the batch;
faulthandler is on, so a crash leaves its case as the last named line."""
import ctypes
import faulthandler
import json
import sys

from cuda.bindings import driver as cu
from cuda.bindings import nvrtc
from cuda.bindings import runtime as rt

SOURCE = b'extern "C" __global__ void k(int *p) { if (p) *p = 1; }'
BIG = 1 << 20          # bytes in each allocation the cases make
MISSING_DEVICE = 9999  # no machine has this many GPUs


def ok(r):
    assert r[0] == 0, r
    return r[1] if len(r) == 2 else r[1:]


class Env:
    """What the cases need: a context, a kernel, allocations; objects made and destroyed."""

    def __init__(self):
        ok(cu.cuInit(0))
        self.dev = ok(cu.cuDeviceGet(0))
        self.ctx = ok(cu.cuDevicePrimaryCtxRetain(self.dev))
        ok(cu.cuCtxSetCurrent(self.ctx))
        major = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev))
        minor = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev))
        prog = ok(nvrtc.nvrtcCreateProgram(SOURCE, b"k.cu", 0, [], []))
        ok(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()]))
        cubin = bytearray(ok(nvrtc.nvrtcGetCUBINSize(prog)))
        ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
        ok(nvrtc.nvrtcDestroyProgram(prog))
        self.cubin = bytes(cubin)
        self.mod = ok(cu.cuModuleLoadData(self.cubin))
        self.kernel = ok(cu.cuModuleGetFunction(self.mod, b"k"))
        self.dptr = ok(cu.cuMemAlloc(BIG))
        self.host = bytearray(4 * BIG)

    def launch(self, f, stream=0):
        return cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, ((0,), (ctypes.c_void_p,)), 0)

    # objects after their destroy call
    def dead_event(self):
        e = ok(cu.cuEventCreate(0))
        ok(cu.cuEventDestroy(e))
        return e

    def dead_stream(self):
        s = ok(cu.cuStreamCreate(0))
        ok(cu.cuStreamDestroy(s))
        return s

    def dead_module(self):
        m = ok(cu.cuModuleLoadData(self.cubin))
        f = ok(cu.cuModuleGetFunction(m, b"k"))
        ok(cu.cuModuleUnload(m))
        return m, f

    def dead_graph(self):
        g = ok(cu.cuGraphCreate(0))
        ok(cu.cuGraphDestroy(g))
        return g

    def dead_exec(self):
        g = ok(cu.cuGraphCreate(0))
        ok(cu.cuGraphAddEmptyNode(g, None, 0))
        x = ok(cu.cuGraphInstantiate(g, 0))
        ok(cu.cuGraphExecDestroy(x))
        ok(cu.cuGraphDestroy(g))
        return x

    def dead_ptr(self):
        p = ok(cu.cuMemAlloc(BIG))
        ok(cu.cuMemFree(p))
        return p

    def dead_context(self):
        params = cu.CUctxCreateParams()
        c = ok(cu.cuCtxCreate(params, 0, self.dev))
        ok(cu.cuCtxDestroy(c))
        ok(cu.cuCtxSetCurrent(self.ctx))
        return c

    def dead_library(self):
        lib = ok(cu.cuLibraryLoadData(self.cubin, None, None, 0, None, None, 0))
        ok(cu.cuLibraryUnload(lib))
        return lib

    def dead_pool(self):
        props = cu.CUmemPoolProps()
        props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        props.location.id = 0
        pool = ok(cu.cuMemPoolCreate(props))
        ok(cu.cuMemPoolDestroy(pool))
        return pool

    def dead_texture(self):
        rd = cu.CUDA_RESOURCE_DESC()
        rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
        rd.res.linear.devPtr = self.dptr
        rd.res.linear.format = cu.CUarray_format.CU_AD_FORMAT_FLOAT
        rd.res.linear.numChannels = 1
        rd.res.linear.sizeInBytes = BIG
        t = ok(cu.cuTexObjectCreate(rd, cu.CUDA_TEXTURE_DESC(), None))
        ok(cu.cuTexObjectDestroy(t))
        return t


A = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
NAME = cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
H2D = rt.cudaMemcpyKind.cudaMemcpyHostToDevice

# name -> call(env); the name says what is wrong
CASES = {
    # NULL handles (None) where the documentation lists an error
    "cuEventQuery(NULL)": lambda e: cu.cuEventQuery(None),
    "cuEventSynchronize(NULL)": lambda e: cu.cuEventSynchronize(None),
    "cuEventRecord(NULL event)": lambda e: cu.cuEventRecord(None, 0),
    "cuEventElapsedTime(NULL, NULL)": lambda e: cu.cuEventElapsedTime(None, None),
    "cuEventDestroy(NULL)": lambda e: cu.cuEventDestroy(None),
    "cuStreamDestroy(NULL)": lambda e: cu.cuStreamDestroy(None),
    "cuStreamWaitEvent(stream, NULL event)": lambda e: cu.cuStreamWaitEvent(0, None, 0),
    "cuModuleGetFunction(NULL module)": lambda e: cu.cuModuleGetFunction(None, b"k"),
    "cuModuleUnload(NULL)": lambda e: cu.cuModuleUnload(None),
    "cuLaunchKernel(NULL function)": lambda e: e.launch(None),
    "cuFuncGetAttribute(NULL function)": lambda e: cu.cuFuncGetAttribute(A, None),
    "cuFuncSetAttribute(NULL function)": lambda e: cu.cuFuncSetAttribute(None, A, 1),
    "cuCtxDestroy(NULL)": lambda e: cu.cuCtxDestroy(None),
    "cuCtxPushCurrent(NULL)": lambda e: cu.cuCtxPushCurrent(None),
    "cuGraphDestroy(NULL)": lambda e: cu.cuGraphDestroy(None),
    "cuGraphInstantiate(NULL graph)": lambda e: cu.cuGraphInstantiate(None, 0),
    "cuGraphAddEmptyNode(NULL graph)": lambda e: cu.cuGraphAddEmptyNode(None, None, 0),
    "cuGraphLaunch(NULL exec)": lambda e: cu.cuGraphLaunch(None, 0),
    "cuGraphExecDestroy(NULL)": lambda e: cu.cuGraphExecDestroy(None),
    "cuLibraryUnload(NULL)": lambda e: cu.cuLibraryUnload(None),
    "cuLibraryGetKernel(NULL library)": lambda e: cu.cuLibraryGetKernel(None, b"k"),
    "cuMemPoolDestroy(NULL)": lambda e: cu.cuMemPoolDestroy(None),
    "cuMemFree(NULL)": lambda e: cu.cuMemFree(0),
    "cuMemGetAddressRange(NULL)": lambda e: cu.cuMemGetAddressRange(0),
    "cuMemcpyHtoD(NULL dst)": lambda e: cu.cuMemcpyHtoD(0, e.host, 16),
    "cuMemcpyDtoH(NULL src)": lambda e: cu.cuMemcpyDtoH(e.host, 0, 16),
    "cuMemcpyDtoD(NULL, NULL)": lambda e: cu.cuMemcpyDtoD(0, 0, 16),
    "cuMemsetD8(NULL)": lambda e: cu.cuMemsetD8(0, 0, 16),
    "cuMemcpyHtoD(NULL host src)": lambda e: cu.cuMemcpyHtoD(e.dptr, None, 16),
    "cuPointerGetAttribute(NULL pointer)": lambda e: cu.cuPointerGetAttribute(
        cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, 0),
    "cuTexObjectDestroy(0)": lambda e: cu.cuTexObjectDestroy(0),
    "cuSurfObjectDestroy(0)": lambda e: cu.cuSurfObjectDestroy(0),
    "cudaStreamDestroy(NULL)": lambda e: rt.cudaStreamDestroy(None),
    "cudaEventQuery(NULL)": lambda e: rt.cudaEventQuery(None),
    "cudaEventDestroy(NULL)": lambda e: rt.cudaEventDestroy(None),
    "cudaFree(NULL)": lambda e: rt.cudaFree(0),
    "cudaGraphLaunch(NULL exec)": lambda e: rt.cudaGraphLaunch(None, 0),
    "cudaMemcpy(NULL dst, host src)": lambda e: rt.cudaMemcpy(0, e.host, 16, H2D),
    # handles after their destroy call
    "cuEventQuery(destroyed event)": lambda e: cu.cuEventQuery(e.dead_event()),
    "cuEventRecord(destroyed event)": lambda e: cu.cuEventRecord(e.dead_event(), 0),
    "cuEventSynchronize(destroyed event)": lambda e: cu.cuEventSynchronize(e.dead_event()),
    "cuEventDestroy(destroyed event)": lambda e: cu.cuEventDestroy(e.dead_event()),
    "cuStreamQuery(destroyed stream)": lambda e: cu.cuStreamQuery(e.dead_stream()),
    "cuStreamSynchronize(destroyed stream)": lambda e: cu.cuStreamSynchronize(e.dead_stream()),
    "cuStreamDestroy(destroyed stream)": lambda e: cu.cuStreamDestroy(e.dead_stream()),
    "cuLaunchKernel(on a destroyed stream)": lambda e: e.launch(e.kernel, e.dead_stream()),
    "cuModuleGetFunction(unloaded module)": lambda e: cu.cuModuleGetFunction(e.dead_module()[0], b"k"),
    "cuModuleUnload(unloaded module)": lambda e: cu.cuModuleUnload(e.dead_module()[0]),
    "cuLaunchKernel(function of an unloaded module)": lambda e: e.launch(e.dead_module()[1]),
    "cuFuncGetAttribute(function of an unloaded module)": lambda e: cu.cuFuncGetAttribute(A, e.dead_module()[1]),
    "cuGraphDestroy(destroyed graph)": lambda e: cu.cuGraphDestroy(e.dead_graph()),
    "cuGraphInstantiate(destroyed graph)": lambda e: cu.cuGraphInstantiate(e.dead_graph(), 0),
    "cuGraphLaunch(destroyed exec)": lambda e: cu.cuGraphLaunch(e.dead_exec(), 0),
    "cuGraphExecDestroy(destroyed exec)": lambda e: cu.cuGraphExecDestroy(e.dead_exec()),
    "cuMemFree(freed pointer)": lambda e: cu.cuMemFree(e.dead_ptr()),
    "cuMemcpyHtoD(to a freed pointer)": lambda e: cu.cuMemcpyHtoD(e.dead_ptr(), e.host, 16),
    "cuMemsetD8(freed pointer)": lambda e: cu.cuMemsetD8(e.dead_ptr(), 0, 16),
    "cuCtxSetCurrent(destroyed context)": lambda e: cu.cuCtxSetCurrent(e.dead_context()),
    "cuCtxPushCurrent(destroyed context)": lambda e: cu.cuCtxPushCurrent(e.dead_context()),
    "cuCtxDestroy(destroyed context)": lambda e: cu.cuCtxDestroy(e.dead_context()),
    "cuLibraryGetKernel(unloaded library)": lambda e: cu.cuLibraryGetKernel(e.dead_library(), b"k"),
    "cuLibraryUnload(unloaded library)": lambda e: cu.cuLibraryUnload(e.dead_library()),
    "cuMemPoolDestroy(destroyed pool)": lambda e: cu.cuMemPoolDestroy(e.dead_pool()),
    "cuMemAllocFromPoolAsync(destroyed pool)": lambda e: cu.cuMemAllocFromPoolAsync(16, e.dead_pool(), 0),
    "cuTexObjectDestroy(destroyed texture)": lambda e: cu.cuTexObjectDestroy(e.dead_texture()),
    "cudaEventQuery(destroyed event)": lambda e: rt.cudaEventQuery(e.dead_event()),
    "cudaStreamSynchronize(destroyed stream)": lambda e: rt.cudaStreamSynchronize(e.dead_stream()),
    "cudaFree(freed pointer)": lambda e: rt.cudaFree(e.dead_ptr()),
    # sizes past an allocation (device memory: the driver's to check)
    "cuMemcpyHtoD(past the allocation)": lambda e: cu.cuMemcpyHtoD(e.dptr, e.host, 2 * BIG),
    "cuMemcpyDtoH(past the allocation)": lambda e: cu.cuMemcpyDtoH(e.host, e.dptr, 2 * BIG),
    "cuMemcpyDtoD(past the allocation)": lambda e: cu.cuMemcpyDtoD(e.dptr, int(e.dptr) + BIG // 2, BIG),
    "cuMemsetD8(past the allocation)": lambda e: cu.cuMemsetD8(e.dptr, 0, 2 * BIG),
    "cuMemsetD32(past the allocation)": lambda e: cu.cuMemsetD32(e.dptr, 0, BIG),
    "cuMemcpyHtoD(from an offset past the end)": lambda e: cu.cuMemcpyHtoD(int(e.dptr) + BIG, e.host, 16),
    "cudaMemcpy(past the allocation)": lambda e: rt.cudaMemcpy(e.dptr, e.host, 2 * BIG, H2D),
    "cudaMemset(past the allocation)": lambda e: rt.cudaMemset(e.dptr, 0, 2 * BIG),
    "cuMemcpyHtoDAsync(past the allocation)": lambda e: cu.cuMemcpyHtoDAsync(e.dptr, e.host, 2 * BIG, 0),
    # host buffers too small (refused by the wrapper: overrides.BUFFER_EXTENT)
    "cuMemcpyHtoD(host buffer too small)": lambda e: cu.cuMemcpyHtoD(e.dptr, bytearray(16), BIG),
    "cuMemcpyDtoH(host buffer too small)": lambda e: cu.cuMemcpyDtoH(bytearray(16), e.dptr, BIG),
    "cudaMemcpy(host buffer too small)": lambda e: rt.cudaMemcpy(e.dptr, b"x", BIG, H2D),
    # devices that do not exist
    "cuDeviceGet(9999)": lambda e: cu.cuDeviceGet(MISSING_DEVICE),
    "cuDeviceGet(-1)": lambda e: cu.cuDeviceGet(-1),
    "cuDeviceGetAttribute(device 9999)": lambda e: cu.cuDeviceGetAttribute(NAME, MISSING_DEVICE),
    "cuDeviceGetAttribute(device -1)": lambda e: cu.cuDeviceGetAttribute(NAME, -1),
    "cuDeviceGetName(device 9999)": lambda e: cu.cuDeviceGetName(64, MISSING_DEVICE),
    "cuDeviceGetUuid(device 9999)": lambda e: cu.cuDeviceGetUuid(MISSING_DEVICE),
    "cuDeviceTotalMem(device 9999)": lambda e: cu.cuDeviceTotalMem(MISSING_DEVICE),
    "cuDeviceGetPCIBusId(device 9999)": lambda e: cu.cuDeviceGetPCIBusId(16, MISSING_DEVICE),
    "cuDevicePrimaryCtxRetain(device 9999)": lambda e: cu.cuDevicePrimaryCtxRetain(MISSING_DEVICE),
    "cuDeviceCanAccessPeer(device 9999)": lambda e: cu.cuDeviceCanAccessPeer(e.dev, MISSING_DEVICE),
    "cuCtxCreate(device 9999)": lambda e: cu.cuCtxCreate(cu.CUctxCreateParams(), 0, MISSING_DEVICE),
    "cudaSetDevice(9999)": lambda e: rt.cudaSetDevice(MISSING_DEVICE),
    "cudaSetDevice(-1)": lambda e: rt.cudaSetDevice(-1),
    "cudaGetDeviceProperties(9999)": lambda e: rt.cudaGetDeviceProperties(MISSING_DEVICE),
    "cudaDeviceGetAttribute(device 9999)": lambda e: rt.cudaDeviceGetAttribute(
        rt.cudaDeviceAttr.cudaDevAttrMultiProcessorCount, MISSING_DEVICE),
}


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(names):
    faulthandler.enable()
    env = Env()
    for name in names or list(CASES):
        _emit([name])
        try:
            r = CASES[name](env)
        except Exception as x:
            _emit(["raised", f"{type(x).__name__}: {x}"])
        else:
            _emit(["status", getattr(r[0], "name", repr(r[0]))])
        # a failed call must not leave an error behind for the next case
        cu.cuCtxSetCurrent(env.ctx)
        rt.cudaGetLastError()
    _emit("DONE")


if __name__ == "__main__":
    main(sys.argv[1:])
