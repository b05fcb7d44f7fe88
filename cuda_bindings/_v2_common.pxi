# Hand-written part of the generated cuda.bindings._v2 modules (`include`d after
# _module_common.pxi): how their object parameters are converted, as NVIDIA's _v2 modules convert
# them.  The including module defines _BUFFER_ERROR (NVIDIA's message for a refused buffer).

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE
from cpython.bytes cimport PyBytes_FromString, PyBytes_FromStringAndSize
from libc.string cimport memset


cdef intptr_t _struct_address(object o) except? -1:
    """A struct parameter: a struct object (int() of it is its address), an int address, or None
    (NULL)."""
    if o is None:
        return 0
    return int(o)


cdef _Record _record_of(object o, type cls):
    """A struct passed by value: an object of its class (TypeError naming both otherwise)."""
    if not isinstance(o, cls):
        raise TypeError(f"Cannot convert {type(o).__name__} to {cls.__module__}.{cls.__qualname__}")
    return <_Record>o


cdef void* _buffer_address(object o, bint writable) except? NULL:
    """A buffer parameter: an int address, None (NULL), or a contiguous buffer (writable where the
    library writes it), whose memory the call takes; the caller's reference keeps it alive for the
    call.  Anything else: ValueError with NVIDIA's message."""
    cdef Py_buffer view
    cdef void* p
    if o is None:
        return NULL
    if isinstance(o, int):
        return <void*><intptr_t>o
    try:
        PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS | (PyBUF_WRITABLE if writable else 0))
    except Exception as e:
        raise ValueError(_BUFFER_ERROR.format(adj="writable " if writable else "", size=-1)) from e
    p = view.buf
    PyBuffer_Release(&view)
    return p


cdef _Buf _kernel_params(object o, void** out):
    """Kernel arguments: an array of their addresses (a buffer, or its int address), None, or
    (values, types), packed as cuda.bindings.driver packs them (docs/porting.md)."""
    out[0] = NULL
    if o is None:
        return None
    if isinstance(o, int) and o < 0:        # an address, as NVIDIA's _v2 passes any int (see _v2_array)
        out[0] = <void*><intptr_t>o
        return None
    return _kparams(o, out)


cdef _Buf _v2_array(object o, str kind, Py_ssize_t elsize):
    """An array parameter: what _base._array takes (a list or tuple of the items, None, a buffer,
    an int address), and a negative int too, passed on as the intptr_t address it is, as NVIDIA's
    _v2 passes every int it is given (the tuple style refuses a negative address: OverflowError)."""
    cdef _Buf b
    if isinstance(o, int) and o < 0:
        b = _Buf.__new__(_Buf)
        b.ptr = NULL
        b.n = -1                # an address (_bufptr): b.size is the pointer
        b.size = <Py_ssize_t><intptr_t>o
        return b
    return _array(o, kind, elsize)


cdef bytes _cbytes(const char* p):
    """Text the library keeps, as bytes (b"" for NULL, as NVIDIA's)."""
    return b"" if p == NULL else PyBytes_FromString(p)


cdef bytes _text_arg(object o, str name, str kind):
    """A C string NVIDIA's module takes as a str (kind "str", UTF-8), or as bytes or None (kind
    "bytes_or_none")."""
    if kind == "str":
        if not isinstance(o, str):
            raise TypeError(f"{name} must be a Python str")
        return (<str>o).encode()
    if o is None or isinstance(o, bytes):
        return o
    raise TypeError(f"Expected bytes, got {type(o).__name__}")


cdef object _bytes_list(object o, char*** out, int* n):
    """A list of C strings given as a sequence of bytes (None or empty: none); returns what keeps
    the array alive."""
    cdef _Buf b
    cdef Py_ssize_t i
    cdef char* item
    out[0] = NULL
    n[0] = 0
    if o is None:
        return None
    items = list(o)
    if not items:
        return None
    b = _Buf_new(len(items) * sizeof(char*))
    for i in range(len(items)):
        item = items[i]         # Cython's TypeError for anything but bytes, as NVIDIA's
        (<char**>b.ptr)[i] = item
    out[0] = <char**>b.ptr
    n[0] = len(items)
    return (b, items)


cdef bytes _new_bytes(size_t n):
    """A new bytes object of n bytes, for the library to fill (no other reference to it yet)."""
    return PyBytes_FromStringAndSize(NULL, n)


cdef bytes _new_zeroed_bytes(size_t n):
    """_new_bytes, its n bytes zeroed: what the library leaves unwritten reads as NULs."""
    cdef bytes b = PyBytes_FromStringAndSize(NULL, n)
    memset(<char*>b, 0, n)
    return b


cdef object _first(object a, size_t n):
    """The first n items of an array the library filled: the array itself where it filled as many
    as the array holds, else a view of that many."""
    return a if <size_t>len(a) == n else a[:n]


# The guards of arguments the library would crash on (docs/v2.md, "Bad inputs"): the generated
# wrapper makes the one comparison (`<uintptr_t>v - 1 < 4095`: in the first page of memory, not
# 0) and calls these only to raise.

cdef int _first_page_handle(intptr_t v, str name, str what) except -1:
    """A handle the library dereferences, in the first page of memory: no object lies there."""
    raise ValueError(f"{name} {v:#x} is not {what}: no such object lies in the first page of memory")


cdef int _first_page_address(intptr_t v, str name) except -1:
    """An address the library writes to, in the first page of memory: nothing lies there."""
    raise ValueError(f"{name} {v:#x} is not an address to write to: nothing lies in the first page of memory")


cdef void* _cstr_address(object o) except? NULL:
    """A C string parameter: as _buffer_address, but an int address in the first page of memory,
    or in the upper half of the address space (negative as an intptr_t: the kernel's, never a
    process's memory), is refused (ValueError): the library would read the text there and crash."""
    cdef void* p = _buffer_address(o, False)
    if <uintptr_t>p - 1 < 4095:
        raise ValueError(f"{<uintptr_t>p:#x} is not the address of a C string: nothing lies in the first page of memory")
    if <intptr_t>p < 0:
        raise ValueError(f"{<uintptr_t>p:#x} is not the address of a C string: a process's memory lies in the lower "
                         "half of the address space")
    return p


cdef object _path_arg(object o):
    """A path NVIDIA's module takes as a str only (TypeError for anything else): a str, UTF-8
    encoded, for _cstr_address, which also takes what ours takes beyond it (bytes or a buffer, an
    int address, None)."""
    return (<str>o).encode() if isinstance(o, str) else o


# Arrays NVIDIA's _v2 takes as buffers whose length is the count the library takes
# (overrides.V2_SIGNATURES "buffers": memcpy_batch_async, device_get_host_atomic_capabilities).

cdef int _get_items(object o, Py_buffer* v, bint optional) except -1:
    """The memory of an array given as a contiguous buffer (TypeError or the exporter's own error
    otherwise, as NVIDIA's); None, where the array is optional: none (itemsize 0).  Released at
    once: the caller's reference keeps the memory alive for the call."""
    if o is None and optional:
        v.buf, v.len, v.itemsize = NULL, 0, 0
        return 0
    PyObject_GetBuffer(o, v, PyBUF_ANY_CONTIGUOUS)
    PyBuffer_Release(v)
    return 0


cdef size_t _count_items(Py_buffer* v, Py_ssize_t size, bint raw, str name) except? <size_t>-1:
    """How many items of `size` bytes the buffer holds; its items must be of that size (or, where
    `raw`, a struct array, bytes of a multiple of it): ValueError with NVIDIA's message otherwise."""
    if v.itemsize == 0 and v.buf == NULL:
        return 0
    if v.itemsize != size and not (raw and v.itemsize == 1 and v.len % size == 0):
        raise ValueError(f"{name} must hold items of {size} bytes, got {v.itemsize}-byte items")
    return <size_t>(v.len // size)


cdef object _new_items(size_t n, str dtype):
    """A zeroed numpy array of n items of `dtype` for the library to fill, as NVIDIA's returns."""
    import numpy
    return numpy.zeros(n, dtype)


cdef void* _items_address(object a) except? NULL:
    """The memory of an array made by _new_items."""
    cdef Py_buffer v
    PyObject_GetBuffer(a, &v, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE)
    PyBuffer_Release(&v)
    return v.buf
