"""Helpers for the examples of examples/v2/, written against the second API, `cuda.bindings._v2`:
snake_case functions that return their outputs and raise on a failed status (`DriverError`,
`NvrtcError` and a subclass per status), handles and device pointers as plain ints.

Examples put the `examples/` folder on sys.path and `from common.v2_helpers import ...`.
"""
import cuda.bindings._v2.driver as driver
import cuda.bindings._v2.nvrtc as nvrtc

from . import requirement_not_met

# PTX for the oldest architecture CUDA 13 supports runs on every newer device through the JIT
PTX_TARGET = "compute_75"


class CompileError(RuntimeError):
    """NVRTC refused the source; `log` is the compiler's program log."""

    def __init__(self, message, log):
        super().__init__(message)
        self.log = log


def first_device(ordinal=0):
    """Initialise the driver and return the device handle (an int) of `ordinal`.

    Exits with "requirement not met" (status 3) when there is no usable CUDA device: no driver
    library to load (a RuntimeError), a driver that fails to initialise (a DriverError, e.g.
    NoDeviceError), or too few devices."""
    try:
        driver.init(0)
        count = driver.device_get_count()
    except driver.DriverError as e:
        requirement_not_met(f"no CUDA device (init failed: {type(e).__name__}, status {int(e.status)})")
    except (RuntimeError, OSError) as e:
        requirement_not_met(f"no CUDA device (the driver could not be loaded: {e})")
    if count <= ordinal:
        requirement_not_met(f"no CUDA device (found {count}, wanted device {ordinal})")
    return driver.device_get(ordinal)


def use_primary_context(dev):
    """Retain the device's primary context and make it current; returns the context (an int)."""
    ctx = driver.device_primary_ctx_retain(dev)
    driver.ctx_set_current(ctx)
    return ctx


def release_primary_context(dev):
    driver.ctx_set_current(0)
    driver.device_primary_ctx_release_v2(dev)


def device_name(dev):
    return driver.device_get_name(256, dev).split(b"\0", 1)[0].decode()


def device_target(dev):
    """The device's real architecture as NVRTC names it, e.g. "sm_90"."""
    attr = driver.DeviceAttribute
    major = driver.device_get_attribute(attr.COMPUTE_CAPABILITY_MAJOR, dev)
    minor = driver.device_get_attribute(attr.COMPUTE_CAPABILITY_MINOR, dev)
    return f"sm_{major}{minor}"


def text(buf):
    """NVRTC's logs and PTX come back as bytes ending in a NUL: the text before it."""
    return bytes(buf).split(b"\0", 1)[0].decode(errors="replace")


def compile_cuda(source, target, name=b"kernel.cu", options=(), name_expressions=()):
    """Compile CUDA C++ with NVRTC for `target` ("compute_XY": PTX, "sm_XY": CUBIN).

    Returns (image bytes, {name expression: lowered name}); raises CompileError, carrying the
    program log, when the source does not compile."""
    prog = nvrtc.create_program(source, name)
    try:
        for expr in name_expressions:
            nvrtc.add_name_expression(prog, expr)
        opts = [f"--gpu-architecture={target}".encode(), *options]
        try:
            nvrtc.compile_program(prog, opts)
        except nvrtc.CompilationError:
            log = text(nvrtc.get_program_log(prog))
            raise CompileError(f"NVRTC could not compile {name.decode()} for {target}:\n{log}", log) from None
        image = nvrtc.get_cubin(prog) if target.startswith("sm_") else nvrtc.get_ptx(prog)
        lowered = {expr: nvrtc.get_lowered_name(prog, expr) for expr in name_expressions}
        return bytes(image), lowered
    finally:
        nvrtc.destroy_program(prog)
