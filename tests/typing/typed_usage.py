"""Type-checked, not run: what a type checker must infer from the stubs (`assert_type` fails the
check when the inferred type differs).  tests/test_typing.py runs basedpyright and mypy over it."""
from typing import assert_type

import numpy as np

import cuda.bindings
from cuda.bindings import __cuda_version__, __version__, driver, nvjitlink, nvrtc, nvvm, runtime
from cuda.bindings.checked import CUDAError, CUDARuntimeError, NVRTCError
from cuda.bindings.checked import driver as cdriver
from cuda.bindings.checked import nvrtc as cnvrtc
from cuda.bindings.checked import runtime as cruntime


def tuple_style() -> None:
    assert_type(driver.cuInit(0), tuple[driver.CUresult])
    err, dev = driver.cuDeviceGet(0)
    assert_type(err, driver.CUresult)
    assert_type(dev, driver.CUdevice | None)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)     # the same in every CUDA release's stubs
    assert_type(ctx, driver.CUcontext | None)
    err, dptr = driver.cuMemAlloc(1 << 20)
    assert_type(dptr, driver.CUdeviceptr | None)
    host = np.zeros(256, dtype=np.float32)
    err, = driver.cuMemcpyHtoD(dptr, host, host.nbytes)
    err, stream = driver.cuStreamCreate(0)
    err, = driver.cuMemcpyDtoHAsync(host, dptr, host.nbytes, stream)
    err, value = driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    assert_type(value, int | None)
    err, name = driver.cuDeviceGetName(64, dev)
    assert_type(name, bytes | None)
    err, = driver.cuMemFree(dptr)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(err.name)

    # the runtime takes the driver's handles where the C type is the same
    rerr, = runtime.cudaStreamSynchronize(stream)
    assert_type(rerr, runtime.cudaError_t)
    rerr, prop = runtime.cudaGetDeviceProperties(0)
    if prop is not None:
        assert_type(prop.major, int)
        assert_type(prop.name, bytes)
    rerr, rptr = runtime.cudaMalloc(256)
    assert_type(rptr, int | None)
    rerr, = runtime.cudaMemcpy(rptr, host, 256, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice)
    # a CUDA array goes where C takes its const twin (cudaArray_const_t, cudaMipmappedArray_const_t)
    kind = runtime.cudaChannelFormatKind.cudaChannelFormatKindFloat
    rerr, fmt = runtime.cudaCreateChannelDesc(32, 0, 0, 0, kind)
    rerr, carray = runtime.cudaMallocArray(fmt, 16, 16, 0)
    assert_type(carray, runtime.cudaArray_t | None)
    to_host, on_device = runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice
    rerr, = runtime.cudaMemcpy2DFromArray(host, 64, carray, 0, 0, 64, 1, to_host)
    rerr, = runtime.cudaMemcpy2DFromArrayAsync(host, 64, carray, 0, 0, 64, 1, to_host, stream)
    rerr, = runtime.cudaMemcpy2DArrayToArray(carray, 0, 1, carray, 0, 0, 64, 1, on_device)
    rerr, = runtime.cudaMemcpyFromArray(host, carray, 0, 0, 64, to_host)
    rerr, = runtime.cudaMemcpyFromArrayAsync(host, carray, 0, 0, 64, to_host, stream)
    rerr, = runtime.cudaMemcpyArrayToArray(carray, 0, 1, carray, 0, 0, 64, on_device)
    rerr, channels = runtime.cudaGetChannelDesc(carray)
    assert_type(channels, runtime.cudaChannelFormatDesc | None)
    rerr, mipmapped = runtime.cudaMallocMipmappedArray(fmt, runtime.make_cudaExtent(16, 16, 0), 2, 0)
    rerr, level = runtime.cudaGetMipmappedArrayLevel(mipmapped, 1)
    assert_type(level, runtime.cudaArray_t | None)

    copy = driver.CUDA_MEMCPY2D()
    copy.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    copy.srcHost = host
    copy.dstDevice = 0
    assert_type(copy.dstDevice, driver.CUdeviceptr)
    assert_type(copy.srcMemoryType, driver.CUmemorytype | None)
    err, = driver.cuMemcpy2D(copy)
    # a CUDA array is made from one descriptor
    desc = driver.CUDA_ARRAY_DESCRIPTOR()
    desc.Format = driver.CUarray_format.CU_AD_FORMAT_FLOAT
    err, array = driver.cuArrayCreate(desc)
    assert_type(array, driver.CUarray | None)

    nerr, prog = nvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])
    assert_type(prog, nvrtc.nvrtcProgram | None)
    assert_type(nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=sm_90"]), tuple[nvrtc.nvrtcResult])
    nerr, size = nvrtc.nvrtcGetPTXSize(prog)
    assert_type(size, int | None)


def context_less_kernels(library: driver.CUlibrary, rkernel: runtime.cudaKernel_t) -> None:
    # a CUkernel goes where the launch and occupancy calls take a CUfunction (the driver documents it)
    err, kernel = driver.cuLibraryGetKernel(library, b"saxpy")
    assert_type(kernel, driver.CUkernel | None)
    err, = driver.cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, None, None, None)
    err, = driver.cuLaunchCooperativeKernel(rkernel, 1, 1, 1, 32, 1, 1, 0, None, None)
    err, = driver.cuLaunchKernelEx(driver.CUlaunchConfig(), kernel, None, None)
    err, blocks = driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, 32, 0)
    cdriver.cuLaunchKernel(rkernel, 1, 1, 1, 32, 1, 1, 0, None, None, None)


def versions() -> None:
    # the package's versions are public names (imported without reportPrivateImportUsage)
    release: str = __cuda_version__
    version: str = cuda.bindings.__version__
    print(release, version, __version__, cuda.bindings.__cuda_version__)


def checked_style() -> None:
    assert_type(cdriver.cuInit(0), None)
    dev = cdriver.cuDeviceGet(0)
    assert_type(dev, driver.CUdevice)
    ctx = cdriver.cuDevicePrimaryCtxRetain(dev)     # the same in every CUDA release
    assert_type(ctx, driver.CUcontext)
    dptr = cdriver.cuMemAlloc(1024)
    assert_type(dptr, driver.CUdeviceptr)
    cdriver.cuMemFree(dptr)
    assert_type(cdriver.cuCtxGetStreamPriorityRange(), tuple[int, int])
    assert_type(cruntime.cudaGetDeviceProperties(0).major, int)
    assert_type(cruntime.cudaMalloc(16), int)
    prog = cnvrtc.nvrtcCreateProgram(b"__global__ void k() {}", b"k.cu", 0, [], [])
    try:
        cnvrtc.nvrtcCompileProgram(prog, 0, [])
    except NVRTCError as e:
        assert_type(e.status, nvrtc.nvrtcResult)
        assert_type(e.log, str | None)
    try:
        cdriver.cuCtxSynchronize()
    except CUDAError as e:
        assert_type(e.status, driver.CUresult)
        assert_type(e.message, str | None)
    except CUDARuntimeError as e:
        assert_type(e.status, runtime.cudaError_t)
    # the checked modules' classes are the tuple-style modules' own
    assert_type(cdriver.CUresult, type[driver.CUresult])


def snake_case_modules() -> None:
    assert_type(nvjitlink.version(), tuple[int, int])
    handle = nvjitlink.create(2, ["-arch=sm_90", "-lto"])
    assert_type(handle, int)
    nvjitlink.add_data(handle, nvjitlink.InputType.PTX, b"", 0, "empty")
    assert_type(nvjitlink.get_linked_cubin_size(handle), int)
    assert_type(nvvm.ir_version(), tuple[int, int, int, int])
    try:
        nvvm.compile_program(nvvm.create_program(), 0, [])
    except nvvm.nvvmError as e:
        assert_type(e.status, nvvm.Result | int)
