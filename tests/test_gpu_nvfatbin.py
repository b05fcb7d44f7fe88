"""A fatbin built by nvFatbin from NVRTC's PTX, cubin and LTO-IR, loaded by the driver
(cuModuleLoadData) and a kernel of it launched."""
import ctypes

import numpy as np
import pytest

from _support import LazyModule, driver, ok
from test_nvfatbin import compiled

nvfatbin = LazyModule("cuda.bindings.nvfatbin")
pytestmark = pytest.mark.gpu


def test_fatbin_loads_and_runs():
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    major = ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    arch = f"{major}{minor}"
    ptx = compiled([f"-arch=compute_{arch}".encode()], "PTX")
    cubin = compiled([f"-arch=sm_{arch}".encode()], "CUBIN")
    ltoir = compiled([f"-arch=sm_{arch}".encode(), b"-dlto"], "LTOIR")
    h = nvfatbin.create([], 0)
    try:
        nvfatbin.add_ptx(h, ptx, len(ptx), arch, "twice.ptx", "")
        nvfatbin.add_cubin(h, cubin, len(cubin), arch, "twice.cubin")
        nvfatbin.add_ltoir(h, ltoir, len(ltoir), arch, "twice.ltoir", "")
        fatbin = bytearray(nvfatbin.size(h))
        nvfatbin.get(h, fatbin)
    finally:
        nvfatbin.destroy(h)
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    try:
        ok(driver.cuCtxSetCurrent(ctx))
        module = ok(driver.cuModuleLoadData(bytes(fatbin)))
        kernel = ok(driver.cuModuleGetFunction(module, b"twice"))
        n = 1000
        host = np.arange(n, dtype=np.float32)
        d = ok(driver.cuMemAlloc(host.nbytes))
        ok(driver.cuMemcpyHtoD(d, host, host.nbytes))
        ok(driver.cuLaunchKernel(kernel, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                                 ((d, n), (None, ctypes.c_uint)), 0))
        ok(driver.cuCtxSynchronize())
        out = np.empty_like(host)
        ok(driver.cuMemcpyDtoH(out, d, out.nbytes))
        assert np.array_equal(out, host * 2)
        ok(driver.cuMemFree(d))
        ok(driver.cuModuleUnload(module))
    finally:
        ok(driver.cuDevicePrimaryCtxRelease(dev))
