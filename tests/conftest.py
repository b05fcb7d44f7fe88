"""Test configuration: the `gpu` marker, GPU detection, and shared fixtures.

Environment variables:
  CUDA_BINDINGS_EXPECT_PREFIX  the session stops at once unless `cuda.bindings.__file__` starts
                               with this path (guards against testing another installed copy).
  CUDA_BINDINGS_REQUIRE_GPU=1  a GPU test that finds no usable device fails instead of skipping
                               (set on the accelerator machine, where a skip would hide a fault).
"""
import importlib
import json
import os
import subprocess
import sys
import types

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _support import ok, run_python  # noqa: E402


def _require_gpu():
    return os.environ.get("CUDA_BINDINGS_REQUIRE_GPU", "") not in ("", "0")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "gpu: needs a usable CUDA device; skipped with the reason when none is found",
    )


def _bindings_location():
    try:
        mod = importlib.import_module("cuda.bindings")
    except Exception as e:  # reported, the tests themselves fail on it
        return None, f"{type(e).__name__}: {e}"
    return getattr(mod, "__file__", None), None


def pytest_report_header(config):
    where, error = _bindings_location()
    if error:
        return [f"cuda.bindings: import failed: {error}"]
    lines = [f"cuda.bindings: {where}"]
    prefix = os.environ.get("CUDA_BINDINGS_EXPECT_PREFIX")
    if prefix:
        lines.append(f"cuda.bindings expected under: {prefix}")
    return lines


def pytest_sessionstart(session):
    prefix = os.environ.get("CUDA_BINDINGS_EXPECT_PREFIX")
    if not prefix:
        return
    where, error = _bindings_location()
    if error:
        pytest.exit(f"CUDA_BINDINGS_EXPECT_PREFIX={prefix} but cuda.bindings failed to import: {error}", returncode=4)
    if not where or not os.path.abspath(where).startswith(os.path.join(os.path.abspath(prefix), "")):
        pytest.exit(
            f"CUDA_BINDINGS_EXPECT_PREFIX={prefix} but cuda.bindings was imported from {where}: "
            "another installed copy shadows the one under test",
            returncode=4,
        )


# ---------------------------------------------------------------------------------------------
# GPU detection, once per session.

_PROBE = r"""
import json, sys
try:
    from cuda.bindings import driver
except Exception as e:
    print(json.dumps({"state": "error", "why": "cannot import cuda.bindings.driver: %r" % (e,)})); sys.exit(0)
try:
    res = driver.cuInit(0)
except RuntimeError as e:
    print(json.dumps({"state": "skip", "why": "driver.cuInit raised RuntimeError: %s" % (e,)})); sys.exit(0)
if int(res[0]) != 0:
    print(json.dumps({"state": "skip", "why": "cuInit returned %r" % (res[0],)})); sys.exit(0)
res = driver.cuDeviceGetCount()
if int(res[0]) != 0 or res[1] == 0:
    print(json.dumps({"state": "skip", "why": "cuDeviceGetCount returned %r" % (res,)})); sys.exit(0)
print(json.dumps({"state": "ok", "why": "%d device(s)" % res[1]}))
"""

_gpu_state = None


def gpu_state():
    """('ok'|'skip'|'error', reason). Probed in a child first, so a crash cannot end the session."""
    global _gpu_state
    if _gpu_state is not None:
        return _gpu_state
    try:
        proc = run_python(_PROBE, timeout=120)
    except subprocess.TimeoutExpired:
        _gpu_state = ("error", "the GPU probe (cuInit, cuDeviceGetCount) did not finish in 120 s")
        return _gpu_state
    last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    if proc.returncode != 0 or not last:
        _gpu_state = (
            "error",
            f"the GPU probe exited with {proc.returncode}; stderr: {proc.stderr.strip()[-2000:]}",
        )
        return _gpu_state
    info = json.loads(last[0])
    _gpu_state = (info["state"], info["why"])
    return _gpu_state


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is None:
        return
    state, why = gpu_state()
    if state == "ok":
        return
    if state == "skip" and not _require_gpu():
        pytest.skip(f"no usable GPU: {why}")
    if state == "skip":
        pytest.fail(f"CUDA_BINDINGS_REQUIRE_GPU is set but no usable GPU was found: {why}", pytrace=False)
    pytest.fail(f"GPU probe failed: {why}", pytrace=False)


# ---------------------------------------------------------------------------------------------
# Fixtures.


def _arch_number(arch):
    text = str(arch)
    for prefix in ("sm_", "compute_"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if not text.isdigit():
        raise ValueError(f"arch should look like 'sm_90', 'compute_90' or 90, got {arch!r}")
    return text


@pytest.fixture(scope="session")
def nvrtc_compile():
    """nvrtc_compile(src, arch, fmt='ptx'|'cubin', opts=()) -> bytes (PTX keeps its NUL)."""
    from cuda.bindings import nvrtc

    def compile_source(src, arch, fmt="ptx", opts=(), name=b"test_kernel.cu"):
        if isinstance(src, str):
            src = src.encode()
        number = _arch_number(arch)
        if fmt == "ptx":
            target = f"--gpu-architecture=compute_{number}"
        elif fmt == "cubin":
            target = f"--gpu-architecture=sm_{number}"
        else:
            raise ValueError(f"fmt must be 'ptx' or 'cubin', got {fmt!r}")
        options = [target.encode()] + [o.encode() if isinstance(o, str) else o for o in opts]
        prog = ok(nvrtc.nvrtcCreateProgram(src, name, 0, [], []))
        try:
            res = nvrtc.nvrtcCompileProgram(prog, len(options), options)
            if int(res[0]) != 0:
                size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
                log = bytearray(size)
                ok(nvrtc.nvrtcGetProgramLog(prog, log))
                raise AssertionError(f"NVRTC compile failed ({res[0]!r}):\n{bytes(log).decode(errors='replace')}")
            if fmt == "ptx":
                size = ok(nvrtc.nvrtcGetPTXSize(prog))
                out = bytearray(size)
                ok(nvrtc.nvrtcGetPTX(prog, out))
            else:
                size = ok(nvrtc.nvrtcGetCUBINSize(prog))
                out = bytearray(size)
                ok(nvrtc.nvrtcGetCUBIN(prog, out))
            return bytes(out)
        finally:
            nvrtc.nvrtcDestroyProgram(prog)

    return compile_source


@pytest.fixture(scope="session")
def _primary_context():
    from cuda.bindings import driver

    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    ok(driver.cuCtxSetCurrent(ctx))
    attr = driver.CUdevice_attribute
    major = ok(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    env = types.SimpleNamespace(
        driver=driver,
        dev=dev,
        ctx=ctx,
        cc=(major, minor),
        arch=f"sm_{major}{minor}",
    )
    yield env
    driver.cuCtxSetCurrent(None)
    ok(driver.cuDevicePrimaryCtxRelease(dev))


@pytest.fixture
def cu(_primary_context):
    """The initialised driver with device 0's primary context current (made current per test)."""
    ok(_primary_context.driver.cuCtxSetCurrent(_primary_context.ctx))
    return _primary_context


@pytest.fixture(scope="session")
def stand_in_driver(tmp_path_factory):
    """A folder with the conformance suite's stand-in libcuda.so.1 (tests/conformance/stub.py):
    every driver entry point, each returning the status CUDA_STUB_STATUS (default 999)."""
    import dataclasses
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    try:
        from codegen import model, parse
        from headers.fetch import include_dir
        from tests.conformance import stub
    finally:
        sys.path.remove(root)
    from cuda.bindings import __cuda_version__
    m = model.build(parse.read(include_dir(__cuda_version__), "driver"), "driver")   # the build under test
    return stub.build(dataclasses.asdict(m), tmp_path_factory.mktemp("stub"))
