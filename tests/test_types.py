"""Handle classes, integer typedef classes and callback pointer types (no GPU needed)."""
import ctypes
import operator

import pytest

from _support import base, driver, nvrtc, runtime

HANDLES = [
    ("driver", "CUstream"),
    ("driver", "CUcontext"),
    ("driver", "CUevent"),
    ("driver", "CUmodule"),
    ("driver", "CUfunction"),
    ("driver", "CUgraph"),
    ("nvrtc", "nvrtcProgram"),
]
MODULES = {"driver": driver, "nvrtc": nvrtc}


def handle_class(module, name):
    return getattr(MODULES[module], name)


@pytest.fixture(params=HANDLES, ids=[name for _, name in HANDLES])
def handle_cls(request):
    return handle_class(*request.param)


def test_handle_default_is_null(handle_cls):
    h = handle_cls()
    assert int(h) == 0
    assert repr(h) == f"<{handle_cls.__name__} 0x0>"


def test_handle_from_int(handle_cls):
    h = handle_cls(5)
    assert int(h) == 5
    assert operator.index(h) == 5
    assert repr(h) == f"<{handle_cls.__name__} 0x5>"
    big = handle_cls(0xDEADBEEF0)
    assert repr(big) == f"<{handle_cls.__name__} 0xdeadbeef0>"
    assert int(big) == 0xDEADBEEF0


def test_handle_getptr_points_at_the_value(handle_cls):
    h = handle_cls(0x1234ABCD)
    addr = h.getPtr()
    assert isinstance(addr, int) and addr != 0
    assert ctypes.c_void_p.from_address(addr).value == 0x1234ABCD


def test_handle_equality_and_hash(handle_cls):
    assert handle_cls(5) == handle_cls(5)
    assert handle_cls(5) != handle_cls(6)
    assert hash(handle_cls(5)) == hash(handle_cls(5))
    assert len({handle_cls(5), handle_cls(5), handle_cls(7)}) == 2
    table = {handle_cls(9): "nine"}
    assert table[handle_cls(9)] == "nine"


def test_handles_of_different_types_are_not_equal():
    assert driver.CUstream(5) == driver.CUstream(5)
    assert driver.CUstream(5) != driver.CUevent(5)
    assert not (driver.CUcontext(3) == driver.CUmodule(3))


def test_handle_rejects_bad_values(handle_cls):
    with pytest.raises((OverflowError, ValueError)):
        handle_cls(-1)
    with pytest.raises(TypeError):
        handle_cls("x")


def test_handle_accepts_another_handle_like_object():
    # anything with __int__/__index__ converts (e.g. a runtime stream given to a driver call)
    s = driver.CUstream(driver.CUevent(0x40))
    assert int(s) == 0x40


# --- integer typedef classes -----------------------------------------------------------------


def test_cudeviceptr():
    p = driver.CUdeviceptr(7)
    assert repr(p) == "<CUdeviceptr 7>"
    assert int(p) == 7
    addr = p.getPtr()
    assert isinstance(addr, int) and addr != 0
    assert ctypes.c_uint64.from_address(addr).value == 7
    assert int(driver.CUdeviceptr()) == 0
    top = driver.CUdeviceptr(2**64 - 1)
    assert int(top) == 2**64 - 1
    assert repr(top) == f"<CUdeviceptr {2**64 - 1}>"


def test_cudeviceptr_range_checked():
    with pytest.raises(OverflowError):
        driver.CUdeviceptr(2**64)
    with pytest.raises(OverflowError):
        driver.CUdeviceptr(-1)


def test_cudevice():
    d = driver.CUdevice(3)
    assert int(d) == 3
    assert repr(d) == "<CUdevice 3>"
    assert ctypes.c_int.from_address(d.getPtr()).value == 3


def test_cuuint_typedefs():
    v = driver.cuuint32_t(2**32 - 1)
    assert int(v) == 2**32 - 1
    assert repr(driver.cuuint32_t(5)) == "<cuuint32_t 5>"
    assert ctypes.c_uint32.from_address(v.getPtr()).value == 2**32 - 1
    with pytest.raises(OverflowError):
        driver.cuuint32_t(2**32)
    w = driver.cuuint64_t(2**64 - 1)
    assert int(w) == 2**64 - 1
    with pytest.raises(OverflowError):
        driver.cuuint64_t(2**64)


# --- callbacks ---------------------------------------------------------------------------------

HOST_FN_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def test_cuhostfn_from_ctypes_function_address():
    calls = []
    fn = HOST_FN_TYPE(lambda user_data: calls.append(user_data))
    addr = ctypes.cast(fn, ctypes.c_void_p).value
    h = driver.CUhostFn(addr)
    assert int(h) == addr
    assert repr(h) == f"<CUhostFn {hex(addr)}>"
    assert ctypes.c_void_p.from_address(h.getPtr()).value == addr
    # the stored address is the real function: calling it through ctypes reaches the Python callable
    HOST_FN_TYPE(int(h))(0x77)
    assert calls == [0x77]


# --- `_ptr=`: a view of the value stored at an address, not a copy ---------------------------------


def test_handle_ptr_views_the_memory_at_the_address(handle_cls):
    slot = ctypes.c_void_p(0x1234)
    h = handle_cls(_ptr=ctypes.addressof(slot))
    assert h.getPtr() == ctypes.addressof(slot)
    assert int(h) == 0x1234
    slot.value = 0x5678            # a later write by anyone is what the object shows
    assert int(h) == 0x5678 and repr(h) == f"<{handle_cls.__name__} 0x5678>"
    assert h == handle_cls(0x5678) and hash(h) == hash(handle_cls(0x5678))


@pytest.mark.parametrize("module, name, size, value", [
    ("driver", "CUdeviceptr", 8, 0xDEAD0000BEEF),
    ("driver", "CUdevice", 4, -7),
    ("driver", "cuuint32_t", 4, 0xFFFFFFFF),
    ("runtime", "cudaSurfaceObject_t", 8, 42),
])
def test_integer_ptr_views_the_memory_at_the_address(module, name, size, value):
    from cuda.bindings import runtime
    cls = getattr({"driver": driver, "runtime": runtime}[module], name)
    ctype = {(8, False): ctypes.c_uint64, (4, False): ctypes.c_uint32, (4, True): ctypes.c_int32}[(size, value < 0)]
    cell = (ctype * 2)(0, 0x55)          # the neighbour must not be read or written
    v = cls(_ptr=ctypes.addressof(cell))
    assert v.getPtr() == ctypes.addressof(cell) and int(v) == 0
    cell[0] = value
    assert int(v) == value and repr(v) == f"<{name} {value}>"
    assert cell[1] == 0x55


def test_ptr_view_as_a_c_void_p_kernel_argument_passes_the_address():
    # (values, types) with c_void_p takes getPtr() of binding objects: for a `_ptr=` object the
    # kernel must receive the address given, not a private copy's
    from cuda.bindings import runtime
    cell = ctypes.c_uint64(99)
    surf = runtime.cudaSurfaceObject_t(_ptr=ctypes.addressof(cell))
    packed = base._inspect_kernel_params(((surf,), (ctypes.c_void_p,)))
    assert packed == [ctypes.addressof(cell).to_bytes(8, "little")]


def test_ptr_zero_makes_an_owned_value():
    v = driver.CUdeviceptr(5, _ptr=0)
    assert int(v) == 5 and v.getPtr() != 0


# --- what NVIDIA's package takes and how its objects compare ----------------------------------------


@pytest.mark.parametrize("value, stored", [(1.7, 1), (-0.5, 0), (2.0, 2)])
def test_a_float_handle_is_truncated_as_nvidias_package_truncates_it(value, stored):
    # handle and function-pointer classes, NVRTC's program: int(value), as NVIDIA's conversion does
    assert int(driver.CUstream(value)) == stored
    assert int(driver.CUhostFn(value)) == stored
    assert int(nvrtc.nvrtcProgram(value)) == stored


def test_a_float_integer_typedef_is_truncated():
    assert int(driver.CUdeviceptr(3.9)) == 3
    assert int(driver.CUdevice(-1.5)) == -1        # a signed C int
    with pytest.raises(OverflowError):
        driver.CUdeviceptr(-1.5)                   # -1 does not fit an unsigned type
    with pytest.raises(OverflowError):
        driver.CUstream(-1.5)
    with pytest.raises(ValueError):
        driver.CUstream(float("nan"))
    with pytest.raises(TypeError):
        driver.CUstream("5")


def test_integer_typedef_objects_compare_and_hash_by_identity():
    """As in NVIDIA's package: two CUdevice objects of one device are not equal (their ints are)."""
    a, b = driver.CUdevice(5), driver.CUdevice(5)
    assert a == a and a != b and not (a == b)
    assert int(a) == int(b)
    assert hash(a) == object.__hash__(a) and hash(b) == object.__hash__(b)
    assert len({a, b, a}) == 2
    assert driver.CUdeviceptr(7) != driver.CUdeviceptr(7)


def test_function_pointer_objects_compare_and_hash_by_identity_handles_by_value():
    f, g = driver.CUhostFn(5), driver.CUhostFn(5)
    assert f == f and f != g
    assert hash(f) == object.__hash__(f)
    r = runtime.cudaStreamCallback_t(5)
    assert r != runtime.cudaStreamCallback_t(5)
    # an opaque handle still compares and hashes by its value
    assert driver.CUstream(5) == driver.CUstream(5) and hash(driver.CUstream(5)) == hash(driver.CUstream(5))
    assert runtime.cudaStream_t(5) == runtime.cudaStream_t(5)
