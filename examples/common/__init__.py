"""Small helpers shared by the examples: error checks, device selection, NVRTC compile-and-load.

Examples put the `examples/` folder on sys.path and `import common`.
"""
import sys
from typing import Any, NoReturn, TypeVar, overload

from cuda.bindings import driver, nvrtc

T = TypeVar("T")
U = TypeVar("U")
V = TypeVar("V")
W = TypeVar("W")

# exit status of an example whose requirements (a CUDA device) are not met
EXIT_REQUIREMENT_NOT_MET = 3


class CudaError(RuntimeError):
    pass


def _error_text(err):
    if isinstance(err, driver.CUresult):
        try:
            _, name = driver.cuGetErrorName(err)
            _, text = driver.cuGetErrorString(err)
        except RuntimeError:  # no driver library to ask
            name = text = None
        name = name.decode() if name else err.name
        return f"{name}: {text.decode() if text else '(no description)'}"
    if isinstance(err, nvrtc.nvrtcResult):
        _, text = nvrtc.nvrtcGetErrorString(err)
        return text.decode() if text else err.name
    return repr(err)


# A tuple-style call returns (status, outputs...), each output None on failure: check() returns
# the outputs of a successful call, so a type checker knows they are not None.
@overload
def check(result: tuple[Any]) -> None: ...
@overload
def check(result: tuple[Any, T | None]) -> T: ...
@overload
def check(result: tuple[Any, T | None, U | None]) -> tuple[T, U]: ...
@overload
def check(result: tuple[Any, T | None, U | None, V | None]) -> tuple[T, U, V]: ...
@overload
def check(result: tuple[Any, T | None, U | None, V | None, W | None]) -> tuple[T, U, V, W]: ...
def check(result: tuple[Any, ...]) -> Any:
    """Raise CudaError unless `result[0]` is success; return the outputs.

    (err,) -> None; (err, x) -> x; (err, x, y, ...) -> (x, y, ...)
    """
    err = result[0]
    if int(err) != 0:
        raise CudaError(f"{type(err).__name__} {int(err)}: {_error_text(err)}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def requirement_not_met(why: str) -> NoReturn:
    print(f"requirement not met: {why}", file=sys.stderr)
    sys.exit(EXIT_REQUIREMENT_NOT_MET)


def select_device(ordinal=0):
    """Initialise the driver and return (device, primary context made current).

    Exits with EXIT_REQUIREMENT_NOT_MET when there is no usable CUDA device.
    """
    try:
        res = driver.cuInit(0)
    except RuntimeError as e:
        requirement_not_met(f"no CUDA device (the driver could not be loaded: {e})")
    if int(res[0]) != 0:
        requirement_not_met(f"no CUDA device (cuInit returned {res[0]!r})")
    count = check(driver.cuDeviceGetCount())
    if count <= ordinal:
        requirement_not_met(f"no CUDA device (found {count}, wanted device {ordinal})")
    dev = check(driver.cuDeviceGet(ordinal))
    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    return dev, ctx


def release_device(dev):
    check(driver.cuCtxSetCurrent(None))
    check(driver.cuDevicePrimaryCtxRelease(dev))


def device_arch(dev):
    attr = driver.CUdevice_attribute
    major = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return f"{major}{minor}"


def compile_source(source, arch, fmt="cubin", name=b"example.cu", options=()):
    """Compile CUDA C++ with NVRTC to a CUBIN (sm_ARCH) or PTX (compute_ARCH) image (bytes)."""
    target = f"--gpu-architecture={'sm' if fmt == 'cubin' else 'compute'}_{arch}".encode()
    opts = [target] + list(options)
    prog = check(nvrtc.nvrtcCreateProgram(source, name, 0, [], []))
    try:
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if int(res[0]) != 0:
            size = check(nvrtc.nvrtcGetProgramLogSize(prog))
            log = bytearray(size)
            check(nvrtc.nvrtcGetProgramLog(prog, log))
            raise CudaError(f"NVRTC compile failed:\n{bytes(log).decode(errors='replace')}")
        if fmt == "cubin":
            size = check(nvrtc.nvrtcGetCUBINSize(prog))
            image = bytearray(size)
            check(nvrtc.nvrtcGetCUBIN(prog, image))
        else:
            size = check(nvrtc.nvrtcGetPTXSize(prog))
            image = bytearray(size)
            check(nvrtc.nvrtcGetPTX(prog, image))
        return bytes(image)
    finally:
        check(nvrtc.nvrtcDestroyProgram(prog))


def load_module(source, dev, fmt="cubin"):
    """Compile `source` for `dev` and load it; returns the CUmodule."""
    image = compile_source(source, device_arch(dev), fmt=fmt)
    return check(driver.cuModuleLoadData(image))
