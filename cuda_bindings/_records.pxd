# cython: language_level=3
# Struct classes in the style of NVIDIA's cufile, nvml, nvfatbin and cudla modules (see _records.pyx).
from cuda.bindings._base cimport _Struct

cdef class _Record(_Struct):
    cdef Py_ssize_t _n      # how many structs the memory holds
    cdef bint _ro           # read-only view
    cdef Py_ssize_t nbytes(self)
    cdef object _view(self)
    cdef object _field_array(self, Py_ssize_t off, str fmt, Py_ssize_t count)

cdef _Record _new_record(type cls, Py_ssize_t n)
cdef _Record _record_view(type cls, void* p, Py_ssize_t n, object owner, bint readonly)
cdef void* _record_ptr(object o, type cls, str name) except? NULL
