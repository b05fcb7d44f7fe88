# cython: language_level=3
# The hand-written core shared by every generated module: handle, integer and struct base
# classes, and the conversions from Python objects to C values.  Generated modules cimport it.
from libc.stdint cimport int64_t, uint64_t
from cpython.object cimport PyObject
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsVoidPtr
from cpython.bytes cimport PyBytes_AS_STRING
from cpython.unicode cimport PyUnicode_AsUTF8AndSize

# A handle or integer object owns its value (`_v`) or is a view of the value at an address
# (`_ptr=address`, or a struct field read back: then `_owner` is the struct, kept alive); `_p`
# points at whichever it is, and every read and write goes through it.
cdef class _Handle:
    cdef void* _v
    cdef void** _p
    cdef object _owner

# function pointer classes (generated as subclasses of these): compared by identity; _FuncType's
# values (a C function type given by its address) shown in decimal
cdef class _FuncPtr(_Handle):
    pass

cdef class _FuncType(_FuncPtr):
    pass

cdef class _IntValue:
    cdef unsigned long long _v
    cdef void* _p
    cdef object _owner
    cdef unsigned char _size
    cdef unsigned char _signed

cdef inline unsigned long long _iv(_IntValue o) noexcept:
    """The C value of an integer object (a 4-byte signed one sign-extended)."""
    if o._size == 8:
        return (<unsigned long long*>o._p)[0]
    if o._signed:
        return <unsigned long long>(<long long>(<int*>o._p)[0])
    return (<unsigned int*>o._p)[0]

cdef class _Struct:
    cdef char* _ptr
    cdef object _owner
    cdef dict _keep
    cdef bint _own

cdef class _Lazy:
    cdef dict g
    cdef str modname
    cdef str enum_text
    cdef str struct_text
    cdef dict enums
    cdef dict structs
    cdef dict aliases
    cdef object lock
    cdef const size_t* off
    cdef const size_t* fsize
    cdef const size_t* psize
    cdef const size_t* ssize
    # the struct classes in NVIDIA's style (cuda.bindings._records._Space), for the modules whose
    # structs are made that way (cufile, nvml, nvfatbin, cudla); None elsewhere
    cdef public object records
    # enum.IntEnum classes whatever the build's FAST_ENUM says (a module NVIDIA's package of the
    # release makes so: 13.5's cudla)
    cdef public bint int_enums
    # FastEnum classes whatever the build's FAST_ENUM says (cuda.bindings._v2, whose enums NVIDIA's
    # package makes so in every release)
    cdef public bint fast_enums
    # the module holding its enums' docstrings (cuda.bindings._enumdocs_<lib>), or None
    cdef public str enum_docs
    # the struct classes made so far, by their index in the module's struct table (_cls_at)
    cdef list slots
    cdef object cls(self, str name)
    cdef object keep_cls(self, Py_ssize_t i, str name)
    cdef object make(self, str name)
    cdef int index(self) except -1

cdef _Lazy _new_lazy(dict g, str modname, str enums, str structs,
                     const size_t* off, const size_t* fsize, const size_t* psize, const size_t* ssize)

cdef enum:
    _BUF_SMALL = 256

cdef class _Buf:
    cdef void* ptr
    cdef Py_ssize_t size
    cdef Py_ssize_t n
    cdef object keep
    cdef char small[_BUF_SMALL]

cdef object _struct_class(str name, type base, dict ns)
cdef int _fast_classes(dict g) except -1
cdef int _hptr_slow(object o, void** out, bint tuple_style) except -1

cdef extern from *:
    """
    /* Whether the module is one of the tuple-style ones (driver, runtime, NVRTC), whose
       conversions follow NVIDIA's tuple-style modules where those differ from its snake_case
       and struct-style ones (a float handle truncated to an int; any sequence of text for a
       list of strings).  A static of each module that cimports _base, set by
       _module_common.pxi when the module is imported (and by _base itself: its handle and
       struct classes are the tuple-style modules'). */
    static int __cb_tuple_style = 0;
    """
    int __cb_tuple_style

cdef extern from *:
    """
    /* A map from a handle (a library object's address) to a size, for the size a size query
       answered, which a getter checks its buffer against (nvFatbin's nvFatbinSize and
       nvFatbinGet): open addressing with linear probing, and removal by shifting back, in plain
       C, so recording and reading an answer costs a few ns instead of a dict's boxing of two
       ints and hashing.  NULL is never a key. */
    typedef struct { void **keys; size_t *vals; size_t cap, n; } __cb_sizemap;
    static inline size_t __cb_sizemap_home(const __cb_sizemap *m, void *k) {
        return (size_t)((((uintptr_t)k >> 4) * (uintptr_t)0x9E3779B97F4A7C15ULL) >> 17) & (m->cap - 1);
    }
    static inline size_t __cb_sizemap_find(const __cb_sizemap *m, void *k) {
        size_t i = __cb_sizemap_home(m, k);
        while (m->keys[i] != NULL && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
        return i;
    }
    static inline int __cb_sizemap_put(__cb_sizemap *m, void *k, size_t v) {
        size_t i;
        if (k == NULL) return 0;
        if (2 * (m->n + 1) > m->cap) {
            __cb_sizemap old = *m, grown;
            grown.cap = old.cap ? 2 * old.cap : 16;
            grown.n = old.n;
            grown.keys = (void **)calloc(grown.cap, sizeof(void *));
            grown.vals = (size_t *)calloc(grown.cap, sizeof(size_t));
            if (grown.keys == NULL || grown.vals == NULL) {
                free(grown.keys); free(grown.vals); PyErr_NoMemory(); return -1;
            }
            for (i = 0; i < old.cap; i++)
                if (old.keys[i] != NULL) {
                    size_t j = __cb_sizemap_find(&grown, old.keys[i]);
                    grown.keys[j] = old.keys[i]; grown.vals[j] = old.vals[i];
                }
            free(old.keys); free(old.vals);
            *m = grown;
        }
        i = __cb_sizemap_find(m, k);
        if (m->keys[i] == NULL) { m->keys[i] = k; m->n++; }
        m->vals[i] = v;
        return 0;
    }
    static inline int __cb_sizemap_get(const __cb_sizemap *m, void *k, size_t *v) {
        size_t i;
        if (m->n == 0 || k == NULL) return 0;
        i = __cb_sizemap_find(m, k);
        if (m->keys[i] == NULL) return 0;
        *v = m->vals[i];
        return 1;
    }
    static inline void __cb_sizemap_del(__cb_sizemap *m, void *k) {
        size_t i, j, h, mask;
        if (m->n == 0 || k == NULL) return;
        i = __cb_sizemap_find(m, k);
        if (m->keys[i] == NULL) return;
        mask = m->cap - 1;
        for (j = (i + 1) & mask; m->keys[j] != NULL; j = (j + 1) & mask) {
            h = __cb_sizemap_home(m, m->keys[j]);
            /* the entry at j may move to the hole at i unless its home lies in (i, j] */
            if (((j - h) & mask) >= ((j - i) & mask)) {
                m->keys[i] = m->keys[j]; m->vals[i] = m->vals[j]; i = j;
            }
        }
        m->keys[i] = NULL;
        m->n--;
    }
    """
    ctypedef struct _SizeMap "__cb_sizemap":
        size_t n
    int _sizemap_put "__cb_sizemap_put"(_SizeMap* m, void* k, size_t v) except -1
    bint _sizemap_get "__cb_sizemap_get"(const _SizeMap* m, void* k, size_t* v) noexcept
    void _sizemap_del "__cb_sizemap_del"(_SizeMap* m, void* k) noexcept

cdef inline const char* _utf8(object o) except NULL:
    """The C string of a str or bytes argument (as `_cstr_of` gives it): a str's own UTF-8 form,
    which CPython keeps with the object (no copy for ASCII text), or the bytes' buffer; the
    caller keeps `o` alive for as long as the pointer is used."""
    cdef Py_ssize_t n   # asked for: with NULL, Python 3.13 refuses a str holding a NUL
    if isinstance(o, str):
        return PyUnicode_AsUTF8AndSize(o, &n)
    return PyBytes_AS_STRING(o)

cdef inline object _cstr_of(object o):
    """A text argument of the snake_case modules as `_utf8` takes it: a str as it is, bytes,
    bytearray or memoryview as bytes (_as_bytes), anything else a TypeError."""
    if isinstance(o, str):
        return o
    return _as_bytes(o, False)

cdef inline int _hptr(object o, void** out) except -1:
    """A handle argument: handle object, int, None, or anything with __index__/__int__ (a float
    in the tuple-style modules, truncated as NVIDIA's tuple-style package truncates it)."""
    cdef int overflow
    cdef long long v
    if type(o) is int:      # first: a pointer compare, where isinstance walks int's bases
        v = PyLong_AsLongLongAndOverflow(o, &overflow)
        if overflow == 0 and v >= 0:
            out[0] = <void*><size_t>v
            return 0
    elif isinstance(o, _Handle):
        out[0] = (<_Handle>o)._p[0]
        return 0
    return _hptr_slow(o, out, __cb_tuple_style)

cdef inline void** _href(object o, void** local) except? NULL:
    """A pointer-to-handle argument the call reads and may update: a handle object's own storage
    (what the call writes is what the object then holds); not a float, which NVIDIA's package
    refuses here in every module.  Anything else is, in the tuple-style modules, the address of
    the handle variable, as NVIDIA's tuple-style package takes it (None and 0: NULL); in the
    snake_case and struct-style modules, the handle's value, passed by reference from `local`."""
    if isinstance(o, _Handle):
        return (<_Handle>o)._p
    if isinstance(o, float):
        raise TypeError("expected a handle, an int or None, not float")
    _hptr(o, local)
    if __cb_tuple_style:
        return <void**>local[0]
    return local

cdef int _vptr(object o, void** out) except -1
cdef int _vsized(object o, void** out, size_t size, bint written) except -1
cdef void* _sval(object o, Py_ssize_t size) except NULL
cdef _Buf _structs(object o, Py_ssize_t size)
cdef object _new_handle(type cls, void* v)
cdef object _new_int(type cls, unsigned long long v, int size, bint signed)
cdef _Struct _new_struct(type cls)
cdef _Struct _struct_view(type cls, void* p, object owner)
cdef object _enum(object table, object cls, long long v)
cdef bytes _as_bytes(object o, bint allow_none)
cdef _Buf _Buf_new(Py_ssize_t size)
cdef _Buf _array(object o, str kind, Py_ssize_t elsize)
cdef list _from_array(void* p, Py_ssize_t n, str kind, object cls, Py_ssize_t elsize)
cdef _Buf _strlist_of(object o, bint any_sequence)

cdef inline _Buf _strlist(object o):
    """A list of strings (char**): a list or tuple of bytes or str, None or an empty list (NULL);
    in the tuple-style modules any other sequence of them too, as NVIDIA's NVRTC iterates what it
    is given."""
    return _strlist_of(o, __cb_tuple_style)
cdef int _check_count_of(object items, object count, str name, str count_name, bint tuple_style) except -1

cdef inline int _check_count(object items, object count, str name, str count_name) except -1:
    """A count argument must not exceed the length of the list it counts (see _check_count_of)."""
    return _check_count_of(items, count, name, count_name, __cb_tuple_style)
cdef int _bptr(object o, void** out, size_t size) except -1
cdef int _live_slow(object h, _SizeMap* consumed, str name, str what) except -1

cdef inline int _live(object h, _SizeMap* consumed, str name, str what) except -1:
    """A handle argument of the snake_case modules: not None, not in the first page of memory,
    not one a destroy call consumed (_live_slow, which also says why).  An int handle takes
    this short way unless it fails one of them.  `consumed` is the module's C map of the
    handles its destroy calls consumed, used as a set (`_consume`, `_fresh`)."""
    cdef int overflow
    cdef long long v
    cdef size_t unused
    if type(h) is int:
        v = PyLong_AsLongLongAndOverflow(h, &overflow)
        if overflow != 0 or v <= 0:
            return 0
        if v >= 4096 and not _sizemap_get(consumed, <void*><size_t>v, &unused):
            return 0
    return _live_slow(h, consumed, name, what)

# The struct-style modules' fast path (codegen.emit_py._conversions): a call whose arguments are
# all ints within their C types' ranges converts them with these, which cannot raise, and skips
# the try block that names a failed argument (its exception-state save and restore: 3-4 ns);
# any other argument takes the try block's conversions, which say why it is refused.
cdef inline bint _int_ll(object o, long long* out) noexcept:
    """An exact int that fits a long long, its value in out."""
    cdef int overflow
    if type(o) is not int:  # (a pointer compare, where isinstance walks int's bases)
        return 0
    out[0] = PyLong_AsLongLongAndOverflow(o, &overflow)
    return overflow == 0

cdef inline bint _int_fits(object o, long long* out, long long lo, long long hi) noexcept:
    """An exact int in [lo, hi], its value in out."""
    return _int_ll(o, out) and lo <= out[0] <= hi

cdef inline bint _hptr_int(object o, void** out) noexcept:
    """A handle given as an int that _hptr takes as it is (not negative, below 2**63)."""
    cdef long long v
    if not _int_fits(o, &v, 0, 0x7FFFFFFFFFFFFFFF):
        return 0
    out[0] = <void*><size_t>v
    return 1

cdef inline bint _live_int(object o, void** out, _SizeMap* consumed) noexcept:
    """_hptr_int for a handle _live checks: 0, or an address above the first page that no
    destroy call consumed."""
    cdef size_t unused
    if not _hptr_int(o, out):
        return 0
    return out[0] == NULL or (<size_t>out[0] >= 4096 and not _sizemap_get(consumed, out[0], &unused))

cdef inline int _fresh(object h, _SizeMap* consumed) except -1:
    """A handle a create call just returned (an int) is no longer a consumed one: the library may
    give a new object the address of one it freed."""
    if consumed.n:
        _sizemap_del(consumed, PyLong_AsVoidPtr(h))
    return 0
cdef int _library_handle(void* p, str name, str what) except -1
cdef int _library_ref(void** r, str name, str what) except -1
cdef int _consume(object h, _SizeMap* consumed) except -1
cdef int _keep_until_release(str kind, void* handle, object kept) except -1
cdef int _release_kept(str kind, void* handle) except -1
cdef object _arg_error(str function, tuple names, int i)
cdef object _twin_error(str message)
cdef object _as_twin(object err, str detail)
cdef _Buf _voidpp(object o)
cdef _Buf _cstrs(object o, Py_ssize_t count, bint null_items)
cdef void* _cstr_address(object k) except? NULL
cdef Py_ssize_t _bytes_into(unsigned char* dst, Py_ssize_t size, object src, bint whole) except -1
cdef _Buf _jitvalues(object o)
cdef _Buf _kparams(object o, void** out)
cdef int _wbuf(object o, void** out, Py_ssize_t* n, bint address) except -1
cdef _Buf _attr_in(object value, str code, _Lazy classes)
cdef object _attr_out(void* p, str code, _Lazy classes, Py_ssize_t nbytes=*)
cdef _Buf _attr_bufs(object attrs, dict codes, object sizes, Py_ssize_t n, list out)
cdef list _attr_values(list items, _Lazy classes)
cdef Py_ssize_t _attr_size(str code)

cdef inline void* _bufptr(_Buf b) noexcept:
    """The C pointer a converted argument stands for (NULL for None)."""
    if b is None:
        return NULL
    if b.n < 0:
        return <void*>b.size
    return b.ptr


cdef inline object _cls_at(_Lazy L, Py_ssize_t i, str name):
    """The struct class `name`, the i-th of L's module's struct table: read from a list by its
    index (no look-up by name), made and kept there on first use (`L.keep_cls`)."""
    cdef list made = L.slots
    if i < len(made):
        r = made[i]
        if r is not None:
            return r
    return L.keep_cls(i, name)
