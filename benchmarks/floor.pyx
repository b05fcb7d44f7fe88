# cython: language_level=3, boundscheck=False, wraparound=False
"""The floor of any binding: a Python -> Cython -> C call that returns (status, value).

tuple_nogil:  the C call is made with the GIL released (as a binding of a driver call does);
tuple_gil:    the same, keeping the GIL;
noop:         a Cython function that does nothing and returns None;
value_nogil:  the snake_case shape (NVML, nvFatbin): a handle (int) in, the C call with the GIL
              released, its one output returned as an int (a failure would raise);
struct_nogil: the same, the output a struct returned in a new object: a static extension type
              holding 64 bytes and one object field (so tracked by the GC, as both packages'
              struct classes are);
handle_gil:   no argument, the C call with the GIL kept, its pointer output returned in a new
              handle object (a static extension type holding a void*) in the 2-tuple (the shape of
              cuCtxGetCurrent);
enum_int_gil: an enum member and an int in, the C call with the GIL kept, its int output in the
              2-tuple (cuDeviceGetAttribute; calls.py passes the device as an int, where the real
              call gets a CUdevice object: a lower bound);
enum_str_gil: an enum member in, the C call with the GIL kept, the C string it returns in the
              2-tuple as bytes (cuGetErrorString, cudaGetErrorString).

The shapes of the second API, cuda.bindings._v2 (outputs returned, a failed status raised):
ptr_gil:            no argument, the C call with the GIL kept, its pointer output returned as an
                    int (ctx_get_current);
enum_int_value_gil: an enum member and an int in, the C call with the GIL kept, its int output
                    returned (device_get_attribute);
int_in_nogil:       an int (a handle) in, the C call with the GIL released, None returned
                    (event_query);
launch_nogil:       the eleven arguments of launch_kernel: nine ints, the kernel parameters as an
                    int address or a buffer (its address through the buffer protocol), an int;
                    the C call with the GIL released, None returned;
two_ints_gil:       no argument, the C call with the GIL kept, its two int outputs returned in a
                    2-tuple (nvrtc.version).

benchmarks/run.sh builds it with cythonize and benchmarks/calls.py times it in the same processes
as the cuda.bindings calls, so the figures show how close a binding is to what Cython allows.
"""

cdef extern from *:
    """
    static int bench_floor_get(void **out) { *out = (void *)0x1000; return 0; }
    static int bench_floor_size(void *h, size_t *out) { *out = (size_t)h + 4096; return 0; }
    static int bench_floor_fill(void *h, unsigned long long *out) { out[0] = (size_t)h; out[1] = 40; return 0; }
    static int bench_floor_attr(int *out, int attr, int dev) { *out = attr + dev; return 0; }
    static int bench_floor_str(int code, const char **out) { *out = code ? "invalid argument" : "no error"; return 0; }
    static int bench_floor_query(void *h) { return h == (void *)0; }
    static int bench_floor_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shmem, void *s, void **params, void **extra) {
        return f == (void *)0 || (params != (void **)0 && extra != (void **)0);
    }
    static int bench_floor_version(int *major, int *minor) { *major = 13; *minor = 5; return 0; }
    """
    int bench_floor_get(void **out) nogil
    int bench_floor_size(void *h, size_t *out) nogil
    int bench_floor_fill(void *h, unsigned long long *out) nogil
    int bench_floor_attr(int *out, int attr, int dev) nogil
    int bench_floor_str(int code, const char **out) nogil
    int bench_floor_query(void *h) nogil
    int bench_floor_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                           unsigned bz, unsigned shmem, void *s, void **params, void **extra) nogil
    int bench_floor_version(int *major, int *minor) nogil

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport intptr_t

cdef object OK = 0


def tuple_nogil():
    cdef void *value
    cdef int status
    with nogil:
        status = bench_floor_get(&value)
    if status != 0:
        return (status, None)
    return (OK, <size_t>value)


def tuple_gil():
    cdef void *value
    cdef int status = bench_floor_get(&value)
    if status != 0:
        return (status, None)
    return (OK, <size_t>value)


def noop():
    return None


def value_nogil(h):
    cdef void *p = <void *><size_t>h
    cdef size_t out
    cdef int status
    with nogil:
        status = bench_floor_size(p, &out)
    if status != 0:
        raise RuntimeError(status)
    return out


cdef class Record:
    cdef object owner
    cdef unsigned long long data[8]


def struct_nogil(h):
    cdef void *p = <void *><size_t>h
    cdef Record r = Record.__new__(Record)
    cdef int status
    with nogil:
        status = bench_floor_fill(p, r.data)
    if status != 0:
        raise RuntimeError(status)
    return r


cdef class Handle:
    cdef void *p


def handle_gil():
    cdef void *value
    cdef int status = bench_floor_get(&value)
    if status != 0:
        return (status, None)
    cdef Handle h = Handle.__new__(Handle)
    h.p = value
    return (OK, h)


def enum_int_gil(attr, dev):
    cdef int a = attr
    cdef int d = dev
    cdef int value
    cdef int status = bench_floor_attr(&value, a, d)
    if status != 0:
        return (status, None)
    return (OK, value)


def enum_str_gil(code):
    cdef int c = code
    cdef const char *text
    cdef int status = bench_floor_str(c, &text)
    if status != 0:
        return (status, None)
    return (OK, <bytes>text)


def ptr_gil():
    cdef void *value
    cdef int status = bench_floor_get(&value)
    if status != 0:
        raise RuntimeError(status)
    return <intptr_t>value


def enum_int_value_gil(attr, dev):
    cdef int a = attr
    cdef int d = dev
    cdef int value
    cdef int status = bench_floor_attr(&value, a, d)
    if status != 0:
        raise RuntimeError(status)
    return value


def int_in_nogil(h):
    cdef void *p = <void *><intptr_t>h
    cdef int status
    with nogil:
        status = bench_floor_query(p)
    if status != 0:
        raise RuntimeError(status)


def launch_nogil(intptr_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                 unsigned int by, unsigned int bz, unsigned int shmem, intptr_t s, params, intptr_t extra):
    cdef Py_buffer view
    cdef void **p
    cdef bint held = False
    cdef int status
    if isinstance(params, int):
        p = <void **><intptr_t>params
    else:
        PyObject_GetBuffer(params, &view, PyBUF_SIMPLE)
        held = True
        p = <void **>view.buf
    with nogil:
        status = bench_floor_launch(<void *>f, gx, gy, gz, bx, by, bz, shmem, <void *>s, p, <void **>extra)
    if held:
        PyBuffer_Release(&view)
    if status != 0:
        raise RuntimeError(status)


def two_ints_gil():
    cdef int major, minor
    cdef int status = bench_floor_version(&major, &minor)
    if status != 0:
        raise RuntimeError(status)
    return (major, minor)
