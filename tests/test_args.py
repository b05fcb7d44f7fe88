"""Argument conversion happens before the driver is needed: wrong Python types raise TypeError
even on a machine without libcuda.so.1 (no GPU needed)."""
import pytest

from _support import driver, nvrtc


@pytest.mark.parametrize(
    "call",
    [
        lambda: driver.cuDeviceGetName("x", 0),
        lambda: driver.cuDeviceGetName(128, "device zero"),
        lambda: driver.cuStreamQuery("abc"),
        lambda: driver.cuStreamSynchronize(object()),
        lambda: driver.cuMemAlloc("lots"),
        lambda: driver.cuModuleGetFunction(driver.CUmodule(), 42),
        lambda: driver.cuCtxSetCurrent([1]),
    ],
    ids=[
        "cuDeviceGetName-length",
        "cuDeviceGetName-dev",
        "cuStreamQuery",
        "cuStreamSynchronize",
        "cuMemAlloc",
        "cuModuleGetFunction-name",
        "cuCtxSetCurrent",
    ],
)
def test_driver_wrong_python_type_raises_typeerror(call):
    with pytest.raises(TypeError):
        call()


def test_nvrtc_wrong_python_type_raises_typeerror():
    with pytest.raises(TypeError):
        nvrtc.nvrtcCreateProgram("source as str, not bytes", b"k.cu", 0, [], [])
    with pytest.raises(TypeError):
        nvrtc.nvrtcGetPTXSize("not a program")
