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
    """
    int bench_floor_get(void **out) nogil
    int bench_floor_size(void *h, size_t *out) nogil
    int bench_floor_fill(void *h, unsigned long long *out) nogil
    int bench_floor_attr(int *out, int attr, int dev) nogil
    int bench_floor_str(int code, const char **out) nogil

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
