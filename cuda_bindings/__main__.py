"""``python -m cuda.bindings``: what is installed, which CUDA libraries are found, which devices.

Works without a GPU or driver: whatever is missing is reported, and the exit status is 0.
"""
import importlib
import os
import sys

from . import __cuda_version__, __version__, _libpaths


def _status_ok(status):
    try:
        return int(status) == 0
    except (TypeError, ValueError):
        return False


def _status_name(status):
    return getattr(status, "name", None) or repr(status)


class _Failed(Exception):
    pass


def _call(fn, *args):
    """Call a binding returning ``(status, values...)``; return the values or raise _Failed."""
    result = fn(*args)
    status, values = result[0], result[1:]
    if not _status_ok(status):
        raise _Failed(_status_name(status))
    return values[0] if len(values) == 1 else values


def _module(name):
    try:
        return importlib.import_module(f"{__package__}.{name}"), None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def _reason(e):
    return str(e) if isinstance(e, _Failed) else f"{type(e).__name__}: {e}"


#: The libraries besides the driver, by label and the loader's name for them.
_LIBRARIES = (("NVRTC", "nvrtc"), ("nvJitLink", "nvjitlink"), ("NVVM", "nvvm"), ("cudart", "runtime"),
              ("nvFatbin", "nvfatbin"), ("cuFile", "cufile"), ("NVML", "nvml"), ("cuDLA", "cudla"))


def _libraries(out):
    from . import _loader
    out("libraries:")
    out(f"  {_libpaths.describe_driver()}")
    for label, lib in _LIBRARIES:
        if not _loader.in_build(lib):
            out(f"  {label}: not looked for: {_loader.not_in_build(lib)}")
            continue
        found = _libpaths.locate(_loader._SONAMES[lib])
        if found.path is None:
            out(f"  {label}: missing: {_loader._not_found(lib, found)}")
        else:
            out(f"  {label}: {found.path} ({found.via})")


def _driver(out):
    driver, err = _module("driver")
    if driver is None:
        out(f"driver: missing (cuda.bindings.driver: {err})")
        return
    try:
        v = _call(driver.cuDriverGetVersion)
        out(f"driver: CUDA {v // 1000}.{(v % 1000) // 10} (cuDriverGetVersion = {v})")
    except Exception as e:
        out(f"driver: not available: {_reason(e)}")
        return
    _newer_than_driver(out, v)
    try:
        _call(driver.cuInit, 0)
        count = _call(driver.cuDeviceGetCount)
    except Exception as e:
        out(f"devices: not available: {_reason(e)}")
        return
    out(f"devices: {count}")
    attr = driver.CUdevice_attribute
    for i in range(count):
        try:
            dev = _call(driver.cuDeviceGet, i)
            name = _call(driver.cuDeviceGetName, 128, dev)
            name = bytes(name).split(b"\0", 1)[0].decode(errors="replace")
            major = _call(driver.cuDeviceGetAttribute,
                          attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
            minor = _call(driver.cuDeviceGetAttribute,
                          attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
            out(f"  {i}: {name} (compute capability {major}.{minor})")
        except Exception as e:
            out(f"  {i}: not available: {_reason(e)}")


def _newer_than_driver(out, v):
    """On a driver older than the headers: which driver calls it cannot run, and what they need.
    A function whose newest entry point is newer than the driver but which the driver has in an
    older form (cuGraphAddNode) runs; only those it lacks altogether are listed."""
    from . import _loader
    from ._symbols_driver import SYMBOLS
    if v >= _loader.CUDA_VERSION:
        return
    found = _loader.inspector("driver")[0]()     # every entry point's address, 0 where it lacks one
    lacking = [(name, since) for name, since, _, _, csym in SYMBOLS if since > v and not found["__" + csym]]
    out(f"  older than this build's CUDA {__cuda_version__}: {len(lacking)} of {len(SYMBOLS)} driver functions "
        f"came with a newer CUDA and return CUDA_ERROR_NOT_FOUND here (with a FunctionNotFoundWarning "
        f"saying what they need); {_loader.needs(_loader.CUDA_VERSION)} runs every call")
    by = {}
    for name, since in lacking:
        by.setdefault(since, []).append(name)
    for since in sorted(by):
        out(f"    {len(by[since])} need {_loader.needs(since)}: {', '.join(by[since])}")


def _versions(out):
    runtime, err = _module("runtime")
    if runtime is None:
        out(f"runtime: missing (cuda.bindings.runtime: {err})")
    else:
        try:
            v = _call(runtime.cudaRuntimeGetVersion)
            out(f"runtime: CUDA {v // 1000}.{(v % 1000) // 10} (cudaRuntimeGetVersion = {v})")
        except Exception as e:
            out(f"runtime: not available: {_reason(e)}")

    nvrtc, err = _module("nvrtc")
    if nvrtc is None:
        out(f"NVRTC version: missing (cuda.bindings.nvrtc: {err})")
    else:
        try:
            major, minor = _call(nvrtc.nvrtcVersion)
            out(f"NVRTC version: {major}.{minor}")
        except Exception as e:
            out(f"NVRTC version: not available: {_reason(e)}")

    for label, name, query in (("nvJitLink", "nvjitlink", "version"), ("NVVM", "nvvm", "version"),
                               ("NVVM IR", "nvvm", "ir_version"), ("nvFatbin", "nvfatbin", "version"),
                               ("cuFile", "cufile", "get_version"), ("NVML driver", "nvml", None),
                               ("cuDLA", "cudla", "get_version")):
        if not _in_build(name):
            continue
        mod, err = _module(name)
        if mod is None:
            out(f"{label} version: missing (cuda.bindings.{name}: {err})")
            continue
        try:
            out(f"{label} version: " + _version_text(mod, name, query))
        except Exception as e:
            out(f"{label} version: not available: {_reason(e)}")


def _in_build(lib):
    from . import _loader
    return _loader.in_build(lib)


def _version_text(mod, name, query):
    """A library's version, through its module's own call."""
    if name == "nvml":          # the driver's version, between NVML's init and shutdown
        mod.init_v2()
        try:
            v = mod.system_get_driver_version()
        finally:
            mod.shutdown()
        return v.decode() if isinstance(v, bytes) else str(v)
    v = getattr(mod, query)()
    if name == "cufile":        # 1000 * major + 10 * minor
        return f"{v // 1000}.{v % 1000 // 10} (cuFileGetVersion = {v})"
    return ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)


def main(out=print):
    pkg_dir = os.path.dirname(os.path.abspath(__file__))
    out(f"cuda.bindings {__version__} ({pkg_dir})")
    out(f"Python {sys.version.split()[0]} ({sys.executable})")
    out(f"generated from: CUDA {__cuda_version__} headers")
    for section in (_libraries, _driver, _versions):
        try:
            section(out)
        except Exception as e:  # a report, not a test: keep going
            out(f"{section.__name__.strip('_')}: not available: {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
