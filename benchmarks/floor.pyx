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
from libc.stdint cimport intptr_t, uintptr_t

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


# ---- the C twin in the process: the same driver call made from C, in the calls.py process -----
#
# The driver's own time per call differs from process to process, whichever package calls it
# (the driver probe: 3.5 to 3.9 us per launch), so that a row's figures from fresh processes
# overlap although the binding's own part differs by 300 ns.  twin_ns times the C form of a
# real-driver case (benchmarks/overhead_c.c's) in the same process, with the same handles and
# argument memory, after each repeat of the case (calls.measure): measure.by_speed then takes the binding's part of each
# figure as figure - twin and adds the phase's median twin (docs/benchmarks.md).  The driver is the
# one the process has loaded (dlopen RTLD_NOLOAD: the binding loaded it); the symbols are
# cuda.h's for these calls, as overhead_c.c's.

cdef extern from *:
    """
    #include <dlfcn.h>
    #include <stdint.h>
    #include <time.h>
    typedef int (*twin_fn)(void);
    static void *twin_lib = NULL;
    static void *twin_sym(const char *name) {
        if (twin_lib == NULL)
            twin_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        return twin_lib == NULL ? NULL : dlsym(twin_lib, name);
    }
    static double twin_now(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return t.tv_sec * 1e9 + t.tv_nsec;
    }
    /* the cases; a, b, c: the case's handles and addresses */
    static int (*tw_evq)(uintptr_t), (*tw_stq)(uintptr_t), (*tw_sync)(uintptr_t), (*tw_rec)(uintptr_t, uintptr_t);
    static int (*tw_evc)(uintptr_t *, unsigned), (*tw_evd)(uintptr_t), (*tw_stc)(uintptr_t *, unsigned), (*tw_std)(uintptr_t);
    static int (*tw_alloc)(uintptr_t *, size_t), (*tw_free)(uintptr_t);
    static int (*tw_htod)(uintptr_t, uintptr_t, size_t), (*tw_htoda)(uintptr_t, uintptr_t, size_t, uintptr_t);
    static int (*tw_attr)(void *, int, uintptr_t);
    static int (*tw_launch)(uintptr_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            uintptr_t, void **, void **);
    static int twin_resolve(void) {
        if (tw_launch != NULL)
            return 0;
        tw_evq = twin_sym("cuEventQuery"); tw_stq = twin_sym("cuStreamQuery");
        tw_sync = twin_sym("cuStreamSynchronize"); tw_rec = twin_sym("cuEventRecord");
        tw_evc = twin_sym("cuEventCreate"); tw_evd = twin_sym("cuEventDestroy_v2");
        tw_stc = twin_sym("cuStreamCreate"); tw_std = twin_sym("cuStreamDestroy_v2");
        tw_alloc = twin_sym("cuMemAlloc_v2"); tw_free = twin_sym("cuMemFree_v2");
        tw_htod = twin_sym("cuMemcpyHtoD_v2"); tw_htoda = twin_sym("cuMemcpyHtoDAsync_v2");
        tw_attr = twin_sym("cuPointerGetAttribute");
        tw_launch = twin_sym("cuLaunchKernel");
        return tw_evq && tw_stq && tw_sync && tw_rec && tw_evc && tw_evd && tw_stc && tw_std && tw_alloc
               && tw_free && tw_htod && tw_htoda && tw_attr && tw_launch ? 0 : -1;
    }
    static int twin_call(int which, uintptr_t a, uintptr_t b, uintptr_t c) {
        uintptr_t h;
        unsigned memtype;
        int r;
        switch (which) {
        case 0: return tw_evq(a);
        case 1: return tw_stq(a);
        case 2: return tw_rec(a, b);
        case 3: return tw_sync(a);
        case 4: r = tw_evc(&h, 0); return r ? r : tw_evd(h);
        case 5: r = tw_stc(&h, 0); return r ? r : tw_std(h);
        case 6: r = tw_alloc(&h, 4096); return r ? r : tw_free(h);
        case 7: return tw_htod(a, b, 4);
        case 8: return tw_htoda(a, b, 4, c);
        case 9: return tw_attr(&memtype, 2 /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */, a);
        case 10: return tw_launch(a, 1, 1, 1, 32, 1, 1, 0, b, (void **)c, NULL);
        }
        return -1;
    }
    /* ns per call: `iters` calls a repeat, or (iters 0) as many as take about target_ns (at
       most cap), the fastest of `repeats`; `sync` (a stream, or 0) synchronized, untimed, after
       each repeat, as calls.py does for a queued case.  A negative result is minus the status of
       the first call. */
    static double twin_time(int which, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t sync, long cap,
                            int repeats, double target_ns, long iters) {
        if (twin_resolve() != 0)
            return -999.0;
        int r0 = twin_call(which, a, b, c);
        if (sync) tw_sync(sync);
        if (r0 != 0)
            return -(double)r0;
        long n = 16;
        double t, t0, best = 1e300;
        while (iters <= 0) {
            t0 = twin_now();
            for (long i = 0; i < n; i++) twin_call(which, a, b, c);
            t = twin_now() - t0;
            if (sync) tw_sync(sync);
            if (t >= 2e6 || n >= cap) {
                iters = (long)(target_ns / (t / n > 1.0 ? t / n : 1.0));
                iters = iters < 16 ? 16 : iters > cap ? cap : iters;
            }
            n = n * 4 > cap ? cap : n * 4;
        }
        for (int k = 0; k < repeats; k++) {
            t0 = twin_now();
            for (long i = 0; i < iters; i++) twin_call(which, a, b, c);
            t = (twin_now() - t0) / iters;
            if (sync) tw_sync(sync);
            if (t < best) best = t;
        }
        return best;
    }
    """
    double twin_time(int which, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t sync, long cap, int repeats,
                     double target_ns, long iters) nogil

# calls.py's case name -> twin_call's case
TWIN_CASES = {"cuEventQuery": 0, "cuStreamQuery": 1, "cuEventRecord": 2, "cuStreamSynchronize": 3,
              "cuEventCreate+cuEventDestroy": 4, "cuStreamCreate+cuStreamDestroy": 5,
              "cuMemAlloc+cuMemFree_4KiB": 6, "cuMemcpyHtoD_4B": 7, "cuMemcpyHtoDAsync_4B": 8,
              "cuPointerGetAttribute": 9, "cuLaunchKernel": 10}


def twin_ns(str case, uintptr_t a=0, uintptr_t b=0, uintptr_t c=0, uintptr_t sync=0, long cap=5000000,
            int repeats=7, double target_ns=10e6, long iters=0):
    """ns per call of the C form of `case` (TWIN_CASES) in this process, the driver this process
    loaded, the fastest of `repeats` repeats of `iters` calls (0: calibrated to target_ns, at most
    cap); RuntimeError where the call fails or the driver lacks one of the symbols."""
    cdef int which = TWIN_CASES[case]
    cdef double ns
    with nogil:
        ns = twin_time(which, a, b, c, sync, cap, repeats, target_ns, iters)
    if ns < 0:
        raise RuntimeError(f"the C twin of {case}: " + ("the driver's symbols were not found" if ns == -999.0
                                                        else f"CUresult {int(-ns)}"))
    return ns
