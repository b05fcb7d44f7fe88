"""Each build makes what NVIDIA's package of its release makes (codegen/overrides.py TWIN_STYLE,
EXTRA_DECLARATIONS): FastEnum enums and hidden reserved fields in 12.9 and 13.5, the names
NVIDIA's 12.9.x binds beyond the 12.9 headers, the 13.5 functions' parameters, the batch memcpy
node's fields.  No GPU needed; tests/test_conformance.py compares everything with NVIDIA's package."""
import copy
import enum
import importlib
import inspect
import pickle

import pytest

from cuda.bindings import _version, driver, nvjitlink, nvvm, runtime

FAST = _version.FAST_ENUM
RELEASE = _version.__cuda_version__
fast_only = pytest.mark.skipif(not FAST, reason=f"CUDA {RELEASE}: enums are enum.IntEnum, as in NVIDIA's package")


def test_fast_enum_module_exists_where_nvidia_has_it():
    if not FAST:
        # as on NVIDIA's package of this release, which has no such module
        with pytest.raises(ModuleNotFoundError) as e:
            importlib.import_module("cuda.bindings._internal._fast_enum")
        assert str(e.value) == "No module named 'cuda.bindings._internal._fast_enum'"
        assert e.value.name == "cuda.bindings._internal._fast_enum" and "IntEnum" in e.value.detail
        assert not hasattr(e.value, "__notes__")             # Python's own is bare
        assert issubclass(driver.CUresult, enum.IntEnum)
        return
    fe = importlib.import_module("cuda.bindings._internal._fast_enum")
    for cls in (driver.CUresult, runtime.cudaError_t, nvjitlink.Result, nvvm.Result):
        assert issubclass(cls, fe.FastEnum) and isinstance(cls, fe.FastEnumMetaclass)
        assert not issubclass(cls, enum.Enum)
        assert cls.__mro__[1:] == (fe.FastEnum, int, object)


@fast_only
def test_fast_enum_members():
    E = driver.CUresult
    m = E.CUDA_ERROR_INVALID_VALUE
    assert E(1) is m and E(m) is m and m == 1 and isinstance(m, int)
    assert (m.name, m.value, type(m.value)) == ("CUDA_ERROR_INVALID_VALUE", 1, int)
    assert repr(m) == str(m) == "<CUresult.CUDA_ERROR_INVALID_VALUE: 1>" and f"{m:d}" == "1"
    assert repr(E) == "<enum 'CUresult'>"
    assert type(E.__members__) is dict and E.__members__["CUDA_SUCCESS"] is E.CUDA_SUCCESS
    assert list(E)[0] is E.CUDA_SUCCESS and len(E) == len(list(E))
    assert m in E and 1 in E and 123456 not in E and [] not in E
    assert pickle.loads(pickle.dumps(m)) is m and copy.deepcopy(m) is m
    with pytest.raises(ValueError, match="123456 is not a valid CUresult"):
        E(123456)
    with pytest.raises(ValueError):
        E("CUDA_SUCCESS")


@fast_only
def test_fast_enum_subclass_as_cuda_core_defines_one():
    from cuda.bindings._internal._fast_enum import FastEnum, FastEnumMetaclass

    class Arch(FastEnum):          # cuda.core.system.DeviceArch's way
        KEPLER = 30
        HOPPER = 90
        OTHER = 30
        DOC = (100, "with a docstring")

    assert list(Arch) == [Arch.KEPLER, Arch.HOPPER, Arch.DOC]
    assert Arch.OTHER is Arch.KEPLER and Arch(90) is Arch.HOPPER and Arch.KEPLER < Arch.HOPPER
    assert Arch.DOC.__doc__ == "with a docstring" and isinstance(Arch, FastEnumMetaclass)


def test_enum_field_holding_no_member():
    s = driver.CUDA_ARRAY3D_DESCRIPTOR()          # Format 0 is no CUarray_format
    if FAST:
        with pytest.raises(ValueError, match="0 is not a valid CUarray_format"):
            s.Format
        assert "Format : <ValueError>" in repr(s)
    else:
        assert s.Format is None
    s.Format = driver.CUarray_format.CU_AD_FORMAT_FLOAT
    assert s.Format is driver.CUarray_format.CU_AD_FORMAT_FLOAT


def test_reserved_fields_as_nvidia_shows_them():
    hidden = {"12.9": ("driver",), "13.5": ("driver", "runtime")}.get(RELEASE, ())
    assert hasattr(driver.CUDA_ARRAY_MEMORY_REQUIREMENTS(), "reserved") == ("driver" not in hidden)
    assert hasattr(runtime.cudaArrayMemoryRequirements(), "reserved") == ("runtime" not in hidden)
    # an IPC handle's bytes are what a program sends to another process: always there
    for h in (driver.CUipcMemHandle(), driver.CUipcEventHandle(), runtime.cudaIpcMemHandle_t()):
        h.reserved = b"\x01" * 64
        assert h.reserved == b"\x01" * 64
        # ... but left out of the repr where NVIDIA's hides them (there an empty struct's repr)
        lib = "runtime" if type(h).__module__.endswith("runtime") else "driver"
        assert ("reserved :" in repr(h)) == (lib not in hidden)
    if "driver" in hidden:
        assert repr(driver.CUipcEventHandle()) == ""


def test_constants_and_enum_members_as_nvidia_reads_them():
    # 12.9.10 and 13.0.3 read the #define 0xFFFFFFFF as a C int; 13.5.0 an enum member 1 << 31
    assert driver.CUDA_EGL_INFINITE_TIMEOUT == (0xFFFFFFFF if RELEASE == "13.5" else -1)
    flags = driver.CUCoredumpGenerationFlags
    if hasattr(flags, "CU_COREDUMP_LOG_ONLY"):
        m = flags.CU_COREDUMP_LOG_ONLY
        assert int(m) == (-(1 << 31) if RELEASE == "13.5" else 1 << 31)
        assert flags(int(m)) is m


def test_new_kernel_node_params_v2_as_nvidia_makes_it():
    # 13.5.0's cudaKernelNodeParamsV2 (with its union of func, kern and cuFunc) is all zeros; the
    # other releases' and cudaKernelNodeParams have the C++ constructor's dim3 (1, 1, 1)
    v2 = runtime.cudaKernelNodeParamsV2()
    one = 0 if RELEASE == "13.5" else 1
    assert (v2.gridDim.x, v2.gridDim.y, v2.gridDim.z, v2.blockDim.z) == (one,) * 4
    assert runtime.cudaKernelNodeParams().gridDim.x == 1


def test_float_addresses_where_nvidia_takes_them():
    assert _version.FLOAT_ADDRESS == (RELEASE != "13.0")
    p = driver.CUDA_MEMCPY2D()
    if _version.FLOAT_ADDRESS:
        p.srcHost = 4096.7
        assert p.srcHost == 4096
    else:
        with pytest.raises(TypeError):
            p.srcHost = 4096.7


def test_conditional_body_graphs_before_the_driver_writes_them():
    p = driver.CUgraphNodeParams()
    c = p.conditional
    assert c.phGraph_out == []
    c.size = 1
    out = c.phGraph_out
    assert len(out) == 1 and isinstance(out[0], driver.CUgraph) and int(out[0]) == 0


def test_profiler_initialize_in_the_c_api():
    from cuda.bindings import cydriver
    assert "cuProfilerInitialize" in cydriver.__pyx_capi__
    assert [m.name for m in driver.CUoutput_mode] == ["CU_OUT_KEY_VALUE_PAIR", "CU_OUT_CSV"]


@pytest.mark.skipif(RELEASE != "12.9", reason="the 12.9 build's versioned graph entry points")
def test_12_9_versioned_entry_points_take_the_count():
    assert list(inspect.signature(driver.cuGraphGetEdges_v2).parameters) == ["hGraph", "numEdges"]
    assert list(inspect.signature(driver.cuStreamGetCaptureInfo_v3).parameters) == ["hStream"]
    assert list(inspect.signature(runtime.cudaGraphNodeGetDependencies_v2).parameters) == ["node", "pNumDependencies"]
    assert "dependencies" in inspect.signature(driver.cuStreamUpdateCaptureDependencies_v2).parameters


@pytest.mark.skipif(RELEASE != "12.9", reason="what NVIDIA's 12.9.x binds beyond the 12.9 headers")
def test_12_9_binds_cuda_13_nvjitlink_and_nvvm_names():
    assert nvjitlink.Result.ERROR_LTO_NOT_ENABLED == 18 and nvjitlink.Result.ERROR_NULL_INPUT == 10
    from cuda.bindings import cynvjitlink, cynvvm
    assert {"nvJitLinkGetLinkedLTOIR", "nvJitLinkGetLinkedLTOIRSize"} <= set(cynvjitlink.__pyx_capi__)
    assert "nvvmLLVMVersion" in cynvvm.__pyx_capi__
    from cuda.bindings._internal.utils import FunctionNotFoundError
    h = nvjitlink.create(1, ["-arch=sm_90"])
    try:                                   # the 12.9 library lacks it: the not-found error
        with pytest.raises(FunctionNotFoundError):
            nvjitlink.get_linked_ltoir_size(h)
    finally:
        nvjitlink.destroy(h)


@pytest.mark.skipif(RELEASE != "13.5", reason="13.5's functions")
def test_13_5_functions_as_nvidia_has_them():
    sig = lambda f: list(inspect.signature(f).parameters)   # noqa: E731
    assert sig(driver.cuDeviceGetCliqueInfo) == ["count", "dev"]
    assert sig(driver.cuLogicalEndpointExport) == ["leId", "handleType"]
    assert sig(driver.cuMemGetLocationInfo)[-1] == "location_out"
    from cuda.bindings import cydriver
    assert {"cuCtxCreate_v2", "cuCtxCreate_v3", "cuStreamGetCaptureInfo_v2"} <= set(cydriver.__pyx_capi__)


@pytest.mark.skipif(RELEASE != "13.5", reason="the batch memcpy node is new in 13.x after 13.0")
def test_batch_memcpy_node_sets_dsts_and_srcs_together():
    for cls in (driver.CUDA_MEMCPY_BATCH_NODE_PARAMS, driver.CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st):
        b = cls()
        with pytest.raises(AttributeError, match="set_dsts_srcs"):
            b.dsts = [driver.CUdeviceptr(1)]
        b.set_dsts_srcs([driver.CUdeviceptr(16), 32], [48, driver.CUdeviceptr(64)])
        assert [int(x) for x in b.dsts] == [16, 32] and [int(x) for x in b.srcs] == [48, 64] and b.count == 2
        with pytest.raises(ValueError):
            b.set_dsts_srcs([1, 2], [3])
        b.set_dsts_srcs([], [])
        assert b.count == 0 and b.dsts == []
        b.attrs = [driver.CUmemcpyAttributes()]
        assert b.numAttrs == 1
        b.sizes = 0                         # an address, as NVIDIA's has it
        assert b.sizes == 0


def test_plain_entry_points_ask_for_the_abi_version_of_their_parameters():
    # the ABI version asked of cuGetProcAddress is the one whose C signature the wrapper calls:
    # cuCtxCreate(flags, dev) is cuCtxCreate_v2 (3020) in 12.9, whose headers also declare
    # cuCtxCreate_v3/_v4 with other parameters (asking for 2000 reached no usable entry point);
    # 12.9's cuEventElapsedTime beside cuEventElapsedTime_v2 is the older one
    from cuda.bindings import _symbols_driver
    rows = {r[0]: r for r in _symbols_driver.SYMBOLS}
    if _version.CUDA_MAJOR == 12:
        assert rows["cuCtxCreate"][1:] == (3020, "", 0, "cuCtxCreate_v2")
        assert rows["cuEventElapsedTime"][1] < rows["cuEventElapsedTime_v2"][1] == 12080
    else:
        assert rows["cuCtxCreate"][1:] == (12050, "", 0, "cuCtxCreate_v4")
        assert rows["cuEventElapsedTime"][1:] == (12080, "", 0, "cuEventElapsedTime_v2")


def test_test_helpers_package_exists_where_nvidia_has_it():
    """cuda.core's NVML tests import cuda.bindings._test_helpers.arch_check, which NVIDIA's 12.9.x
    ships and 13.0.3 and 13.5.0 do not: each build has it where its twin has it."""
    name = "cuda.bindings._test_helpers.arch_check"
    if not _version.TEST_HELPERS:
        with pytest.raises(ModuleNotFoundError) as e:
            importlib.import_module(name)
        assert str(e.value) == "No module named 'cuda.bindings._test_helpers'"
        return
    arch_check = importlib.import_module(name)
    assert callable(arch_check.hardware_supports_nvml) and callable(arch_check.unsupported_before)
    assert list(inspect.signature(arch_check.unsupported_before).parameters) == ["device", "expected_device_arch"]


@pytest.mark.skipif(not _version.TEST_HELPERS, reason=f"CUDA {RELEASE}: no _test_helpers, as in NVIDIA's package")
def test_unsupported_before_decides_by_architecture(monkeypatch):
    """The three ways arch_check.unsupported_before treats an NVML query (no GPU: the
    architecture query is replaced by a fixed answer)."""
    from cuda.bindings import nvml
    from cuda.bindings._test_helpers import arch_check

    monkeypatch.setattr(nvml, "device_get_architecture", lambda device: nvml.DeviceArch.AMPERE)
    monkeypatch.setattr(nvml, "device_get_name", lambda device: "GPU-X")
    unsupported = nvml.NotSupportedError(nvml.Return.ERROR_NOT_SUPPORTED)
    # not known beforehand: an unsupported query skips the test, a working one goes on
    with pytest.raises(pytest.skip.Exception, match="Unsupported call for device architecture AMPERE on device 'GPU-X'"):
        with arch_check.unsupported_before(0, None):
            raise unsupported
    with arch_check.unsupported_before(0, "HAS_INFOROM"):
        pass
    # the device is older than asked: the query must be refused, and the test is then skipped
    with pytest.raises(pytest.skip.Exception, match="Unsupported before HOPPER, got GPU-X"):
        with arch_check.unsupported_before(0, nvml.DeviceArch.HOPPER):
            raise unsupported
    with pytest.raises(pytest.fail.Exception):
        with arch_check.unsupported_before(0, nvml.DeviceArch.HOPPER):
            pass
    # new enough: the query must work, its error goes through
    with pytest.raises(nvml.NotSupportedError):
        with arch_check.unsupported_before(0, nvml.DeviceArch.AMPERE):
            raise unsupported
