"""Test configuration: the `gpu` marker, GPU detection, and shared fixtures.

Environment variables:
  CUDA_BINDINGS_EXPECT_PREFIX  the session stops at once unless `cuda.bindings.__file__` starts
                               with this path (guards against testing another installed copy).
  CUDA_BINDINGS_REQUIRE_GPU=1  a GPU test that finds no usable device fails instead of skipping
                               (set on the accelerator machine, where a skip would hide a fault).
  CUDA_BINDINGS_REQUIRE_GPUS=N the machine has N devices: a test (or example) that needs up to N
                               and finds fewer fails instead of skipping; one that needs more than
                               N skips with the reason. Implies CUDA_BINDINGS_REQUIRE_GPU=1 when
                               N >= 1. scripts/gpu_check.sh sets it to the count `nvidia-smi -L`
                               reports, so a one-GPU run skips the two-GPU tests and a two-GPU run
                               cannot skip them.

Markers: `gpu` (needs one usable device) and `two_gpus` (needs two: skipped with "needs 2 CUDA
devices, found N" on fewer, unless CUDA_BINDINGS_REQUIRE_GPUS says the machine has two).
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
    return os.environ.get("CUDA_BINDINGS_REQUIRE_GPU", "") not in ("", "0") or required_gpus() >= 1


def required_gpus():
    """The device count CUDA_BINDINGS_REQUIRE_GPUS promises (0 when unset)."""
    text = os.environ.get("CUDA_BINDINGS_REQUIRE_GPUS", "").strip()
    if not text:
        return 0
    if not text.isdigit():
        raise pytest.UsageError(f"CUDA_BINDINGS_REQUIRE_GPUS must be a device count (0, 1, 2, ...), got {text!r}")
    return int(text)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "gpu: needs a usable CUDA device; skipped with the reason when none is found",
    )
    config.addinivalue_line(
        "markers",
        "two_gpus: needs two CUDA devices; skipped with 'needs 2 CUDA devices, found N' on fewer "
        "(failed instead when CUDA_BINDINGS_REQUIRE_GPUS is 2 or more)",
    )
    required_gpus()   # a malformed value stops the session before any test


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
print(json.dumps({"state": "ok", "why": "%d device(s)" % res[1], "count": res[1]}))
"""

_gpu_state = None
_gpu_count = 0


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
    global _gpu_count
    _gpu_count = int(info.get("count", 0))
    return _gpu_state


def gpu_count():
    """How many devices the driver reports (0 when none is usable)."""
    state, _ = gpu_state()
    return _gpu_count if state == "ok" else 0


def gpu_requirement(needed):
    """('run' | 'skip' | 'fail', reason) for something that needs `needed` devices here.

    Fewer devices than needed: a skip, unless the environment promises them (CUDA_BINDINGS_REQUIRE_GPU
    for one device, CUDA_BINDINGS_REQUIRE_GPUS=N for up to N), in which case a failure."""
    state, why = gpu_state()
    if state == "error":
        return "fail", f"GPU probe failed: {why}"
    found = gpu_count()
    if found >= needed:
        return "run", ""
    promised = max(required_gpus(), 1 if _require_gpu() else 0)
    if state == "skip":
        reason = f"no usable GPU: {why}" if needed == 1 else f"needs {needed} CUDA devices, found 0 ({why})"
    else:
        reason = f"needs {needed} CUDA devices, found {found}"
    if promised < needed:
        return "skip", reason
    if required_gpus():
        return "fail", f"CUDA_BINDINGS_REQUIRE_GPUS={required_gpus()} but {reason}"
    return "fail", f"CUDA_BINDINGS_REQUIRE_GPU is set but {reason}"


def _apply_gpu_requirement(needed):
    action, reason = gpu_requirement(needed)
    if action == "skip":
        pytest.skip(reason)
    if action == "fail":
        pytest.fail(reason, pytrace=False)


def pytest_runtest_setup(item):
    if item.get_closest_marker("two_gpus") is not None:
        _apply_gpu_requirement(2)
    elif item.get_closest_marker("gpu") is not None:
        _apply_gpu_requirement(1)


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
def gpu_requirements():
    """gpu_requirements(n) -> ('run' | 'skip' | 'fail', reason): the rule of the gpu and two_gpus
    markers for something needing n devices (tests/test_examples.py applies it to the examples)."""
    return gpu_requirement


@pytest.fixture(scope="session")
def _two_devices():
    from cuda.bindings import driver

    ok(driver.cuInit(0))
    devs, ctxs, archs = [], [], []
    attr = driver.CUdevice_attribute
    for ordinal in (0, 1):
        dev = ok(driver.cuDeviceGet(ordinal))
        ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
        major = ok(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
        minor = ok(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
        devs.append(dev)
        ctxs.append(ctx)
        archs.append(f"sm_{major}{minor}")

    def use(i):
        """Make device i's primary context current; returns it."""
        ok(driver.cuCtxSetCurrent(ctxs[i]))
        return ctxs[i]

    can = [[0, 0], [0, 0]]
    for i in (0, 1):
        for j in (0, 1):
            if i != j:
                can[i][j] = ok(driver.cuDeviceCanAccessPeer(devs[i], devs[j]))
    env = types.SimpleNamespace(driver=driver, devs=devs, ctxs=ctxs, archs=archs, use=use,
                                peer=bool(can[0][1] and can[1][0]), can_access_peer=can)
    yield env
    driver.cuCtxSetCurrent(None)
    for dev in devs:
        ok(driver.cuDevicePrimaryCtxRelease(dev))


@pytest.fixture
def two_gpus(request):
    """Devices 0 and 1 with their primary contexts (`devs`, `ctxs`, `archs`, `use(i)` makes device
    i's current, `peer`: each can access the other's memory). Applies the two_gpus rule itself, so
    a test using it skips (or fails) as a marked one does."""
    _apply_gpu_requirement(2)
    env = request.getfixturevalue("_two_devices")
    env.use(0)
    yield env
    env.driver.cuCtxSetCurrent(None)


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
