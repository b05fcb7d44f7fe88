"""Enums and #define constants (no GPU needed)."""
import enum

import pytest

from cuda.bindings._version import CUDA_VERSION, FAST_ENUM

from _support import driver, nvrtc

if FAST_ENUM:     # 12.9 and 13.5: NVIDIA's package of those releases makes FastEnum classes
    from cuda.bindings._internal._fast_enum import FastEnum as ENUM_BASE
else:
    ENUM_BASE = enum.IntEnum


def test_curesult_is_an_int_enum():
    assert issubclass(driver.CUresult, ENUM_BASE)
    success = driver.CUresult.CUDA_SUCCESS
    assert isinstance(success, int)
    assert success == 0
    assert success.name == "CUDA_SUCCESS"
    assert success.value == 0
    assert repr(success) == "<CUresult.CUDA_SUCCESS: 0>"


def test_enum_lookup_by_value_returns_the_singleton():
    assert driver.CUresult(0) is driver.CUresult.CUDA_SUCCESS
    assert driver.CUresult(1) is driver.CUresult.CUDA_ERROR_INVALID_VALUE
    assert driver.CUresult.__members__["CUDA_ERROR_NOT_FOUND"] is driver.CUresult.CUDA_ERROR_NOT_FOUND


def test_enum_unknown_value_raises_valueerror():
    with pytest.raises(ValueError):
        driver.CUresult(123456)


def test_enum_iteration_yields_members():
    members = list(driver.CUresult)
    assert len(members) > 50
    assert members[0] is driver.CUresult.CUDA_SUCCESS
    assert all(isinstance(m, driver.CUresult) for m in members)
    assert driver.CUresult.CUDA_ERROR_NOT_READY in members
    names = {m.name for m in members}
    assert {"CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_NOT_FOUND"} <= names


@pytest.mark.parametrize(
    "enum_name, member, value",
    [
        ("CUresult", "CUDA_ERROR_INVALID_VALUE", 1),
        ("CUresult", "CUDA_ERROR_NOT_FOUND", 500),
        ("CUresult", "CUDA_ERROR_NOT_READY", 600),
        ("CUdevice_attribute", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", 75),
        ("CUdevice_attribute", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", 76),
        ("CUdevice_attribute", "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", 16),
        ("CUmemorytype", "CU_MEMORYTYPE_HOST", 1),
        ("CUmemorytype", "CU_MEMORYTYPE_DEVICE", 2),
        ("CUpointer_attribute", "CU_POINTER_ATTRIBUTE_MEMORY_TYPE", 2),
        ("CUpointer_attribute", "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL", 9),
        ("CUfunction_attribute", "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", 0),
        ("CUstreamCaptureMode", "CU_STREAM_CAPTURE_MODE_GLOBAL", 0),
        ("CUstream_flags", "CU_STREAM_NON_BLOCKING", 1),
    ],
)
def test_driver_enum_values(enum_name, member, value):
    cls = getattr(driver, enum_name)
    assert issubclass(cls, ENUM_BASE)
    m = getattr(cls, member)
    assert isinstance(m, cls)
    assert m.value == value
    assert m == value
    assert cls(value) == m


def test_nvrtc_result_enum():
    cls = nvrtc.nvrtcResult
    assert issubclass(cls, ENUM_BASE)
    assert cls.NVRTC_SUCCESS == 0
    assert cls.NVRTC_ERROR_COMPILATION == 6
    assert cls(6) is cls.NVRTC_ERROR_COMPILATION
    assert repr(cls.NVRTC_ERROR_COMPILATION) == "<nvrtcResult.NVRTC_ERROR_COMPILATION: 6>"


@pytest.mark.parametrize(
    "name, value",
    [
        ("CUDA_VERSION", CUDA_VERSION),     # the release this build is for
        ("CU_STREAM_LEGACY", 1),
        ("CU_STREAM_PER_THREAD", 2),
        ("CU_LAUNCH_PARAM_END", 0),
        ("CU_LAUNCH_PARAM_BUFFER_POINTER", 1),
        ("CU_LAUNCH_PARAM_BUFFER_SIZE", 2),
        ("CU_IPC_HANDLE_SIZE", 64),
    ],
)
def test_module_constants(name, value):
    got = getattr(driver, name)
    assert isinstance(got, int)
    assert got == value


def test_an_enum_typedef_of_another_is_a_class_of_its_own_with_the_same_members():
    """`typedef CUlaunchAttributeID CUstreamAttrID;`: NVIDIA's package makes CUstreamAttrID a
    class of its own, whose members are named and valued as CUlaunchAttributeID's."""
    from cuda.bindings import runtime
    for mod, base, aliases in ((driver, "CUlaunchAttributeID", ("CUstreamAttrID", "CUkernelNodeAttrID")),
                               (runtime, "cudaLaunchAttributeID", ("cudaStreamAttrID", "cudaKernelNodeAttrID"))):
        E = getattr(mod, base)
        for name in aliases:
            A = getattr(mod, name)
            assert A is not E and A.__name__ == name and issubclass(A, ENUM_BASE)
            assert [(m.name, int(m)) for m in A] == [(m.name, int(m)) for m in E]
            first = list(A)[1]
            assert type(first) is A and repr(first) == f"<{name}.{first.name}: {int(first)}>"
            assert first == getattr(E, first.name)          # equal as ints
            assert getattr(mod, name) is A                  # made once


def test_enum_docstrings_come_from_the_header_comments():
    """An enum's __doc__ is its header comment, laid out as NVIDIA's package lays it out; a member's
    is its own comment in the FastEnum builds (None where the header has none) and the class's in
    the IntEnum build, as in NVIDIA's package of each release.  cuda.core builds its message for a
    failed graph update from a CUgraphExecUpdateResult member's docstring."""
    from cuda.bindings import runtime

    cls = driver.CUgraphExecUpdateResult
    assert cls.__doc__ == "\n    CUDA Graph Update error types\n    "
    member = cls.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
    rt = runtime.cudaGraphExecUpdateResult.cudaGraphExecUpdateErrorTopologyChanged
    if FAST_ENUM:
        assert member.__doc__ == rt.__doc__ == "The update failed because the topology changed\n"
        for m in cls:
            assert m.__doc__.strip()
        # a member the header gives no comment has none
        assert driver.CUCoredumpGenerationFlags.CU_COREDUMP_DEFAULT_FLAGS.__doc__ is None
    else:
        assert member.__doc__ == cls.__doc__ and rt.__doc__ == runtime.cudaGraphExecUpdateResult.__doc__
    # an enum typedef of another has the other's docstring
    assert driver.CUstreamAttrID.__doc__ == driver.CUlaunchAttributeID.__doc__
    assert "Launch attributes enum" in driver.CUlaunchAttributeID.__doc__
    assert "NVRTC API functions return nvrtcResult" in " ".join(nvrtc.nvrtcResult.__doc__.split())


def test_enum_docstrings_are_read_on_first_use_only():
    code = ("import sys\nfrom cuda.bindings import driver\n"
            "driver.CUresult.CUDA_SUCCESS\n"
            "assert 'cuda.bindings._enumdocs_driver' not in sys.modules\n"
            "assert driver.CUresult.__doc__.strip() == 'Error codes'\n"
            "assert 'cuda.bindings._enumdocs_driver' in sys.modules\n")
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
