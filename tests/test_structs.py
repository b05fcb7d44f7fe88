"""Struct and union classes: fields, views into parent memory, sizeof, repr (no GPU needed)."""
import copy
import ctypes
import gc
import pickle
import re
import weakref

import numpy as np
import pytest

from _support import driver, runtime

from cuda.bindings import _version

# the builds whose enums are NVIDIA's FastEnum kind (12.9, 13.5): an enum field holding no member's
# value raises ValueError there, and reserved fields are hidden, as in NVIDIA's package of those releases
STRICT_ENUM_FIELDS = getattr(_version, "FAST_ENUM", False)


def buffer_address(buf):
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


# --- CUDA_MEMCPY2D -------------------------------------------------------------------------------
# C layout (x86_64): srcXInBytes@0 srcY@8 srcMemoryType@16 srcHost@24 srcDevice@32 srcArray@40
# srcPitch@48 dstXInBytes@56 dstY@64 dstMemoryType@72 dstHost@80 dstDevice@88 dstArray@96
# dstPitch@104 WidthInBytes@112 Height@120, 128 bytes.


def test_memcpy2d_defaults():
    m = driver.CUDA_MEMCPY2D()
    for name in ("srcXInBytes", "srcY", "srcPitch", "dstXInBytes", "dstY", "dstPitch", "WidthInBytes", "Height"):
        value = getattr(m, name)
        assert value == 0 and isinstance(value, int), (name, value)
    if STRICT_ENUM_FIELDS:              # 12.9 and 13.5, as NVIDIA's package of those releases
        with pytest.raises(ValueError, match="0 is not a valid CUmemorytype"):
            m.srcMemoryType
    else:
        assert m.srcMemoryType is None
    assert int(m.srcHost or 0) == 0
    assert int(m.dstDevice) == 0
    assert isinstance(m.dstDevice, driver.CUdeviceptr)


def test_memcpy2d_scalar_fields_round_trip_and_land_in_c_memory():
    m = driver.CUDA_MEMCPY2D()
    m.srcXInBytes = 11
    m.WidthInBytes = 4096
    m.Height = 77
    assert (m.srcXInBytes, m.WidthInBytes, m.Height) == (11, 4096, 77)
    base = m.getPtr()
    assert isinstance(base, int) and base != 0
    assert ctypes.c_size_t.from_address(base + 0).value == 11
    assert ctypes.c_size_t.from_address(base + 112).value == 4096
    assert ctypes.c_size_t.from_address(base + 120).value == 77


def test_memcpy2d_enum_field_returns_member():
    m = driver.CUDA_MEMCPY2D()
    m.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    m.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    assert m.srcMemoryType is driver.CUmemorytype.CU_MEMORYTYPE_HOST
    assert m.dstMemoryType is driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    assert ctypes.c_int.from_address(m.getPtr() + 16).value == 1
    assert ctypes.c_int.from_address(m.getPtr() + 72).value == 2


def test_memcpy2d_void_pointer_field_accepts_int_and_buffers():
    m = driver.CUDA_MEMCPY2D()
    m.srcHost = 0x1000
    assert int(m.srcHost) == 0x1000
    ba = bytearray(64)
    m.srcHost = ba
    assert int(m.srcHost) == buffer_address(ba)
    arr = np.arange(16, dtype=np.float32)
    m.srcHost = arr
    assert int(m.srcHost) == arr.ctypes.data
    assert ctypes.c_void_p.from_address(m.getPtr() + 24).value == arr.ctypes.data


def test_memcpy2d_void_pointer_field_keeps_buffer_alive():
    m = driver.CUDA_MEMCPY2D()
    arr = np.zeros(8)
    alive = weakref.ref(arr)
    m.dstHost = arr
    del arr
    gc.collect()
    assert alive() is not None, "a buffer stored in a void* field must stay alive while the struct holds it"


def test_memcpy2d_device_pointer_field():
    m = driver.CUDA_MEMCPY2D()
    m.dstDevice = 0x7000
    assert isinstance(m.dstDevice, driver.CUdeviceptr)
    assert int(m.dstDevice) == 0x7000
    m.dstDevice = driver.CUdeviceptr(0x8000)
    assert isinstance(m.dstDevice, driver.CUdeviceptr)
    assert int(m.dstDevice) == 0x8000
    assert ctypes.c_uint64.from_address(m.getPtr() + 88).value == 0x8000


def test_memcpy2d_wrong_types_raise_typeerror():
    m = driver.CUDA_MEMCPY2D()
    with pytest.raises(TypeError):
        m.WidthInBytes = "wide"
    with pytest.raises(TypeError):
        m.dstDevice = "somewhere"
    with pytest.raises(TypeError):
        m.srcHost = "text is not a buffer"


def test_memcpy2d_sizeof_and_alias():
    assert driver.sizeof(driver.CUDA_MEMCPY2D) == 128
    assert driver.sizeof(driver.CUDA_MEMCPY2D_v2) == 128
    assert issubclass(driver.CUDA_MEMCPY2D, driver.CUDA_MEMCPY2D_v2)
    assert isinstance(driver.CUDA_MEMCPY2D(), driver.CUDA_MEMCPY2D_v2)


def test_memcpy2d_repr_lists_fields():
    m = driver.CUDA_MEMCPY2D()
    m.WidthInBytes = 5
    m.Height = 3
    text = repr(m)
    assert re.search(r"^WidthInBytes : 5$", text, re.M), text
    assert re.search(r"^Height : 3$", text, re.M), text
    for name in ("srcXInBytes", "srcMemoryType", "srcHost", "dstDevice", "dstPitch"):
        assert re.search(rf"^{name} : ", text, re.M), (name, text)


# --- other structs -------------------------------------------------------------------------------


def test_cuuuid_bytes():
    u = driver.CUuuid()
    assert driver.sizeof(driver.CUuuid) == 16
    assert isinstance(u.bytes, bytes)
    assert u.bytes == b"\0" * 16
    ctypes.memmove(u.getPtr(), b"0123456789abcdef", 16)
    assert u.bytes == b"0123456789abcdef"


def test_culaunchconfig_fields():
    cfg = driver.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = 4, 5, 6
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 128, 2, 1
    cfg.sharedMemBytes = 1024
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) == (4, 5, 6)
    assert (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ) == (128, 2, 1)
    assert cfg.sharedMemBytes == 1024
    cfg.hStream = driver.CUstream(0x42)
    assert isinstance(cfg.hStream, driver.CUstream) and int(cfg.hStream) == 0x42
    cfg.hStream = 0x43
    assert isinstance(cfg.hStream, driver.CUstream) and int(cfg.hStream) == 0x43
    assert driver.sizeof(driver.CUlaunchConfig) == 56


def test_culaunchconfig_attrs_list():
    ids = driver.CUlaunchAttributeID
    a = driver.CUlaunchAttribute()
    a.id = ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    a.value.clusterDim.x = 2
    b = driver.CUlaunchAttribute()
    b.id = ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    b.value.cooperative = 1
    cfg = driver.CUlaunchConfig()
    assert cfg.attrs == []
    cfg.attrs = [a, b]
    cfg.numAttrs = 2
    got = cfg.attrs
    assert cfg.numAttrs == 2
    assert len(got) == 2
    assert all(isinstance(x, driver.CUlaunchAttribute) for x in got)
    assert got[0].id is ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    assert got[0].value.clusterDim.x == 2
    assert got[1].id is ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    assert got[1].value.cooperative == 1


def test_nested_union_is_a_view_into_parent_memory():
    attr = driver.CUlaunchAttribute()
    assert driver.sizeof(driver.CUlaunchAttribute) == 72
    attr.value.clusterDim.x = 2
    assert attr.value.clusterDim.x == 2
    # the union sits at offset 8 of CUlaunchAttribute, clusterDim.x at offset 0 of the union
    assert attr.value.getPtr() == attr.getPtr() + 8
    assert ctypes.c_uint32.from_address(attr.getPtr() + 8).value == 2
    view = attr.value
    view.clusterDim.y = 3
    assert attr.value.clusterDim.y == 3
    assert ctypes.c_uint32.from_address(attr.getPtr() + 12).value == 3


def test_kernel_node_params_fields():
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    p.func = driver.CUfunction(0x10)
    assert isinstance(p.func, driver.CUfunction) and int(p.func) == 0x10
    p.func = 0x20
    assert isinstance(p.func, driver.CUfunction) and int(p.func) == 0x20
    p.gridDimX = 9
    assert p.gridDimX == 9
    ptrs = np.zeros(3, dtype=np.uint64)
    p.kernelParams = ptrs.ctypes.data
    assert int(p.kernelParams) == ptrs.ctypes.data
    p.kernelParams = ptrs
    assert int(p.kernelParams) == ptrs.ctypes.data
    assert driver.sizeof(driver.CUDA_KERNEL_NODE_PARAMS) == 72


def test_kernel_params_field_keeps_its_buffer_alive():
    # the field holds the buffer's address, so the struct keeps the buffer until the field changes
    p = driver.CUDA_KERNEL_NODE_PARAMS()
    ptrs = np.array([0x1000, 0x2000], dtype=np.uint64)
    addr, ref = ptrs.ctypes.data, weakref.ref(ptrs)
    p.kernelParams = ptrs
    del ptrs
    gc.collect()
    assert ref() is not None and int(p.kernelParams) == addr
    p.kernelParams = 0
    gc.collect()
    assert ref() is None and int(p.kernelParams) == 0


def test_cudevprop_array_fields():
    prop = driver.CUdevprop()
    assert driver.sizeof(driver.CUdevprop) == 56
    assert prop.maxThreadsDim == [0, 0, 0]
    prop.maxThreadsDim = [1024, 512, 64]
    got = prop.maxThreadsDim
    assert isinstance(got, list) and got == [1024, 512, 64]
    assert all(isinstance(v, int) for v in got)
    # maxThreadsPerBlock (int) at 0, maxThreadsDim[3] at 4
    addr = prop.getPtr()
    assert [ctypes.c_int.from_address(addr + 4 + 4 * i).value for i in range(3)] == [1024, 512, 64]
    prop.maxThreadsPerBlock = 256
    assert prop.maxThreadsPerBlock == 256


# --- what the reference package's structs do, field by field ---------------------------------------


def test_buffer_in_a_nested_field_is_kept_alive_by_the_outermost_struct():
    # the nested members are views made for this one assignment; the buffer must outlive them
    params = driver.CUgraphNodeParams()
    arr = np.arange(64, dtype=np.uint8)
    alive = weakref.ref(arr)
    params.memcpy.copyParams.dstHost = arr
    del arr
    gc.collect()
    assert alive() is not None
    assert params.memcpy.copyParams.dstHost == alive().ctypes.data
    params.memcpy.copyParams.dstHost = 0      # replacing the pointer releases it
    gc.collect()
    assert alive() is None


def test_struct_copied_into_a_field_brings_what_it_keeps_alive():
    copy = driver.CUDA_MEMCPY3D()
    arr = np.zeros(16)
    alive = weakref.ref(arr)
    copy.srcHost = arr
    params = driver.CUgraphNodeParams()
    params.memcpy.copyParams = copy
    del arr, copy
    gc.collect()
    assert alive() is not None and params.memcpy.copyParams.srcHost == alive().ctypes.data


def test_repr_is_field_lines_with_nested_members_indented():
    params = driver.CUgraphNodeParams()
    params.memcpy.copyParams.srcHost = 0x10
    params.memcpy.copyParams.WidthInBytes = 7
    lines = repr(params).splitlines()
    # 12.9 and 13.5 (FastEnum, as NVIDIA's) show an enum field's member, and say that a field
    # holding no member's value raises; 13.0 shows the number and None, as NVIDIA's 13.0.3
    kernel, no_member = (("<CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL: 0>", "<ValueError>") if STRICT_ENUM_FIELDS
                         else ("0", "None"))
    assert lines[0] == f"type : {kernel}"
    i = lines.index("memcpy :")
    j = lines.index("    copyParams :", i)
    assert "        srcHost : 0x10" in lines[j:] and "        WidthInBytes : 7" in lines[j:]
    assert f"        srcMemoryType : {no_member}" in lines[j:]   # 0 names no CUmemorytype member
    assert not any(line.startswith("<") for line in lines)


def test_structs_compare_and_hash_by_identity():
    a, b = driver.CUDA_MEMCPY2D(), driver.CUDA_MEMCPY2D()
    assert a != b and a == a
    assert len({a, b, a}) == 2


@pytest.mark.parametrize("value, stored", [(17 / 8, 2), (7.9, 7), (np.int64(5), 5), (True, 1),
                                            (driver.CUdevice(3), 3)])
def test_integer_fields_take_what_the_c_conversion_takes(value, stored):
    d = runtime.dim3()
    d.x = value            # a sample ported line by line computes `width / 8`
    assert d.x == stored and isinstance(d.x, int)


@pytest.mark.parametrize("value, error", [(-1, OverflowError), (2**32, OverflowError), ("3", TypeError),
                                          (None, TypeError)])
def test_integer_fields_refuse_what_does_not_fit(value, error):
    with pytest.raises(error, match="^x"):
        runtime.dim3().x = value


def test_pointer_array_of_a_union_takes_ints():
    frame = driver.CUeglFrame()
    frame.frame.pPitch = [4, 2, 3]
    assert frame.frame.pPitch == [4, 2, 3]
    assert [ctypes.c_void_p.from_address(frame.getPtr() + 8 * i).value for i in range(3)] == [4, 2, 3]
    frame.frame.pArray = [1, driver.CUarray(2), 3]
    assert frame.frame.pArray == [driver.CUarray(1), driver.CUarray(2), driver.CUarray(3)]
    with pytest.raises(IndexError):
        frame.frame.pArray = [1]


def test_struct_array_field_is_copied_by_value():
    frame = runtime.cudaEglFrame()
    pitched = runtime.cudaPitchedPtr()
    pitched.pitch = 77
    frame.frame.pPitch = [pitched, runtime.cudaPitchedPtr(), pitched]
    pitched.pitch = 1                      # a copy was taken
    got = frame.frame.pPitch
    assert [p.pitch for p in got] == [77, 0, 77]
    assert all(isinstance(p, runtime.cudaPitchedPtr) for p in got)


def test_char_array_takes_bytes_or_a_list_of_byte_values():
    h = driver.CUipcMemHandle()
    h.reserved = b"ab" + bytes(62)
    assert h.reserved[:3] == b"ab\0" and len(h.reserved) == 64
    h.reserved = [1, -1, 255, -128] + [0] * 60
    assert h.reserved[:5] == b"\x01\xff\xff\x80\0"
    for bad, error in (([256] * 64, OverflowError), ([-129] * 64, OverflowError), (["a"] * 64, TypeError),
                       ("a" * 64, TypeError)):
        with pytest.raises(error):
            h.reserved = bad


@pytest.mark.parametrize("cls, field, size", [("driver.CUipcMemHandle", "reserved", 64),
                                              ("runtime.cudaIpcEventHandle_t", "reserved", 64),
                                              ("driver.CUmemFabricHandle", "data", 64),
                                              ("driver.CUuuid", "bytes", 16),
                                              ("runtime.cudaDeviceProp", "luid", 8),
                                              ("driver.CUgraphEdgeData", "reserved", 5)])
def test_binary_char_array_takes_exactly_its_size(cls, field, size):
    """As in NVIDIA's package: a handle, UUID or LUID cut short would reach the driver as another
    one, so a value of another length is refused (ValueError naming the field and both lengths)."""
    module, _, name = cls.partition(".")
    obj = getattr(driver if module == "driver" else runtime, name)()
    if field == "reserved" and not hasattr(obj, field):
        assert STRICT_ENUM_FIELDS, f"{cls}.{field} is hidden in a build that shows reserved fields"
        return                          # hidden in this release's build, as in NVIDIA's
    setattr(obj, field, bytes(range(1, size + 1)))
    for bad in (b"\x07\x08", bytes(size + 1), b"", [1, 2], bytearray(size - 1)):
        with pytest.raises(ValueError, match=f"^{field} length must be {size}, is {len(bad)}$"):
            setattr(obj, field, bad)
        assert getattr(obj, field) == bytes(range(1, size + 1))      # unchanged
    setattr(obj, field, bytearray(size))
    assert getattr(obj, field) == bytes(size)


def test_c_string_char_array_takes_a_shorter_value_nul_terminated():
    props = runtime.cudaDeviceProp()
    props.name = b"x" * 256
    props.name = b"GPU"
    assert props.name == b"GPU"
    assert ctypes.string_at(props.getPtr(), 256) == b"GPU" + bytes(253)     # name is the first field
    props.name = b"y" * 256                                                # no room for a NUL: C's strncpy
    assert props.name == b"y" * 256
    with pytest.raises(ValueError, match="name holds at most 256 bytes, got 257"):
        props.name = b"z" * 257
    assert props.name == b"y" * 256


def test_pointer_and_count_fields_take_lists_of_handles_and_structs():
    node = runtime.cudaExternalSemaphoreSignalNodeParams()
    node.extSemArray = [runtime.cudaExternalSemaphore_t(1), 2]
    params = runtime.cudaExternalSemaphoreSignalParams()
    params.flags = 5
    node.paramsArray = [params]
    node.numExtSems = 2
    assert node.extSemArray == [runtime.cudaExternalSemaphore_t(1), runtime.cudaExternalSemaphore_t(2)]
    got = node.paramsArray
    assert len(got) == 1 and got[0].flags == 5
    # the C struct points at the copies
    base = node.getPtr()
    sems = ctypes.c_void_p.from_address(base).value
    assert [ctypes.c_void_p.from_address(sems + 8 * i).value for i in range(2)] == [1, 2]
    with pytest.raises(TypeError):
        node.paramsArray = [runtime.cudaPitchedPtr()]


def test_pointer_field_written_by_c_reads_as_many_items_as_its_count_field():
    # after cuGraphAddNode the driver points phGraph_out at `size` graphs
    cond = driver.CUDA_CONDITIONAL_NODE_PARAMS()
    graphs = (ctypes.c_void_p * 2)(0x11, 0x22)
    assert cond.phGraph_out == []
    # CUDA_CONDITIONAL_NODE_PARAMS: handle@0 type@8 size@12 phGraph_out@16
    ctypes.c_void_p.from_address(cond.getPtr() + 16).value = ctypes.addressof(graphs)
    cond.size = 2
    assert cond.phGraph_out == [driver.CUgraph(0x11), driver.CUgraph(0x22)]


# --- pickling and copying --------------------------------------------------------------------------

def test_struct_pickles_as_its_bytes_nested_members_included():
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 3
    prop.requestedHandleTypes = driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    back = pickle.loads(pickle.dumps(prop))
    assert type(back) is driver.CUmemAllocationProp and back.getPtr() != prop.getPtr()
    size = driver.sizeof(driver.CUmemAllocationProp)
    assert ctypes.string_at(back.getPtr(), size) == ctypes.string_at(prop.getPtr(), size)
    assert back.location.id == 3
    props = runtime.cudaDeviceProp()
    props.name = b"device"
    props.maxThreadsDim = [1, 2, 3]
    back = pickle.loads(pickle.dumps(props, protocol=pickle.HIGHEST_PROTOCOL))
    assert back.name == b"device" and back.maxThreadsDim == [1, 2, 3]
    # a view (T(_ptr=...), a nested member) pickles as the bytes it views, into an owned struct
    view = driver.CUmemLocation(_ptr=prop.location.getPtr())
    back = pickle.loads(pickle.dumps(view))
    assert back.id == 3 and back.getPtr() != view.getPtr()


def test_struct_with_an_address_in_a_pointer_or_handle_field_does_not_pickle():
    m = driver.CUDA_MEMCPY2D()
    m.WidthInBytes = 8
    assert pickle.loads(pickle.dumps(m)).WidthInBytes == 8          # every pointer NULL
    m.srcHost = bytearray(8)
    with pytest.raises(TypeError, match=r"CUDA_MEMCPY2D\.srcHost holds the address 0x[0-9a-f]+, which means nothing"):
        pickle.dumps(m)
    m.srcHost = None
    pickle.dumps(m)
    params = driver.CUDA_KERNEL_NODE_PARAMS()
    params.func = driver.CUfunction(0x1000)
    with pytest.raises(TypeError, match=r"CUDA_KERNEL_NODE_PARAMS\.func holds"):
        pickle.dumps(params)
    node = driver.CUgraphNodeParams()                                 # nested, in a union
    node.kernel.kernelParams = 0x2000
    with pytest.raises(TypeError, match=r"CUgraphNodeParams\.kernel\.kernelParams holds"):
        pickle.dumps(node)


def test_struct_rebuilt_from_bytes_of_another_size_is_refused():
    reduce = driver.CUuuid().__reduce__()
    rebuild, (cls, data) = reduce
    assert cls is driver.CUuuid and data == bytes(16)
    with pytest.raises(ValueError, match="CUuuid has 16 bytes, got 3"):
        rebuild(cls, b"abc")
    with pytest.raises(TypeError):
        rebuild(int, bytes(16))


def test_struct_copies_own_their_bytes_and_keep_what_the_original_keeps_alive():
    m = driver.CUDA_MEMCPY2D()
    arr = np.arange(4, dtype=np.uint8)
    alive = weakref.ref(arr)
    m.srcHost = arr
    m.Height = 2
    copies = [copy.copy(m), copy.deepcopy(m)]
    for c in copies:
        assert type(c) is driver.CUDA_MEMCPY2D and c.getPtr() != m.getPtr()
        assert c.Height == 2 and c.srcHost == m.srcHost            # the same address, as in C
    address = m.srcHost
    del m, arr
    gc.collect()
    assert alive() is not None, "a copy keeps the buffer its pointer field points at alive"
    assert ctypes.string_at(address, 4) == bytes([0, 1, 2, 3])
    copies[0].Height = 7
    assert copies[1].Height == 2
    del copies, c
    gc.collect()
    assert alive() is None


# --- nested members, array items and anonymous members, as NVIDIA's package has them ----------------


def test_a_nested_member_read_twice_is_the_same_object():
    k = driver.CUDA_RESOURCE_DESC()
    assert k.res is k.res and k.res.array is k.res.array
    m = k.res.linear
    m.sizeInBytes = 99                        # a view: writes reach the parent
    assert k.res.linear.sizeInBytes == 99
    assert k.res.linear is not k.res.array    # the members of a union are objects of their own


def test_a_nested_member_keeps_its_parent_alive_and_both_are_freed_together():
    # the parent keeps the view (the same object on every read), the view keeps the parent: a
    # cycle, freed by the garbage collector with what the parent keeps alive (a buffer)
    params = driver.CUgraphNodeParams()
    arr = np.zeros(8, dtype=np.uint8)
    alive = weakref.ref(arr)
    params.memcpy.copyParams.srcHost = arr
    view = params.memcpy.copyParams
    del arr, params
    gc.collect()
    assert alive() is not None and view.srcHost == alive().ctypes.data
    del view
    gc.collect()
    assert alive() is None


def test_a_nested_member_does_not_follow_a_struct_copy():
    p = driver.CUDA_RESOURCE_DESC()
    p.res.linear.sizeInBytes = 5
    c = copy.copy(p)
    assert c.res is not p.res and c.res.linear.sizeInBytes == 5
    c.res.linear.sizeInBytes = 6
    assert p.res.linear.sizeInBytes == 5


def test_an_array_of_structs_reads_as_copies_and_is_set_by_value():
    frame = runtime.cudaEglFrame()
    x = frame.frame.pPitch[0]
    x.pitch = 5                               # a copy: the frame is left as it is
    assert frame.frame.pPitch[0].pitch == 0
    assert frame.frame.pPitch[0] is not frame.frame.pPitch[0]
    frame.frame.pPitch = [x, x, x]
    x.pitch = 9                               # copied in: changing x afterwards changes nothing
    assert [p.pitch for p in frame.frame.pPitch] == [5, 5, 5]


def test_an_array_of_structs_copy_keeps_what_the_parent_keeps_for_it():
    frame = runtime.cudaEglFrame()
    arr = np.zeros(8, dtype=np.uint8)
    alive = weakref.ref(arr)
    frame.frame.pPitch[1].ptr = arr           # through a copy: the frame is left as it is
    assert frame.frame.pPitch[1].ptr == 0
    pitched = runtime.cudaPitchedPtr()
    pitched.ptr = arr
    frame.frame.pPitch = [runtime.cudaPitchedPtr(), pitched, runtime.cudaPitchedPtr()]
    del arr, pitched
    gc.collect()
    item = frame.frame.pPitch[1]
    del frame
    gc.collect()
    assert alive() is not None and item.ptr == alive().ctypes.data


def test_an_array_of_structs_repr_is_the_lists_text_under_its_name():
    lines = repr(runtime.cudaEglFrame()).splitlines()
    i = lines.index("    pPitch :")
    assert lines[i + 1] == "        [ptr : 0x0"
    assert lines[i + 2:i + 5] == ["        pitch : 0", "        xsize : 0", "        ysize : 0, ptr : 0x0"]


def test_an_anonymous_members_type_takes_the_address_of_the_struct_holding_it():
    """NVIDIA's package: anon_struct0(_ptr=a) views the `res.array` member of a CUDA_RESOURCE_DESC
    at a, 8 bytes on (the member's offset, through anonymous members in between)."""
    desc = driver.CUDA_RESOURCE_DESC()
    a = desc.getPtr()
    res = type(desc.res)
    array = type(desc.res.array)
    assert res.__name__.startswith("anon_") and array.__name__.startswith("anon_")
    assert res(_ptr=a).getPtr() == desc.res.getPtr() == a + 8
    assert array(_ptr=a).getPtr() == desc.res.array.getPtr() == a + 8
    desc.res.array.hArray = 0x1234
    assert int(array(_ptr=a).hArray) == 0x1234
    # a named struct's _ptr is its own address, a nested member's offset is not added
    assert driver.CUDA_ARRAY_DESCRIPTOR(_ptr=a).getPtr() == a
    prop = driver.CUmemAllocationProp()
    flags = type(prop.allocFlags)
    assert flags(_ptr=prop.getPtr()).getPtr() == prop.allocFlags.getPtr() == prop.getPtr() + 24


def test_a_float_in_a_pointer_field_is_an_address_where_nvidias_package_takes_one():
    k = driver.CUDA_KERNEL_NODE_PARAMS()
    k.extra = 2.5                  # void**: truncated, in every release
    assert k.extra == 2
    k.func = 3.9                   # a handle
    assert int(k.func) == 3
    h = driver.CUDA_HOST_NODE_PARAMS()
    h.fn = 4.2                     # a function pointer
    assert int(h.fn) == 4
    with pytest.raises(TypeError):
        k.kernelParams = 2.5       # kernel parameters: not an address
    if STRICT_ENUM_FIELDS:         # a void*: 12.9.10 and 13.5.0 truncate it, 13.0.3 refuses it
        h.userData = 5.5
        assert h.userData == 5
    else:
        with pytest.raises(TypeError, match="^userData"):
            h.userData = 5.5


def test_a_lone_pointer_to_an_integer_type_reads_as_an_object_viewing_it():
    """CUmemDecompressParams.dstActBytes (`cuuint32_t *`, where the driver writes the size) reads
    as NVIDIA's package reads it: a cuuint32_t viewing the memory it points to (for NULL a new
    one holding 0); it is set to a cuuint32_t object (kept alive), a buffer or an address."""
    if not hasattr(driver, "CUmemDecompressParams"):
        pytest.skip("no CUmemDecompressParams in this release")
    p = driver.CUmemDecompressParams()
    v = p.dstActBytes
    assert type(v) is driver.cuuint32_t and int(v) == 0
    assert "dstActBytes : <cuuint32_t 0>" in repr(p).splitlines()
    target = driver.cuuint32_t(7)
    p.dstActBytes = target
    assert p.dstActBytes.getPtr() == target.getPtr() and int(p.dstActBytes) == 7
    ctypes.c_uint32.from_address(target.getPtr()).value = 12        # what the driver writes
    assert int(p.dstActBytes) == 12 and int(target) == 12
    buf = bytearray(4)
    p.dstActBytes = buf
    assert int(p.dstActBytes) == 0 and p.dstActBytes.getPtr() == ctypes.addressof(ctypes.c_char.from_buffer(buf))
    cell = ctypes.c_uint32(9)
    p.dstActBytes = ctypes.addressof(cell)
    assert int(p.dstActBytes) == 9
    p.dstActBytes = None
    assert int(p.dstActBytes) == 0 and p.dstActBytes.getPtr() != p.getPtr()
    with pytest.raises(ValueError, match="first page"):
        p.dstActBytes = 1                  # a number, not an address: reading it back would crash
    with pytest.raises(TypeError):
        p.dstActBytes = 1.5
