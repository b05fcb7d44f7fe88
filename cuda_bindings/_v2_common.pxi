# Hand-written part of the generated cuda.bindings._v2 modules (`include`d after
# _module_common.pxi): how their object parameters are converted, as NVIDIA's _v2 modules convert
# them.  The including module defines _BUFFER_ERROR (NVIDIA's message for a refused buffer).

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE
from cpython.bytes cimport PyBytes_FromString, PyBytes_FromStringAndSize
from libc.string cimport memset
from libc.stdlib cimport calloc, free


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
    """A handle the library dereferences, in the first page of memory (no object lies there) or
    negative (in the upper half of the address space, the kernel's)."""
    if v < 0:
        raise ValueError(f"{name} {<uintptr_t>v:#x} is not {what}: a process's objects lie in the lower half of the "
                         "address space")
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


# Outputs of other shapes (emit_v2._Sig._other_shape)

from cuda.bindings._records cimport _numbers_of


cdef bytes _sized_bytes(const void* p, size_t n):
    """An image the library keeps, n bytes at p, as bytes (a copy; b"" for NULL)."""
    return b"" if p == NULL else PyBytes_FromStringAndSize(<const char*>p, n)


cdef object _kept_array(const void* p, size_t n, object dtype):
    """An array of n items of `dtype` that the library keeps at p (valid until its next call on the
    object): a numpy array of a copy of them, read-only as NVIDIA's view of the library's memory
    is; an empty, writable one for NULL or none, as NVIDIA's."""
    import numpy
    dt = numpy.dtype(dtype)
    if p == NULL or n == 0:
        return numpy.empty(0, dtype=dt)
    return numpy.frombuffer(PyBytes_FromStringAndSize(<const char*>p, n * dt.itemsize), dtype=dt)


cdef int _first_page_value(intptr_t v, str name) except -1:
    """An address the library reads a value from, in the first page of memory: nothing lies there."""
    raise ValueError(f"{name} {v:#x} is not the address of a value: nothing lies in the first page of memory")


# Attribute-typed values (docs/v2.md, "Attribute values"): the generated module has a table per
# attribute enum, {member: kind} (overrides.V2_ATTRIBUTES): "i"/"I" a 4-byte signed/unsigned int,
# "q"/"Q" an 8-byte one, "?" a 1-byte bool, "?I" a 4-byte one read as a bool, "s<N>" NUL-ended text
# in N bytes (bytes), "i[]" 4-byte ints filling the caller's data size (a list), and (slot, class
# name) a struct record.

cdef object _attr_kind(dict table, int attr, str what):
    """The kind of attribute `attr`'s value; TypeError (NVIDIA's) for a member without one."""
    k = table.get(attr)
    if k is None:
        raise TypeError(f"Unsupported {what}: {attr}")
    return k


cdef class _AttrValue:
    """The storage of one attribute value (zeroed), and what keeps it alive."""
    cdef object kind
    cdef object keep
    cdef void* ptr
    cdef size_t size
    cdef uint64_t word[2]


cdef _AttrValue _attr_storage(object kind, size_t data_size, bint sized):
    """Storage for a value of `kind`; `sized`: of the caller's data size (at least 8 bytes,
    zeroed, so that a scalar reads its unwritten bytes as 0), else of the kind's own size."""
    cdef _AttrValue v = _AttrValue.__new__(_AttrValue)
    v.kind = kind
    v.word[0] = v.word[1] = 0
    v.ptr = <void*>v.word
    if sized:
        v.keep = _new_zeroed_bytes(data_size if data_size > 8 else 8)
        v.ptr = <void*><char*>v.keep
        v.size = data_size
    elif isinstance(kind, tuple):
        v.keep = _new_record_at(_L, kind[0], kind[1])
        v.ptr = (<_Record>v.keep)._ptr
        v.size = (<_Record>v.keep).nbytes()
    elif kind[0] == "s":
        v.size = int(kind[1:])
        v.keep = _new_zeroed_bytes(v.size + 1)         # a NUL after the text, whatever the library writes
        v.ptr = <void*><char*>v.keep
    else:
        v.size = 1 if kind == "?" else 8 if kind in ("q", "Q") else 4
    return v


cdef object _attr_result(_AttrValue v):
    """The Python value of what the library wrote (the kinds: above)."""
    cdef Py_ssize_t i
    k = v.kind
    if isinstance(k, tuple):
        return v.keep
    if k == "i":
        return (<int32_t*>v.ptr)[0]
    if k == "I":
        return (<uint32_t*>v.ptr)[0]
    if k == "q":
        return (<int64_t*>v.ptr)[0]
    if k == "Q":
        return (<uint64_t*>v.ptr)[0]
    if k == "?":
        return (<uint8_t*>v.ptr)[0] != 0
    if k == "?I":
        return (<uint32_t*>v.ptr)[0] != 0
    if k == "i[]":
        return [(<int32_t*>v.ptr)[i] for i in range(<Py_ssize_t>(v.size // 4))]
    return PyBytes_FromString(<char*>v.ptr)


cdef int _attr_set(_AttrValue v, object value) except -1:
    """Writes a Python value into the storage as its kind says: a bool by its truth, an int by C's
    conversion (Cython's TypeError and OverflowError), text as bytes (the call takes its length)."""
    cdef const char* p
    k = v.kind
    if k == "?" or k == "?I":
        (<uint32_t*>v.ptr)[0] = 1 if value else 0     # little-endian: the first byte too
    elif k == "i":
        (<int32_t*>v.ptr)[0] = <int32_t>value
    elif k == "I":
        (<uint32_t*>v.ptr)[0] = <unsigned int>value
    elif k == "q":
        (<int64_t*>v.ptr)[0] = <int64_t>value
    elif k == "Q":
        (<uint64_t*>v.ptr)[0] = <uint64_t>value
    elif isinstance(k, str) and k[0] == "s":
        if value is not None and not isinstance(value, bytes):
            raise TypeError(f"Expected bytes, got {type(value).__name__}")
        p = value                                       # Cython's TypeError for None
        v.keep = value
        v.ptr = <void*>p
        v.size = len(value)
    else:
        raise TypeError(f"an attribute value of kind {k!r} is not taken")
    return 0


cdef class _AttrList:
    """The C arrays of a call that reads several attributes at once: the attributes (C ints), the
    caller's data sizes, and a pointer to each value's storage (`values`)."""
    cdef Py_ssize_t n
    cdef int* attrs
    cdef size_t* sizes
    cdef void** ptrs
    cdef list values

    def __dealloc__(self):
        free(self.attrs)
        free(self.sizes)
        free(self.ptrs)


cdef _AttrList _attr_list(dict table, str what, object attributes, object data_sizes, bint sized, str names):
    """The attributes (int() of each item, as NVIDIA's) and, `sized`, the data size of each (a
    ValueError, NVIDIA's, where the two differ in length), with storage for each value."""
    cdef _AttrList a = _AttrList.__new__(_AttrList)
    cdef Py_ssize_t i
    cdef list sizes = [<size_t>int(x) for x in data_sizes] if sized else None
    cdef list attrs = [<int>int(x) for x in attributes]
    if sized and len(sizes) != len(attrs):
        raise ValueError(f"{names} must have the same length")
    kinds = [_attr_kind(table, x, what) for x in attrs]
    a.n = len(attrs)
    a.attrs = <int*>calloc(a.n + 1, sizeof(int))
    a.sizes = <size_t*>calloc(a.n + 1, sizeof(size_t))
    a.ptrs = <void**>calloc(a.n + 1, sizeof(void*))
    if a.attrs == NULL or a.sizes == NULL or a.ptrs == NULL:
        raise MemoryError()
    a.values = []
    for i in range(a.n):
        a.attrs[i] = attrs[i]
        v = _attr_storage(kinds[i], sizes[i] if sized else 0, sized)
        a.sizes[i] = (<_AttrValue>v).size
        a.ptrs[i] = (<_AttrValue>v).ptr
        a.values.append(v)
    return a


cdef list _attr_results(_AttrList a):
    return [_attr_result(<_AttrValue>v) for v in a.values]


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
