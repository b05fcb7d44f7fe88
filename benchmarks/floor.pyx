# cython: language_level=3, boundscheck=False, wraparound=False
"""The floor of any binding: a Python -> Cython -> C call that returns (status, value).

tuple_nogil: the C call is made with the GIL released (as a binding of a driver call does);
tuple_gil:   the same, keeping the GIL;
noop:        a Cython function that does nothing and returns None.

benchmarks/run.sh builds it with cythonize and benchmarks/calls.py times it in the same processes
as the cuda.bindings calls, so the figures show how close a binding is to what Cython allows.
"""

cdef extern from *:
    """
    static int bench_floor_get(void **out) { *out = (void *)0x1000; return 0; }
    """
    int bench_floor_get(void **out) nogil

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
