"""Importing needs no GPU and no driver; a missing libcuda.so.1 is a clear Python error."""
import json
import re

from _support import run_python


def test_import_without_gpu_does_not_load_libcuda():
    code = r"""
import json
import cuda.bindings
import cuda.bindings.driver, cuda.bindings.nvrtc, cuda.bindings.nvvm, cuda.bindings.cynvvm
with open("/proc/self/maps") as f:
    maps = f.read()
print(json.dumps({
    "driver": cuda.bindings.driver.__name__,
    "nvrtc": cuda.bindings.nvrtc.__name__,
    "libcuda_mapped": "libcuda.so" in maps,
    "libnvvm_mapped": "libnvvm.so" in maps,
}))
"""
    proc = run_python(code)
    assert proc.returncode == 0, f"import failed:\n{proc.stderr}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["driver"] == "cuda.bindings.driver"
    assert info["nvrtc"] == "cuda.bindings.nvrtc"
    assert info["libcuda_mapped"] is False, "importing must not open libcuda (it is loaded on first call)"
    assert info["libnvvm_mapped"] is False, "importing must not open libnvvm (it is loaded on first call)"


def test_cuinit_without_driver_is_a_clear_error_or_a_result():
    code = r"""
import ctypes, json
try:
    ctypes.CDLL("libcuda.so.1")
    have_driver = True
except OSError:
    have_driver = False
from cuda.bindings import driver
try:
    res = driver.cuInit(0)
except RuntimeError as e:
    print(json.dumps({"have_driver": have_driver, "raised": "RuntimeError", "message": str(e)}))
else:
    print(json.dumps({
        "have_driver": have_driver,
        "raised": None,
        "is_tuple": isinstance(res, tuple),
        "len": len(res) if isinstance(res, tuple) else None,
        "is_curesult": isinstance(res[0], driver.CUresult) if isinstance(res, tuple) and res else False,
    }))
"""
    proc = run_python(code)
    assert proc.returncode == 0, f"cuInit must never crash the interpreter (rc {proc.returncode}):\n{proc.stderr}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    if info["have_driver"]:
        assert info["raised"] is None, f"a driver is present, cuInit should return a status: {info}"
        assert info["is_tuple"] and info["len"] == 1 and info["is_curesult"], info
    else:
        assert info["raised"] == "RuntimeError", info
        assert "libcuda.so.1" in info["message"], info


def test_python_m_cuda_bindings_reports_libraries():
    proc = run_python(["-m", "cuda.bindings"])
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"python -m cuda.bindings exited {proc.returncode}:\n{out}"
    assert "nvrtc" in out.lower(), out
    assert "libcuda" in out, out
    assert re.search(r"^  NVVM: .*libnvvm\.so(\.4)? ", out, re.M), out      # the CUDA 12 wheel's is libnvvm.so
    assert re.search(r"^NVVM version: 2\.0$", out, re.M) and "NVVM IR version: 2.0.3.2" in out, out

