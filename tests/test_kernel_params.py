"""Kernel-parameter packing, inspected without a GPU.

`cuda.bindings._base._inspect_kernel_params(obj)` packs `obj` exactly as `cuLaunchKernel`'s
`kernelParams` would and reports what the packed `void*[]` points to: a list with one `bytes`
per argument (the bytes each pointer points to). For a raw buffer of pointers, whose argument
sizes it cannot know, it returns the pointer values as ints. `None` and `0` give `[]`.
"""
import ctypes
import struct

import numpy as np
import pytest

from _support import base, driver


def inspect(obj):
    return base._inspect_kernel_params(obj)


@pytest.mark.parametrize("empty", [None, 0])
def test_no_arguments(empty):
    assert inspect(empty) == []


def test_single_float():
    got = inspect(((2.0,), (ctypes.c_float,)))
    assert got == [struct.pack("=f", 2.0)]
    assert isinstance(got[0], bytes)


def test_float_is_packed_as_float32():
    # 0.1 is not exact in binary: a float64 packing would give other bytes and another size
    assert inspect(((0.1,), (ctypes.c_float,))) == [struct.pack("=f", 0.1)]


def test_scalar_types():
    values = (-3, 200, -(2**40), 1.5, 2**63 + 5, True, 2**32 - 1, -7)
    types = (
        ctypes.c_int,
        ctypes.c_uint8,
        ctypes.c_int64,
        ctypes.c_double,
        ctypes.c_size_t,
        ctypes.c_bool,
        ctypes.c_uint,
        ctypes.c_longlong,
    )
    expected = [
        struct.pack("=i", -3),
        struct.pack("=B", 200),
        struct.pack("=q", -(2**40)),
        struct.pack("=d", 1.5),
        struct.pack("=Q", 2**63 + 5),
        struct.pack("=?", True),
        struct.pack("=I", 2**32 - 1),
        struct.pack("=q", -7),
    ]
    assert inspect((values, types)) == expected


def test_values_may_be_a_list():
    assert inspect(([1, 2], [ctypes.c_int, ctypes.c_short])) == [struct.pack("=i", 1), struct.pack("=h", 2)]


def test_many_arguments_keep_their_order():
    n = 24
    got = inspect((tuple(range(n)), (ctypes.c_int,) * n))
    assert got == [struct.pack("=i", i) for i in range(n)]


def test_void_pointer_with_int_address():
    arr = np.zeros(4, dtype=np.float32)
    assert inspect(((arr.ctypes.data,), (ctypes.c_void_p,))) == [struct.pack("=Q", arr.ctypes.data)]


def test_void_pointer_with_object_having_getptr():
    # c_void_p with a binding object passes getPtr(), the address of its value, as the reference
    # package does (with a `_ptr=` object that is the address it was made with)
    dptr = driver.CUdeviceptr(0x5678)
    stream = driver.CUstream(0x9)
    params = driver.CUDA_MEMCPY2D()
    got = inspect(((dptr, stream, params), (ctypes.c_void_p,) * 3))
    assert got == [struct.pack("=Q", x.getPtr()) for x in (dptr, stream, params)]


def test_none_type_with_binding_object_passes_its_value():
    got = inspect(((driver.CUdeviceptr(0x1234), driver.CUstream(0x55)), (None, None)))
    assert got == [struct.pack("=Q", 0x1234), struct.pack("=Q", 0x55)]


class Pair(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_float), ("z", ctypes.c_double)]


def test_none_type_with_ctypes_structure_passes_its_bytes():
    s = Pair(3, 1.5, -2.25)
    (got,) = inspect(((s,), (None,)))
    assert len(got) == ctypes.sizeof(Pair)
    assert got == bytes(s)


def test_none_type_with_enum_passes_four_bytes():
    got = inspect(((driver.CUmemorytype.CU_MEMORYTYPE_DEVICE,), (None,)))
    assert got == [struct.pack("=i", 2)]


def test_mixed_tuple_like_saxpy():
    got = inspect(((2.0, driver.CUdeviceptr(0x1000), driver.CUdeviceptr(0x2000), 1 << 20),
                   (ctypes.c_float, None, None, ctypes.c_size_t)))
    assert got == [struct.pack("=f", 2.0), struct.pack("=Q", 0x1000), struct.pack("=Q", 0x2000),
                   struct.pack("=Q", 1 << 20)]


def test_numpy_array_of_pointers_gives_the_pointer_values():
    a = np.array([2.0], dtype=np.float32)
    x = np.array([0x1000], dtype=np.uint64)
    n = np.array([7], dtype=np.uint64)
    ptrs = np.array([a.ctypes.data, x.ctypes.data, n.ctypes.data], dtype=np.uint64)
    assert inspect(ptrs) == [a.ctypes.data, x.ctypes.data, n.ctypes.data]


def test_a_buffer_of_the_type_last_seen_still_goes_through_every_check():
    # the buffer protocol is tried first for the type of the last buffer seen (a numpy array):
    # an array of that type the protocol refuses must still raise, and a buffer of another type
    # must still give its own address
    ptrs = np.array([0x1000, 0x2000], dtype=np.uint64)
    assert inspect(ptrs) == [0x1000, 0x2000]
    with pytest.raises(ValueError, match="contiguous"):
        inspect(np.zeros((4, 4), dtype=np.uint64)[:, 1])
    assert inspect(bytearray(struct.pack("=QQ", 0x3000, 0x4000))) == [0x3000, 0x4000]
    assert inspect(ptrs[::-1].copy()) == [0x2000, 0x1000]
    with pytest.raises(TypeError, match="float"):
        inspect(2.5)


def test_ctypes_array_of_pointers_gives_the_pointer_values():
    ptrs = (ctypes.c_void_p * 2)(0x1111, 0x2222)
    assert inspect(ptrs) == [0x1111, 0x2222]


@pytest.mark.parametrize(
    "bad",
    [
        ((1, 2), (ctypes.c_int,)),
        ((1,), (ctypes.c_int, ctypes.c_int)),
    ],
)
def test_length_mismatch_raises(bad):
    with pytest.raises((TypeError, ValueError)):
        inspect(bad)


def test_unsupported_type_raises_typeerror():
    with pytest.raises(TypeError):
        inspect(((1,), (str,)))


def test_unsupported_value_for_none_type_raises_typeerror():
    with pytest.raises(TypeError):
        inspect((("not an argument",), (None,)))


def test_same_types_tuple_reused_with_new_values_packs_the_new_values():
    # a launch loop passes one types tuple every time: the per-types plan is cached, the values not
    types = (ctypes.c_int, None, ctypes.c_void_p, ctypes.c_double)
    for i in range(3):
        got = inspect(((i, driver.CUdeviceptr(0x1000 + i), 0x2000 + i, i / 2), types))
        assert got == [struct.pack("=i", i), struct.pack("=Q", 0x1000 + i), struct.pack("=Q", 0x2000 + i),
                       struct.pack("=d", i / 2)]
    # another tuple right after (new plan), then a list of types (never cached), then the first again
    assert inspect(((7,), (ctypes.c_short,))) == [struct.pack("=h", 7)]
    assert inspect(([1.5], [ctypes.c_float])) == [struct.pack("=f", 1.5)]
    assert inspect(((5, driver.CUdeviceptr(9), 10, 0.5), types))[0] == struct.pack("=i", 5)


def test_wide_value_with_none_type_among_narrow_ones():
    # a struct wider than a slot, passed with type None, after narrow arguments: sized one by one
    s = Pair(1, 2.0, 3.0)
    got = inspect(((4, s, driver.CUdeviceptr(0x77)), (ctypes.c_int, None, None)))
    assert got == [struct.pack("=i", 4), bytes(s), struct.pack("=Q", 0x77)]


def test_error_names_the_item_once():
    with pytest.raises(TypeError, match=r"^kernelParams item 1: "):
        inspect(((1, 2.5), (ctypes.c_int, ctypes.c_int)))
    with pytest.raises(OverflowError, match=r"^kernelParams item 0: "):
        inspect(((1 << 40,), (ctypes.c_int,)))


@pytest.mark.parametrize("value, ctype, expected", [
    (ctypes.c_bool(True), ctypes.c_bool, b"\x01"),
    (ctypes.c_int(-5), ctypes.c_int, struct.pack("<i", -5)),
    (ctypes.c_uint8(200), ctypes.c_uint8, b"\xc8"),
    (ctypes.c_double(2.5), ctypes.c_double, struct.pack("<d", 2.5)),
    (ctypes.c_float(1.5), ctypes.c_float, struct.pack("<f", 1.5)),
    (ctypes.c_char(b"z"), ctypes.c_char, b"z"),
])
def test_ctypes_instances_of_the_listed_types_pass_their_value(value, ctype, expected):
    assert inspect(((value,), (ctype,))) == [expected]
