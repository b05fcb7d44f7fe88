"""The struct classes of the struct-style modules (cuda.bindings._records): what a field reads and
takes, as NVIDIA's classes of the same release do (docs/library-modules.md, "Struct classes")."""
import ctypes

import numpy as np
import pytest

from _support import LazyModule

nvml = LazyModule("cuda.bindings.nvml")
cufile = LazyModule("cuda.bindings.cufile")


def _u32(obj, offset):
    return ctypes.c_uint32.from_address(obj.ptr + offset)


def _ptr(obj, offset):
    return ctypes.c_void_p.from_address(obj.ptr + offset)


# --- fields of the classes that hold one struct -------------------------------------------------------

def test_an_address_field_is_an_intptr_t():
    # NVIDIA's classes store an address as an intptr_t: a negative number is kept as it is and an
    # address reads back signed; a class that holds one struct refuses a float (Cython's intptr_t
    # conversion)
    io = cufile.IOParams()
    io.fh = -1
    fh = cufile.io_params_dtype.fields["fh"][1]
    assert io.fh == -1 and bytes(memoryview(io))[fh:fh + 8] == b"\xff" * 8
    io.fh = 0x7000
    assert io.fh == 0x7000
    io.fh = 2 ** 64 - 2                    # ours also takes the addresses from 2**63 up: the same bits
    assert io.fh == -2
    with pytest.raises(OverflowError):
        io.fh = 2 ** 64
    ev = nvml.EventData()
    ev.device_ = -7                          # a handle field
    assert ev.device_ == -7
    with pytest.raises(TypeError, match="device_"):
        ev.device_ = 2.5
    ev.device_ = None
    assert ev.device_ == 0


def test_a_c_string_field():
    info = cufile.RDMAInfo()
    assert info.desc_str == ""               # NULL reads as empty text, as in NVIDIA's classes
    info.desc_str = "mlx5_0"
    assert info.desc_str == "mlx5_0"
    info.desc_str = b"mlx5_1"
    assert info.desc_str == "mlx5_1"
    with pytest.raises(TypeError, match="desc_str"):
        info.desc_str = 5                    # not text
    with pytest.raises(TypeError, match="desc_str"):
        info.desc_str = [1, 2]
    info.desc_str = None
    assert info.desc_str == ""
    if hasattr(nvml, "SetMemoryLimits_v1"):
        lim = nvml.SetMemoryLimits_v1()
        assert lim.name_space == ""
        lim.name_space = "gpu0"
        assert lim.name_space == "gpu0"


def test_a_counted_array_with_no_item_in_use_is_an_empty_float_array():
    report = nvml.ConfComputeGpuAttestationReport()
    empty = report.attestation_report
    assert isinstance(empty, np.ndarray) and empty.dtype == np.float64 and empty.shape == (0,)
    report.attestation_report = [7, 8, 9]
    got = report.attestation_report
    assert got.dtype == np.uint8 and list(got) == [7, 8, 9]
    got[0] = 1                               # a view of the struct's bytes
    assert list(report.attestation_report) == [1, 8, 9]


def test_a_pointer_to_numbers_field():
    info = nvml.VgpuTypeIdInfo_v1()
    assert info.vgpu_type_ids == [] and type(info.vgpu_type_ids) is list      # NULL: an empty list
    with pytest.raises(TypeError, match="vgpu_type_ids"):
        info.vgpu_type_ids = 3               # a number is not a list of them
    info.vgpu_type_ids = [4, 5]
    assert list(info.vgpu_type_ids) == [4, 5] and _u32(info, 4).value == 2
    # numbers the library wrote: a view of as many as the count says
    buf = (ctypes.c_uint32 * 3)(11, 12, 13)
    lib = nvml.VgpuTypeIdInfo_v1()
    _u32(lib, 4).value = 3
    _ptr(lib, 8).value = ctypes.addressof(buf)
    ids = lib.vgpu_type_ids
    assert ids.dtype == np.uint32 and list(ids) == [11, 12, 13]
    ids[0] = 99
    assert buf[0] == 99
    _ptr(lib, 8).value = None
    assert lib.vgpu_type_ids == []
