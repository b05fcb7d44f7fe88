"""The struct classes of the struct-style modules (cuda.bindings._records): what a field reads and
takes, as NVIDIA's classes of the same release do (docs/library-modules.md, "Struct classes").

NVIDIA's module has two kinds of struct class: most hold one C struct and convert a field as Cython
converts a C value; some (NVML's sample and placement structs, cuFile's I/O structs, every cuFile
class of 13.0.3) hold a numpy record array, and read and set every field through numpy.  A
generated module names the second kind (`_records._Space`); `_records._numpy_records` gives a class
the fields of either kind, which the tests below use to show each."""
import ctypes

import numpy as np
import pytest

from _support import LazyModule

nvml = LazyModule("cuda.bindings.nvml")
cufile = LazyModule("cuda.bindings.cufile")
records = LazyModule("cuda.bindings._records")


@pytest.fixture
def numpy_backed():
    """numpy_backed(cls, names): make `cls`'s fields those of NVIDIA's classes, given the names of
    the module's numpy-backed classes; each class is given back its fields after the test."""
    changed = []

    def switch(cls, names):
        changed.append((cls, cls.__dict__.get("_c_numpy_records")))
        records._numpy_records(cls, frozenset(names))
        return cls
    yield switch
    for cls, before in reversed(changed):
        records._numpy_records(cls, before)


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


def test_a_pointer_to_addresses_field():
    # cuDLA's tensor lists (uint64_t *const *) in NVIDIA's module: a Cython memoryview of intptr_t
    # items, a Cython array once set from a list.  The field as the generated module describes
    # it, with items that are addresses, on a subclass of NVIDIA's layout
    cudla = pytest.importorskip("cuda.bindings.cudla")
    off = cudla.task_dtype.fields["input_tensor"][1]
    field = records._RField("input_tensor", off, 12, 8, 1, None, None, 10, "num_input_tensors", 0)
    Task = type("Task", (cudla.Task,), {"__slots__": (), "input_tensor": field})
    Task._c_all = dict(cudla.Task._c_all, input_tensor=field)
    t = Task()
    empty = t.input_tensor
    assert type(empty).__name__ == "_memoryviewslice" and len(empty) == 0
    t.input_tensor = [0x1000, -1]
    got = t.input_tensor
    assert type(got).__name__ == "array" and list(got) == [0x1000, -1]
    count = cudla.task_dtype.fields["num_input_tensors"][1]
    assert _u32(t, count).value == 2
    assert ctypes.c_int64.from_address(_ptr(t, off).value + 8).value == -1
    with pytest.raises(TypeError):
        t.input_tensor = 5                   # no length
    with pytest.raises(TypeError):
        t.input_tensor = [1.5]               # an address is an integer
    # addresses the library wrote: as many as the count says
    buf = (ctypes.c_int64 * 2)(0x2000, 0x3000)
    lib = Task()
    _ptr(lib, off).value = ctypes.addressof(buf)
    _u32(lib, count).value = 2
    assert type(lib.input_tensor).__name__ == "_memoryviewslice" and list(lib.input_tensor) == [0x2000, 0x3000]


# --- NVIDIA's numpy-backed classes --------------------------------------------------------------------

def test_a_numpy_backed_class_reads_nested_structs_and_arrays_as_numpy(numpy_backed):
    Sample = numpy_backed(nvml.Sample, ["Sample"])
    s = Sample()
    v = s.sample_value
    assert isinstance(v, np.recarray) and v.shape == (1,)
    v.ui_val = 7                             # a view: writes reach the struct
    assert s.sample_value.ui_val[0] == 7 and isinstance(s.time_stamp, int)
    assert s.sample_value is not s.sample_value
    Feature = numpy_backed(nvml.GridLicensableFeature, ["GridLicensableFeature"])
    name = Feature().product_name
    assert name.dtype == np.int8 and name.shape == (1, 128)
    Hwbc = numpy_backed(nvml.HwbcEntry, ["HwbcEntry"])
    assert Hwbc().firmware_version.shape == (1, 32)
    Fans = numpy_backed(nvml.UnitFanSpeeds, ["UnitFanSpeeds", "UnitFanInfo"])
    fans = Fans().fans                       # an array of structs no field counts
    assert isinstance(fans, np.recarray) and fans.shape == (1, 24)
    Hist = numpy_backed(nvml.VgpuSchedulerCapabilities, ["VgpuSchedulerCapabilities"])
    numbers = Hist().supported_schedulers    # an array of numbers
    assert numbers.dtype == np.uint32 and numbers.shape == (1, 3)
    two = Sample(2)
    assert isinstance(two.time_stamp, np.ndarray) and two.time_stamp.shape == (2,)
    assert isinstance(two.sample_value, np.recarray) and two.sample_value.shape == (2,)


def test_a_numpy_backed_class_sets_fields_as_numpy_assigns(numpy_backed):
    Sample = numpy_backed(nvml.Sample, ["Sample"])
    s = Sample()
    s.time_stamp = "12"                      # parsed
    assert s.time_stamp == 12
    s.time_stamp = [13]                      # one item
    assert s.time_stamp == 13
    s.time_stamp = 14.9                      # truncated
    assert s.time_stamp == 14
    s.time_stamp = np.int64(-1)              # a numpy integer wraps
    assert s.time_stamp == 2 ** 64 - 1
    with pytest.raises(OverflowError):
        s.time_stamp = -1                    # a Python int must fit
    with pytest.raises(ValueError):
        s.time_stamp = [1, 2]
    s.sample_value = 3                       # broadcast over every field of the union
    assert s.sample_value.ui_val[0] == 3 and s.sample_value.us_val[0] == 3
    value = nvml.Value()
    value.ull_val = 2 ** 40
    s.sample_value = value                   # ours also copies a struct object in
    assert s.sample_value.ull_val[0] == 2 ** 40
    Feature = numpy_backed(nvml.GridLicensableFeature, ["GridLicensableFeature"])
    f = Feature()
    f.product_name = 65                      # char arrays are numbers here
    assert bytes(memoryview(f))[f.product_name.ctypes.data - f.ptr:][:3] == b"AAA"
    with pytest.raises(ValueError):
        f.product_name = "text"              # not a number
    Entry = numpy_backed(nvml.FieldValue, ["FieldValue"])
    e = Entry()
    e.value = 2                              # a nested union, broadcast
    assert e.value.ui_val[0] == 2
    two = Sample(2)
    two.time_stamp = [5, 6]
    assert list(two.time_stamp) == [5, 6] and two[1].time_stamp == 6


def test_an_array_of_one_struct_classes_reads_as_its_first_struct(numpy_backed):
    # in NVIDIA's module an array of structs whose class holds one struct reads as that struct
    if not hasattr(nvml, "GpuFabricInfo_v4"):
        pytest.skip("this build's nvml.h has no nvmlGpuFabricInfo_v4_t")
    Info = numpy_backed(nvml.GpuFabricInfo_v4, [])
    info = Info()
    info.num_cliques = 2
    first = info.cliques
    assert isinstance(first, nvml.GpuFabricClique_v1) and len(first) == 1
    assert first.ptr == info.ptr + nvml.gpu_fabric_info_v4_dtype.fields["cliques"][1]
    assert isinstance(first.id, int)
    # an array of a numpy-backed class still reads as its items
    Hierarchy = numpy_backed(nvml.BridgeChipHierarchy, ["BridgeChipInfo"])
    chips = nvml.BridgeChipInfo(3)
    h = Hierarchy()
    h.bridge_chip_info = chips
    assert len(h.bridge_chip_info) == 3


def test_struct_objects_reused_from_the_free_list_start_clean_and_keep_their_class():
    # the memory of freed struct objects is handed out again (_base's __cb_struct_alloc, a free
    # list per object size): a new object must read zeroed, carry its own class, and the classes'
    # reference counts must come back where they were; a user's subclass with a __dict__ (larger,
    # or on 3.12+ with its dict before the object) is never pooled, and one without is
    import gc
    import sys

    class WithDict(nvml.Memory_v2):
        pass

    class Slim(nvml.Memory_v2):
        __slots__ = ()

    classes = (nvml.Memory_v2, nvml.Utilization, WithDict, Slim)
    gc.collect()
    before = [sys.getrefcount(c) for c in classes]
    for round_ in range(3):
        made = []
        for i in range(200):
            cls = classes[i % len(classes)]
            o = cls()
            assert type(o) is cls and bytes(o.ptr and ctypes.string_at(o.ptr, 8)) == bytes(8)
            if cls is WithDict:
                o.note = i               # its __dict__ works
            if cls is nvml.Utilization:
                o.gpu = i
            else:
                o.total = i
            made.append(o)
        for i, o in enumerate(made):
            assert type(o) is classes[i % len(classes)]
            assert (o.gpu if type(o) is nvml.Utilization else o.total) == i
            if type(o) is WithDict:
                assert o.note == i
        del made, o, cls
        gc.collect()
    assert [sys.getrefcount(c) for c in classes] == before
