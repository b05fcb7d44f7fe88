# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Core runtime of cuda.bindings: the base classes and argument conversions that every generated
module uses.  Hand-written; the generated modules hold only per-API data and thin wrappers."""
cimport cython
from libc.stdlib cimport malloc, calloc, free
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from cpython.buffer cimport PyObject_CheckBuffer, PyObject_GetBuffer, PyBuffer_Release, PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE, PyBUF_SIMPLE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from cpython.long cimport PyLong_AsVoidPtr, PyLong_FromVoidPtr
from cpython.number cimport PyNumber_Index
from cpython.object cimport PyTypeObject, Py_TPFLAGS_HEAPTYPE
import sys
cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX

cdef object _ctypes = None
cdef tuple _NOARGS = ()
cdef char _SCRATCH[8]     # where a write into a one-byte bytes object goes (see _written_bytes)


cdef inline void* _written_bytes(bytes o):
    """Where a call that writes into a bytes object (as NVIDIA's package passes one) writes: its
    data, but for a bytes object of at most one byte, which is the interpreter's own shared one
    (CPython caches them; `b" " * 1` is the constant b" " itself), a scratch byte (the NUL of an
    empty log goes there)."""
    return <void*>PyBytes_AS_STRING(o) if len(o) > 1 else <void*>_SCRATCH


cdef bint _twin_floats_are_addresses():
    """Whether NVIDIA's package of this build's release (its twin) truncates a float given as a
    `void*` argument or field to an int address, as it does every other address and handle (12.9.x,
    13.2 onwards), where 13.0.3 refuses it (TypeError): the generated _version.FLOAT_ADDRESS
    (codegen/overrides.TWIN_STYLE's `float_address`)."""
    try:
        from cuda.bindings import _version
    except ImportError:
        return False
    return bool(getattr(_version, "FLOAT_ADDRESS", False))


# a float is an address wherever NVIDIA's package of the release takes one (see above)
cdef bint _float_voidp = _twin_floats_are_addresses()
# the handle and struct classes here are the tuple-style modules' (_base.pxd)
__cb_tuple_style = 1

cdef extern from *:
    """
    static PyObject *__cb_tp_new(PyObject *t, PyObject *args) {
        return ((PyTypeObject *)t)->tp_new((PyTypeObject *)t, args, NULL);
    }
    /* A new object of class t made by its base class's tp_new: the handle and integer classes
       of the generated modules add no fields and no __cinit__ to _Handle and _IntValue, so their
       own tp_new (one indirect call per level of derivation: a runtime class derived from the
       driver's has two) would do nothing more. */
    static PyObject *__cb_tp_new_as(PyObject *base, PyObject *t, PyObject *args) {
        return ((PyTypeObject *)base)->tp_new((PyTypeObject *)t, args, NULL);
    }
    """
    object _tp_new "__cb_tp_new"(object t, object args)
    object _tp_new_as "__cb_tp_new_as"(object base, object t, object args)


cdef extern from *:
    """
    /* The struct classes are heap types (made on first use), whose instances CPython frees
       through subtype_dealloc: it untracks the object from the GC, tracks it again for the base
       class's tp_dealloc (which untracks it), then drops the instance's reference to its type.
       Their instances hold no __dict__, no weakref list and no slots of their own, and their
       classes define no __del__, so the base's tp_dealloc followed by that last step is all
       there is to do: __cb_struct_dealloc does it.  A heap type's tp_dealloc drops the type's
       reference itself (subtype_dealloc of a user's subclass then leaves it to this one). */
    /* _Struct itself (set when _base is imported).  The static classes between it and a struct
       class (_records._Record) add C fields only, no object field and no __dealloc__: their
       tp_dealloc would only untrack the object, track it again and call _Struct's, so _Struct's
       is called directly. */
    static PyTypeObject *__cb_struct_root;
    static void __cb_struct_dealloc(PyObject *o) {
        PyTypeObject *t = Py_TYPE(o), *b = t;
        while (b->tp_flags & Py_TPFLAGS_HEAPTYPE)
            b = b->tp_base;
        if (__cb_struct_root != NULL && PyType_IsSubtype(b, __cb_struct_root))
            b = __cb_struct_root;
        b->tp_dealloc(o);
        Py_DECREF(t);
    }
    /* Their memory is reused: a free list per object size (the static bases' sizes: _Struct's,
       _Record's) keeps up to 64 freed instances, which tp_alloc hands out again, zeroed and
       tracked as PyType_GenericAlloc would return them; what tp_free gets is already untracked.
       The allocator's and the GC's bookkeeping of a new object is then saved on each struct a
       call returns (a third of the cost of cuda.bindings.nvml.device_get_memory_info_v2 on a
       no-op NVML).  A user's subclass of a different size falls through to the usual calls. */
    #ifndef Py_TPFLAGS_MANAGED_DICT
    #define Py_TPFLAGS_MANAGED_DICT 0
    #endif
    #ifndef Py_TPFLAGS_MANAGED_WEAKREF
    #define Py_TPFLAGS_MANAGED_WEAKREF 0
    #endif
    /* a user's subclass may keep its __dict__ before the object (3.12+): such memory is never
       pooled, nor handed to such a class */
    #define __CB_PREHEADER (Py_TPFLAGS_MANAGED_DICT | Py_TPFLAGS_MANAGED_WEAKREF)
    #define __CB_FREE_MAX 64
    static struct { Py_ssize_t size; int n; PyObject *items[__CB_FREE_MAX]; } __cb_free[2];
    static PyObject *__cb_struct_alloc(PyTypeObject *t, Py_ssize_t nitems) {
        int i;
        for (i = 0; i < 2 && nitems == 0 && !(t->tp_flags & __CB_PREHEADER); i++) {
            if (__cb_free[i].size == t->tp_basicsize && __cb_free[i].n > 0) {
                PyObject *o = __cb_free[i].items[--__cb_free[i].n];
                memset((void *)o, 0, (size_t)t->tp_basicsize);
                PyObject_Init(o, t);     /* the type, a reference to it (a heap type), refcount 1 */
                PyObject_GC_Track(o);
                return o;
            }
        }
        return PyType_GenericAlloc(t, nitems);
    }
    static void __cb_struct_free(void *p) {
        PyObject *o = (PyObject *)p;
        Py_ssize_t size = Py_TYPE(o)->tp_basicsize;
        int i;
        for (i = 0; i < 2 && !(Py_TYPE(o)->tp_flags & __CB_PREHEADER); i++) {
            if (__cb_free[i].size == 0)
                __cb_free[i].size = size;
            if (__cb_free[i].size == size) {
                if (__cb_free[i].n < __CB_FREE_MAX) {
                    __cb_free[i].items[__cb_free[i].n++] = o;
                    return;
                }
                break;
            }
        }
        PyObject_GC_Del(p);
    }
    static void __cb_fast_dealloc(PyObject *cls) {
        PyTypeObject *c = (PyTypeObject *)cls;
        if ((c->tp_flags & Py_TPFLAGS_HEAPTYPE)
                && !(c->tp_flags & (Py_TPFLAGS_MANAGED_DICT | Py_TPFLAGS_MANAGED_WEAKREF))
                && !c->tp_dictoffset && !c->tp_weaklistoffset && !c->tp_finalize && !c->tp_del
                && c->tp_basicsize == c->tp_base->tp_basicsize) {
            c->tp_dealloc = __cb_struct_dealloc;
            if ((c->tp_flags & Py_TPFLAGS_HAVE_GC) && c->tp_free == PyObject_GC_Del
                    && c->tp_alloc == PyType_GenericAlloc) {
                c->tp_alloc = __cb_struct_alloc;
                c->tp_free = __cb_struct_free;
            }
        }
    }
    """
    void __cb_fast_dealloc(object cls)
    PyTypeObject* __cb_struct_root


cdef object _struct_class(str name, type base, dict ns):
    """type(name, (`base`,), ns) for a struct class of a generated module (`base` is _Struct,
    _records._Record or such a class), its instances freed by the static base class's
    tp_dealloc without CPython's subtype_dealloc (see __cb_struct_dealloc above)."""
    r = type(name, (base,), ns)
    __cb_fast_dealloc(r)
    return r


cdef tuple _CT_POINTERS = None


cdef tuple _ctypes_pointer_types():
    global _CT_POINTERS
    if _CT_POINTERS is None:
        ct = _get_ctypes()
        _CT_POINTERS = (ct.c_void_p, ct.c_char_p, ct._Pointer, ct._CFuncPtr)
    return _CT_POINTERS


cdef dict _IS_CT_POINTER = {}


cdef bint _is_ctypes_pointer(object o) except -1:
    """Whether o is a ctypes pointer-like object, decided once per type: isinstance against the
    ctypes classes goes through their metaclass's __instancecheck__, which is slow on a hot path."""
    t = type(o)
    r = _IS_CT_POINTER.get(t)
    if r is None:
        r = isinstance(o, _ctypes_pointer_types())
        _IS_CT_POINTER[t] = r
    return r


cdef object _get_ctypes():
    global _ctypes
    if _ctypes is None:
        import ctypes
        _ctypes = ctypes
    return _ctypes


# ----------------------------------------------------------------------------- handles

# Handles and integer values are made by nearly every call that returns one: a small free list
# of objects (shared by every subclass of the same size) saves the allocator on that path.
@cython.freelist(16)
@cython.no_gc     # not tracked: `_owner` (None or a struct) holds no reference back to a view, unless
                  # a view is stored in a list given to one of that struct's pointer fields
cdef class _Handle:
    """Base of every opaque handle type (CUstream, CUcontext, nvrtcProgram, ...).

    `T(_ptr=address)` makes a view of the handle stored at `address` (not a copy): `getPtr()`
    returns that address, and the object shows and sets what is stored there."""

    def __cinit__(self):
        self._p = &self._v

    def __init__(self, init_value=0, _ptr=0):
        cdef void* v = NULL
        if _ptr:
            self._p = <void**>_address(_ptr)
            return
        _hptr(init_value, &v)
        self._p[0] = v

    def getPtr(self):
        """Address of the stored handle value."""
        return PyLong_FromVoidPtr(self._p)

    def __int__(self):
        return PyLong_FromVoidPtr(self._p[0])

    def __index__(self):
        return PyLong_FromVoidPtr(self._p[0])

    def __repr__(self):
        return "<%s 0x%x>" % (_handle_root(type(self)).__name__, <size_t>self._p[0])

    # A handle compares and hashes by its value, as in NVIDIA's package: equal to a handle of the
    # same generated class or one derived from it (runtime.cudaStream_t(5) == driver.CUstream(5),
    # since the one derives from the other; a CUstream never equals a CUevent).
    def __eq__(self, other):
        if not isinstance(other, _Handle) or _handle_root(type(self)) is not _handle_root(type(other)):
            return NotImplemented
        return self._p[0] == (<_Handle>other)._p[0]

    def __hash__(self):
        return hash(<size_t>self._p[0])

    def __bool__(self):
        return self._p[0] != NULL


cdef class _FuncPtr(_Handle):
    """Base of the function pointer classes (CUhostFn, cudaStreamCallback_t, ...): they compare
    and hash by identity, as in NVIDIA's package (CUhostFn(5) != CUhostFn(5))."""

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return object.__hash__(self)


cdef class _FuncType(_FuncPtr):
    """Base of the classes of a C function type given by its address (VdpGetProcAddress: the
    header's `typedef VdpStatus VdpGetProcAddress(...)`, which the functions take as
    `VdpGetProcAddress *`): NVIDIA's package declares the type an unsigned long long, so its repr
    shows the address in decimal (`<VdpGetProcAddress 5>`)."""

    def __repr__(self):
        return "<%s %d>" % (_handle_root(type(self)).__name__, <size_t>self._p[0])


cdef object _handle_root(type cls):
    """The generated handle class that `cls` is or derives from, whose name NVIDIA's package shows
    and by which it compares: the class just below _Handle, _FuncPtr or _FuncType.  A subclass
    made in Python shows its generated class's name, and a runtime class NVIDIA's package derives
    from the driver's (runtime.cudaStream_t from driver.CUstream) shows the driver class's."""
    cdef PyTypeObject* t = <PyTypeObject*>cls
    cdef PyTypeObject* h = <PyTypeObject*>_Handle
    cdef PyTypeObject* f = <PyTypeObject*>_FuncPtr
    cdef PyTypeObject* ft = <PyTypeObject*>_FuncType
    while t.tp_base != NULL and t.tp_base != h and t.tp_base != f and t.tp_base != ft:
        t = t.tp_base
    return <object>t


cdef extern from *:
    """
    /* A generated handle or integer class derived from another generated class (a runtime class
       from the driver's, CUdevice from CUdevice_v1) adds nothing to free: Cython's deallocator of
       it only hands the object to its base's, one more level each time an object is freed.
       Where the class is a static type of the same size whose deallocator is Cython's (no
       finalizer), it gets the deallocator of `root`, the class it derives from just below
       _base's class, which does all there is to do (untrack it from the GC, then _base's). */
    static void __cb_dealloc_as_root(PyObject *cls, PyObject *root) {
        PyTypeObject *c = (PyTypeObject *)cls, *r = (PyTypeObject *)root;
        if (c != r && !(c->tp_flags & Py_TPFLAGS_HEAPTYPE) && c->tp_basicsize == r->tp_basicsize
                && !c->tp_finalize && !c->tp_del && c->tp_dictoffset == r->tp_dictoffset)
            c->tp_dealloc = r->tp_dealloc;
    }
    """
    void __cb_dealloc_as_root(object cls, object root)


cdef int _fast_classes(dict g) except -1:
    """Give each generated handle and integer class of a module (its globals `g`) that derives
    from another generated class the deallocator of the one just below _base's class (see
    __cb_dealloc_as_root): freeing a runtime.cudaStream_t then costs what a driver.CUstream does."""
    for v in list(g.values()):
        if type(v) is type and issubclass(<type>v, _Handle):
            __cb_dealloc_as_root(v, _handle_root(<type>v))
        elif type(v) is type and issubclass(<type>v, _IntValue):
            __cb_dealloc_as_root(v, _int_root(<type>v))
    return 0


cdef object _int_root(type cls):
    """The generated integer class `cls` is or derives from just below _IntValue."""
    cdef PyTypeObject* t = <PyTypeObject*>cls
    cdef PyTypeObject* base = <PyTypeObject*>_IntValue
    while t.tp_base != NULL and t.tp_base != base:
        t = t.tp_base
    return <object>t


cdef void* _address(object a) except NULL:
    """A non-zero address given as `_ptr=` (an int or an object with __index__/__int__)."""
    cdef void* p = NULL
    _hptr(a, &p)
    if p == NULL:
        raise ValueError("_ptr must be a non-zero address")
    return p


cdef int _hptr_slow(object o, void** out, bint tuple_style) except -1:
    """_hptr's slow path; `tuple_style`: the calling module is a tuple-style one, where a float is
    a handle (truncated toward zero)."""
    if o is None:
        out[0] = NULL
        return 0
    if isinstance(o, int):
        if o < 0:
            raise OverflowError(f"a handle cannot be negative: {o}")
        out[0] = PyLong_AsVoidPtr(o)
        return 0
    if isinstance(o, _IntValue):
        out[0] = <void*><size_t>_iv(<_IntValue>o)
        return 0
    if isinstance(o, (str, bytes)) or (not tuple_style and isinstance(o, float)):
        raise TypeError(f"expected a handle, an int or None, not {type(o).__name__}")
    ct = _get_ctypes()
    if isinstance(o, ct._CFuncPtr):
        out[0] = PyLong_AsVoidPtr(ct.cast(o, ct.c_void_p).value or 0)
        return 0
    if isinstance(o, ct.c_void_p):
        out[0] = PyLong_AsVoidPtr(o.value or 0)
        return 0
    # an object with __index__, or with __int__ (a float is truncated toward zero, as NVIDIA's
    # package converts a handle: CUstream(1.7) is the handle 1)
    for meth in ("__index__", "__int__"):
        f = getattr(type(o), meth, None)
        if f is not None:
            v = f(o)
            if v < 0:
                raise OverflowError(f"a handle cannot be negative: {v}")
            out[0] = PyLong_AsVoidPtr(v)
            return 0
    raise TypeError(f"expected a handle, an int or None, not {type(o).__name__}")


cdef object _new_handle(type cls, void* v):
    cdef _Handle h = <_Handle>_tp_new_as(_Handle, cls, _NOARGS)
    h._v = v
    return h


# ----------------------------------------------------------------------------- integer typedefs

@cython.freelist(16)
@cython.no_gc
cdef class _IntValue:
    """Base of integer typedef classes (CUdeviceptr, CUdevice, cuuint64_t, ...).

    `T(_ptr=address)` makes a view of the value stored at `address`, as for handles."""

    def __cinit__(self):
        self._p = &self._v

    def __init__(self, init_value=0, _ptr=0):
        cls = type(self)
        cdef int size = cls._c_size
        cdef bint signed = cls._c_signed
        self._size = size
        self._signed = signed
        if _ptr:
            self._p = _address(_ptr)
            return
        if type(init_value) is not int:
            if isinstance(init_value, (_IntValue, _Handle)):
                init_value = int(init_value)
            elif isinstance(init_value, (str, bytes)) or not (
                    hasattr(type(init_value), "__index__") or hasattr(type(init_value), "__int__")):
                raise TypeError(f"{cls.__name__} expects an int, not {type(init_value).__name__}")
            else:       # __index__, or __int__ (a float truncated toward zero, as in NVIDIA's package)
                init_value = init_value.__index__() if hasattr(type(init_value), "__index__") else int(init_value)
        _iv_set(self, init_value)

    def getPtr(self):
        """Address of the stored value."""
        return PyLong_FromVoidPtr(self._p)

    def __int__(self):
        return _intvalue(self)

    def __index__(self):
        return _intvalue(self)

    def __repr__(self):
        return "<%s %d>" % (_static_class(type(self)).__name__, _intvalue(self))

    # no __eq__ or __hash__: integer objects compare and hash by identity, as in NVIDIA's package
    # (CUdevice(5) != CUdevice(5); int(a) == int(b) compares their values)


cdef object _static_class(type cls):
    """The generated class `cls` is or derives from (a subclass made in Python shows its name in
    its repr, as NVIDIA's package does: its classes write their own name there)."""
    cdef PyTypeObject* t = <PyTypeObject*>cls
    while t.tp_flags & Py_TPFLAGS_HEAPTYPE and t.tp_base != NULL:
        t = t.tp_base
    return <object>t


cdef int _iv_set(_IntValue self, object value) except -1:
    """Store an int in the object's C type, range-checked (OverflowError naming the type)."""
    cdef long long sv
    cdef unsigned long long uv
    cdef int size = self._size
    try:
        if self._signed:
            sv = value
            if size == 4 and (sv < -2147483648 or sv > 2147483647):
                raise OverflowError
            if size == 4:
                (<int32_t*>self._p)[0] = <int32_t>sv
            else:
                (<int64_t*>self._p)[0] = sv
        else:
            uv = value
            if size == 4 and uv > 4294967295:
                raise OverflowError
            if size == 4:
                (<uint32_t*>self._p)[0] = <uint32_t>uv
            else:
                (<uint64_t*>self._p)[0] = uv
    except OverflowError:
        bits = size * 8
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if self._signed else (0, (1 << bits) - 1)
        raise OverflowError(f"{value} is out of range for {type(self).__name__} ({lo}..{hi})") from None
    return 0


cdef inline object _intvalue(_IntValue self):
    if self._signed:
        return <long long>_iv(self)
    return _iv(self)


cdef object _field_view(type cls, void* p, object owner, int size):
    """A handle (size 0) or integer object viewing the value at p inside `owner`'s memory, as
    the reference package's struct fields return them: later writes to the field show."""
    cdef _Handle h
    cdef _IntValue v
    if size == 0:
        h = <_Handle>_tp_new_as(_Handle, cls, _NOARGS)
        h._p = <void**>p
        h._owner = owner
        return h
    v = <_IntValue>_tp_new_as(_IntValue, cls, _NOARGS)
    v._p = p
    v._owner = owner
    v._size = size
    v._signed = cls._c_signed
    return v


cdef object _new_int(type cls, unsigned long long v, int size, bint signed):
    cdef _IntValue h = <_IntValue>_tp_new_as(_IntValue, cls, _NOARGS)
    h._v = v
    h._size = size
    h._signed = signed
    return h


# ----------------------------------------------------------------------------- enums

cdef object _enum(object table, object cls, long long v):
    """C value -> enum member (int if the value is not a member)."""
    r = (<dict>table).get(v)
    if r is None:
        return v
    return r


# ----------------------------------------------------------------------------- void* and buffers

cdef int _vptr(object o, void** out) except -1:
    """A `void*` argument: int address, handle, None, struct, or any buffer (its address)."""
    return _vptr_len(o, out, NULL, False)


cdef int _vsized(object o, void** out, size_t size, bint written) except -1:
    """_vptr for memory the call reads or writes `size` bytes of (overrides.BUFFER_EXTENT): a
    Python buffer or bytes object must hold that many, or the library would run past its end;
    an address is the caller's to get right.  Memory the call writes (`written`: a memcpy's
    destination) must be a writable buffer, not bytes or a read-only view (TypeError): the
    library would write into an immutable object."""
    cdef Py_ssize_t n = -1
    _vptr_len(o, out, &n, written)
    if n >= 0 and <size_t>n < size:
        raise ValueError(f"the {type(o).__name__} has room for {n} bytes; the call uses {size}")
    return 0


cdef str _READ_ONLY = "the call writes into this buffer, which is read-only{}: pass a bytearray or a writable array"


cdef bint _read_only(object o):
    """Whether o is a contiguous buffer that refuses to be written (bytes, a read-only memoryview
    or numpy array)."""
    cdef Py_buffer view
    if not PyObject_CheckBuffer(o):
        return False
    try:
        PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS)
    except (TypeError, BufferError):
        return False
    PyBuffer_Release(&view)
    return True


# The type of the last argument _vptr_len took through the buffer protocol: none of the kinds it
# tests for first (an int, a handle, a struct, bytes, a float, a ctypes pointer), so the next
# object of that type (a numpy array, most often) goes to the buffer protocol at once.
cdef type _BUFFER_TYPE = None


cdef int _buffer_address(object o, void** out, Py_ssize_t* n, bint written) except -1:
    """The address (and length) of o's contiguous buffer: 1, or 0 where o has no buffer; a
    numpy array that is not contiguous, or read-only where the call writes, raises."""
    cdef Py_buffer view
    try:
        PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS | (PyBUF_WRITABLE if written else 0))
    except ValueError:                 # numpy: a read-only or a non-contiguous array
        if written and _read_only(o):
            raise TypeError(_READ_ONLY.format(f" ({type(o).__name__})")) from None
        raise
    except (TypeError, BufferError):
        if written and _read_only(o):
            raise TypeError(_READ_ONLY.format(f" ({type(o).__name__})")) from None
        return 0
    out[0] = view.buf
    if n != NULL:
        n[0] = view.len
    PyBuffer_Release(&view)
    return 1


cdef int _vptr_len(object o, void** out, Py_ssize_t* n, bint written) except -1:
    """_vptr, also setting n[0] (if n is not NULL) to the length of a bytes or buffer argument;
    `written`: the call writes there, so a read-only buffer is refused."""
    global _BUFFER_TYPE
    if type(o) is _BUFFER_TYPE and _buffer_address(o, out, n, written):
        return 0
    if o is None:
        out[0] = NULL
        return 0
    if isinstance(o, int):
        if o < 0:
            raise OverflowError(f"an address cannot be negative: {o}")
        out[0] = PyLong_AsVoidPtr(o)
        return 0
    if isinstance(o, _Handle):
        out[0] = (<_Handle>o)._p[0]
        return 0
    if isinstance(o, _IntValue):
        out[0] = <void*><size_t>_iv(<_IntValue>o)
        return 0
    if isinstance(o, _Struct):
        out[0] = (<_Struct>o)._ptr
        return 0
    if isinstance(o, bytes):
        # also where the call writes (a copy's destination), as NVIDIA's package passes it; but
        # not into a one-byte bytes object, which is the interpreter's shared one (CPython caches
        # them): what the call writes there goes to a scratch byte (see _wbuf)
        out[0] = _written_bytes(<bytes>o) if written else <void*>PyBytes_AS_STRING(o)
        if n != NULL:
            n[0] = len(<bytes>o)
        return 0
    if isinstance(o, float) and _float_voidp:      # truncated toward zero (see _float_voidp)
        return _vptr_len(int(o), out, n, written)
    if isinstance(o, (str, float)):
        raise TypeError(f"expected an address, a buffer or None, not {type(o).__name__}")
    if _is_ctypes_pointer(o):
        # a ctypes pointer object stands for the address it holds, not for its own storage
        ct = _get_ctypes()
        out[0] = PyLong_AsVoidPtr(ct.cast(o, ct.c_void_p).value or 0)
        return 0
    if _buffer_address(o, out, n, written):
        _BUFFER_TYPE = type(o)
        return 0
    for meth in ("__index__", "__int__"):
        f = getattr(type(o), meth, None)
        if f is not None:
            out[0] = PyLong_AsVoidPtr(f(o))
            return 0
    raise TypeError(f"expected an address, a buffer or None, not {type(o).__name__}")


cdef int _bptr(object o, void** out, size_t size) except -1:
    """Input data the library reads, `size` bytes of it (nvJitLink's and NVVM's): a buffer of at
    least `size` bytes (ValueError otherwise: the library would read past its end) or an int
    address (its size is the caller's to get right), never None or a handle object."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    if type(o) is bytes:          # the common case, without the buffer protocol's round trip
        n = PyBytes_GET_SIZE(o)
        if <size_t>n < size:
            raise ValueError(f"the bytes buffer has {n} bytes, fewer than size = {size}")
        out[0] = PyBytes_AS_STRING(o)
        return 0
    if o is None or isinstance(o, (_Handle, _IntValue, _Struct, str, float)):
        raise TypeError(f"expected a buffer or an address, not {type(o).__name__}")
    if isinstance(o, int):
        return _vptr(o, out)
    try:
        PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS)
    except (TypeError, BufferError):
        return _vptr(o, out)      # a ctypes pointer or an object with __index__: an address
    out[0] = view.buf
    n = view.len
    PyBuffer_Release(&view)
    if <size_t>n < size:
        raise ValueError(f"the {type(o).__name__} buffer has {n} bytes, fewer than size = {size}")
    return 0


cdef object _hkey(object h):
    """The int value of a handle argument (an int or an object with __index__), or None."""
    if type(h) is int:
        return h
    try:
        return PyNumber_Index(h)
    except TypeError:
        return None


cdef int _live_slow(object h, _SizeMap* consumed, str name, str what) except -1:
    """A handle argument of the snake_case modules (nvJitLink, NVVM, and the struct-style ones):
    not None, and not one that a destroy call of the module consumed (`_consume`): the library
    freed what it points to, so using it again would crash, not fail.  (`_live`, inline, is the
    short way for an int that passes these checks.)"""
    if h is None:
        raise TypeError(f"{name} must be {what} (an int), not None")
    k = _hkey(h)
    if k is not None:
        _not_in_page_zero(k, name, what)
        if _consumed_has(consumed, k):
            raise ValueError(f"{name} {k:#x} was destroyed: {what} cannot be used after its destroy call")
    return 0


cdef int _not_in_page_zero(object k, str name, str what) except -1:
    """A handle the library dereferences (an NVRTC, nvJitLink or NVVM object) is the address of
    memory the library allocated: never in the first page, which is never mapped.  A value there
    (True, a small count or enum passed by mistake) would crash the library, so it is refused;
    0 is the library's to refuse (it reports an invalid-handle status)."""
    if 0 < k < 4096:
        raise ValueError(f"{name} {k:#x} is not {what}: no such object lies in the first page of memory")
    return 0


cdef int _library_handle(void* p, str name, str what) except -1:
    """_not_in_page_zero for a handle argument already converted (the tuple-style NVRTC module)."""
    return _not_in_page_zero(<size_t>p, name, what)


cdef int _library_ref(void** r, str name, str what) except -1:
    """_library_handle for a pointer-to-handle argument (nvrtcDestroyProgram's), given as the
    address of the handle (_href): NULL is the library's to refuse; an address in the first page
    holds no handle (reading it would crash); else the handle stored there is checked."""
    if r == NULL:
        return 0
    if <size_t>r < 4096:
        raise ValueError(f"{name} {<size_t>r:#x} is not the address of {what}: nothing lies in the first "
                         "page of memory")
    return _library_handle(r[0], name, what)


cdef object _arg_error(str function, tuple names, int i):
    """The error being handled, raised converting argument names[i] of `function`, as an exception
    of the same class whose message names both, in the form of Python's own argument errors.
    (Taking the error from sys.exc_info() spares each generated wrapper an `as e` clean-up.)"""
    e = sys.exc_info()[1]
    detail = getattr(e, "_cb_detail", None)
    if detail is not None:  # the message is NVIDIA's own (_twin_error), raised bare there: ours is `detail`
        from cuda.bindings._internal.utils import with_detail
        return with_detail(e, "detail", f"{function}() argument '{names[i]}': {detail}")
    try:
        return type(e)(f"{function}() argument '{names[i]}': {e}")
    except Exception:       # a subclass that takes other arguments: raised as it is
        return e


cdef object _twin_error(str message):
    """A ValueError whose message is `message`, NVIDIA's package's own for the refused argument
    (its buffer conversion's, the same for every failure), raised instead of the error being
    handled; what ours found wrong is kept for `_arg_error`, which puts it in the error's `detail`
    attribute, naming the function and the argument (no note: NVIDIA's raises this error bare)."""
    return _as_twin(ValueError(message), str(sys.exc_info()[1]))


cdef object _as_twin(object err, str detail):
    """`err`, an exception whose message is NVIDIA's package's own, with what ours found wrong
    (`detail`) kept for `_arg_error`, which makes it the error's `detail` attribute."""
    err._cb_detail = detail
    return err


cdef bint _handle_key(object k, void** out) noexcept:
    """The address an int handle value stands for, where it can be one (1 to 2**64-1)."""
    if k <= 0 or k > <object>(<size_t>-1):
        return False
    out[0] = <void*><size_t>k
    return True


cdef bint _consumed_has(_SizeMap* consumed, object k) noexcept:
    cdef void* p
    cdef size_t unused
    return _handle_key(k, &p) and _sizemap_get(consumed, p, &unused)


cdef int _consume(object h, _SizeMap* consumed) except -1:
    """Record a handle that a destroy call freed (see `_live`).  A handle object reads 0 by now
    (the call cleared its value): NULL is refused by the library itself, so it is not recorded."""
    cdef void* p
    k = _hkey(h)
    if k is not None and _handle_key(k, &p):
        _sizemap_put(consumed, p, 0)
    return 0


# What a library goes on using after the call that was given it returns, until a later call
# releases the handle that call made (overrides.KEEP_UNTIL_RELEASE: cuLinkCreate's option arrays,
# which the driver writes output options into and reads log buffers from until cuLinkDestroy):
# (handle type, handle value) -> the converted arguments, which keep the Python objects they
# point to.  Keyed by the value, not held by the handle object: a copy of the handle, or its int,
# given to the releasing call releases them, and dropping the handle object does not.
cdef dict _kept_until_release = {}


cdef int _keep_until_release(str kind, void* handle, object kept) except -1:
    """Keep `kept` until `_release_kept(kind, handle)`."""
    _kept_until_release[(kind, <size_t>handle)] = kept
    return 0


cdef int _release_kept(str kind, void* handle) except -1:
    """The releasing call succeeded: what `_keep_until_release` kept for the handle may go."""
    _kept_until_release.pop((kind, <size_t>handle), None)
    return 0


def _kept_for(kind, handle):
    """What is kept for a handle (None if nothing): for tests and diagnostics."""
    cdef void* p = NULL
    _hptr(handle, &p)
    return _kept_until_release.get((kind, <size_t>p))


cdef int _wbuf(object o, void** out, Py_ssize_t* n, bint address) except -1:
    """A caller buffer the C function writes into: a writable buffer, or a bytes object, filled in
    place as NVIDIA's package does (NVRTC's, nvJitLink's and NVVM's getters document it,
    `log = b" " * size`; the driver's log dump takes one too; a one-byte one: _written_bytes).
    A bare address only where the reference takes one (nvJitLink's outputs, `address`): its size
    cannot be checked."""
    cdef Py_buffer view
    if isinstance(o, bytes):
        n[0] = len(<bytes>o)
        out[0] = _written_bytes(<bytes>o)
        return 0
    if address and isinstance(o, int):
        if o <= 0:
            raise ValueError(f"expected a buffer or a positive address, not {o}")
        out[0] = PyLong_AsVoidPtr(o)
        n[0] = PY_SSIZE_T_MAX    # an address: its size is the caller's responsibility
        return 0
    if o is None:
        raise TypeError("expected a writable buffer (bytearray, numpy array), not None")
    try:
        PyObject_GetBuffer(o, &view, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE)
    except ValueError:                 # numpy: a read-only or a non-contiguous array
        if _read_only(o):
            raise TypeError(_READ_ONLY.format(f" ({type(o).__name__})")) from None
        raise
    except (TypeError, BufferError) as e:
        if _read_only(o):
            raise TypeError(_READ_ONLY.format(f" ({type(o).__name__})")) from None
        raise TypeError(f"expected a writable buffer (bytearray, numpy array), not {type(o).__name__}") from e
    out[0] = view.buf
    n[0] = view.len
    PyBuffer_Release(&view)
    return 0


cdef bytes _as_bytes(object o, bint allow_none):
    if o is None:
        if allow_none:
            return None
        raise TypeError("expected bytes, not None")
    if isinstance(o, bytes):
        return <bytes>o
    if isinstance(o, (bytearray, memoryview)):
        return bytes(o)
    raise TypeError(f"expected bytes, not {type(o).__name__}")


# ----------------------------------------------------------------------------- owned C buffers

@cython.freelist(8)
cdef class _Buf:
    """A zeroed block that lives as long as the call that uses it: in the object itself up to
    _BUF_SMALL bytes (kernel parameters, short arrays: no malloc, and the free list reuses the
    object), malloc'd above that."""

    def __dealloc__(self):
        if self.ptr != NULL and self.ptr != <void*>self.small:
            free(self.ptr)


cdef _Buf _Buf_new(Py_ssize_t size):
    if size < 0:    # a negative count or length from the caller: never a C allocation size
        raise ValueError(f"a buffer size cannot be negative: {size}")
    cdef _Buf b = <_Buf>_tp_new(_Buf, _NOARGS)
    if size <= _BUF_SMALL:
        b.ptr = <void*>b.small
        memset(b.ptr, 0, size)
    else:
        b.ptr = calloc(1, size)
        if b.ptr == NULL:
            raise MemoryError()
    b.size = size
    return b


cdef int _store(char* p, str kind, object v) except -1:
    """Write one item of `kind` at p. kinds: i1 i2 i4 i8 u1 u2 u4 u8 f4 f8 h (pointer) e (enum)."""
    cdef void* vp
    if kind == "h":
        _hptr(v, &vp)
        (<void**>p)[0] = vp
    elif kind == "i4" or kind == "e":
        (<int32_t*>p)[0] = v
    elif kind == "u4":
        (<uint32_t*>p)[0] = v
    elif kind == "i8":
        (<int64_t*>p)[0] = v
    elif kind == "u8":
        (<uint64_t*>p)[0] = v
    elif kind == "f4":
        (<float*>p)[0] = v
    elif kind == "f8":
        (<double*>p)[0] = v
    elif kind == "i1":
        (<int8_t*>p)[0] = v
    elif kind == "u1":
        (<uint8_t*>p)[0] = v
    elif kind == "i2":
        (<int16_t*>p)[0] = v
    elif kind == "u2":
        (<uint16_t*>p)[0] = v
    else:
        raise TypeError(f"cannot store an item of kind {kind}")
    return 0


cdef object _load(char* p, str kind, object cls):
    """One item of `kind` at p: a handle, enum member or integer object of `cls` when given."""
    cdef long long sv = 0
    cdef unsigned long long uv = 0
    cdef Py_UCS4 k = kind[0]
    cdef Py_UCS4 w = kind[1] if len(kind) > 1 else 0
    if k == "h":
        return _new_handle(cls, (<void**>p)[0]) if cls is not None else PyLong_FromVoidPtr((<void**>p)[0])
    if k == "e":
        sv = (<int32_t*>p)[0]
        return _enum(cls._value2member_map_, cls, sv) if cls is not None else sv
    if k == "f":
        return (<float*>p)[0] if w == "4" else (<double*>p)[0]
    # integers: read at their own width and signedness (a -2 stays -2)
    if k == "i":
        if w == "4": sv = (<int32_t*>p)[0]
        elif w == "8": sv = (<int64_t*>p)[0]
        elif w == "1": sv = (<int8_t*>p)[0]
        else: sv = (<int16_t*>p)[0]
        uv = <unsigned long long>sv
    elif k == "u":
        if w == "4": uv = (<uint32_t*>p)[0]
        elif w == "8": uv = (<uint64_t*>p)[0]
        elif w == "1": uv = (<uint8_t*>p)[0]
        else: uv = (<uint16_t*>p)[0]
    else:
        raise TypeError(f"cannot load an item of kind {kind}")
    if cls is not None:
        return _new_int(cls, uv, <int>w - 48, k == "i")
    return sv if k == "i" else uv


cdef _Buf _null_array():
    cdef _Buf b = _Buf.__new__(_Buf)
    b.ptr = NULL
    b.n = -1         # an address (see _bufptr): NULL
    b.size = 0
    return b


# what an empty list converts to: a NULL array (shared: it holds nothing)
cdef _Buf _NULL_ARRAY = _null_array()


cdef _Buf _array(object o, str kind, Py_ssize_t elsize):
    """A C array from a list or tuple (None -> NULL; kind 's' copies structs of elsize), or a
    ready-made C array: an int address, a buffer (a numpy array of the C items) or one struct."""
    cdef _Buf b
    cdef Py_ssize_t i, n
    cdef void* addr
    if o is None:
        return None
    if not isinstance(o, (list, tuple)):
        if isinstance(o, (float, _Handle, _IntValue)) and kind[0] == "f":
            # one number where the C function reads floats: NVIDIA's package passes the address
            # of that one value (cuTexRefSetBorderColor's pBorderColor); the rest is zeroed
            b = _Buf_new(_BUF_SMALL)
            b.n = 1
            _store(<char*>b.ptr, kind, o)
            return b
        if kind == "h" and isinstance(o, _Handle):       # one handle: its own storage
            addr = <void*>(<_Handle>o)._p
        elif not isinstance(o, (int, _Struct)) and not PyObject_CheckBuffer(o) or isinstance(o, (_Handle, _IntValue, bool)):
            raise TypeError(f"expected a list, an address or a buffer, not {type(o).__name__}")
        else:
            _vptr(o, &addr)
        b = _Buf.__new__(_Buf)
        b.keep = o
        b.ptr = NULL
        b.n = -1
        b.size = <Py_ssize_t>addr
        return b
    n = len(o)
    if n == 0:          # no items: NULL, as NVIDIA's package passes an empty list (the count is the
        return _NULL_ARRAY      # library's to check)
    b = _Buf_new(n * elsize)
    b.n = n
    for i in range(n):
        item = o[i]
        if kind == "s":
            if not isinstance(item, _Struct) or type(item)._c_size != elsize:
                raise TypeError(f"expected a list of structs of {elsize} bytes, item {i} is {type(item).__name__}")
            memcpy(<char*>b.ptr + i * elsize, (<_Struct>item)._ptr, elsize)
        else:
            _store(<char*>b.ptr + i * elsize, kind, item)
    return b


cdef list _from_array(void* p, Py_ssize_t n, str kind, object cls, Py_ssize_t elsize):
    cdef list out = []
    cdef Py_ssize_t i
    cdef _Struct s
    if p == NULL:
        return out
    for i in range(n):
        if kind == "s":
            s = _new_struct(cls)
            memcpy(s._ptr, <char*>p + i * elsize, elsize)
            out.append(s)
        else:
            out.append(_load(<char*>p + i * elsize, kind, cls))
    return out


cdef int _check_count_of(object items, object count, str name, str count_name, bint tuple_style) except -1:
    """A count argument must not exceed the length of the list it counts (the C function would
    read past the copy); an address or a buffer is the caller's to size.  In the tuple-style
    modules None is NULL, passed with the count as NVIDIA's package passes it; the snake_case
    modules refuse it, as NVIDIA's do."""
    cdef Py_ssize_t n
    if items is None and not tuple_style:
        n = 0
    elif isinstance(items, (list, tuple)):
        n = len(items)
    elif isinstance(items, str):
        if count > 0:      # (JIT option values: a str is no list of values, which its characters are not)
            raise TypeError(f"{name} must be a list, not str")
        return 0
    elif isinstance(items, float):
        # a counted list (a void** of `count` pointers) given a float, which a void** without a
        # count takes as an address (cuLaunchKernel's extra): refused, as NVIDIA's package does
        raise TypeError(f"{name} must be a list, not float")
    else:
        # None (in a tuple-style module) is NULL, passed with the count: the library checks it;
        # an address or a buffer is the caller's to size
        return 0
    # an empty list is NULL too (_array), in every module; a shorter list is refused: the library
    # would read past the copy made for the call
    if (n or items is None) and count > n:
        raise RuntimeError(f"{name} has {n} items, fewer than {count_name} = {count}")
    return 0


cdef _Buf _strlist_of(object o, bint any_sequence):
    """_strlist (_base.pxd); `any_sequence`: besides a list or tuple, any other sequence of text
    (a ctypes char array, whose items are bytes), as NVIDIA's tuple-style package iterates what it
    is given (its snake_case modules refuse those)."""
    cdef _Buf b
    cdef Py_ssize_t i
    if o is None:
        return None
    if (type(o) is list or type(o) is tuple) and not o:
        return None           # no strings: a NULL array (the count is 0)
    if isinstance(o, (list, tuple)):
        items = o
    elif not any_sequence or isinstance(o, (str, bytes, bytearray)):
        raise TypeError(f"expected a list of bytes, not {type(o).__name__}")
    else:
        try:
            items = list(o)
        except TypeError:
            raise TypeError(f"expected a list of bytes, not {type(o).__name__}") from None
    keep = [(<str>x).encode() if isinstance(x, str) else _as_bytes(x, False) for x in items]
    if not keep:
        return None
    b = _Buf_new(len(keep) * sizeof(void*))
    b.n = len(keep)
    b.keep = keep
    for i in range(len(keep)):
        (<char**>b.ptr)[i] = PyBytes_AS_STRING(keep[i])
    return b


cdef void* _cstr_address(object k) except? NULL:
    """The int address of a C string or of an array of them (0: NULL): one in the first page of
    memory, where nothing lies, is refused (ValueError) rather than handed to the library, which
    would read it and crash (NVIDIA's package passes it on)."""
    if 0 < k < 4096:
        raise ValueError(f"{k:#x} is not the address of a C string or an array of them: nothing lies "
                         f"in the first page of memory")
    return PyLong_AsVoidPtr(k)


cdef _Buf _cstrs(object o, Py_ssize_t count, bint null_items):
    """An array of C strings as NVIDIA's nvJitLink, NVVM and nvFatbin modules take their options
    (the caller handles an int address and None): a sequence whose items are each an int, the
    address of a C string, or a str (encoded; bytes too, which NVIDIA's refuses), so that a str is
    the sequence of its characters and a bytes object that of its byte values, as there.  An empty
    sequence is NULL, whatever `count` says (the library reports it); a count beyond a non-empty
    sequence is refused (RuntimeError): the library would read pointers past its end (nvJitLink
    crashes on it).  An item 0 is a NULL option, refused unless `null_items` (the library reports
    it, as NVVM, nvFatbin and nvJitLink 13.5 do)."""
    cdef _Buf b
    cdef Py_ssize_t i, n
    try:
        n = len(o)
    except TypeError:
        raise TypeError(f"expected a sequence of str or an int address, not {type(o).__name__}") from None
    if n == 0:
        return None
    if count > n:
        raise RuntimeError(f"has {n} items, fewer than the count {count}")
    items = list(o)
    keep = []
    b = _Buf_new(n * sizeof(void*))
    b.n = n
    for i in range(n):
        x = items[i]
        if isinstance(x, str):
            x = (<str>x).encode()
        elif not isinstance(x, bytes):        # an address: an int, or an object with __index__
            k = PyNumber_Index(x)
            if (k == 0 and not null_items) or 0 < k < 4096:
                if type(x) is not int:
                    # a numpy integer, which NVIDIA's refuses ("an integer is required"): refused
                    # as there where ours refuses it
                    raise _as_twin(TypeError("an integer is required"),
                                   f"item {i}, {k:#x}, is the address of no C string")
                if k == 0:        # a NULL option, which this library reads and crashes on
                    raise ValueError(f"item {i} is 0, the address of no C string")
            (<void**>b.ptr)[i] = _cstr_address(k)
            continue
        keep.append(x)
        (<char**>b.ptr)[i] = PyBytes_AS_STRING(x)
    b.keep = keep
    return b


cdef Py_ssize_t _bytes_into(unsigned char* dst, Py_ssize_t size, object src, bint whole) except -1:
    """Copies the bytes of `src` (any buffer but str; a sequence of byte values too) into the
    `size` bytes at dst, zero-filling the rest; returns how many it copied.  More than `size` is a
    ValueError where `whole` (a count says how many the library reads), else the first `size`."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    if isinstance(src, str):
        raise TypeError("expected bytes, not str")
    if not PyObject_CheckBuffer(src):
        src = bytes(src)                 # a sequence of byte values (TypeError, ValueError otherwise)
    PyObject_GetBuffer(src, &view, PyBUF_ANY_CONTIGUOUS)
    try:
        n = view.len
        if n > size and whole:
            raise ValueError(f"holds {n} bytes, more than the {size} the field takes")
        n = min(n, size)
        memcpy(dst, view.buf, n)
        memset(dst + n, 0, size - n)
    finally:
        PyBuffer_Release(&view)
    return n


cdef _Buf _voidpp(object o):
    """void** input: None, an address, or a list of addresses/buffers."""
    cdef _Buf b
    cdef void* p
    cdef Py_ssize_t i
    if isinstance(o, float):     # an address: truncated toward zero, as NVIDIA's package takes it
        o = int(o)
    if o is None or isinstance(o, int) or not isinstance(o, (list, tuple)):
        b = _Buf.__new__(_Buf)
        _vptr(o, &p)
        b.keep = o
        b.size = <Py_ssize_t>p
        b.n = -1
        return b
    b = _Buf_new(len(o) * sizeof(void*))
    b.n = len(o)
    b.keep = list(o)
    for i in range(len(o)):
        _vptr(o[i], &p)
        (<void**>b.ptr)[i] = p
    return b


cdef _Buf _jitvalues(object o):
    """JIT option values: each item is passed in a void* slot: ints by value, floats as a
    32-bit float, buffers and bytes by address."""
    cdef _Buf b
    cdef void* p
    cdef float f
    cdef Py_ssize_t i
    if o is None or isinstance(o, str):
        # None: an empty array, not NULL, as NVIDIA's package passes it; a str: a sequence whose
        # characters are no option values, so only with no options (_check_count refuses it
        # with some), an empty array too
        b = _Buf_new(0)
        b.keep = o
        return b
    if isinstance(o, float):
        raise TypeError("expected a list of option values, not float")
    if not isinstance(o, (list, tuple)):
        return _voidpp(o)       # the address / buffer of a ready void*[]
    b = _Buf_new(len(o) * sizeof(void*))
    b.n = len(o)
    b.keep = list(o)
    for i in range(len(o)):
        v = o[i]
        if isinstance(v, float):
            f = v
            memcpy(<char*>b.ptr + i * sizeof(void*), &f, sizeof(float))
        elif isinstance(v, bool):
            (<size_t*>b.ptr)[i] = 1 if v else 0
        elif isinstance(v, int):
            (<size_t*>b.ptr)[i] = <size_t>(v & 0xFFFFFFFFFFFFFFFF)
        elif hasattr(type(v), "__index__") and not isinstance(v, (bytes, bytearray)) and not hasattr(v, "__len__"):
            (<size_t*>b.ptr)[i] = <size_t>(v.__index__() & 0xFFFFFFFFFFFFFFFF)
        else:
            _vptr(v, &p)
            (<void**>b.ptr)[i] = p
    return b


# ----------------------------------------------------------------------------- structs

include "_field_kinds.pxi"


cdef class _Struct:
    """Base of every struct/union class: owns (or views) the C memory of one value.

    Equality and hashing are by identity, as in the reference package.  Python objects whose
    address a field holds (buffers in `void*` fields, converted lists and kernel parameters) are
    kept alive by the struct that owns the memory, keyed by the field's offset in it, so a nested
    view (`params.memcpy.copyParams.dstHost = array`) keeps them as long as the outermost struct."""

    # No __cinit__: tp_new zeroes the object (_ptr NULL, _own False), and one taking *args and
    # **kwargs made a tuple and a dict for every struct the wrappers return.

    def __init__(self, _ptr=0):
        cdef Py_ssize_t size
        if self._ptr != NULL:
            return
        if _ptr:
            # the type of an anonymous member takes the address of the named struct it lies in, as
            # NVIDIA's package has it: anon_struct0(_ptr=address of a CUDA_RESOURCE_DESC) views
            # its `res.array`, 8 bytes further (_c_anon_offset, from the module's struct table)
            self._ptr = <char*>_address(_ptr) + <Py_ssize_t>type(self)._c_anon_offset
            self._own = False
            return
        size = type(self)._c_size
        self._ptr = <char*>PyMem_Calloc(1, size if size > 0 else 1)
        if self._ptr == NULL:
            raise MemoryError()
        self._own = True
        for name, value in type(self)._c_defaults:
            obj = self
            path, _, name = name.rpartition(".")
            if path:                          # a member's field: gridDim.x, through a view of it
                for part in path.split("."):  # (not the member kept for reads: no cycle to free)
                    f = <_Field>getattr(type(obj), part)
                    obj = _struct_view(f.item_cls(), (<_Struct>obj)._ptr + f.off, obj)
            setattr(obj, name, value)

    # (field, value) pairs other than zero for a new struct; a member's field is a dotted path
    _c_defaults = ()
    # the offset of an anonymous member's type in the named struct that holds it (see __init__)
    _c_anon_offset = 0
    # the fields its repr shows, where not all of _c_fields (the module's _STRUCT_REPR_OMITS)
    _c_repr_fields = None

    def __dealloc__(self):
        if self._own and self._ptr != NULL:
            PyMem_Free(self._ptr)     # (struct memory comes from PyMem_Calloc: Python's small-object allocator)

    def getPtr(self):
        """Address of the C value."""
        return PyLong_FromVoidPtr(self._ptr)

    def __repr__(self):
        return "\n".join(_repr_lines(self))

    def __reduce__(self):
        """Pickled as its C bytes, rebuilt into memory the new object owns (an IPC handle sent to
        another process).  Refused while a pointer or handle field holds an address: it would
        mean nothing in another process, and the object it may keep alive does not travel."""
        cls = type(self)
        _check_portable(cls, self._ptr, cls.__name__)
        return (_rebuild_struct, (cls, PyBytes_FromStringAndSize(self._ptr, cls._c_size)))

    def __copy__(self):
        return _struct_copy(self)

    def __deepcopy__(self, memo):
        return _struct_copy(self)


__cb_struct_root = <PyTypeObject*>_Struct    # see __cb_struct_dealloc


def _rebuild_struct(cls, data):
    """A new `cls` owning a copy of `data`, its C bytes (what a pickled struct is rebuilt by)."""
    if not (isinstance(cls, type) and issubclass(cls, _Struct)) or not isinstance(data, bytes):
        raise TypeError("expected a struct class and its bytes")
    if len(<bytes>data) != cls._c_size:
        raise ValueError(f"{cls.__name__} has {cls._c_size} bytes, got {len(<bytes>data)}")
    cdef _Struct s = _new_struct(cls)
    memcpy(s._ptr, PyBytes_AS_STRING(data), len(<bytes>data))
    return s


cdef _Struct _struct_copy(_Struct src):
    """copy.copy and copy.deepcopy of a struct: its bytes in memory the copy owns, as C's
    assignment copies them, and the Python objects that its pointer fields' addresses belong to,
    kept alive by the copy as well (the pointers point at the same objects, not at copies)."""
    cls = type(src)
    cdef _Struct dst = _new_struct(cls)
    _copy_struct(dst, dst._ptr, src, cls, cls._c_size, cls.__name__)
    return dst


cdef int _check_portable(object cls, char* base, str path) except -1:
    """Raise TypeError if a pointer or handle field of the struct at `base` (nested structs and
    arrays included) holds an address: see _Struct.__reduce__.  `path` names the struct."""
    cdef _Field f
    cdef char* p
    cdef void* v
    cdef Py_ssize_t i, n
    cdef int kind
    for name in cls._c_fields:
        f = <_Field>getattr(cls, name)
        kind = f.kind
        n = 1
        if kind == F_ARRAY:
            kind = f.ekind
            n = f.count
        for i in range(n):
            p = base + f.off + i * f.size
            where = f"{path}.{name}[{i}]" if f.kind == F_ARRAY else f"{path}.{name}"
            if kind == F_STRUCT:
                _check_portable(f.item_cls(), p, where)
            elif (kind == F_VOIDP or kind == F_CSTR or kind == F_PTRARR or kind == F_KPARAMS or kind == F_HANDLE
                    or kind == F_INTPTR):
                v = (<void**>p)[0]
                if v != NULL:
                    raise TypeError(f"cannot pickle {where.partition('.')[0]}: {where} holds the address "
                                    f"{PyLong_FromVoidPtr(v):#x}, which means nothing in another process "
                                    "(a struct pickles with its pointer and handle fields NULL)")
    return 0


cdef list _repr_lines(_Struct s):
    """`field : value` lines; a nested struct's lines follow its name, indented by four."""
    cdef list lines = []
    cdef _Field f
    cls = type(s)
    shown = cls._c_repr_fields
    for name in (cls._c_fields if shown is None else shown):
        f = <_Field>getattr(cls, name)
        try:
            v = getattr(s, name)
        except Exception as e:  # a field that cannot be shown is named, not hidden
            lines.append(f"{name} : <{type(e).__name__}>")
            continue
        if isinstance(v, _Struct):
            lines.append(f"{name} :")
            lines.extend(["    " + x for x in _repr_lines(<_Struct>v)])
        elif f.kind == F_ARRAY and f.ekind == F_STRUCT:   # the list's text under its name, as a member's
            lines.append(f"{name} :")
            lines.extend(["    " + x for x in str(v).split("\n")])
        elif f.kind == F_VOIDP and f.ekind:             # a void*: hex
            lines.append(f"{name} : {v:#x}")
        elif f.kind == F_CHARS and f.ekind == 1:        # a C string: its text
            lines.append(f"{name} : {v.decode('utf-8', 'replace')}")
        elif f.kind == F_CHARS and f.ekind == 2:        # a UUID or LUID: hex digits
            lines.append(f"{name} : {v.hex()}")
        else:
            lines.append(f"{name} : {v}")
    return lines


cdef _Struct _new_struct(type cls):
    cdef _Struct s = <_Struct>_tp_new(cls, _NOARGS)
    cdef Py_ssize_t size = cls._c_size
    s._ptr = <char*>PyMem_Calloc(1, size if size > 0 else 1)
    if s._ptr == NULL:
        raise MemoryError()
    s._own = True
    return s


cdef _Struct _struct_view(type cls, void* p, object owner):
    cdef _Struct s = <_Struct>_tp_new(cls, _NOARGS)
    s._ptr = <char*>p
    s._own = False
    s._owner = owner
    return s


cdef _Struct _root(_Struct s):
    """The struct whose memory `s` is part of (itself unless it is a nested view)."""
    while isinstance(s._owner, _Struct):
        s = <_Struct>s._owner
    return s


cdef int _keep(_Struct s, char* p, object value) except -1:
    """Keep `value` alive for the field at `p` (None: keep nothing for it)."""
    cdef _Struct r = _root(s)
    key = <Py_ssize_t>(p - r._ptr)
    if value is None:
        if r._keep is not None:
            r._keep.pop(key, None)
        return 0
    if r._keep is None:
        r._keep = {}
    r._keep[key] = value
    return 0


cdef object _kept(_Struct s, char* p):
    cdef _Struct r = _root(s)
    return None if r._keep is None else r._keep.get(<Py_ssize_t>(p - r._ptr))


cdef int _copy_struct(_Struct dst, char* p, object value, object cls, Py_ssize_t size, str name) except -1:
    """Copy a struct value into the field or item at `p`, with what it keeps alive."""
    cdef _Struct src, r
    cdef Py_ssize_t base, k
    if not isinstance(value, cls) and not (isinstance(value, _Struct) and type(value)._c_size == size):
        raise TypeError(f"{name} expects {cls.__name__}, not {type(value).__name__}")
    src = <_Struct>value
    memcpy(p, src._ptr, size)
    r = _root(src)
    if r._keep:
        base = src._ptr - r._ptr
        for key, v in list(r._keep.items()):
            if type(key) is not int:     # a nested struct's view (_Field.member), not a kept object
                continue
            k = key
            if base <= k < base + size:
                _keep(dst, p + (k - base), v)
    return 0


cdef _Buf _structs(object o, Py_ssize_t size):
    """A `const T*` struct argument: one struct (its own memory), None, an address, or a list of
    structs (copied into one contiguous array for the call)."""
    cdef _Buf b
    if o is None:
        return None
    if isinstance(o, (list, tuple)):
        return _array(o, "s", size)
    # one struct object (a bare int would be an address nothing checks)
    if not isinstance(o, _Struct) or type(o)._c_size != size:
        raise TypeError(f"expected a struct of {size} bytes or a list of them, not {type(o).__name__}")
    b = _Buf.__new__(_Buf)
    b.keep = o
    b.n = -1
    b.size = <Py_ssize_t>(<_Struct>o)._ptr
    return b


cdef void* _sval(object o, Py_ssize_t size) except NULL:
    """A struct passed by value: a struct object of that C size (its memory is read)."""
    if not isinstance(o, _Struct) or type(o)._c_size != size:
        raise TypeError(f"expected a struct of {size} bytes, not {type(o).__name__}")
    return (<_Struct>o)._ptr


cdef class _Field:
    """Descriptor for one field of a generated struct class."""
    cdef public str name
    cdef Py_ssize_t off
    cdef readonly int kind
    cdef int size          # item size for scalars / elements
    cdef Py_ssize_t count  # array length
    cdef object cls        # enum/handle/int/struct class of the item, or its name until first use
    cdef _Lazy ns          # resolves that name
    cdef int ekind         # item kind for arrays
    cdef str countname     # for F_PTRARR: the count field
    cdef bint sets_count   # setting the list sets the count field
    cdef tuple together    # the list fields sharing the count field, set together (or None)

    def __init__(self, str name, Py_ssize_t off, int kind, int size, Py_ssize_t count, cls, _Lazy ns, int ekind, str countname):
        self.name = name
        self.off = off
        self.kind = kind
        self.size = size
        self.count = count
        self.cls = cls
        self.ns = ns
        self.ekind = ekind
        # the count spec: name, then "!" (setting the list sets it) or "&a,b" (a, b set together)
        self.together = None
        if countname.endswith("!"):
            countname = countname[:-1]
            self.sets_count = True
        elif "&" in countname:
            countname, group = countname.split("&")
            self.together = tuple(group.split(","))
        self.countname = countname

    cdef inline object item_cls(self):
        if type(self.cls) is str:
            self.cls = self.ns.cls(self.cls)
        return self.cls

    def __get__(self, obj, objtype):
        if obj is None:
            return self
        cdef _Struct s = <_Struct>obj
        cdef char* p = s._ptr + self.off
        if self.kind == F_PTRARR:
            return self.get_items(s, p)
        if self.kind == F_STRUCT:
            return self.member(s, p)
        if self.kind == F_ARRAY and self.ekind == F_STRUCT:
            return self.struct_items(s, p)
        return _get_item(p, self.kind, self.size, self.item_cls(), obj, self.count, self.ekind)

    cdef object member(self, _Struct s, char* p):
        """A nested struct or union: a view of the parent's memory, made on the first read and kept
        by the parent (keyed by this field in its `_keep`), so that every read gives the same
        object, as in NVIDIA's package (`k.gridDim is k.gridDim`).  The view keeps the parent
        alive (its `_owner`): the two form a cycle, freed by the garbage collector.  (Knowing
        the view by its address instead, and letting it go when freed, made every read of a
        member nobody holds twice as slow.)"""
        cdef dict keep = s._keep
        if keep is not None:
            v = keep.get(self)
            if v is not None:
                return v
        else:
            keep = s._keep = {}
        v = _struct_view(self.item_cls(), p, s)
        keep[self] = v
        return v

    cdef list struct_items(self, _Struct s, char* p):
        """A fixed array of structs: a list of copies of its items, as NVIDIA's package reads it
        (changing an item read from it leaves the parent as it is); a copy keeps alive what the
        parent keeps for the item's pointer fields."""
        cls = self.item_cls()
        cdef Py_ssize_t i
        return [_struct_copy(_struct_view(cls, p + i * self.size, s)) for i in range(self.count)]

    cdef list get_items(self, _Struct s, char* p):
        """A pointer field's items: those set from Python while the pointer is still theirs,
        else as many as the count field gives (0 without one)."""
        cdef char* q = (<char**>p)[0]
        cdef Py_ssize_t i, n
        if q == NULL:
            # handles the C side has not written yet (a conditional node's body graphs before
            # cuGraphAddNode): as many NULL handles as the count says, as NVIDIA's package shows them
            if self.ekind == F_HANDLE and self.countname:
                n = int(getattr(s, self.countname))
                if n > 0:
                    cls = self.item_cls()
                    return [_new_handle(cls, NULL) for i in range(n)]
            return []
        kept = _kept(s, p)
        if kept is not None and (<tuple>kept)[0] is not None and (<_Buf>(<tuple>kept)[0]).ptr == <void*>q:
            n = (<_Buf>(<tuple>kept)[0]).n
            owner = kept
        else:
            n = int(getattr(s, self.countname)) if self.countname else 0
            owner = s
        cls = self.item_cls()
        return [_get_item(q + i * self.size, self.ekind, self.size, cls, owner, 0, 0) for i in range(n)]

    cdef int set_items(self, _Struct s, object value) except -1:
        """Point a list field at a C array of `value`'s items, kept alive by the struct."""
        cdef char* p = s._ptr + self.off
        cdef _Buf b
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{self.name} expects a list, not {type(value).__name__}")
        b = _array(value, _item_code(self.ekind, self.size), self.size)
        (<void**>p)[0] = b.ptr if b.n else NULL
        _keep(s, p, (b, value))
        return 0

    def __set__(self, obj, value):
        cdef _Struct s = <_Struct>obj
        cdef char* p = s._ptr + self.off
        cdef Py_ssize_t i
        cdef _Buf b
        if self.kind == F_CHARS:
            _set_chars(p, self.count, value, self.name, self.ekind == 1)
        elif self.kind == F_ARRAY:
            if not isinstance(value, (list, tuple)):
                try:
                    value = list(value)
                except TypeError:
                    raise TypeError(f"{self.name} expects a list of {self.count} items, not {type(value).__name__}") from None
            if len(value) != self.count:
                raise IndexError(f"{self.name} holds {self.count} items, got {len(value)}")
            for i in range(self.count):
                _set_item(s, p + i * self.size, self.ekind, self.size, value[i], self.name, self)
        elif self.kind == F_KPARAMS:
            b = _kparams(value, <void**>p)
            # the packed block with its values, or the caller's buffer the field now points into
            _keep(s, p, (b, value) if b is not None else None if value is None or isinstance(value, int) else value)
        elif self.kind == F_PTRARR:
            if self.together is not None:
                raise AttributeError(
                    f"{self.name} shares its count field {self.countname} with "
                    f"{', '.join(x for x in self.together if x != self.name)}: set them together with "
                    f"set_{'_'.join(self.together)}()")
            self.set_items(s, value)
            if self.sets_count:
                setattr(s, self.countname, len(value))
        else:
            _set_item(s, p, self.kind, self.size, value, self.name, self)


cdef str _item_code(int ekind, int size):
    """The `_array` item code of a field item kind."""
    if ekind == F_HANDLE or ekind == F_VOIDP:
        return "h"
    if ekind == F_ENUM:
        return "e"
    if ekind == F_STRUCT:
        return "s"
    if ekind == F_F:
        return "f4" if size == 4 else "f8"
    if ekind == F_I:
        return "i%d" % size
    return "u%d" % size


cdef object _get_item(char* p, int kind, int size, object cls, object owner, Py_ssize_t count, int ekind):
    cdef Py_ssize_t i, n
    cdef void* q
    if kind == F_I:
        if size == 4: return (<int32_t*>p)[0]
        if size == 8: return (<int64_t*>p)[0]
        if size == 1: return (<int8_t*>p)[0]
        return (<int16_t*>p)[0]
    if kind == F_U:
        if size == 4: return (<uint32_t*>p)[0]
        if size == 8: return (<uint64_t*>p)[0]
        if size == 1: return (<uint8_t*>p)[0]
        return (<uint16_t*>p)[0]
    if kind == F_BOOL:
        return (<uint8_t*>p)[0] != 0
    if kind == F_F:
        if size == 4: return (<float*>p)[0]
        return (<double*>p)[0]
    if kind == F_ENUM:
        if cls is None:
            return (<int32_t*>p)[0]
        # a value that names no member reads as None, as in NVIDIA's 13.0 package; where NVIDIA's
        # package of this release makes FastEnum classes (12.9, 13.5), it raises ValueError, as there
        r = (<dict>cls._value2member_map_).get((<int32_t*>p)[0])
        if r is None:
            r = (<dict>cls._value2member_map_).get((<uint32_t*>p)[0])   # a member above INT_MAX
            if r is None and _strict_enum_fields:
                raise ValueError(f"{(<uint32_t*>p)[0]} is not a valid {cls.__name__}")
        return r
    if kind == F_HANDLE:
        return _field_view(cls, p, owner, 0)
    if kind == F_INTV:
        return _field_view(cls, p, owner, size)
    if kind == F_STRUCT:
        return _struct_view(cls, p, owner)
    if kind == F_CHARS:
        if ekind == 1:   # a C string: up to the first NUL
            n = 0
            while n < count and p[n] != 0:
                n += 1
            return PyBytes_FromStringAndSize(p, n)
        return PyBytes_FromStringAndSize(p, count)
    if kind == F_ARRAY:
        return [_get_item(p + i * size, ekind, size, cls, owner, 0, 0) for i in range(count)]
    if kind == F_VOIDP or kind == F_KPARAMS:
        return PyLong_FromVoidPtr((<void**>p)[0])
    if kind == F_INTPTR:       # a view of the value pointed to; for NULL a new object holding 0
        q = (<void**>p)[0]
        if q == NULL:
            return _new_int(cls, 0, size, cls._c_signed)
        return _field_view(cls, q, owner, size)
    if kind == F_CSTR:
        q = (<void**>p)[0]
        return None if q == NULL else <bytes>(<char*>q)
    raise TypeError("unsupported field kind")


cdef int _set_chars(char* p, Py_ssize_t count, object value, str name, bint cstring) except -1:
    """A char[count] field from bytes (or a bytes-like object) or a list of ints -128..255.  Binary
    data (an IPC handle, a UUID, padding) must have exactly `count` bytes, as in the reference
    package: a handle cut short would reach the driver as another handle.  A C string
    (`cudaDeviceProp.name`) may be shorter: the rest is zeroed, so it ends with a NUL."""
    cdef Py_ssize_t i, n
    if isinstance(value, (list, tuple)):
        for i, x in enumerate(value):
            if not isinstance(x, int) or not -128 <= x <= 255:
                raise (TypeError if not isinstance(x, int) else OverflowError)(
                    f"{name}: item {i} must be an int from -128 to 255, not {x!r}")
        value = bytes([x & 0xFF for x in value])
    else:
        value = _as_bytes(value, False)
    n = len(value)
    if cstring and n > count:
        raise ValueError(f"{name} holds at most {count} bytes, got {n}")
    if not cstring and n != count:
        raise ValueError(f"{name} length must be {count}, is {n}")
    memset(p, 0, count)
    memcpy(p, PyBytes_AS_STRING(value), n)
    return 0


cdef int _set_item(_Struct s, char* p, int kind, int size, object value, str name, _Field f) except -1:
    """One field or array item of `kind` at `p`.  Integers convert as in the reference package
    (Cython's conversion: ints, objects with __index__/__int__, floats truncated)."""
    cdef void* vp
    try:
        if kind == F_I or kind == F_ENUM:
            if size == 4: (<int32_t*>p)[0] = value
            elif size == 8: (<int64_t*>p)[0] = value
            elif size == 1: (<int8_t*>p)[0] = value
            else: (<int16_t*>p)[0] = value
        elif kind == F_U or kind == F_INTV:
            if kind == F_INTV and value is None:     # NULL, as for handles
                value = 0
            if size == 4: (<uint32_t*>p)[0] = value
            elif size == 8: (<uint64_t*>p)[0] = value
            elif size == 1: (<uint8_t*>p)[0] = value
            else: (<uint16_t*>p)[0] = value
        elif kind == F_BOOL:
            (<uint8_t*>p)[0] = 1 if value else 0
        elif kind == F_F:
            if size == 4: (<float*>p)[0] = value
            else: (<double*>p)[0] = value
        elif kind == F_HANDLE:
            _hptr(value, &vp)
            (<void**>p)[0] = vp
        elif kind == F_VOIDP:
            # a float is truncated to an address in a pointer field other than void* (void**, T*:
            # every release of NVIDIA's package) and in a void* one where _float_voidp says so
            if isinstance(value, float) and (_float_voidp or (f.kind == F_VOIDP and f.ekind != 1)):
                value = int(value)
            _vptr(value, &vp)
            (<void**>p)[0] = vp
            _keep(s, p, None if value is None or isinstance(value, int) else value)
        elif kind == F_INTPTR:
            _set_intptr(s, p, size, value, name)
        elif kind == F_CSTR:
            data = _as_bytes(value, True)
            (<char**>p)[0] = PyBytes_AS_STRING(data) if data is not None else NULL
            _keep(s, p, data)
        elif kind == F_STRUCT:
            _copy_struct(s, p, value, f.item_cls(), size, name)
        else:
            raise TypeError(f"{name} cannot be set")
    except (OverflowError, TypeError) as e:
        if str(e).startswith(name):
            raise
        raise type(e)(f"{name}: {e}") from None
    return 0


cdef int _set_intptr(_Struct s, char* p, int size, object value, str name) except -1:
    """An F_INTPTR field (NVIDIA's has no setter): an object of an integer class is pointed at
    (its storage, kept alive by the struct), anything else is an address as for a void* field; an
    address in the first page is refused, where reading the field back would crash."""
    cdef void* vp
    if isinstance(value, _IntValue):
        if (<_IntValue>value)._size < size:
            raise TypeError(f"expected an object of {size} bytes, not {type(value).__name__}")
        vp = (<_IntValue>value)._p
    else:
        if isinstance(value, float):
            raise TypeError("expected an address, an integer object, a buffer or None, not float")
        _vptr(value, &vp)
        if vp != NULL and <size_t>vp < 4096:
            raise ValueError(f"{name}: {<size_t>vp:#x} is not an address: nothing lies in the first page of memory")
    (<void**>p)[0] = vp
    _keep(s, p, None if value is None or isinstance(value, int) else value)
    return 0


# ----------------------------------------------------------------------------- lazy module namespace

cdef object _enum_module = None      # (name, [(member, value)], module) -> enum class
cdef bint _strict_enum_fields = False   # an enum field holding no member's value raises ValueError
cdef bint _member_docs = False          # enum members have docstrings of their own (FastEnum builds)
cdef dict _enum_doc_tables = {}         # docstring module name -> its ENUMS table


cdef class _EnumDoc:
    """The `__doc__` of a generated enum class and of its members: a descriptor in the class,
    which reads the module's docstring table (cuda.bindings._enumdocs_<lib>, generated from the
    headers' comments) on first use, so making an enum class costs no docstrings.  The class's is
    the enum's comment.  A member's: in the builds whose enums are FastEnum classes, its own
    comment (None where it has none), as NVIDIA's package of those releases gives; in the IntEnum
    builds, the class's, as NVIDIA's IntEnum members have.  Clients read it: cuda.core's message
    for a failed graph update is a CUgraphExecUpdateResult member's docstring."""
    cdef str table
    cdef str name
    cdef bint per_member

    def __init__(self, str table, str name, bint per_member):
        self.table = table
        self.name = name
        self.per_member = per_member

    def __get__(self, obj, cls):
        t = _enum_doc_tables.get(self.table)
        if t is None:
            import importlib
            try:
                t = importlib.import_module(self.table).ENUMS
            except ImportError:
                t = {}
            _enum_doc_tables[self.table] = t
        doc = t.get(self.name)
        if doc is None:
            return None
        if obj is None or not self.per_member:
            return doc[0]
        return doc[1].get(obj.name)


def _fast_enum(name, members, module):
    """A FastEnum class (cuda.bindings._internal._fast_enum_impl)."""
    from cuda.bindings._internal._fast_enum_impl import FastEnum, FastEnumMetaclass
    ns = {"__module__": module, "__qualname__": name}
    ns.update(members)
    return FastEnumMetaclass(name, (FastEnum,), ns)


def _enum_maker():
    """How this build makes its enum classes: enum.IntEnum, or, where NVIDIA's package of the same
    release uses its FastEnum (the generated _version.FAST_ENUM), cuda.bindings._internal._fast_enum."""
    global _strict_enum_fields, _member_docs
    from cuda.bindings import _version
    if getattr(_version, "FAST_ENUM", False):
        _strict_enum_fields = True
        _member_docs = True
        return _fast_enum
    import enum

    def make(name, members, module):
        return enum.IntEnum(name, members, module=module, qualname=name)
    return make


cdef class _Lazy:
    """The enum and struct classes of one generated module, created on first use.

    Creating ~110 enum classes and ~120 struct classes (plus ~330 aliases) took most of
    `import cuda.bindings.driver`; a program touches a handful.  The module keeps their specs as
    two text tables (one line per class: no Python object per member or field until needed);
    its `__getattr__` and its wrappers (through `cls`) create a class the first time its name
    is asked for and store it in the module's globals, so later lookups are plain reads.
    Creation holds a lock: two threads never make two different classes for one name.

    Enum line:   name|alias,alias|MEMBER=value,MEMBER=value
    Struct line: name|union (0/1)|first field index|alias:parent,...|field;field;...
    Field:       name:kind:count:class name:item kind:count field"""

    def __init__(self, dict g, str modname, str enums, str structs):
        self.slots = []
        self.g = g
        self.modname = modname
        self.enum_text = enums
        self.struct_text = structs
        self.enums = None
        self.enum_docs = None
        import _thread
        self.lock = _thread.RLock()

    cdef int index(self) except -1:
        """Name -> spec line, built on the first lookup."""
        cdef dict enums = {}, structs = {}, aliases = {}
        cdef Py_ssize_t i
        for line in self.enum_text.splitlines():
            name, al, members = line.split("|", 2)
            enums[name] = members
            if al:
                for a in al.split(","):
                    if a != name:
                        aliases[a] = name
        for i, line in enumerate(self.struct_text.splitlines()):
            name, union, first, al, fields = line.split("|", 4)
            structs[name] = (i, union == "1", int(first), fields)
            if al:
                for item in al.split(","):
                    a, parent = item.split(":")
                    if a != name:
                        aliases[a] = (name, parent)
        self.structs = structs
        self.aliases = aliases
        self.enums = enums
        return 0

    cdef object cls(self, str name):
        """The class called `name`, created if this is its first use."""
        r = self.g.get(name)
        if r is None:
            r = self.make(name)
        return r

    cdef object keep_cls(self, Py_ssize_t i, str name):
        """`cls(name)`, kept in `slots` at index i, the class's in the module's struct table (see
        _base.pxd's `_cls_at`, which reads it from there)."""
        cdef list s = self.slots
        r = self.cls(name)
        if i >= len(s):
            s.extend([None] * (i + 1 - len(s)))
        s[i] = r
        return r

    cdef object make(self, str name):
        global _enum_module
        cdef Py_ssize_t i, fi, count, size
        cdef int kind
        with self.lock:
            r = self.g.get(name)
            if r is not None:
                return r
            if self.enums is None:
                self.index()
            a = self.aliases.get(name)
            e = self.enums.get(name)
            if a is not None and isinstance(a, str):
                # an enum typedef of another (CUstreamAttrID of CUlaunchAttributeID): a class of
                # its own with the same members, as NVIDIA's package makes it
                e = self.enums[a]
            elif a is not None:                  # a struct alias: a subclass with the same layout
                base, parent = a
                st = self.structs[base]
                parent_cls = self.cls(parent)
                r = _struct_class(name, parent_cls, {
                    "__slots__": (), "__module__": self.modname, "__qualname__": name,
                    "__doc__": f"C {'union' if st[1] else 'struct'} {name} (same layout as {base})."})
                self.g[name] = r
                return r
            if e is not None:
                if _enum_module is None:
                    _enum_module = _enum_maker()
                members = []
                for m in (<str>e).split(","):
                    n, v = m.split("=")
                    members.append((n, int(v)))
                if self.int_enums:
                    import enum
                    r = enum.IntEnum(name, members, module=self.modname, qualname=name)
                elif self.fast_enums:
                    r = _fast_enum(name, members, self.modname)
                else:
                    r = _enum_module(name, members, self.modname)
                if self.enum_docs is not None:
                    # an enum typedef of another has the other's docstrings, as in NVIDIA's package
                    setattr(r, "__doc__", _EnumDoc(self.enum_docs, a if isinstance(a, str) else name,
                                                   _member_docs and not self.int_enums))
                self.g[name] = r
                return r
            st = self.structs.get(name)
            if st is None:
                raise AttributeError(f"module {self.modname!r} has no attribute {name!r}")
            i, union, fi, fields = st
            if self.records is not None:
                r = self.records.make(self, name, i, union, fi, fields)
                self.g[name] = r
                return r
            r = _struct_class(name, _Struct, {
                "__slots__": (), "__module__": self.modname, "__qualname__": name,
                "__doc__": f"C {'union' if union else 'struct'} {name}."})
            r._c_size = self.ssize[i]
            self.g[name] = r                     # before the fields: a field may name this class
            names = []
            for f in (<str>fields).split(";") if fields else ():
                fname, k, c, clsname, ekind, countname = f.split(":")
                kind = int(k)
                count = int(c)
                size = self.fsize[fi] // count if kind != F_PTRARR and kind != F_INTPTR else self.psize[fi]
                setattr(r, fname, _Field(fname, self.off[fi], kind, size, count, clsname or None, self,
                                         int(ekind), countname))
                names.append(fname)
                fi += 1
            r._c_fields = tuple(names)
            if name.startswith("anon_"):
                r._c_anon_offset = _anon_offset(self, name)
            for mname, fn in (<dict>self.g.get("_STRUCT_METHODS", {})).get(name, {}).items():
                setattr(r, mname, fn)
            defaults = (<dict>self.g.get("_STRUCT_DEFAULTS", {})).get(name)
            if defaults:
                r._c_defaults = tuple(defaults.items())
            omits = (<dict>self.g.get("_STRUCT_REPR_OMITS", {})).get(name)
            if omits:
                r._c_repr_fields = tuple(n for n in names if n not in omits)
            return r

    def set_together(self, obj, tuple pairs):
        """Set list fields that share one count field ((name, list), ...) and the count, after
        checking that the lists have one length (the generated set_<a>_<b> methods)."""
        cdef _Field f
        cls = type(obj)
        n = None
        for fname, value in pairs:
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{fname} expects a list, not {type(value).__name__}")
            if n is not None and len(value) != n:
                raise ValueError(f"{', '.join(x for x, _ in pairs)} must be lists of one length")
            n = len(value)
        for fname, value in pairs:
            f = <_Field>getattr(cls, fname)
            f.set_items(<_Struct>obj, value)
        setattr(obj, f.countname, n)

    def attr(self, str name):
        """The module's `__getattr__`: a class not created yet, or AttributeError."""
        if name == "__all__":
            r = self.names()
            self.g["__all__"] = r
            return r
        if self.enums is None:
            self.index()
        if name in self.enums or name in self.structs or name in self.aliases:
            return self.cls(name)
        if self.records is not None and name in self.records.imports:
            r = self.records.imported(name)
            self.g[name] = r
            return r
        if self.records is not None and name in self.records.dtypes:
            with self.lock:
                r = self.g.get(name)
                if r is None:
                    r = self.cls(self.records.dtypes[name])._dtype()
                    self.g[name] = r
            return r
        raise AttributeError(f"module {self.modname!r} has no attribute {name!r}")

    def make_all(self):
        """Every class of the module made now, `__all__` set, and the module's `__getattr__`
        removed.  The generated modules of a few enums and no structs (nvJitLink, NVVM, nvFatbin,
        NVRTC before 13.5) call it at import: it costs them well under 1 ms, and on CPython 3.11 and later
        a module that has a `__getattr__` never gets the interpreter's specialised attribute
        lookup, so every `module.function` written in a caller's code would cost ~20 ns more."""
        for name in self.names():
            if name not in self.g:
                self.attr(name)
        self.g["__all__"] = self.names()
        self.g.pop("__getattr__", None)

    def names(self):
        """Every public name of the module, created or not."""
        if self.enums is None:
            self.index()
        s = {n for n in self.g if not n.startswith("_")}
        s.update(self.enums, self.structs, self.aliases)
        if self.records is not None:
            s.update(self.records.dtypes)
            s.update(self.records.imports)
        return sorted(s)


# module name -> {anonymous struct type -> (the struct holding it, its offset there)}
cdef dict _anon_where = {}


cdef Py_ssize_t _anon_offset(_Lazy L, str name) except -1:
    """The offset of the anonymous member whose type is `name` in the named struct that holds it
    (through the anonymous members in between), from the module's struct table."""
    cdef Py_ssize_t fi, total = 0
    cdef dict where = _anon_where.get(L.modname)
    if where is None:
        where = {}
        for parent, st in (<dict>L.structs).items():
            fi = st[2]
            for f in (<str>st[3]).split(";") if st[3] else ():
                parts = f.split(":", 4)
                if parts[1] == "7" and parts[3].startswith("anon_") and parts[3] not in where:
                    where[parts[3]] = (parent, L.off[fi])
                fi += 1
        _anon_where[L.modname] = where
    while name.startswith("anon_") and name in where:
        name, off = where[name]
        total += off
    return total


cdef _Lazy _new_lazy(dict g, str modname, str enums, str structs,
                     const size_t* off, const size_t* fsize, const size_t* psize, const size_t* ssize):
    cdef _Lazy L = _Lazy(g, modname, enums, structs)
    L.off = off
    L.fsize = fsize
    L.psize = psize
    L.ssize = ssize
    return L


# ----------------------------------------------------------------------------- attribute values

# An attribute's C type code (generated tables): 'b' bool, 'p' void*, 'c<n>' char[n], 's:Struct',
# 'h:Handle', 'e:Enum', '<i|u|f><size>[:IntType]', '*<scalar code>' an array of scalars filling the
# caller's data size.  Parsed once per code into (kind, buffer size, class name or None, scalar kind).
DEF A_BOOL = 0
DEF A_PTR = 1
DEF A_CHARS = 2
DEF A_STRUCT = 3
DEF A_HANDLE = 4
DEF A_ENUM = 5
DEF A_NUM = 6
DEF A_LIST = 7
cdef dict _ATTR_CODES = {}


cdef tuple _attr_parse(str code):
    r = _ATTR_CODES.get(code)
    if r is not None:
        return <tuple>r
    head, _, name = code.partition(":")
    name = name or None
    if code[0] == "*":
        r = (A_LIST, 8, None, code[1:])
    elif code == "b":
        r = (A_BOOL, 1, None, None)
    elif code == "p":
        r = (A_PTR, 8, None, None)
    elif code[0] == "c":
        r = (A_CHARS, int(code[1:]), None, None)
    elif head == "s":
        r = (A_STRUCT, 256, name, None)
    elif head == "h":
        r = (A_HANDLE, 8, name, None)
    elif head == "e":
        r = (A_ENUM, 8, name, None)
    else:
        r = (A_NUM, 8, name, head)
    _ATTR_CODES[code] = r
    return <tuple>r


cdef Py_ssize_t _attr_size(str code):
    return _attr_parse(code)[1]


cdef _Buf _attr_in(object value, str code, _Lazy classes):
    """Encode a Python value for an attribute whose C type is `code`."""
    cdef tuple t = _attr_parse(code)
    cdef int kind = t[0]
    cdef _Buf b
    cdef void* vp
    cdef _Struct s
    if kind == A_STRUCT:
        s = value
        cls = classes.cls(t[2])
        b = _Buf_new(cls._c_size)
        memcpy(b.ptr, s._ptr, cls._c_size)
        return b
    b = _Buf_new(max(<Py_ssize_t>t[1], 8))
    if kind == A_CHARS:
        data = _as_bytes(value, False)
        if len(data) >= b.size:
            raise ValueError(f"value too long ({len(data)} bytes, at most {b.size - 1})")
        memcpy(b.ptr, PyBytes_AS_STRING(data), len(data))
        b.size = len(data) + 1
    elif kind == A_HANDLE or kind == A_PTR:
        _vptr(value, &vp)
        (<void**>b.ptr)[0] = vp
    elif kind == A_BOOL:
        (<uint8_t*>b.ptr)[0] = 1 if value else 0
        b.size = 1
    elif kind == A_ENUM:
        _store(<char*>b.ptr, "e", value)          # C's conversion: TypeError for a str
        b.size = 4
    else:
        _store(<char*>b.ptr, t[3], value)
        b.size = int(t[3][1:])
    return b


cdef object _attr_out(void* p, str code, _Lazy classes, Py_ssize_t nbytes=0):
    """The Python value of an attribute of type `code` stored at p (an array: nbytes of items)."""
    cdef _Struct s
    cdef tuple t = _attr_parse(code)
    cdef int kind = t[0]
    cdef Py_ssize_t i, step
    name = t[2]
    if kind == A_LIST:
        step = int(t[3][1:])
        return [_load(<char*>p + i * step, t[3], None) for i in range(nbytes // step)]
    if kind == A_HANDLE:
        return _new_handle(classes.cls(name), (<void**>p)[0])
    if kind == A_ENUM:
        cls = classes.cls(name)
        return _enum(cls._value2member_map_, cls, (<int32_t*>p)[0])
    if kind == A_NUM:
        return _load(<char*>p, t[3], classes.cls(name) if name is not None else None)
    if kind == A_BOOL:
        return (<uint8_t*>p)[0] != 0
    if kind == A_PTR:
        return PyLong_FromVoidPtr((<void**>p)[0])
    if kind == A_CHARS:
        return <bytes>(<char*>p)
    cls = classes.cls(name)
    s = _new_struct(cls)
    memcpy(s._ptr, p, cls._c_size)
    return s


cdef _Buf _attr_bufs(object attrs, dict codes, object sizes, Py_ssize_t n, list out):
    """For a `void** data` output with one value per attribute: a void*[n] whose items point at
    zeroed storage for each attribute's value (at least sizes[i] bytes when sizes are given).
    `out` receives (buffer, code, size) per item, for _attr_values."""
    cdef _Buf b, item
    cdef Py_ssize_t i, size
    if attrs is None:
        attrs = []
    if not isinstance(attrs, (list, tuple)):
        raise TypeError("expected lists of attributes and data sizes")
    if sizes is not None and not isinstance(sizes, (list, tuple)):
        try:    # another sequence of sizes (a bytes object), as NVIDIA's package takes it
            sizes = list(sizes)
        except TypeError:
            raise TypeError("expected lists of attributes and data sizes") from None
    for lst, what in ((attrs, "attributes"), (sizes, "data sizes")):
        if lst is not None and n > len(lst):
            raise RuntimeError(f"the list of {what} is too small: {len(lst)} < {n}")
    b = _Buf_new(n * sizeof(void*))
    b.n = n
    for i in range(n):
        code = codes.get(int(attrs[i]), "u8")
        size = _attr_size(code)
        if sizes is not None:
            size = max(size, <Py_ssize_t>sizes[i])
        item = _Buf_new(size)
        (<void**>b.ptr)[i] = item.ptr
        out.append((item, code, <Py_ssize_t>sizes[i] if sizes is not None else 0))
    b.keep = out
    return b


cdef list _attr_values(list items, _Lazy classes):
    return [_attr_out((<_Buf>b).ptr, code, classes, size) for b, code, size in items]


# ----------------------------------------------------------------------------- kernel parameters

cdef dict _CT_INFO = None


cdef dict _ctype_info():
    """ctypes scalar type -> (kind, size); kind 1 signed, 2 unsigned, 3 float, 4 pointer, 5 char."""
    global _CT_INFO
    if _CT_INFO is None:
        ct = _get_ctypes()
        d = {}
        for t in (ct.c_int8, ct.c_int16, ct.c_int32, ct.c_int64, ct.c_byte, ct.c_short, ct.c_int,
                  ct.c_long, ct.c_longlong, ct.c_ssize_t):
            d[t] = (1, ct.sizeof(t))
        for t in (ct.c_uint8, ct.c_uint16, ct.c_uint32, ct.c_uint64, ct.c_ubyte, ct.c_ushort, ct.c_uint,
                  ct.c_ulong, ct.c_ulonglong, ct.c_size_t, ct.c_bool):
            d[t] = (2, ct.sizeof(t))
        d[ct.c_float] = (3, 4)
        d[ct.c_double] = (3, 8)
        d[ct.c_void_p] = (4, 8)
        d[ct.c_char] = (5, 1)
        _CT_INFO = d
    return _CT_INFO


cdef Py_ssize_t _none_size(object v) except -1:
    """Size of a kernel argument given with type None (passed by value from the object)."""
    if isinstance(v, _Struct):
        return type(v)._c_size
    if isinstance(v, _IntValue):
        return (<_IntValue>v)._size
    if isinstance(v, _Handle):
        return sizeof(void*)
    if isinstance(v, int):
        if type(v) is int or type(v) is bool:
            raise TypeError("a plain int needs a ctypes type, not None")
        return 4   # an enum member
    ct = _get_ctypes()
    if isinstance(v, (ct.Structure, ct.Union, ct.Array, ct._SimpleCData)):
        return ct.sizeof(v)
    if hasattr(v, "getPtr"):
        return sizeof(void*)
    raise TypeError(f"cannot pass {type(v).__name__} with type None")


cdef int _store_scalar(char* slot, int kind, Py_ssize_t size, object v) except -1:
    """A value of a ctypes scalar type (kind and size from _ctype_info) into its slot: a Python
    value, or an instance of a ctypes scalar type (its value is taken)."""
    cdef void* p
    if kind != 4 and type(v) is not int and type(v) is not float and type(v) is not bool \
            and isinstance(v, _get_ctypes()._SimpleCData):
        return _store_scalar(slot, kind, size, v.value)
    if kind == 1:
        if isinstance(v, float):
            raise TypeError(f"expected an int, not float")
        if size == 4: (<int32_t*>slot)[0] = v
        elif size == 8: (<int64_t*>slot)[0] = v
        elif size == 1: (<int8_t*>slot)[0] = v
        else: (<int16_t*>slot)[0] = v
    elif kind == 4:
        if v is None:
            p = NULL
        elif isinstance(v, int):
            p = PyLong_AsVoidPtr(v)
        elif isinstance(v, _Handle):        # a binding object: the address of its value (getPtr),
            p = <void*>(<_Handle>v)._p      # as the reference package passes it
        elif isinstance(v, _IntValue):
            p = (<_IntValue>v)._p
        elif hasattr(v, "getPtr"):
            p = PyLong_AsVoidPtr(int(v.getPtr()))
        else:
            _hptr(v, &p)
        (<void**>slot)[0] = p
    elif kind == 3:
        if size == 4:
            (<float*>slot)[0] = v
        else:
            (<double*>slot)[0] = v
    elif kind == 2:
        if isinstance(v, float):
            raise TypeError(f"expected an int, not float")
        if size == 8: (<uint64_t*>slot)[0] = v
        elif size == 4: (<uint32_t*>slot)[0] = v
        elif size == 1: (<uint8_t*>slot)[0] = v
        else: (<uint16_t*>slot)[0] = v
    else:
        slot[0] = (_as_bytes(v, False) if not isinstance(v, int) else bytes([v]))[0]
    return 0


cdef int _store_none(char* store, object v) except -1:
    """A kernel argument given with type None: its bytes, from the object (size: _none_size)."""
    cdef Py_ssize_t size = _none_size(v)
    if isinstance(v, _Struct):
        memcpy(store, (<_Struct>v)._ptr, size)
    elif isinstance(v, _IntValue):
        memcpy(store, (<_IntValue>v)._p, size)
    elif isinstance(v, _Handle):
        (<void**>store)[0] = (<_Handle>v)._p[0]
    elif isinstance(v, int):
        (<int32_t*>store)[0] = v
    else:
        ct = _get_ctypes()
        if isinstance(v, (ct.Structure, ct.Union, ct.Array, ct._SimpleCData)):
            memcpy(store, PyLong_AsVoidPtr(ct.addressof(v)), size)
        else:
            memcpy(store, PyLong_AsVoidPtr(int(v.getPtr())), size)
    return 0


cdef int _store_ctypes(char* store, object t, object v) except -1:
    """A kernel argument of a ctypes type outside the scalar table (structure, array, ...)."""
    ct = _get_ctypes()
    cv = t(v) if not isinstance(v, t) else v
    memcpy(store, PyLong_AsVoidPtr(ct.addressof(cv)), ct.sizeof(t))
    return 0


cdef tuple _kp_last = (None, None)    # (the last types tuple, its plan): replaced as one object


cdef _Buf _kplan(object types):
    """Per-argument packing plan for a types sequence: int32 kind and int32 size per argument,
    and in `n` the bytes of all slots (each size rounded up to 8; a None-typed value counted as
    8).  Kinds: 0 None (from the value), 1 signed, 2 unsigned, 3 float, 4 pointer, 5 char,
    6 other ctypes type.  The last tuple's plan is kept (a launch loop passes one tuple)."""
    global _kp_last
    cdef Py_ssize_t i, n = len(types), total = 0
    cdef _Buf plan
    cdef int32_t* q
    cdef tuple last = _kp_last
    if types is last[0]:
        return <_Buf>last[1]
    info = _ctype_info()
    plan = _Buf_new(n * 8)
    q = <int32_t*>plan.ptr
    for i in range(n):
        t = types[i]
        inf = info.get(t) if t is not None else (0, 8)
        if inf is not None:
            q[2 * i] = (<tuple>inf)[0]
            q[2 * i + 1] = (<tuple>inf)[1]
        else:
            ct = _get_ctypes()
            if not (isinstance(t, type) and issubclass(t, (ct._SimpleCData, ct.Structure, ct.Union, ct.Array))):
                raise TypeError(f"kernelParams item {i}: unsupported type {t!r}")
            q[2 * i] = 6
            q[2 * i + 1] = ct.sizeof(t)
        total += (q[2 * i + 1] + 7) & ~7
    plan.n = total
    if type(types) is tuple:
        _kp_last = (types, plan)
    return plan


cdef _Buf _kparams_packed(object values, object types, bint sized):
    """(values, types) packed into one block: the void*[] followed by 8-byte aligned slots.
    Unless `sized`, a None-typed value takes one 8-byte slot, and one wider than that (a
    struct) returns None: the caller packs again with every None-typed value sized first."""
    cdef _Buf b, plan = _kplan(types)
    cdef int32_t* q = <int32_t*>plan.ptr
    cdef Py_ssize_t i = 0, n = len(values), total = plan.n, size
    cdef int kind
    cdef char* store
    try:
        if sized:
            for i in range(n):
                if q[2 * i] == 0:
                    total += ((_none_size(values[i]) + 7) & ~7) - 8
        b = _Buf_new(n * sizeof(void*) + total)
        b.n = n
        store = <char*>b.ptr + n * sizeof(void*)
        for i in range(n):
            v = values[i]
            (<void**>b.ptr)[i] = store
            kind = q[2 * i]
            size = q[2 * i + 1]
            if kind == 0:
                if isinstance(v, _IntValue):      # the common None-typed values, inline
                    memcpy(store, (<_IntValue>v)._p, (<_IntValue>v)._size)
                elif isinstance(v, _Handle):
                    (<void**>store)[0] = (<_Handle>v)._p[0]
                else:
                    size = _none_size(v)
                    if size > 8 and not sized:
                        return None
                    _store_none(store, v)
            elif kind == 4 and type(v) is int:    # an address as int, inline
                (<void**>store)[0] = PyLong_AsVoidPtr(v)
            elif kind == 6:
                _store_ctypes(store, types[i], v)
            else:
                _store_scalar(store, kind, size, v)
            store += (size + 7) & ~7
    except (OverflowError, TypeError) as e:
        raise type(e)(f"kernelParams item {i}: {e}") from None
    b.keep = values
    return b


cdef _Buf _kparams(object o, void** out):
    """kernelParams: None/0, an int address of a void*[], a buffer of pointers, or
    (values, types), packed by _kparams_packed.  Sets out[0] to the void** the library gets;
    returns the block of packed values, to be kept for the call, or None where out[0] is the
    caller's own memory (the caller's reference to o keeps it)."""
    cdef _Buf b
    out[0] = NULL
    if o is None or (type(o) is int and o == 0):
        return None
    if isinstance(o, float):     # (not an address here, as NVIDIA's package has it)
        raise TypeError("expected kernel parameters, an address or a buffer, not float")
    if isinstance(o, tuple) and len(o) == 2 and isinstance(o[0], (tuple, list)) and isinstance(o[1], (tuple, list)):
        values, types = o
        if len(types) != len(values):
            raise TypeError(f"kernelParams: {len(values)} values but {len(types)} types")
        b = _kparams_packed(values, types, False)
        if b is None:
            b = _kparams_packed(values, types, True)
        out[0] = _bufptr(b)
        return b
    _vptr(o, out)
    return None


def _inspect_kernel_params(obj):
    """What cuLaunchKernel would receive for `kernelParams`: for (values, types), the bytes each
    void* points to; for an address or a buffer of pointers, the address (the count is unknown)."""
    cdef void* p
    cdef _Buf b = _kparams(obj, &p)
    cdef Py_ssize_t i
    if b is None:
        if obj is None or (type(obj) is int and obj == 0):
            return []
        if isinstance(obj, int):
            return <size_t>p     # an address: the argument count is not known
        data = memoryview(obj).cast("B")
        return [int.from_bytes(data[i:i + 8], "little") for i in range(0, len(data) - 7, 8)]
    out = []
    types = obj[1]
    values = obj[0]
    for i in range(b.n):
        p = (<void**>b.ptr)[i]
        out.append(PyBytes_FromStringAndSize(<char*>p, _param_size(values[i], types[i])))
    return out


def _param_size(v, t):
    if t is None:
        return _none_size(v)
    inf = _ctype_info().get(t)
    if inf is None:
        return _get_ctypes().sizeof(t)
    return inf[1]


# ----------------------------------------------------------------------------- checked functions

cdef extern from *:
    """
    /* A function of cuda.bindings.checked: calls the tuple-style function with the same
       arguments (one vectorcall, no argument tuple), and returns the outputs: None, the one
       output, or the rest of the tuple; a status other than `ok` (compared by identity, then by
       value) calls on_error(self, status, args, kwargs), which raises. */
    #ifndef Py_TPFLAGS_HAVE_VECTORCALL
    #define Py_TPFLAGS_HAVE_VECTORCALL _Py_TPFLAGS_HAVE_VECTORCALL
    #endif
    typedef struct {
        PyObject_HEAD
        vectorcallfunc vectorcall;
        vectorcallfunc func_vectorcall;   /* func's own entry, called directly where it has one */
        PyObject *func;
        PyObject *ok;
        PyObject *on_error;
        PyObject *dict;
    } __cb_Checked;

    static PyObject *__cb_checked_fail(__cb_Checked *self, PyObject *st, PyObject *const *args,
                                       Py_ssize_t n, PyObject *kwnames) {
        PyObject *a = NULL, *kw = NULL, *r = NULL;
        Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        a = PyTuple_New(n);
        if (!a) return NULL;
        for (i = 0; i < n; i++) { Py_INCREF(args[i]); PyTuple_SET_ITEM(a, i, args[i]); }
        kw = PyDict_New();
        if (!kw) goto done;
        for (i = 0; i < nkw; i++)
            if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0) goto done;
        r = PyObject_CallFunctionObjArgs(self->on_error, (PyObject *)self, st, a, kw, NULL);
        if (r) {   /* on_error returned instead of raising */
            Py_DECREF(r);
            r = NULL;
            PyErr_SetString(PyExc_SystemError, "checked function: the error handler did not raise");
        }
    done:
        Py_XDECREF(a);
        Py_XDECREF(kw);
        return r;
    }

    static PyObject *__cb_checked_call(PyObject *o, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
        __cb_Checked *self = (__cb_Checked *)o;
        PyObject *r, *st, *out;
        Py_ssize_t n;
        if (self->func_vectorcall)
            r = self->func_vectorcall(self->func, args, nargsf, kwnames);
        else
            r = PyObject_Vectorcall(self->func, args, nargsf, kwnames);
        if (r == NULL) return NULL;
        if (!PyTuple_CheckExact(r) || (n = PyTuple_GET_SIZE(r)) == 0) return r;
        st = PyTuple_GET_ITEM(r, 0);
        if (st != self->ok) {
            int bad = PyObject_RichCompareBool(st, self->ok, Py_NE);
            if (bad != 0) {
                if (bad > 0) {
                    Py_INCREF(st);
                    __cb_checked_fail(self, st, args, PyVectorcall_NARGS(nargsf), kwnames);
                    Py_DECREF(st);
                }
                Py_DECREF(r);
                return NULL;
            }
        }
        if (n == 1) {
            out = Py_None;
            Py_INCREF(out);
        } else if (n == 2) {
            out = PyTuple_GET_ITEM(r, 1);
            Py_INCREF(out);
        } else {
            out = PyTuple_GetSlice(r, 1, n);
        }
        Py_DECREF(r);
        return out;
    }

    static int __cb_checked_traverse(PyObject *o, visitproc visit, void *arg) {
        __cb_Checked *self = (__cb_Checked *)o;
        Py_VISIT(self->func);
        Py_VISIT(self->ok);
        Py_VISIT(self->on_error);
        Py_VISIT(self->dict);
        return 0;
    }

    static int __cb_checked_clear(PyObject *o) {
        __cb_Checked *self = (__cb_Checked *)o;
        Py_CLEAR(self->func);
        Py_CLEAR(self->ok);
        Py_CLEAR(self->on_error);
        Py_CLEAR(self->dict);
        return 0;
    }

    static void __cb_checked_dealloc(PyObject *o) {
        PyObject_GC_UnTrack(o);
        __cb_checked_clear(o);
        Py_TYPE(o)->tp_free(o);
    }

    /* a descriptor that does not bind, as a builtin function: inspect (and so help()) then
       treats these objects as routines */
    static PyObject *__cb_checked_get(PyObject *o, PyObject *obj, PyObject *type) {
        Py_INCREF(o);
        return o;
    }

    static PyObject *__cb_checked_repr(PyObject *o) {
        PyObject *m = PyObject_GetAttrString(o, "__module__"), *n, *r;
        if (!m) return NULL;
        n = PyObject_GetAttrString(o, "__qualname__");
        if (!n) { Py_DECREF(m); return NULL; }
        r = PyUnicode_FromFormat("<checked function %S.%S>", m, n);
        Py_DECREF(m);
        Py_DECREF(n);
        return r;
    }

    /* pickled by reference, as functions are: module and qualified name */
    static PyObject *__cb_checked_reduce(PyObject *o, PyObject *unused) {
        return PyObject_GetAttrString(o, "__qualname__");
    }

    static PyObject *__cb_checked_wrapped(PyObject *o, void *unused) {
        PyObject *f = ((__cb_Checked *)o)->func;
        Py_INCREF(f);
        return f;
    }

    static PyMethodDef __cb_checked_methods[] = {
        {"__reduce__", (PyCFunction)__cb_checked_reduce, METH_NOARGS, NULL},
        {NULL, NULL, 0, NULL}
    };
    static PyGetSetDef __cb_checked_getset[] = {
        {"__wrapped__", __cb_checked_wrapped, NULL, "the tuple-style function this one calls", NULL},
        {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
        {NULL, NULL, NULL, NULL, NULL}
    };

    static PyTypeObject __cb_CheckedType = {
        PyVarObject_HEAD_INIT(NULL, 0)
        "cuda.bindings.checked.function",      /* tp_name */
        sizeof(__cb_Checked),                  /* tp_basicsize */
    };

    static PyObject *__cb_checked_new(PyObject *func, PyObject *ok, PyObject *on_error) {
        __cb_Checked *self;
        if (!(__cb_CheckedType.tp_flags & Py_TPFLAGS_READY)) {
            __cb_CheckedType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
            __cb_CheckedType.tp_doc = "A function of cuda.bindings.checked: the outputs, or an exception.";
            __cb_CheckedType.tp_vectorcall_offset = offsetof(__cb_Checked, vectorcall);
            __cb_CheckedType.tp_dictoffset = offsetof(__cb_Checked, dict);
            __cb_CheckedType.tp_call = PyVectorcall_Call;
            __cb_CheckedType.tp_traverse = __cb_checked_traverse;
            __cb_CheckedType.tp_clear = __cb_checked_clear;
            __cb_CheckedType.tp_dealloc = __cb_checked_dealloc;
            __cb_CheckedType.tp_descr_get = __cb_checked_get;
            __cb_CheckedType.tp_repr = __cb_checked_repr;
            __cb_CheckedType.tp_methods = __cb_checked_methods;
            __cb_CheckedType.tp_getset = __cb_checked_getset;
            if (PyType_Ready(&__cb_CheckedType) < 0) return NULL;
        }
        self = PyObject_GC_New(__cb_Checked, &__cb_CheckedType);
        if (!self) return NULL;
        self->vectorcall = __cb_checked_call;
        self->func_vectorcall = PyVectorcall_Function(func);
        Py_INCREF(func); self->func = func;
        Py_INCREF(ok); self->ok = ok;
        Py_INCREF(on_error); self->on_error = on_error;
        self->dict = NULL;
        PyObject_GC_Track((PyObject *)self);
        return (PyObject *)self;
    }
    """
    object __cb_checked_new(object func, object ok, object on_error)


def _checked(func, ok, on_error):
    """A function of cuda.bindings.checked over the tuple-style `func` (see the C above): its
    result's status is `ok` or `on_error(fn, status, args, kwargs)` raises."""
    if not callable(func) or not callable(on_error):
        raise TypeError("_checked(func, ok, on_error): func and on_error must be callable")
    return __cb_checked_new(func, ok, on_error)
