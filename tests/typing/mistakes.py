"""Type-checked, not run: each line marked `# expect: <pyright rule> <mypy code>` is a mistake the
stubs must let a type checker report, with that rule (tests/test_typing.py compares the reports
with these marks, both ways)."""
from cuda.bindings import driver, runtime
from cuda.bindings.checked import driver as cdriver


def mistakes(stream: driver.CUstream) -> None:
    # forgetting to unpack the (status, value) tuple
    dptr = driver.cuMemAlloc(1024)
    driver.cuMemFree(dptr)  # expect: reportArgumentType arg-type
    props = runtime.cudaGetDeviceProperties(0)
    print(props.major)  # expect: reportAttributeAccessIssue attr-defined
    # a wrong argument type
    driver.cuMemAlloc("1024")  # expect: reportArgumentType arg-type
    driver.cuCtxSetCurrent(stream)  # expect: reportArgumentType arg-type
    # a member of the wrong enum
    driver.cuDeviceGetAttribute(driver.CUresult.CUDA_SUCCESS, 0)  # expect: reportArgumentType arg-type
    runtime.cudaMemcpy(0, 0, 8, driver.CUmemorytype.CU_MEMORYTYPE_HOST)  # expect: reportArgumentType arg-type
    # an output used without checking the status (None on failure)
    err, prop = runtime.cudaGetDeviceProperties(0)
    print(prop.major)  # expect: reportOptionalMemberAccess union-attr
    # a missing argument, a misspelt function, a field of the wrong type
    driver.cuInit()  # expect: reportCallIssue call-arg
    driver.cuMemAlocc(16)  # expect: reportAttributeAccessIssue attr-defined
    copy = driver.CUDA_MEMCPY2D()
    copy.WidthInBytes = "wide"  # expect: reportAttributeAccessIssue assignment
    # a CUkernel where only a CUfunction goes (the launch and occupancy calls take both)
    kerr, kernel = driver.cuLibraryGetKernel(0, b"saxpy")
    driver.cuFuncGetName(kernel)  # expect: reportArgumentType arg-type
    # the checked style returns the value itself, not a tuple
    err, ptr = cdriver.cuMemAlloc(16)  # expect: reportGeneralTypeIssues misc
    # a list where the call reads one struct (the count counts something else)
    desc = runtime.cudaChannelFormatDesc()
    runtime.cudaMallocMipmappedArray([desc], runtime.make_cudaExtent(4, 4, 0), 2, 0)  # expect: reportArgumentType arg-type
