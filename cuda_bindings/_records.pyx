# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Struct classes in the style of NVIDIA's cufile, nvml, nvfatbin and cudla modules.

One mechanism for the four modules (docs/library-modules.md, "Struct classes"): a class holds the
C memory of one struct or of an array of them (`T()`, `T(size)`, or a view: `T.from_ptr`,
`T.from_buffer`, `T.from_data`); its fields are descriptors reading and writing that memory at the
offsets the C compiler gave (the generated module's layout tables, as for the other modules'
struct classes); each class has a numpy structured dtype with the same layout (`<name>_dtype` in
its module).  The classes are made on first use by the module's `_Lazy` namespace, which hands
the records it holds to `_Space.make`; numpy is imported only when a dtype, an array field or a
view of several structs is asked for.  Hand-written; the generated modules hold the tables."""
cimport cython
from cpython.mem cimport PyMem_Calloc
from libc.string cimport memcpy, memset, memcmp
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t
from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release, PyBuffer_FillInfo, PyBUF_ANY_CONTIGUOUS,
                             PyBUF_WRITABLE, PyBUF_SIMPLE)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.long cimport PyLong_AsVoidPtr, PyLong_FromVoidPtr
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cython.view cimport array as cvarray
from cuda.bindings._base cimport _Struct, _Lazy, _Handle, _IntValue, _struct_class, _cls_at

include "_field_kinds.pxi"

cdef extern from *:
    """
    static PyObject *__cb_rec_tp_new(PyObject *t, PyObject *args) {
        return ((PyTypeObject *)t)->tp_new((PyTypeObject *)t, args, NULL);
    }
    """
    object _tp_new "__cb_rec_tp_new"(object t, object args)

cdef tuple _NOARGS = ()
cdef char* _FORMAT_B = "B"
cdef object _np = None

# field flags (the 7th item of a field spec in a records module's _STRUCTS line)
DEF R_HIDDEN = 1   # no property: a count of a sibling array, or reserved bytes
DEF R_BINARY = 2   # a char array of binary data: read as a numpy int8 array, not as text


cdef object _numpy():
    global _np
    if _np is None:
        import numpy
        _np = numpy
    return _np


cdef inline _Record _root(_Record r):
    """The record whose memory r is part of (itself unless it is a view of another record)."""
    while isinstance(r._owner, _Record):
        r = <_Record>r._owner
    return r


cdef int _alloc(_Record r, Py_ssize_t n, Py_ssize_t size) except -1:
    """Zeroed memory for `n` structs of `size` bytes: the record's own inline bytes where they
    fit (the object is zeroed when made, and freed with it), else from Python's allocator."""
    if n < 0:
        raise ValueError(f"size cannot be negative: {n}")
    if n * size <= <Py_ssize_t>sizeof(r._small) and n * size > 0:
        r._ptr = <char*>r._small
    else:
        r._ptr = <char*>PyMem_Calloc(n if n > 0 else 1, size if size > 0 else 1)
        if r._ptr == NULL:
            raise MemoryError()
        r._own = True
    r._n = n
    return 0


cdef _Record _new_record(type cls, Py_ssize_t n):
    """A zeroed record of `n` structs of class `cls` (owning its memory)."""
    cdef _Record r = <_Record>_tp_new(cls, _NOARGS)
    _alloc(r, n, cls._c_size)
    return r


cdef _Record _new_record_at(_Lazy L, Py_ssize_t i, str name):
    """A zeroed record of one struct of class `name`, the i-th of the module's struct table (what
    the wrappers return: the class by its index, the size from the table, not from the class)."""
    cdef _Record r = <_Record>_tp_new(_cls_at(L, i, name), _NOARGS)
    _alloc(r, 1, L.ssize[i])
    return r


cdef _Record _record_view(type cls, void* p, Py_ssize_t n, object owner, bint readonly):
    """A record over memory someone else owns (`owner` is kept alive)."""
    cdef _Record r = <_Record>_tp_new(cls, _NOARGS)
    r._ptr = <char*>p
    r._own = False
    r._owner = owner
    r._n = n
    r._ro = readonly
    return r


cdef void* _record_ptr(object o, type cls, str name) except? NULL:
    """A struct argument: a record of `cls` (or of a class of the same C size: an alias), an int
    address (a float too, truncated, as NVIDIA's package takes it), or None (NULL).  An address in
    the first page of memory, where nothing can lie, is refused: the library would read the struct
    there and crash."""
    if isinstance(o, _Record):
        if isinstance(o, cls):
            return (<_Record>o)._ptr
        raise TypeError(f"{name} must be a {cls.__name__}, not {type(o).__name__}")
    if o is None:
        return NULL
    if isinstance(o, float):
        o = int(o)
    if isinstance(o, int) and not isinstance(o, bool):
        if o < 0:
            raise OverflowError(f"{name}: an address cannot be negative: {o}")
        if 0 < o < 4096:
            raise ValueError(f"{name}: {o:#x} is no struct's address: nothing lies in the first page of memory")
        return PyLong_AsVoidPtr(o)
    raise TypeError(f"{name} must be a {cls.__name__} or an address (int), not {type(o).__name__}")


@cython.final
cdef class _RField:
    """One field of a record class (see the module docstring)."""
    cdef public str name
    cdef Py_ssize_t off
    cdef readonly int kind
    cdef int size            # item size
    cdef Py_ssize_t count    # array length (1 for a scalar)
    cdef object cls          # the nested record class (or its name until first use)
    cdef _Lazy ns
    cdef int ekind           # item kind of an array
    cdef str countname       # the field that counts this array's items ("" if none)
    cdef int flags
    cdef _RField counter     # that field, once looked up
    cdef bint np_rec         # a field of a numpy-record class (_Space: NVIDIA's numpy-backed classes)
    cdef bint single_items   # an array of a class that holds one struct in NVIDIA's module: reads as its first item

    def __init__(self, str name, Py_ssize_t off, int kind, int size, Py_ssize_t count, cls, _Lazy ns,
                 int ekind, str countname, int flags):
        self.name = name
        self.off = off
        self.kind = kind
        self.size = size
        self.count = count
        self.cls = cls
        self.ns = ns
        self.ekind = ekind
        self.countname = countname
        self.flags = flags
        self.counter = None

    cdef inline object item_cls(self):
        if type(self.cls) is str:
            self.cls = self.ns.cls(self.cls)
        return self.cls

    cdef _RField count_field(self, type owner):
        if self.counter is None and self.countname:
            self.counter = <_RField>owner._c_all[self.countname]
        return self.counter

    cdef Py_ssize_t items(self, _Record r, char* base):
        """How many items of this array field are in use: its count field's value (at most the
        array's length), or the whole array."""
        cdef _RField c = self.count_field(type(r))
        cdef long long v
        if c is None:
            return self.count
        v = _read_int(base + c.off, c.kind, c.size)
        if v < 0:
            return 0
        if self.kind == F_ARRAY and v > self.count:
            return self.count
        return v

    cdef object get_numbers(self, _Record r, char* base):
        """A pointer-to-numbers field: the numpy array set from Python while the pointer is still
        its memory (as many items as a count field says, if there is one), else a view of the items
        the count field says are there (none without one); an empty list while the pointer is NULL
        (as NVIDIA's module reads it)."""
        cdef char* p = base + self.off
        cdef char* q = (<char**>p)[0]
        cdef Py_ssize_t n
        cdef _RField c
        np = _numpy()
        fmt = np.dtype(_item_format(self.ekind, self.size))
        kept = _kept(r, p)
        n = self.items(r, base) if self.countname else -1
        c = self.count_field(type(r))
        if isinstance(kept, np.ndarray) and q != NULL and PyLong_AsVoidPtr(kept.ctypes.data) == <void*>q:
            # a count the class shows is the caller's to set: the array reads whole
            return kept if c is None or not (c.flags & R_HIDDEN) or n >= len(kept) else kept[:n]
        if q == NULL:
            return []
        if n <= 0:
            return np.zeros(0, dtype=fmt)
        return np.frombuffer(_Span.of(q, n * self.size, _root(r), r._ro), dtype=fmt)

    cdef object get_addresses(self, _Record r, char* base):
        """A pointer to addresses (cuDLA's tensor lists), read as NVIDIA's module reads it: the
        Cython array set from Python while the pointer is still its memory, else a Cython
        memoryview of the intptr_t items the count field says are there (a copy; none while the
        pointer is NULL)."""
        cdef char* p = base + self.off
        cdef char* q = (<char**>p)[0]
        cdef Py_ssize_t n
        cdef cvarray a
        cdef intptr_t[:] mv
        kept = _kept(r, p)
        if isinstance(kept, cvarray) and (<cvarray>kept).data == q:
            return kept
        n = self.items(r, base) if q != NULL else 0
        a = cvarray(shape=(n if n > 0 else 1,), itemsize=sizeof(intptr_t), format="l")
        if n > 0:
            memcpy(a.data, q, n * sizeof(intptr_t))
        mv = a
        return mv[:n if n > 0 else 0]

    cdef int set_addresses(self, _Record r, char* base, object value) except -1:
        """Set a pointer to addresses from a sequence of them (or None): a Cython array of intptr_t,
        kept alive with the struct, whose length a count field the class hides becomes."""
        cdef char* p = base + self.off
        cdef Py_ssize_t n = 0, i
        cdef cvarray a = None
        cdef intptr_t* d
        cdef _RField c
        if value is not None:
            n = len(value)
        if n > 0:
            a = cvarray(shape=(n,), itemsize=sizeof(intptr_t), format="l")
            d = <intptr_t*>a.data
            for i in range(n):
                d[i] = value[i]
        (<char**>p)[0] = a.data if a is not None else NULL
        _keep_for(r, p, a)
        c = self.count_field(type(r))
        if c is not None and c.flags & R_HIDDEN:
            c.set(r, base, n)
        return 0

    cdef int set_numpy(self, char* p, object value) except -1:
        """Set a number field as numpy assigns `value` to an array of one item of its type."""
        np = _numpy()
        tmp = np.empty(1, dtype=np.dtype(_field_format(self)))
        tmp[...] = value
        memcpy(p, <char*>PyLong_AsVoidPtr(tmp.ctypes.data), self.size)
        return 0

    def __get__(self, obj, objtype):
        if obj is None:
            return self
        cdef _Record r = <_Record>obj
        if r._n != 1:
            if self.np_rec:
                return getattr(r._recs(), self.name)
            return r._view()[self.name]
        return self.get(r, r._ptr)

    cdef inline bint through_numpy(self):
        """Whether a numpy-record class's field reads and writes through numpy, as NVIDIA's
        numpy-backed classes do: a nested struct (a record array of one struct), a char array (int8
        numbers, with a leading axis of one) and an array that no sibling field counts (the same
        axis); numbers read as Python numbers."""
        return self.np_rec and (self.kind == F_STRUCT or self.kind == F_CHARS
                                or (self.kind == F_ARRAY and not self.countname))

    cdef object get(self, _Record r, char* base):
        cdef char* p = base + self.off
        cdef Py_ssize_t n
        cdef char* q
        k = self.kind
        if k == F_I or k == F_U or k == F_ENUM or k == F_BOOL:
            if k == F_BOOL:
                return (<uint8_t*>p)[0] != 0
            if k == F_U:
                if self.size == 4: return (<uint32_t*>p)[0]
                if self.size == 8: return (<uint64_t*>p)[0]
                if self.size == 1: return (<uint8_t*>p)[0]
                return (<uint16_t*>p)[0]
            return _read_int(p, k, self.size)
        if k == F_F:
            return (<float*>p)[0] if self.size == 4 else (<double*>p)[0]
        if self.through_numpy():
            return getattr(r._recs(), self.name)
        if k == F_CHARS:
            if self.flags & R_BINARY:
                return r._field_array(self.off, "i1", self.count)
            n = 0
            while n < self.count and p[n] != 0:
                n += 1
            return PyUnicode_DecodeUTF8(p, n, "replace")
        if k == F_STRUCT:
            return _record_view(self.item_cls(), p, 1, _root(r), r._ro)
        if k == F_ARRAY:
            n = self.items(r, base)
            if self.ekind == F_STRUCT:
                return _record_view(self.item_cls(), p, 1 if self.single_items else n, _root(r), r._ro)
            if n == 0:
                return _numpy().zeros(0)   # no item in use: an empty float64 array, as NVIDIA's reads it
            return r._field_array(self.off, _item_format(self.ekind, self.size), n)
        if k == F_PTRARR and self.ekind == F_STRUCT:
            q = (<char**>p)[0]
            if q == NULL:
                return []           # no array yet: none of its items (as the reference reads it)
            return _record_view(self.item_cls(), q, self.items(r, base), _root(r), r._ro)
        if k == F_PTRARR:
            if _is_address(self.ekind):
                return self.get_addresses(r, base)
            return self.get_numbers(r, base)
        if k == F_CSTR:
            q = (<char**>p)[0]
            return "" if q == NULL else (<bytes>q).decode("utf-8", "replace")
        if k == F_INTV:
            return _read_int(p, F_U, self.size)
        # handles, void* and other pointers: the address, an intptr_t (signed), as NVIDIA's reads it
        return (<intptr_t*>p)[0]

    def __set__(self, obj, value):
        cdef _Record r = <_Record>obj
        if r._ro:
            raise ValueError(f"this {type(r).__name__} is read-only")
        if r._n != 1:
            if self.np_rec:
                setattr(r._recs(), self.name, value)
            else:
                r._view()[self.name] = value
            return
        try:
            self.set(r, r._ptr, value)
        except (OverflowError, TypeError, ValueError) as e:
            if str(e).startswith(self.name):
                raise
            raise type(e)(f"{self.name}: {e}") from None

    cdef int set(self, _Record r, char* base, object value) except -1:
        cdef char* p = base + self.off
        cdef Py_ssize_t n, i
        cdef _Record src
        cdef _RField c
        cdef void* vp
        cdef intptr_t iv
        k = self.kind
        if self.np_rec:
            # NVIDIA's numpy-backed classes set a field as numpy assigns to an array of one struct:
            # numbers truncated, wrapped (numpy integers) or parsed (text), a value broadcast over a
            # nested struct or an array; ours also copies a struct object into a nested struct, and
            # takes None and struct objects (their address) for an address
            if self.through_numpy():
                if not (k == F_STRUCT and isinstance(value, _Record)):
                    setattr(r._recs(), self.name, value)
                    return 0
            elif type(value) is not int and (_is_number(k) or (
                    _is_address(k) and value is not None and not isinstance(value, _Record))):
                self.set_numpy(p, value)
                if _is_address(k):
                    _keep_for(r, p, None)
                return 0
        if k == F_I or k == F_ENUM:
            if self.size == 4: (<int32_t*>p)[0] = value
            elif self.size == 8: (<int64_t*>p)[0] = value
            elif self.size == 1: (<int8_t*>p)[0] = value
            else: (<int16_t*>p)[0] = value
        elif k == F_U or k == F_INTV:
            if self.size == 4: (<uint32_t*>p)[0] = value
            elif self.size == 8: (<uint64_t*>p)[0] = value
            elif self.size == 1: (<uint8_t*>p)[0] = value
            else: (<uint16_t*>p)[0] = value
        elif k == F_BOOL:
            (<uint8_t*>p)[0] = 1 if value else 0
        elif k == F_F:
            if self.size == 4: (<float*>p)[0] = value
            else: (<double*>p)[0] = value
        elif k == F_CHARS and not (self.flags & R_BINARY):
            if isinstance(value, str):
                value = (<str>value).encode()
            elif not isinstance(value, bytes):
                raise TypeError(f"expected a str, not {type(value).__name__}")
            n = len(<bytes>value)
            if n >= self.count:
                raise ValueError(f"the text is {n} bytes long; the field holds at most {self.count - 1}")
            memset(p, 0, self.count)
            memcpy(p, PyBytes_AS_STRING(value), n)
        elif k == F_STRUCT or (k == F_ARRAY and self.ekind == F_STRUCT):
            cls = self.item_cls()
            if not isinstance(value, _Record) or (<_Record>value)._ptr == NULL or type(value)._c_size != cls._c_size:
                raise TypeError(f"expected a {cls.__name__}, not {type(value).__name__}")
            src = <_Record>value
            n = src._n if k == F_ARRAY else 1
            if n > self.count:
                raise ValueError(f"the field holds {self.count} items, got {n}")
            if k == F_ARRAY:
                memset(p, 0, self.count * self.size)
            memmove_(p, src._ptr, n * self.size)
            c = self.count_field(type(r))
            if k == F_ARRAY and c is not None:
                c.set(r, base, n)
        elif k == F_ARRAY or (k == F_CHARS and self.flags & R_BINARY):
            a = r._field_array(self.off, _item_format(self.ekind, self.size) if k == F_ARRAY else "i1", self.count)
            vals = _numpy().asarray(value)
            if vals.ndim != 1 or len(vals) > self.count or (len(vals) != self.count and self.count_field(type(r)) is None):
                raise ValueError(f"expected {self.count} items, got {len(vals) if vals.ndim == 1 else vals.shape}")
            a[:len(vals)] = vals
            c = self.count_field(type(r))
            if c is not None:
                a[len(vals):] = 0
                c.set(r, base, len(vals))
        elif k == F_PTRARR and self.ekind == F_STRUCT:
            cls = self.item_cls()
            if value is None:
                (<void**>p)[0] = NULL
                n = 0
            elif isinstance(value, _Record) and type(value)._c_size == cls._c_size:
                (<void**>p)[0] = (<_Record>value)._ptr
                n = (<_Record>value)._n
            else:
                raise TypeError(f"expected a {cls.__name__} or None, not {type(value).__name__}")
            _keep_for(r, p, value)
            c = self.count_field(type(r))
            if c is not None:
                c.set(r, base, n)
        elif k == F_PTRARR and _is_address(self.ekind):
            self.set_addresses(r, base, value)
        elif k == F_PTRARR:
            # a pointer to numbers: set from a sequence or array of them (kept alive with the
            # struct), or None; a count field the class hides becomes its length
            if value is None:
                (<void**>p)[0] = NULL
                n = 0
            else:
                np = _numpy()
                if np.ndim(value) == 0:
                    raise TypeError(f"expected a sequence of numbers, not {type(value).__name__}")
                arr = np.ascontiguousarray(value, dtype=np.dtype(_item_format(self.ekind, self.size)))
                if arr.ndim != 1:
                    raise ValueError(f"expected a 1-D sequence of numbers, got shape {arr.shape}")
                n = len(arr)
                (<void**>p)[0] = PyLong_AsVoidPtr(arr.ctypes.data) if n else NULL
                value = arr
            _keep_for(r, p, value)
            c = self.count_field(type(r))
            if c is not None and c.flags & R_HIDDEN:
                c.set(r, base, n)
        elif k == F_CSTR:
            if value is None:
                (<void**>p)[0] = NULL
            else:
                if isinstance(value, str):
                    data = (<str>value).encode()
                elif isinstance(value, bytes):
                    data = value
                else:
                    raise TypeError(f"expected a str, not {type(value).__name__}")
                (<char**>p)[0] = PyBytes_AS_STRING(data)
                value = data
            _keep_for(r, p, value)
        else:
            # handles, void* and other pointers: an address, None, or a record (its memory).  NVIDIA's
            # module stores an intptr_t (Cython's conversion: a negative number is kept, and read back,
            # as it is; a float is refused); ours also takes the addresses from 2**63 up
            if value is None:
                vp = NULL
            elif isinstance(value, _Record):
                vp = (<_Record>value)._ptr
            elif isinstance(value, int) and value >= 0:
                vp = PyLong_AsVoidPtr(value)
            else:
                iv = value
                vp = <void*>iv
            (<void**>p)[0] = vp
            _keep_for(r, p, value if isinstance(value, _Record) else None)
        return 0


cdef inline bint _is_number(int kind) noexcept:
    """Whether a field kind holds a number (an integer of its size, a float, an enum's value)."""
    return kind == F_I or kind == F_U or kind == F_F or kind == F_ENUM or kind == F_BOOL or kind == F_INTV


cdef inline bint _is_address(int kind) noexcept:
    """Whether a field kind holds an address (a handle, void* or other pointer: an intptr_t)."""
    return kind == F_VOIDP or kind == F_HANDLE


cdef inline void memmove_(char* dst, char* src, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    if dst == src or n <= 0:
        return
    if dst < src or dst >= src + n:
        memcpy(dst, src, n)
    else:
        for i in range(n - 1, -1, -1):
            dst[i] = src[i]


cdef object _kept(_Record r, char* p):
    """What _keep_for keeps for the pointer at p (None if nothing)."""
    cdef _Record root = _root(r)
    if root._keep is None:
        return None
    return root._keep.get(<Py_ssize_t>(p - root._ptr))


cdef int _keep_for(_Record r, char* p, object value) except -1:
    """Keep `value` alive as long as the memory that now points at it (the root record)."""
    cdef _Record root = _root(r)
    key = <Py_ssize_t>(p - root._ptr)
    if value is None:
        if root._keep is not None:
            root._keep.pop(key, None)
        return 0
    if root._keep is None:
        root._keep = {}
    root._keep[key] = value
    return 0


cdef inline long long _read_int(char* p, int kind, int size) noexcept:
    if kind == F_U or kind == F_INTV:
        if size == 4: return (<uint32_t*>p)[0]
        if size == 8: return <long long>(<uint64_t*>p)[0]
        if size == 1: return (<uint8_t*>p)[0]
        return (<uint16_t*>p)[0]
    if size == 4: return (<int32_t*>p)[0]
    if size == 8: return (<int64_t*>p)[0]
    if size == 1: return (<int8_t*>p)[0]
    return (<int16_t*>p)[0]


cdef str _item_format(int kind, int size):
    """The numpy format of one item of a field kind."""
    if kind == F_F:
        return "<f%d" % size
    if kind == F_I or kind == F_ENUM:
        return "i1" if size == 1 else "<i%d" % size
    if kind == F_U or kind == F_INTV or kind == F_BOOL:
        return "u1" if size == 1 else "<u%d" % size
    return "<i8"     # handles and pointers: addresses


cdef class _Record(_Struct):
    """Base of the struct classes of cufile, nvml, nvfatbin and cudla: the C memory of `len(obj)`
    structs (one, unless made with a size or as a view of several).

    `T(size=1)` makes zeroed structs; `T.from_ptr(address, size=1, readonly=False, owner=None)`,
    `T.from_buffer(buffer)` and `T.from_data(array)` view memory held elsewhere.  `ptr` (also
    `int(obj)`) is the address; `obj[i]` and `obj[i:j]` are views of items; `==` compares the
    bytes.  Each field is a property (see the class's fields); on several structs a field reads as
    the numpy array of that field of every struct."""

    # No __cinit__: what makes a record sets its count (_n; 0 in one made by __new__ alone, whose
    # memory is NULL).

    def __init__(self, size=1):
        cdef Py_ssize_t n
        if self._ptr != NULL:
            return
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"{type(self).__name__}() argument 'size' must be an int, not {type(size).__name__}")
        n = size
        if n < 0:
            raise ValueError(f"{type(self).__name__}() argument 'size' cannot be negative: {n}")
        _alloc(self, n, type(self)._c_size)

    @property
    def ptr(self):
        """The address of the (first) struct, as an int."""
        return PyLong_FromVoidPtr(self._ptr)

    def __int__(self):
        return PyLong_FromVoidPtr(self._ptr)

    def getPtr(self):
        """The address of the (first) struct, as an int (the same as `ptr`)."""
        return PyLong_FromVoidPtr(self._ptr)

    def __len__(self):
        return self._n

    cdef Py_ssize_t nbytes(self):
        return self._n * <Py_ssize_t>type(self)._c_size

    def __getbuffer__(self, Py_buffer* view, int flags):
        if (flags & PyBUF_WRITABLE) and self._ro:
            raise BufferError(f"this {type(self).__name__} is read-only")
        view.buf = self._ptr
        view.obj = self
        view.len = self.nbytes()
        view.readonly = self._ro
        view.itemsize = 1
        view.format = NULL
        if flags & 4:                                    # PyBUF_FORMAT
            view.format = _FORMAT_B
        view.ndim = 1
        view.shape = &view.len if (flags & 8) else NULL  # PyBUF_ND
        view.strides = &view.itemsize if (flags & 16) == 16 else NULL  # PyBUF_STRIDES
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer* view):
        pass

    cdef object _view(self):
        """A numpy structured array over the memory (sharing it, keeping this record alive)."""
        np = _numpy()
        return np.frombuffer(self, dtype=type(self)._dtype(), count=self._n)

    cdef object _recs(self):
        """A numpy record array over the memory (sharing it), as NVIDIA's numpy-backed classes hold
        theirs: what a numpy-record class's fields are read and set through."""
        return self._view().view(_numpy().recarray)

    cdef object _field_array(self, Py_ssize_t off, str fmt, Py_ssize_t count):
        """A numpy array of `count` items of `fmt` at byte `off` (a view: writes go to the struct)."""
        np = _numpy()
        return np.frombuffer(_root_of(self), dtype=np.dtype(fmt), count=count,
                             offset=(self._ptr - (<_Record>_root_of(self))._ptr) + off)

    def __getitem__(self, key):
        cdef Py_ssize_t i, start, stop, step
        cdef type cls = type(self)
        if isinstance(key, slice):
            start, stop, step = key.indices(self._n)
            if step != 1:
                raise ValueError(f"{cls.__name__} views take contiguous slices only (step 1), not step {step}")
            return _record_view(cls, self._ptr + start * <Py_ssize_t>cls._c_size, max(stop - start, 0), _root(self), self._ro)
        if isinstance(key, bool) or not isinstance(key, int):
            raise TypeError(f"{cls.__name__} indices must be ints or slices, not {type(key).__name__}")
        i = key
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"index {key} is out of range for {self._n} {cls.__name__} struct(s)")
        return _record_view(cls, self._ptr + i * <Py_ssize_t>cls._c_size, 1, _root(self), self._ro)

    def __setitem__(self, key, value):
        cdef _Record dst = self[key]
        cdef _Record src
        if self._ro:
            raise ValueError(f"this {type(self).__name__} is read-only")
        if not isinstance(value, _Record) or type(value)._c_size != type(self)._c_size:
            raise TypeError(f"expected a {type(self).__name__}, not {type(value).__name__}")
        src = <_Record>value
        if src._n != dst._n:
            raise ValueError(f"cannot assign {src._n} struct(s) to {dst._n}")
        memmove_(dst._ptr, src._ptr, dst.nbytes())

    def __eq__(self, other):
        cdef _Record o
        if not isinstance(other, _Record) or type(other)._c_size != type(self)._c_size:
            return NotImplemented
        o = <_Record>other
        if o._n != self._n or type(other) is not type(self) and type(other)._dtype() != type(self)._dtype():
            return False
        if o._ptr == self._ptr or memcmp(o._ptr, self._ptr, self.nbytes()) == 0:
            return True
        # the same field values with other bytes in the padding (a numpy copy leaves it unset)
        return bool((self._view() == o._view()).all())

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None

    def __repr__(self):
        cls = type(self)
        if self._n != 1:
            return f"<{cls.__module__}.{cls.__name__} of {self._n} structs at {<size_t>self._ptr:#x}>"
        parts = []
        for name in cls._c_fields:
            try:
                v = getattr(self, name)
            except Exception as e:
                v = f"<{type(e).__name__}>"
            if isinstance(v, _Record):
                v = f"{type(v).__name__}(...)" if len(v) == 1 else f"<{len(v)} {type(v).__name__}>"
            elif not isinstance(v, (int, float, str, type(None))):
                v = "array(...)"
            else:
                v = repr(v)
            parts.append(f"{name}={v}")
        return f"{cls.__name__}({', '.join(parts)})"

    def __reduce__(self):
        return (_unpickle, (type(self), PyBytes_FromStringAndSize(self._ptr, self.nbytes()), self._n))

    @classmethod
    def from_ptr(cls, ptr, size=1, readonly=False, owner=None):
        """A view of `size` structs at the address `ptr` (an int); `owner`, which holds that
        memory, is kept alive as long as the view."""
        if isinstance(ptr, bool) or not isinstance(ptr, int):
            raise TypeError(f"ptr must be an address (int), not {type(ptr).__name__}")
        if ptr == 0:
            raise ValueError("ptr must not be 0 (NULL)")
        if ptr < 0:
            raise OverflowError(f"ptr cannot be negative: {ptr}")
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size must be an int, not {type(size).__name__}")
        if size < 0:
            raise ValueError(f"size cannot be negative: {size}")
        return _record_view(cls, PyLong_AsVoidPtr(ptr), size, owner, bool(readonly))

    @classmethod
    def from_buffer(cls, buffer):
        """A view of the structs in a contiguous buffer (bytearray, numpy array, ...) whose length
        is a multiple of the struct's size; read-only if the buffer is."""
        cdef Py_buffer view
        cdef bint ro = False
        cdef Py_ssize_t size = cls._c_size
        try:
            PyObject_GetBuffer(buffer, &view, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE)
        except (TypeError, BufferError):
            PyObject_GetBuffer(buffer, &view, PyBUF_ANY_CONTIGUOUS)
            ro = True
        try:
            if view.len == 0 or view.len % size:
                raise ValueError(f"the buffer has {view.len} bytes, not a positive multiple of the "
                                 f"{size} bytes of a {cls.__name__}")
            return _record_view(cls, view.buf, view.len // size, memoryview(buffer), ro)
        finally:
            PyBuffer_Release(&view)

    @classmethod
    def from_data(cls, data):
        """A view of a one-dimensional numpy array of this class's dtype."""
        np = _numpy()
        if not isinstance(data, np.ndarray):
            raise TypeError(f"data must be a numpy array, not {type(data).__name__}")
        if data.dtype != cls._dtype():
            raise ValueError(f"data must have the dtype of {cls.__name__}, not {data.dtype}")
        if data.ndim != 1 or not data.flags.c_contiguous:
            raise ValueError("data must be a contiguous one-dimensional array")
        if data.size == 0:
            raise ValueError("data holds no struct")
        return _record_view(cls, PyLong_AsVoidPtr(data.ctypes.data), data.size, data, not data.flags.writeable)

    @classmethod
    def _dtype(cls):
        """The numpy structured dtype with the C layout (names, formats, offsets, itemsize)."""
        d = cls.__dict__.get("_np_dtype")
        if d is None:
            np = _numpy()
            names, formats, offsets = [], [], []
            for name, f in cls._c_all.items():
                names.append(name)
                formats.append(_field_format(<_RField>f))
                offsets.append((<_RField>f).off)
            d = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": cls._c_size})
            cls._np_dtype = d
        return d


@cython.final
cdef class _Span:
    """A buffer over memory a record's pointer field points at, keeping the record alive (a numpy
    view of the numbers there)."""
    cdef char* p
    cdef Py_ssize_t n
    cdef object owner
    cdef bint ro

    @staticmethod
    cdef _Span of(char* p, Py_ssize_t n, object owner, bint ro):
        cdef _Span s = _Span.__new__(_Span)
        s.p = p
        s.n = n
        s.owner = owner
        s.ro = ro
        return s

    def __getbuffer__(self, Py_buffer* view, int flags):
        if (flags & PyBUF_WRITABLE) and self.ro:
            raise BufferError("read-only memory")
        PyBuffer_FillInfo(view, self, self.p, self.n, self.ro, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


cdef object _root_of(_Record r):
    """The record whose buffer holds r's memory: r's root when r is a view of a record, else r."""
    cdef _Record root = _root(r)
    return root


cdef object _field_format(_RField f):
    np = _numpy()
    if f.kind == F_STRUCT:
        return f.item_cls()._dtype()
    if f.kind == F_CHARS:
        return ("i1", (f.count,))
    if f.kind == F_ARRAY:
        if f.ekind == F_STRUCT:
            return (f.item_cls()._dtype(), (f.count,))
        return (_item_format(f.ekind, f.size), (f.count,))
    if f.kind in (F_I, F_U, F_F, F_ENUM, F_BOOL, F_INTV):
        return _item_format(f.kind, f.size)
    return "<i8"


def _unpickle(cls, bytes data, Py_ssize_t n):
    cdef _Record r = _new_record(cls, n)
    memcpy(r._ptr, PyBytes_AS_STRING(data), min(len(data), r.nbytes()))
    return r


def _numpy_records(type cls, numpy_records):
    """Make the fields of the record class `cls` behave as those of NVIDIA's class of the same name,
    given the names of the module's classes that NVIDIA's module backs with a numpy record array
    (`numpy_records`; None: not known, the fields keep ours).  Such a class reads a nested struct
    as a numpy record array of one struct, a char array as int8 numbers and a fixed array with a
    leading axis of one, and sets every field as numpy assigns it; in a class of the others (which
    hold one struct), an array of structs of one of the others reads as its first struct."""
    cdef _RField f
    cls._c_numpy_records = numpy_records
    for f in cls._c_all.values():
        f.np_rec = numpy_records is not None and cls.__name__ in numpy_records
        f.single_items = (numpy_records is not None and f.kind == F_ARRAY and f.ekind == F_STRUCT and not f.np_rec
                          and (f.cls if type(f.cls) is str else f.cls.__name__) not in numpy_records)


cdef class _Space:
    """The record classes of one generated module: `_L.records`.  `dtypes` maps each dtype name
    (`memory_v2_dtype`) to its class's name; `numpy_records` names the classes NVIDIA's module of
    the release backs with a numpy record array (a comma-separated list; None where not known: see
    _numpy_records)."""
    cdef public dict dtypes
    cdef public dict imports     # names the module takes from another module: name -> (module, attribute)
    cdef public object numpy_records

    def __init__(self, str dtypes, dict imports=None, str numpy_records=None):
        self.dtypes = dict(item.split(":") for item in dtypes.split(",")) if dtypes else {}
        self.imports = imports or {}
        self.numpy_records = None if numpy_records is None else frozenset(filter(None, numpy_records.split(",")))

    def imported(self, str name):
        """The object another module gives for `name` (cufile's pyCUresult is the driver's CUresult)."""
        import importlib
        module, attr = self.imports[name]
        return getattr(importlib.import_module(module), attr)

    def make(self, _Lazy L, str name, Py_ssize_t i, bint union, Py_ssize_t fi, str fields):
        """Make the record class `name` from its _STRUCTS line (fields: name:kind:count:class:
        item kind:count field:flags)."""
        cdef Py_ssize_t count, size
        cdef int kind
        r = _struct_class(name, _Record, {
            "__module__": L.modname, "__qualname__": name, "__slots__": (),   # a misspelt field raises
            "__doc__": f"C {'union' if union else 'struct'} (or array of them) {name}: see the fields."})
        r._c_size = L.ssize[i]
        L.g[name] = r                    # before the fields: a field may name this class
        public, every = [], {}
        for f in fields.split(";") if fields else ():
            fname, k, c, clsname, ekind, countname, flags = f.split(":")
            kind = int(k)
            count = int(c)
            size = L.fsize[fi] // count if kind != F_PTRARR else L.psize[fi]
            fd = _RField(fname, L.off[fi], kind, size, count, clsname or None, L, int(ekind), countname, int(flags or 0))
            every[fname] = fd
            if not (int(flags or 0) & R_HIDDEN):
                setattr(r, fname, fd)
                public.append(fname)
            fi += 1
        r._c_fields = tuple(public)
        r._c_all = every
        if self.numpy_records is not None:
            _numpy_records(r, self.numpy_records)
        return r


# ----------------------------------------------------------------------------- outputs of the functions

cdef str _text(const char* p, Py_ssize_t n):
    """The text a library wrote into a char buffer of n bytes: up to its first NUL."""
    cdef Py_ssize_t k = 0
    if p == NULL:
        return ""
    while k < n and p[k] != 0:
        k += 1
    return PyUnicode_DecodeUTF8(p, k, "replace")


cdef str _text0(const char* p):
    """A NUL-terminated string a library returned ("" for NULL)."""
    if p == NULL:
        return ""
    return (<bytes>p).decode("utf-8", "replace")


cdef object _records_of(type cls, void* p, Py_ssize_t n):
    """A record of `n` structs of `cls`, copied from the array at p."""
    cdef _Record r = _new_record(cls, n if n > 0 else 0)
    if n > 0 and p != NULL:
        memcpy(r._ptr, p, n * <Py_ssize_t>cls._c_size)
    return r


cdef object _numbers_of(void* p, Py_ssize_t n, str fmt):
    """A numpy array of `n` numbers of `fmt`, copied from the array at p."""
    np = _numpy()
    dt = np.dtype(fmt)
    if n <= 0 or p == NULL:
        return np.zeros(0, dtype=dt)
    return np.frombuffer(PyBytes_FromStringAndSize(<char*>p, n * dt.itemsize), dtype=dt).copy()


cdef object _numbers_new(Py_ssize_t n, str fmt):
    """A zeroed numpy array of `n` numbers of `fmt` for the library to fill, returned as it is:
    its memory is not touched before the library writes it, so a count far larger than what the
    library writes (a caller's choice) costs no memory."""
    if n < 0:
        raise ValueError(f"a buffer size cannot be negative: {n}")
    np = _numpy()
    return np.zeros(n, dtype=np.dtype(fmt))


cdef object _memview(object a):
    """The 1-D numpy array of numbers `a` as a Cython memoryview of its items (sharing its memory):
    what NVIDIA's package returns arrays of numbers as (`_memoryviewslice`)."""
    cdef int8_t[::1] i8
    cdef uint8_t[::1] u8
    cdef int16_t[::1] i16
    cdef uint16_t[::1] u16
    cdef int32_t[::1] i32
    cdef uint32_t[::1] u32
    cdef int64_t[::1] i64
    cdef uint64_t[::1] u64
    cdef float[::1] f32
    cdef double[::1] f64
    kind, size = a.dtype.kind, a.dtype.itemsize
    if kind == "i":
        if size == 1:
            i8 = a
            return i8
        if size == 2:
            i16 = a
            return i16
        if size == 4:
            i32 = a
            return i32
        i64 = a
        return i64
    if kind == "u":
        if size == 1:
            u8 = a
            return u8
        if size == 2:
            u16 = a
            return u16
        if size == 4:
            u32 = a
            return u32
        u64 = a
        return u64
    if size == 4:
        f32 = a
        return f32
    f64 = a
    return f64


cdef object _view_array(object a):
    """A copy of the 1-D numpy array of numbers `a` in a Cython array (`array`, as NVIDIA's package
    returns some arrays)."""
    cdef cvarray out = cvarray(shape=(max(len(a), 1),), itemsize=a.dtype.itemsize, format=a.dtype.char)
    if len(a):
        memcpy(out.data, <void*>PyLong_AsVoidPtr(a.ctypes.data), len(a) * a.dtype.itemsize)
    return out


cdef object _handles_view(void** p, Py_ssize_t n):
    """`n` handles (addresses) at p, copied, as a Cython memoryview of intptr_t (NVIDIA's package
    returns a list of handles so)."""
    np = _numpy()
    out = np.zeros(max(n, 0), dtype=np.intp)
    if n > 0:
        memcpy(<void*>PyLong_AsVoidPtr(out.ctypes.data), <void*>p, n * sizeof(void*))
    return _memview(out)


cdef void* _numbers_ptr(object a) except? NULL:
    """The address of the data of an array made by _numbers_new."""
    return PyLong_AsVoidPtr(a.ctypes.data)


cdef _Record _records_in(object value, type cls, str field):
    """A struct-array argument that the call fills: the module's struct object of `cls` (filled in
    place), a sequence of the values of its first field (`field`: NVML's field ids), or the raw
    bytes of structs, made into a new one."""
    cdef _Record r
    cdef Py_ssize_t i
    if isinstance(value, _Record):
        if type(value)._c_size != cls._c_size:
            raise TypeError(f"expected a {cls.__name__}, not {type(value).__name__}")
        return <_Record>value
    if isinstance(value, (bytes, bytearray)):
        # the structs' raw bytes, as NVIDIA's package takes them (copied: the call writes them)
        r = _new_record(cls, len(value) // cls._c_size)
        memcpy(r._ptr, PyBytes_AS_STRING(bytes(value)), len(r) * cls._c_size)
        return r
    if isinstance(value, str) or not hasattr(value, "__len__"):
        raise TypeError(f"expected a {cls.__name__} or a sequence of {field} values, not {type(value).__name__}")
    r = _new_record(cls, len(value))
    for i in range(len(value)):
        setattr(r[i], field, value[i])
    return r
