# Hand-written part of every generated module (`include`d, so the status helpers stay inline in
# each module's own C): the lazy-class hooks, `sizeof` and the status fast path.  The including
# module defines `_L` (its _Lazy namespace) and `_STATUS_NAME` (its status enum: CUresult, ...).

# the tuple-style modules (driver, runtime, NVRTC) convert some arguments as NVIDIA's tuple-style
# modules do (_base.pxd's __cb_tuple_style, a C variable of this module)
from cuda.bindings._base cimport __cb_tuple_style
__cb_tuple_style = __name__ in ("cuda.bindings.driver", "cuda.bindings.runtime", "cuda.bindings.nvrtc")

# a handle or integer class derived from another generated class is freed as fast as that one
from cuda.bindings._base cimport _fast_classes
_fast_classes(globals())

def __getattr__(name):
    """Enum and struct classes are created on first use (see cuda.bindings._base._Lazy)."""
    return _L.attr(name)

def __dir__():
    return _L.names()

def sizeof(objType):
    """C size in bytes of a binding type (struct, handle, integer or enum class)."""
    if isinstance(objType, type):
        if issubclass(objType, _Struct):
            return objType._c_size
        if issubclass(objType, _Handle):
            return sizeof_ptr()
        if issubclass(objType, _IntValue):
            return objType._c_size
        import enum
        if issubclass(objType, enum.IntEnum) or (issubclass(objType, int) and hasattr(objType, "_value2member_map_")):
            return 4
    raise TypeError(f"sizeof() argument 'objType' must be a binding type (a struct, handle, integer "
                    f"or enum class), not {objType!r}")

cdef inline size_t sizeof_ptr():
    return sizeof(void*)

# The status enum is made on the first call that returns (no import cost); after that every
# return reuses its members (one pointer test on the success path).
cdef list _status_by_value = None
cdef object _SUCCESS = None
cdef tuple _OK1 = None   # (success,): what a call with no outputs returns, shared

cdef object _status_init():
    global _status_by_value, _SUCCESS, _OK1
    cls = _L.cls(_STATUS_NAME)
    t = [None] * 1024
    for m in cls:
        if 0 <= m.value < 1024:
            t[m.value] = m
    _status_by_value = t
    _OK1 = (t[0],)
    _SUCCESS = t[0]
    return _SUCCESS

cdef inline object _ok():
    if _SUCCESS is None:
        return _status_init()
    return _SUCCESS

cdef inline object _st(int err):
    cdef object r
    if _status_by_value is None:
        _status_init()
    if 0 <= err < 1024:
        r = _status_by_value[err]
        if r is not None:
            return r
    return _enum(_L.cls(_STATUS_NAME)._value2member_map_, None, err)

cdef inline tuple _st1(int err):
    if err == 0 and _OK1 is not None:
        return _OK1
    return (_st(err),)

cdef int _st_raise(int err) except -1:
    if err != 0:
        raise RuntimeError(f'size query failed: {_st(err)!r}')
    return 0
