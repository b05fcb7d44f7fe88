# cython: language_level=3
# Struct classes in the style of NVIDIA's cufile, nvml, nvfatbin and cudla modules (see _records.pyx).
from libc.stdint cimport uint64_t
from cuda.bindings._base cimport _Struct, _Lazy

cdef class _Record(_Struct):
    cdef Py_ssize_t _n      # how many structs the memory holds
    cdef bint _ro           # read-only view
    # the memory of a record of up to 64 bytes (most that the functions return): no allocation
    cdef uint64_t _small[8]
    cdef Py_ssize_t nbytes(self)
    cdef object _view(self)
    cdef object _recs(self)
    cdef object _field_array(self, Py_ssize_t off, str fmt, Py_ssize_t count)

cdef _Record _new_record(type cls, Py_ssize_t n)
cdef _Record _new_record_at(_Lazy L, Py_ssize_t i, str name)
cdef _Record _record_view(type cls, void* p, Py_ssize_t n, object owner, bint readonly)
cdef void* _record_ptr(object o, type cls, str name) except? NULL
cdef str _text(const char* p, Py_ssize_t n)
cdef str _text0(const char* p)
cdef object _records_of(type cls, void* p, Py_ssize_t n)
cdef object _numbers_of(void* p, Py_ssize_t n, str fmt)
cdef object _numbers_new(Py_ssize_t n, str fmt)
cdef void* _numbers_ptr(object a) except? NULL
cdef object _memview(object a)
cdef object _handles_view(void** p, Py_ssize_t n)
cdef object _view_array(object a)
cdef _Record _records_in(object value, type cls, str field)
