"""Enum and struct classes are made on first use (cuda.bindings._base._Lazy): importing a module
builds none of them (except in the modules of a few enums, which make them at import), and asking
for one by any route gives one class, the same every time."""
import json
import pickle
import threading

import pytest

from _support import run_python

from cuda.bindings import driver, nvjitlink, nvvm, runtime


def test_import_builds_no_enum_or_struct_class_and_loads_no_library_code():
    code = r"""
import json, sys
import cuda.bindings.driver as d
made = [n for n in ("CUresult", "CUdevice_attribute", "CUDA_MEMCPY2D", "CUDA_MEMCPY2D_st", "CUuuid")
        if n in vars(d)]
print(json.dumps({"made": made,
                  "loader": "cuda.bindings._loader" in sys.modules,
                  "ctypes": "ctypes" in sys.modules,
                  "symbols": "cuda.bindings._symbols_driver" in sys.modules}))
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["made"] == [], info
    assert not info["loader"] and not info["symbols"], info
    assert not info["ctypes"], "ctypes is imported by the first call, not by import"


def test_first_use_makes_the_class_once_and_stores_it():
    a = driver.CUmemorytype
    assert driver.CUmemorytype is a
    assert vars(driver)["CUmemorytype"] is a
    assert a.CU_MEMORYTYPE_DEVICE == 2
    assert a.__module__ == "cuda.bindings.driver" and a.__qualname__ == "CUmemorytype"
    s = driver.CUDA_MEMCPY2D
    assert issubclass(s, driver.CUDA_MEMCPY2D_v2) and issubclass(s, driver.CUDA_MEMCPY2D_st)
    assert s.__module__ == "cuda.bindings.driver" and s.__qualname__ == "CUDA_MEMCPY2D"
    assert "same layout as CUDA_MEMCPY2D_st" in s.__doc__
    assert driver.sizeof(s) == driver.sizeof(driver.CUDA_MEMCPY2D_st) > 0
    m = s()
    m.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    assert m.srcMemoryType is driver.CUmemorytype.CU_MEMORYTYPE_HOST   # a field resolves its enum lazily


def test_nested_struct_fields_resolve_their_classes():
    p = runtime.cudaMemcpy3DParms()
    assert type(p.extent) is runtime.cudaExtent
    assert type(p.srcPos) is runtime.cudaPos
    assert p.kind is runtime.cudaMemcpyKind.cudaMemcpyHostToHost


def test_enum_members_pickle_by_name():
    m = driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert pickle.loads(pickle.dumps(m)) is m


def test_unknown_name_is_an_attribute_error():
    try:
        driver.CUnotAThing
    except AttributeError as e:
        assert "CUnotAThing" in str(e) and "cuda.bindings.driver" in str(e)
    else:
        raise AssertionError("expected AttributeError")
    assert not hasattr(driver, "CUnotAThing")


def test_dir_and_star_import_see_every_class():
    names = dir(driver)
    for n in ("CUresult", "CUDA_MEMCPY3D_PEER", "CUlaunchAttributeValue", "cuInit", "CUstream",
              "CU_IPC_HANDLE_SIZE"):
        assert n in names
    assert "CUDA_KERNEL_NODE_PARAMS_v3" in driver.__all__
    ns = {}
    exec("from cuda.bindings.driver import *", ns)
    assert ns["CUgraphNodeType"] is driver.CUgraphNodeType
    assert ns["CUDA_KERNEL_NODE_PARAMS"] is driver.CUDA_KERNEL_NODE_PARAMS
    assert "_Lazy" not in ns and "_L" not in ns


def test_python_level_enums_of_nvjitlink_are_lazy_too():
    assert nvjitlink.Result.SUCCESS == 0
    assert nvjitlink.InputType.PTX == nvjitlink.nvJitLinkInputType.NVJITLINK_INPUT_PTX
    err = nvjitlink.nvJitLinkError(nvjitlink.Result.ERROR_INVALID_INPUT)
    assert err.status == nvjitlink.Result.ERROR_INVALID_INPUT and "ERROR_INVALID_INPUT" in str(err)


def test_modules_of_a_few_enums_make_them_at_import():
    # nvJitLink, NVVM, nvFatbin and NVRTC before 13.5 (a few enums, no structs) make their classes at import
    # and keep no module __getattr__, which on CPython 3.11+ would keep every `module.name` off
    # the interpreter's specialised lookup; the driver keeps its classes lazy
    code = r"""
import json
import cuda.bindings.driver as d
import cuda.bindings.nvfatbin as f
import cuda.bindings.nvjitlink as j
import cuda.bindings.nvrtc as r
import cuda.bindings.nvvm as m
print(json.dumps({
    "made": [n for n in ("Result", "nvvmResult") if n in vars(m)],
    "getattr": [x.__name__ for x in (d, f, j, r, m) if "__getattr__" in vars(x)],
    # the modules with struct classes (the driver; NVRTC from 13.5, nvrtcBundledHeadersInfo)
    "structs": [x.__name__ for x in (d, f, j, r, m) if any(vars(x).get("_STRUCTS", ()))],
    "module": vars(m)["Result"].__module__, "in_dir": "Result" in dir(m), "all": "Result" in m.__all__,
    "driver_lazy": "CUresult" not in vars(d)}))
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert info["getattr"] == info["structs"] and "cuda.bindings.driver" in info["getattr"], info
    assert set(info["getattr"]) <= {"cuda.bindings.driver", "cuda.bindings.nvrtc"}, info
    del info["getattr"], info["structs"]
    assert info == {"made": ["Result", "nvvmResult"], "module": "cuda.bindings.nvvm", "in_dir": True,
                    "all": True, "driver_lazy": True}, info
    assert nvvm.Result.ERROR_COMPILATION == nvvm.nvvmResult.NVVM_ERROR_COMPILATION == 9
    err = nvvm.nvvmError(nvvm.Result.ERROR_INVALID_IR)
    assert err.status == nvvm.Result.ERROR_INVALID_IR and str(err) == "ERROR_INVALID_IR (6)"
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        nvvm.NoSuchName


def test_threads_racing_for_a_new_class_get_the_same_one():
    code = r"""
import threading

import pytest
import cuda.bindings.runtime as rt
names = ["cudaDeviceProp", "cudaLaunchAttributeValue", "cudaGraphNodeParams", "cudaError_t",
         "cudaResourceDesc", "cudaTextureDesc"]
seen = {n: set() for n in names}
barrier = threading.Barrier(8)
def work():
    barrier.wait()
    for n in names:
        seen[n].add(id(getattr(rt, n)))
ts = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
print(max(len(v) for v in seen.values()))
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "1"
